package checks

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/gitrepo/gittest"
	"swarm/internal/testrun"
)

// checkScript is the project's check: no file says BAD, and x.txt and
// y.txt are never both there (each passes alone; together they break).
const checkScript = `! grep -qs BAD *.txt && ! { [ -f x.txt ] && [ -f y.txt ]; }`

// Five tasks approved and queued at once: one breaks the check on its own
// branch, one conflicts with an earlier one, one passes alone but breaks
// the check combined with an earlier one. The base ends with exactly the
// good merges, in queue order, each first-parent commit passing the
// check; the others are back with their agents, told why.
func TestTheMergeQueueLandsExactlyTheGoodMerges(t *testing.T) {
	e := newEnv(t, "w1", "w2", "w3", "w4", "w5")
	gittest.CommitFile(t, e.repo, "check.sh", checkScript+"\n", "the check")
	e.run(t, &bus.CheckPolicy{Run: []string{"sh check.sh"}, Timeout: time.Minute, Parallel: 2})
	ctx := context.Background()
	x := e.inReview(t, "w1", "add x", map[string]string{"x.txt": "x\n"})
	bad := e.inReview(t, "w2", "add bad", map[string]string{"bad.txt": "BAD\n"})
	edit := e.inReview(t, "w3", "edit a", map[string]string{"a.txt": "one\nTHREE\nthree\n"})
	clash := e.inReview(t, "w4", "edit a too", map[string]string{"a.txt": "one\nFOUR\nthree\n"})
	y := e.inReview(t, "w5", "add y", map[string]string{"y.txt": "y\n"})
	all := []string{x.ID, bad.ID, edit.ID, clash.ID, y.ID}
	start := gittest.Git(t, e.repo, "rev-parse", "main")
	for _, id := range all {
		if _, err := e.tasks.Approve(ctx, id, bus.Human, ""); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range all {
		task, err := e.tasks.Merge(ctx, id, bus.Human)
		if err != nil || task.State != bus.TaskApproved {
			t.Fatalf("merge %s: %v, %v", id, task.State, err)
		}
		if e, err := e.bus.QueueEntryOf(ctx, id); err != nil || e.Phase == bus.PhaseDone && i > 0 {
			t.Fatalf("queue entry of %s: %+v %v", id, e, err)
		}
	}
	testrun.Within(t, testrun.Patience, "the queue to empty", func() bool {
		q, err := e.bus.MergeQueue(ctx)
		return err == nil && len(q) == 0
	})

	want := map[string]bus.TaskState{x.ID: bus.TaskCompleted, bad.ID: bus.TaskChangesRequested, edit.ID: bus.TaskCompleted,
		clash.ID: bus.TaskConflicted, y.ID: bus.TaskChangesRequested}
	for id, st := range want {
		if got := e.state(t, id); got != st {
			t.Errorf("task %s is %s, want %s", id, got, st)
		}
	}
	e.told(t, "w2", bus.KindTaskChanges, "CHANGES_REQUESTED", "`sh check.sh` failed (exit status 1)", "git rebase main")
	e.told(t, "w4", bus.KindTaskConflict, "CONFLICTED", "a.txt")
	e.told(t, "w5", bus.KindTaskChanges, "CHANGES_REQUESTED", "`sh check.sh` failed")
	for id, want := range map[string]string{bad.ID: "the check `sh check.sh` failed (exit status 1) on its merge with main", clash.ID: "conflict in a.txt"} {
		evs, _ := e.bus.TaskEvents(ctx, id)
		if note := evs[len(evs)-1].Note; !strings.Contains(note, want) {
			t.Errorf("task %s's last move says %q, want %q", id, note, want)
		}
	}

	// The base's first-parent history: exactly the good merges, in order,
	// each passing the check.
	log := strings.Fields(gittest.Git(t, e.repo, "rev-list", "--first-parent", start+"..main"))
	if len(log) != 2 {
		t.Fatalf("main has %d new first-parent commits, want 2 (x, edit)", len(log))
	}
	for i, id := range []string{edit.ID, x.ID} {
		if msg := gittest.Git(t, e.repo, "log", "-1", "--format=%s", log[i]); msg != "Merge task "+id+": "+map[string]string{x.ID: "add x", edit.ID: "edit a"}[id] {
			t.Errorf("commit %d of main: %q", i, msg)
		}
		gittest.Git(t, e.repo, "checkout", "-q", "--detach", log[i])
		if _, err := gittest.GitErr(e.repo, "diff", "--quiet"); err != nil {
			t.Fatal(err)
		}
		if out, err := runShell(e.repo, checkScript); err != nil {
			t.Errorf("main's commit %s fails the check: %v %s", log[i], err, out)
		}
	}
	gittest.Git(t, e.repo, "checkout", "-q", "main")
	if got := gittest.ReadFile(t, e.repo+"/a.txt"); got != "one\nTHREE\nthree\n" {
		t.Errorf("the main worktree did not follow: a.txt = %q", got)
	}
	if out := gittest.Git(t, e.repo, "worktree", "list"); strings.Contains(out, "merges") {
		t.Errorf("a scratch worktree is left:\n%s", out)
	}
}

// approved makes a task for agent committing files, approved, and puts it
// in the merge queue.
func (e *env) queued(t *testing.T, agent, title string, files map[string]string) bus.Task {
	t.Helper()
	ctx := context.Background()
	task := e.inReview(t, agent, title, files)
	if _, err := e.tasks.Approve(ctx, task.ID, bus.Human, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tasks.Merge(ctx, task.ID, bus.Human); err != nil {
		t.Fatal(err)
	}
	task, _ = e.bus.Task(ctx, task.ID)
	return task
}

// The person's checkout of the base with uncommitted changes holds the
// queue, which says why; once it is clean, the merge goes on.
func TestTheQueueWaitsForThePersonsCheckout(t *testing.T) {
	e := newEnv(t, "w")
	gittest.WriteFile(t, e.repo+"/b.txt", "my own edit\n")
	ctx := context.Background()
	if err := e.bus.SetCheckPolicy(ctx, &bus.CheckPolicy{Run: []string{"true"}, Timeout: time.Minute, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	task := e.queued(t, "w", "add c", map[string]string{"c.txt": "c\n"})
	e.run(t, &bus.CheckPolicy{Run: []string{"true"}, Timeout: time.Minute, Parallel: 1})
	testrun.Within(t, testrun.Patience, "the entry to wait", func() bool {
		q, _ := e.bus.MergeQueue(ctx)
		return len(q) == 1 && q[0].Phase == bus.PhaseWaiting && strings.Contains(q[0].Why, "uncommitted changes (b.txt)")
	})
	if got := gittest.ReadFile(t, e.repo+"/b.txt"); got != "my own edit\n" {
		t.Errorf("the person's edit was touched: %q", got)
	}
	gittest.Git(t, e.repo, "checkout", "b.txt")
	testrun.Within(t, testrun.Patience, "the task to merge", func() bool { return e.state(t, task.ID) == bus.TaskCompleted })
	if gittest.ReadFile(t, e.repo+"/c.txt") != "c\n" {
		t.Error("the checkout did not follow")
	}
}

// A queue killed mid-way left: a scratch worktree and a check's process
// still running (the entry checking), and an entry whose base moved to
// its checked merge while the checkout and the task did not follow. The
// next queue cleans up, checks the first again, and finishes the second.
func TestTheNextQueueFinishesWhatAKilledOneLeft(t *testing.T) {
	e := newEnv(t, "w1", "w2")
	ctx := context.Background()
	policy := &bus.CheckPolicy{Run: []string{"true"}, Timeout: time.Minute, Parallel: 1}
	if err := e.bus.SetCheckPolicy(ctx, policy); err != nil {
		t.Fatal(err)
	}
	moved := e.queued(t, "w1", "add c", map[string]string{"c.txt": "c\n"})
	checking := e.queued(t, "w2", "add d", map[string]string{"d.txt": "d\n"})

	repo, _ := e.tasks.Repo()
	plan, err := repo.PlanMerge(ctx, "main", moved.Branch, "Merge task "+moved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bus.SetQueuePhase(ctx, moved.ID, bus.PhaseAdvancing, "", plan.Old, plan.Commit); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, e.repo, "update-ref", "refs/heads/main", plan.Commit, plan.Old) // killed right after
	if err := e.bus.SetQueuePhase(ctx, checking.ID, bus.PhaseChecking, "", "x", "y"); err != nil {
		t.Fatal(err)
	}
	scratch, err := repo.AddScratchWorktree(ctx, checking.ID, plan.Old)
	if err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", "300")
	left.Env = append(os.Environ(), markVar+"="+markPrefix(e.bus.Dir(), bus.RunMerge)+"|"+checking.ID+"|0|1")
	left.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { left.Wait(); close(ended) }()
	t.Cleanup(func() { left.Process.Kill(); <-ended })

	e.run(t, policy)
	testrun.Within(t, testrun.Patience, "both tasks merged and out of the queue", func() bool {
		q, err := e.bus.MergeQueue(ctx)
		return err == nil && len(q) == 0 && e.state(t, moved.ID) == bus.TaskCompleted && e.state(t, checking.ID) == bus.TaskCompleted
	})
	select {
	case <-ended:
	default:
		t.Error("the killed queue's check process still runs")
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("the scratch worktree is still there: %v", err)
	}
	log := strings.Fields(gittest.Git(t, e.repo, "rev-list", "--first-parent", plan.Old+"..main"))
	if len(log) != 2 || log[1] != plan.Commit {
		t.Errorf("main's new first-parent commits %v: want the moved merge %s, then one more", log, plan.Commit)
	}
	if st := gittest.Git(t, e.repo, "status", "--porcelain", "--untracked-files=no"); st != "" || gittest.ReadFile(t, e.repo+"/c.txt") != "c\n" {
		t.Errorf("the checkout did not follow: %q", st)
	}
	for _, id := range []string{moved.ID, checking.ID} {
		if en, _ := e.bus.QueueEntryOf(ctx, id); en.Phase != bus.PhaseDone || !en.Merged {
			t.Errorf("entry of %s: %+v", id, en)
		}
	}
}
