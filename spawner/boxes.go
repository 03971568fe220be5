package spawner

import (
	"slices"

	"swarm/screenmodel"
)

// ranBoxes follows the boxes the program shows commands' output in
// (screenmodel.Layout.ToolBoxes), write by write.
type ranBoxes struct {
	// titles are those of the boxes seen showing output while their
	// command was at work, or turning their mark while it was (the
	// command still ran a frame after the box showed it at work), oldest
	// first, each until the box's head row is committed (as the program
	// shows it once the command is done) or maxRanBoxes newer ones push
	// it out.
	titles []string
	// atWork are the boxes seen at work, with the mark each showed last,
	// until a write ends with no box at work or maxRanBoxes newer ones
	// push them out.
	atWork []screenmodel.BoxHead
	heads  []screenmodel.BoxHead // scratch
}

// maxRanBoxes bounds ranBoxes' lists: a box's head row is committed a
// frame or two after its command ends, so only a few are ever waiting.
const maxRanBoxes = 8

// watchBoxes notes, as a write ends, the boxes the screen shows running a
// command with output under them already, or with another mark than the
// last write showed them at work with.
func (m *mainLines) watchBoxes() {
	if !m.layout.HasToolBoxes() {
		return
	}
	b := &m.ran
	if !m.showsRunningMark() {
		// No box at work (each box's command is done); no row's text is
		// built, as most writes show none.
		b.atWork = b.atWork[:0]
		return
	}
	b.heads = m.layout.ToolBoxes(m.mainRows(), b.heads[:0])
	for _, h := range b.heads {
		if !h.Running {
			continue // done (one done before, with the same title, may show above one at work)
		}
		i := b.atWorkIndex(h.Title)
		if h.Output || i >= 0 && b.atWork[i].Mark != h.Mark {
			b.add(h.Title)
		}
		switch {
		case i >= 0:
			b.atWork[i] = h
		case len(b.atWork) == maxRanBoxes:
			b.atWork = append(slices.Delete(b.atWork, 0, 1), h)
		default:
			b.atWork = append(b.atWork, h)
		}
	}
}

// add notes a box seen showing output while its command was at work.
func (b *ranBoxes) add(title string) {
	if b.index(title) >= 0 {
		return
	}
	if len(b.titles) == maxRanBoxes {
		b.titles = append(b.titles[:0], b.titles[1:]...)
	}
	b.titles = append(b.titles, title)
}

// ranShown reports whether text, a line being committed, heads a box of a
// command done whose output the program showed while it ran, and forgets
// that box: its rows follow.
func (m *mainLines) ranShown(text string) bool {
	if len(m.ran.titles) == 0 {
		return false
	}
	title, running, ok := m.layout.ToolBox(text)
	if !ok || running {
		return false
	}
	b := &m.ran
	i := b.index(title)
	if i < 0 {
		return false
	}
	b.titles = append(b.titles[:i], b.titles[i+1:]...)
	return true
}

// atWorkIndex returns where atWork holds the box titled title, -1 when
// no box of that title was seen at work.
func (b *ranBoxes) atWorkIndex(title string) int {
	for i, h := range b.atWork {
		if h.Title == title {
			return i
		}
	}
	return -1
}

// index returns where titles holds title, -1 when it does not.
func (b *ranBoxes) index(title string) int {
	for i, t := range b.titles {
		if t == title {
			return i
		}
	}
	return -1
}

// showsRunningMark reports whether a cell of the screen holds the mark of
// a box whose command is at work (screenmodel.Layout.RunningMark).
func (m *mainLines) showsRunningMark() bool {
	for y := range m.rows {
		for _, c := range m.em.Line(y) {
			if len(c.Content) > 1 && m.layout.RunningMark(c.Content) { // the marks are not ASCII
				return true
			}
		}
	}
	return false
}
