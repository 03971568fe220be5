package tui

import tea "charm.land/bubbletea/v2"

// onClick selects the pane or agent under the pointer.
func (m *Model) onClick(c tea.MouseClickMsg) tea.Cmd {
	if c.Button != tea.MouseLeft || m.dialog != nil || m.attached {
		return nil
	}
	if cl, ok := m.lay.cellOf(c.X, c.Y); ok {
		return m.selectAgent(cl.name)
	}
	if m.lay.agents.contains(c.X, c.Y) {
		if name, ok := m.agentAtRow(c.Y - m.lay.agents.y - 1); ok {
			return m.selectAgent(name)
		}
	}
	return nil
}

// onWheel scrolls the pane or panel under the pointer.
func (m *Model) onWheel(w tea.MouseWheelMsg) tea.Cmd {
	d := 0
	switch w.Button {
	case tea.MouseWheelUp:
		d = -3
	case tea.MouseWheelDown:
		d = 3
	default:
		return nil
	}
	if m.lay.panel.contains(w.X, w.Y) {
		switch m.panel {
		case panelInbox:
			m.inbox.scroll.by(-d)
		case panelLog:
			m.log.scroll.by(-d)
		case panelTasks:
			return m.tasks.move(m.src(), d/3)
		}
		return nil
	}
	cl, ok := m.lay.cellOf(w.X, w.Y)
	if !ok {
		return nil
	}
	p := m.panes[cl.name]
	if p == nil {
		return nil
	}
	if m.attached && cl.name == m.selected {
		return nil // the attached pane shows the live screen
	}
	if !p.scrolling {
		if d > 0 {
			return nil
		}
		p.top = p.sbLen
	}
	p.scrollTo(p.top + d)
	if p.top >= p.sbLen && d > 0 {
		m.endScroll(p)
	}
	return m.selectAgent(cl.name)
}
