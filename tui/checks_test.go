package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/swarmapi"
)

// check records a run of one check on task, in state s, started ago
// before now (ended when final), with tail as its last lines.
func check(t *testing.T, b *bus.Bus, task string, run bus.CheckRun, cmd string, s bus.CheckState, now time.Time, ago time.Duration, tail string) {
	t.Helper()
	ctx := context.Background()
	if err := b.StartChecks(ctx, task, run, "c0ffee"+task, []string{cmd}, []string{"/logs/" + task}); err != nil {
		t.Fatal(err)
	}
	c := bus.Check{Task: task, Run: run, N: 0, Commit: "c0ffee" + task, State: s, Started: now.Add(-ago), Tail: tail}
	if s.Final() {
		c.Ended, c.Exit = now, 1
	}
	if err := b.UpdateCheck(ctx, c); err != nil {
		t.Fatal(err)
	}
}

// The board marks each task's checks ✓ ✗ ⋯, shows the merge queue with
// what runs now and for how long, and in a task's detail its checks (a
// failure's last lines), the reviewer's verdict and its place in the
// queue; m puts an approved task in the queue and says where.
func TestBoardShowsChecksAndTheMergeQueue(t *testing.T) {
	sw := scenario(t)
	ctx := context.Background()
	now := time.Now().Truncate(time.Second)
	good := createTask(t, sw.b, "add x", "alice", bus.TaskWorking, bus.TaskInReview)
	bad := createTask(t, sw.b, "add y", "bob", bus.TaskWorking, bus.TaskInReview)
	merging := createTask(t, sw.b, "add z", "alice", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	next := createTask(t, sw.b, "add w", "bob", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	later := createTask(t, sw.b, "add v", "carol", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	plain := createTask(t, sw.b, "no checks yet", "carol", bus.TaskWorking)
	for _, tk := range []bus.Task{good, bad, merging, next, later} {
		if err := sw.b.SetTaskGit(ctx, tk.ID, "swarm/"+tk.ID, "/wt/"+tk.ID, "main"); err != nil {
			t.Fatal(err)
		}
	}
	check(t, sw.b, good.ID, bus.RunBranch, "go test ./...", bus.CheckPassed, now, 3*time.Second, "ok")
	check(t, sw.b, bad.ID, bus.RunBranch, "go test ./...", bus.CheckFailed, now, 12*time.Second, "--- FAIL: TestY\nFAIL\tswarm/y\t0.1s")
	for _, id := range []string{merging.ID, next.ID} {
		if _, _, _, err := sw.b.Enqueue(ctx, id, bus.Human); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.b.SetQueuePhase(ctx, merging.ID, bus.PhaseChecking, "", "base", "c0ffee"+merging.ID); err != nil {
		t.Fatal(err)
	}
	check(t, sw.b, merging.ID, bus.RunMerge, "go test ./...", bus.CheckRunning, now, 7*time.Second, "")
	if _, err := sw.b.AddReview(ctx, bus.Review{Task: good.ID, Reviewer: "rev", Verdict: bus.VerdictApprove, Note: "looks good"}); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t, sw, 140, 40, Options{Now: func() time.Time { return now }})
	h.press(h.m.keys.Tasks)
	screen := h.screen()
	requireContains(t, screen, "MERGE QUEUE (2)", "1. "+merging.ID+" checking 0s: go test ./... 7s", "2. "+next.ID+" queued 0s",
		good.ID+" ✓ alice", bad.ID+" ✗ bob", merging.ID+" ⋯ alice", plain.ID+"   carol")

	h.selectTask(bad.ID)
	requireContains(t, h.screen(), "checks (branch at c0ffee"+bad.ID[:4]+")", "✗ go test ./...  exit 1, 12s", "│ --- FAIL: TestY", "│ FAIL swarm/y 0.1s")
	h.selectTask(good.ID)
	requireContains(t, h.screen(), "✓ go test ./...  3s", "review by rev: approve — looks good")
	h.selectTask(merging.ID)
	requireContains(t, h.screen(), "checks (merge with main at", "⋯ go test ./...  7s", "merge queue: 1 of 2, checking 0s")

	// The check ends: the swarm says the checks changed, the board reads
	// them again.
	if err := sw.b.UpdateCheck(ctx, bus.Check{Task: merging.ID, Run: bus.RunMerge, N: 0, Commit: "c0ffee" + merging.ID,
		State: bus.CheckPassed, Started: now.Add(-7 * time.Second), Ended: now}); err != nil {
		t.Fatal(err)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventChecks}})
	requireContains(t, h.screen(), merging.ID+" ✓ alice")

	// m on an approved task queues it, with [checks].
	sw.queueMerges = true
	h.selectTask(later.ID)
	h.press(h.m.keys.Merge)
	// The question says what m does here: it queues, it does not merge.
	requireContains(t, h.screen(), "Put task "+later.ID+" (add v) in the merge queue?", "once its merge passes the checks")
	h.press(h.m.keys.Yes)
	requireContains(t, h.screen(), "task "+later.ID+" (add v) queued to merge into main (3 of 3 in the merge queue)")
	if st := taskState(t, sw.b, later.ID); st != bus.TaskApproved {
		t.Errorf("queued task is %s", st)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventChecks}})
	requireContains(t, h.screen(), "MERGE QUEUE (3)", "3. "+later.ID+" queued")
	if strings.Count(h.screen(), "MERGE QUEUE") != 1 {
		t.Error("the queue is shown twice")
	}
}

// Moving down the board faster than a task's history is read shows the
// task the cursor lands on — its history and the reviewer's verdict —
// not the one it passed.
func TestBoardShowsTheTaskTheCursorLandsOn(t *testing.T) {
	sw := scenario(t)
	ctx := context.Background()
	first := createTask(t, sw.b, "first", "alice", bus.TaskWorking, bus.TaskInReview)
	createTask(t, sw.b, "second", "bob", bus.TaskWorking, bus.TaskInReview)
	third := createTask(t, sw.b, "third", "carol", bus.TaskWorking, bus.TaskInReview)
	if _, err := sw.b.AddReview(ctx, bus.Review{Task: third.ID, Reviewer: "rev", Verdict: bus.VerdictRequestChanges, Note: "no TODO"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sw, 140, 40, Options{})
	h.press(h.m.keys.Tasks)
	h.selectTask(first.ID)
	// Two presses before the first's read of the history comes back.
	_, afterFirst := h.m.Update(keyPress("down"))
	_, afterSecond := h.m.Update(keyPress("down"))
	h.run(afterFirst)
	h.run(afterSecond)
	if h.m.tasks.sel != third.ID {
		t.Fatalf("selected %s, want %s", h.m.tasks.sel, third.ID)
	}
	requireContains(t, h.screen(), "review by rev: request changes — no TODO", "WORKING → IN_REVIEW by carol")
}
