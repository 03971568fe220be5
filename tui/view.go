package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/swarmapi"
)

// View draws the window: the sidebar, the panes, an open panel, the
// status and help lines, and over them a dialog or the key list.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "swarm"
	if m.opts.Title != "" {
		v.WindowTitle += " — " + m.opts.Title
	}
	content, cur := m.render()
	v.SetContent(content)
	v.Cursor = cur
	return v
}

// Render returns the window's content as the terminal would show it
// (with styles); tests compare ansi.Strip of it with golden files.
func (m *Model) Render() string {
	s, _ := m.render()
	return s
}

func (m *Model) render() (string, *tea.Cursor) {
	if m.width == 0 || m.height == 0 {
		return "starting swarm…", nil
	}
	if m.width < minWidth || m.height < minHeight {
		return fmt.Sprintf("%v: swarm needs at least %d×%d cells (this one is %d×%d)",
			ErrTooSmall, minWidth, minHeight, m.width, m.height), nil
	}
	l := m.lay
	var cur *tea.Cursor

	// The sidebar: agent list, then the game board.
	sk := sideKey{gen: m.gen, needs: len(m.needs), agents: l.agents, game: l.game, selected: m.selected, attached: m.attached, second: m.opts.Now().Unix()}
	if m.side == nil || m.sideKey != sk {
		m.side = nil
		if !l.agents.empty() {
			m.side = m.agentsBox(l.agents)
		}
		if !l.game.empty() {
			m.side = append(m.side, m.gameBox(l.game)...)
		}
		m.sideKey = sk
	}
	side := m.side
	// The main area: the summary line when the list is not shown, the
	// panes, then the panel. Each window row is made of the rows of the
	// boxes it crosses, left to right.
	var main []string
	if !l.summary.empty() {
		main = append(main, m.summaryLine(l.summary.w))
	}
	type placed struct {
		r   rect
		box []string
	}
	var boxes []placed
	for _, row := range l.rows {
		for _, c := range row {
			boxes = append(boxes, placed{c.r, m.paneBox(c, &cur)})
		}
	}
	slices.SortFunc(boxes, func(a, b placed) int { return a.r.x - b.r.x })
	for y := l.panes.y; y < l.panes.y+l.panes.h; y++ {
		var sb strings.Builder
		for _, b := range boxes {
			if y >= b.r.y && y < b.r.y+b.r.h {
				sb.WriteString(b.box[y-b.r.y])
			}
		}
		main = append(main, sb.String())
	}
	if !l.panel.empty() {
		main = append(main, m.panelBox(l.panel)...)
	}
	lines := make([]string, m.height)
	for i := range l.status {
		sl, ml := "", ""
		if i < len(side) {
			sl = side[i]
		} else {
			sl = strings.Repeat(" ", l.agents.w)
		}
		if i < len(main) {
			ml = main[i]
		} else {
			ml = strings.Repeat(" ", l.panes.w)
		}
		lines[i] = sl + ml
	}
	lines[l.status] = m.statusLine()
	lines[l.help] = m.helpLine()

	switch {
	case m.showHelp:
		hl := m.helpBox(m.width, m.height-2)
		overlay(lines, hl, 0, 0)
		cur = nil
	case m.dialog != nil:
		dl, x, y := m.dialogPlacement()
		overlay(lines, dl, x, y)
		cur = nil
	}
	return strings.Join(lines, "\n"), cur
}

// dialogPlacement draws the open dialog and says where it goes: centred
// over the panes, above the status line.
func (m *Model) dialogPlacement() (lines []string, x, y int) {
	lines = m.dialog.view(dialogWidth(m.width), m.keys)
	x = max((m.width-widest(lines))/2, 0)
	y = max((m.height-2-len(lines))/2, 0)
	return lines, x, y
}

// paneBox returns the boxed pane c, exactly c.r.w×c.r.h cells, from the
// rows last rendered; the box is drawn again only when the rows, the size
// or the frame changed.
func (m *Model) paneBox(c cell, cur **tea.Cursor) []string {
	p := m.panes[c.name]
	if p == nil {
		return blankLines(c.r.w, c.r.h)
	}
	a, _ := m.agentInfo(c.name)
	rows, cols := inner(c.r)
	attached := m.attached && c.name == m.selected
	lines := p.rowsFor(cols, rows)
	if attached && p.cursor != nil && !p.scrolling {
		*cur = tea.NewCursor(c.r.x+1+p.cursor.x, c.r.y+1+p.cursor.y)
	}
	f, title, note := m.paneFrame(a, p)
	k := boxKey{f: f, title: title, note: note, w: c.r.w, h: c.r.h, version: p.version}
	if p.box == nil || p.boxKey != k {
		p.box = box(c.r.w, c.r.h, f, title, note, lines)
		p.boxKey = k
	}
	return p.box
}

