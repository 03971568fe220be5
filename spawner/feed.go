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
	// runePending: the emulator was fed the start of a character (a held
	// cluster applied for a reader) and waits for the rest.
	runePending bool
	// deferred: a size to apply once the emulator is quiet (rows, cols).
	deferred *[2]int
	// cutLines: the last resize changed the width without reflowing the
	// screen (see reflow): rows were cut.
	cutLines bool
	// printMode: the emulator is being fed a print segment.
	printMode bool
	// moves counts cursor moves of the main emulator.
	moves int
	// wideEdge: a wide character just filled the last column, which x/vt
	// does not treat as a pending wrap.
	wideEdge bool
	// scratch for eachCluster
	dec    []byte
	bounds []bound
}

func (s *Screen) initFeeder() {
	s.front = ansi.NewParser()
	s.front.SetDataSize(1) // string contents are the emulator's business
	str := func() { s.tok.kind, s.tokDone = tokString, true }
	s.front.SetHandler(ansi.Handler{
		Execute: func(b byte) { s.tok.kind, s.tok.ctrl, s.tokDone = tokControl, b, true },
		HandleCsi: func(cmd ansi.Cmd, p ansi.Params) {
			s.tok.kind, s.tok.cmd, s.tokDone = tokCSI, cmd, true
			s.tok.params = append(s.tok.params[:0], p...)
		},
		HandleEsc: func(cmd ansi.Cmd) { s.tok.kind, s.tok.cmd, s.tokDone = tokESC, cmd, true },
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

// consume runs p through the front parser and feeds the emulator.
func (s *Screen) consume(p []byte) {
	s.runePending = false
	buf, off := p, 0
	if len(s.hold) > 0 {
		// The held cluster was parsed already; it starts the open run.
		buf = append(s.hold, p...)
		off = len(s.hold)
		s.hold = nil
	}
	s.runASCII = isASCII(buf[:off])
	s.runStart, s.segStart = 0, 0
	tokStart := off
	for i := off; i < len(buf); i++ {
		if s.front.State() == parser.GroundState && printableASCII(buf[i]) {
			// Most output is plain text, which the parser would only pass
			// over byte by byte: skip the run.
			if !s.inRun {
				s.inRun, s.runStart, s.runASCII = true, i, true
			}
			for i+1 < len(buf) && printableASCII(buf[i+1]) {
				i++
			}
			tokStart = i + 1
			continue
		}
		at, prev := i, s.front.State()
		s.tokDone = false
		if n := s.plainCsi(buf[i:]); n > 0 {
			i += n - 1
		} else {
			s.front.Advance(buf[i])
		}
		// Text: printed characters, including a UTF-8 lead byte that cuts a
		// string sequence short, and bytes the parser ignores in ground.
		if st := s.front.State(); !s.tokDone && isText(st) && (isText(prev) || st == parser.Utf8State) {
			if !s.inRun {
				s.inRun, s.runStart = true, i
			}
			s.runASCII = false
			tokStart = i + 1
			continue
		}
		if s.inRun {
			s.inRun = false
			s.runText(buf, s.runStart, at, s.runASCII)
		}
		if !s.tokDone {
			continue // inside a sequence
		}
		if s.tok.kind == tokControl && s.tok.ctrl == ansi.ESC {
			// An escape cut short by the next one (the parser reports the
			// first ESC when the second comes): a terminal drops what came
			// of it, and so does the screen. Fed to the emulator, it could
			// be left waiting for the rest while the screen handles the
			// next sequence itself (a screen switch), and take the next
			// character as the end of the old one.
			s.feedSeg(buf, tokStart)
			if s.partialFed {
				_, _ = s.active().Write([]byte{ansi.CAN})
			}
			s.segStart, tokStart = i, i
			s.partialFed = false
			continue
		}
		if seq := s.clamped(); seq != nil {
			// A count x/vt would loop over: feed it bounded.
			s.feedSeg(buf, tokStart)
			if s.partialFed {
				_, _ = s.active().Write([]byte{ansi.CAN})
			}
			s.wideEdge = false
			s.writePrint(seq)
			s.segStart, tokStart = i+1, i+1
			s.partialFed = false
			continue
		}
		if s.inert() {
			tokStart = i + 1
			if tokStart-s.segStart >= maxSegment {
				s.feedSeg(buf, tokStart)
			}
			// A string ends at the ESC that starts the next sequence (or
			// its ST): that ESC goes to the emulator with the string, so the
			// next token has begun there, as if in an earlier write.
			s.partialFed = s.tok.kind == tokString && buf[i] == ansi.ESC
			continue
		}
		s.feedSeg(buf, tokStart)
		s.token(buf[tokStart:i+1], buf[i+1:])
		s.segStart, tokStart = i+1, i+1
		s.partialFed = false
	}
	if s.inRun {
		h := s.heldFrom(buf, s.runStart)
		s.runText(buf, s.runStart, h, s.runASCII)
		s.feedSeg(buf, h)
		s.hold = append([]byte(nil), buf[h:]...)
		return
	}
	s.feedSeg(buf, len(buf))
	if tokStart < len(buf) {
		s.partialFed = true
	}
}

// plainCsi reads a complete plain CSI sequence (decimal parameters, no
// prefix or intermediate byte: SGR, cursor moves, erases) at the start of
// b as the completed token, as the front parser would in the ground state,
// and returns its length; 0 leaves b to the parser. Coloured output is
// mostly such sequences, and the parser takes a state change per byte.
func (s *Screen) plainCsi(b []byte) int {
	if b[0] != ansi.ESC || s.front.State() != parser.GroundState {
		return 0
	}
	cmd, params, n := vt.ScanPlainCsi(b, s.tok.params[:0])
	if n > 0 {
		s.tok.kind, s.tok.cmd, s.tok.params, s.tokDone = tokCSI, cmd, params, true
	}
	return n
}

// applyHeld feeds the held-back cluster, for readers of the screen.
func (s *Screen) applyHeld() {
	if len(s.hold) == 0 {
		return
	}
	buf := s.hold
	s.hold = nil
	s.segStart = 0
	s.runText(buf, 0, len(buf), false)
	s.feedSeg(buf, len(buf))
	// x/vt takes a UTF-8 lead byte with the bytes that follow it, whatever
	// they are (see unitAt).
	s.runePending = false
	for j := 0; j < len(buf); {
		n, _, ok := unitAt(buf, j, len(buf))
		if !ok {
			s.runePending = true
		}
		j += n
	}
}

// quiet reports whether the emulator's parser is between sequences and
// characters, so that the screen can write sequences of its own to it.
func (s *Screen) quiet() bool { return !s.partialFed && !s.runePending }

// inert reports whether the completed token cannot move the cursor to
// another row, so it can go into a print segment. It also ends a pending
// wide-character wrap when the token moves the cursor.
func (s *Screen) inert() bool {
	t := &s.tok
	keepsEdge := false
	ok := false
	switch t.kind {
	case tokString:
		ok, keepsEdge = true, true
	case tokControl:
		switch t.ctrl {
		case '\n', '\v', '\f', 0x84, 0x85, 0x8d: // LF VT FF IND NEL RI
		default:
			ok = true
		}
	case tokESC:
		switch {
		case t.cmd.Intermediate() >= '(' && t.cmd.Intermediate() <= '+': // character sets
			ok, keepsEdge = true, true
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
				ok, keepsEdge = true, true
				s.sgrState()
			case 'h', 'l':
				ok = true
				for _, p := range t.params {
					if p.Param(0) == 20 { // LNM: a line feed also returns the carriage
						s.lnm = c.Final() == 'h'
					}
				}
			case 'K', 'X', '@', 'P', 'G', '`', 'a', 'C', 'D', 'I', 'Z', 'b', 'n', 'c', 'g':
				ok = true
			}
		case c.Prefix() == '?' && (c.Final() == 'h' || c.Final() == 'l'):
			ok = true
			s.syncMode()
			for _, p := range t.params {
				switch p.Param(0) {
				case 47, 1047, 1048, 1049:
					ok = false
				case 2026:
					// The end of a synchronized update completes a frame
					// of the alternate screen (altscreen.go).
					ok = s.alt == nil
				}
			}
		case c.Prefix() == '?' && (c.Final() == 'n' || c.Final() == 'W'),
			c.Prefix() == '>' && c.Final() == 'c',
			c.Intermediate() == ' ' && c.Final() == 'q',
			c.Intermediate() == '$' && c.Final() == 'p':
			ok = true
		}
	}
	if ok && !keepsEdge {
		s.wideEdge = false
	}
	return ok
}

// clamped returns a bounded copy of a CSI whose count x/vt would spend
// time proportional to (repeat a character, erase, tab), or nil when the
// count is reasonable: a program cannot stall the screen with
// ESC[999999999b.
func (s *Screen) clamped() []byte {
	t := &s.tok
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return nil
	}
	limit := s.cols
	switch t.cmd.Final() {
	case 'b':
		limit = s.rows * s.cols
	case 'X', 'I', 'Z':
	default:
		return nil
	}
	if n := t.param(0, 1); n <= limit {
		return nil
	}
	return []byte("\x1b[" + strconv.Itoa(limit) + string(rune(t.cmd.Final())))
}

// feedSeg feeds buf[segStart:upto] as a print segment.
func (s *Screen) feedSeg(buf []byte, upto int) {
	if upto > s.segStart {
		s.writePrint(buf[s.segStart:upto])
		s.segStart = upto
	}
}

func (s *Screen) writePrint(b []byte) {
	if s.alt != nil {
		_, _ = s.alt.Write(b)
		s.harvestAlt(false)
		return
	}
	s.printMode = true
	_, _ = s.main.Write(b)
	s.printMode = false
	s.harvest()
}

// cursorMoved is the main emulator's cursor callback. In a print segment a
// move to a lower row is the terminal wrapping: the row above the cursor
// (where the content that was on the cursor's row is now, even when the
// wrap scrolled) continues on the cursor's row.
func (s *Screen) cursorMoved(old, new uv.Position) {
	s.moves++
	if s.printMode && new.Y < old.Y {
		s.risk() // a mode that homes the cursor (DECOM)
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
func (s *Screen) eachCluster(buf []byte, start, end int, f func(j, n, w int)) int {
	for j := start; j < end; {
		n, r, ok := unitAt(buf, j, end)
		if !ok {
			return j
		}
		if printable(r) && (j+1 >= end || printable(rune(buf[j+1]))) {
			f(j, 1, 1)
			j++
			continue
		}
		if r < 0 {
			j += n
			continue
		}
		// A stretch: up to one ASCII character and the runes after it.
		s.dec, s.bounds = s.dec[:0], s.bounds[:0]
		k := j
		for k < end {
			n, r, ok := unitAt(buf, k, end)
			if !ok || (printable(r) && k > j) {
				break
			}
			s.bounds = append(s.bounds, bound{raw: k, dec: len(s.dec)})
			if r >= 0 {
				s.dec = utf8.AppendRune(s.dec, r)
			}
			k += n
		}
		bi := 0
		for d := 0; d < len(s.dec); {
			cl, w := ansi.FirstGraphemeCluster(s.dec[d:], ansi.GraphemeWidth)
			if len(cl) == 0 {
				break
			}
			a := s.bounds[bi].raw
			d += len(cl)
			for bi < len(s.bounds) && s.bounds[bi].dec < d {
				bi++
			}
			b := k
			if bi < len(s.bounds) {
				b = s.bounds[bi].raw
			}
			f(a, b-a, w)
		}
		j = k
	}
	return end
}

// runText walks the complete clusters of buf[start:end] (part of a run of
// printable text): it wraps wide characters x/vt would mishandle and keeps
// print segments under maxSegment, cutting only between clusters.
// ascii says the bytes are known to be ASCII.
func (s *Screen) runText(buf []byte, start, end int, ascii bool) {
	if !s.wideEdge && end-s.segStart < maxSegment && (ascii || isASCII(buf[start:end])) {
		return
	}
	main := s.alt == nil
	s.eachCluster(buf, start, end, func(j, n, w int) {
		if j-s.segStart >= maxSegment {
			s.feedSeg(buf, j)
		}
		if main && s.wideEdge && w > 0 {
			s.feedSeg(buf, j)
			s.wrapNow(false)
			s.wideEdge = false
		}
		if main && w >= 2 {
			s.feedSeg(buf, j)
			s.feedWide(buf[j : j+n])
			s.segStart = j + n
		}
	})
}

// heldFrom returns where the last cluster of the open run starting at
// start begins: the bytes from there are held back, since the next write
// may extend that cluster. When the run ends inside a character, that
// character and the cluster before it are held. A cluster longer than
// maxHold is fed; a partial character never is.
func (s *Screen) heldFrom(buf []byte, start int) int {
	end := len(buf)
	if s.front.State() != parser.Utf8State && (s.runASCII || isASCII(buf[start:])) {
		return max(start, end-1)
	}
	last := -1
	complete := s.eachCluster(buf, start, end, func(j, _, _ int) { last = j })
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
// x/vt does at the right margin: a wide character that does not fit in the
// last column is blanked instead of wrapped, and one that ends in the last
// column leaves no pending wrap, so the next character would overwrite it.
func (s *Screen) feedWide(cl []byte) {
	w := s.cols
	moves := s.moves
	s.writePrint(cl)
	if !s.awm || w < 3 {
		return
	}
	if s.moves == moves {
		// Written into the last column without moving: blanked.
		s.wrapNow(true)
		s.writePrint(cl)
	}
	pos := s.main.CursorPosition()
	if pos.X == w-1 {
		if c := s.main.CellAt(w-2, pos.Y); c != nil && c.Width >= 2 {
			s.wideEdge = true
		}
	}
}

// wrapNow wraps the cursor to the next row as the terminal would have.
func (s *Screen) wrapNow(pad bool) {
	s.writePrint([]byte("\r\n"))
	if pos := s.main.CursorPosition(); pad && pos.Y > 0 {
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
	if s.alt != nil {
		if t.kind != tokESC || t.cmd != 'c' {
			s.altToken(tb)
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
	s.mainToken(tb)
	s.pieces = s.pieces[:0]
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
		if s.alt == nil {
			// The alternate screen starts with the main one's cursor.
			s.alt, s.altPipe = s.newEmulator(false)
			s.altRows = nil
			s.altHidden = false
			if s.mainHidden {
				_, _ = s.alt.Write([]byte("\x1b[?25l"))
			}
		}
		if len(rest) > 0 {
			_, _ = s.alt.Write(seq('h'))
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
	if s.alt == nil {
		return
	}
	s.risk()
	s.observeAlt(false)
	s.flushAlt()
	s.syncing = false
	_ = s.altPipe.Close()
	s.alt, s.altPipe = nil, nil
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
