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
	rows   int  // rows it takes at the new width
	curRow int  // the cursor's row and column in it at the new width
	curCol int
	// curWrap: the cursor is past the last column of its row, which the
	// text fills: the next character goes to the next row (a terminal's
	// pending wrap).
	curWrap bool
}

// reflow lays the main screen out again at rows × cols. It returns false,
// changing nothing, when text under the cursor would have to leave or a
// line is carried in at the top of a scroll region; freed is how many rows
// fewer than before the lines take (blank at the bottom, for pullBack). The emulator must be
// between sequences (quiet). A scroll region ends with the
// resize, as on a terminal. With a program on the alternate screen, the
// main screen under it is reflowed. A line whose start left at the top
// already is laid out whole: its rows come back from the scrollback into
// it (when they give back its text), so no row keeps the old width.
func (s *Screen) reflow(rows, cols int) (freed int, ok bool) {
	if s.lines.carryOn && s.lines.top != 0 {
		return 0, false // a line carried in at the top of a scroll region
	}
	lines := s.flowLines()
	// A line whose start left at the top is laid out whole: its rows
	// come back from the scrollback into it.
	back := 0
	if s.lines.carryOn && len(lines) > 0 {
		if cells, k := carriedCells(&s.hist, s.cols, s.lines.carry); k > 0 {
			l := &lines[0]
			if l.cursor >= 0 {
				for _, c := range cells {
					l.cursor += max(c.Width, 1)
				}
			}
			l.cells, back = append(cells, l.cells...), k
		}
	}
	oldRows := s.rows
	plan, ok := planReflow(lines, rows, cols)
	if !ok {
		return 0, false // text under the cursor would have to leave
	}
	keep, drop, split := plan.keep, plan.drop, plan.split
	if back > 0 {
		// The line is whole on the screen again, with the state it had.
		s.hist.rows.truncate(back)
		s.pullable = max(s.pullable-back, 0)
		s.lines.base -= int64(back)
		s.lines.shadow[lines[0].start] = s.lines.carryState
		s.lines.dropCarry()
	}
	for i := len(lines) - 1; i >= keep; i-- {
		st := s.lines.state(lines[i].start)
		s.lines.final(st, "", s.lines.base+int64(lines[i].start), s) // a held-back blank line
		if st.rec != "" {
			// Its text was erased: if it turns up elsewhere, it moved.
			s.lines.ghosts = append(s.lines.ghosts, ghost{text: st.rec, at: s.lines.processed, n: s.lines.base + int64(lines[i].start)})
		}
	}
	lines = lines[:keep]

	// The lines that leave at the top go into the scrollback, committed
	// as lines that scroll off are.
	pos := s.main.CursorPosition()
	n := s.lines.base
	// (The states are the screen's own: committing one line can change
	// another's record, as when lines scroll off.)
	for i, l := range lines[:drop] {
		text := string(capLine(appendCellsText(nil, l.cells)))
		st, ln := s.lines.state(l.start), n
		carried := i == 0 && s.lines.carryOn // its start left already
		if carried {
			text = string(capLine(appendCellsText(append([]byte(nil), s.lines.carry...), l.cells)))
			ln = s.lines.carryN
		}
		s.lines.final(st, text, ln, s)
		if carried {
			s.lines.dropCarry()
		}
		n += int64(l.rows)
	}
	for i := drop; i < len(lines); i++ {
		lines[i].st = *s.lines.state(lines[i].start)
	}
	s.rows, s.cols = rows, cols
	for _, l := range lines[:drop] {
		for _, row := range l.rowsAt(cols) {
			s.keepRow(row)
		}
		s.lines.base += int64(l.rows)
	}
	if split > 0 {
		l := lines[drop]
		if !s.lines.carryOn {
			s.lines.carryOn, s.lines.carryN, s.lines.carryState, s.lines.carry = true, n, l.st, s.lines.carry[:0]
		}
		for _, row := range l.rowsAt(cols)[:split] {
			s.lines.carry = capLine(appendText(s.lines.carry, row, cols))
			s.keepRow(row)
		}
		s.lines.base += int64(split)
	}

	s.main.Resize(cols, rows)
	s.main.SetScrollbackSize(queueRows(rows))
	s.lines.resizedTo(rows, cols, s)
	s.wideEdge = false
	for y := range rows {
		for x := range cols {
			s.main.SetCell(x, y, nil)
		}
	}
	clear(s.lines.shadow)
	s.lines.zone = -1
	y := 0
	curY, curX, curWrap := pos.Y, pos.X, false
	for k, l := range lines[drop:] {
		s.lines.shadow[y] = l.st
		if l.zone {
			s.lines.zone = y
		}
		all := l.rowsAt(cols)
		if k == 0 && split > 0 {
			all, l.rows, l.curRow = all[split:], l.rows-split, l.curRow-split
		}
		for i, row := range all {
			for x := 0; x < len(row); {
				c := &row[x]
				if c.Width == 0 && c.Content == "" {
					x++
					continue
				}
				s.main.SetCell(x, y+i, c)
				x += max(c.Width, 1)
			}
			if i < l.rows-1 { // the mark goes in after SetCell copied the cell
				wrapped, pad := wrapOf(&row[cols-1])
				if c := s.main.CellAt(cols-1, y+i); c != nil && wrapped {
					setWrap(c, pad)
				}
			}
		}
		if l.cursor >= 0 {
			curY, curX, curWrap = y+l.curRow, l.curCol, l.curWrap
		}
		y += l.rows
	}
	freed = max(min(oldRows, rows)-y, 0)
	if curWrap {
		s.pendWrap(curY)
		return freed, true
	}
	_, _ = s.main.Write([]byte("\x1b[" + strconv.Itoa(curY+1) + ";" + strconv.Itoa(curX+1) + "H"))
	return freed, true
}

