package tasks

import (
	"context"
	"fmt"
	"strings"

	"swarm/bus"
)

// Review records the verdict of the swarm's reviewer agent ([checks]
// review_by) on a task in review or approved: approve records it (the
// person still approves and merges; with review_required the approval of
// the branch's commit is a condition of merging); request changes
// records it and sends the task back to its agent (CHANGES_REQUESTED),
// who is told the note. Only the reviewer named may review, and not its
// own task; a request for changes needs a note, and is refused while the
// task is in the merge queue. It returns the verdict and the task after.
func (t *Service) Review(ctx context.Context, actor, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error) {
	note = strings.TrimSpace(note)
	policy, err := t.bus.CheckPolicy(ctx)
	if err != nil {
		return bus.Review{}, bus.Task{}, err
	}
	switch {
	case policy == nil || policy.ReviewBy == "":
		return bus.Review{}, bus.Task{}, &notAllowed{"this swarm has no reviewer agent ([checks] review_by): the person reviews with `swarm task approve` and `request-changes`"}
	case actor == bus.Human:
		return bus.Review{}, bus.Task{}, &notAllowed{fmt.Sprintf("task review is the reviewer agent's (%s): you approve with `swarm task approve` and send back with `swarm task request-changes`", policy.ReviewBy)}
	case actor != policy.ReviewBy:
		return bus.Review{}, bus.Task{}, &notAllowed{fmt.Sprintf("only the reviewer agent %s reviews tasks (review_by); this runs as agent %s", policy.ReviewBy, actor)}
	case strings.TrimSpace(ref) == "":
		return bus.Review{}, bus.Task{}, &notAllowed{"task review needs a task id"}
	case verdict != bus.VerdictApprove && verdict != bus.VerdictRequestChanges:
		return bus.Review{}, bus.Task{}, fmt.Errorf("task review: no such verdict %q (approve or request_changes)", verdict)
	case verdict == bus.VerdictRequestChanges && note == "":
		return bus.Review{}, bus.Task{}, &notAllowed{"a request for changes needs a note saying what to change (--note)"}
	}
	task, err := t.bus.Task(ctx, ref)
	if err != nil {
		return bus.Review{}, task, err
	}
	if task.Assignee == actor {
		return bus.Review{}, task, &notAllowed{fmt.Sprintf("task %s is %s's own: the person reviews it", task.ID, actor)}
	}
	if task.State != bus.TaskInReview && task.State != bus.TaskApproved {
		return bus.Review{}, task, wrongState(task, "task review", bus.TaskInReview, bus.TaskApproved)
	}
	r := bus.Review{Task: task.ID, Reviewer: actor, Verdict: verdict, Note: note}
	if task.Branch != "" {
		repo, err := t.repoFor(ctx, task)
		if err != nil {
			return bus.Review{}, task, err
		}
		if r.Commit, err = repo.BranchCommit(ctx, task.Branch); err != nil {
			return bus.Review{}, task, taskError(task.ID, err)
		}
	}
	if verdict == bus.VerdictRequestChanges {
		if e, err := t.bus.QueueEntryOf(ctx, task.ID); err == nil && e.Phase != bus.PhaseDone {
			return bus.Review{}, task, &notAllowed{fmt.Sprintf("task %s is in the merge queue (%s): the person decides now; cancel it to stop the merge", task.ID, e.Phase)}
		}
		body := fmt.Sprintf("task %s (%s) is CHANGES_REQUESTED: the reviewer %s asks for changes: %s", task.ID, task.Title, actor, note)
		if task.Worktree != "" {
			body += fmt.Sprintf(". Make them in %s, commit, then report done again.", task.Worktree)
		} else {
			body += ". Make them, then report done again."
		}
		if task, err = t.SendBack(ctx, task, actor, "the reviewer asks for changes: "+note, body); err != nil {
			return bus.Review{}, task, err
		}
	}
	r, err = t.bus.AddReview(ctx, r)
	return r, task, err
}
