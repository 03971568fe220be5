package parser

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// DefaultMaxBlock is the default for [Options.MaxBlock]: 1 MiB.
const DefaultMaxBlock = 1 << 20

// Options configure a [Parser].
type Options struct {
	// MaxBlock is the largest block (bytes of JSON between the markers) or
	// inline command (bytes of source text, continuation rows included)
	// accepted. Zero or less means DefaultMaxBlock.
	MaxBlock int
	// LossyBoxes says the program draws output in boxes whose rows are its
	// own terminal's rows cut to the box, dropping what does not fit
	// (Gemini CLI): see the package documentation.
	LossyBoxes bool
	// BreaksWideRuns says the program breaks words where Unicode's line
	// breaking allows it (Codex): inside a run of wide characters (CJK,
	// emoji), and after punctuation as BreaksAfterPunctuation says; rows
	// it broke there, the next row's first word too long for the row, are
	// joined without a blank.
	BreaksWideRuns bool
	// BreaksAfterPunctuation says the program breaks a word after a
	// hyphen, slash, backslash, bar, colon, semicolon or opening bracket
	// (opencode), but not inside a run of wide characters: a run that
	// does not fit goes to the next row whole.
	BreaksAfterPunctuation bool
	// CutsRows says the program shows a row it cut short with its cut
	// mark … at the end (opencode's collapsed preview of a long output): a
	// command whose row ends so, or whose target does, shows only its
	// start and is not read, and a block cut so inside a string ends there;
	// neither is an error.
	CutsRows bool
	// WrapsWithBlank says a word the program wraps must fit with the
	// blank after it (opencode): a row that ends past the column it wraps
	// at ended its line there, or the program broke a word there with no
	// blank; no blank was at that wrap.
	WrapsWithBlank bool
}

// Parser turns committed terminal lines into events. Create one per
// terminal with [New]; it is not safe for concurrent use.
type Parser struct {
	max       int
	lossy     bool
	wideBreak bool  // Options.BreaksWideRuns
	markBreak bool  // Options.BreaksAfterPunctuation, or BreaksWideRuns
	cutMark   bool  // Options.CutsRows
	blankWrap bool  // Options.WrapsWithBlank
	sized     bool  // BoxSized
	atWork    bool  // BoxAtWork
	step      int64 // RowLines
	extra     int64 // NextRowLines, less one: for the next row fed…
	rowExtra  int64 // …and for the row being fed
	fence     fence
	held      held
	blk       block
	cut       cutBlock
	recent    recent
}

// recent holds the last lines read outside a block, without their
// prefixes: a row drawn again is known by them.
type recent struct {
	rest [16]string
	next int
}

func (r *recent) add(rest string) {
	r.rest[r.next] = rest
	r.next = (r.next + 1) % len(r.rest)
}

// saw reports whether a line was read with rest after its prefix.
func (r *recent) saw(rest string) bool {
	for _, t := range r.rest {
		if t == rest && rest != "" {
			return true
		}
	}
	return false
}

// fence is an open Markdown code fence: n (≥ 3) times char; n is 0 when no
// fence is open.
type fence struct {
	char byte
	n    int
}

// held is an inline command under a bullet or inside a box, waiting for
// its continuation rows.
type held struct {
	active bool
	skip   bool // over the size limit and already reported: swallow its rows
	kind   Kind
	to     string
	line   int64  // where it started
	last   int64  // the last row it took
	hang   int    // hanging indent, in characters
	first  string // the body as far as the first line goes
	src    []byte // the source lines, joined with "\n"
	// box is the border the command is inside; box.edge says the command
	// is right inside it (no bullet), where a row continues only when the
	// row before it is full.
	box box
	// end is the column where the text of the last row taken ends, widest
	// where the widest did.
	end, widest int
	// wrapAt is the column the program wraps its rows at, on the screen
	// the last row taken was shown on (0: not known).
	wrapAt int
	// tight[k] says continuation row k joins the row before it without a
	// blank: the program broke a word or a run of wide characters there
	// (brokeWord), or, in a box that loses characters at its edge, the
	// row before reached the edge (brokenAtEdge counts those).
	tight []bool
	// sized: the command is in a box whose terminal was as wide as the
	// box (Parser.BoxSized).
	sized bool
	// step is how many line numbers each of its rows takes
	// (Parser.RowLines), 0 for one.
	step int64
	// extra is how many line numbers more than one the last row taken
	// takes (Parser.NextRowLines).
	extra int64
	// wide: a row it took holds a wide character (holdsWide), in a lossy
	// box (wideSlack).
	wide bool
	// ragged counts the rows right inside a box, with no wide character,
	// that another row continued and that ended more than a column short
	// of the box; filled, those that filled it (see box.filled).
	ragged, filled int
}

// maxWrapRoom is the most room a program (or a box) can leave at the end
// of a row it wrapped: a word that long did not fit.
const maxWrapRoom = 20

