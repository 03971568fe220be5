package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/swarmapi"
)

// endScroll leaves scroll mode in p, with what the status line said about
// it.
func (m *Model) endScroll(p *pane) {
	p.stopScrolling()
	if m.status.scroll {
		m.status = status{}
	}
}

// scrollKey handles a key in scroll mode; ok is false for keys that fall
// through to normal mode (panels, dialogs). Scroll mode is tmux's copy
// mode: the keys that move a line move a cursor (the view follows it),
// v selects from it, y copies.
func (m *Model) scrollKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	p := m.selectedPane()
	keys := m.keys
	page := max(m.paneRows(p.name)-1, 1)
	if p.selecting {
		if cmd, ok := m.selectKey(p, k); ok {
			return cmd, true
		}
	}
	switch {
	case key.Matches(k, keys.Select):
		p.selecting, p.anchor = true, p.cur
		m.setStatus("selecting: the cursor keys extend it, %s copies, %s cancels", keys.Copy.Help().Key, keys.Close.Help().Key)
		m.status.scroll = true
	case key.Matches(k, keys.Close), key.Matches(k, keys.Bottom), key.Matches(k, keys.ScrollExit):
		m.endScroll(p)
	case key.Matches(k, keys.LineUp):
		m.moveCursor(p, spot{p.cur.row - 1, p.cur.col})
	case key.Matches(k, keys.LineDown):
		m.moveCursor(p, spot{p.cur.row + 1, p.cur.col})
	case key.Matches(k, keys.CursorLeft):
		m.moveCursor(p, spot{p.cur.row, p.cur.col - 1})
	case key.Matches(k, keys.CursorRight):
		m.moveCursor(p, spot{p.cur.row, p.cur.col + 1})
	case key.Matches(k, keys.PageUp):
		m.scrollPane(p, p.top-page)
		m.moveCursor(p, spot{p.cur.row - page, p.cur.col})
	case key.Matches(k, keys.PageDown):
		m.scrollPane(p, p.top+page)
		m.moveCursor(p, spot{p.cur.row + page, p.cur.col})
	case key.Matches(k, keys.Top):
		m.scrollPane(p, 0)
		m.moveCursor(p, spot{0, 0})
	case key.Matches(k, keys.Search):
		m.search = newSearchInput(p.name, m.width)
		return m.search.focus(), true
	case key.Matches(k, keys.SearchNext):
		m.jumpHit(p, 1)
	case key.Matches(k, keys.SearchPrev):
		m.jumpHit(p, -1)
	case key.Matches(k, keys.Scroll): // already scrolling
	default:
		return nil, false
	}
	return nil, true
}

// scrollPane scrolls p so that row top is its top row, entering scroll
// mode: the copy cursor starts where the agent's cursor is, as in tmux,
// and stays in view.
func (m *Model) scrollPane(p *pane, top int) {
	if !p.scrolling {
		p.selecting = false
		p.cur = spot{p.sbLen + p.live.y, p.live.x}
	}
	p.scrollTo(top)
	rows, cols := m.paneSize(p.name)
	p.cur.row = min(max(p.cur.row, p.top), p.top+rows-1, p.sbLen+rows-1)
	p.cur.col = min(max(p.cur.col, 0), cols-1)
}

// moveCursor moves the copy cursor to s (kept on the agent's rows and
// columns), and the view with it when it leaves the view.
func (m *Model) moveCursor(p *pane, s spot) {
	rows, cols := m.paneSize(p.name)
	s.row = min(max(s.row, 0), p.sbLen+rows-1)
	s.col = min(max(s.col, 0), cols-1)
	p.cur = s
	switch {
	case s.row < p.top:
		p.scrollTo(s.row)
	case s.row >= p.top+rows:
		p.scrollTo(s.row - rows + 1)
	}
}

// searchMsg carries the rows of a pane's scrollback matching a query.
type searchMsg struct {
	agent, query string
	hits         []swarmapi.ScreenMatch
}

// searchKey edits the search query; enter searches, esc abandons.
func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Close):
		m.search = nil
		return nil
	case key.Matches(k, m.keys.Submit):
		q := strings.TrimSpace(m.search.value())
		name := m.search.agent
		m.search = nil
		if q == "" {
			return nil
		}
		sw := m.sw
		return func() tea.Msg { return searchMsg{agent: name, query: q, hits: sw.Find(name, q)} }
	}
	return m.search.update(k)
}

