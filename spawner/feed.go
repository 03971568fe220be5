package spawner

import (
	"strconv"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	"github.com/charmbracelet/x/vt"
)

// The screen runs its own ANSI parser (the same state machine x/vt uses) in
// front of the emulator and feeds the emulator one piece at a time, so that
// it knows what each piece did:
//
//   - a print segment is text plus sequences that cannot move the cursor
//     off its row (SGR, CR, tabs, erase in line, OSC…); any row change
//     during it is the terminal wrapping, and the row is marked wrapped;
//   - a structural token (LF, cursor movement, scrolling, erase in
//     display…) is fed alone, and the cursor before and after it says
//     whether a line was left downwards or the program went back up.
//
// Feeding in pieces also fixes two x/vt behaviours that would make the
// result depend on where writes are cut or drop characters: x/vt ends a
// grapheme cluster at the end of every write (so "e" + U+0301 split across
// writes loses the accent), and it drops a wide character that reaches the
// last column. The screen cuts only at cluster boundaries, holds back a
// trailing cluster until more output comes, and wraps wide characters
// itself.
const (
	// maxSegment bounds one print segment, and so the rows x/vt can push
	// into its scrollback before the screen collects them.
	maxSegment = 4096
	// maxHold bounds the held-back cluster; a longer one is fed as is.
	maxHold = 256
)

type tokKind uint8

const (
	tokControl tokKind = iota + 1
	tokCSI
	tokESC
	tokString // OSC, DCS, APC, PM, SOS
)

// token is the last sequence the front parser completed.
type token struct {
	kind   tokKind
	ctrl   byte
	cmd    ansi.Cmd
	params []ansi.Param
}

func (t *token) param(i, def int) int {
	v, _, _ := ansi.Params(t.params).Param(i, def)
	return v
}

// counted reports whether t is a CSI that x/vt repeats its count times
// (repeat a character, erase characters, tab forwards or back): its count
// is bounded before it is applied (feedSink.clamped).
func (t *token) counted() bool {
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return false
	}
	switch t.cmd.Final() {
	case 'b', 'X', 'I', 'Z':
		return true
	}
	return false
}

// feeder is the front parser: it reads a program's output, cuts it into
// print segments and structural tokens, and hands each to a feedSink (the
// Screen), which applies it to its emulator under its own rules. Its state
// is where the parse stands: the sequence being read, the open run of
// text, the cluster held back from the last write. It reads nothing of
// the screen but what the sink answers.
//
// The sink sees the completed token in tok, and partialFed (the emulator
// was fed the token's first bytes in an earlier write) while it handles
// one.
type feeder struct {
	front   *ansi.Parser
	tok     token
	tokDone bool
	// inRun: a run of printable text is open; it starts at runStart in the
	// current buffer and may continue in the next write. runASCII: all of
	// it in the current buffer is printable ASCII.
	inRun    bool
	runStart int
	runASCII bool
	// segStart is where the bytes not yet fed start in the current buffer.
	segStart int
	// hold is the trailing cluster of the last write, not yet fed.
	hold []byte
	// partialFed: the current token began in an earlier write, whose
	// bytes were already fed.
	partialFed bool
	// scratch for eachCluster
	dec    []byte
	bounds []bound
}

// feedSink is what the front parser feeds: the screen's emulators and its
// rules about what each token does.
type feedSink interface {
	// print applies a print segment (text and inert tokens).
	print(b []byte)
	// cancel drops the sequence whose start the emulator was fed (CAN).
	cancel()
	// inert reports whether the completed token cannot move the cursor
	// to another row, so that it can go into a print segment.
	inert() bool
	// clamped returns a bounded copy of the completed token, a counted
	// one, when its count is too large to apply as it is, else nil.
	clamped() []byte
	// token applies the completed structural token, tb; ahead is the rest
	// of the write.
	token(tb, ahead []byte)
	// wideText says whether text is to be walked cluster by cluster for
	// wide characters (the main screen is in use).
	wideText() bool
	// placeWide feeds a cluster two columns wide (feedWide).
	placeWide(cl []byte)
}