// paneFrame is a pane's border and titles: thick and bright when
// attached, marked when selected, coloured by liveness otherwise.
func (m *Model) paneFrame(a swarmapi.AgentInfo, p *pane) (frame, string, string) {
	sel := a.Name == m.selected
	switch {
	case m.attached && sel:
		title := "ATTACHED " + paneName(a) + " · ctrl+] detaches"
		switch {
		case a.State != swarmapi.StateRunning:
			title = "ATTACHED " + paneName(a) + " · " + a.StateWord() + " · ctrl+] detaches"
		case a.Held > 0:
			title = "ATTACHED " + paneName(a) + " · " + heldNote(a.Held) + " · ctrl+] detaches"
		}
		return frame{border: frameAttached, color: colorAttached, bold: true}, title, ""
	case sel && m.zoomed:
		note := "zoomed · z back to all"
		if n := p.note(); n != "" {
			note = n + " · " + note
		}
		return frame{border: frameNormal, color: colorSelected, bold: true}, paneTitle(a, true), note
	case sel:
		return frame{border: frameNormal, color: colorSelected, bold: true}, paneTitle(a, true), p.note()
	default:
		return frame{border: frameNormal, color: paneColor(a)}, paneTitle(a, false), p.note()
	}
}

// panelBox draws the open panel.
func (m *Model) panelBox(r rect) []string {
	iw, ih := r.w-2, r.h-2
	f := frame{border: frameNormal, color: colorAccent, bold: true}
	switch m.panel {
	case panelInbox:
		title := "inbox of " + m.inbox.agent
		return box(r.w, r.h, f, title, "↑↓ scroll · i close", m.inbox.scroll.window(m.inbox.lines(iw), ih))
	case panelTasks:
		if m.tasks.showDiff {
			t, _ := m.tasks.selectedTask()
			return box(r.w, r.h, f, "diff of "+t.ID+": "+t.Base+"..."+t.Branch, "↑↓ scroll · d back", m.tasks.diffLines(ih))
		}
		n := fmt.Sprintf("%d task%s", len(m.tasks.tasks), plural(len(m.tasks.tasks)))
		return box(r.w, r.h, f, "task board", n+" · ↑↓ select · t close", m.tasks.lines(m.keys, iw, ih, m.opts.Now()))
	case panelLog:
		return box(r.w, r.h, f, "message log", "↑↓ scroll · l close", m.log.scroll.window(m.log.lines(), ih))
	}
	return blankLines(r.w, r.h)
}

// statusLine shows the mode, the last message or error, and a summary.
func (m *Model) statusLine() string {
	mode := m.Mode()
	badge := styleMode.Render(" " + mode.String() + " ")
	if mode == ModeAttached {
		badge = styleAttached.Render(" ATTACHED " + m.selected + " ")
	}
	running := 0
	for _, a := range m.agents {
		if a.State == swarmapi.StateRunning {
			running++
		}
	}
	right := fmt.Sprintf("%d/%d running", running, len(m.agents))
	if l := m.lay; l.pages > 1 && l.perPage > 0 && len(l.rows) > 0 && m.arrange == arrangeGrid && !m.zoomed {
		right = fmt.Sprintf("page %d/%d · %s", l.page+1, l.pages, right)
	}
	if m.opts.Title != "" {
		right = plainLine(m.opts.Title) + " · " + right
	}
	right = styleDim.Render(" " + right + " ")
	avail := m.width - ansi.StringWidth(badge) - ansi.StringWidth(right) - 1
	var text string
	switch {
	case m.search != nil:
		text = m.search.view(max(avail, 0))
	case m.filtering != nil:
		text = m.filterView(max(avail, 0))
	case m.status.whileNormal && m.Mode() != ModeNormal:
		// no longer so: say nothing
	case m.status.err:
		text = styleError.Render(fitPlain(plainLine(m.status.text), max(avail, 0)))
	default:
		text = styleInfo.Render(fitPlain(plainLine(m.status.text), max(avail, 0)))
	}
	return fit(badge+" "+fit(text, max(avail, 0))+right, m.width)
}

// helpLine shows the keys that apply now.
func (m *Model) helpLine() string {
	hk := helpKey{pages: m.lay.pages, mode: m.Mode(), panel: m.panel, hasGame: m.hasGame, width: m.width, selected: m.selected}
	if m.dialog != nil {
		hk.dialog = m.dialog.keys(m.keys)
	}
	if m.helpCache == "" || m.helpKey != hk {
		m.helpCache, m.helpKey = m.helpLineFor(), hk
	}
	return m.helpCache
}

