package parser

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// block is an open [[RELAY]] block.
type block struct {
	active bool
	skip   bool   // over the size limit and already reported: look for the end only
	line   int64  // where it started
	buf    []byte // the block from its opening marker on, prefixes removed
	scan   jsonScan
	// box is the box or gutter the opening line is drawn in (a zero box
	// when none): a row that continues a wrapped JSON string loses its
	// borders too.
	box box
	// end is the column where the last row's text ended, and wrapAt the
	// column the program wrapped that row at (0: not known).
	end, wrapAt int
	// last is the last row that showed some of it.
	last int64
	// resumed: its box ended before it did, and a box drawn again showed
	// its rest (see resumes). Its rows come from two drawings: what does
	// not read as a block is the program's cut, not its author's mistake.
	resumed bool
	// wideCut: a row of it in a lossy box (Options.LossyBoxes) held wide
	// characters and ended inside a JSON string. The box draws them wider
	// than its terminal counts them and may cut such a row where it
	// overflows: the string's rest may be gone, and what does not read
	// as a block is the program's cut, not its author's mistake.
	// wideLost: such a row in a box not at work (Parser.BoxAtWork), which
	// cuts it (the row ended inside a string: the terminal's row was
	// full): the text after the cut is gone, and what shows is no
	// command the agent wrote, though its JSON may still parse. The box
	// at work wraps the row instead.
	wideCut, wideLost bool
	// lastWide: the last row held wide characters; boxEnd is the column
	// where its text ended in the block's box.
	lastWide bool
	boxEnd   int
	// oneWord: the last row's text was one word, no blank in it.
	oneWord bool
	// dropped: a row of its JSON string, in a lossy box, starts with a
	// word that would have fitted on the row before: the box dropped the
	// text between (the rest of its terminal's row).
	dropped bool
	// unsizedBreak: a row of its JSON string, in a lossy box not known to
	// be as wide as its terminal (Parser.BoxSized), went on in the next
	// row: the box may have cut that row there, the rest of its
	// terminal's row dropped, a word's end with it (a file of JSON lines
	// printed by a command that ended before the box showed it at work).
	unsizedBreak bool
	// edgeCut: a row of it outside a JSON string, in a lossy box not
	// known to be as wide as its terminal, reached the box's last
	// column: the box may have cut the terminal's row there, the rest
	// dropped (`"topic"` then the end marker, of `"topic":"t1"}`).
	edgeCut bool
	// indent is the column the opening row's text starts at, inside the
	// block's box or gutter when it has one.
	indent int
}

// jsonScan follows just enough of JSON's lexical structure to tell whether
// a position is inside a string and whether a value is complete.
type jsonScan struct {
	inString bool
	escaped  bool
	seen     bool // any byte but JSON's whitespace
	depth    int  // open objects and arrays
}

func (s *jsonScan) feed(b string) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case s.inString:
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
		case c == '"':
			s.inString, s.seen = true, true
		case c == '{' || c == '[':
			s.depth++
			s.seen = true
		case c == '}' || c == ']':
			s.depth--
			s.seen = true
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			s.seen = true
		}
	}
}

// complete reports whether what was scanned could be a whole JSON value.
func (s *jsonScan) complete() bool { return s.seen && !s.inString && s.depth <= 0 }

// opensBlock reports whether rest (a line without its prefix) opens a block:
// the marker, then nothing or the start of a JSON object.
func opensBlock(rest string) bool {
	if !strings.HasPrefix(rest, blockOpen) {
		return false
	}
	after := strings.TrimLeft(rest[len(blockOpen):], " \t\u00a0")
	return after == "" || after[0] == '{'
}

// openBlock starts a block at rest (line without its prefix pre), which
// opensBlock accepted.
func (p *Parser) openBlock(n int64, line string, wrapAt int, rest string, pre prefix, out []Event) []Event {
	b := &p.blk
	b.active, b.skip, b.line, b.scan = true, false, n, jsonScan{}
	b.end, b.wrapAt = textEnd(line), wrapAt
	b.box, _ = boxOf(line, pre)
	b.indent, _ = leadingBlanks(line)
	if in, ok := b.box.inner(line); ok {
		b.indent, _ = leadingBlanks(in)
	}
	b.last = n
	b.buf = append(b.buf[:0], blockOpen...)
	out, _ = p.addContent("", rest[len(blockOpen):], out)
	p.noteRow(line)
	return out
}

