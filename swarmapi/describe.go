package swarmapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"swarm/bus"
	"swarm/textsafe"
)

// FormatEvent renders an event as one line for a log, stamped with its
// time (several lines for a game move, which shows the board). Screen
// notices render as "".
func FormatEvent(ev Event) string {
	s := DescribeEvent(ev)
	if s == "" {
		return ""
	}
	return ev.Time.Local().Format("15:04:05.000") + " " + s
}

// DescribeEvent says what an event is, safe to print, without its time:
// what FormatEvent stamps, and what a UI shows beside its own clock.
func DescribeEvent(ev Event) string {
	var s string
	switch ev.Kind {
	case EventAgentStarted:
		s = fmt.Sprintf("%s started (pid %d)", ev.Agent, ev.Pid)
	case EventAgentExited:
		s = fmt.Sprintf("%s exited: %s", ev.Agent, clippedWords(ev.Text, 300))
	case EventAgentRestarting:
		s = fmt.Sprintf("%s restarting: %s", ev.Agent, clippedWords(ev.Text, 300))
	case EventAgentGaveUp:
		s = fmt.Sprintf("%s stopped: %s", ev.Agent, clippedWords(ev.Text, 300))
	case EventAgentStopped:
		s = fmt.Sprintf("%s stopped by request", ev.Agent)
	case EventMessage:
		m := ev.Message
		s = fmt.Sprintf("message #%s %s → %s [%s] %s%s", bus.ShortID(m.ID), m.From, m.To, m.Kind, clippedWords(m.Shown(), 200), deliverySummary(m))
	case EventDelivered:
		s = fmt.Sprintf("delivered #%s to %s", bus.ShortID(ev.Message.ID), ev.Agent)
	case EventDeliveryFailed:
		s = fmt.Sprintf("delivery of #%s to %s failed: %s", bus.ShortID(ev.Message.ID), ev.Agent, clippedWords(ev.Text, 300))
	case EventUnconfirmed:
		s = fmt.Sprintf("#%s typed into %s, not confirmed: %s", bus.ShortID(ev.Message.ID), ev.Agent, clippedWords(ev.Text, 300))
	case EventHeld:
		if ev.Held == 0 {
			s = fmt.Sprintf("%s: no message waits for a person's line any more", ev.Agent)
		} else {
			s = fmt.Sprintf("%s: %d message(s) wait until the line typed into it is entered or cleared", ev.Agent, ev.Held)
		}
	case EventTask:
		t := ev.Task
		s = fmt.Sprintf("task %s %s (%s): %q", t.ID, t.State, t.Assignee, t.Title)
		if e := ev.TaskEvent; e != nil {
			s = fmt.Sprintf("task %s %s → %s by %s (%s: %q)", t.ID, orCreated(e.From), e.To, e.Actor, t.Assignee, t.Title)
			if e.Note != "" {
				s += ": " + clippedWords(e.Note, 200)
			}
		}
	case EventLevel:
		s = fmt.Sprintf("%s liveness %s", ev.Agent, ev.Level)
	case EventTurn:
		s = fmt.Sprintf("%s %s", ev.Agent, ev.Text)
	case EventGame:
		g := ev.Game
		s = "game: " + ev.Text
		if g.Illegal == "" {
			s += "\n" + indent(g.Board.String(), "    ")
		}
	case EventNotice:
		s = fmt.Sprintf("notice for %s: %s", ev.Agent, clippedWords(ev.Text, 300))
	default:
		return ""
	}
	return textsafe.Body(s) // a game's board takes several lines
}

func orCreated(s bus.TaskState) string {
	if s == bus.TaskNone {
		return "created"
	}
	return s.String()
}

func deliverySummary(m *bus.Message) string {
	var failed []string
	for _, d := range m.Deliveries {
		if d.State == bus.DeliveryFailed {
			failed = append(failed, fmt.Sprintf("%s: %s", d.Recipient, d.Error))
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return " (failed: " + strings.Join(failed, "; ") + ")"
}

// clippedWords is s as its words on one line (textsafe.Words), cut to max
// runes with an ellipsis.
func clippedWords(s string, max int) string {
	s = textsafe.Words(s)
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}

// MarshalJSON renders an event as one JSON object for `--json` output.
func (ev Event) MarshalJSON() ([]byte, error) {
	type message struct {
		ID    string          `json:"id"`
		Seq   int64           `json:"seq"`
		From  string          `json:"from"`
		To    string          `json:"to"`
		Kind  string          `json:"kind"`
		Body  string          `json:"body"`
		Data  json.RawMessage `json:"data,omitempty"`
		Topic string          `json:"topic,omitempty"`
	}
	type task struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Assignee string `json:"assignee"`
		State    string `json:"state"`
		From     string `json:"from,omitempty"`
		Actor    string `json:"actor,omitempty"`
		Note     string `json:"note,omitempty"`
	}
	type game struct {
		X       string `json:"x"`
		O       string `json:"o"`
		Board   string `json:"board"`
		Mover   string `json:"mover,omitempty"`
		Cell    int    `json:"cell,omitempty"`
		Illegal string `json:"illegal,omitempty"`
		Over    bool   `json:"over"`
		Result  string `json:"result,omitempty"`
	}
	out := struct {
		Event    string   `json:"event"`
		Time     string   `json:"ts"`
		Agent    string   `json:"agent,omitempty"`
		Pid      int      `json:"pid,omitempty"`
		ExitCode *int     `json:"exit_code,omitempty"`
		Text     string   `json:"text,omitempty"`
		Level    string   `json:"level,omitempty"`
		Held     *int     `json:"held,omitempty"`
		Message  *message `json:"message,omitempty"`
		Task     *task    `json:"task,omitempty"`
		Game     *game    `json:"game,omitempty"`
	}{Event: ev.Kind.String(), Time: ev.Time.UTC().Format(time.RFC3339Nano), Agent: ev.Agent, Pid: ev.Pid, Text: ev.Text}
	if ev.Kind == EventAgentExited {
		code := ev.ExitCode
		out.ExitCode = &code
	}
	if ev.Kind == EventLevel {
		out.Level = ev.Level.String()
	}
	if ev.Kind == EventHeld {
		held := ev.Held
		out.Held = &held
	}
	if m := ev.Message; m != nil {
		out.Message = &message{ID: m.ID, Seq: m.Seq, From: m.From, To: m.To, Kind: string(m.Kind), Body: m.Body, Data: m.Data, Topic: m.Topic}
	}
	if t := ev.Task; t != nil {
		out.Task = &task{ID: t.ID, Title: t.Title, Assignee: t.Assignee, State: t.State.String()}
		if e := ev.TaskEvent; e != nil {
			out.Task.From, out.Task.Actor, out.Task.Note = orCreated(e.From), e.Actor, e.Note
		}
	}
	if g := ev.Game; g != nil {
		out.Game = &game{X: g.X, O: g.O, Board: g.Board.String(), Mover: g.Mover, Cell: g.Cell, Illegal: g.Illegal, Over: g.Result.Over}
		if g.Result.Over {
			out.Game.Result = g.Result.String()
		}
	}
	b, err := json.Marshal(out)
	return textsafe.JSON(b), err
}