// next returns the number of the line right under the held command's
// last row: where a row continuing it goes.
func (h *held) next() int64 { return h.last + 1 + h.step + h.extra }

// ended reports whether the last row the held command took left room for
// a word of maxWrapRoom columns after a blank, where the program wraps at
// a known column (wrapKnown): the program did not wrap the line there,
// the line ended. Only where a row of the command came that near the
// column: rows laid out for a narrower screen, the last committed after
// it grew (with the new width), all leave that much room.
func (h *held) ended() bool {
	return h.wrapKnown() && h.end+1+maxWrapRoom <= h.wrapAt && h.widest+1+maxWrapRoom > h.wrapAt
}

// full reports whether the last row the held command took left no room
// for a word of maxWrapRoom columns, where the program wraps at a known
// column: the line may go on under it.
func (h *held) full() bool {
	return h.wrapKnown() && h.end+1+maxWrapRoom > h.wrapAt
}

// pushedOffCut reports whether the held command, its next row fed at line
// n, is cut where the screen narrowed: its last row was pushed off by a
// narrowing resize (it takes more than one line, Parser.NextRowLines),
// filled to its edge (full), and n is not the line under it. The rows under
// that row stayed on the screen, and the program (Codex) draws them again
// at the new width, the line's start with them, rather than pushing them
// off: the command as held may be the line's start only, and a cut
// delivery is worse than none.
func (h *held) pushedOffCut(n int64) bool { return h.extra > 0 && n != h.next() && h.full() }

// minRewrapTail is the shortest end of a row (in bytes, blanks included)
// that rewrapsCut takes for that row's end moved down onto the next row:
// a shorter one, a word or two, starts many a row by chance.
const minRewrapTail = 8

// rewrapsCut reports whether line, the next row fed under a held command
// cut where the screen narrowed (pushedOffCut), is that command's line
// drawn again at the new width: at the command's indent, it starts with
// the end of the command's last row (minRewrapTail or more of it, after a
// blank of that row, not all of its body) and goes on after a blank. The
// program (Codex inline) wrote the line again for the narrower screen:
// the row's start there, which the caller took for the row read, and its
// end moved down onto line, then the rest of the line. The end is taken
// back from the row, and the command goes on with line (the caller
// extends it).
func (p *Parser) rewrapsCut(line string) bool {
	h := &p.held
	if h.skip || h.box.border != 0 {
		return false
	}
	cols, k := leadingBlanks(line)
	if cols != h.hang && cols != h.hang+1 || k == len(line) {
		return false
	}
	rest := line[k:]
	row := strings.TrimRight(lastRow(h.src), " ")
	body := row
	if len(h.tight) == 0 {
		// The row starts the command: its end is in the body.
		body = strings.TrimRight(h.first, " ")
	}
	for i := 1; i < len(body); i++ {
		tail := body[i:]
		if body[i-1] != ' ' || len(tail) < minRewrapTail || !strings.HasPrefix(rest, tail+" ") || !strings.HasSuffix(row, tail) {
			continue
		}
		keep := strings.TrimRight(row[:len(row)-len(tail)], " ")
		h.src = append(h.src[:len(h.src)-len(lastRow(h.src))], keep...)
		if len(h.tight) == 0 {
			h.first = strings.TrimRight(body[:i], " ")
		}
		h.end = textEnd(keep)
		return true
	}
	return false
}

// wrapKnown reports whether the column the program wrapped the held
// command's last row at is known: not right inside a box, whose rows end
// at its border.
func (h *held) wrapKnown() bool { return h.wrapAt > 0 && !(h.box.edge && !h.box.gutter()) }

// lossySlack is how much more room than the next row's first word needs a
// lossy box's row may leave and still go on in the next row: the box cut
// its terminal's row at the last blank that fit and dropped the word that
// crossed its edge (its start, up to a short word's length, is the room
// left), and the next row may start with the end of it. A row with room
// for the word, its blank and that much more ended its line: the next row
// is another line (gemini-s124400008's relay read on into "end of the
// output, 18 lines" across seven free columns).
const lossySlack = 3

// wideSlack is the column more lossySlack allows in a command that holds
// a wide character (held.wide): the box draws one wider than the
// program's terminal counts it (an emoji two columns for one, an East
// Asian letter with a blank after it), so where the terminal's rows ended
// and where the box cut them are that much further apart.
const wideSlack = 1

// New returns a parser at the start of a terminal's output.
func New(opts Options) *Parser {
	if opts.MaxBlock <= 0 {
		opts.MaxBlock = DefaultMaxBlock
	}
	return &Parser{max: opts.MaxBlock, lossy: opts.LossyBoxes, wideBreak: opts.BreaksWideRuns,
		markBreak: opts.BreaksWideRuns || opts.BreaksAfterPunctuation, cutMark: opts.CutsRows,
		blankWrap: opts.WrapsWithBlank}
}

