package spawner

import (
	"slices"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
)

// rowState is what the screen knows about the logical line starting at a
// row of the main screen. It moves with the row when the screen scrolls or
// inserts and deletes lines.
type rowState struct {
	rec     string // the text last committed for this line
	hasRec  bool
	pending bool   // left downwards inside the redraw zone, not committed
	ptext   string // its text when left
	offered int    // the replay (replay.epoch) whose matcher saw rec
	// ends: where each of the line's rows ends in rec, when rec was read
	// from them as the cursor left the line (zero: not known).
	ends lineEnds
}

// lineEnds is where each row of a line of up to maxEnds rows ends in its
// text.
type lineEnds struct {
	n  uint8
	at [maxEnds]uint16
}

const maxEnds = 8

// endsOf returns rowEnds (lineBytes' last) for text, zero when they do
// not describe it whole (the line was capped, or has too many rows).
func endsOf(rowEnds []int, text string) lineEnds {
	var e lineEnds
	if len(rowEnds) == 0 || len(rowEnds) > maxEnds || rowEnds[len(rowEnds)-1] != len(text) || len(text) > 0xffff {
		return e
	}
	e.n = uint8(len(rowEnds))
	for i, at := range rowEnds {
		e.at[i] = uint16(at)
	}
	return e
}

// ghost is committed text that was replaced at its position: the same text
// turning up at another position soon after is the line moving, not a new
// line.
type ghost struct {
	text string
	at   int64 // tracker.processed when it was replaced
	n    int64 // the line's position (Line.N) when it was replaced
}

// move is a line taken to have moved (or to be a paragraph drawn anew)
// from position from to position to, when tracker.processed was at.
type move struct {
	from, to, at int64
}

type tracker struct {
	shadow []rowState
	// top and bot are the scroll region of the main screen: rows [top, bot).
	top, bot int
	// zone is the highest row the cursor went back up to in its last trip
	// up; lines at or below it are held back until output settles. -1:
	// none. goingUp: that trip is still going (no downward move since).
	zone    int
	goingUp bool
	// base counts the rows scrolled off the top.
	base int64
	// carry is the start of a wrapped line whose first rows scrolled off
	// while it continues at row top; carryState is that line's state.
	carryOn    bool
	carry      []byte
	carryN     int64
	carryState rowState
	ghosts     []ghost
	rewrap     rewrapState
	// lastMove is the last line taken to have moved: lines redrawn in
	// one pass keep their order, so the next cannot cross it.
	lastMove move
	// lastNew: the last line commit looked at was new output.
	lastNew   bool
	processed int64
	out       []Line
	// erasing: rows x/vt pushes into its scrollback now come from an erase
	// of the display, not from scrolling.
	erasing bool
	lineBuf []byte // scratch: a row's plain text
	rowEnds []int  // scratch: where each row's text ends (lineBytes)
	// pieces: rows a batch of scrolls is about to push off, checked to
	// show the text committed for their line: each one's length in it, or
	// -1 (checkedBatch). scrolled takes their text from there.
	pieces []int
	// riskUntil: until base reaches it, a row may show other than the
	// text committed for its line (something other than a line feed moved
	// the cursor up or changed rows; see risk).
	riskUntil int64
	rowBuf    []byte     // scratch: a row with its styles
	boxRows   []string   // scratch: the rows inputBox looks at
	runBuf    []styleRun // scratch: a row's style runs
	detached  []rowState
}

func (s *Screen) initTracker() {
	s.shadow = make([]rowState, s.rows)
	s.top, s.bot = 0, s.rows
	s.zone = -1
}

// resized keeps the states of the rows that remain.
func (s *Screen) resized() {
	old := s.shadow
	s.shadow = make([]rowState, s.rows)
	copy(s.shadow, old)
	for i := range s.shadow {
		s.shadow[i].ends = lineEnds{} // the rows are cut or wrapped anew
	}
	s.risk()
	s.lastMove = move{}
	s.top, s.bot = 0, s.rows
	if s.zone >= s.rows {
		s.zone = s.rows - 1
	}
	s.wideEdge = false
}

// state returns the state of the logical line starting at row r.
func (s *Screen) state(r int) *rowState {
	if r == s.top && s.carryOn {
		return &s.carryState
	}
	return &s.shadow[r]
}