// blockLine handles a line inside an open block. again is true when the line
// did not belong to the block and must be read as new input.
func (p *Parser) blockLine(n int64, line string, wrapAt int, out []Event) (_ []Event, again bool) {
	b := &p.blk
	rest, _, pre := stripPrefix(line)
	if n < b.line && p.recent.saw(rest) && !(strings.HasPrefix(rest, blockClose) && b.scan.complete()) {
		// A row above the block's first that repeats, but for its glyphs,
		// a row read just before the block, drawn again while the block
		// streams in below it (Codex's header of the running command,
		// its bullet blinking, the view scrolled): not a row of the
		// block. But for an end marker after a whole JSON object: that
		// is where a reader sees the block end, whatever its number (a
		// view scrolled twice in a moment numbers the block's rows
		// afresh), and a marker redrawn from above cannot make a whole
		// object more than it is.
		return out, false
	}
	if _, ok := b.box.inner(line); ok && n < b.line && !b.box.gutter() {
		// A row of the block's box above the block's first row: the
		// program drew the box again from higher up (Gemini CLI's box of
		// a running command's last rows, scrolled as its output comes
		// in), the block's rows moved up with the rest. The block as
		// read so far is the program's cut, no error; the box's rows are
		// read afresh.
		p.resetBlock()
		return out, true
	}
	end, wrapBefore := b.end, b.wrapAt
	b.end, b.wrapAt = textEnd(line), wrapAt
	if strings.HasPrefix(rest, blockClose) {
		return p.closeBlock("\n", out), false
	}
	if b.box.closedBy(line) {
		// The box the block opened in ends before the block does: the
		// program shows only so many rows of it (Gemini CLI's box of a
		// running command's last rows). What it showed is no command
		// and no mistake of its author's; the rest may show where those
		// rows were once the box is drawn again (see resumes).
		if !b.skip && !b.scan.inString {
			p.cut = cutBlock{active: true, blk: *b, rows: b.last - b.line + 1}
			p.cut.blk.buf = slices.Clone(b.buf)
		}
		p.resetBlock()
		return out, false
	}
	if strings.TrimSpace(trimBorder(rest, pre)) != "" {
		b.last = n
	}
	if b.scan.inString && (strings.HasPrefix(rest, relayMarker) || strings.HasPrefix(rest, thinkingMarker) || opensBlock(rest)) {
		// A string left open (a CLI cut the block short: opencode
		// collapses a long output) does not swallow the commands after it.
		b.scan.inString = false
	}
	if b.scan.inString {
		// A CLI word-wrapped a long JSON string: join the row back,
		// without the borders of the box it is drawn in.
		text := line
		if in, ok := b.box.inner(line); ok {
			text = strings.TrimRight(in, " \t\u00a0")
		}
		cols, k := leadingBlanks(text)
		if p.lossy && b.box.edge && !b.box.gutter() && !p.sized {
			b.unsizedBreak = true
		}
		if p.lossy && b.box.edge && !b.box.gutter() && !b.lastWide {
			// The word would have fitted after the blanks a wrap eats: one,
			// or two after a sentence ("end.  Next"), which the row's
			// trimmed end does not show.
			word, _, _ := strings.Cut(text[k:], " ")
			if b.boxEnd+wrapEatenBlanks+ansi.StringWidth(word) <= b.box.right-1 {
				b.dropped = true
			}
		}
		sep := " "
		if b.scan.escaped {
			// The row ended in the middle of an escape (a backslash): the
			// CLI broke a word there, no blank can have been between.
			sep = ""
		}
		last, _ := utf8.DecodeLastRune(bytes.TrimRight(b.buf, " \t"))
		first, _ := utf8.DecodeRuneInString(text[k:])
		if p.wideBreak && wide(last) && wide(first) && brokeInRun(text[k:], end, wrapBefore) {
			sep = "" // a run of wide characters the CLI broke
		}
		if p.wideBreak && wide(last) && brokeBeforeLineBreak(text[k:], end, wrapBefore) {
			sep = ""
		}
		if p.markBreak && wide(first) && endsWithLineBreak(b.buf) && brokeAfterLineBreak(text[k:], end, wrapBefore, p.wideBreak) {
			sep = ""
		}
		if p.markBreak && (last != '\\' && brokeAfter(last, text[k:], end, wrapBefore) || last == '\\' && brokeBetweenBackslashes(text[k:], end, wrapBefore) ||
			last == '\\' && !p.wideBreak && brokeAfterEscape(b.buf, text[k:], end, wrapBefore) || brokeNumber(b.buf, text[k:], end, wrapBefore, !p.wideBreak)) {
			// A word the CLI broke after punctuation, between two
			// escaped backslashes (brokeBetweenBackslashes), or, one
			// that breaks only after punctuation, after an escaped one
			// (brokeAfterEscape). A row ending inside an escape is seen
			// above.
			sep = ""
		}
		if b.box.border == 0 && b.oneWord && wrapBefore > 0 && end > wrapBefore {
			// The row was one word out past the column the program wraps
			// at: a word longer than a row, which a program that wraps
			// words breaks at its text's edge, with no blank (one that
			// fits a row goes to the next row whole). Claude Code's
			// compact block on a narrow screen: its first row is one
			// word, "body":" and the body's first word with it. One word
			// that ends at the wrap column fitted there, a blank after it.
			sep = ""
		}
		if p.blankWrap && wrapBefore > 0 && end > wrapBefore && cols != b.indent+1 {
			// The row ended past the column the CLI wraps at: only a
			// word broken with no blank reaches it (Options.WrapsWithBlank)
			// — or a word whose blank the CLI moved to the next row,
			// which then starts a column further than the block's rows
			// (`produce \\` then ` end`): the blank is there to see.
			sep = ""
		}
		out, _ = p.addContent(sep, text[k:], out)
		p.noteRow(line)
		return out, false
	}
	if opensBlock(rest) || strings.HasPrefix(rest, relayMarker) || strings.HasPrefix(rest, thinkingMarker) {
		// A command drawn at or above the block's first line is the
		// program drawing its rows again over where the block began
		// (Codex inline's finished output, whose middle it leaves out):
		// the block was cut by the program, not left open by its author.
		if !b.skip && n > b.line {
			out = append(out, Event{Err: newError(b.line, ErrUnterminatedBlock,
				"a new command started on line "+strconv.FormatInt(n, 10))})
		}
		p.resetBlock()
		return out, true
	}
	out, _ = p.addContent("\n", trimBorder(rest, pre), out)
	p.noteRow(line)
	return out, false
}