// Feed parses one committed line with absolute line number n (increasing;
// gaps allowed) and returns the events it completes, in order: usually none.
// Where the program wraps its rows is not known: see FeedLine.
func (p *Parser) Feed(n int64, text string) []Event { return p.FeedLine(n, text, 0) }

// FeedLine is Feed for a line shown on a screen where the program that
// printed it word-wraps its rows before column wrapAt: a word that would
// have ended past it goes to the next row (the screen's width, less what
// the program keeps to the right of its text; 0 when not known). A row
// under a bullet that left room for the next row's first word ended there:
// the next row is another line, not a wrap.
func (p *Parser) FeedLine(n int64, text string, wrapAt int) []Event {
	p.rowExtra, p.extra = p.extra, 0
	line := clean(text)
	var out []Event
	if p.held.active {
		if p.continues(n, line) {
			p.held.extra = p.rowExtra
			return p.extend(n, line, wrapAt)
		}
		if p.held.pushedOffCut(n) {
			if p.rewrapsCut(line) {
				p.held.extra = p.rowExtra
				return p.extend(n, line, wrapAt)
			}
			p.held = held{src: p.held.src[:0], tight: p.held.tight[:0]}
		} else {
			out = p.finishHeld(out)
		}
	}
	if !p.blk.active && p.cut.active && p.resumes(n, line) {
		p.blk, p.cut = p.cut.blk, cutBlock{}
		p.blk.resumed = true
	}
	if p.blk.active {
		var again bool
		if out, again = p.blockLine(n, line, wrapAt, out); !again {
			return out
		}
	}
	return p.plainLine(n, line, wrapAt, out)
}

// Flush ends the input as far as anything held back is concerned, because
// the output ended or went quiet: it returns a held bullet command (or its
// error) and reports an open block as unterminated. An open code fence stays
// open: an agent pausing in the middle of a code block is common, and
// closing the fence early would turn its closing line into an opening one.
func (p *Parser) Flush() []Event {
	var out []Event
	if p.held.active {
		out = p.finishHeld(out)
	}
	if p.blk.active {
		if !p.blk.skip && !p.blk.resumed {
			out = append(out, Event{Err: newError(p.blk.line, ErrUnterminatedBlock, "")})
		}
		p.resetBlock()
	}
	return out
}

// Elided tells the parser that the program left rows out where the next
// line goes (it showed "… +N lines" in their place): a block open there is
// cut short by the program, not left unterminated by the agent, and is
// dropped without an error. It reports whether a block was open.
func (p *Parser) Elided() bool {
	if !p.blk.active {
		return false
	}
	p.resetBlock()
	return true
}

// InBlock reports whether a relay block is open: its start read, its end
// marker not yet.
func (p *Parser) InBlock() bool { return p.blk.active }

// ElidedHeld tells the parser, as Elided does, that the program left rows
// out at line n: a command held with rows continuing it was cut by the
// program (the rows after it are the ones left out, or may be), and is
// dropped. It reports whether one was. Rows left out away from the
// command's last row (n not the line right under it: a view laid out anew
// shows the output collapsed elsewhere) cut it only if that row may go on
// (held.ended): a line whose last row left room for any word ended there.
// Right under it they are where the line goes: the row above them may be
// the program's cut mid-word, not the line's end. A command on one row
// is cut only where that row left no room for a long word (held.full):
// a short one ended its line.
func (p *Parser) ElidedHeld(n int64) bool {
	h := &p.held
	if !h.active {
		return false
	}
	if len(h.tight) == 0 && !h.full() || len(h.tight) > 0 && n != h.next() && h.ended() {
		return false
	}
	p.held = held{src: p.held.src[:0], tight: p.held.tight[:0]}
	return true
}

// BoxSized says whether the rows fed from now on are in a box whose
// terminal the program had made as wide as the box (Options.LossyBoxes:
// Gemini CLI does once it shows the command at work, not for a command
// that ended before that). A row of such a box that reaches its last
// column broke a word there: the next row goes on with no blank. Where
// that is not known, it is so only where more rows of the command say so
// (see the package documentation); else the row was cut there, after a
// whole word, and the next row goes on after what was lost, with a blank.
func (p *Parser) BoxSized(sized bool) { p.sized = sized }

// BoxAtWork says whether the rows fed from now on are in a box of a
// command still at work (Options.LossyBoxes: Gemini CLI's live box). That
// box wraps its terminal's rows at its edge and drops nothing; the box
// printed done cuts a row whose wide characters overflow it, and a block
// one of whose string rows it so cut is no command (see block.wideLost).
func (p *Parser) BoxAtWork(atWork bool) { p.atWork = atWork }

// RowLines says how many line numbers each row fed from now on takes: more
// than one where the program drew its rows wider than the screen and the
// terminal broke each over that many lines, the caller feeding each row
// whole (the terminal's lines joined), numbered by its first line. A
// command's next row is then that many lines under it, no gap; a row that
// takes another number of lines is laid out for another screen, and no
// row of it — unless it has a box's right border where the command's box
// has it (the screen narrowed between two rows of one box). 0 or 1: one
// line each.
func (p *Parser) RowLines(n int64) { p.step = max(n, 1) - 1 }

