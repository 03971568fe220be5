package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"swarm/bus"
	"swarm/games"
	"swarm/swarmapi"
	"swarm/textsafe"
)

// agentRows renders the agent list for an inside width w: per agent its
// name and process state; its liveness level, the age of its last sign of
// life and its unread count; and its current task. owners maps each row
// to its agent.
func (m *Model) agentRows(w int) (lines, owners []string) {
	now := m.opts.Now()
	for _, a := range m.visible() {
		md := m.meta[a.Name]
		sel := a.Name == m.selected
		state := a.StateWord()
		name := a.Name
		mark := "  "
		if sel {
			mark = "▶ "
			if m.attached {
				mark = "◆ "
			}
		}
		nameW := max(w-ansi.StringWidth(mark)-len(state)-1, 1)
		first := mark + fitPlain(name, nameW) + " "
		if sel {
			first = styleSelRow.Render(first)
		} else {
			first = styleBold.Render(first)
		}
		first += fg(agentStateColor(a)).Render(state)
		lines = append(lines, first)
		owners = append(owners, a.Name)

		age := lastSign(a, md.beat)
		second := "  " + fg(levelColor(a.Level)).Render(fmt.Sprintf("%-5s", a.Level.String())) +
			styleDim.Render(fmt.Sprintf(" %4s", shortAge(now, age)))
		unread := fmt.Sprintf("✉ %d", md.unread)
		if md.unread >= unreadLimit {
			unread = fmt.Sprintf("✉ %d+", unreadLimit-1)
		}
		if md.unread > 0 {
			second += "  " + fg(colorWarn).Render(unread)
		} else {
			second += "  " + styleDim.Render(unread)
		}
		if a.Held > 0 {
			second += "  " + fg(colorWarn).Render(fmt.Sprintf("⏸%d", a.Held))
		}
		lines = append(lines, second)
		owners = append(owners, a.Name)

		if md.task != nil {
			t := md.task
			third := "  ⚑ " + t.ID + " " + fg(taskColor(t.State)).Render(t.State.String())
			lines = append(lines, third)
			owners = append(owners, a.Name)
		}
		if q, ok := m.questionOf(a.Name); ok {
			// What it asks the person, as far as it fits (! shows it all).
			lines = append(lines, fg(colorWarn).Render(fitPlain("  ? "+q.Question, w)))
			owners = append(owners, a.Name)
		}
	}
	return lines, owners
}