func (m *Model) helpLineFor() string {
	k := m.keys
	var bs []key.Binding
	switch m.Mode() {
	case ModeAttached:
		return fit(styleKey.Render(k.Detach.Help().Key)+styleDim.Render(" detach — every other key goes to "+m.selected), m.width)
	case ModeSearch:
		return fit(styleKey.Render(k.Submit.Help().Key)+styleDim.Render(" search · ")+styleKey.Render(k.Close.Help().Key)+styleDim.Render(" cancel"), m.width)
	case ModeFilter:
		return fit(styleKey.Render(k.Submit.Help().Key)+styleDim.Render(" keep the filter · ")+styleKey.Render(k.Close.Help().Key)+styleDim.Render(" cancel"), m.width)
	case ModeDialog:
		return fit(styleDim.Render(m.dialog.keys(k)), m.width)
	case ModeHelp:
		return fit(styleKey.Render(k.Close.Help().Key)+styleDim.Render(" close the key list"), m.width)
	case ModeScroll:
		bs = []key.Binding{k.LineUp, k.LineDown, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Search, k.SearchNext, k.SearchPrev, k.Close}
	default:
		bs = []key.Binding{k.Attach, k.Next, k.Zoom, k.Scroll}
		if m.lay.pages > 1 {
			bs = append(bs, k.NextPage, k.Filter)
		}
		if m.panel == panelTasks {
			bs = append(bs, k.Approve, k.RequestChanges, k.CancelTask, k.Merge, k.Diff, k.NewTask, k.Tasks)
		} else {
			bs = append(bs, k.Inbox, k.Tasks, k.Log)
			if m.hasGame {
				bs = append(bs, k.Game)
			}
			bs = append(bs, k.Send, k.NewAgent, k.Restart, k.Stop)
		}
		bs = append(bs, k.Help, k.Quit)
	}
	if m.Mode() == ModeScroll {
		return fit(m.help.ShortHelpView(bs), m.width)
	}
	// ? and q always show: the keys before them give way, ending in an
	// ellipsis.
	h := m.help
	h.SetWidth(0)
	sep := h.Styles.ShortSeparator.Inline(true).Render(h.ShortSeparator)
	tail := sep + h.ShortHelpView([]key.Binding{k.Help, k.Quit})
	more := " " + h.Styles.Ellipsis.Inline(true).Render(h.Ellipsis)
	var body strings.Builder
	for i, b := range bs[:len(bs)-2] {
		item := h.ShortHelpView([]key.Binding{b})
		if i > 0 {
			item = sep + item
		}
		rest := tail
		if i < len(bs)-3 {
			rest = more + tail // more keys would follow
		}
		if ansi.StringWidth(body.String()+item+rest) > m.width {
			body.WriteString(more)
			break
		}
		body.WriteString(item)
	}
	return fit(body.String()+tail, m.width)
}

// helpEntry is one row of the key list: a group title, a key, or (both
// empty) the blank row between two groups.
type helpEntry struct {
	title     string
	key, desc string
}

// packHelp lays the groups out in columns of at most h rows, in order. A
// group starts a new column when it does not fit under what the current
// one holds; one taller than a column goes on in the next under its
// title again, so that every title has its keys under it. gap puts a
// blank row between two groups of a column.
func packHelp(groups []helpGroup, h int, gap bool) [][]helpEntry {
	h = max(h, 2)
	var cols [][]helpEntry
	var col []helpEntry
	flush := func() {
		if len(col) > 0 {
			cols = append(cols, col)
			col = nil
		}
	}
	for _, g := range groups {
		keys := make([]helpEntry, 0, len(g.bindings))
		for _, b := range g.bindings {
			hk := b.Help()
			keys = append(keys, helpEntry{key: hk.Key, desc: hk.Desc})
		}
		title := g.title
		for len(keys) > 0 {
			sep := 0
			if len(col) > 0 && gap {
				sep = 1
			}
			room := h - len(col) - sep - 1 // rows for keys under the title
			if len(col) > 0 && (room < 1 || (room < len(keys) && len(keys) <= h-1)) {
				flush()
				continue
			}
			n := min(len(keys), max(room, 1))
			if sep > 0 {
				col = append(col, helpEntry{})
			}
			col = append(col, helpEntry{title: title})
			col = append(col, keys[:n]...)
			keys = keys[n:]
			title = g.title + " (more)"
			if len(keys) > 0 {
				flush()
			}
		}
	}
	flush()
	return cols
}