// noteRow notes, after a row of the open block, whether the box may have
// cut it (block.wideCut), and where it ended.
func (p *Parser) noteRow(line string) {
	b := &p.blk
	if !b.active {
		return
	}
	b.lastWide, b.boxEnd = holdsWide(line), b.box.textEnd(line)
	rest, _, pre := stripPrefix(line)
	text := strings.TrimSpace(trimBorder(rest, pre))
	b.oneWord = text != "" && !strings.ContainsAny(text, " \t\u00a0")
	if p.lossy && b.box.edge && !b.box.gutter() && !p.sized && !b.scan.inString && b.boxEnd >= b.box.right-1 {
		b.edgeCut = true
	}
	if p.lossy && b.box.edge && !b.box.gutter() && b.scan.inString && b.lastWide {
		b.wideCut = true
		b.wideLost = b.wideLost || !p.atWork
	}
}

// addContent appends sep and one line's worth of block text, and closes the
// block when the text ends with an end marker outside a JSON string after a
// complete value.
func (p *Parser) addContent(sep, text string, out []Event) ([]Event, bool) {
	b := &p.blk
	if pre, ok := strings.CutSuffix(text, blockClose); ok {
		s := b.scan
		s.feed(sep)
		s.feed(pre)
		if s.complete() {
			out = p.appendBlock(sep, pre, out)
			return p.closeBlock("", out), true
		}
	}
	b.scan.feed(sep)
	b.scan.feed(text)
	if p.cutMark && cutShort(text) {
		// The program cut the block short (JSON has no … outside a
		// string): the rest is hidden, and what shows is no command and
		// no mistake of its author's.
		p.resetBlock()
		return out, true
	}
	return p.appendBlock(sep, text, out), false
}

