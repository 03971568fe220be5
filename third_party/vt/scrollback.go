package vt

import (
	"slices"
	"sync" // swarm patch 22: spareRows

	uv "github.com/charmbracelet/ultraviolet"
)

// DefaultScrollbackSize is the default maximum number of lines in the scrollback buffer.
const DefaultScrollbackSize = 10000

// Scrollback represents a scrollback buffer that stores lines scrolled off the screen.
type Scrollback struct {
	lines    []uv.Line
	maxLines int
	// spares is storage for rows taken from spareRows, given back by
	// Clear (swarm patch 22).
	spares []uv.Line
}

// spareRows holds the storage of rows that Clear let go, for any
// scrollback of the process to reuse (swarm patch 22). Each scrollback
// kept its own, as many rows as one write had pushed (a few dozen rows of
// ~110-byte cells), for the life of its emulator, idle or not; shared, the
// rows are those of the writes in progress at once, about one per core.
// At most maxSpareCells cells are kept: the rows of a burst past that
// are left to the garbage collector.
var spareRows struct {
	mu    sync.Mutex
	rows  []uv.Line
	cells int
}

// maxSpareCells bounds the cells spareRows keeps: about 3.5 MB, 400 rows
// of 80 columns.
const maxSpareCells = 32 << 10

// spareBatch is how many rows a scrollback takes from spareRows at once:
// one lock per batch, not per row.
const spareBatch = 32

// giveRows adds the storage of rows to spareRows, as far as the bound
// allows. The caller no longer uses the rows.
func giveRows(rows []uv.Line) {
	if len(rows) == 0 {
		return
	}
	spareRows.mu.Lock()
	for _, r := range rows {
		if r != nil && spareRows.cells+cap(r) <= maxSpareCells {
			spareRows.rows = append(spareRows.rows, r[:0])
			spareRows.cells += cap(r)
		}
	}
	spareRows.mu.Unlock()
}

// spare returns storage for a row of width cells: a row Clear let go, with
// the cells it held, or nil. A spare narrower than width (from a narrower
// emulator, or before a resize) is dropped.
func (s *Scrollback) spare(width int) uv.Line {
	for {
		if len(s.spares) == 0 {
			spareRows.mu.Lock()
			k := min(spareBatch, len(spareRows.rows))
			taken := spareRows.rows[len(spareRows.rows)-k:]
			for _, r := range taken {
				spareRows.cells -= cap(r)
			}
			s.spares = append(s.spares, taken...)
			clear(taken)
			spareRows.rows = spareRows.rows[:len(spareRows.rows)-k]
			spareRows.mu.Unlock()
			if k == 0 {
				return nil
			}
		}
		n := len(s.spares) - 1
		r := s.spares[n]
		s.spares[n] = nil
		s.spares = s.spares[:n]
		if cap(r) >= width {
			return r[:width]
		}
	}
}

// NewScrollback creates a new scrollback buffer with the given maximum number of lines.
func NewScrollback(maxLines int) *Scrollback {
	if maxLines <= 0 {
		maxLines = DefaultScrollbackSize
	}
	// swarm patch 23: no list of 1,000 lines made at the start (24 KB an
	// emulator, most of them never scrolled that far between two Clears):
	// it grows as lines come.
	return &Scrollback{maxLines: maxLines}
}

// Push adds a line to the scrollback buffer.
// If the buffer is full, the oldest line is removed.
func (s *Scrollback) Push(line uv.Line) {
	if s == nil || s.maxLines <= 0 {
		return
	}

	// Find last non-empty cell to trim trailing empty cells.
	// This helps with wrapping and window resizing.
	lastNonEmpty := lastNonEmptyCell(line) // swarm patch 7: blankCell, not two comparisons of whole cells

	// Copy the line content up to and including the last non-empty cell.
	// swarm patch 2 and 22: the storage of a line that Clear let go is
	// reused instead of allocating. A reader that harvests and clears the
	// scrollback after every write then pushes without allocating. Lines
	// returned by Lines or Line are valid until the next Clear.
	var cloned uv.Line
	if old := s.spare(lastNonEmpty + 1); old != nil {
		cloned = append(old[:0], line[:lastNonEmpty+1]...)
	}
	if cloned == nil {
		cloned = slices.Clone(line[:lastNonEmpty+1])
	}

	if len(s.lines) >= s.maxLines {
		// Remove oldest line and append new one
		s.lines = slices.Delete(s.lines, 0, 1)
	}
	s.lines = append(s.lines, cloned)
}