// reflowPlan is how a screen's lines fit its new height: the first keep
// lines stay, the first drop of them leave at the top, and then the first
// split rows of the next, lines[drop]; cur is the cursor's line.
type reflowPlan struct {
	cur, keep, drop, split int
}

// planReflow lays lines out at cols (flowLine.layout) and works out which
// rows leave so that the rest fit in rows. As in tmux, rows leave at the
// top, whole lines first and then the first rows of the next line, so
// that the rows under the cursor stay as they were (a footer stays at the
// bottom); blank lines under the cursor give way only when the rows above
// it are not enough. It reads and changes nothing else: the screen's state
// is for reflow to change by the plan. ok is false when text under the
// cursor would have to leave.
func planReflow(lines []flowLine, rows, cols int) (p reflowPlan, ok bool) {
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
	for p.keep > p.cur+1 && total-rows > above && len(lines[p.keep-1].cells) == 0 {
		p.keep--
		total -= lines[p.keep].rows
	}
	for p.drop < p.cur && total-lines[p.drop].rows >= rows {
		total -= lines[p.drop].rows
		p.drop++
	}
	if total > rows {
		p.split = total - rows
		if p.drop == p.cur && (p.keep != p.cur+1 || p.split > lines[p.cur].curRow) {
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
			break // the line's first row
		}
	}
	if k == 0 || (total-k > 0 && hist.at(total-k-1).wrapped) {
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
	// x/vt does not wait to wrap after a wide character in the last
	// column: the screen does (feedWide).
	s.wideEdge = cell.Width >= 2
}

// flowLines takes the main screen apart into its logical lines.
func (s *Screen) flowLines() []flowLine {
	pos := s.main.CursorPosition()
	var lines []flowLine
	for r := 0; r < s.rows; {
		start, end := s.lines.span(r)
		l := flowLine{st: *s.lines.state(start), cursor: -1, start: start}
		off := 0 // columns before this row in the line
		for y := start; y <= end; y++ {
			limit := s.cols
			if y < end {
				if _, pad := wrapOf(s.main.CellAt(s.cols-1, y)); pad {
					limit--
				}
			}
			if y == pos.Y {
				l.cursor = off + pos.X
				if s.main.PendingWrap() || s.wideEdge {
					l.cursor++ // after the row's last character, waiting to wrap
				}
			}
			l.cells = appendCells(l.cells, s.main.Line(y), limit)
			off += limit
		}
		// Trailing blanks are not content (the cursor keeps its column).
		l.cells = trimBlanks(l.cells)
		l.zone = s.lines.zone >= start && s.lines.zone <= end
		lines = append(lines, l)
		r = end + 1
	}
	return lines
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

// fit drops the blanks at the end of the line that would not fit on the
// row its text ends on: a line's text ends at its last character, and
// blanks (even coloured ones) wrapping on to another row would make them
// part of it.
func (l *flowLine) fit(cols int) {
	end := len(l.cells)
	for end > 0 && (l.cells[end-1].Content == " " || l.cells[end-1].Content == "") {
		end--
	}
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

// reflowHistory lays the scrollback out again at width cols: the rows of
// each line the terminal wrapped are joined and wrapped anew. Rows are kept
// rendered, so a scratch emulator turns each line back into cells; a line
// whose rows do not give back their text, or that is too long, keeps its
// rows as they were. The rows are read and written one line at a time, so
// that a full scrollback is never unpacked whole (every pane is rewrapped
// when a UI attaches).
func (s *Screen) reflowHistory(cols int) {
	n := s.hist.len()
	if n == 0 || s.hist.max <= 0 {
		return
	}
	old := s.hist
	s.hist = history{max: old.max, pal: old.pal} // the rows' runs number styles as old's
	// The rows a taller screen may take back are those of the lines that
	// start in the pullable rows, wrapped anew.
	pullFrom, pushed, mark := n-min(s.pullable, n), 0, -1
	push := func(h histLine) {
		s.hist.push(h)
		pushed++
	}
	pushRows := func(rows []histLine) {
		for _, h := range rows {
			push(h)
		}
	}
	var scratch *vt.Emulator
	defer func() {
		if scratch != nil {
			scratch.Close()
		}
	}()
	// A full scrollback is ten thousand rows: what each line needs (its
	// cells, a row at the new width, its text) is kept from one line to
	// the next rather than allocated for each.
	var (
		buf  reflowBuffers
		fl   flowLine
		text []byte
		line []histLine // the rows of the line being read
		long bool       // the line is too long to reflow: its rows go as they are
	)
	reflow := func() {
		width := int(line[0].cols)
		// A line whose last row is wrapped goes on on the screen (its start
		// scrolled off): it stays as it is, to join its rest again.
		if width == cols || width == 0 || line[len(line)-1].wrapped {
			pushRows(line)
			return
		}
		if scratch == nil {
			scratch = vt.NewEmulator(width, len(line))
		} else {
			scratch.Resize(width, len(line))
		}
		var ok bool
		if fl, ok = historyLine(scratch, line, width, &s.hist, &buf); !ok {
			pushRows(line)
			return
		}
		fl.cells = trimBlanks(fl.cells)
		buf.cells = fl.cells
		fl.layout(cols)
		fl.eachRow(cols, &buf.row, func(row uv.Line) {
			text = appendText(text[:0], row, cols)
			push(s.histRow(row, string(text), cols))
		})
	}
	var prev *histLine
	for i := range n {
		h := old.at(i)
		if prev == nil || !prev.wrapped || prev.cols != h.cols { // h starts a line
			if len(line) > 0 {
				reflow()
			}
			if i >= pullFrom && mark < 0 {
				mark = pushed
			}
			line, long = line[:0], false
		}
		prev = h
		switch {
		case long:
			push(*h)
		case len(line) == maxReflowRows:
			pushRows(line)
			push(*h)
			line, long = line[:0], true
		default:
			line = append(line, *h)
		}
	}
	if len(line) > 0 {
		reflow()
	}
	s.pullable = 0
	if mark >= 0 {
		s.pullable = min(pushed-mark, s.hist.len())
	}
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
