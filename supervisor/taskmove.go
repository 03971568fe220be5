package supervisor

import (
	"context"
	"errors"
	"fmt"

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
)

var moveNames = [...]string{"start", "done", "fail", "approve", "request changes", "cancel", "retry", "merge"}

func (m Move) String() string {
	if int(m) < len(moveNames) {
		return moveNames[m]
	}
	return "unknown move"
}

// reviewers says whether only the human makes the move.
func (m Move) reviewers() bool { return m >= MoveApprove }

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
func (t *Tasks) Move(ctx context.Context, actor, ref string, move Move, note string) (before, after bus.Task, err error) {
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