// lastSign is the time of an agent's last sign of life: its start, its
// last output or its last heartbeat.
func lastSign(a swarmapi.AgentInfo, hb bus.Heartbeat) time.Time {
	t := a.Started
	for _, u := range []time.Time{a.LastOutput, hb.Time} {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// shortAge renders how long ago t was: 5s, 3m, 2h, 4d; "-" for never.
func shortAge(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// agentsBox draws the agent list, scrolled so the selection is visible.
func (m *Model) agentsBox(r rect) []string {
	lines, owners := m.agentRows(r.w - 2)
	start := m.agentListStart(owners, r.h-2)
	lines = lines[start:]
	title := fmt.Sprintf("agents %d", len(m.agents))
	if m.filter != "" {
		title = fmt.Sprintf("agents %d of %d /%s", len(m.visible()), len(m.agents), plainLine(m.filter))
	}
	note := ""
	if n := len(m.needs); n > 0 {
		note = fmt.Sprintf("⚑ %d", n) // things that need the person (! shows them)
	}
	return box(r.w, r.h, frame{border: frameNormal, color: colorAccent, bold: true}, title, note, lines)
}

// agentListStart is the first row shown of a list of h rows.
func (m *Model) agentListStart(owners []string, h int) int {
	first, last := -1, -1
	for i, o := range owners {
		if o == m.selected {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last < h {
		return 0
	}
	return min(last-h+1, first)
}

// agentAtRow maps a row of the agent list's inside to its agent.
func (m *Model) agentAtRow(row int) (string, bool) {
	_, owners := m.agentRows(max(m.lay.agents.w-2, 1))
	row += m.agentListStart(owners, m.lay.agents.h-2)
	if row < 0 || row >= len(owners) {
		return "", false
	}
	return owners[row], true
}

// gameBox draws the board of the refereed game with its players, whose
// move it is or the result, the last move and the pace.
func (m *Model) gameBox(r rect) []string {
	g := m.game
	w := r.w - 2
	var info []string
	info = append(info, playersLines(g, w)...)
	switch {
	case g.Result.Over:
		info = append(info, styleBold.Render("game over"))
		for _, l := range resultLines(g, w) {
			info = append(info, styleSelRow.Render(l))
		}
	default:
		info = append(info, styleBold.Render(playerOf(g, g.Turn)+" to move"))
	}
	switch {
	case g.Illegal != "":
		info = append(info, fg(colorDead).Render("refused: "+textsafe.Words(g.Illegal)))
	case g.Mover != "":
		info = append(info, styleDim.Render(fmt.Sprintf("last: %s → %d", g.Mover, g.Cell)))
	default:
		info = append(info, styleDim.Render("no move yet"))
	}
	if m.opts.Pace > 0 {
		info = append(info, styleDim.Render("pace "+m.opts.Pace.String()))
	}
	lines := boardLines(g.Board, g.Result)
	if len(lines)+1+len(info) <= r.h-2 {
		lines = append(lines, "")
	}
	lines = append(lines, info...)
	return box(r.w, r.h, frame{border: frameNormal, color: colorAccent, bold: true}, "tic-tac-toe", "", lines)
}

// playersLines names the players: "X vs O" when the agents are called
// after their marks, else "X — alice · O — bob", on two lines when that
// is wider than w.
func playersLines(g swarmapi.GameState, w int) []string {
	named := func(mk games.Mark, name string) string {
		if name == "" || name == mk.String() {
			return mk.String()
		}
		return mk.String() + " — " + name
	}
	x, o := named(games.MarkX, g.X), named(games.MarkO, g.O)
	if x == "X" && o == "O" {
		return []string{"X vs O"}
	}
	if one := x + " · " + o; ansi.StringWidth(one) <= w {
		return []string{one}
	}
	return []string{fitPlain(x, w), fitPlain(o, w)}
}

// boardLines draws the board with the winning line highlighted.
func boardLines(b games.Board, res games.Result) []string {
	win := map[int]bool{}
	if res.Over && res.Winner != games.Empty {
		for _, c := range res.Line {
			win[c] = true
		}
	}
	var out []string
	for row := range 3 {
		if row > 0 {
			out = append(out, styleDim.Render("---+---+---"))
		}
		var sb strings.Builder
		for col := range 3 {
			n := row*3 + col + 1
			if col > 0 {
				sb.WriteString(styleDim.Render("|"))
			}
			m := b.Cell(n)
			switch {
			case m == games.Empty:
				sb.WriteString(styleDim.Render(fmt.Sprintf(" %d ", n)))
			case win[n]:
				sb.WriteString(styleSelRow.Render(" " + m.String() + " "))
			case m == games.MarkX:
				sb.WriteString(fg(colorSelected).Bold(true).Render(" X "))
			default:
				sb.WriteString(fg(colorWarn).Bold(true).Render(" O "))
			}
		}
		out = append(out, sb.String())
	}
	return out
}

// playerOf names the player of a mark: "X (alice)" when the agent is not
// simply called after its mark.
func playerOf(g swarmapi.GameState, mk games.Mark) string {
	name := g.X
	if mk == games.MarkO {
		name = g.O
	}
	if name == "" || name == mk.String() {
		return mk.String()
	}
	return mk.String() + " (" + name + ")"
}

// resultText is the game's result as a person reads it: "draw", "X wins
// (1-5-9)", "O (bob) wins by forfeit".
func resultText(g swarmapi.GameState) string {
	return strings.Join(resultParts(g), " ")
}

func resultParts(g swarmapi.GameState) []string {
	r := g.Result
	if r.Winner == games.Empty {
		return []string{"draw"}
	}
	s := playerOf(g, r.Winner) + " wins"
	if r.Forfeit {
		return []string{s, "by forfeit"}
	}
	return []string{s, fmt.Sprintf("(%d-%d-%d)", r.Line[0], r.Line[1], r.Line[2])}
}

// resultLines is resultText on one line of w cells, or on two when it
// does not fit.
func resultLines(g swarmapi.GameState, w int) []string {
	if s := resultText(g); ansi.StringWidth(s) <= w {
		return []string{s}
	}
	parts := resultParts(g)
	for i, p := range parts {
		parts[i] = ansi.Truncate(p, w, "…")
	}
	return parts
}

// width of the widest line, for tests and centring.
func widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// summaryLine is the agent list in one line, for when the list is hidden
// or the window is narrow: each agent's name in its state's colour, the
// selected one marked, as many as fit.
func (m *Model) summaryLine(w int) string {
	parts := make([]string, 0, len(m.agents))
	for _, a := range m.visible() {
		name := a.Name
		if a.Level != bus.LevelOK && a.State == swarmapi.StateRunning {
			name += " " + a.Level.String()
		} else if a.State != swarmapi.StateRunning {
			name += " " + a.StateWord()
		}
		st := fg(stateColor(a.State))
		if a.State == swarmapi.StateRunning {
			st = fg(levelColor(a.Level))
		}
		if a.Name == m.selected {
			parts = append(parts, styleSelRow.Render("▶ "+name))
		} else {
			parts = append(parts, st.Render(name))
		}
	}
	line := " " + strings.Join(parts, styleDim.Render(" · "))
	if needs := m.needsLine(m.keys.NextNeed); needs != "" {
		line = " " + fg(colorWarn).Render(needs) + styleDim.Render(" ·") + line
	}
	if ansi.StringWidth(line) > w {
		line = ansi.Truncate(line, w-1, "…")
	}
	return fit(line, w)
}