// A string sequence's text is UTF-8, as the rest of the output: a byte
// 0x9C in it is part of a character ("✳", E2 9C B3, in Claude Code's
// title "✳ Claude Code"), not the 8-bit String Terminator, which a UTF-8
// terminal (xterm, tmux) does not take there: it ends such a string at
// BEL or ESC \ only. The parser's table, which the front parser and the
// emulator share, ended an OSC string at it and printed the rest of the
// title where the cursor was, into the program's input box, where the
// program, drawing only the cells it changes, left it showing.
func init() {
	parser.Table.AddOne(0x9C, parser.OscStringState, parser.PutAction, parser.OscStringState)
	parser.Table.AddOne(0x9C, parser.DcsStringState, parser.PutAction, parser.DcsStringState)
}

func (f *feeder) init() {
	f.front = ansi.NewParser()
	f.front.SetDataSize(1) // string contents are the emulator's business
	str := func() { f.tok.kind, f.tokDone = tokString, true }
	f.front.SetHandler(ansi.Handler{
		Execute: func(b byte) { f.tok.kind, f.tok.ctrl, f.tokDone = tokControl, b, true },
		HandleCsi: func(cmd ansi.Cmd, p ansi.Params) {
			f.tok.kind, f.tok.cmd, f.tokDone = tokCSI, cmd, true
			f.tok.params = append(f.tok.params[:0], p...)
		},
		HandleEsc: func(cmd ansi.Cmd) { f.tok.kind, f.tok.cmd, f.tokDone = tokESC, cmd, true },
		HandleDcs: func(ansi.Cmd, ansi.Params, []byte) { str() },
		HandleOsc: func(int, []byte) { str() },
		HandlePm:  func([]byte) { str() },
		HandleApc: func([]byte) { str() },
		HandleSos: func([]byte) { str() },
	})
}

// printableASCII reports whether the parser takes c, in the ground state,
// as a character to print (and stays there).
func printableASCII(c byte) bool { return c >= 0x20 && c < 0x7f }

func isText(st parser.State) bool { return st == parser.GroundState || st == parser.Utf8State }

// feed runs p through the front parser and feeds out.
func (f *feeder) feed(p []byte, out feedSink) {
	buf, off := p, 0
	if len(f.hold) > 0 {
		// The held cluster was parsed already; it starts the open run.
		buf = append(f.hold, p...)
		off = len(f.hold)
		f.hold = nil
	}
	f.runASCII = isASCII(buf[:off])
	f.runStart, f.segStart = 0, 0
	tokStart := off
	for i := off; i < len(buf); i++ {
		if f.front.State() == parser.GroundState && printableASCII(buf[i]) {
			// Most output is plain text, which the parser would only pass
			// over byte by byte: skip the run.
			if !f.inRun {
				f.inRun, f.runStart, f.runASCII = true, i, true
			}
			for i+1 < len(buf) && printableASCII(buf[i+1]) {
				i++
			}
			tokStart = i + 1
			continue
		}
		at, prev := i, f.front.State()
		f.tokDone = false
		if n := f.plainCsi(buf[i:]); n > 0 {
			i += n - 1
		} else {
			f.front.Advance(buf[i])
		}
		// Text: printed characters, including a UTF-8 lead byte that cuts a
		// string sequence short, and bytes the parser ignores in ground.
		if st := f.front.State(); !f.tokDone && isText(st) && (isText(prev) || st == parser.Utf8State) {
			if !f.inRun {
				f.inRun, f.runStart = true, i
			}
			f.runASCII = false
			tokStart = i + 1
			continue
		}
		if f.inRun {
			f.inRun = false
			f.runText(out, buf, f.runStart, at, f.runASCII)
		}
		if !f.tokDone {
			continue // inside a sequence
		}
		if f.tok.kind == tokControl && f.tok.ctrl == ansi.ESC {
			// An escape cut short by the next one (the parser reports the
			// first ESC when the second comes): a terminal drops what came
			// of it, and so does the screen: it is cancelled in the
			// emulator there. Left open, the emulator would wait for the
			// rest while the screen handles the next sequence itself (a
			// screen switch), and take the next character as its end.
			f.dropSeq(out, buf, tokStart, i)
			f.segStart, tokStart = i, i
			continue
		}
		if seq := f.clamped(out); seq != nil {
			// A count x/vt would loop over: feed it bounded.
			f.dropSeq(out, buf, tokStart, i)
			out.print(seq)
			f.segStart, tokStart = i+1, i+1
			continue
		}
		if out.inert() {
			if f.front.State() != parser.GroundState {
				// A control executed inside a sequence (ESC, then a C0
				// control, then the rest of it): the sequence goes on
				// from its ESC, which is not fed apart from it (the
				// emulator, fed the ESC, would take the next character
				// after a screen switch the screen handles itself as
				// the sequence's end).
				continue
			}
			tokStart = i + 1
			if tokStart-f.segStart >= maxSegment {
				f.feedSeg(out, buf, tokStart)
			}
			// A string ends at the ESC that starts the next sequence (or
			// its ST): that ESC goes to the emulator with the string, so the
			// next token has begun there, as if in an earlier write.
			f.partialFed = f.tok.kind == tokString && buf[i] == ansi.ESC
			continue
		}
		f.feedSeg(out, buf, tokStart)
		out.token(buf[tokStart:i+1], buf[i+1:])
		f.segStart, tokStart = i+1, i+1
		// A control executed inside a sequence ("\x1b[\n") was fed with
		// the sequence's start, which the emulator now holds open, as
		// after a write cut inside it: the sequence's end, or the next
		// sequence that cuts it short (a screen switch the screen handles
		// itself), must cancel it there too.
		f.partialFed = f.front.State() != parser.GroundState
	}
	if f.inRun {
		h := f.heldFrom(buf, f.runStart)
		f.runText(out, buf, f.runStart, h, f.runASCII)
		f.feedSeg(out, buf, h)
		f.hold = append([]byte(nil), buf[h:]...)
		return
	}
	f.feedSeg(out, buf, len(buf))
	if tokStart < len(buf) {
		f.partialFed = true
	}
}

