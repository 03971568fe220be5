package swarmapi

import (
	"fmt"

	"swarm/bus"
	"swarm/textsafe"
)

// AttentionKind is what about an item waits for the person.
type AttentionKind int

const (
	// AttentionAgentDown: an agent's process died (an error exit, a
	// signal, a crash loop) and nothing will start it again by itself.
	AttentionAgentDown AttentionKind = iota
	// AttentionReview: a task waits in review.
	AttentionReview
	// AttentionFailed: a task failed.
	AttentionFailed
	// AttentionConflict: a task's branch conflicts with its base.
	AttentionConflict
	// AttentionNeedsHuman: an agent's CLI waits for the person (a
	// permission prompt, a question), as its hook said.
	AttentionNeedsHuman
	// AttentionQuestion: an agent sent the person a message (@relay:human)
	// that they have neither answered nor dismissed.
	AttentionQuestion
)

// Attention is one thing that waits for the person: the UI's "needs you"
// list, `swarm status`'s and the bell.
type Attention struct {
	Kind  AttentionKind
	Agent string // the agent, or the task's assignee
	Task  string // the task's id, for a task
	// Message is the question's id, for a question; Question its text.
	Message, Question string
	Text              string // one line for a person, safe to print
}

// Key tells an item from others and from itself later: the same thing
// waiting is announced once.
func (a Attention) Key() string {
	return fmt.Sprintf("%d/%s/%s/%s", a.Kind, a.Agent, a.Task, a.Message)
}

// AgentNeed is an agent that waits for the person: its process died, or
// its CLI's hook said it needs them. Why says why it died or what it
// waits for.
type AgentNeed struct {
	Name string
	Died bool
	Why  string
}

// AgentNeedOf says whether an agent waits for the person, from what is
// known of it: its liveness level and what its hooks last said.
func AgentNeedOf(name string, level bus.Level, reason string, turn bus.Status, note string) (AgentNeed, bool) {
	switch {
	case level == bus.LevelDead:
		return AgentNeed{Name: name, Died: true, Why: reason}, true
	case turn == bus.StatusNeedsHuman && level != bus.LevelDone:
		return AgentNeed{Name: name, Why: note}, true
	}
	return AgentNeed{}, false
}

// NeedsYou lists what waits for the person: agents that died or need
// them, then the questions agents put to them (their open messages to the
// person: bus.Bus.Pending of bus.Human), then tasks in review, failed or
// in conflict, oldest first as given. It is the one rule for the UI's
// list and `swarm status`.
func NeedsYou(agents []AgentNeed, questions []bus.Message, tasks []bus.Task) []Attention {
	var out []Attention
	for _, a := range agents {
		kind, text := AttentionAgentDown, "agent "+a.Name+" died"
		if !a.Died {
			kind, text = AttentionNeedsHuman, "agent "+a.Name+" needs you"
		}
		if r := textsafe.Words(a.Why); r != "" {
			text += ": " + r
		}
		out = append(out, Attention{Kind: kind, Agent: a.Name, Text: text})
	}
	for _, m := range questions {
		out = append(out, questionNeed(m))
	}
	for _, t := range tasks {
		kind, what := AttentionReview, "waits for your review"
		switch t.State {
		case bus.TaskInReview:
		case bus.TaskFailed:
			kind, what = AttentionFailed, "failed"
		case bus.TaskConflicted:
			kind, what = AttentionConflict, "conflicts with "+t.Base
		default:
			continue
		}
		out = append(out, Attention{Kind: kind, Agent: t.Assignee, Task: t.ID,
			Text: fmt.Sprintf("task %s (%s) of %s %s", t.ID, textsafe.Words(t.Title), t.Assignee, what)})
	}
	return out
}

// AttentionStates are the task states NeedsYou looks at.
var AttentionStates = []bus.TaskState{bus.TaskInReview, bus.TaskFailed, bus.TaskConflicted}

// questionShown bounds a question's text on the list: the list is one
// line per item; the whole message is in the log and the inbox.
const questionShown = 200

// questionNeed is an open question as an item of the "needs you" list.
func questionNeed(m bus.Message) Attention {
	q := textsafe.Words(m.Shown())
	if r := []rune(q); len(r) > questionShown {
		q = string(r[:questionShown-1]) + "…"
	}
	return Attention{Kind: AttentionQuestion, Agent: m.From, Message: m.ID, Question: q,
		Text: fmt.Sprintf("%s asks: %s", textsafe.Words(m.From), q)}
}
