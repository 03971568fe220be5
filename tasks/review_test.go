package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"swarm/bus"
)

// Only the reviewer agent named reviews, never its own task; approve
// records the verdict on the branch's commit and moves nothing; request
// changes needs a note, sends the task back and tells its agent.
func TestReviewByTheReviewerAgent(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	for _, a := range []string{"rev", "other"} {
		if err := e.bus.RegisterAgent(ctx, bus.Agent{Name: a, Cmd: "sh", State: bus.AgentRunning}); err != nil {
			t.Fatal(err)
		}
	}
	task := e.working(t, "greet", "g.txt", "hi\n")
	if _, err := e.tasks.Done(ctx, task.ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.tasks.Review(ctx, "rev", task.ID, bus.VerdictApprove, ""); !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), "no reviewer agent") {
		t.Errorf("review without [checks] review_by: %v", err)
	}
	if err := e.bus.SetCheckPolicy(ctx, &bus.CheckPolicy{Timeout: time.Minute, Parallel: 1, ReviewBy: "rev"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		actor, ref string
		v          bus.Verdict
		note, want string
	}{
		{bus.Human, task.ID, bus.VerdictApprove, "", "task review is the reviewer agent's (rev)"},
		{"other", task.ID, bus.VerdictApprove, "", "only the reviewer agent rev reviews tasks (review_by); this runs as agent other"},
		{"rev", "", bus.VerdictApprove, "", "needs a task id"},
		{"rev", task.ID, bus.VerdictRequestChanges, " ", "needs a note"},
	} {
		if _, _, err := e.tasks.Review(ctx, c.actor, c.ref, c.v, c.note); !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("review by %s of %q: %v, want %q", c.actor, c.ref, err, c.want)
		}
	}
	r, after, err := e.tasks.Review(ctx, "rev", task.ID, bus.VerdictApprove, "fine")
	if err != nil || after.State != bus.TaskInReview || r.Commit != tgit(t, task.Worktree, "rev-parse", "HEAD") {
		t.Fatalf("approve: %+v %v %v", r, after.State, err)
	}
	r, after, err = e.tasks.Review(ctx, "rev", task.ID, bus.VerdictRequestChanges, "say hello")
	if err != nil || after.State != bus.TaskChangesRequested || r.Verdict != bus.VerdictRequestChanges {
		t.Fatalf("request changes: %+v %v %v", r, after.State, err)
	}
	if got := strings.Join(e.inbox(t), "\n"); !strings.Contains(got, "the reviewer rev asks for changes: say hello") {
		t.Errorf("w was not told: %q", got)
	}
	if rs, _ := e.bus.Reviews(ctx, task.ID); len(rs) != 2 {
		t.Errorf("reviews: %+v", rs)
	}
	if _, _, err := e.tasks.Review(ctx, "rev", task.ID, bus.VerdictApprove, ""); !errors.Is(err, bus.ErrInvalidTransition) || !strings.Contains(err.Error(), "CHANGES_REQUESTED") {
		t.Errorf("review of a task sent back: %v", err)
	}

	// Its own task: the person reviews it.
	own, err := e.bus.CreateTask(ctx, bus.NewTask{Title: "rev's own", Assignee: "rev", CreatedBy: bus.Human})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.tasks.Review(ctx, "rev", own.ID, bus.VerdictApprove, ""); !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), "rev's own") {
		t.Errorf("review of its own task: %v", err)
	}
}
