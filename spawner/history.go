package spawner

// histLine is one row that left the top of the screen, kept for the UI's
// scrollback. Rows are stored rendered rather than as cells: a cell takes
// over a hundred bytes, a rendered row about as many as it has characters.
type histLine struct {
	text    string // plain
	styled  string // with SGR styles; empty when it would equal text
	wrapped bool   // the row continues on the next one
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
