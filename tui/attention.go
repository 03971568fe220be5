package tui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/bus"
	"swarm/swarmapi"
)

// updateNeeds recomputes what waits for the person (swarmapi.NeedsYou)
// from the agents and the tasks last read, and announces what is new: the
// terminal's bell and a desktop notification (OSC 9 and OSC 777), as the
// options allow. What waits when the UI starts is listed, not announced.
func (m *Model) updateNeeds() tea.Cmd {
	var agents []swarmapi.AgentNeed
	for _, a := range m.agents {
		turn := bus.StatusIdle
		if a.Turn.Known() {
			turn = a.Turn.Status
		}
		if n, ok := swarmapi.AgentNeedOf(a.Name, a.Level, a.Reason, turn, a.Turn.Note); ok {
			agents = append(agents, n)
		}
	}
	m.needs = swarmapi.NeedsYou(agents, m.questions, m.waiting)
	if m.announced == nil {
		m.announced = map[string]bool{}
	}
	var fresh []swarmapi.Attention
	for _, n := range m.needs {
		if !m.announced[n.Key()] {
			m.announced[n.Key()] = true
			fresh = append(fresh, n)
		}
	}
	// Until the bus has been read once, what is found waited already.
	if !m.metaSeen || len(fresh) == 0 {
		return nil
	}
	var cmds []tea.Cmd
	if m.opts.Bell {
		cmds = append(cmds, tea.Raw("\a"))
	}
	if m.opts.Desktop {
		for _, n := range fresh {
			// The text is made safe by NeedsYou: no control character can
			// end the OSC string early or start another sequence.
			cmds = append(cmds, tea.Raw(ansi.Notify("swarm: "+n.Text)+"\x1b]777;notify;swarm;"+n.Text+"\x07"))
		}
	}
	return tea.Batch(cmds...)
}

// nextNeed shows the next thing that waits for the person: an agent's
// pane, or the task on the board.
func (m *Model) nextNeed() tea.Cmd {
	if len(m.needs) == 0 {
		m.setStatus("nothing needs you")
		return nil
	}
	m.needAt = (m.needAt + 1) % len(m.needs)
	n := m.needs[m.needAt]
	m.setStatus("%d/%d: %s", m.needAt+1, len(m.needs), n.Text)
	if n.Kind == swarmapi.AttentionQuestion {
		m.status.text += fmt.Sprintf(" — %s answers, %s dismisses", m.keys.Send.Help().Key, m.keys.Dismiss.Help().Key)
	}
	cmds := []tea.Cmd{m.selectAgent(n.Agent)}
	if n.Task != "" {
		if m.panel != panelTasks {
			cmds = append(cmds, m.togglePanel(panelTasks))
		}
		cmds = append(cmds, m.tasks.choose(m.src(), n.Task))
	}
	return tea.Batch(cmds...)
}

// questionOf is the oldest question the agent name has put to the person
// and that is still open.
func (m *Model) questionOf(name string) (swarmapi.Attention, bool) {
	for _, n := range m.needs {
		if n.Kind == swarmapi.AttentionQuestion && n.Agent == name {
			return n, true
		}
	}
	return swarmapi.Attention{}, false
}

// dismiss closes the selected agent's oldest open question without an
// answer.
func (m *Model) dismiss() tea.Cmd {
	q, ok := m.questionOf(m.selected)
	if !ok {
		m.setStatus("%s has asked you nothing", m.selected)
		return nil
	}
	ctx, sw := m.ctx, m.sw
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, readTimeout)
		defer cancel()
		if err := sw.Dismiss(ctx, q.Message); err != nil {
			return actionMsg{err: err}
		}
		return actionMsg{text: fmt.Sprintf("dismissed %s's question: %s", q.Agent, q.Question)}
	}
}

// needsLine is the list's one-line summary for the top of the sidebar or
// the summary line; "" when nothing waits.
func (m *Model) needsLine(k key.Binding) string {
	if len(m.needs) == 0 {
		return ""
	}
	return fmt.Sprintf("⚑ %d need%s you · %s next", len(m.needs), map[bool]string{true: "s", false: ""}[len(m.needs) == 1], k.Help().Key)
}
