package tasks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"swarm/bus"
	"swarm/gitrepo"
	"swarm/gitrepo/gittest"
)

// The git fixtures, under the names these tests use.
var (
	gitTestEnv  = gittest.Isolate
	tgit        = gittest.Git
	tgitErr     = gittest.GitErr
	newTestRepo = gittest.NewRepo
	writeFile   = gittest.WriteFile
	commitFile  = gittest.CommitFile
)

// taskEnv is a git repository with a bus in its .swarm directory and a
// registered agent "w", as a swarm in that project would have.
type taskEnv struct {
	repo  string
	bus   *bus.Bus
	tasks *Service
}

func newTaskEnv(t *testing.T) *taskEnv {
	t.Helper()
	gitTestEnv(t)
	e := &taskEnv{repo: newTestRepo(t)}
	b, err := bus.Open(bus.Options{Dir: filepath.Join(e.repo, ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.RegisterAgent(context.Background(), bus.Agent{Name: "w", Cmd: "sh", State: bus.AgentRunning}); err != nil {
		t.Fatal(err)
	}
	e.bus = b
	e.tasks = New(context.Background(), b, e.repo, "")
	return e
}

// working creates a task for w with its worktree, started, and commits
// name in it.
func (e *taskEnv) working(t *testing.T, title, name, content string) bus.Task {
	t.Helper()
	ctx := context.Background()
	task, err := e.bus.CreateTask(ctx, bus.NewTask{Title: title, Assignee: "w", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if task, err = e.tasks.Prepare(ctx, task); err != nil {
		t.Fatal(err)
	}
	if task, err = e.tasks.Start(ctx, task.ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	commitFile(t, task.Worktree, name, content, title)
	return task
}

func (e *taskEnv) state(t *testing.T, id string) bus.TaskState {
	t.Helper()
	task, err := e.bus.Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return task.State
}

// toApproved takes a working task through done and approve.
func (e *taskEnv) toApproved(t *testing.T, task bus.Task) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.tasks.Done(ctx, task.ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tasks.Approve(ctx, task.ID, "human", ""); err != nil {
		t.Fatal(err)
	}
}

// inbox returns the bodies of the messages queued for w.
func (e *taskEnv) inbox(t *testing.T) []string {
	t.Helper()
	msgs, err := e.bus.Pending(context.Background(), "w", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Body)
	}
	return out
}

func TestTaskWorktreeIsExcludedAndNamedByTask(t *testing.T) {
	e := newTaskEnv(t)
	task := e.working(t, "first", "f.txt", "f\n")
	if task.Branch != "swarm/"+task.ID || task.Worktree != filepath.Join(e.repo, ".swarm", "worktrees", task.ID) || task.Base != "main" {
		t.Errorf("task git = %q %q %q", task.Branch, task.Worktree, task.Base)
	}
	if got := tgit(t, e.repo, "status", "--porcelain"); got != "" {
		t.Errorf(".swarm/ shows in git status: %q", got)
	}
}

func TestRebaseConflictAtDoneGoesConflicted(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	task := e.working(t, "edit a", "a.txt", "one\nTASK\nthree\n")
	commitFile(t, e.repo, "a.txt", "one\nBASE\nthree\n", "base moves meanwhile")

	_, err := e.tasks.Done(ctx, task.ID, "w", "")
	if !errors.Is(err, gitrepo.ErrConflict) || !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), task.ID) {
		t.Fatalf("done: %v; want a conflict in a.txt naming the task", err)
	}
	if st := e.state(t, task.ID); st != bus.TaskConflicted {
		t.Fatalf("state %s, want CONFLICTED", st)
	}
	if got := strings.Join(e.inbox(t), "\n"); !strings.Contains(got, "CONFLICTED") || !strings.Contains(got, "a.txt") {
		t.Errorf("w was not told which files: %q", got)
	}
	if got := tgit(t, task.Worktree, "status", "--porcelain"); got != "" {
		t.Errorf("rebase left the worktree dirty: %q", got)
	}
	// The agent resolves by rebasing itself; done again reaches review.
	if _, err := tgitErr(task.Worktree, "rebase", "main"); err == nil {
		t.Fatal("expected the manual rebase to stop at the conflict")
	}
	writeFile(t, filepath.Join(task.Worktree, "a.txt"), "one\nBOTH\nthree\n")
	tgit(t, task.Worktree, "add", "a.txt")
	cmd := []string{"-c", "core.editor=true", "rebase", "--continue"}
	tgit(t, task.Worktree, cmd...)
	if _, err := e.tasks.Done(ctx, task.ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	if st := e.state(t, task.ID); st != bus.TaskInReview {
		t.Fatalf("state %s after resolving, want IN_REVIEW", st)
	}
}

func TestDoneWithUncommittedWorkIsRefused(t *testing.T) {
	e := newTaskEnv(t)
	task := e.working(t, "half done", "h.txt", "h\n")
	writeFile(t, filepath.Join(task.Worktree, "loose.txt"), "not committed\n")
	_, err := e.tasks.Done(context.Background(), task.ID, "w", "")
	if !errors.Is(err, gitrepo.ErrDirty) || !strings.Contains(err.Error(), "loose.txt") {
		t.Fatalf("done: %v; want uncommitted changes naming loose.txt", err)
	}
	if st := e.state(t, task.ID); st != bus.TaskWorking {
		t.Errorf("state %s, want it left WORKING", st)
	}
}

func TestMergeConflictLeavesNothingHalfMerged(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	task := e.working(t, "edit b", "b.txt", "task bee\n")
	e.toApproved(t, task)
	commitFile(t, e.repo, "b.txt", "base bee\n", "base moves after approval")
	head := tgit(t, e.repo, "rev-parse", "HEAD")

	_, err := e.tasks.Merge(ctx, task.ID, "human")
	if !errors.Is(err, gitrepo.ErrConflict) || !strings.Contains(err.Error(), "b.txt") {
		t.Fatalf("merge: %v; want a conflict in b.txt", err)
	}
	if got := tgit(t, e.repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %s to %s", head, got)
	}
	if got := tgit(t, e.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree not clean after a refused merge: %q", got)
	}
	if st := e.state(t, task.ID); st != bus.TaskConflicted {
		t.Errorf("state %s, want CONFLICTED", st)
	}
	if got := strings.Join(e.inbox(t), "\n"); !strings.Contains(got, "Rebase your branch") {
		t.Errorf("w was not asked to rebase: %q", got)
	}
	if _, err := os.Stat(task.Worktree); err != nil {
		t.Errorf("the worktree must stay for the rebase: %v", err)
	}
}

func TestMergeRefusesADirtyMainWorktree(t *testing.T) {
	e := newTaskEnv(t)
	task := e.working(t, "add c", "c.txt", "c\n")
	e.toApproved(t, task)
	writeFile(t, filepath.Join(e.repo, "a.txt"), "edited by the human\n")
	_, err := e.tasks.Merge(context.Background(), task.ID, "human")
	if !errors.Is(err, gitrepo.ErrDirty) || !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), task.ID) {
		t.Fatalf("merge: %v; want a refusal naming a.txt and the task", err)
	}
	if st := e.state(t, task.ID); st != bus.TaskApproved {
		t.Errorf("state %s, want it left APPROVED", st)
	}
}

func TestMergeRefusesUncommittedWorkInTheTaskWorktree(t *testing.T) {
	e := newTaskEnv(t)
	task := e.working(t, "add d", "d.txt", "d\n")
	e.toApproved(t, task)
	writeFile(t, filepath.Join(task.Worktree, "late.txt"), "written after review\n")
	_, err := e.tasks.Merge(context.Background(), task.ID, "human")
	if !errors.Is(err, gitrepo.ErrDirty) || !strings.Contains(err.Error(), "late.txt") {
		t.Fatalf("merge: %v; want a refusal naming late.txt", err)
	}
	if st := e.state(t, task.ID); st != bus.TaskApproved {
		t.Errorf("state %s, want it left APPROVED", st)
	}
	if _, err := os.Stat(filepath.Join(task.Worktree, "late.txt")); err != nil {
		t.Errorf("the uncommitted file is gone: %v", err)
	}
}

func TestTwoMergesAtOnceAreSerialised(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	t1 := e.working(t, "one", "one.txt", "1\n")
	t2 := e.working(t, "two", "two.txt", "2\n")
	e.toApproved(t, t1)
	e.toApproved(t, t2)
	// Two services, as two processes would have.
	other := New(ctx, e.bus, e.repo, "")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, m := range []struct {
		s  *Service
		id string
	}{{e.tasks, t1.ID}, {other, t2.ID}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = m.s.Merge(ctx, m.id, "human")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	merges := strings.Fields(tgit(t, e.repo, "rev-list", "--merges", "main"))
	if len(merges) != 2 {
		t.Fatalf("%d merge commits on main, want 2", len(merges))
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(e.repo, f)); err != nil {
			t.Errorf("%s is not on main: %v", f, err)
		}
	}
	for _, id := range []string{t1.ID, t2.ID} {
		if st := e.state(t, id); st != bus.TaskCompleted {
			t.Errorf("task %s is %s", id, st)
		}
	}
}

func TestCancelAndRetryCleanUp(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	cancelled := e.working(t, "doomed", "d.txt", "d\n")
	writeFile(t, filepath.Join(cancelled.Worktree, "precious.txt"), "not committed yet\n")
	if _, err := e.tasks.Cancel(ctx, cancelled.ID, "human", "not needed"); err != nil {
		t.Fatal(err)
	}
	// Nothing is lost: the uncommitted file is saved on the kept branch.
	if got := tgit(t, e.repo, "show", cancelled.Branch+":precious.txt"); got != "not committed yet" {
		t.Errorf("precious.txt on %s: %q", cancelled.Branch, got)
	}
	if _, err := os.Stat(cancelled.Worktree); !os.IsNotExist(err) {
		t.Errorf("cancelled task's worktree still exists: %v", err)
	}
	if got := tgit(t, e.repo, "branch", "--list", cancelled.Branch); !strings.Contains(got, cancelled.Branch) {
		t.Errorf("the branch of a cancelled task must be kept")
	}
	if got := strings.Join(e.inbox(t), "\n"); !strings.Contains(got, "cancelled: stop work on it") {
		t.Errorf("w was not told to stop: %q", got)
	}

	failed := e.working(t, "flaky", "x.txt", "x\n")
	if _, err := e.tasks.Fail(ctx, failed.ID, "w", "tests broke"); err != nil {
		t.Fatal(err)
	}
	retried, err := e.tasks.Retry(ctx, failed.ID, "human", "")
	if err != nil {
		t.Fatal(err)
	}
	if retried.State != bus.TaskAssigned || retried.Worktree != "" {
		t.Errorf("after retry: %s, worktree %q", retried.State, retried.Worktree)
	}
	if _, err := os.Stat(failed.Worktree); !os.IsNotExist(err) {
		t.Errorf("retried task's old worktree still exists: %v", err)
	}
	fresh, err := e.tasks.Prepare(ctx, retried)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fresh.Worktree, "x.txt")); err != nil {
		t.Errorf("the fresh worktree is on the kept branch: %v", err)
	}
}

