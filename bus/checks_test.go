package bus

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A new run of checks replaces the run before it; a late update of the
// replaced run changes nothing.
func TestChecksOfARunReplaceTheRunBefore(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	task := taskIn(t, b, "IN_REVIEW")
	if err := b.StartChecks(ctx, task.ID, RunBranch, "c1", []string{"make", "make test"}, []string{"l0", "l1"}); err != nil {
		t.Fatal(err)
	}
	start := time.UnixMilli(time.Now().UnixMilli())
	if err := b.UpdateCheck(ctx, Check{Task: task.ID, Run: RunBranch, N: 1, Commit: "c1", State: CheckRunning, Started: start}); err != nil {
		t.Fatal(err)
	}
	if err := b.StartChecks(ctx, task.ID, RunBranch, "c2", []string{"make"}, []string{"l2"}); err != nil {
		t.Fatal(err)
	}
	// The first run's second check ends late: its row is gone.
	if err := b.UpdateCheck(ctx, Check{Task: task.ID, Run: RunBranch, N: 0, Commit: "c1", State: CheckFailed, Exit: 2}); err != nil {
		t.Fatal(err)
	}
	if err := b.StartChecks(ctx, task.ID, RunMerge, "m1", []string{"make"}, []string{"l3"}); err != nil {
		t.Fatal(err)
	}
	end := start.Add(1500 * time.Millisecond)
	if err := b.UpdateCheck(ctx, Check{Task: task.ID, Run: RunMerge, N: 0, Commit: "m1", State: CheckPassed, Started: start, Ended: end, Tail: "ok"}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Checks(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{Task: task.ID, Run: RunBranch, N: 0, Cmd: "make", Commit: "c2", State: CheckQueued, Log: "l2"},
		{Task: task.ID, Run: RunMerge, N: 0, Cmd: "make", Commit: "m1", State: CheckPassed, Started: start, Ended: end, Log: "l3", Tail: "ok"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	if d := got[1].Duration(time.Now()); d != 1500*time.Millisecond {
		t.Errorf("duration %v", d)
	}
	if cur := CurrentChecks(got); len(cur) != 1 || cur[0].Run != RunMerge {
		t.Errorf("current checks: %+v", cur)
	}
	if s, ok := Summary(got); !ok || s != CheckRunning {
		t.Errorf("summary of a run with a queued check: %v %v", s, ok)
	}
	if s, ok := Summary(CurrentChecks(got)); !ok || s != CheckPassed {
		t.Errorf("summary of the merge run: %v %v", s, ok)
	}
	// Back in review: a new run on the branch clears the queue's.
	if err := b.StartChecks(ctx, task.ID, RunBranch, "c3", []string{"make"}, []string{"l4"}); err != nil {
		t.Fatal(err)
	}
	if got, _ = b.Checks(ctx, task.ID); len(got) != 1 || got[0].Run != RunBranch || got[0].Commit != "c3" {
		t.Errorf("after a new branch run: %+v", got)
	}
}

func TestSummary(t *testing.T) {
	c := func(states ...CheckState) []Check {
		var cs []Check
		for _, s := range states {
			cs = append(cs, Check{State: s})
		}
		return cs
	}
	for _, tc := range []struct {
		cs   []Check
		want CheckState
	}{
		{c(CheckPassed, CheckPassed), CheckPassed},
		{c(CheckPassed, CheckRunning, CheckFailed), CheckRunning},
		{c(CheckTimedOut, CheckFailed), CheckFailed},
		{c(CheckCancelled, CheckTimedOut), CheckTimedOut},
		{c(CheckPassed, CheckCancelled), CheckCancelled},
	} {
		if got, ok := Summary(tc.cs); !ok || got != tc.want {
			t.Errorf("Summary(%v) = %v", tc.cs, got)
		}
	}
	if _, ok := Summary(nil); ok {
		t.Error("no checks have a summary")
	}
}

// The queue takes only approved tasks, keeps each once, in order, and
// takes a task whose entry is done at its end again.
func TestMergeQueueOrder(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	a, c := taskIn(t, b, "APPROVED"), taskIn(t, b, "APPROVED")
	review := taskIn(t, b, "IN_REVIEW")
	if _, _, _, err := b.Enqueue(ctx, review.ID, "human"); !errors.Is(err, ErrStateChanged) {
		t.Errorf("a task in review was queued: %v", err)
	}
	for i, id := range []string{a.ID, c.ID} {
		if _, pos, already, err := b.Enqueue(ctx, id, "human"); err != nil || pos != i+1 || already {
			t.Fatalf("enqueue %s: position %d, already %v, %v", id, pos, already, err)
		}
	}
	if _, pos, already, err := b.Enqueue(ctx, a.ID, "human"); err != nil || pos != 1 || !already {
		t.Errorf("enqueue again: position %d, already %v, %v", pos, already, err)
	}
	if err := b.SetQueuePhase(ctx, a.ID, PhaseWaiting, "dirty", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := b.FinishQueued(ctx, a.ID, false, "conflict in x"); err != nil {
		t.Fatal(err)
	}
	q, err := b.MergeQueue(ctx)
	if err != nil || len(q) != 1 || q[0].Task != c.ID {
		t.Fatalf("queue after one done: %+v, %v", q, err)
	}
	e, err := b.QueueEntryOf(ctx, a.ID)
	if err != nil || e.Phase != PhaseDone || e.Why != "conflict in x" || e.Merged {
		t.Errorf("done entry: %+v, %v", e, err)
	}
	if _, pos, already, err := b.Enqueue(ctx, a.ID, "human"); err != nil || pos != 2 || already {
		t.Errorf("queued again after done: position %d, already %v, %v", pos, already, err)
	}
	if _, err := b.QueueEntryOf(ctx, review.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("entry of a task never queued: %v", err)
	}
}

func TestCheckPolicyAndReviewsAreKept(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	if p, err := b.CheckPolicy(ctx); p != nil || err != nil {
		t.Fatalf("a new bus has checks: %+v, %v", p, err)
	}
	want := &CheckPolicy{Run: []string{"go vet ./..."}, Timeout: time.Minute, ReviewBy: "rev", Parallel: 2,
		Agents: map[string][]string{"bob": {}}}
	if err := b.SetCheckPolicy(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := b.CheckPolicy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	if cmds := got.Commands("bob"); len(cmds) != 0 {
		t.Errorf("bob's own (empty) checks: %v", cmds)
	}
	if cmds := got.Commands("eve"); len(cmds) != 1 {
		t.Errorf("eve's checks: %v", cmds)
	}
	if err := b.SetCheckPolicy(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.CheckPolicy(ctx); p != nil {
		t.Errorf("policy after nil: %+v", p)
	}

	task := taskIn(t, b, "IN_REVIEW")
	for _, v := range []Verdict{VerdictRequestChanges, VerdictApprove} {
		if _, err := b.AddReview(ctx, Review{Task: task.ID, Reviewer: "rev", Verdict: v, Note: string(v), Commit: "c"}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := b.Reviews(ctx, task.ID)
	if err != nil || len(rs) != 2 || rs[1].Verdict != VerdictApprove || rs[0].Note != "request_changes" {
		t.Errorf("reviews: %+v, %v", rs, err)
	}
}

// Every change to the checks, the queue and the reviews counts; what
// changes nothing does not.
func TestChecksVersionCountsChanges(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	task := taskIn(t, b, "APPROVED")
	version := func() int64 {
		v, err := b.ChecksVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	last := version()
	changed := func(what string, want bool) {
		t.Helper()
		v := version()
		if (v != last) != want {
			t.Errorf("%s: version %d → %d", what, last, v)
		}
		last = v
	}
	if err := b.StartChecks(ctx, task.ID, RunMerge, "c", []string{"make"}, []string{"l"}); err != nil {
		t.Fatal(err)
	}
	changed("a run starts", true)
	if err := b.UpdateCheck(ctx, Check{Task: task.ID, Run: RunMerge, N: 0, Commit: "c", State: CheckRunning}); err != nil {
		t.Fatal(err)
	}
	changed("a check runs", true)
	if err := b.UpdateCheck(ctx, Check{Task: task.ID, Run: RunMerge, N: 0, Commit: "old", State: CheckPassed}); err != nil {
		t.Fatal(err)
	}
	changed("a replaced run's check ends", false)
	if _, _, _, err := b.Enqueue(ctx, task.ID, "human"); err != nil {
		t.Fatal(err)
	}
	changed("queued", true)
	if _, _, _, err := b.Enqueue(ctx, task.ID, "human"); err != nil {
		t.Fatal(err)
	}
	changed("queued again", false)
	for i := range 2 {
		if err := b.SetQueuePhase(ctx, task.ID, PhaseWaiting, "dirty", "", ""); err != nil {
			t.Fatal(err)
		}
		changed("waits", i == 0)
	}
	if err := b.FinishQueued(ctx, task.ID, true, "merged"); err != nil {
		t.Fatal(err)
	}
	changed("done", true)
	if _, err := b.AddReview(ctx, Review{Task: task.ID, Reviewer: "rev", Verdict: VerdictApprove}); err != nil {
		t.Fatal(err)
	}
	changed("reviewed", true)
}