// appendBlock buffers sep and text unless that makes the block too large,
// in which case it reports the error once and drops the buffer.
func (p *Parser) appendBlock(sep, text string, out []Event) []Event {
	b := &p.blk
	if b.skip {
		return out
	}
	if len(b.buf)-len(blockOpen)+len(sep)+len(text) > p.max {
		b.skip, b.buf = true, nil
		return append(out, Event{Err: newError(b.line, ErrTooLarge, "block over "+strconv.Itoa(p.max)+" bytes")})
	}
	b.buf = append(b.buf, sep...)
	b.buf = append(b.buf, text...)
	return out
}

// wrapEatenBlanks is how many blanks a word wrap may have taken from the
// end of a row unseen: a string's words are one blank apart, or two after
// a sentence.
const wrapEatenBlanks = 2

// closeBlock ends the block, emitting its command or error; sep goes before
// the end marker in the command's source.
func (p *Parser) closeBlock(sep string, out []Event) []Event {
	b := &p.blk
	if !b.skip {
		src := string(b.buf) + sep + blockClose
		js := b.buf[len(blockOpen):]
		// What a lossy box cut (wideCut, dropped) or may have cut
		// (unsizedBreak, edgeCut) is JSON that may no longer parse: no error then;
		// a wrong target or field in JSON that parses is its author's.
		// What it lost text of (wideLost, dropped) is no command the agent
		// wrote.
		cut := (b.wideCut || b.dropped || b.unsizedBreak || b.edgeCut) && !json.Valid(bytes.TrimSpace(js))
		cmd, err := decodeBlock(b.line, js)
		switch {
		case err != nil:
			if !b.resumed && !cut {
				out = append(out, Event{Err: err})
			}
		case !b.dropped && !b.wideLost: // its text lost: not what the agent wrote
			cmd.Source = src
			out = append(out, Event{Command: cmd})
		}
	}
	p.resetBlock()
	return out
}

// cutBlock is a block whose box ended before it did, kept while the box
// may show its rest.
type cutBlock struct {
	active bool
	blk    block
	rows   int64 // how many rows the box showed it on, from blk.line
	read   int   // lines read since
	// other are the positions of the rows read since that showed other
	// text: the block's rows are not there.
	other []int64
}

// maxCutWait is how many lines may come between the end of the box that
// cut a block and the row that goes on with it: the program's rows under
// the box, then the box drawn again down to where the block was.
const maxCutWait = 64

// resumes reports whether line, numbered n, goes on with the block its
// box cut: the program drew the box again (Gemini CLI's finished box of a
// command whose running box showed a block's first rows) with the block's
// first rows where they were or moved up — read already, so no row shows
// other text there since — and right under them the block's next row: a
// member after one that ends with a comma, the object's end after one that
// does not, or the closing marker after the object. A row that opens a
// block or starts a command drops the cut block, and so does a long wait;
// a box that shows the block's last rows under other text ("… N hidden")
// never showed it whole.
func (p *Parser) resumes(n int64, line string) bool {
	c := &p.cut
	rest, _, pre := stripPrefix(line)
	c.read++
	if opensBlock(rest) || strings.HasPrefix(rest, relayMarker) || strings.HasPrefix(rest, thinkingMarker) || c.read > maxCutWait {
		p.cut = cutBlock{}
		return false
	}
	text := rest
	if _, ok := c.blk.box.inner(line); ok {
		text = strings.TrimSpace(trimBorder(rest, pre))
		if text == "" || c.repeats(text) {
			return false // a blank row of the box, or a row of the block again
		}
		if n >= c.blk.line && n <= c.blk.line+c.rows && c.next(text) && c.free(n-c.rows, n) {
			return true
		}
	}
	if len(c.other) < maxCutWait {
		c.other = append(c.other, n)
	}
	return false
}