// lastNonEmptyCell is the index of line's last cell that is not blank, -1
// for none: what a pushed line is trimmed to (swarm patch 7: shared by Push
// and takeRow).
func lastNonEmptyCell(line uv.Line) int {
	for i := len(line) - 1; i >= 0; i-- {
		if !blankCell(&line[i]) {
			return i
		}
	}
	return -1
}

// blankCell says what c.IsZero() || c.Equal(&uv.EmptyCell) says, from the
// fields (swarm patch 7): the two comparisons of whole cells were a twentieth
// of swarm's CPU on narrow panes, whose rows end in many blanks.
func blankCell(c *uv.Cell) bool {
	st := &c.Style
	if st.Fg != nil || st.Bg != nil || st.UnderlineColor != nil || st.Underline != 0 || st.Attrs != 0 ||
		c.Link.URL != "" || c.Link.Params != "" {
		return false
	}
	return c.Width == 1 && c.Content == " " || c.Width == 0 && c.Content == ""
}

// takeRow adds *row to the scrollback without copying its cells
// (swarm patch 7): the scrollback keeps the row's storage, trailing blanks trimmed
// as Push trims them, and *row gets storage of the same width from a line
// some scrollback let go in Clear (swarm patch 22) or a new one, with its
// cells left as they were: the caller blanks it.
func (s *Scrollback) takeRow(row *uv.Line) {
	line := *row
	width := len(line)
	lastNonEmpty := lastNonEmptyCell(line)
	spare := s.spare(width)
	if spare == nil {
		spare = make(uv.Line, width)
	}
	if len(s.lines) >= s.maxLines {
		s.lines = slices.Delete(s.lines, 0, 1)
	}
	s.lines = append(s.lines, line[:lastNonEmpty+1])
	*row = spare
}

// PushN adds n lines from the buffer starting at line y to the scrollback.
func (s *Scrollback) PushN(buf *uv.RenderBuffer, y, n int) {
	if s == nil || buf == nil || n <= 0 {
		return
	}

	for i := range min(n, buf.Height()-y) {
		if line := buf.Line(y + i); line != nil {
			s.Push(line)
		}
	}
}

// Len returns the number of lines in the scrollback buffer.
func (s *Scrollback) Len() int {
	if s == nil {
		return 0
	}
	return len(s.lines)
}

// MaxLines returns the maximum number of lines the scrollback buffer can hold.
func (s *Scrollback) MaxLines() int {
	if s == nil {
		return 0
	}
	return s.maxLines
}

// SetMaxLines sets the maximum number of lines in the scrollback buffer.
// If the current number of lines exceeds the new maximum, oldest lines are removed.
func (s *Scrollback) SetMaxLines(maxLines int) {
	if s == nil || maxLines <= 0 {
		return
	}

	s.maxLines = maxLines
	if len(s.lines) > maxLines {
		// Remove oldest lines
		s.lines = s.lines[len(s.lines)-maxLines:]
	}
}

// Line returns the line at the given index.
// Index 0 is the oldest line, Len()-1 is the most recent.
// Returns nil if index is out of bounds.
func (s *Scrollback) Line(index int) uv.Line {
	if s == nil || index < 0 || index >= len(s.lines) {
		return nil
	}
	return s.lines[index]
}

// Lines returns all lines in the scrollback buffer.
// Index 0 is the oldest line.
func (s *Scrollback) Lines() []uv.Line {
	if s == nil {
		return nil
	}
	return s.lines
}

// Clear removes all lines from the scrollback buffer. Their storage is
// reused by later pushes (swarm patch 2), those of any scrollback of the
// process (swarm patch 22), so lines read before Clear must not be kept.
func (s *Scrollback) Clear() {
	if s == nil {
		return
	}
	giveRows(s.lines)
	giveRows(s.spares)
	clear(s.lines)
	clear(s.spares)
	s.lines = s.lines[:0]
	s.spares = s.spares[:0]
}

// CellAt returns the cell at the given position in the scrollback buffer.
// x is the column, y is the line index (0 = oldest).
// Returns nil if position is out of bounds.
func (s *Scrollback) CellAt(x, y int) *uv.Cell {
	line := s.Line(y)
	if line == nil || x < 0 || x >= len(line) {
		return nil
	}
	return &line[x]
}