// NextRowLines says how many line numbers the next row fed takes, that row
// only: more than one where the terminal broke a row the program drew for
// a wider screen over that many lines as the screen narrowed, the caller
// feeding it whole, numbered by its first line. A command's next row is
// then that many lines under it, no gap. 0 or 1: one line.
func (p *Parser) NextRowLines(n int64) { p.extra = max(n, 1) - 1 }

// Pending reports whether a command under a bullet is held back waiting for
// continuation rows; the caller should Flush after a quiet period. An open
// block does not count: agents pause inside blocks, and the end marker will
// come.
func (p *Parser) Pending() bool { return p.held.active && !p.held.skip }

// plainLine handles a line outside any block.
func (p *Parser) plainLine(n int64, line string, wrapAt int, out []Event) []Event {
	rest, _, pre := stripPrefix(line)
	rest = trimBorder(rest, pre)
	p.recent.add(rest)
	if p.fence.n > 0 {
		if closesFence(rest, p.fence) {
			p.fence = fence{}
		}
		return out
	}
	if rest == "" {
		return out
	}
	switch rest[0] {
	case '`', '~':
		if f, ok := opensFence(rest); ok {
			p.fence = f
		}
	case '@':
		if strings.HasPrefix(rest, relayMarker) {
			return p.inline(n, line, wrapAt, KindRelay, rest[len(relayMarker):], pre, out)
		}
		if strings.HasPrefix(rest, thinkingMarker) {
			return p.inline(n, line, wrapAt, KindThinking, rest[len(thinkingMarker):], pre, out)
		}
	case '[':
		if opensBlock(rest) {
			return p.openBlock(n, line, wrapAt, rest, pre, out)
		}
	}
	return out
}

// inline handles `@relay:` or `@thinking:` at the start of line; after is
// the text following the marker.
func (p *Parser) inline(n int64, line string, wrapAt int, kind Kind, after string, pre prefix, out []Event) []Event {
	end := strings.IndexFunc(after, unicode.IsSpace)
	if end < 0 {
		end = len(after)
	}
	to := after[:end]
	if to == "" {
		return out // "@relay:" alone or "@relay: x" reads as prose
	}
	if p.cutMark && cutShort(to) {
		return out // cut by the program: its target is not all there
	}
	if !ValidTarget(to) {
		return append(out, Event{Err: invalidTarget(n, to)})
	}
	body := strings.TrimSpace(after[end:])
	bx, boxed := boxOf(line, pre)
	if boxed && bx.edge && !bx.gutter() && bx.right-1-bx.textEnd(line) >= maxWrapRoom {
		boxed = false // room left on the row: the box did not wrap it
	}
	if pre.glyph == bullet || boxed || wrapAt > 0 && pre.border == 0 {
		// Wait for rows with the bullet's hanging indent, or for the rest
		// of a row the box wrapped; where the program wraps its rows is
		// known, for the rest of any row it wrapped.
		p.held = held{active: true, kind: kind, to: to, line: n, last: n, hang: pre.cols, box: bx, wrapAt: wrapAt, sized: p.sized, step: p.step, extra: p.rowExtra}
		p.held.end = textEnd(line)
		if boxed && bx.edge && !bx.gutter() {
			p.held.end = bx.textEnd(line)
		}
		p.held.widest = p.held.end
		p.held.wide = p.lossy && holdsWide(line)
		if len(line) > p.max {
			p.held.skip = true
			return append(out, Event{Err: tooLarge(n, p.max)})
		}
		p.held.first = strings.Clone(body)
		p.held.src = append(p.held.src[:0], line...)
		return out
	}
	if len(line) > p.max {
		return append(out, Event{Err: tooLarge(n, p.max)})
	}
	if p.cutMark && cutShort(line) {
		return out
	}
	return append(out, commandEvent(kind, to, body, n, line))
}

// cutMark is what a program that cuts rows short puts at the end of one.
const cutMark = "…"

// cutShort reports whether a row ends in the cut mark.
func cutShort(row string) bool {
	return strings.HasSuffix(strings.TrimRight(row, " \t\u00a0"), cutMark)
}