// renderHelpColumns draws the columns side by side. In a column the
// descriptions of a group line up after its widest key.
func renderHelpColumns(cols [][]helpEntry) (rendered [][]string, width int) {
	rendered = make([][]string, len(cols))
	for c, col := range cols {
		// kw[i] is the key width of the group entry i belongs to.
		kw := make([]int, len(col))
		for start := 0; start < len(col); {
			end := start + 1
			for end < len(col) && col[end].title == "" {
				end++
			}
			w := 0
			for _, e := range col[start:end] {
				w = max(w, ansi.StringWidth(e.key))
			}
			for i := start; i < end; i++ {
				kw[i] = w
			}
			start = end
		}
		cw := 0
		for i, e := range col {
			cw = max(cw, ansi.StringWidth(e.title), kw[i]+1+ansi.StringWidth(e.desc))
		}
		for i, e := range col {
			var s string
			switch {
			case e.title != "":
				s = styleHeader.Render(e.title)
			case e.key != "":
				s = styleKey.Render(fmt.Sprintf("%-*s", kw[i], e.key)) + " " + e.desc
			}
			rendered[c] = append(rendered[c], fit(" "+s, cw+2))
		}
		width += cw + 2
	}
	return rendered, width
}

// helpBox lists every key, grouped, in columns that fit w×h: with blank
// rows between groups and the notes at the bottom when there is room,
// without them when not; columns that still do not fit are left out and
// the frame says so.
func (m *Model) helpBox(w, h int) []string {
	iw := w - 2
	var notes []string
	for _, f := range []string{
		"enter attaches to the selected pane: every key, ctrl keys included, goes to that agent until ctrl+] detaches.",
		"Mouse: click selects a pane (attached: attaches to it), the wheel scrolls it, a drag selects text.",
	} {
		notes = append(notes, wrapPlain(f, iw-2)...)
	}
	groups := m.keys.fullHelp()
	var rendered [][]string
	var footer []string
	var ih int
	for _, try := range []struct{ gap, notes bool }{{true, true}, {false, true}, {true, false}, {false, false}} {
		footer = nil
		if try.notes {
			footer = notes
		}
		ih = h - 2
		if len(footer) > 0 {
			ih -= len(footer) + 1
		}
		// The shortest columns that fit the width: a wide window shows
		// the keys side by side instead of one tall column.
		var width int
		// Start where no group is split across columns, if that fits.
		start := 2
		for _, g := range groups {
			start = max(start, len(g.bindings)+1)
		}
		if start > ih {
			start = 2
		}
		for colH := start; colH <= max(ih, 2); colH++ {
			if rendered, width = renderHelpColumns(packHelp(groups, colH, try.gap)); width <= iw {
				break
			}
		}
		if width <= iw && ih > 0 {
			break
		}
	}
	// Whole columns only: a column cut in half would hide keys silently.
	// When they do not all fit, the list pages through them (→ ←), from
	// column m.helpCol; the last page is as full as the first.
	fits := func(from int) int {
		n, used := 0, 0
		for _, col := range rendered[from:] {
			if len(col) == 0 || used+ansi.StringWidth(col[0]) > iw {
				break
			}
			used += ansi.StringWidth(col[0])
			n++
		}
		return max(n, 1)
	}
	last := len(rendered) - 1
	for last > 0 && fits(last-1) == len(rendered)-(last-1) {
		last--
	}
	m.helpCol = min(m.helpCol, max(last, 0))
	first := m.helpCol
	if len(rendered) == 0 {
		first = 0
	}
	shown := min(fits(first), len(rendered)-first)
	note := "esc closes"
	switch {
	case first == 0 && shown < len(rendered):
		note = fmt.Sprintf("columns 1–%d of %d · %s more · esc", shown, len(rendered), "→")
	case first > 0 && first+shown < len(rendered):
		note = fmt.Sprintf("columns %d–%d of %d · ← → more · esc", first+1, first+shown, len(rendered))
	case first > 0:
		note = fmt.Sprintf("columns %d–%d of %d · ← back · esc", first+1, first+shown, len(rendered))
	}
	rendered = rendered[first : first+shown]
	// The box is as tall as its tallest column: the panes show below it.
	tallest := 0
	for _, col := range rendered {
		tallest = max(tallest, len(col))
	}
	if tallest < ih {
		h -= ih - tallest
		ih = tallest
	}
	lines := make([]string, 0, h-2)
	for i := range max(ih, 0) {
		var sb strings.Builder
		for c := range rendered {
			if i < len(rendered[c]) {
				sb.WriteString(rendered[c][i])
			} else {
				sb.WriteString(strings.Repeat(" ", ansi.StringWidth(rendered[c][0])))
			}
		}
		lines = append(lines, sb.String())
	}
	if len(footer) > 0 {
		lines = append(lines, "")
		for _, f := range footer {
			lines = append(lines, " "+f)
		}
	}
	return box(w, h, frame{border: frameDialog, color: colorAccent, bold: true}, "keys", note, lines)
}
