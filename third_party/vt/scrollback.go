package vt

import (
	"slices"

	uv "github.com/charmbracelet/ultraviolet"
)

// DefaultScrollbackSize is the default maximum number of lines in the scrollback buffer.
const DefaultScrollbackSize = 10000

// Scrollback represents a scrollback buffer that stores lines scrolled off the screen.
type Scrollback struct {
	lines    []uv.Line
	maxLines int
}

// NewScrollback creates a new scrollback buffer with the given maximum number of lines.
func NewScrollback(maxLines int) *Scrollback {
	if maxLines <= 0 {
		maxLines = DefaultScrollbackSize
	}
	return &Scrollback{
		lines:    make([]uv.Line, 0, min(maxLines, 1000)), // Pre-allocate reasonable capacity
		maxLines: maxLines,
	}
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
	// swarm patch 2: after Clear, the slot past the end still holds the
	// storage of a line pushed before; reuse it instead of allocating. A
	// reader that harvests and clears the scrollback after every write
	// then pushes without allocating. Lines returned by Lines or Line are
	// valid until the next Clear.
	var cloned uv.Line
	if n := len(s.lines); n < cap(s.lines) {
		if old := s.lines[: n+1 : n+1][n]; cap(old) > lastNonEmpty {
			cloned = append(old[:0], line[:lastNonEmpty+1]...)
		}
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
// as Push trims them, and *row gets storage of the same width from a slot
// past the end (a line pushed before the last Clear) or a new one, with
// its cells left as they were: the caller blanks it.
func (s *Scrollback) takeRow(row *uv.Line) {
	line := *row
	width := len(line)
	lastNonEmpty := lastNonEmptyCell(line)
	var spare uv.Line
	if n := len(s.lines); n < cap(s.lines) {
		if old := s.lines[: n+1 : n+1][n]; cap(old) >= width {
			spare = old[:width]
		}
	}
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
// reused by later pushes (swarm patch 2), so lines read before Clear must
// not be kept.
func (s *Scrollback) Clear() {
	if s == nil {
		return
	}
	s.lines = s.lines[:0]
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
