package spawner

// histLine is one row that left the top of the screen, kept for the UI's
// scrollback. Rows are stored as text rather than as cells: a cell takes
// over a hundred bytes, a row's text about as many as it has characters.
// A styled row keeps its styles as runs over its text (see palette), or,
// when runs cannot describe it, rendered.
type histLine struct {
	text    string     // plain
	runs    []styleRun // where its styles change; nil for a plain row
	shown   uint32     // how many bytes of text the styled form shows (rowStyles)
	styled  string     // with SGR styles, for a row runs cannot describe
	wrapped bool       // the row continues on the next one
	pad     bool       // wrapped, and its last cell is padding
	cols    uint16     // the screen width it left
	end     uint16     // where its content ends (rowEnd)
}

// history is a ring of at most max rows, oldest first.
type history struct {
	rows  []histLine
	start int
	max   int
	pal   palette // the styles of the rows' runs
	// runBlock is where the newest rows' runs are kept: a block of many
	// rows' runs, allocated at once rather than a slice per row (a busy
	// pane keeps thousands of rows a second).
	runBlock []styleRun
}

// runBlockSize is how many runs a block holds.
const runBlockSize = 2048

// keepRuns returns a copy of runs for a row of the history, in the current
// block. The copy's capacity ends with it: an append to it cannot reach
// the next row's runs.
func (h *history) keepRuns(runs []styleRun) []styleRun {
	if len(h.runBlock)+len(runs) > cap(h.runBlock) {
		h.runBlock = make([]styleRun, 0, max(runBlockSize, len(runs)))
	}
	at := len(h.runBlock)
	h.runBlock = append(h.runBlock, runs...)
	return h.runBlock[at:len(h.runBlock):len(h.runBlock)]
}

// appendStyled appends l, a row of h, with its SGR styles: the text alone
// for a plain row.
func (h *history) appendStyled(b []byte, l *histLine) []byte {
	switch {
	case l.runs != nil:
		return appendRuns(b, l.text, int(l.shown), l.runs, &h.pal)
	case l.styled != "":
		return append(b, l.styled...)
	}
	return append(b, l.text...)
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

// clear forgets the rows; the palette stays, for rows pushed again.
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
