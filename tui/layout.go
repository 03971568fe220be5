package tui

import "slices"

// rect is a rectangle of cells; x and y are 0-based from the top left of
// the window.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

func (r rect) empty() bool { return r.w <= 0 || r.h <= 0 }

// cell is one pane of the grid.
type cell struct {
	name string
	r    rect
}

// arrangement is how the panes share the main area.
type arrangement int

const (
	// arrangeGrid: every pane the same size, in the columns that give
	// each the most room.
	arrangeGrid arrangement = iota
	// arrangeMain: the selected pane large on the left, the others
	// stacked on the right.
	arrangeMain
	// arrangeOne: the selected pane alone.
	arrangeOne
	arrangements
)

var arrangementNames = [...]string{"grid", "main + stack", "one pane"}

func (a arrangement) String() string { return arrangementNames[a] }

// layoutOpts is the UI state a layout depends on besides the size.
type layoutOpts struct {
	names    []string
	selected string
	zoomed   bool // the selected pane has the whole window
	panel    bool // a panel is open under the panes
	game     bool // the game board shows under the agent list
	hideList bool // the person hid the agent list
	arrange  arrangement
}

// summaryBelow is the window width under which the agent list gives way to
// a one-line summary: the panes need the columns more.
const summaryBelow = 70

// layout is where everything goes for one window size and UI state.
type layout struct {
	w, h    int
	summary rect     // the one-line agent summary, when the list is not shown
	agents  rect     // the agent list (left)
	game    rect     // the game board, under the agent list; empty when hidden
	panes   rect     // the area the pane grid fills
	rows    [][]cell // the panes, in rows of the grid (one pane a row otherwise)
	// The grid shows the panes that fit (minPaneWidth × minPaneRows):
	// perPage of them, on page page of pages (0-based), the one with the
	// selected agent. One page holds them all when they fit.
	page, pages, perPage int
	panel                rect // inbox, tasks or log; empty when closed
	status               int  // row of the status line
	help                 int  // row of the help line
}

// Minimum window size the UI draws in.
const (
	minWidth  = 40
	minHeight = 10
)

// minPaneHeight is the least height, borders included, a pane keeps when
// a panel opens before the grid takes other columns.
const minPaneHeight = 5

// The least size of a pane in the grid and the stack, borders included:
// 20 columns and 4 rows of terminal. Panes that would be smaller go to
// another page of the grid, as tmux's windows hold the panes one window
// has no room for.
const (
	minPaneWidth = 22
	minPaneRows  = 6
)

// gameBoxHeight is the height of the game board box.
const gameBoxHeight = 13

// sidebarWidth is the width of the agent list for a window width.
func sidebarWidth(w int) int {
	return min(max(w/5, 22), 34)
}

// computeLayout lays out the window: the agent list on the left (or a
// one-line summary over the panes when it is hidden or the window is
// narrow), the panes to its right as arranged (or the zoomed pane in place
// of all), an open panel under them, and the status and help lines at the
// bottom.
func computeLayout(w, h int, o layoutOpts) layout {
	l := layout{w: w, h: h, status: h - 2, help: h - 1}
	if w < minWidth || h < minHeight {
		return l
	}
	mainH := h - 2
	sw := sidebarWidth(w)
	game := o.game
	zoomed := ""
	if o.zoomed {
		zoomed = o.selected
	}
	if zoomed != "" || o.hideList || w < summaryBelow {
		sw, game = 0, false // the panes have the width
	}
	side := rect{0, 0, sw, mainH}
	if game && mainH-gameBoxHeight >= 6 {
		l.game = rect{0, mainH - gameBoxHeight, sw, gameBoxHeight}
		side.h = mainH - gameBoxHeight
	}
	main := rect{sw, 0, w - sw, mainH}
	if sw > 0 {
		l.agents = side
	} else if zoomed == "" {
		l.summary = rect{0, 0, w, 1}
		main.y, main.h = 1, mainH-1
	}
	full := main
	if o.panel {
		ph := min(max(main.h*2/5, 8), main.h-5)
		l.panel = rect{main.x, main.y + main.h - ph, main.w, ph}
		main.h -= ph
	}
	l.panes = main
	names := o.names
	switch {
	case zoomed != "":
		l.rows = [][]cell{{{name: zoomed, r: main}}}
		return l
	case len(names) == 0:
		return l
	case o.arrange == arrangeOne || o.arrange == arrangeMain && len(names) == 1:
		l.rows = [][]cell{{{name: selectedOr(o.selected, names), r: main}}}
		return l
	case o.arrange == arrangeMain:
		l.rows = mainAndStack(main, selectedOr(o.selected, names), names)
		return l
	}
	maxCols, maxRows := max(main.w/minPaneWidth, 1), max(main.h/minPaneRows, 1)
	l.perPage = maxCols * maxRows
	l.pages = (len(names) + l.perPage - 1) / l.perPage
	if i := slices.Index(names, o.selected); i > 0 {
		l.page = i / l.perPage
	}
	names = names[l.page*l.perPage : min((l.page+1)*l.perPage, len(names))]
	// The columns are chosen for the whole height, so that opening a
	// panel only makes the panes shorter: a terminal that gets narrower
	// cuts its lines, one that gets shorter keeps them in its scrollback.
	n := len(names)
	cols := gridColumns(full, n, maxCols, maxRows)
	if main.h/((n+cols-1)/cols) < minPaneHeight {
		cols = gridColumns(main, n, maxCols, maxRows) // too short to read: rather narrower
	}
	l.rows = tile(main, names, cols)
	return l
}