// continues reports whether line, numbered n, continues the held command's
// body.
func (p *Parser) continues(n int64, line string) bool {
	h := &p.held
	if n != h.next() || p.step != h.step && (h.box.border == 0 || h.box.gutter()) {
		// A row laid out for another screen; between a box's two borders
		// (inner) the right one says: a row that has it where the box
		// does is the box's, drawn as wide, though the screen narrowed
		// between its rows and the terminal broke the later ones over
		// more lines (a box printed done as the screen resized).
		return false
	}
	if h.box.border != 0 {
		inner, ok := h.box.inner(line)
		if !ok {
			return false
		}
		cols, k := leadingBlanks(inner)
		cols += h.box.col + 1
		r := inner[k:]
		if k == len(inner) || startsWithGlyph(r) || startsSomething(r) {
			return false
		}
		if !h.box.edge || h.box.gutter() {
			// Under a bullet, or down a gutter: the bullet's rule.
			return (cols == h.hang || cols == h.hang+1) && !p.endedLine(line, r, cols > h.hang)
		}
		// Right inside a box: a row the box wrapped starts where the
		// command's text did (or a blank or two further: the blank at the
		// wrap), and only after a row with no room left for its first word
		// — give or take what a lossy box dropped at the wrap.
		word, _, _ := strings.Cut(r, " ")
		return cols >= h.hang && cols <= h.hang+2 && p.noRoom(h.box, h.end, word, h.wide)
	}
	cols, k := leadingBlanks(line)
	if cols != h.hang && cols != h.hang+1 || k == len(line) {
		return false // a blank more: the blank at a wrap kept by the program
	}
	r := line[k:]
	return !startsWithGlyph(r) && !startsSomething(r) && !p.endedLine(line, r, cols > h.hang)
}

// noRoom reports whether a row right inside box b, its text ending at
// column end, had no room left for word after a blank — give or take
// what a lossy box dropped at the wrap (lossySlack, and wideSlack for a
// command holding a wide character: wide): the box wrapped the row
// there, or cut it at its edge, and the line may go on with word.
func (p *Parser) noRoom(b box, end int, word string, wide bool) bool {
	need := 1 + ansi.StringWidth(word)
	if p.lossy {
		need += lossySlack
		if wide {
			need += wideSlack
		}
	}
	return end+need > b.right-1
}

// CutAtEdge reports whether the last row of c, an inline command read
// right inside a box's two borders, was cut at the box's edge before
// word: it had no room left for it (noRoom, the test by which a row under
// it continues it), and a reading of the command through a box of another
// width may go on with word. A row with room for word ended the command's
// line there. False for a block, or a command in no such box: where its
// row ended says nothing of what was cut.
func (p *Parser) CutAtEdge(c *Command, word string) bool {
	if c.FromBlock {
		return false
	}
	first, _, _ := strings.Cut(c.Source, "\n")
	_, _, pre := stripPrefix(first)
	bx, boxed := boxOf(first, pre)
	if !boxed || !bx.edge || bx.gutter() {
		return false
	}
	last := c.Source[strings.LastIndexByte(c.Source, '\n')+1:]
	return p.noRoom(bx, bx.textEnd(last), word, p.lossy && holdsWide(c.Source))
}

// endedLine reports whether the held command's last row ended its line
// before line (rest: line after its indent; blank: line starts with the
// blank at the wrap, kept by the program): the row had room for the next
// row's first word (roomFor), or, where the program wraps a word with the
// blank after it (Options.WrapsWithBlank), the row ended past the column
// the program wraps at, with neither the blank nor a word broken with no
// blank after it: only a line's last word reaches that column.
func (p *Parser) endedLine(line, rest string, blank bool) bool {
	h := &p.held
	return h.roomFor(line, p.firstWord(rest)) || p.blankWrap && !blank && h.wrapAt > 0 && h.end > h.wrapAt && !p.brokeWord(line)
}

// firstWord returns what of rest, a row's text after its indent, a program
// wrapping the paragraph would have put on the row before as one piece:
// its first word, up to a blank, or where the program breaks where
// Unicode's line breaking allows it (Options.BreaksWideRuns), that
// breaking's first piece when longer: a quote and an opening bracket after
// it go together across the blank between ("'single' (paren)", UAX #14
// LB15; Codex 0.171.0 moved both to the next row where "'single'" alone
// fitted).
func (p *Parser) firstWord(rest string) string {
	word, _, _ := strings.Cut(rest, " ")
	if !p.wideBreak {
		return word
	}
	piece, _, _, _ := uniseg.FirstLineSegmentInString(rest, -1)
	if piece = strings.TrimRight(piece, " "); len(piece) > len(word) {
		return piece
	}
	return word
}

// roomFor reports whether the row before line had room for word, the
// first word of line (firstWord): a program wrapping a paragraph leaves
// each row too short for the next word; separate lines of output under
// one bullet do not. The row could reach the column the program wraps at;
// when that is not known, rows as wide as the widest of the paragraph,
// line included, were allowed.
func (h *held) roomFor(line, word string) bool {
	limit := h.wrapAt
	if limit <= 0 {
		limit = max(h.widest, textEnd(line))
	}
	return h.end+1+ansi.StringWidth(word) <= limit
}