// dropSeq ends the sequence buf[tokStart:end] (its start fed in an
// earlier write when partialFed), which the screen replaces or a
// terminal drops. A control executed inside it still counts: in
// "\x1b[9\r\x1b[9X" the CR returns the carriage, as it does when the
// write is cut inside the sequence and its start was fed. So its bytes are
// fed and the sequence is cancelled there, as after such a cut.
func (f *feeder) dropSeq(out feedSink, buf []byte, tokStart, end int) {
	f.feedSeg(out, buf, end)
	if f.partialFed || end > tokStart {
		out.cancel()
	}
	f.partialFed = false
}

// plainCsi reads a complete plain CSI sequence (decimal parameters, no
// prefix or intermediate byte: SGR, cursor moves, erases) at the start of
// b as the completed token, as the front parser would in the ground state,
// and returns its length; 0 leaves b to the parser. Coloured output is
// mostly such sequences, and the parser takes a state change per byte.
func (f *feeder) plainCsi(b []byte) int {
	if b[0] != ansi.ESC || f.front.State() != parser.GroundState {
		return 0
	}
	cmd, params, n := vt.ScanPlainCsi(b, f.tok.params[:0])
	if n > 0 {
		f.tok.kind, f.tok.cmd, f.tok.params, f.tokDone = tokCSI, cmd, params, true
	}
	return n
}

// flush feeds the held-back cluster, for readers of the screen. A
// character cut short at its end stays held: fed, it would leave the
// emulator waiting for the rest, and the screen could not write sequences
// of its own (a resize) until a write ended it — an empty write, or one
// whose end was held back again, let a resize write into the middle of
// the character (FuzzResizeMidStream).
func (f *feeder) flush(out feedSink) {
	whole := 0 // the bytes of the whole characters
	for j := 0; j < len(f.hold); {
		n, _, ok := unitAt(f.hold, j, len(f.hold))
		if !ok {
			break
		}
		j += n
		whole = j
	}
	if whole == 0 {
		return
	}
	buf, cut := f.hold[:whole], f.hold[whole:]
	f.hold = nil
	f.segStart = 0
	f.runText(out, buf, 0, len(buf), false)
	f.feedSeg(out, buf, len(buf))
	if len(cut) > 0 {
		f.hold = append([]byte(nil), cut...)
	}
}

