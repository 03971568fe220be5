package spawner

import (
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
)

// Reflow. When the width changes, the main screen's lines are laid out
// again at the new width, as tmux and most terminals do: a line the
// terminal wrapped is joined and wrapped anew, so a narrower screen cuts
// nothing and a wider one joins rows back. Lines keep their state (what was
// committed for them, whether they are held back), so reflowing commits
// nothing by itself; lines that no longer fit above the cursor leave at the
// top as if they scrolled off, and blank lines under the cursor give way
// only when the cursor's line would have to leave otherwise. The
// scrollback is laid out again the same way (reflowHistory). As in tmux,
// the screen is the bottom of the text laid out at the new width: rows a
// wider screen frees are taken back from the scrollback (Screen.pullBack),
// as rows a taller one adds are, each line recorded as committed, so that
// it is not committed again when it leaves (FuzzReflow found a relay line
// committed twice without the record).

// flowLine is one logical line of the screen being reflowed.
type flowLine struct {
	cells  []uv.Cell // in order, wide characters once, wrap marks removed
	st     rowState
	start  int  // its first row before the reflow
	cursor int  // the cursor's column offset in the line; -1: not here
	zone   bool // the redraw zone begins in this line
	at     int  // its first row after the reflow, when it stays
	rows   int  // rows it takes at the new width
	curRow int  // the cursor's row and column in it at the new width
	curCol int
	// curWrap: the cursor is past the last column of its row, which the
	// text fills: the next character goes to the next row (a terminal's
	// pending wrap).
	curWrap bool
	// rowStart: the cursor is at the first column of the line's last row
	// (layout).
	rowStart bool
}

// reflow lays the main screen out again at rows × cols. It returns false,
// changing nothing, when text under the cursor would have to leave or a
// line is carried in at the top of a scroll region; freed is how many rows
// fewer than before the lines take (blank at the bottom, for pullBack). The
// emulator must be between sequences (quiet). A scroll region ends with the
// resize, as on a terminal. With a program on the alternate screen, the
// main screen under it is reflowed. A line whose start left at the top
// already is laid out whole: its rows come back from the scrollback into
// it (when they give back its text), so no row keeps the old width.
//
// The rules are the screenFlow's (which lines stay, where they go) and
// the line committer's (what leaves is committed, what stays keeps its
// state: mainLines.reflowed and placed); this is the order they apply in.
func (s *Screen) reflow(rows, cols int) (freed int, ok bool) {
	carry, carried, atTop := s.lines.carried()
	if carried && !atTop {
		return 0, false // a line carried in at the top of a scroll region
	}
	f := screenFlow{lines: s.lines.flowLines()}
	// A line whose start left at the top is laid out whole: its rows
	// come back from the scrollback into it.
	if carried && len(f.lines) > 0 {
		if cells, k := carriedCells(&s.hist, s.cols, carry); k > 0 {
			f.takeBack(cells, k)
		}
	}
	oldRows := s.rows
	if !f.fit(rows, cols, oldRows) {
		return 0, false // text under the cursor would have to leave
	}
	if f.back > 0 {
		s.hist.truncate(f.back)
		s.pullable = max(s.pullable-f.back, 0)
		s.own = max(s.own-f.back, 0)
		s.dropLeft(f.back)
	}
	pos := s.main.CursorPosition()
	// The new size before reflowed: the rows of the lines that leave go
	// to the scrollback at the new width (keep packs rows s.cols wide).
	s.rows, s.cols = rows, cols
	s.lines.reflowed(&f, cols, s)
	s.main.Resize(cols, rows)
	s.main.SetScrollbackSize(queueRows(rows))
	s.lines.resizedTo(rows, cols, s)
	s.lines.placed(&f, oldRows)
	curY, curX, curWrap := f.lay(s.main, rows, cols, pos)
	freed = max(min(oldRows, rows)-f.height, 0)
	if curWrap {
		s.pendWrap(curY)
		return freed, true
	}
	_, _ = s.main.Write([]byte("\x1b[" + strconv.Itoa(curY+1) + ";" + strconv.Itoa(curX+1) + "H"))
	return freed, true
}