// next reports whether a row showing text is the cut block's next row.
func (c *cutBlock) next(text string) bool {
	s := c.blk.scan
	if !s.seen {
		return strings.HasPrefix(text, "{") // cut right under its opening marker
	}
	if s.complete() {
		return strings.HasPrefix(text, blockClose)
	}
	if s.inString || s.depth != 1 {
		return false
	}
	last := bytes.TrimRight(c.blk.buf, " \t\n")
	switch last[len(last)-1] {
	case ',':
		return strings.HasPrefix(text, `"`)
	case '{':
		return strings.HasPrefix(text, `"`) || strings.HasPrefix(text, "}")
	}
	return strings.HasPrefix(text, "}")
}

// free reports whether no row read since the block was cut showed other
// text at positions from to to (not included).
func (c *cutBlock) free(from, to int64) bool {
	for _, n := range c.other {
		if n >= from && n < to {
			return false
		}
	}
	return true
}

// repeats reports whether text is a row the cut block holds already.
func (c *cutBlock) repeats(text string) bool {
	for row := range strings.SplitSeq(string(c.blk.buf), "\n") {
		if strings.TrimSpace(row) == text {
			return true
		}
	}
	return false
}

func (p *Parser) resetBlock() {
	buf := p.blk.buf[:0]
	if cap(buf) > 64<<10 {
		buf = nil // do not keep a huge buffer for the next block
	}
	p.blk = block{buf: buf}
}

// blockFields are the fields a block may have, in the order they are
// checked.
var blockFields = []string{"to", "type", "body", "data", "topic", "correlation_id", "in_reply_to"}

const fieldList = "to, type, body, data, topic, correlation_id, in_reply_to"

func malformed(line int64, detail string) *ParseError {
	return newError(line, ErrMalformedBlock, detail)
}

// decodeBlock reads a block's JSON into a command.
func decodeBlock(line int64, js []byte) (*Command, *ParseError) {
	js = bytes.TrimSpace(js)
	if len(js) == 0 {
		return nil, malformed(line, "no JSON object between [[RELAY]] and [[/RELAY]]")
	}
	if js[0] != '{' {
		return nil, malformed(line, "want one JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, malformed(line, err.Error())
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(blockFields, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		return nil, malformed(line, "unknown field "+strconv.Quote(keys[0])+" (fields: "+fieldList+")")
	}
	c := &Command{Kind: KindRelay, Line: line, FromBlock: true}
	strs := []*string{&c.To, &c.Type, &c.Body, nil, &c.Topic, &c.CorrelationID, &c.InReplyTo}
	for i, name := range blockFields {
		raw, ok := m[name]
		if !ok || strs[i] == nil {
			continue
		}
		if raw[0] != '"' {
			return nil, malformed(line, "field "+strconv.Quote(name)+" must be a string")
		}
		if err := json.Unmarshal(raw, strs[i]); err != nil {
			return nil, malformed(line, "field "+strconv.Quote(name)+": "+err.Error())
		}
	}
	if _, ok := m["to"]; !ok {
		return nil, malformed(line, `missing "to"`)
	}
	if !ValidTarget(c.To) {
		return nil, invalidTarget(line, c.To)
	}
	if c.Type == "" {
		c.Type = "message"
	}
	if raw, ok := m["data"]; ok && string(raw) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, malformed(line, "field \"data\": "+err.Error())
		}
		c.Data = buf.Bytes()
	}
	if c.Type == "message" && c.Body == "" && c.Data == nil {
		return nil, newError(line, ErrEmptyBody, `block has no "body" or "data"`)
	}
	return c, nil
}