// applyHeld feeds the held-back cluster, for readers of the screen.
func (s *Screen) applyHeld() {
	if !s.plain { // a plain screen holds nothing back (contain.go)
		s.flush(s)
	}
}

// quiet reports whether the emulator's parser is between sequences and
// characters, so that the screen can write sequences of its own to it.
func (f *feeder) quiet() bool { return !f.partialFed }

// inert reports whether the completed token cannot move the cursor to
// another row, so it can go into a print segment.
func (s *Screen) inert() bool {
	t := &s.tok
	ok := false
	switch t.kind {
	case tokString:
		ok = true
	case tokControl:
		switch t.ctrl {
		case '\n', '\v', '\f', 0x84, 0x85, 0x8d: // LF VT FF IND NEL RI
		default:
			ok = true
		}
	case tokESC:
		switch {
		case t.cmd.Intermediate() >= '(' && t.cmd.Intermediate() <= '+': // character sets
			ok = true
		case t.cmd.Intermediate() == 0:
			switch t.cmd.Final() {
			case '7', '=', '>', 'H', 'n', 'o', '|', '}', '~':
				ok = true
			}
		}
	case tokCSI:
		c := t.cmd
		switch {
		case c.Prefix() == 0 && c.Intermediate() == 0:
			switch c.Final() {
			case 'm':
				ok = true
				s.sgrState()
			case 'h', 'l':
				ok = true
				for _, p := range t.params {
					if p.Param(0) == 20 { // LNM: a line feed also returns the carriage
						s.lnm = c.Final() == 'h'
					}
				}
			case 'K':
				// A row erased whole may end a line carried at the top
				// (mainLines.carryErased), which needs the cursor's row.
				ok = s.alt.em != nil || t.param(0, 0) == 1
			case 'G', '`', 'a', 'C':
				// A move right that may keep cells of a screen laid out
				// anew is followed alone (mainLines.skipped).
				ok = s.alt.em != nil || !s.lines.watchesMoves()
			case 'X', '@', 'P', 'D', 'I', 'Z', 'b', 'n', 'c', 'g':
				ok = true
			}
		case c.Prefix() == '?' && (c.Final() == 'h' || c.Final() == 'l'):
			ok = true
			s.alt.syncMode(t)
			for _, p := range t.params {
				switch p.Param(0) {
				case 47, 1047, 1048, 1049:
					ok = false
				case 2026:
					// The end of a synchronized update completes a frame
					// of the alternate screen (altscreen.go) and of the
					// main one (mainLines.synced).
					ok = false
				}
			}
		case c.Prefix() == '?' && (c.Final() == 'n' || c.Final() == 'W'),
			c.Prefix() == '>' && c.Final() == 'c',
			c.Intermediate() == ' ' && c.Final() == 'q',
			c.Intermediate() == '$' && c.Final() == 'p':
			ok = true
		}
	}
	return ok
}

// clamped returns a bounded copy of a counted CSI whose count x/vt would
// spend time proportional to, or nil when the count is reasonable: a
// program cannot stall the screen with ESC[999999999b.
func (s *Screen) clamped() []byte {
	t := &s.tok
	limit := s.cols
	if t.cmd.Final() == 'b' {
		limit = s.rows * s.cols
	}
	if n := t.param(0, 1); n <= limit {
		return nil
	}
	return []byte("\x1b[" + strconv.Itoa(limit) + string(rune(t.cmd.Final())))
}

// clamped asks out for a bounded copy of a counted token.
func (f *feeder) clamped(out feedSink) []byte {
	if !f.tok.counted() {
		return nil
	}
	return out.clamped()
}

// feedSeg feeds buf[segStart:upto] as a print segment.
func (f *feeder) feedSeg(out feedSink, buf []byte, upto int) {
	if upto > f.segStart {
		out.print(buf[f.segStart:upto])
		f.segStart = upto
	}
}

