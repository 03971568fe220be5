package tasks

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"swarm/bus"
)

// Move is a move a person or an agent asks of a task.
type Move int

// The moves. The first three are the assignee's (an agent reporting on
// its own work; the human may make them too); the rest are the human
// reviewer's alone.
const (
	MoveStart Move = iota
	MoveDone
	MoveFail
	MoveApprove
	MoveRequestChanges
	MoveCancel
	MoveRetry
	MoveMerge

	// moveConflict is not asked for: it is what a rebase at done or a
	// merge that conflicts does to the task.
	moveConflict
	// moveSendBack is not asked for by name either: it is what a check
	// failing in the merge queue, or the reviewer agent asking for
	// changes, does to the task (Service.SendBack, Service.Review).
	moveSendBack
)

var moveNames = [...]string{"start", "done", "fail", "approve", "request changes", "cancel", "retry", "merge", "conflict", "send back"}

func (m Move) String() string {
	if int(m) < len(moveNames) {
		return moveNames[m]
	}
	return "unknown move"
}

// reviewers says whether only the human makes the move.
func (m Move) reviewers() bool { return m >= MoveApprove && m <= MoveMerge }

// moveRules says, for each move, the states of a task it applies to and
// the state it leads to. The bus's transition table says which state may
// follow which; this says which of those moves a person or an agent asks
// for by name (and the one a conflict makes). Every move of a task, the
// runtime's included, is made by these rules (Service.step): no other
// code names a move's states.
var moveRules = map[Move]struct {
	from []bus.TaskState
	to   bus.TaskState
}{
	MoveStart:          {[]bus.TaskState{bus.TaskAssigned, bus.TaskConflicted, bus.TaskChangesRequested}, bus.TaskWorking},
	MoveDone:           {[]bus.TaskState{bus.TaskWorking, bus.TaskConflicted, bus.TaskChangesRequested}, bus.TaskInReview},
	MoveFail:           {[]bus.TaskState{bus.TaskAssigned, bus.TaskWorking, bus.TaskChangesRequested, bus.TaskConflicted, bus.TaskInReview, bus.TaskApproved}, bus.TaskFailed},
	MoveApprove:        {[]bus.TaskState{bus.TaskInReview}, bus.TaskApproved},
	MoveRequestChanges: {[]bus.TaskState{bus.TaskInReview}, bus.TaskWorking},
	MoveCancel:         {[]bus.TaskState{bus.TaskAssigned, bus.TaskWorking, bus.TaskChangesRequested, bus.TaskConflicted, bus.TaskInReview, bus.TaskApproved, bus.TaskFailed}, bus.TaskCancelled},
	MoveRetry:          {[]bus.TaskState{bus.TaskFailed}, bus.TaskAssigned},
	MoveMerge:          {[]bus.TaskState{bus.TaskApproved}, bus.TaskCompleted},
	moveConflict:       {[]bus.TaskState{bus.TaskWorking, bus.TaskChangesRequested, bus.TaskApproved}, bus.TaskConflicted},
	moveSendBack:       {[]bus.TaskState{bus.TaskInReview, bus.TaskApproved}, bus.TaskChangesRequested},
}

// AppliesTo reports whether the move takes a task in state s somewhere
// new: what a UI offers for a task in that state.
func (m Move) AppliesTo(s bus.TaskState) bool { return slices.Contains(moveRules[m].from, s) }

// to is the state the move leads to.
func (m Move) to() bus.TaskState { return moveRules[m].to }

// Allowed returns nil when move applies to a task in the task's state, or
// the task is already where the move leads (a repeat is a no-op); else the
// refusal Move would give, naming the state and the moves allowed from it.
// A UI asks it before offering a move; it matches bus.ErrInvalidTransition.
func Allowed(task bus.Task, move Move) error {
	rule, ok := moveRules[move]
	if !ok {
		return fmt.Errorf("unknown task move %d", move)
	}
	if repeat(task, move) || move.AppliesTo(task.State) {
		return nil
	}
	return wrongState(task, move.String(), rule.from...)
}

// repeat reports whether the task is already where move leads: asking
// again is a no-op. An ASSIGNED task need not have failed before, so a
// retry is never taken for a repeat.
func repeat(task bus.Task, move Move) bool {
	return task.State == moveRules[move].to && move != MoveRetry
}

// ErrNotAllowed is wrapped by the refusals of Move: the actor may not make
// that move on that task.
var ErrNotAllowed = errors.New("move not allowed")

// notAllowed reads as its message alone and matches ErrNotAllowed.
type notAllowed struct{ msg string }

func (r *notAllowed) Error() string { return r.msg }
func (r *notAllowed) Unwrap() error { return ErrNotAllowed }

// Move is the one way a task is moved on request: from the command line,
// from an agent's control message, or from the UI. ref is a task id or
// unique prefix; empty, it is the actor's current task (assignee moves
// only). Who may move what is decided here: the reviewer's moves are the
// human's alone; an agent moves only tasks assigned to it. It returns the
// task before the move, and after it (also when the move failed part way,
// e.g. a rebase conflict that left the task CONFLICTED).
func (t *Service) Move(ctx context.Context, actor, ref string, move Move, note string) (before, after bus.Task, err error) {
	if move.reviewers() && actor != bus.Human {
		// Review is the person's: an agent does not approve, merge or
		// cancel work, its own or another's.
		return before, after, &notAllowed{fmt.Sprintf("only the human reviewer moves tasks this way; this runs as agent %s", actor)}
	}
	if ref == "" && move.reviewers() {
		return before, after, &notAllowed{fmt.Sprintf("%s needs a task id", move)}
	}
	if before, err = t.resolve(ctx, ref, actor); err != nil {
		return before, after, err
	}
	if actor != bus.Human && before.Assignee != actor {
		return before, after, &notAllowed{fmt.Sprintf("task %s is assigned to %s, not %s", before.ID, before.Assignee, actor)}
	}
	id := before.ID
	switch move {
	case MoveStart:
		after, err = t.Start(ctx, id, actor, note)
	case MoveDone:
		after, err = t.Done(ctx, id, actor, note)
	case MoveFail:
		after, err = t.Fail(ctx, id, actor, note)
	case MoveApprove:
		after, err = t.Approve(ctx, id, actor, note)
	case MoveRequestChanges:
		after, err = t.RequestChanges(ctx, id, actor, note)
	case MoveCancel:
		after, err = t.Cancel(ctx, id, actor, note)
	case MoveRetry:
		after, err = t.Retry(ctx, id, actor, note)
	case MoveMerge:
		after, err = t.Merge(ctx, id, actor)
	default:
		err = fmt.Errorf("unknown task move %d", move)
	}
	return before, after, err
}
