package tui

import (
	"fmt"
	"strings"
	"swarm/supervisor"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
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
// through to normal mode (selection, panels, dialogs).
func (m *Model) scrollKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	p := m.selectedPane()
	keys := m.keys
	page := max(m.paneRows(p.name)-1, 1)
	if p.selecting {
		if cmd, ok := m.selectKey(p, k, page); ok {
			return cmd, true
		}
	}
	switch {
	case key.Matches(k, keys.Select):
		// The selection starts on the pane's bottom row, the newest shown.
		p.selecting = true
		p.anchor = min(p.top+m.paneRows(p.name)-1, p.sbLen+m.paneRows(p.name)-1)
		p.end = p.anchor
		m.setStatus("selecting: ↑↓ pgup pgdn extend, %s copies, %s cancels", keys.Copy.Help().Key, keys.Close.Help().Key)
		m.status.scroll = true
	case key.Matches(k, keys.Close), key.Matches(k, keys.Bottom), key.Matches(k, keys.ScrollExit):
		m.endScroll(p)
	case key.Matches(k, keys.LineUp):
		p.scrollTo(p.top - 1)
	case key.Matches(k, keys.LineDown):
		p.scrollTo(p.top + 1)
	case key.Matches(k, keys.PageUp):
		p.scrollTo(p.top - page)
	case key.Matches(k, keys.PageDown):
		p.scrollTo(p.top + page)
	case key.Matches(k, keys.Top):
		p.scrollTo(0)
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

// searchMsg carries the rows of a pane's scrollback matching a query.
type searchMsg struct {
	agent, query string
	hits         []supervisor.ScreenMatch
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

// showHit scrolls so that the current match is a third down the pane.
func (m *Model) showHit(p *pane) {
	p.scrollTo(p.hits[p.hit].Row - m.paneRows(p.name)/3)
}

// paneRows is how many rows of its agent's screen a pane shows.
func (m *Model) paneRows(name string) int {
	if c, ok := m.lay.cellNamed(name); ok {
		rows, _ := inner(c.r)
		return rows
	}
	return 1
}

// selectKey moves the end of a selection, copies it or drops it; ok is
// false for keys that do what they do in scroll mode.
func (m *Model) selectKey(p *pane, k tea.KeyPressMsg, page int) (tea.Cmd, bool) {
	keys := m.keys
	rows := m.paneRows(p.name)
	move, ok := keys.scrollBy(k, page)
	switch {
	case key.Matches(k, keys.Copy):
		return m.copySelection(p), true
	case key.Matches(k, keys.Close):
		p.selecting = false
		m.setStatus("selection dropped")
		m.status.scroll = true
		return nil, true
	case key.Matches(k, keys.Top):
		move = -p.end
	case !ok:
		return nil, false
	}
	p.end = min(max(p.end+move, 0), p.sbLen+rows-1)
	// The end stays in view.
	if p.end < p.top {
		p.scrollTo(p.end)
	} else if p.end >= p.top+rows {
		p.scrollTo(p.end - rows + 1)
	}
	return nil, true
}

// copySelection copies the selected rows to the clipboard of the terminal
// swarm runs in (OSC 52, which works over ssh), as lines: rows the
// terminal wrapped are joined.
func (m *Model) copySelection(p *pane) tea.Cmd {
	from, to := p.selection()
	p.selecting = false
	text, err := m.sw.Text(p.name, from, to)
	if err != nil {
		m.setError(fmt.Errorf("copy from %s: %w", p.name, err))
		return nil
	}
	n := strings.Count(text, "\n") + 1
	m.setStatus("copied %d line%s of %s to the clipboard", n, map[bool]string{true: "", false: "s"}[n == 1], p.name)
	m.status.scroll = true
	return tea.SetClipboard(text)
}