func (s *Screen) print(b []byte) { s.writePrint(b) }

func (s *Screen) cancel() { _, _ = s.active().Write([]byte{ansi.CAN}) }

func (s *Screen) writePrint(b []byte) { s.printWrapping(b, false) }

// printWrapping applies a print segment; pad: a wrap it makes is a wide
// character's, which did not fit in the last column.
func (s *Screen) printWrapping(b []byte, pad bool) {
	if s.alt.em != nil {
		s.alt.print(b)
		return
	}
	watch := s.lines.oldWidth
	var pos uv.Position
	if watch {
		pos = s.main.CursorPosition()
	}
	s.printMode = true
	_, _ = s.main.Write(b)
	s.printMode = false
	if watch {
		// The scrollback is emptied after each write (harvest): rows in
		// it now scrolled off as the text wrapped.
		s.lines.printed(s.main.CursorPosition().Y > pos.Y || s.main.Scrollback().Len() > 0,
			pos.X+ansi.StringWidth(string(b)) == s.cols)
	}
	if s.lines.oneRowRegion() {
		// A print segment holds no line feed: a row that left the top of
		// a region one row high left by wrapping. The cursor moving down
		// marks a wrapped row (cursorMoved), but here it does not move,
		// and the line was committed a row at a time.
		// (The scrollback drops the blank cells at a row's end, and a
		// wide character's second cell there.)
		lines := s.main.Scrollback().Lines()
		for i, l := range lines {
			if len(l) > s.cols {
				continue
			}
			if n := len(l); n > 0 && l[n-1].Width == 2 && n < s.cols {
				l = append(l, uv.Cell{}) // a wide character's second cell
			}
			for len(l) < s.cols {
				l = append(l, uv.EmptyCell)
			}
			if wrapped, _ := wrapOf(&l[s.cols-1]); !wrapped {
				setWrap(&l[s.cols-1], pad)
			}
			lines[i] = l
		}
	}
	s.lines.harvest(s)
}