func TestInvalidTaskMovesNameTheStateAndTheMoves(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	task := e.working(t, "w1", "w1.txt", "1\n")
	_, err := e.tasks.Merge(ctx, task.ID, "human")
	if !errors.Is(err, bus.ErrInvalidTransition) || !strings.Contains(err.Error(), "WORKING") || !strings.Contains(err.Error(), "IN_REVIEW") {
		t.Errorf("merge of a WORKING task: %v", err)
	}
	_, err = e.tasks.Approve(ctx, task.ID, "human", "")
	if !errors.Is(err, bus.ErrInvalidTransition) {
		t.Errorf("approve of a WORKING task: %v", err)
	}
	// A late or repeated start does not pull a task out of review.
	if _, err := e.tasks.Done(ctx, task.ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	if _, err = e.tasks.Start(ctx, task.ID, "w", ""); !errors.Is(err, bus.ErrInvalidTransition) || !strings.Contains(err.Error(), "IN_REVIEW") {
		t.Errorf("start of a task in review: %v", err)
	}
	if st := e.state(t, task.ID); st != bus.TaskInReview {
		t.Errorf("state %s after a refused start, want IN_REVIEW", st)
	}
	if _, err := e.tasks.Cancel(ctx, task.ID, "human", ""); err != nil {
		t.Fatal(err)
	}
	_, err = e.tasks.Retry(ctx, task.ID, "human", "")
	if err == nil || !strings.Contains(err.Error(), "CANCELLED") {
		t.Errorf("retry of a cancelled task: %v", err)
	}
}

// TestMoveIsTheOneRuleForWhoMovesATask: the reviewer's moves are the
// human's; an agent moves its own tasks, the current one by default.
func TestMoveIsTheOneRuleForWhoMovesATask(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	if err := e.bus.RegisterAgent(ctx, bus.Agent{Name: "v", Cmd: "sh", State: bus.AgentRunning}); err != nil {
		t.Fatal(err)
	}
	task, err := e.bus.CreateTask(ctx, bus.NewTask{Title: "plain", Assignee: "w", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		actor, ref string
		move       Move
		want       string
	}{
		{"w", task.ID, MoveApprove, "only the human reviewer moves tasks this way; this runs as agent w"},
		{"v", task.ID, MoveStart, "task " + task.ID + " is assigned to w, not v"},
		{bus.Human, "", MoveMerge, "merge needs a task id"},
	} {
		_, _, err := e.tasks.Move(ctx, c.actor, c.ref, c.move, "")
		if !errors.Is(err, ErrNotAllowed) || err.Error() != c.want {
			t.Errorf("%s %s by %s: %v, want %q", c.move, c.ref, c.actor, err, c.want)
		}
	}
	if got := e.state(t, task.ID); got != bus.TaskAssigned {
		t.Fatalf("a refused move changed the task: %s", got)
	}
	// The assignee's current task by default; the human may report too.
	before, after, err := e.tasks.Move(ctx, "w", "", MoveStart, "")
	if err != nil || before.ID != task.ID || after.State != bus.TaskWorking {
		t.Fatalf("w starts its current task: %v %+v", err, after)
	}
	if _, after, err = e.tasks.Move(ctx, bus.Human, task.ID[:4], MoveDone, ""); err != nil || after.State != bus.TaskInReview {
		t.Fatalf("the human reports it done: %v %+v", err, after)
	}
	if _, after, err = e.tasks.Move(ctx, bus.Human, task.ID, MoveApprove, "good"); err != nil || after.State != bus.TaskApproved {
		t.Fatalf("the human approves: %v %+v", err, after)
	}
}

// Prune deletes what merges left behind and nothing else: a completed
// task's branch goes, a cancelled task's branch with work of its own stays.
func TestPruneDeletesOnlyMergedBranches(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	merged := e.working(t, "merged", "a.txt", "a\n")
	e.toApproved(t, merged)
	if _, err := e.tasks.Merge(ctx, merged.ID, bus.Human); err != nil {
		t.Fatal(err)
	}
	cancelled := e.working(t, "cancelled", "b.txt", "b\n")
	if _, err := e.tasks.Cancel(ctx, cancelled.ID, bus.Human, ""); err != nil {
		t.Fatal(err)
	}
	dry, err := e.tasks.Prune(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry) != 2 {
		t.Fatalf("dry run reports %d tasks, want 2: %+v", len(dry), dry)
	}
	if tgit(t, e.repo, "branch", "--list", merged.Branch) == "" {
		t.Fatal("the dry run deleted a branch")
	}
	got, err := e.tasks.Prune(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		switch p.Task.ID {
		case merged.ID:
			if !p.Deleted || p.Kept != nil {
				t.Errorf("the merged task's branch: %+v", p)
			}
		case cancelled.ID:
			if p.Deleted || !errors.Is(p.Kept, gitrepo.ErrUnmerged) {
				t.Errorf("the cancelled task's branch: %+v", p)
			}
		}
	}
	if out := tgit(t, e.repo, "branch", "--list", merged.Branch); out != "" {
		t.Errorf("the merged branch is still there: %q", out)
	}
	if out := tgit(t, e.repo, "branch", "--list", cancelled.Branch); out == "" {
		t.Error("the cancelled task's branch, with its work, was deleted")
	}
	if after, _ := e.bus.Task(ctx, merged.ID); after.Branch != "" {
		t.Errorf("the merged task still names branch %q", after.Branch)
	}
}

// GiveUp fails, as swarm and with the reason, a task the runtime cannot
// carry out; a task that moved since it was read is left alone.
func TestGiveUpFailsOnlyTheTaskAsItWasRead(t *testing.T) {
	e := newTaskEnv(t)
	ctx := context.Background()
	task, err := e.bus.CreateTask(ctx, bus.NewTask{Title: "no room", Assignee: "w", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := e.tasks.GiveUp(ctx, task, errors.New("worktree: disk full"))
	if err != nil || failed.State != bus.TaskFailed {
		t.Fatalf("GiveUp: %v %+v", err, failed)
	}
	evs, err := e.bus.TaskEvents(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Actor != bus.Swarm || last.Note != "worktree: disk full" || last.From != bus.TaskAssigned {
		t.Errorf("the event: %+v", last)
	}

	other, err := e.bus.CreateTask(ctx, bus.NewTask{Title: "started meanwhile", Assignee: "w", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.tasks.Start(ctx, other.ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tasks.GiveUp(ctx, other, errors.New("late")); !errors.Is(err, bus.ErrStateChanged) {
		t.Errorf("GiveUp of a task read as ASSIGNED, now WORKING: %v", err)
	}
	if st := e.state(t, other.ID); st != bus.TaskWorking {
		t.Errorf("state %s, want WORKING", st)
	}
}
