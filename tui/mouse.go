package tui

import tea "charm.land/bubbletea/v2"

// onClick selects the pane or agent under the pointer; on a pane it also
// is where a drag to select lines starts. Attached, a click on another
// pane (or agent) moves the attachment there, as a click on a pane makes
// it tmux's active one.
func (m *Model) onClick(c tea.MouseClickMsg) tea.Cmd {
	m.drag = nil
	if c.Button != tea.MouseLeft || m.dialog != nil {
		return nil
	}
	if m.attached {
		name, ok := m.agentAt(c.X, c.Y)
		if !ok || name == m.selected {
			return nil // the attached pane: its keys already go there
		}
		m.attached = false
		cmd := m.selectAgent(name)
		return tea.Batch(cmd, m.attach())
	}
	if cl, ok := m.lay.cellOf(c.X, c.Y); ok {
		if at, ok := m.paneSpotAt(cl, c.X, c.Y); ok {
			m.drag = &dragStart{pane: cl.name, at: at}
		}
		return m.selectAgent(cl.name)
	}
	if m.lay.agents.contains(c.X, c.Y) {
		if name, ok := m.agentAtRow(c.Y - m.lay.agents.y - 1); ok {
			return m.selectAgent(name)
		}
	}
	return nil
}

// agentAt is the agent whose pane, or row in the agent list, is at (x, y).
func (m *Model) agentAt(x, y int) (string, bool) {
	if cl, ok := m.lay.cellOf(x, y); ok {
		return cl.name, true
	}
	if m.lay.agents.contains(x, y) {
		return m.agentAtRow(y - m.lay.agents.y - 1)
	}
	return "", false
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
	top := p.top
	if !p.scrolling {
		if d > 0 {
			return nil
		}
		top = p.sbLen
	}
	m.scrollPane(p, top+d)
	if p.top >= p.sbLen && d > 0 {
		m.endScroll(p)
	}
	return m.selectAgent(cl.name)
}

// dragStart is where a left button went down on a pane: the pane and the
// cell under it.
type dragStart struct {
	pane string
	at   spot
}

// paneSpotAt is the cell (a row in Find numbering, a column) of pane cell
// cl at window position (x, y); false on its border.
func (m *Model) paneSpotAt(cl cell, x, y int) (spot, bool) {
	p := m.panes[cl.name]
	rows, cols := inner(cl.r)
	i, j := y-cl.r.y-1, x-cl.r.x-1
	if p == nil || i < 0 || i >= rows {
		return spot{}, false
	}
	top := p.sbLen // the live screen's first row
	if p.scrolling {
		top = p.top
	}
	return spot{top + i, min(max(j, 0), cols-1)}, true
}

// onDrag extends a selection of characters as the pointer moves with the
// left button down, starting one (in scroll mode) at the first move.
func (m *Model) onDrag(mv tea.MouseMotionMsg) tea.Cmd {
	if m.drag == nil || mv.Button != tea.MouseLeft {
		return nil
	}
	cl, ok := m.lay.cellOf(mv.X, mv.Y)
	p := m.panes[m.drag.pane]
	if !ok || cl.name != m.drag.pane || p == nil {
		return nil
	}
	at, ok := m.paneSpotAt(cl, mv.X, mv.Y)
	if !ok {
		return nil
	}
	if !p.selecting {
		if !p.scrolling {
			m.scrollPane(p, p.sbLen) // the view stays put while selecting
		}
		p.selecting, p.anchor = true, m.drag.at
	}
	p.cur = at
	return nil
}

// onRelease copies a selection made by dragging.
func (m *Model) onRelease(r tea.MouseReleaseMsg) tea.Cmd {
	d := m.drag
	m.drag = nil
	if d == nil {
		return nil
	}
	if p := m.panes[d.pane]; p != nil && p.selecting {
		return m.copySelection(p)
	}
	return nil
}
