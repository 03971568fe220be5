package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/swarmapi"
)

// pane is the UI state of one agent's terminal pane: its rendered rows,
// its scroll position and search, and the size last pushed to the agent's
// terminal.
//
// Rows are rendered by a command (renderPane), never in Update or View:
// reading an agent's screen waits for its lock, which a busy agent's
// output holds, and one busy agent must not hold up the others or the
// keyboard. gen counts changes (screen, size, scroll); a render is asked
// for when the rows on show are older than gen and none is in flight.
type pane struct {
	name string

	// What is on show, and what it was rendered from.
	lines    []string   // rows, each exactly w cells
	cursor   *cursorPos // the agent's cursor, when rendered with it
	shown    renderKey  // the request the rows answer
	version  int        // counts results, for the box cache
	gen      int        // counts changes to the agent's screen
	inFlight bool       // a render command is running

	// Scrollback. While scrolling, top is the index of the pane's top
	// row, numbered as Backend.Find numbers rows (scrollback rows
	// first, then the visible ones), so the view stays put while new
	// output arrives.
	scrolling bool
	top       int
	sbLen     int // scrollback length at the last render

	// Search: the matches, oldest first, and which is current; searches
	// counts searches (a render depends on which one it shows).
	query    string
	hits     []swarmapi.ScreenMatch
	hit      int
	searches int

	// Copy mode, as tmux's: a cursor while scrolling, and while selecting
	// the characters from anchor through the cursor, in reading order.
	// Positions are a row in Find numbering and a column.
	cur       spot
	selecting bool
	anchor    spot
	// live is the agent's cursor on its screen when last rendered live:
	// where copy mode's cursor starts, as in tmux.
	live cursorPos

	// The boxed pane as last drawn, and what it was drawn from.
	box    []string
	boxKey boxKey

	// Size last pushed to the agent's terminal (0 when none yet).
	rows, cols int
}

type cursorPos struct{ x, y int }

// spot is a cell of an agent's scrollback and screen: a row in Find
// numbering and a column.
type spot struct{ row, col int }

// before reports whether s comes before t in reading order.
func (s spot) before(t spot) bool { return s.row < t.row || s.row == t.row && s.col < t.col }

// boxKey is what a pane's box depends on besides its rows.
type boxKey struct {
	f           frame
	title, note string
	w, h        int
	version     int
}

// renderKey is everything a pane's rows depend on.
type renderKey struct {
	gen        int
	w, h       int
	scrolling  bool
	top        int
	search     int // which search's matches are highlighted (pane.searches); 0 for none
	hit        int // the current match, highlighted more
	cur        spot
	selecting  bool
	selFrom    spot // the selected cells, from through selTo, when selecting
	selTo      spot
	withCursor bool
}

// offset is how many rows the pane is scrolled back.
func (p *pane) offset() int {
	if !p.scrolling {
		return 0
	}
	return min(max(p.sbLen-p.top, 0), p.sbLen)
}

// invalidate notes that the agent's screen changed.
func (p *pane) invalidate() { p.gen++ }

// scrollTo moves the top row (clamped), entering scroll mode.
func (p *pane) scrollTo(top int) {
	p.scrolling = true
	p.top = min(max(top, 0), p.sbLen)
}

// stopScrolling returns to the live screen and forgets the search.
func (p *pane) stopScrolling() {
	p.scrolling = false
	p.query, p.hits, p.hit = "", nil, 0
	p.searches++
	p.selecting = false
}

// selection returns the selected cells, from through to in reading
// order.
func (p *pane) selection() (from, to spot) {
	if p.cur.before(p.anchor) {
		return p.cur, p.anchor
	}
	return p.anchor, p.cur
}

// want is the render the pane needs for an inside of w×h cells.
func (p *pane) want(w, h int, withCursor bool) renderKey {
	k := renderKey{gen: p.gen, w: w, h: h, scrolling: p.scrolling, withCursor: withCursor}
	if p.scrolling {
		k.top, k.cur, k.selecting = p.top, p.cur, p.selecting
		if len(p.hits) > 0 {
			k.search, k.hit = p.searches, p.hit
		}
		if p.selecting {
			k.selFrom, k.selTo = p.selection()
		}
	}
	return k
}

// paneRenderedMsg carries a pane's rendered rows.
type paneRenderedMsg struct {
	name   string
	key    renderKey
	lines  []string
	sbLen  int
	cursor *cursorPos
	live   *cursorPos // the agent's cursor, when the render was of the live screen
}

