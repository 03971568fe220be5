package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/swarmapi"
)

// A swarm of a hundred agents does not fit one window. The agent list
// scrolls with the selection and narrows to the agents a filter matches
// (`/`); the grid shows the panes that fit, a page at a time (`>` `<`, or
// moving the selection off the page), the filter's matches only.

// filterInput is the filter being typed; it shows in the status line and
// applies as it is typed.
type filterInput struct {
	ti   textinput.Model
	prev string // the filter before: esc goes back to it
}

// visible returns the agents the filter lets through, in list order.
func (m *Model) visible() []swarmapi.AgentInfo {
	if m.filter == "" {
		return m.agents
	}
	var out []swarmapi.AgentInfo
	for _, a := range m.agents {
		if matchesFilter(a, m.filter) {
			out = append(out, a)
		}
	}
	return out
}

// visibleNames are the names of the visible agents.
func (m *Model) visibleNames() []string {
	v := m.visible()
	out := make([]string, len(v))
	for i, a := range v {
		out[i] = a.Name
	}
	return out
}

// matchesFilter says whether an agent's name, state or liveness (as the
// list shows them) holds the filter, ignoring case: "/rev" finds the
// reviewers, "/stuck" the agents stuck on a task.
func matchesFilter(a swarmapi.AgentInfo, filter string) bool {
	f := strings.ToLower(filter)
	for _, s := range []string{a.Name, a.StateWord(), a.Level.String()} {
		if strings.Contains(strings.ToLower(s), f) {
			return true
		}
	}
	return false
}

// startFilter opens the filter line, holding the filter in force.
func (m *Model) startFilter() tea.Cmd {
	ti := newInput("name, state or liveness", max(m.width-40, 10))
	ti.SetValue(m.filter)
	ti.CursorEnd()
	m.filtering = &filterInput{ti: ti, prev: m.filter}
	return m.filtering.ti.Focus()
}

// filterKey edits the filter: it applies as typed; enter keeps it, esc
// puts back the one before.
func (m *Model) filterKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Close):
		f := m.filtering.prev
		m.filtering = nil
		return m.setFilter(f)
	case key.Matches(k, m.keys.Submit):
		m.filtering = nil
		if m.filter != "" {
			m.setStatus("%d of %d agents match %q (%s: all)", len(m.visible()), len(m.agents), m.filter, m.keys.Close.Help().Key)
		}
		return nil
	}
	var cmd tea.Cmd
	m.filtering.ti, cmd = m.filtering.ti.Update(k)
	return tea.Batch(cmd, m.setFilter(strings.TrimSpace(m.filtering.ti.Value())))
}

// setFilter applies a filter: the selection moves to the first agent it
// lets through when the selected one is not, and the panes are laid out
// again.
func (m *Model) setFilter(f string) tea.Cmd {
	if f == m.filter {
		return nil
	}
	m.filter = f
	m.gen++ // the list shows other agents
	names := m.visibleNames()
	if len(names) > 0 && !slices.Contains(names, m.selected) {
		m.selected = names[0]
	}
	return m.relayout()
}

// filterView is the filter line, as the status line shows it.
func (m *Model) filterView(w int) string {
	prompt := fmt.Sprintf("filter agents (%d of %d): /", len(m.visible()), len(m.agents))
	fitInput(&m.filtering.ti, w-ansi.StringWidth(prompt))
	return styleKey.Render(prompt) + m.filtering.ti.View()
}

// turnPage selects the first agent of the next (+1) or previous (-1) page
// of the grid.
func (m *Model) turnPage(d int) tea.Cmd {
	l := m.lay
	if l.pages <= 1 {
		m.setStatus("every pane shows: there is no other page")
		return nil
	}
	page := (l.page + d + l.pages) % l.pages
	cmd := m.selectAgent(m.visibleNames()[page*l.perPage])
	m.setStatus("page %d of %d", page+1, l.pages)
	return cmd
}
