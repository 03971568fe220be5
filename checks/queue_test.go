package checks

import (
	"context"
	"strings"
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