// renderPane renders an agent's screen as the key asks: scrolled, with
// the search's matches in view highlighted (the current one most), fitted
// to the pane.
func renderPane(b Backend, name string, k renderKey, hits []swarmapi.ScreenMatch) tea.Cmd {
	return func() tea.Msg {
		msg := paneRenderedMsg{name: name, key: k}
		top := -1
		if k.scrolling {
			top = k.top
		}
		v, err := b.View(name, top)
		if err != nil {
			msg.lines = placeholder(k.w, k.h, "no screen yet")
			return msg
		}
		msg.sbLen = v.Scrollback
		off := v.Offset
		rows := strings.Split(v.Rows, "\n")
		for len(rows) < k.h {
			rows = append(rows, "")
		}
		first := msg.sbLen - off // the Find row number of the pane's top row
		for i, m := range hits {
			st := styleMatch
			if i == k.hit {
				st = styleSelRow
			}
			for _, sp := range m.Spans {
				if y := sp.Row - first; y >= 0 && y < k.h {
					rows[y] = highlight(rows[y], sp.From, sp.To, st)
				}
			}
		}
		msg.lines = make([]string, 0, k.h)
		for i := range k.h {
			row, r := rows[i], first+i
			if k.selecting && r >= k.selFrom.row && r <= k.selTo.row {
				from, to := 0, k.w // the cells of row r selected: [from, to)
				if r == k.selFrom.row {
					from = min(k.selFrom.col, k.w)
				}
				if r == k.selTo.row {
					to = min(k.selTo.col+1, k.w)
				}
				row = highlight(fit(row, k.w), from, to, styleSelection)
			}
			if k.scrolling && r == k.cur.row && k.cur.col < k.w {
				row = highlight(fit(row, k.w), k.cur.col, k.cur.col+1, styleCopyCursor)
			}
			msg.lines = append(msg.lines, fit(row, k.w))
		}
		if off == 0 {
			msg.live = &cursorPos{v.Cursor.X, v.Cursor.Y}
		}
		if k.withCursor && off == 0 && v.CursorVisible && v.Cursor.X < k.w && v.Cursor.Y < k.h {
			msg.cursor = &cursorPos{v.Cursor.X, v.Cursor.Y}
		}
		return msg
	}
}

// highlight shows cells [from, to) of a row in st, as plain text; the
// row's own styles go on after them (TruncateLeft keeps every escape
// sequence of the part it drops).
func highlight(row string, from, to int, st lipgloss.Style) string {
	return ansi.Truncate(row, from, "") + ansi.ResetStyle + st.Render(fitPlain(ansi.Strip(ansi.Cut(row, from, to)), to-from)) +
		ansi.TruncateLeft(row, to, "")
}

// rendered takes a render's result. It is shown even if the pane changed
// meanwhile (the next render is already due), unless its size is wrong.
func (p *pane) rendered(msg paneRenderedMsg) {
	p.inFlight = false
	p.sbLen = msg.sbLen
	if p.scrolling {
		p.top = min(max(p.top, 0), p.sbLen)
	}
	p.lines, p.cursor, p.shown = msg.lines, msg.cursor, msg.key
	if msg.live != nil {
		p.live = *msg.live
	}
	p.version++
}

// rows returns the rows on show fitted to w×h (a render for the new size
// is on its way when they differ).
func (p *pane) rowsFor(w, h int) []string {
	if p.shown.w == w && p.shown.h == h && len(p.lines) == h {
		return p.lines
	}
	out := make([]string, h)
	for i := range out {
		if i < len(p.lines) {
			out[i] = fit(p.lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return out
}

// placeholder centres a note in an empty pane.
func placeholder(w, h int, note string) []string {
	lines := blankLines(w, h)
	if h > 0 {
		lines[h/2] = styleDim.Render(fitPlain(strings.Repeat(" ", max((w-len(note))/2, 0))+note, w))
	}
	return lines
}

// paneName is an agent's name as a pane's title says it: with its host,
// when another machine runs it.
func paneName(a swarmapi.AgentInfo) string {
	if a.Host != "" {
		return a.Name + "@" + a.Host
	}
	return a.Name
}

// paneTitle is the text on a pane's top edge.
func paneTitle(a swarmapi.AgentInfo, selected bool) string {
	t := paneName(a) + " · " + a.StateWord()
	if a.State == swarmapi.StateRunning {
		t += " · " + a.Level.String()
	} else if a.Reason != "" {
		t += ": " + a.Reason
	}
	if n := a.Held; n > 0 {
		t += " · " + heldNote(n)
	}
	if a.ScreenProblem != "" {
		// Its screen's model panicked: the pane goes on, its relay does
		// not (swarmapi.AgentInfo.ScreenProblem; the notice said more).
		t += " · screen failed: not relaying, restart it"
	}
	if selected {
		t = "▶ " + t
	}
	return t
}

// heldNote says that n messages wait for the line typed into an agent.
func heldNote(n int) string {
	return fmt.Sprintf("%d message%s wait%s for your Enter", n, plural(n), map[bool]string{true: "s"}[n == 1])
}

// paneNote is the text on the right of a pane's top edge: scroll and
// search position.
func (p *pane) note() string {
	if !p.scrolling {
		return ""
	}
	switch {
	case p.query == "":
		return fmt.Sprintf("SCROLL ↑%d", p.offset())
	case len(p.hits) == 0:
		return fmt.Sprintf("↑%d no match", p.offset())
	}
	return fmt.Sprintf("↑%d %d/%d", p.offset(), p.hit+1, len(p.hits))
}
