package supervisor

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
)

// Attention is one thing that waits for the person: the UI's "needs you"
// list, `swarm status`'s and the bell.
type Attention struct {
	Kind  AttentionKind
	Agent string // the agent, or the task's assignee
	Task  string // the task's id, for a task
	Text  string // one line for a person, safe to print
}

// Key tells an item from others and from itself later: the same thing
// waiting is announced once.
func (a Attention) Key() string { return fmt.Sprintf("%d/%s/%s", a.Kind, a.Agent, a.Task) }

// DownAgent is an agent whose process died, and why.
type DownAgent struct{ Name, Reason string }

// NeedsYou lists what waits for the person: agents that died, then tasks
// in review, failed or in conflict, oldest first as given. It is the one
// rule for the UI's list and `swarm status`.
func NeedsYou(down []DownAgent, tasks []bus.Task) []Attention {
	var out []Attention
	for _, a := range down {
		text := "agent " + a.Name + " died"
		if r := textsafe.Words(a.Reason); r != "" {
			text += ": " + r
		}
		out = append(out, Attention{Kind: AttentionAgentDown, Agent: a.Name, Text: text})
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