// selectedOr is the selected agent, else the first.
func selectedOr(selected string, names []string) string {
	for _, n := range names {
		if n == selected {
			return n
		}
	}
	return names[0]
}

// mainAndStack gives the chosen pane three fifths of the width on the left
// and stacks the others, one a row, on the right: those that come after it
// in the list, as many as fit.
func mainAndStack(area rect, chosen string, names []string) [][]cell {
	mw := area.w * 3 / 5
	rows := [][]cell{{{name: chosen, r: rect{area.x, area.y, mw, area.h}}}}
	var rest []string
	at := slices.Index(names, chosen)
	for k := 1; k < len(names) && len(rest) < max(area.h/minPaneRows, 1); k++ {
		rest = append(rest, names[(at+k)%len(names)])
	}
	y := area.y
	for i, n := range rest {
		h := split(area.h, len(rest), i)
		rows = append(rows, []cell{{name: n, r: rect{area.x + mw, y, area.w - mw, h}}})
		y += h
	}
	return rows
}

// gridColumns is the number of columns, at most maxCols, in at most
// maxRows rows, that gives n panes in area the most room, counting a row as
// two columns because a terminal cell is about twice as tall as it is wide.
func gridColumns(area rect, n, maxCols, maxRows int) int {
	bestCols, bestScore := 1, -1
	for c := max((n+maxRows-1)/maxRows, 1); c <= min(n, maxCols); c++ {
		r := (n + c - 1) / c
		score := min(area.w/c, 2*(area.h/r))
		if score > bestScore {
			bestCols, bestScore = c, score
		}
	}
	return bestCols
}

// tile splits area into a grid of cols columns for the panes. A short last
// row is stretched to the full width.
func tile(area rect, names []string, cols int) [][]cell {
	n := len(names)
	if n == 0 {
		return nil
	}
	nrows := (n + cols - 1) / cols
	var rows [][]cell
	y := area.y
	for i := range nrows {
		h := split(area.h, nrows, i)
		start := i * cols
		end := min(start+cols, n)
		k := end - start
		x := area.x
		var row []cell
		for j := range k {
			w := split(area.w, k, j)
			row = append(row, cell{name: names[start+j], r: rect{x, y, w, h}})
			x += w
		}
		rows = append(rows, row)
		y += h
	}
	return rows
}

// split returns the size of part i when total is divided into n parts,
// the remainder going to the first parts.
func split(total, n, i int) int {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// cellOf returns the pane at window position (x, y).
func (l layout) cellOf(x, y int) (cell, bool) {
	for _, row := range l.rows {
		for _, c := range row {
			if c.r.contains(x, y) {
				return c, true
			}
		}
	}
	return cell{}, false
}

// cellNamed returns the pane of an agent, if it is laid out.
func (l layout) cellNamed(name string) (cell, bool) {
	for _, row := range l.rows {
		for _, c := range row {
			if c.name == name {
				return c, true
			}
		}
	}
	return cell{}, false
}

// inner is a pane's terminal size: its rectangle minus the border.
func inner(r rect) (rows, cols int) {
	return max(r.h-2, 1), max(r.w-2, 1)
}
