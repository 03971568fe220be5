package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"swarm/bus"
	"swarm/gitrepo"
	"swarm/tasks"
)

// The control messages — what an agent can ask swarm to do by sending a
// message to "swarm" (a [[RELAY]] block with this type, or an inline
// `@relay:swarm <type> [text]`) — are bus.KindTaskStart, KindTaskDone,
// KindTaskFail, KindTaskCreate, KindHeartbeat and KindTurn (from hooks).

// controlData is the union of the fields control messages carry in data.
type controlData struct {
	Task        string   `json:"task"`
	Reason      string   `json:"reason"`
	Note        string   `json:"note"`
	Assignee    string   `json:"assignee"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Hook        string   `json:"hook"`
	Progress    *float64 `json:"progress"`
}

// consumeControl applies the messages queued for "swarm", in order, each
// once: the delivery is confirmed when applied, or failed with the reason
// (which the bus turns into a notice to the author).
func (s *Supervisor) consumeControl(ctx context.Context) {
	wake, unsub := s.bus.Subscribe()
	defer unsub()
	for {
		failed := false
		for {
			msgs, err := s.bus.Pending(ctx, "swarm", 64)
			if err != nil && ctx.Err() == nil {
				s.log.Error("read control messages", "err", err)
			}
			if failed = err != nil; failed || len(msgs) == 0 {
				break
			}
			for _, m := range msgs {
				s.applyControl(ctx, m)
			}
		}
		if !waitWake(ctx, wake, failed) {
			return
		}
	}
}

func (s *Supervisor) applyControl(ctx context.Context, m bus.Message) {
	reply, err := s.control(ctx, m)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		reason := fmt.Sprintf("%s refused: %v", controlType(m), err)
		if err := s.bus.MarkFailed(ctx, m.ID, "swarm", reason); err != nil {
			s.log.Error("mark control failed", "err", err)
		}
		s.hub.emit(Event{Kind: EventNotice, Agent: m.From, Text: reason})
		return
	}
	if err := s.bus.MarkConfirmed(ctx, m.ID, "swarm"); err != nil {
		s.log.Error("mark control confirmed", "err", err)
	}
	if reply != "" && m.From != "swarm" {
		_, err := s.bus.Publish(ctx, bus.Message{From: "swarm", To: m.From, Kind: bus.KindNotice, Body: reply, InReplyTo: m.ID})
		if err != nil {
			s.log.Error("publish control reply", "err", err)
		}
	}
}

// controlType is the control type of m: its kind, or for a plain message
// the first word of its body.
func controlType(m bus.Message) bus.Kind {
	if m.Kind != bus.KindMessage && m.Kind != "" {
		return m.Kind
	}
	word, _, _ := strings.Cut(strings.TrimSpace(m.Body), " ")
	return bus.Kind(word)
}

// control applies one control message and returns an optional reply.
func (s *Supervisor) control(ctx context.Context, m bus.Message) (string, error) {
	var d controlData
	if len(m.Data) > 0 && string(m.Data) != "null" {
		if err := json.Unmarshal(m.Data, &d); err != nil {
			return "", fmt.Errorf("bad data: %v", err)
		}
	}
	typ := controlType(m)
	rest := ""
	if m.Kind == bus.KindMessage || m.Kind == "" {
		_, rest, _ = strings.Cut(strings.TrimSpace(m.Body), " ")
		rest = strings.TrimSpace(rest)
	}
	switch typ {
	case bus.KindTaskStart, bus.KindTaskDone, bus.KindTaskFail, bus.KindTaskCreate:
		if s.opts.TasksElsewhere {
			return "", nil
		}
	}
	switch typ {
	case bus.KindTaskStart, bus.KindTaskDone, bus.KindTaskFail:
		if d.Task == "" && rest != "" && typ != bus.KindTaskFail {
			d.Task = rest
		}
		if typ == bus.KindTaskFail && d.Reason == "" {
			d.Reason = rest
		}
		return s.agentTaskMove(ctx, m.From, typ, d)
	case bus.KindTaskCreate:
		if d.Assignee == "" || d.Title == "" {
			return "", errors.New("task_create needs data.assignee and data.title")
		}
		t, err := s.bus.CreateTask(ctx, bus.NewTask{Title: d.Title, Description: d.Description, Assignee: d.Assignee, CreatedBy: m.From})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("task %s created for %s: %s", t.ID, t.Assignee, t.Title), nil
	case bus.KindHeartbeat:
		if d.Status == "" && rest != "" {
			fields := strings.Fields(rest)
			d.Status = fields[0]
			if len(fields) > 1 {
				if p, err := strconv.ParseFloat(fields[1], 64); err == nil {
					d.Progress = &p
				}
			}
		}
		return "", s.beat(ctx, m.From, d)
	case bus.KindTurn:
		return "", s.turn(ctx, m.From, d)
	}
	return "", CheckControl(m)
}

// CheckControl reports whether swarm knows m's control type, so that a
// sender can be told at once rather than by a notice.
func CheckControl(m bus.Message) error {
	switch typ := controlType(m); {
	case slices.Contains(controlTypes, typ):
		return nil
	case typ == "":
		return errors.New("empty control message")
	default:
		return fmt.Errorf("unknown control message type %q (want %s)", typ, kindList(controlTypes))
	}
}

// controlTypes are the types control applies.
var controlTypes = []bus.Kind{bus.KindTaskStart, bus.KindTaskDone, bus.KindTaskFail, bus.KindTaskCreate, bus.KindHeartbeat, bus.KindTurn}

func (s *Supervisor) beat(ctx context.Context, agent string, d controlData) error {
	hb := bus.Heartbeat{Agent: agent, Task: d.Task}
	if d.Status != "" {
		st, err := bus.ParseStatus(d.Status)
		if err != nil {
			return err
		}
		hb.Status = st
	}
	if d.Progress != nil {
		hb.Progress = *d.Progress // bus.Beat checks the range
	}
	return s.bus.Beat(ctx, hb)
}

// agentTaskMove applies an agent's start, done or fail to its task (the
// one named, else its current one), by the task service's rules.
func (s *Supervisor) agentTaskMove(ctx context.Context, from string, typ bus.Kind, d controlData) (string, error) {
	move, note := tasks.MoveStart, ""
	switch typ {
	case bus.KindTaskDone:
		move = tasks.MoveDone
	case bus.KindTaskFail:
		move, note = tasks.MoveFail, d.Reason
	}
	_, _, err := s.tasks.Move(ctx, from, d.Task, move, note)
	if move == tasks.MoveDone && errors.Is(err, gitrepo.ErrConflict) {
		return "", nil // it is CONFLICTED and the agent has been told why
	}
	return "", err
}

// kindList is kinds as "a, b, c".
func kindList(kinds []bus.Kind) string {
	words := make([]string, len(kinds))
	for i, k := range kinds {
		words[i] = string(k)
	}
	return strings.Join(words, ", ")
}