// cursorMoved is the main emulator's cursor callback. In a print segment a
// move to a lower row is the terminal wrapping: the row above the cursor
// (where the content that was on the cursor's row is now, even when the
// wrap scrolled) continues on the cursor's row.
func (s *Screen) cursorMoved(old, new uv.Position) {
	if s.printMode && new.Y < old.Y {
		s.lines.risk() // a mode that homes the cursor (DECOM)
	}
	if s.printMode && new.Y > old.Y {
		if c := s.main.CellAt(s.cols-1, new.Y-1); c != nil {
			setWrap(c, false)
		}
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func printable(r rune) bool { return r >= 0x20 && r < 0x7f }

// unitAt returns the unit the parser reads at buf[j] in text: its length,
// its rune (-1 for a byte the parser ignores) and whether it is complete
// before end. A UTF-8 lead byte takes the following bytes whatever they
// are; an invalid sequence is U+FFFD.
func unitAt(buf []byte, j, end int) (n int, r rune, ok bool) {
	c := buf[j]
	switch {
	case c < 0x80:
		return 1, rune(c), true
	case c >= 0xc2 && c <= 0xf4:
		n = 2
		if c >= 0xf0 {
			n = 4
		} else if c >= 0xe0 {
			n = 3
		}
		if j+n > end {
			return end - j, 0, false
		}
		r, size := utf8.DecodeRune(buf[j : j+n])
		if size != n {
			r = utf8.RuneError
		}
		return n, r, true
	default:
		return 1, -1, true
	}
}

// bound maps a unit's offset in the raw bytes to its offset in the decoded
// text.
type bound struct{ raw, dec int }

// eachCluster calls f for each grapheme cluster of the run buf[start:end],
// as x/vt forms them: a printable ASCII character always starts a new
// cluster, and the runes after it are segmented together (decoded, as the
// parser hands them over). It returns where the complete units end.
func (f *feeder) eachCluster(buf []byte, start, end int, each func(j, n, w int)) int {
	for j := start; j < end; {
		n, r, ok := unitAt(buf, j, end)
		if !ok {
			return j
		}
		if printable(r) && (j+1 >= end || printable(rune(buf[j+1]))) {
			each(j, 1, 1)
			j++
			continue
		}
		if r < 0 {
			j += n
			continue
		}
		// A stretch: up to one ASCII character and the runes after it.
		f.dec, f.bounds = f.dec[:0], f.bounds[:0]
		k := j
		for k < end {
			n, r, ok := unitAt(buf, k, end)
			if !ok || (printable(r) && k > j) {
				break
			}
			f.bounds = append(f.bounds, bound{raw: k, dec: len(f.dec)})
			if r >= 0 {
				f.dec = utf8.AppendRune(f.dec, r)
			}
			k += n
		}
		bi := 0
		for d := 0; d < len(f.dec); {
			cl, w := ansi.FirstGraphemeCluster(f.dec[d:], ansi.GraphemeWidth)
			if len(cl) == 0 {
				break
			}
			a := f.bounds[bi].raw
			d += len(cl)
			for bi < len(f.bounds) && f.bounds[bi].dec < d {
				bi++
			}
			b := k
			if bi < len(f.bounds) {
				b = f.bounds[bi].raw
			}
			each(a, b-a, w)
		}
		j = k
	}
	return end
}

// runText walks the complete clusters of buf[start:end] (part of a run of
// printable text): it has out place the wide characters x/vt would
// mishandle and keeps print segments under maxSegment, cutting only
// between clusters. ascii says the bytes are known to be ASCII.
func (f *feeder) runText(out feedSink, buf []byte, start, end int, ascii bool) {
	if end-f.segStart < maxSegment && (ascii || isASCII(buf[start:end])) {
		return
	}
	main := out.wideText()
	f.eachCluster(buf, start, end, func(j, n, w int) {
		if j-f.segStart >= maxSegment {
			f.feedSeg(out, buf, j)
		}
		if main && w >= 2 {
			f.feedSeg(out, buf, j)
			out.placeWide(buf[j : j+n])
			f.segStart = j + n
		}
	})
}

// wideText and placeWide are the screen's side of runText: it wraps wide
// characters itself (see feedWide).
func (s *Screen) wideText() bool { return s.alt.em == nil }

func (s *Screen) placeWide(cl []byte) { s.feedWide(cl) }

// heldFrom returns where the last cluster of the open run starting at
// start begins: the bytes from there are held back, since the next write
// may extend that cluster. When the run ends inside a character, that
// character and the cluster before it are held. A cluster longer than
// maxHold is fed; a partial character never is.
func (f *feeder) heldFrom(buf []byte, start int) int {
	end := len(buf)
	if f.front.State() != parser.Utf8State && (f.runASCII || isASCII(buf[start:])) {
		return max(start, end-1)
	}
	last := -1
	complete := f.eachCluster(buf, start, end, func(j, _, _ int) { last = j })
	h := complete
	if last >= 0 {
		h = last
	}
	if end-h > maxHold {
		h = complete
	}
	return h
}

// feedWide feeds one wide cluster to the main emulator and repairs what
// x/vt does at the right margin: a wide character written in the last
// column, no wrap pending, does not fit and is blanked there instead of
// wrapped. (After a wrap pending x/vt wraps first, and one that ends in
// the last column makes its wrap pending itself: vt patch 20.) Told by
// where the cursor is before the write: whether it moved does not tell,
// since on a screen two columns wide a wrap at the bottom leaves the
// cursor where it was.
func (s *Screen) feedWide(cl []byte) {
	blanked := s.awm && s.cols >= 2 && !s.main.PendingWrap() && s.main.CursorPosition().X == s.cols-1
	s.writePrint(cl)
	if blanked {
		s.wrapNow()
		s.writePrint(cl)
	}
}

// wrapNow wraps the cursor to the next row as the terminal would have
// for a wide character that did not fit: the last column stays blank.
func (s *Screen) wrapNow() {
	s.printWrapping([]byte("\r\n"), true)
	if pos := s.main.CursorPosition(); pos.Y > 0 {
		if c := s.main.CellAt(s.cols-1, pos.Y-1); c != nil {
			if wrapped, _ := wrapOf(c); wrapped {
				setWrap(c, true)
			}
		}
	}
}

// token feeds a structural token; ahead is the rest of the write.
func (s *Screen) token(tb []byte, ahead []byte) {
	t := &s.tok
	if t.kind == tokCSI && t.cmd.Prefix() == '?' && (t.cmd.Final() == 'h' || t.cmd.Final() == 'l') && s.switchesScreen() {
		s.switchScreen(t.cmd.Final() == 'h')
		return
	}
	if t.kind == tokCSI && t.cmd == 'r' {
		tb = s.clampMargins(tb)
	}
	if s.alt.em != nil {
		if t.kind != tokESC || t.cmd != 'c' {
			s.alt.token(t, tb, s)
			return
		}
		// A full reset returns to the main screen.
		s.leaveAlt()
		tb = []byte("\x1bc")
	}
	switch {
	case t.kind == tokESC && t.cmd == '8', // DECRC
		t.kind == tokCSI && t.cmd == 'u', // SCORC
		t.kind == tokCSI && t.cmd.Prefix() == '?' && t.cmd.Final() == 'l' && s.hasParam(1048):
		s.penRestored()
	}
	if t.kind == tokControl && t.ctrl == '\n' && !s.partialFed {
		if k := s.scrollBatch(ahead); k > 1 {
			tb = batchedLineFeed(k)
		}
	}
	s.lines.token(t, tb, s)
}

func (s *Screen) hasParam(v int) bool {
	for _, p := range s.tok.params {
		if p.Param(0) == v {
			return true
		}
	}
	return false
}

func (s *Screen) switchesScreen() bool {
	for _, p := range s.tok.params {
		switch p.Param(0) {
		case 47, 1047, 1049:
			return true
		}
	}
	return false
}

// switchScreen enters or leaves the alternate screen. The screen uses a
// second emulator rather than x/vt's own alternate screen, whose scrollback
// (up to 10,000 rows of cells) cannot be bounded or read. Other modes in
// the same sequence go to the emulator in use.
func (s *Screen) switchScreen(on bool) {
	if s.partialFed {
		// The emulator has the start of this sequence: cancel it.
		_, _ = s.active().Write([]byte{ansi.CAN})
	}
	var rest []byte
	for _, p := range s.tok.params {
		switch v := p.Param(0); v {
		case 47, 1047, 1049:
		default:
			if len(rest) > 0 {
				rest = append(rest, ';')
			}
			rest = strconv.AppendInt(rest, int64(v), 10)
		}
	}
	seq := func(final byte) []byte {
		return append(append([]byte("\x1b[?"), rest...), final)
	}
	if on {
		if s.alt.em == nil {
			// An update begun on the main screen ends on the other one.
			s.lines.synced(false)
			// The alternate screen starts with the main one's cursor.
			em, pipe := s.newEmulator(false)
			s.alt.enter(em, s.rows, s.cols)
			s.altPipe = pipe
			s.altHidden = false
			if s.mainHidden {
				_, _ = s.alt.em.Write([]byte("\x1b[?25l"))
			}
		}
		if len(rest) > 0 {
			_, _ = s.alt.em.Write(seq('h'))
		}
		return
	}
	if len(rest) > 0 {
		_, _ = s.active().Write(seq('l'))
	}
	s.leaveAlt()
	s.penRestored()
}

func (s *Screen) leaveAlt() {
	if s.alt.em == nil {
		return
	}
	s.lines.risk()
	s.alt.leave(s)
	_ = s.altPipe.Close()
	s.altPipe = nil
}

// clampMargins rewrites a DECSTBM whose bottom margin is below the screen,
// which x/vt accepts and then moves the cursor off the screen.
func (s *Screen) clampMargins(tb []byte) []byte {
	t := &s.tok
	top := max(t.param(0, 1), 1)
	bottom := t.param(1, s.rows)
	if bottom <= s.rows {
		return tb
	}
	if s.partialFed {
		_, _ = s.active().Write([]byte{ansi.CAN})
	}
	return []byte("\x1b[" + strconv.Itoa(top) + ";" + strconv.Itoa(s.rows) + "r")
}