func (s *Screen) wrappedRow(y int) bool {
	w, _ := wrapOf(s.main.CellAt(s.cols-1, y))
	return w
}

// span returns the rows of the logical line containing row r.
func (s *Screen) span(r int) (start, end int) {
	start, end = r, r
	for start > 0 && s.wrappedRow(start-1) {
		start--
	}
	for end < s.rows-1 && s.wrappedRow(end) {
		end++
	}
	return start, end
}

// lineText returns the text of the logical line on rows [start, end].
func (s *Screen) lineText(start, end int) string {
	return string(s.lineBytes(start, end))
}

// lineShows reports whether the logical line on rows [start, end] shows
// text.
func (s *Screen) lineShows(start, end int, text string) bool {
	return string(s.lineBytes(start, end)) == text // compared, not copied
}

// lineBytes is lineText in the scratch buffer, valid until its next use;
// rowEnds has where each row's text ends in it, before the cap.
func (s *Screen) lineBytes(start, end int) []byte {
	b := s.lineBuf[:0]
	if start == s.top && s.carryOn {
		b = append(b, s.carry...)
	}
	s.rowEnds = s.rowEnds[:0]
	for y := start; y <= end; y++ {
		b = appendText(b, s.main.Line(y), s.cols)
		s.rowEnds = append(s.rowEnds, len(b))
	}
	b = capLine(b)
	s.lineBuf = b
	return b
}