// screenFlow is a reflow of the main screen: its logical lines as
// mainLines.flowLines took them apart, how they fit the new size (plan),
// how many rows of the line carried at the top came back from the
// scrollback into its first line (back), and how many rows the lines that
// stay take (height). It reads nothing of the screen:
// the line committer follows it (mainLines.reflowed, placed), and lay
// draws it into the resized emulator.
type screenFlow struct {
	lines  []flowLine
	plan   reflowPlan
	back   int
	height int
	base   int64 // mainLines.base before the reflow: the lines' positions are base + start
	// processed is mainLines.processed before the reflow: a line found
	// moved as it left (mainLines.reflowed) has its positions after it.
	processed int64
}

// position returns where position p (a Line.N before the reflow, of a
// screen oldRows high) is after it, newBase being mainLines.base then: the
// first row of the line on p's row. A line that left at the top is above
// the screen, a blank line that gave way under it below it (rows: the new
// height). A line above the screen before, in the scrollback, which the
// reflow does not lay out anew, is where it was; one under the screen is
// not known (ok false).
func (f *screenFlow) position(p, newBase int64, oldRows, rows int) (int64, bool) {
	r := p - f.base
	if r < 0 {
		return p, true
	}
	if r >= int64(oldRows) || len(f.lines) == 0 {
		return 0, false
	}
	k := 0 // the lines cover the rows in order, the first from row 0
	for k+1 < len(f.lines) && int64(f.lines[k+1].start) <= r {
		k++
	}
	switch {
	case k < f.plan.drop:
		// Where it left (mainLines.reflowed numbers the lines that leave
		// so): a taller screen brings it back there (pullBack).
		at := newBase - int64(f.plan.split)
		for _, l := range f.lines[k:f.plan.drop] {
			at -= int64(l.rows)
		}
		return at, true
	case k >= f.plan.keep:
		return newBase + int64(rows), true
	}
	return newBase + int64(f.lines[k].at), true
}

// takeBack puts cells, the k rows of the carried line that the
// scrollback gives back (carriedCells), in front of the first line.
func (f *screenFlow) takeBack(cells []uv.Cell, k int) {
	l := &f.lines[0]
	if l.cursor >= 0 {
		for _, c := range cells {
			l.cursor += max(c.Width, 1)
		}
	}
	l.cells, f.back = append(cells, l.cells...), k
}

// fit plans the lines, oldRows high, at rows × cols (planReflow) and works
// out the row each line that stays starts on (flowLine.at). It is false
// when text under the cursor would have to leave.
func (f *screenFlow) fit(rows, cols, oldRows int) bool {
	p, ok := planReflow(f.lines, rows, cols, oldRows)
	if !ok {
		return false
	}
	f.plan = p
	y := 0
	for k := p.drop; k < p.keep; k++ {
		l := &f.lines[k]
		l.at = y
		n := l.rows
		if k == p.drop {
			n -= p.split // its first rows left at the top
		}
		y += n
	}
	f.height = y
	return true
}

// lay draws the lines that stay into em, resized to rows × cols, and
// returns where the cursor goes: row, column, and whether it waits to
// wrap there. pos is where it was before.
func (f *screenFlow) lay(em *vt.Emulator, rows, cols int, pos uv.Position) (curY, curX int, curWrap bool) {
	for y := range rows {
		for x := range cols {
			em.SetCell(x, y, nil)
		}
	}
	curY, curX = pos.Y, pos.X
	p := f.plan
	for k := p.drop; k < p.keep; k++ {
		l := f.lines[k]
		all := l.rowsAt(cols)
		if k == p.drop && p.split > 0 {
			all, l.rows, l.curRow = all[p.split:], l.rows-p.split, l.curRow-p.split
		}
		y := l.at
		for i, row := range all {
			for x := 0; x < len(row); {
				c := &row[x]
				if c.Width == 0 && c.Content == "" {
					x++
					continue
				}
				em.SetCell(x, y+i, c)
				x += max(c.Width, 1)
			}
			if i < l.rows-1 { // the mark goes in after SetCell copied the cell
				wrapped, pad := wrapOf(&row[cols-1])
				if c := em.CellAt(cols-1, y+i); c != nil && wrapped {
					setWrap(c, pad)
				}
			}
		}
		if l.cursor >= 0 {
			curY, curX, curWrap = y+l.curRow, l.curCol, l.curWrap
		}
	}
	return curY, curX, curWrap
}

// reflowPlan is how a screen's lines fit its new height: the first keep
// lines stay, the first drop of them leave at the top, and then the first
// split rows of the next, lines[drop]; cur is the cursor's line.
type reflowPlan struct {
	cur, keep, drop, split int
}

