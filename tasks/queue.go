package tasks

import (
	"context"
	"fmt"

	"swarm/bus"
	"swarm/gitrepo"
)

// The task side of the merge queue: what merge does when the swarm has
// checks (queue), and the moves the queue makes (package checks) as it
// takes each task: Merged, SendBack, MergeConflicted.

// queue puts an approved task in the merge queue. With review_required,
// its reviewer must have approved the commit its branch is at.
func (t *Service) queue(ctx context.Context, repo *gitrepo.Repo, task bus.Task, actor string, policy *bus.CheckPolicy) (bus.Task, error) {
	if policy.ReviewRequired {
		tip, err := repo.BranchCommit(ctx, task.Branch)
		if err != nil {
			return task, taskError(task.ID, err)
		}
		if err := t.ReviewedAt(ctx, task, policy.ReviewBy, tip); err != nil {
			return task, err
		}
	}
	if _, _, _, err := t.bus.Enqueue(ctx, task.ID, actor); err != nil {
		return task, err
	}
	return task, nil
}

// ErrNotReviewed is wrapped by a merge refused because the reviewer's
// approval, which review_required makes a condition, is missing.
var ErrNotReviewed = fmt.Errorf("%w: the reviewer's approval is missing", ErrNotAllowed)

// ReviewedAt returns nil if reviewer's latest verdict on task approves
// its branch at commit tip; else why not, wrapping ErrNotReviewed.
func (t *Service) ReviewedAt(ctx context.Context, task bus.Task, reviewer, tip string) error {
	reviews, err := t.bus.Reviews(ctx, task.ID)
	if err != nil {
		return taskError(task.ID, err)
	}
	var last *bus.Review
	for i := range reviews {
		if reviews[i].Reviewer == reviewer {
			last = &reviews[i]
		}
	}
	why := ""
	switch {
	case last == nil:
		why = reviewer + " has not reviewed it yet"
	case last.Verdict != bus.VerdictApprove:
		why = fmt.Sprintf("%s asked for changes: %s", reviewer, last.Note)
	case last.Commit != tip:
		why = fmt.Sprintf("%s approved %s, and its branch is at %s now", reviewer, short(last.Commit), short(tip))
	default:
		return nil
	}
	return &notReviewed{fmt.Sprintf("task %s needs its reviewer's approval to merge (review_required): %s", task.ID, why)}
}

type notReviewed struct{ msg string }

func (e *notReviewed) Error() string { return e.msg }
func (e *notReviewed) Unwrap() error { return ErrNotReviewed }

func short(commit string) string { return commit[:min(len(commit), 10)] }

// Merged completes an APPROVED task whose branch the merge queue merged
// into its base (note says how) and removes its worktree.
func (t *Service) Merged(ctx context.Context, task bus.Task, note string) (bus.Task, error) {
	if done, err := check(task, MoveMerge); done {
		return task, err
	}
	return t.merged(ctx, task, bus.Swarm, note)
}

// SendBack sends a task in review or approved back to its agent
// (CHANGES_REQUESTED), as actor, with note recorded on the move and body
// told to the agent: what a check that failed in the merge queue, or the
// reviewer agent asking for changes, does.
func (t *Service) SendBack(ctx context.Context, task bus.Task, actor, note, body string) (bus.Task, error) {
	if done, err := check(task, moveSendBack); done {
		return task, err
	}
	moved, err := t.step(ctx, task, moveSendBack, actor, note)
	if err != nil {
		return moved, err
	}
	t.tell(ctx, moved, actor, bus.KindTaskChanges, body)
	return moved, nil
}

// MergeConflicted moves an APPROVED task whose branch conflicts with its
// base to CONFLICTED, telling its agent which files, as Merge does.
func (t *Service) MergeConflicted(ctx context.Context, task bus.Task, c *gitrepo.ConflictError) (bus.Task, error) {
	return t.conflicted(ctx, task, bus.Swarm, c, rebaseTodo(task))
}

// rebaseTodo tells the agent of a task that conflicts with its base what
// to do.
func rebaseTodo(task bus.Task) string {
	todo := "Rebase your branch onto it"
	if task.Worktree != "" {
		todo += " in " + task.Worktree
	}
	return todo + fmt.Sprintf(" (`git rebase %s`), resolve, commit, then report done again.", task.Base)
}
