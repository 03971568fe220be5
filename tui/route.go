package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"swarm/swarmapi"
)

// onKey routes a key press to what has the focus.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	switch m.Mode() {
	case ModeDialog:
		return m.updateDialog(k)
	case ModeHelp:
		switch {
		case key.Matches(k, m.keys.Help, m.keys.Close, m.keys.Quit):
			m.showHelp = false
		case key.Matches(k, m.keys.Next):
			m.helpCol++ // the view clamps it
		case key.Matches(k, m.keys.Prev):
			m.helpCol = max(m.helpCol-1, 0)
		}
		return nil
	case ModeAttached:
		return m.attachedKey(k)
	case ModeSearch:
		return m.searchKey(k)
	case ModeFilter:
		return m.filterKey(k)
	case ModeScroll:
		if cmd, ok := m.scrollKey(k); ok {
			return cmd
		}
	}
	return m.normalKey(k)
}

// normalKey handles a key in normal mode (and the keys scroll mode leaves
// to it).
func (m *Model) normalKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.keys
	if m.panel != panelNone {
		if cmd, ok := m.panelKey(k); ok {
			return cmd
		}
	}
	switch {
	case key.Matches(k, keys.Next):
		return m.moveSelection(1)
	case key.Matches(k, keys.Prev):
		return m.moveSelection(-1)
	case key.Matches(k, keys.Attach):
		return m.attach()
	case key.Matches(k, keys.Filter):
		return m.startFilter()
	case key.Matches(k, keys.NextPage):
		return m.turnPage(1)
	case key.Matches(k, keys.PrevPage):
		return m.turnPage(-1)
	case key.Matches(k, keys.Zoom):
		if m.selected == "" {
			return nil
		}
		m.zoomed = !m.zoomed
		return m.relayout()
	case key.Matches(k, keys.NextNeed):
		return m.nextNeed()
	case key.Matches(k, keys.Dismiss):
		return m.dismiss()
	case key.Matches(k, keys.ToggleList):
		m.hideList = !m.hideList
		return m.relayout()
	case key.Matches(k, keys.Arrange):
		m.arrange = (m.arrange + 1) % arrangements
		m.setStatus("layout: %s", m.arrange)
		return m.relayout()
	case key.Matches(k, keys.Scroll):
		p := m.selectedPane()
		if p == nil {
			return nil
		}
		if key.Matches(k, keys.PageUp) {
			m.scrollPane(p, p.sbLen-max(m.paneRows(p.name)-1, 1))
		} else {
			m.scrollPane(p, p.sbLen)
		}
		return nil
	case key.Matches(k, keys.Inbox):
		return m.togglePanel(panelInbox)
	case key.Matches(k, keys.Tasks):
		return m.togglePanel(panelTasks)
	case key.Matches(k, keys.Log):
		return m.togglePanel(panelLog)
	case key.Matches(k, keys.Game):
		if !m.hasGame {
			m.setStatus("there is no game in this swarm")
			return nil
		}
		m.showGame = !m.showGame
		return m.relayout()
	case key.Matches(k, keys.Send):
		q, _ := m.questionOf(m.selected)
		m.dialog = newSendDialog(m.ctx, m.sw, m.selected, q, m.width)
		return m.dialog.focus()
	case key.Matches(k, keys.NewAgent):
		m.dialog = newAgentDialog(m.sw, m.opts.Dir, m.width)
		return m.dialog.focus()
	case key.Matches(k, keys.NewTask):
		m.dialog = newTaskDialog(m.ctx, m.sw, m.selected, m.width)
		return m.dialog.focus()
	case key.Matches(k, keys.Restart):
		return m.confirmAgent("Restart", m.sw.Restart, "restarting %s", true)
	case key.Matches(k, keys.Stop):
		return m.confirmAgent("Stop", m.sw.StopAgent, "stopping %s", false)
	case key.Matches(k, keys.Approve, keys.RequestChanges, keys.CancelTask, keys.Merge, keys.Retry):
		return m.taskAction(k)
	case key.Matches(k, keys.Help):
		m.showHelp, m.helpCol = true, 0
		return nil
	case key.Matches(k, keys.Close):
		if m.panel != panelNone {
			return m.togglePanel(m.panel)
		}
		if m.zoomed {
			m.zoomed = false
			return m.relayout()
		}
		if m.filter != "" {
			m.setStatus("all %d agents", len(m.agents))
			return m.setFilter("")
		}
		return nil
	case key.Matches(k, keys.Quit):
		return m.quit()
	}
	return nil
}

// quit leaves at once when nothing runs, else asks first: attached to a
// swarm in another process, whether to detach or stop it; else whether to
// stop the agents. The question counts the agents as they are while it is
// asked, and the quit key pressed again (ctrl+c) quits (detaches).
func (m *Model) quit() tea.Cmd {
	if m.running() == 0 || m.gone {
		return tea.Quit
	}
	if m.opts.Attached {
		m.dialog = &leaveDialog{running: m.running, alsoDetach: &m.keys.QuitNow, stop: m.stopSwarm}
		return nil
	}
	d := &confirmDialog{title: "Quit", yes: func() tea.Cmd { return tea.Quit }, alsoYes: &m.keys.QuitNow}
	d.describe = func() string {
		n := m.running()
		if n == 0 {
			return "Quit swarm? No agent runs any more."
		}
		return fmt.Sprintf("Quit swarm? %d running agent%s will be stopped.", n, plural(n))
	}
	m.dialog = d
	return nil
}