// brokeWord reports whether the program broke a word between the last row
// of src and line, where Unicode's line breaking allows it with no blank:
// inside a run of wide characters (CJK, emoji) when runs says it breaks
// them, or after a hyphen, slash, backslash, bar, colon, semicolon or
// opening bracket. The row ended there
// and the next row's first word would not have fitted even without a
// blank (end, the column where the row's text ended; wrapAt, where the
// program wraps, 0 when not known): a row broken at a blank ends shorter.
func brokeWord(src []byte, line string, end, wrapAt int, runs bool) bool {
	prev := src[bytes.LastIndexByte(src, '\n')+1:]
	last, _ := utf8.DecodeLastRune(bytes.TrimRight(prev, " \t"))
	rest := strings.TrimLeft(line, " \t\u00a0")
	first, _ := utf8.DecodeRuneInString(rest)
	if wide(last) && wide(first) {
		return runs && brokeInRun(rest, end, wrapAt)
	}
	return brokeAfter(last, rest, end, wrapAt) || brokeNumber(prev, rest, end, wrapAt, !runs)
}

// brokeInRun reports whether a row whose text ended with a wide character
// at column end, the program wrapping at wrapAt (0: not known), and rest,
// the next row's text, which starts with one, were broken in a run of
// them. What the program would have put next on the row is rest's first
// piece that Unicode's line breaking (UAX #14) does not break: one CJK
// letter or emoji with the closing punctuation that may not be broken
// from it (a quote, a bracket, a comma…), but a run of pictographs of
// class AL whole ("✅✅": Codex 0.171.0 drew "💡" with 3 columns left over
// it). Where that would have fitted right after the row but not after a
// blank, a blank was there, which the program's wrap ate. Where it would
// have fitted after a blank too, the row was not wrapped at this width
// (it was drawn before a resize) and the width tells nothing: a run
// broken is far more common than a run that meets a blank at the edge.
func brokeInRun(rest string, end, wrapAt int) bool {
	if wrapAt <= 0 {
		return true
	}
	piece, _, _, _ := uniseg.FirstLineSegmentInString(rest, -1)
	return end+ansi.StringWidth(strings.TrimRight(piece, " ")) != wrapAt
}

// brokeBeforeLineBreak reports whether a row of a block's string that
// ended with a wide character at column end, the program wrapping at
// wrapAt (0: not known), and rest, the next row's text, which starts with
// an escaped line break ("\n"), were broken there with no blank: a
// program that breaks words where Unicode's line breaking allows it may
// break after a wide character, and a line of a message that ends with a
// blank is rare. The escape and the word it starts (up to a blank or a
// wide character) would not have fitted after the row; where they would
// have fitted right after it but not after a blank, a blank was there.
func brokeBeforeLineBreak(rest string, end, wrapAt int) bool {
	if !strings.HasPrefix(rest, `\n`) {
		return false
	}
	if wrapAt <= 0 {
		return true
	}
	need := 0
	for _, r := range rest {
		if unicode.IsSpace(r) || wide(r) {
			break
		}
		need += ansi.StringWidth(string(r))
	}
	return end+need != wrapAt
}

// endsWithLineBreak reports whether the text of a block's string read so
// far ends with an escaped line break ("\n", its backslash not itself
// escaped).
func endsWithLineBreak(buf []byte) bool {
	if !bytes.HasSuffix(buf, []byte(`\n`)) {
		return false
	}
	slashes := 0
	for i := len(buf) - 2; i >= 0 && buf[i] == '\\'; i-- {
		slashes++
	}
	return slashes%2 == 1
}

// brokeAfterLineBreak reports whether a row of a block's string that
// ended with an escaped line break at column end, the program wrapping at
// wrapAt (0: not known), and rest, the next row's text, which starts with
// a wide character, were broken there with no blank: a program that
// breaks words where Unicode's line breaking allows it may break before a
// wide character, and a line of a message that starts with a blank is
// rare. What the program would have put after the row (the first wide
// character, with the closing punctuation that goes with it, where it
// breaks runs of them, runs; the whole run where it moves a run whole)
// would not have fitted; where it would have fitted right after the row
// but not after a blank, a blank was there.
func brokeAfterLineBreak(rest string, end, wrapAt int, runs bool) bool {
	if wrapAt <= 0 {
		return true
	}
	need := 0
	for i, r := range rest {
		if i > 0 && !strings.ContainsRune(closing, r) && (runs || !wide(r)) {
			break
		}
		need += ansi.StringWidth(string(r))
	}
	return end+need != wrapAt
}

// brokeBetweenBackslashes reports whether a row of a block's string that
// ended with an escaped backslash at column end, the program wrapping at
// wrapAt, and rest, the next row's text, were a word broken between two
// escaped backslashes ("a\\\\b" as "a\\" and "\\b"): Unicode's line
// breaking allows a break between two backslashes, not between one and a
// letter ("\\ end" was broken at its blank), and the program breaks at the
// last place that fits, so the row was full: the next backslash would not
// have fitted on it. A row with room left ended at a blank.
func brokeBetweenBackslashes(rest string, end, wrapAt int) bool {
	return strings.HasPrefix(rest, `\\`) && wrapAt > 0 && end+1 > wrapAt
}