// planReflow lays lines out at cols (flowLine.layout) and works out which
// rows leave so that the rest fit in rows. As in tmux, a screen shorter
// than oldRows first gives up blank lines under the cursor, as many as it
// lost rows; then rows leave at the top, whole lines first and then the
// first rows of the next line, so that the rows under the cursor stay as
// they were (a footer stays at the bottom). More blank lines under the
// cursor give way only when the rows above it are not enough. It reads
// and changes nothing else: the screen's state is for reflow to change by
// the plan. ok is false when text under the cursor would have to leave.
func planReflow(lines []flowLine, rows, cols, oldRows int) (p reflowPlan, ok bool) {
	total := 0
	for i := range lines {
		lines[i].layout(cols)
		total += lines[i].rows
	}
	for i, l := range lines {
		if l.cursor >= 0 {
			p.cur = i
		}
	}
	above := lines[p.cur].curRow // the rows that can leave at the top
	for _, l := range lines[:p.cur] {
		above += l.rows
	}
	p.keep = len(lines)
	giveWay := func(more func() bool) {
		for p.keep > p.cur+1 && total > rows && len(lines[p.keep-1].cells) == 0 && more() {
			p.keep--
			total -= lines[p.keep].rows
		}
	}
	lost := oldRows - rows
	giveWay(func() bool { lost--; return lost >= 0 })
	giveWay(func() bool { return total-rows > above })
	for p.drop < p.cur && total-lines[p.drop].rows >= rows {
		total -= lines[p.drop].rows
		p.drop++
	}
	if total > rows {
		p.split = total - rows
		// The cursor's line may leave its first rows with lines under it
		// (blank rows that did not have to give way, a footer): only its
		// rows from the cursor's down have to stay.
		if p.drop == p.cur && p.split > lines[p.cur].curRow {
			return p, false
		}
	}
	return p, true
}

// carriedCells returns the cells of the rows of the carried line (whose
// start left at the top) that are in the scrollback, and how many rows
// they are; k is 0 when they cannot be had: rows of another width, too
// many, or rows that do not give back their text. hist is the scrollback,
// cols the width before the resize, carry the line's text that left.
func carriedCells(hist *history, cols int, carry []byte) (cells []uv.Cell, k int) {
	total := hist.len()
	for k < total && k < maxReflowRows {
		h := hist.at(total - k - 1)
		if !h.wrapped || int(h.cols) != cols {
			break
		}
		k++
		if total-k == 0 || !hist.at(total-k-1).wrapped {
			break // the line's first row, or the oldest
		}
	}
	if k == 0 || !hist.startsLine(total-k) {
		return nil, 0
	}
	rows := make([]histLine, k)
	for i := range rows {
		rows[i] = *hist.at(total - k + i)
	}
	scratch := vt.NewEmulator(cols, k)
	defer scratch.Close()
	var buf reflowBuffers
	fl, ok := historyLine(scratch, rows, cols, hist, &buf)
	// The rows are all of the line's start only if they give back its
	// text (the oldest may have left the scrollback).
	if !ok || strings.TrimRight(string(appendCellsText(nil, fl.cells)), " ") != strings.TrimRight(string(carry), " ") {
		return nil, 0
	}
	return fl.cells, k
}