// running counts the agents that run or are about to.
func (m *Model) running() int {
	n := 0
	for _, a := range m.agents {
		if a.State == swarmapi.StateRunning || a.State == swarmapi.StateStarting || a.State == swarmapi.StateBackoff {
			n++
		}
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// moveSelection selects the next (+1) or previous (-1) agent.
func (m *Model) moveSelection(d int) tea.Cmd {
	names := m.visibleNames()
	if len(names) == 0 {
		return nil
	}
	i := slices.Index(names, m.selected)
	i = (i + d + len(names)) % len(names)
	return m.selectAgent(names[i])
}

// selectAgent selects an agent (and, zoomed, shows its pane instead).
func (m *Model) selectAgent(name string) tea.Cmd {
	if name == m.selected {
		return nil
	}
	m.selected = name
	var cmds []tea.Cmd
	if _, shown := m.lay.cellNamed(name); m.zoomed || m.arrange != arrangeGrid || !shown {
		cmds = append(cmds, m.relayout()) // the selected pane is the big one, or on another page
	}
	if m.panel == panelInbox {
		m.inbox.reset(name)
		cmds = append(cmds, m.inbox.load(m.src()))
	}
	return tea.Batch(cmds...)
}

// attach sends every following key to the selected agent.
func (m *Model) attach() tea.Cmd {
	a, ok := m.agentInfo(m.selected)
	if !ok {
		return nil
	}
	if a.State != swarmapi.StateRunning {
		m.setError(fmt.Errorf("cannot attach: %s is %s", a.Name, a.State))
		return nil
	}
	if p := m.selectedPane(); p != nil && p.scrolling {
		m.endScroll(p)
	}
	m.attached = true
	m.setStatus("attached to %s — every key goes to it; ctrl+] detaches", a.Name)
	return nil
}

// attachedKey sends a key to the attached agent; the prefix key detaches.
func (m *Model) attachedKey(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.Detach) {
		m.attached = false
		m.setStatus("detached from %s", m.selected)
		m.status.whileNormal = true
		return nil
	}
	if !m.attachedRunning() {
		return nil
	}
	typed, ok := typedKey(k.Key())
	if !ok {
		return nil // no terminal takes it
	}
	return m.queueInput(m.selected, inputItem{key: typed})
}

// attachedRunning reports whether the attached agent runs, and if not
// says that its input is dropped. Its keys go to its next process.
func (m *Model) attachedRunning() bool {
	a, ok := m.agentInfo(m.selected)
	switch {
	case ok && a.State != swarmapi.StateRunning:
		m.setError(fmt.Errorf("%s is %s: input dropped; ctrl+] detaches", a.Name, a.State))
		return false
	case m.exited[m.selected]: // its exit came before its new state
		m.setError(fmt.Errorf("%s has exited: input dropped; ctrl+] detaches", m.selected))
		return false
	}
	return true
}

func (m *Model) onPaste(p tea.PasteMsg) tea.Cmd {
	switch m.Mode() {
	case ModeAttached:
		if !m.attachedRunning() {
			return nil
		}
		return m.queueInput(m.selected, inputItem{paste: p.Content, isPaste: true})
	case ModeDialog:
		return m.updateDialog(p)
	case ModeSearch:
		return m.search.update(p)
	}
	return nil
}

// togglePanel opens a panel (closing another) or closes it.
func (m *Model) togglePanel(p panelKind) tea.Cmd {
	if m.panel == p {
		m.panel = panelNone
		return m.relayout()
	}
	m.panel = p
	var load tea.Cmd
	switch p {
	case panelInbox:
		m.inbox.reset(m.selected)
		load = m.inbox.load(m.src())
	case panelTasks:
		load = m.tasks.load(m.src())
	case panelLog:
		m.log.reset()
		load = m.log.load(m.src())
	}
	return tea.Batch(m.relayout(), load)
}

// panelKey gives the open panel the keys it scrolls or selects with.
func (m *Model) panelKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.panel == panelTasks && key.Matches(k, m.keys.Diff) {
		return m.toggleDiff(), true
	}
	if m.panel == panelTasks && key.Matches(k, m.keys.Prune) {
		return m.prune(), true
	}
	if m.panel == panelTasks && m.tasks.showDiff && key.Matches(k, m.keys.Close) {
		m.tasks.showDiff = false
		return nil, true
	}
	d, ok := m.keys.scrollBy(k, max(m.lay.panel.h-3, 1))
	if !ok {
		return nil, false
	}
	switch {
	case m.panel == panelInbox:
		m.inbox.scroll.by(-d)
	case m.panel == panelLog:
		m.log.scroll.by(-d)
	case m.panel == panelTasks && m.tasks.showDiff:
		m.tasks.diffTop += d
	case m.panel == panelTasks:
		return m.tasks.move(m.src(), d), true
	}
	return nil, true
}

// confirmAgent asks before restarting or stopping the selected agent.
// With starts, the message says what is so until the agent starts again.
func (m *Model) confirmAgent(verb string, do func(string) error, done string, starts bool) tea.Cmd {
	name := m.selected
	if name == "" {
		return nil
	}
	text := fmt.Sprintf("%s agent %s?", verb, name)
	m.dialog = newConfirm(verb, text, func() tea.Cmd {
		return func() tea.Msg {
			if err := do(name); err != nil {
				return actionMsg{err: fmt.Errorf("%s %s: %w", strings.ToLower(verb), name, err)}
			}
			msg := actionMsg{text: fmt.Sprintf(done, name)}
			if starts {
				msg.untilStarted = name
			}
			return msg
		}
	})
	return nil
}

// stopSwarm stops the swarm the UI is attached to, then quits.
func (m *Model) stopSwarm() tea.Cmd {
	m.setStatus("stopping the swarm…")
	stop := m.opts.StopSwarm
	return tea.Sequence(func() tea.Msg {
		if err := stop(); err != nil {
			m.opts.Log.Error("stop the swarm", "err", err)
		}
		return nil
	}, tea.Quit)
}