// searchDone shows the last match (the newest) of a search.
func (m *Model) searchDone(msg searchMsg) {
	p := m.panes[msg.agent]
	if p == nil {
		return
	}
	p.query, p.hits = msg.query, msg.hits
	p.searches++
	if len(p.hits) == 0 {
		p.hit = 0
		p.invalidate()
		m.setError(fmt.Errorf("%q not found in %s", msg.query, msg.agent))
		return
	}
	p.hit = len(p.hits) - 1
	m.showHit(p)
	m.setStatus("%d match%s for %q in %s (n/N to move)", len(p.hits), map[bool]string{true: "", false: "es"}[len(p.hits) == 1], msg.query, msg.agent)
	m.status.scroll = true
}

// jumpHit moves to the next (+1, older) or previous (-1, newer) match.
func (m *Model) jumpHit(p *pane, d int) {
	if len(p.hits) == 0 {
		m.setError(fmt.Errorf("no search: press / to search %s", p.name))
		return
	}
	// n goes further back in time, as in less after ?-search.
	p.hit = (p.hit - d + len(p.hits)) % len(p.hits)
	m.showHit(p)
}

// showHit scrolls so that the current match is a third down the pane,
// and puts the copy cursor on its first character.
func (m *Model) showHit(p *pane) {
	h := p.hits[p.hit]
	at := spot{row: h.Row}
	if len(h.Spans) > 0 {
		at = spot{h.Spans[0].Row, h.Spans[0].From}
	}
	m.scrollPane(p, h.Row-m.paneRows(p.name)/3)
	m.moveCursor(p, at)
}

// paneRows is how many rows of its agent's screen a pane shows.
func (m *Model) paneRows(name string) int {
	rows, _ := m.paneSize(name)
	return rows
}

// paneSize is how many rows and columns of its agent's screen a pane
// shows.
func (m *Model) paneSize(name string) (rows, cols int) {
	if c, ok := m.lay.cellNamed(name); ok {
		return inner(c.r)
	}
	return 1, 1
}

// selectKey copies the selection or drops it; ok is false for keys that
// do what they do in scroll mode (moving the cursor extends it).
func (m *Model) selectKey(p *pane, k tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.keys.Copy):
		return m.copySelection(p), true
	case key.Matches(k, m.keys.Close):
		p.selecting = false
		m.setStatus("selection dropped")
		m.status.scroll = true
		return nil, true
	}
	return nil, false
}

// copySelection copies the selected characters to the clipboard of the
// terminal swarm runs in (OSC 52, which works over ssh): rows the terminal
// wrapped are one line.
func (m *Model) copySelection(p *pane) tea.Cmd {
	from, to := p.selection()
	p.selecting = false
	text, err := m.selectedText(p.name, from, to)
	if err != nil {
		m.setError(fmt.Errorf("copy from %s: %w", p.name, err))
		return nil
	}
	n := strings.Count(text, "\n") + 1
	m.setStatus("copied %d line%s (%d characters) of %s to the clipboard", n, plural(n), len([]rune(text)), p.name)
	m.status.scroll = true
	return tea.SetClipboard(text)
}

// selectedText is the text of an agent's cells from through to (reading
// order, both included). Backend.Text gives whole rows, wrapped rows
// joined, starting at the first row given: the cells before from on its
// row and after to on its row are cut off its ends.
func (m *Model) selectedText(name string, from, to spot) (string, error) {
	text, err := m.sw.Text(name, from.row, to.row)
	if err != nil || from.row == to.row {
		return ansi.Cut(text, from.col, to.col+1), err
	}
	first, err := m.sw.Text(name, from.row, from.row)
	if err != nil {
		return "", err
	}
	last, err := m.sw.Text(name, to.row, to.row)
	if err != nil {
		return "", err
	}
	text = strings.TrimPrefix(text, ansi.Cut(first, 0, from.col))
	return strings.TrimSuffix(text, ansi.Cut(last, to.col+1, ansi.StringWidth(last))), nil
}
