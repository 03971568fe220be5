package spawner

// histLine is one row that left the top of the screen, kept for the UI's
// scrollback. Rows are stored rendered rather than as cells: a cell takes
// over a hundred bytes, a rendered row about as many as it has characters.
type histLine struct {
	text    string // plain
	styled  string // with SGR styles; empty when it would equal text
	wrapped bool   // the row continues on the next one
	pad     bool   // wrapped, and its last cell is padding
	cols    uint16 // the screen width it left
	end     uint16 // where its content ends (rowEnd)
}

// history is a ring of at most max rows, oldest first.
type history struct {
	rows  []histLine
	start int
	max   int
}

func (h *history) len() int { return len(h.rows) }

func (h *history) push(l histLine) {
	if h.max <= 0 {
		return
	}
	if len(h.rows) < h.max {
		h.rows = append(h.rows, l)
		return
	}
	h.rows[h.start] = l
	h.start = (h.start + 1) % h.max
}

// at returns row i, 0 being the oldest.
func (h *history) at(i int) *histLine {
	return &h.rows[(h.start+i)%len(h.rows)]
}

func (h *history) clear() {
	h.rows = nil
	h.start = 0
}

// popNewest removes the newest n rows and returns them, oldest first.
func (h *history) popNewest(n int) []histLine {
	n = min(n, len(h.rows))
	if n == 0 {
		return nil
	}
	if h.start != 0 { // put the ring in order first
		h.rows = append(h.rows[h.start:], h.rows[:h.start]...)
		h.start = 0
	}
	out := append([]histLine(nil), h.rows[len(h.rows)-n:]...)
	h.rows = h.rows[:len(h.rows)-n]
	return out
}

// all returns the rows, oldest first.
func (h *history) all() []histLine {
	out := make([]histLine, 0, len(h.rows))
	for i := range h.len() {
		out = append(out, *h.at(i))
	}
	return out
}