// brokeAfterEscape reports whether a block's row that ends with an escaped
// backslash inside a word (the row's text before it no blank), and rest,
// the next row's text, are a word the program broke after that backslash:
// a program that breaks words after punctuation, not where Unicode's line
// breaking allows (opencode: "C:\\" then "path\\x"), breaks after a
// backslash too, the next row's first word too long for the row even
// without a blank. An escape that is a word of its own (" \\ end") ends
// no word broken.
func brokeAfterEscape(row []byte, rest string, end, wrapAt int) bool {
	row = bytes.TrimRight(row, " \t")
	if len(row) < 3 || !bytes.HasSuffix(row, []byte(`\\`)) || row[len(row)-3] == ' ' {
		return false
	}
	return brokeAfter('\\', rest, end, wrapAt)
}

// closing are the characters a line may not be broken before: they go
// with the character before them.
const closing = "\"')]}>,.;:!?”’）」』】〕、。，．！？：；"

// brokeAfter reports whether a row whose text ended with last at column
// end, the program wrapping at wrapAt, was broken after punctuation: last
// is a character a word may be broken after, and rest, the next row's
// text, starts with a word that would not have fitted even without a
// blank.
func brokeAfter(last rune, rest string, end, wrapAt int) bool {
	first, _ := utf8.DecodeRuneInString(rest)
	if !strings.ContainsRune(breakAfter, last) || first == utf8.RuneError || unicode.IsSpace(first) {
		return false
	}
	word, _, _ := strings.Cut(rest, " ")
	return wrapAt > 0 && end+ansi.StringWidth(word) > wrapAt
}