// pendWrap leaves the cursor after the last character of row y, which
// fills the row, waiting to wrap as a terminal's cursor does once it has
// printed in the last column: that character is printed again there, and
// its cell put back as it was (a cursor move cannot set the wait).
func (s *Screen) pendWrap(y int) {
	x := s.cols - 1
	if c := s.main.CellAt(x, y); c != nil && c.Width == 0 && c.Content == "" && x > 0 {
		x-- // the second cell of a wide character
	}
	c := s.main.CellAt(x, y)
	if c == nil || c.Content == "" {
		_, _ = s.main.Write([]byte("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(s.cols) + "H"))
		return
	}
	cell := *c
	_, _ = s.main.Write([]byte("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(x+1) + "H" + cell.Content))
	s.main.SetCell(x, y, &cell)
}

// appendCells appends the cells of a row up to column limit, each wide
// character once and without a wrap mark.
func appendCells(dst []uv.Cell, row uv.Line, limit int) []uv.Cell {
	for x := 0; x < min(limit, len(row)); {
		c := &row[x]
		if c.Width == 0 && c.Content == "" {
			x++
			continue
		}
		cc := *c
		cc.Link = realLink(c)
		dst = append(dst, cc)
		x += max(c.Width, 1)
	}
	return dst
}

// trimBlanks drops the unstyled blanks at the end of a line's cells.
func trimBlanks(cells []uv.Cell) []uv.Cell {
	for len(cells) > 0 && plainBlank(&cells[len(cells)-1]) {
		cells = cells[:len(cells)-1]
	}
	return cells
}

func plainBlank(c *uv.Cell) bool {
	return blankText(c.Content) && zeroStyle(&c.Style) && noLink(&c.Link)
}

// trim drops the blanks at the end of the line: they are not content (the
// cursor keeps its column). Blanks before the cursor are: what the program
// prints next goes after them, in the middle of the line (the space after
// a word streamed before the next word, or the indent of a line begun;
// dropped, a resize in between ran the words together or took the indent
// in).
func (l *flowLine) trim() {
	full := l.cells
	l.cells = trimBlanks(full)
	if l.before() <= len(l.cells) {
		return
	}
	w := 0
	for _, c := range l.cells {
		w += max(c.Width, 1)
	}
	for n := len(l.cells); n < len(full) && w < l.cursor; n++ {
		w += max(full[n].Width, 1)
		l.cells = full[:n+1]
	}
}

// before returns how many of the line's cells are before its cursor (0:
// the cursor is not in it).
func (l *flowLine) before() int {
	if l.cursor < 0 {
		return 0
	}
	off := 0
	for i, c := range l.cells {
		if off >= l.cursor {
			return i
		}
		off += max(c.Width, 1)
	}
	return len(l.cells) + 1 // past them
}

// fit drops the blanks at the end of the line that would not fit on the
// row its text ends on: a line's text ends at its last character, and
// blanks (even coloured ones) wrapping on to another row would make them
// part of it. Blanks before the cursor are part of it (trim).
func (l *flowLine) fit(cols int) {
	end := len(l.cells)
	for end > 0 && (l.cells[end-1].Content == " " || l.cells[end-1].Content == "") {
		end--
	}
	end = max(end, min(l.before(), len(l.cells)))
	col := 0
	for i, c := range l.cells {
		w := max(c.Width, 1)
		if col+w > cols && col > 0 {
			if i >= end {
				l.cells = l.cells[:i]
				return
			}
			col = 0
		}
		col += w
	}
}

// layout works out the rows the line takes at width cols and where its
// cursor goes.
func (l *flowLine) layout(cols int) {
	l.fit(cols)
	row, col, off := 0, 0, 0
	l.curRow, l.curCol = -1, 0
	for _, c := range l.cells {
		w := max(c.Width, 1)
		if col+w > cols && col > 0 {
			row, col = row+1, 0
		}
		if l.cursor >= 0 && l.curRow < 0 && off >= l.cursor {
			l.curRow, l.curCol = row, col
		}
		col += w
		off += w
	}
	if l.cursor >= 0 && l.curRow < 0 {
		// Past the text: as many columns further as it was, on the last
		// row (blanks are not wrapped); right after text that fills the
		// row, waiting to wrap. Blanks printed after text that fills its
		// row go on at the start of the next (putting the cursor back on
		// that row would have it write over the text).
		if l.cursor > off && col >= cols {
			row, col = row+1, 0
		}
		l.curRow, l.curCol = row, min(col+l.cursor-off, cols-1)
		l.curWrap = l.cursor == off && col >= cols
	}
	if l.rowStart && l.curRow < row {
		// A carriage return put the cursor at the start of the line's
		// last row: the program writes from there as from the start of
		// the row its line ends on — most often the next line, after a
		// line feed. At the new width that place is inside the line (its
		// first row, narrower; past the start of a row, wider), where a
		// line feed lands on the line's own next row and the next line
		// is written into it. The cursor goes to the start of the line's
		// last row at the new width.
		l.curRow, l.curCol = row, 0
	}
	l.rows = row + 1
}

// rowsAt returns the line's rows at width cols, each cols cells wide, with
// wrap marks on every row but the last.
func (l *flowLine) rowsAt(cols int) []uv.Line {
	out := make([]uv.Line, 0, l.rows)
	row := blankRow(cols)
	col := 0
	for _, c := range l.cells {
		w := max(c.Width, 1)
		if col+w > cols && col > 0 { // (wider than the screen: cut)
			pad := col < cols
			setWrap(&row[cols-1], pad)
			out = append(out, row)
			row, col = blankRow(cols), 0
		}
		row[col] = c
		for j := 1; j < w && col+j < cols; j++ {
			row[col+j] = uv.Cell{}
		}
		col += w
	}
	if len(out)+1 < l.rows { // the cursor's blanks, on a row after the text
		setWrap(&row[cols-1], false)
		out = append(out, row)
		row = blankRow(cols)
	}
	return append(out, row)
}

func blankRow(cols int) uv.Line {
	row := make(uv.Line, cols)
	for i := range row {
		row[i] = uv.EmptyCell
	}
	return row
}

// appendCellsText appends the plain text of a line's cells, trailing
// blanks trimmed as appendText trims them.
func appendCellsText(b []byte, cells []uv.Cell) []byte {
	start := len(b)
	for i := range cells {
		c := cells[i].Content
		if c == "" {
			c = " "
		}
		b = append(b, c...)
	}
	for len(b) > start && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// maxReflowRows bounds the rows of one line the scrollback lays out again;
// a longer one (a minified file printed whole) keeps its rows.
const maxReflowRows = 256

// reflowHistory lays the scrollback out again at width cols (historyFlow).
func (s *Screen) reflowHistory(cols int) {
	s.hist, s.pullable, s.own = reflowHistory(&s.hist, s.pullable, s.own, cols, s.histRow)
	s.left = s.left[:0] // the rows are wrapped anew
}

// reflowHistory returns the scrollback old laid out again at width cols:
// the rows of each line the terminal wrapped are joined and wrapped anew.
// Rows are kept rendered, so a scratch emulator turns each line back into
// cells; a line whose rows do not give back their text, or that is too
// long, keeps its rows as they were. The rows are read and written one
// line at a time, so that a full scrollback is never unpacked whole (every
// pane is rewrapped when a UI attaches). pullable is how many of the
// newest rows a taller screen may take back, own how many this run of
// the program wrote (Screen.own); the answer has, in the place of each,
// the rows of the lines that start in them, wrapped anew. pack turns a
// row at the new width into a scrollback row (Screen.histRow).
func reflowHistory(old *history, pullable, own, cols int, pack rowPacker) (history, int, int) {
	n := old.len()
	if n == 0 || old.max <= 0 {
		return *old, pullable, own
	}
	f := historyFlow{
		cols: cols,
		// The rows' runs number styles as old's; the oldest line goes on
		// without its first rows as before (history.startsLine).
		hist: history{max: old.max, pal: old.pal, wrapped: !old.startsLine(0)},
		pack: pack,
	}
	defer func() {
		if f.scratch != nil {
			f.scratch.Close()
		}
	}()
	// The rows a taller screen may take back are those of the lines that
	// start in the pullable rows, wrapped anew; this run's, those of the
	// lines that start in its rows (a previous run's end with the
	// separator, a line of its own).
	pullFrom, mark := n-min(pullable, n), -1
	ownFrom, ownMark := n-min(own, n), -1
	long := false // the line is too long to reflow: its rows go as they are
	var prev *histLine
	for i := range n {
		h := old.at(i)
		if prev == nil || !prev.wrapped || prev.cols != h.cols { // h starts a line
			if len(f.line) > 0 {
				f.flow()
			}
			if i >= pullFrom && mark < 0 {
				mark = f.pushed
			}
			if i >= ownFrom && ownMark < 0 {
				ownMark = f.pushed
			}
			f.line, long = f.line[:0], false
		}
		prev = h
		switch {
		case long:
			f.push(*h)
		case len(f.line) == maxReflowRows:
			f.pushRows(f.line)
			f.push(*h)
			f.line, long = f.line[:0], true
		default:
			f.line = append(f.line, *h)
		}
	}
	if len(f.line) > 0 {
		f.flow()
	}
	pullable, own = 0, 0
	if mark >= 0 {
		pullable = min(f.pushed-mark, f.hist.len())
	}
	if ownMark >= 0 {
		own = min(f.pushed-ownMark, f.hist.len())
	}
	return f.hist, pullable, own
}

// rowPacker turns a row of cols cells and its plain text into a
// scrollback row, its styles numbered in pal.
type rowPacker func(l uv.Line, text string, cols int, pal *palette) histLine

// historyFlow is reflowHistory under way: the scrollback laid out again so
// far (hist), and what each line needs, kept from one line to the next
// rather than allocated for each (a full scrollback is ten thousand rows).
type historyFlow struct {
	cols    int
	hist    history
	pushed  int // rows pushed to hist
	pack    rowPacker
	scratch *vt.Emulator
	buf     reflowBuffers
	fl      flowLine
	text    []byte
	line    []histLine // the rows of the line being read
}

func (f *historyFlow) push(h histLine) {
	f.hist.push(h)
	f.pushed++
}

func (f *historyFlow) pushRows(rows []histLine) {
	for _, h := range rows {
		f.push(h)
	}
}

// flow pushes the line read (f.line) laid out again at the new width, or
// as it is.
func (f *historyFlow) flow() {
	line, cols := f.line, f.cols
	width := int(line[0].cols)
	// A line whose last row is wrapped goes on on the screen (its start
	// scrolled off): it stays as it is, to join its rest again.
	if width == cols || width == 0 || line[len(line)-1].wrapped {
		f.pushRows(line)
		return
	}
	if f.scratch == nil {
		f.scratch = vt.NewEmulator(width, len(line))
	} else {
		f.scratch.Resize(width, len(line))
	}
	var ok bool
	if f.fl, ok = historyLine(f.scratch, line, width, &f.hist, &f.buf); !ok {
		f.pushRows(line)
		return
	}
	f.fl.cells = trimBlanks(f.fl.cells)
	f.buf.cells = f.fl.cells
	f.fl.layout(cols)
	f.fl.eachRow(cols, &f.buf.row, func(row uv.Line) {
		f.text = appendText(f.text[:0], row, cols)
		f.push(f.pack(row, string(f.text), cols, &f.hist.pal))
	})
}

// reflowBuffers are reused from one scrollback line to the next.
type reflowBuffers struct {
	cells []uv.Cell // a line's cells
	row   uv.Line   // a row at the new width
	text  []byte    // a row's text, and the sequences that draw it
}

// eachRow calls fn with each of the line's rows at width cols, as rowsAt
// makes them, in *row, which it reuses: fn must not keep the row.
func (l *flowLine) eachRow(cols int, row *uv.Line, fn func(uv.Line)) {
	if len(*row) != cols {
		*row = blankRow(cols)
	} else {
		for i := range *row {
			(*row)[i] = uv.EmptyCell
		}
	}
	r := *row
	col := 0
	for _, c := range l.cells {
		w := max(c.Width, 1)
		if col+w > cols && col > 0 { // (wider than the screen: cut)
			setWrap(&r[cols-1], col < cols)
			fn(r)
			for i := range r {
				r[i] = uv.EmptyCell
			}
			col = 0
		}
		r[col] = c
		for j := 1; j < w && col+j < cols; j++ {
			r[col+j] = uv.Cell{}
		}
		col += w
	}
	fn(r)
}

// historyLine turns the rows of one scrollback line, width cells wide,
// back into the cells of a flowLine, using scratch (at least width ×
// len(rows)). ok is false when a row does not give back its text.
func historyLine(scratch *vt.Emulator, rows []histLine, width int, hist *history, buf *reflowBuffers) (flowLine, bool) {
	// Erased from the top (ED 0), not as a whole (ED 2): x/vt keeps what
	// ED 2 erases in its scrollback, a copy of every line rewrapped, which
	// took 100 MB more while a client's size rewrapped full scrollbacks.
	_, _ = scratch.Write([]byte("\x1b[0m\x1b[H\x1b[J"))
	fl := flowLine{cursor: -1, cells: buf.cells[:0]}
	for y, h := range rows {
		b := append(buf.text[:0], "\x1b["...)
		b = strconv.AppendInt(b, int64(y+1), 10)
		b = append(b, ";1H"...)
		b = hist.appendStyled(b, &h)
		b = append(b, "\x1b[0m"...)
		_, _ = scratch.Write(b)
		cells := scratch.Line(y)
		buf.text = appendText(b[:0], cells, width)
		// The text can come back with other cells (a modifier printed
		// alone after a blank joins it): then where the row ends differs.
		if rowEnd(cells, width) != int(h.end) || strings.TrimRight(string(buf.text), " ") != strings.TrimRight(h.text, " ") {
			return fl, false
		}
		limit := width
		if h.wrapped && h.pad {
			limit-- // the padding a wide character left
		}
		if !h.wrapped {
			limit = int(h.end)
		}
		fl.cells = appendCells(fl.cells, cells, limit)
	}
	return fl, true
}
