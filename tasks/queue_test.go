package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"swarm/bus"
)

// With checks, merge queues the task (it stays APPROVED); uncommitted
// work is refused first, as without; review_required wants the reviewer's
// approval of the commit the branch is at.
func TestMergeWithChecksQueues(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	policy := &bus.CheckPolicy{Run: []string{"true"}, Timeout: time.Minute, Parallel: 1, ReviewBy: "rev", ReviewRequired: true}
	if err := e.bus.SetCheckPolicy(ctx, policy); err != nil {
		t.Fatal(err)
	}
	task := e.working(t, "greet", "g.txt", "hi\n")
	e.toApproved(t, task)

	_, err := e.tasks.Merge(ctx, task.ID, bus.Human)
	if !errors.Is(err, ErrNotReviewed) || !strings.Contains(err.Error(), "rev has not reviewed it yet") {
		t.Fatalf("merge without the reviewer's approval: %v", err)
	}
	tip := tgit(t, task.Worktree, "rev-parse", "HEAD")
	if _, err := e.bus.AddReview(ctx, bus.Review{Task: task.ID, Reviewer: "rev", Verdict: bus.VerdictApprove, Commit: "0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tasks.Merge(ctx, task.ID, bus.Human); !errors.Is(err, ErrNotReviewed) || !strings.Contains(err.Error(), "rev approved 0123456789, and its branch is at "+tip[:10]+" now") {
		t.Fatalf("merge with an approval of another commit: %v", err)
	}
	if _, err := e.bus.AddReview(ctx, bus.Review{Task: task.ID, Reviewer: "rev", Verdict: bus.VerdictApprove, Commit: tip}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, task.Worktree+"/junk.txt", "x")
	if _, err := e.tasks.Merge(ctx, task.ID, bus.Human); err == nil || !strings.Contains(err.Error(), "junk.txt") {
		t.Fatalf("merge with uncommitted work: %v", err)
	}
	tgit(t, task.Worktree, "clean", "-fq")
	got, err := e.tasks.Merge(ctx, task.ID, bus.Human)
	if err != nil || got.State != bus.TaskApproved {
		t.Fatalf("merge: %v %v", got.State, err)
	}
	if q, _ := e.bus.MergeQueue(ctx); len(q) != 1 || q[0].Task != task.ID || q[0].QueuedBy != bus.Human {
		t.Errorf("queue: %+v", q)
	}
	if tgit(t, e.repo, "log", "-1", "--format=%s", "main") != "initial" {
		t.Error("main moved without the queue")
	}
}

// The queue's moves: a task sent back is CHANGES_REQUESTED and its agent
// told; from there the agent starts or submits it again.
func TestSendBackAndTheWayOut(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	task := e.working(t, "greet", "g.txt", "hi\n")
	e.toApproved(t, task)
	task, _ = e.bus.Task(ctx, task.ID)
	back, err := e.tasks.SendBack(ctx, task, bus.Swarm, "the check failed", "fix it please")
	if err != nil || back.State != bus.TaskChangesRequested {
		t.Fatalf("send back: %v %v", back.State, err)
	}
	if got := strings.Join(e.inbox(t), "\n"); !strings.Contains(got, "fix it please") {
		t.Errorf("w was not told: %q", got)
	}
	if cur, err := e.bus.CurrentTask(ctx, "w"); err != nil || cur.ID != task.ID {
		t.Errorf("w's current task: %v %v", cur.ID, err)
	}
	if err := Allowed(back, MoveApprove); err == nil || !strings.Contains(err.Error(), "CHANGES_REQUESTED") {
		t.Errorf("approve of a task sent back: %v", err)
	}
	if _, after, err := e.tasks.Move(ctx, "w", "", MoveDone, ""); err != nil || after.State != bus.TaskInReview {
		t.Errorf("done again: %v %v", after.State, err)
	}
}
