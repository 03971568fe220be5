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
	switch {
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