// brokeNumber reports whether row, ending with a digit and a comma or a
// point, and rest, the next row's text, starting with a digit, are a
// number the program broke after a thousands separator or its decimal
// point ("1," and "234.56", "1,234." and "56": opencode breaks there), the
// next row's first word too long for the row even without a blank. Only
// a program that breaks after punctuation only (afterPunctuation) does:
// one that breaks where Unicode's line breaking allows never breaks inside
// a number, so its row ending "2." or "1," over "56" was broken at a
// blank.
func brokeNumber(row []byte, rest string, end, wrapAt int, afterPunctuation bool) bool {
	row = bytes.TrimRight(row, " \t")
	if !afterPunctuation || len(row) < 2 || row[len(row)-1] != ',' && row[len(row)-1] != '.' || !isDigit(row[len(row)-2]) || rest == "" || !isDigit(rest[0]) {
		return false
	}
	word, _, _ := strings.Cut(rest, " ")
	return wrapAt > 0 && end+ansi.StringWidth(word) > wrapAt
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// brokeWord reports whether the program broke a word between the last row
// the held command took and line, which continues it: where it breaks
// words where Unicode's line breaking allows it (BreaksWideRuns,
// BreaksAfterPunctuation), under
// no box or down a gutter (whose text is what counts, not the gutter).
func (p *Parser) brokeWord(line string) bool {
	h := &p.held
	if h.box.edge && !h.box.gutter() {
		return p.lossy && h.box.brokeAtEdge(h.src, h.end, line)
	}
	if !p.markBreak {
		return false
	}
	if in, ok := h.box.inner(line); ok {
		line = in
	}
	return brokeWord(h.src, line, h.end, h.wrapAt, p.wideBreak)
}

// breakAfter are the characters a word may be broken after, with no blank.
const breakAfter = "-/\\|:;({["

// wide reports whether r takes two columns: an East Asian wide or
// fullwidth character, or an emoji.
func wide(r rune) bool { return r >= 0x1100 && ansi.StringWidth(string(r)) == 2 }

// holdsWide reports whether row holds a wide character.
func holdsWide(row string) bool {
	for _, r := range row {
		if wide(r) {
			return true
		}
	}
	return false
}

// lastRow returns the last row of a held command's source.
func lastRow(src []byte) string { return string(src[bytes.LastIndexByte(src, '\n')+1:]) }

// textEnd returns the column where a line's text ends.
func textEnd(line string) int { return ansi.StringWidth(strings.TrimRight(line, " \t\u00a0")) }

// startsSomething reports whether a row (without indentation) starts a
// command, block or fence of its own, and so cannot continue a body.
func startsSomething(r string) bool {
	return strings.HasPrefix(r, relayMarker) || strings.HasPrefix(r, thinkingMarker) ||
		strings.HasPrefix(r, blockOpen) || strings.HasPrefix(r, blockClose) ||
		strings.HasPrefix(r, "```") || strings.HasPrefix(r, "~~~")
}

// extend adds a continuation row to the held command.
func (p *Parser) extend(n int64, line string, wrapAt int) []Event {
	h := &p.held
	h.tight = append(h.tight, p.brokeWord(line))
	h.wide = h.wide || p.lossy && holdsWide(line)
	if h.box.edge && !h.box.gutter() {
		// A row with wide characters may end short because the box
		// draws them wider than its terminal counts them: that says
		// nothing about how wide the terminal is.
		if !holdsWide(lastRow(h.src)) {
			if h.box.filled(h.end, line) {
				h.filled++
			} else {
				h.ragged++
			}
		}
	}
	h.last, h.wrapAt, h.step = n, wrapAt, p.step
	if h.box.edge && !h.box.gutter() {
		h.end = h.box.textEnd(line)
	} else {
		h.end = textEnd(line)
	}
	h.widest = max(h.widest, h.end)
	if h.skip {
		return nil
	}
	if len(h.src)+1+len(line) > p.max {
		h.skip, h.src, h.first = true, nil, ""
		return []Event{{Err: tooLarge(h.line, p.max)}}
	}
	h.src = append(h.src, '\n')
	h.src = append(h.src, line...)
	return nil
}

// finishHeld emits the held command (or its error) and forgets it.
func (p *Parser) finishHeld(out []Event) []Event {
	h := p.held
	p.held = held{src: h.src[:0], tight: h.tight[:0]}
	if cap(h.src) > 64<<10 {
		p.held.src = nil // do not keep a huge buffer for the next command
	}
	if h.skip {
		return out
	}
	if p.cutMark {
		last := h.src[bytes.LastIndexByte(h.src, '\n')+1:]
		if in, ok := h.box.inner(string(last)); ok {
			last = []byte(in)
		}
		if cutShort(string(last)) {
			return out // the program cut its last row: the rest is hidden
		}
	}
	src := string(h.src)
	body := h.first
	if i := strings.IndexByte(src, '\n'); i >= 0 {
		var b strings.Builder
		b.Grow(len(src))
		b.WriteString(body)
		// A lossy box shows the rows of a terminal as wide as the box
		// (a row reaching its last column broke a word there) or of a
		// wider one whose rows it cut, dropping what did not fit: a row
		// it cut may end at the edge too, after a whole word. A row with
		// no wide character that ended two columns short or more tells
		// the wider terminal; a box known to be sized (BoxSized), two
		// rows of the command that broke a word at the edge, or three
		// that filled the box, the box's width: a row cut after a whole
		// word ends at the edge, or a column short, about once in three
		// rows. Else the row was cut there.
		wrapped := !h.box.edge || h.box.gutter() || !p.lossy ||
			h.ragged == 0 && (h.sized || h.filled >= 3 || brokenAtEdge(h.tight) >= 2)
		for k, row := range strings.Split(src[i+1:], "\n") {
			if in, ok := h.box.inner(row); ok {
				row = in
			}
			row = strings.TrimSpace(row)
			if b.Len() > 0 && !(wrapped && k < len(h.tight) && h.tight[k]) {
				b.WriteByte(' ')
			}
			b.WriteString(row)
		}
		body = b.String()
	}
	return append(out, commandEvent(h.kind, h.to, body, h.line, src))
}

// brokenAtEdge counts the rows of a command in a lossy box that reached
// the box's last column, the next row going on right inside the border.
func brokenAtEdge(tight []bool) int {
	n := 0
	for _, t := range tight {
		if t {
			n++
		}
	}
	return n
}

// commandEvent returns the inline command, or an error when body is empty.
func commandEvent(kind Kind, to, body string, line int64, src string) Event {
	if body == "" {
		marker := relayMarker
		if kind == KindThinking {
			marker = thinkingMarker
		}
		return Event{Err: newError(line, ErrEmptyBody, "nothing after "+marker+to)}
	}
	return Event{Command: &Command{Kind: kind, To: to, Type: "message", Body: body, Line: line, Source: src}}
}

func invalidTarget(line int64, to string) *ParseError {
	if len(to) > 80 {
		to = to[:77] + "..."
	}
	return newError(line, ErrInvalidTarget, strconv.Quote(to)+
		` is not an agent name ([A-Za-z0-9][A-Za-z0-9_.-]{0,63}), "*" or "swarm"`)
}

func tooLarge(line int64, max int) *ParseError {
	return newError(line, ErrTooLarge, "over "+strconv.Itoa(max)+" bytes")
}

// opensFence reports whether rest opens a code fence: three or more
// backticks or tildes (a backtick fence's info string has no backtick).
func opensFence(rest string) (fence, bool) {
	c := rest[0]
	k := 0
	for k < len(rest) && rest[k] == c {
		k++
	}
	if k < 3 || c == '`' && strings.IndexByte(rest[k:], '`') >= 0 {
		return fence{}, false
	}
	return fence{char: c, n: k}, true
}

// closesFence reports whether rest closes f: at least as many of its
// characters and nothing else.
func closesFence(rest string, f fence) bool {
	k := 0
	for k < len(rest) && rest[k] == f.char {
		k++
	}
	return k >= f.n && strings.TrimRight(rest[k:], " \t\u00a0") == ""
}