func capLine(b []byte) []byte {
	if len(b) <= maxLineBytes {
		return b
	}
	n := maxLineBytes
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

func (s *Screen) lineN(start int) int64 {
	if start == s.top && s.carryOn {
		return s.carryN
	}
	return s.base + int64(start)
}

// commit commits text as the line of st, unless that is what it shows
// already or the text is a committed line that moved here; ends is where
// its rows end in text, when known.
func (s *Screen) commit(st *rowState, text string, n int64, ends lineEnds) {
	st.pending, st.ptext = false, ""
	st.ends = ends
	s.processed++
	// The replay matcher sees every line, also those committed already —
	// once: the same line seen again in the same replay (left by a line
	// feed, then scrolled off) is not another line of it.
	if st.hasRec && st.rec == text && st.offered == s.replay.epoch {
		s.lastNew = false
		return
	}
	if s.layout.HasStatus() && s.layout.Status(text) {
		// The program's status row, not output: seen, not committed.
		st.rec, st.hasRec = text, true
		return
	}
	if running, ok := s.layout.PreviewMarker(text); ok && running {
		// The count under a running command's latest rows: they were a
		// preview, not output (see previewRows).
		st.rec, st.hasRec = text, true
		s.retractPreview(n)
		return
	}
	replayed := s.replay.repeats(text)
	if st.hasRec && st.rec == text {
		st.offered = s.replay.epoch
		s.lastNew = false
		return
	}
	if text != "" && s.moved(st, text, n) {
		st.rec, st.hasRec, st.offered = text, true, s.replay.epoch
		s.lastNew = false
		return
	}
	replaced := st.hasRec && st.rec != ""
	if replaced {
		s.ghosts = append(s.ghosts, ghost{text: st.rec, at: s.processed, n: n})
		if len(s.ghosts) > 2*s.rows {
			s.ghosts = s.ghosts[1:]
		}
	}
	st.rec, st.hasRec, st.offered = text, true, s.replay.epoch
	if replayed || replaced && s.rewrapped(st, text, n) {
		s.lastNew = false
		return
	}
	s.lastNew = true
	s.replay.record(text)
	s.out = append(s.out, Line{N: n, Text: text, Time: s.now(), Cols: s.cols})
}

// retractPreview takes back the lines of the preview that the line at
// position n closes, committed before its marker was drawn but not taken
// yet, and forgets them: the output printed whole later holds their text
// as new lines, not as these moved.
func (s *Screen) retractPreview(n int64) {
	y := int(n - s.base)
	if y <= 0 || y >= s.rows {
		return
	}
	top, _, ok := s.layout.Preview(s.mainRows(s.main), y)
	if !ok || top >= y {
		return
	}
	lo := s.base + int64(top)
	s.out = slices.DeleteFunc(s.out, func(l Line) bool { return l.N >= lo && l.N < n })
	for r := top; r < y; r++ {
		st := s.state(r)
		st.rec, st.hasRec, st.pending, st.ptext = "", false, false, ""
	}
}

// minRewrap is the shortest text (without blanks) taken for a piece of a
// paragraph wrapped anew: shorter pieces occur anywhere.
const minRewrap = 12

// rewrapped reports whether text, replacing a committed line in place, is
// a piece of the paragraph that was there, wrapped or indented anew (as
// Claude Code redraws a tool's output once it is done): its text without
// blanks and borders starts where one of the lines just replaced (the
// newest ghosts, this one's last) or of those still below it starts, or
// goes on where the piece before it ended. Text found in the middle of a
// line that was there is not that line redrawn: it is new text drawn where
// another line held the same words (Gemini CLI draws a command's output
// where the command was typed a moment before).
func (s *Screen) rewrapped(st *rowState, text string, n int64) bool {
	key := RowKey(text)
	if len(key) < minRewrap {
		return false
	}
	if next := s.rewrap.next; next != "" && s.processed-s.rewrap.at <= maxRewrapGap && strings.HasPrefix(next, key) {
		s.rewrap.next, s.rewrap.at = next[len(key):], s.processed
		return true
	}
	var b strings.Builder
	starts, from := s.rewrap.starts[:0], s.rewrap.from[:0]
	add := func(line string, n int64) {
		starts = append(starts, b.Len())
		from = append(from, n)
		b.WriteString(RowKey(line))
	}
	for _, g := range s.ghosts[max(0, len(s.ghosts)-s.rows):] {
		add(g.text, g.n)
	}
	below := false
	for r := range s.shadow {
		if &s.shadow[r] == st {
			below = true
			continue
		}
		if below && s.shadow[r].hasRec {
			add(s.shadow[r].rec, s.lineN(r))
		}
	}
	s.rewrap.starts, s.rewrap.from = starts, from
	stream := b.String()
	for k, at := range starts {
		if strings.HasPrefix(stream[at:], key) && s.inOrder(from[k], n) {
			s.rewrap.next, s.rewrap.at = stream[at+len(key):], s.processed
			s.moveTo(from[k], n)
			return true
		}
	}
	return false
}

// inOrder reports whether a line at position from may have moved to
// position to: lines that move in one redraw keep their order, so a line
// does not cross the line that moved last, a moment ago (Claude Code
// collapses an output and draws the next one below: a "{" of the new
// block is not the old block's "{", which was above the rows that just
// moved up past it).
func (s *Screen) inOrder(from, to int64) bool {
	m := s.lastMove
	if from == to || m.at == 0 || s.processed-m.at > int64(s.rows) {
		return true
	}
	return sign(from-m.from) == sign(to-m.to)
}

// moveTo records that a line moved from position from to position to.
func (s *Screen) moveTo(from, to int64) {
	if from == to {
		return // shown again where it was: no order to keep
	}
	s.lastMove = move{from: from, to: to, at: s.processed}
}

func sign(x int64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// maxRewrapGap is how many lines later the next piece of a paragraph drawn
// anew may come: the pieces of one redraw come one after the other.
const maxRewrapGap = 2

// rewrapState is where the last piece of a paragraph drawn anew ended.
type rewrapState struct {
	next   string  // the paragraph's text (keys) after that piece
	at     int64   // tracker.processed when it was taken
	starts []int   // scratch: where each line starts in the text searched
	from   []int64 // scratch: each of those lines' position
}

// moved reports whether text is a committed line that left its position in
// the current redraw: a ghost replaced within the last two screenfuls of
// lines, or a line whose position no longer shows it. The old position
// gives up its record.
func (s *Screen) moved(self *rowState, text string, n int64) bool {
	horizon := int64(2 * s.rows)
	for len(s.ghosts) > 0 && s.processed-s.ghosts[0].at > horizon {
		s.ghosts = s.ghosts[1:]
	}
	// Text as short as "}" or "[[/RELAY]]" occurs anywhere: right after a
	// new line it is more of the new output, not a line that moved.
	short := s.lastNew && !hasKeyOf(text, minRewrap)
	for i := len(s.ghosts) - 1; i >= 0 && !short; i-- {
		if g := s.ghosts[i]; g.text == text && s.inOrder(g.n, n) {
			s.ghosts = append(s.ghosts[:i], s.ghosts[i+1:]...)
			s.moveTo(g.n, n)
			return true
		}
	}
	for r := 0; r < s.rows; r++ {
		st := s.state(r)
		if st == self || !st.hasRec || st.rec != text {
			continue
		}
		start, end := s.span(r)
		if start != r {
			// A stale record: the row became part of a wrapped line.
			st.rec, st.hasRec = "", false
			continue
		}
		if s.lineText(start, end) != text && s.inOrder(s.lineN(r), n) {
			st.rec, st.hasRec = "", false
			s.moveTo(s.lineN(r), n)
			return true
		}
	}
	return false
}

// cursorAfter handles the cursor's move from row r0 (where the row it was
// on is after the token; -1 when that row is gone) to row y1; lf says the
// token was a line feed.
func (s *Screen) cursorAfter(r0, y1 int, lf bool) {
	if r0 < 0 || r0 >= s.rows {
		return
	}
	start, end := s.span(r0)
	switch {
	case y1 < r0:
		s.upTo(y1)
	case y1 > r0:
		s.downward()
		if y1 > end {
			s.leave(start, end, lf)
		}
	}
}

// leave: the cursor left the line on rows [start, end] downwards. A blank
// line counts only when a line feed left it: a cursor jump from an empty
// row is not output.
func (s *Screen) leave(start, end int, lf bool) {
	text := s.lineText(start, end)
	if text == "" && !lf {
		return
	}
	st := s.state(start)
	if s.zone >= 0 && end >= s.zone {
		if st.hasRec && st.rec == text {
			st.pending, st.ptext = false, ""
			return
		}
		st.pending, st.ptext = true, text
		return
	}
	s.commit(st, text, s.lineN(start), endsOf(s.rowEnds, text))
}

// upTo: the cursor went up to row y. A trip up (Ink erasing its frame line
// by line) may take several moves; the zone starts at the first and ends
// at the highest row reached.
func (s *Screen) upTo(y int) {
	if !s.goingUp || y < s.zone {
		s.zone = y
	}
	s.goingUp = true
}

// downward: the cursor moved down, ending a trip up. Lines held back above
// the zone are out of the redraw now and are committed.
func (s *Screen) downward() {
	if !s.goingUp {
		return
	}
	s.goingUp = false
	for r := 0; r < s.zone; {
		start, end := s.span(r)
		if st := s.state(start); st.pending && end < s.zone {
			s.commitPending(start, end, st)
		}
		r = end + 1
	}
}

// commitPending commits a held-back line with the text it shows now,
// unless it was erased since.
func (s *Screen) commitPending(start, end int, st *rowState) {
	text := s.lineText(start, end)
	if text == "" && st.ptext != "" {
		st.pending, st.ptext = false, ""
		return
	}
	s.commit(st, text, s.lineN(start), lineEnds{})
}

// settleMain commits the held-back lines and, when final, every other line
// whose text is not committed, and closes the redraw zone. The lines of the
// program's input box, where the cursor rests now, are what is being
// typed: they are not committed.
func (s *Screen) settleMain(final bool) {
	top, bottom, box := s.inputBox(s.main, s.main.CursorPosition().Y)
	var previews []previewRow
	if s.layout.HasPreviews() {
		if !s.layout.HasInputBox() {
			s.mainRows(s.main)
		}
		previews = previewRows(s.layout, s.boxRows, s.previews)
		s.previews = previews
	}
	for r := 0; r < s.rows; {
		start, end := s.span(r)
		st := s.state(start)
		switch {
		case box && end >= top && start <= bottom:
			// Taken as seen, so that the cursor leaving it later, or the
			// box moving down a row, commits nothing either.
			st.pending, st.ptext = false, ""
			st.rec, st.hasRec = s.lineText(start, end), true
		case previews != nil && previews[start] == previewRunning && !final:
			// A running command's latest rows: its output is read where
			// the program prints it whole (see previewRows).
			st.pending, st.ptext = false, ""
		case st.pending:
			s.commitPending(start, end, st)
		case final:
			if text := s.lineText(start, end); text != "" {
				s.commit(st, text, s.lineN(start), lineEnds{})
			}
		}
		r = end + 1
	}
	s.zone, s.goingUp = -1, false
}

// harvest collects the rows x/vt pushed into its scrollback and returns how
// many scrolled off (rather than being erased).
func (s *Screen) harvest() int {
	sb := s.main.Scrollback()
	n := sb.Len()
	if n == 0 {
		return 0
	}
	if s.erasing {
		for _, l := range sb.Lines() {
			s.keepRow(l)
		}
		n = 0
	} else {
		s.scrolled(sb.Lines())
	}
	sb.Clear()
	return n
}

// keepRow adds a row to the scrollback the UI shows.
func (s *Screen) keepRow(l uv.Line) {
	s.keep(l, string(appendText(s.lineBuf[:0], l, s.cols)))
}

// keep adds a row to the scrollback the UI shows; text is its plain text
// (appendText of the row), which the caller has at hand.
func (s *Screen) keep(l uv.Line, text string) {
	if s.hist.max <= 0 {
		return
	}
	s.hist.push(s.histRow(l, text, s.cols))
	if s.erasing {
		s.pullable = 0
	} else {
		s.pullable = min(s.pullable+1, s.hist.len())
	}
}

// histRow is a row of cols cells as the scrollback keeps it.
func (s *Screen) histRow(l uv.Line, text string, cols int) histLine {
	wrapped, pad := lineWrap(l, cols)
	h := histLine{text: text, wrapped: wrapped, pad: pad,
		cols: uint16(cols), end: uint16(rowEnd(l, cols))}
	runs, shown, ok := rowStyles(s.runBuf[:0], l, cols, &s.hist.pal)
	s.runBuf = runs
	switch {
	case !ok:
		s.rowBuf = appendRow(s.rowBuf[:0], l, cols)
		h.styled = string(s.rowBuf)
	case len(runs) > 0:
		h.runs, h.shown = runs, uint32(shown) // packed as it is pushed
	}
	return h
}

// scrolled handles rows that scrolled off the top of the region: each is
// the end of its logical line (committed now if it has not been with this
// text) or, when wrapped, the start of one that goes on below.
func (s *Screen) scrolled(lines []uv.Line) {
	top, bot := s.top, min(s.bot, s.rows)
	h := max(bot-top, 0)
	k := len(lines)
	det := s.detached[:0]
	for j := range k {
		if j < h {
			det = append(det, s.shadow[top+j])
		} else {
			det = append(det, rowState{})
		}
	}
	s.detached = det
	s.shiftUp(top, bot, min(k, h))
	for j, l := range lines {
		wrapped, _ := lineWrap(l, s.cols)
		st := det[j]
		if s.carryOn {
			st = s.carryState
		}
		// The row's text, kept in the scrollback: most often a piece of
		// the text committed for its line already, shared rather than
		// copied (the line is whole on the screen when it ends, and
		// scrolls off after). A batch checked it already.
		from := 0
		if s.carryOn {
			from = len(s.carry)
		}
		var row string
		if j < len(s.pieces) && s.pieces[j] >= 0 {
			row = st.rec[from : from+s.pieces[j]]
		} else if n, ok := s.knownRow(&st, from); ok {
			row = st.rec[from : from+n]
		} else {
			s.lineBuf = appendText(s.lineBuf[:0], l, s.cols)
			row = sharedText(st, from, s.lineBuf)
		}
		switch {
		case wrapped:
			if !s.carryOn {
				s.carryOn, s.carryN, s.carry = true, s.base+int64(top), s.carry[:0]
			}
			s.carryState = st
			s.carry = capLine(append(s.carry, row...))
		case s.carryOn:
			s.carry = capLine(append(s.carry, row...))
			text, n := sharedText(st, 0, s.carry), s.carryN
			s.dropCarry()
			s.final(&st, text, n)
		default:
			s.final(&st, row, s.base+int64(top))
		}
		s.base++
		s.keep(l, row)
	}
}

// knownRow returns the length of the row of st's line whose text starts
// at byte from of it, when the row shows what was committed for it: while
// only line feeds have gone by since every row on the screen came in (see
// risk), and where its rows ended is known.
func (s *Screen) knownRow(st *rowState, from int) (int, bool) {
	e := &st.ends
	if s.base < s.riskUntil || !st.hasRec || e.n == 0 || int(e.at[e.n-1]) != len(st.rec) {
		return 0, false
	}
	prev := 0
	for _, end := range e.at[:e.n] {
		if prev == from {
			return int(end) - prev, true
		}
		prev = int(end)
	}
	return 0, false
}

// sharedText returns text as a string: the piece of the text committed for
// st at byte from when that is what it is, else a copy.
func sharedText(st rowState, from int, text []byte) string {
	if st.hasRec && from+len(text) <= len(st.rec) && st.rec[from:from+len(text)] == string(text) {
		return st.rec[from : from+len(text)]
	}
	return string(text)
}

// final commits a line that left the screen, unless it is blank and was
// never written as a blank line.
func (s *Screen) final(st *rowState, text string, n int64) {
	if text == "" && !(st.pending && st.ptext == "") {
		return
	}
	s.commit(st, text, n, lineEnds{})
}

func (s *Screen) dropCarry() {
	s.carryOn = false
	s.carry = s.carry[:0]
	s.carryState = rowState{}
}

func (s *Screen) clearPending() {
	for i := range s.shadow {
		s.shadow[i].pending, s.shadow[i].ptext = false, ""
	}
}

// shiftUp moves rows [a+n, b) up to a; rows [a, a+n) are gone.
func (s *Screen) shiftUp(a, b, n int) {
	if n <= 0 || a >= b {
		return
	}
	copy(s.shadow[a:b], s.shadow[a+n:b])
	clear(s.shadow[b-n : b])
	if s.zone >= a && s.zone < b {
		s.zone = max(a, s.zone-n)
	}
}

// shiftDown moves rows [a, b-n) down by n; rows pushed past b are gone.
func (s *Screen) shiftDown(a, b, n int) {
	if n <= 0 || a >= b {
		return
	}
	copy(s.shadow[a+n:b], s.shadow[a:b-n])
	clear(s.shadow[a : a+n])
	if s.zone >= a && s.zone < b {
		s.zone = min(b-1, s.zone+n)
	}
}

type opKind uint8

const (
	opNone    opKind = iota
	opDown           // rows [a, b) move down by n
	opUpDrop         // rows [a, a+n) deleted, [a+n, b) move up
	opErase          // the display is erased (x/vt pushes it to its scrollback)
	opErase3         // display and scrollback erased
	opReset          // full reset
	opMargins        // scroll region becomes [a, b)
)

// rowOp is how a structural token moves rows without scrolling them off
// (scrolling off is seen in x/vt's scrollback). It mirrors x/vt.
type rowOp struct {
	kind    opKind
	a, b, n int
}

func (s *Screen) rowOp(y int) rowOp {
	t := &s.tok
	top, bot := s.top, min(s.bot, s.rows)
	switch t.kind {
	case tokControl:
		if t.ctrl == 0x8d && y == top { // RI
			return rowOp{kind: opDown, a: top, b: bot, n: 1}
		}
	case tokESC:
		switch t.cmd {
		case 'M':
			if y == top {
				return rowOp{kind: opDown, a: top, b: bot, n: 1}
			}
		case 'c':
			return rowOp{kind: opReset}
		}
	case tokCSI:
		if t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
			return rowOp{}
		}
		switch t.cmd.Final() {
		case 'T': // SD
			if n := t.param(0, 1); n > 0 && bot > top {
				return rowOp{kind: opDown, a: top, b: bot, n: min(n, bot-top)}
			}
		case 'L': // IL
			if n := t.param(0, 1); n > 0 && y >= top && y < bot {
				return rowOp{kind: opDown, a: y, b: bot, n: min(n, bot-y)}
			}
		case 'M': // DL; at the top of the region x/vt pushes the rows out
			if n := t.param(0, 1); n > 0 && y > top && y < bot {
				return rowOp{kind: opUpDrop, a: y, b: bot, n: min(n, bot-y)}
			}
		case 'J':
			switch t.param(0, 0) {
			case 2:
				return rowOp{kind: opErase}
			case 3:
				return rowOp{kind: opErase3}
			}
		case 'r': // DECSTBM, as x/vt validates it once clampMargins has
			// brought its bottom onto the screen
			a := max(t.param(0, 1), 1)
			b := t.param(1, s.rows)
			if b < 1 || b > s.rows {
				b = s.rows
			}
			if a < b {
				return rowOp{kind: opMargins, a: a - 1, b: b}
			}
		}
	}
	return rowOp{}
}

// mainToken feeds a structural token to the main emulator and follows what
// it did to the rows and the cursor.
func (s *Screen) mainToken(tb []byte) {
	pos := s.main.CursorPosition()
	top, bot := s.top, min(s.bot, s.rows)
	op := s.rowOp(pos.Y)
	s.erasing = op.kind == opErase
	_, _ = s.main.Write(tb)
	pushed := s.harvest()
	s.erasing = false
	r0 := pos.Y
	if pushed > 0 && r0 >= top && r0 < bot {
		r0 -= min(pushed, bot-top)
		if r0 < top {
			r0 = -1
		}
	}
	if op.kind != opNone && op.kind != opMargins {
		// Rows moved or went: the positions of the last move are stale.
		s.lastMove = move{}
	}
	switch op.kind {
	case opDown:
		s.shiftDown(op.a, op.b, op.n)
		if op.a == s.top {
			s.dropCarry()
		}
		if r0 >= op.a && r0 < op.b {
			if r0 += op.n; r0 >= op.b {
				r0 = -1
			}
		}
	case opUpDrop:
		s.shiftUp(op.a, op.b, op.n)
		switch {
		case r0 >= op.a && r0 < op.a+op.n:
			r0 = -1
		case r0 >= op.a+op.n && r0 < op.b:
			r0 -= op.n
		}
	case opErase, opErase3, opReset:
		s.clearPending()
		s.dropCarry()
		if op.kind == opErase3 {
			s.hist.clear()
		}
		s.replay.begin(s.rows)
		if op.kind == opReset {
			// A full reset: what the rows showed is gone, and what was
			// committed at their positions tells nothing about what comes
			// (the replay rule still knows it).
			clear(s.shadow)
			s.top, s.bot = 0, s.rows
		}
		r0 = -1
	case opMargins:
		s.top, s.bot = op.a, op.b
	}
	s.wideEdge = false
	if !s.lineFeed() {
		s.risk()
	}
	if op.kind == opNone && s.clearedView(pos) {
		s.replay.begin(s.rows)
	}
	s.cursorAfter(r0, s.main.CursorPosition().Y, s.lineFeed())
}

// clearedView reports whether the token cleared the screen without ED 2:
// erased it from the home position (ED 0), or came home to a screen whose
// rows were all erased one by one (as Claude Code does on resize).
func (s *Screen) clearedView(before uv.Position) bool {
	t := &s.tok
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return false
	}
	switch t.cmd.Final() {
	case 'J':
		return t.param(0, 0) == 0 && before.X == 0 && before.Y == 0
	case 'H', 'f':
		if t.param(0, 1) > 1 || t.param(1, 1) > 1 {
			return false
		}
		var b []byte
		for y := range s.rows {
			if b = appendText(b[:0], s.main.Line(y), s.cols); len(strings.TrimSpace(string(b))) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// risk notes that a row may now show other than the text committed for its
// line, until every row on the screen has scrolled off. Only line feeds
// (and printing on the cursor's row, whose line is not committed yet)
// leave committed rows as they are.
func (s *Screen) risk() { s.riskUntil = s.base + int64(s.rows) }

// lineFeed reports whether the token is a line feed: LF, VT, FF, IND.
func (s *Screen) lineFeed() bool {
	t := &s.tok
	switch t.kind {
	case tokControl:
		return t.ctrl == '\n' || t.ctrl == '\v' || t.ctrl == '\f' || t.ctrl == 0x84
	case tokESC:
		return t.cmd == 'D'
	}
	return false
}

// inputBox returns the rows of e that are the program's input box
// (screenmodel.Layout.InputBox), with the cursor on row cursor.
func (s *Screen) inputBox(e *vt.Emulator, cursor int) (top, bottom int, ok bool) {
	if !s.layout.HasInputBox() {
		return 0, 0, false
	}
	return s.layout.InputBox(s.mainRows(e), cursor)
}

// mainRows returns the rows of e as text, in the scratch boxRows.
func (s *Screen) mainRows(e *vt.Emulator) []string {
	rows := s.boxRows[:0]
	var b []byte
	for y := range s.rows {
		b = appendText(b[:0], e.Line(y), s.cols)
		rows = append(rows, string(b))
	}
	s.boxRows = rows
	return rows
}
