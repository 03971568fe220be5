package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"swarm/bus"
	"swarm/swarmapi"
)

// plannedExit reports whether an exit is part of a restart the swarm
// chose (the agent moved to another directory, e.g. back to its own after
// a merge), not a failure.
func plannedExit(ev swarmapi.Event) bool {
	return ev.Kind == swarmapi.EventAgentExited && ev.Planned
}

// onEvent applies one supervisor event.
func (m *Model) onEvent(ev swarmapi.Event) tea.Cmd {
	var cmds []tea.Cmd
	switch ev.Kind {
	case swarmapi.EventAgentStarted, swarmapi.EventAgentStopped, swarmapi.EventAgentRestarting:
		if ev.Kind == swarmapi.EventAgentStarted {
			delete(m.exited, ev.Agent)
			if m.status.untilStarted == ev.Agent {
				m.status = status{} // "restarting X" is no longer so
			}
		}
		cmds = append(cmds, m.refreshAgents())
		if p := m.panes[ev.Agent]; p != nil {
			p.invalidate()
		}
		cmds = append(cmds, m.loadMeta())
	case swarmapi.EventAgentExited, swarmapi.EventAgentGaveUp:
		m.exited[ev.Agent] = true
		cmds = append(cmds, m.refreshAgents())
		if p := m.panes[ev.Agent]; p != nil {
			p.invalidate()
		}
		text := swarmapi.DescribeEvent(ev)
		failed := !plannedExit(ev) && (ev.Kind == swarmapi.EventAgentGaveUp || ev.ExitCode != 0)
		switch {
		case ev.Agent == m.selected && m.attached:
			// Stay attached, so that what the person goes on typing is not
			// taken as UI commands; say at once why the keys go nowhere.
			if failed {
				m.setError(fmt.Errorf("%s — still attached; ctrl+] detaches", text))
			} else {
				m.setStatus("%s — still attached; ctrl+] detaches", text)
			}
		case failed:
			m.noteEvent(text, true)
		}
	case swarmapi.EventLevel, swarmapi.EventHeld, swarmapi.EventTurn:
		cmds = append(cmds, m.refreshAgents())
	case swarmapi.EventMessage, swarmapi.EventDelivered:
		cmds = append(cmds, m.loadMeta(), m.reloadPanel(ev))
	case swarmapi.EventDeliveryFailed, swarmapi.EventUnconfirmed:
		id := ""
		if ev.Message != nil {
			id = "#" + bus.ShortID(ev.Message.ID) + " "
		}
		if ev.Kind == swarmapi.EventUnconfirmed {
			m.noteEvent(fmt.Sprintf("%styped into %s, not confirmed: %s", id, ev.Agent, ev.Text), true)
		} else {
			m.noteEvent(fmt.Sprintf("delivery of %sto %s failed: %s", id, ev.Agent, ev.Text), true)
		}
		cmds = append(cmds, m.loadMeta(), m.reloadPanel(ev))
	case swarmapi.EventTask:
		cmds = append(cmds, m.loadMeta(), m.reloadPanel(ev))
	case swarmapi.EventChecks:
		if m.panel == panelTasks {
			cmds = append(cmds, m.reloadPanel(ev))
		}
	case swarmapi.EventGame:
		if ev.Game != nil {
			m.game, m.hasGame = *ev.Game, true
			m.gen++
			if m.opts.Game && !m.showGame && m.lay.game.empty() {
				m.showGame = true
				cmds = append(cmds, m.relayout())
			}
		}
	case swarmapi.EventNotice:
		m.noteEvent(ev.Agent+": "+ev.Text, false)
	}
	return tea.Batch(cmds...)
}

// reloadPanel reloads the open panel if ev concerns it.
func (m *Model) reloadPanel(ev swarmapi.Event) tea.Cmd {
	switch m.panel {
	case panelInbox:
		return m.inbox.load(m.src())
	case panelTasks:
		return m.tasks.load(m.src())
	case panelLog:
		if ev.Kind == swarmapi.EventMessage || ev.Kind == swarmapi.EventDelivered || ev.Kind == swarmapi.EventDeliveryFailed || ev.Kind == swarmapi.EventUnconfirmed {
			return m.log.load(m.src())
		}
	}
	return nil
}

// agentMeta is what the agent list shows beyond the runtime state.
type agentMeta struct {
	unread int // deliveries to it still queued or injected
	task   *bus.Task
	beat   bus.Heartbeat
}

// metaMsg carries the agent list's bus reads.
type metaMsg struct {
	meta  map[string]agentMeta
	tasks []bus.Task // the tasks that wait for the person (swarmapi.AttentionStates)
	// questions are the agents' open messages to the person, oldest first.
	questions []bus.Message
	err       error
}

// questionLimit bounds the open questions read for the "needs you" list.
const questionLimit = 100

// loadMeta reads unread counts, current tasks and heartbeats; one read is
// in flight at a time, and a request during it makes one more.
func (m *Model) loadMeta() tea.Cmd {
	if !m.metaLoad.start() {
		return nil
	}
	ctx, b, names := m.ctx, m.sw, m.names()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out := map[string]agentMeta{}
		for _, n := range names {
			out[n] = agentMeta{}
		}
		tasks, err := b.Tasks(ctx, bus.TaskFilter{States: bus.OpenTaskStates()})
		if err != nil {
			return metaMsg{err: err}
		}
		for _, t := range tasks {
			md, ok := out[t.Assignee]
			if !ok {
				continue
			}
			if md.task == nil || (md.task.State == bus.TaskAssigned && t.State != bus.TaskAssigned) {
				md.task = &t
			}
			out[t.Assignee] = md
		}
		beats, err := b.Heartbeats(ctx)
		if err != nil {
			return metaMsg{err: err}
		}
		for _, hb := range beats {
			if md, ok := out[hb.Agent]; ok {
				md.beat = hb
				out[hb.Agent] = md
			}
		}
		for _, n := range names {
			pend, err := b.Pending(ctx, n, unreadLimit)
			if err != nil {
				return metaMsg{err: err}
			}
			md := out[n]
			md.unread = len(pend)
			out[n] = md
		}
		waiting, err := b.Tasks(ctx, bus.TaskFilter{States: swarmapi.AttentionStates})
		if err != nil {
			return metaMsg{err: err}
		}
		questions, err := b.Pending(ctx, bus.Human, questionLimit)
		if err != nil {
			return metaMsg{err: err}
		}
		return metaMsg{meta: out, tasks: waiting, questions: questions}
	}
}

func (m *Model) onMeta(msg metaMsg) tea.Cmd {
	again := m.metaLoad.done()
	if msg.err != nil {
		if m.ctx.Err() == nil {
			m.noteEvent(fmt.Sprintf("read agent status: %v", msg.err), true)
		}
	} else {
		m.meta, m.waiting, m.questions = msg.meta, msg.tasks, msg.questions
		m.gen++
	}
	cmd := m.updateNeeds()
	if msg.err == nil {
		m.metaSeen = true // what the first read found is listed, not announced
	}
	if again {
		return tea.Batch(cmd, m.loadMeta())
	}
	return cmd
}
