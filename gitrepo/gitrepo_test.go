package gitrepo

// Tests of the git layer against real repositories in temporary
// directories. The tests observe the repositories with their own git
// commands (tgit), independent of the code under test. The concurrent-merge
// test runs this test binary as a second and third process: init below
// turns it into a merge helper when SWARM_TEST_GIT_MERGE is set.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"swarm/gitrepo/gittest"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func init() {
	// SWARM_TEST_GIT_MERGE=<repo>|<base>|<branch>: print "waiting", merge,
	// print "merged <commit>" and exit 0, or print the error and exit 1.
	spec := os.Getenv("SWARM_TEST_GIT_MERGE")
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "|")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	repo, err := OpenRepo(ctx, parts[0])
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("waiting")
	commit, err := repo.Merge(ctx, parts[1], parts[2], "Merge "+parts[2])
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("merged", commit)
	os.Exit(0)
}

// The fixtures of gittest, under the names these tests use.
var (
	gitTestEnv  = gittest.Isolate
	tgit        = gittest.Git
	tgitErr     = gittest.GitErr
	newTestRepo = gittest.NewRepo
	writeFile   = gittest.WriteFile
	readFile    = gittest.ReadFile
	commitFile  = gittest.CommitFile
)

// branchWithCommit creates branch from base with one commit, using a
// throwaway worktree outside the repository.
func branchWithCommit(t *testing.T, repo, branch, base, name, content string) string {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "wt")
	tgit(t, repo, "worktree", "add", "-q", "-b", branch, wt, base)
	c := commitFile(t, wt, name, content, "change "+name+" on "+branch)
	tgit(t, repo, "worktree", "remove", wt)
	return c
}

func openTestRepo(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := OpenRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// snapshot is everything a failed operation must leave as it was: refs,
// HEAD, index, working files, status and merge/rebase state.
type snapshot struct {
	HEAD, Branch, Refs, Index, Status string
	Files                             map[string]string
	MergeHead, Rebase                 bool
}

func takeSnapshot(t *testing.T, dir string) snapshot {
	t.Helper()
	s := snapshot{
		HEAD:   tgit(t, dir, "rev-parse", "HEAD"),
		Refs:   tgit(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"),
		Index:  tgit(t, dir, "ls-files", "--stage"),
		Status: tgit(t, dir, "status", "--porcelain", "--untracked-files=all"),
		Files:  map[string]string{},
	}
	s.Branch, _ = tgitErr(dir, "symbolic-ref", "-q", "HEAD")
	_, err := tgitErr(dir, "rev-parse", "-q", "--verify", "MERGE_HEAD")
	s.MergeHead = err == nil
	for _, p := range strings.Split(tgit(t, dir, "rev-parse", "--path-format=absolute", "--git-path", "rebase-merge", "--git-path", "rebase-apply"), "\n") {
		if _, err := os.Stat(p); err == nil {
			s.Rebase = true
		}
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".swarm") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && d.Name() != ".git" {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			s.Files[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sameSnapshot(t *testing.T, what string, before, after snapshot) {
	t.Helper()
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("%s changed (-before +after):\n%s", what, d)
	}
}

// withoutRef drops one ref's line from a for-each-ref listing.
func withoutRef(refs, ref string) string {
	var keep []string
	for _, l := range strings.Split(refs, "\n") {
		if !strings.HasPrefix(l, ref+" ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// wantGitMessage checks that err is one line naming the git command.
func wantGitMessage(t *testing.T, err error, command string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error naming %q, got nil", command)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, command) {
		t.Errorf("error %q: want one line naming %q", msg, command)
	}
	var ge *GitError
	if !errors.As(err, &ge) {
		t.Errorf("error %q is not a *GitError", msg)
	}
}

func worktreeList(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	for _, line := range strings.Split(tgit(t, dir, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			paths = append(paths, p)
		}
	}
	return paths
}

func parents(t *testing.T, dir, commit string) []string {
	t.Helper()
	return strings.Fields(tgit(t, dir, "rev-list", "--parents", "-n", "1", commit))[1:]
}

func TestOpenRepo(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)

	outside := t.TempDir()
	_, err := OpenRepo(ctx, outside)
	if !errors.Is(err, ErrNotGitRepo) || !strings.Contains(err.Error(), outside) {
		t.Errorf("OpenRepo(%s) = %v, want ErrNotGitRepo naming the directory", outside, err)
	}

	sub := filepath.Join(dir, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := openTestRepo(t, sub)
	if r.Root() != dir {
		t.Errorf("Root from a subdirectory = %q, want %q", r.Root(), dir)
	}
	branch, err := r.CurrentBranch(ctx)
	if err != nil || branch != "main" {
		t.Errorf("CurrentBranch = %q, %v; want main", branch, err)
	}

	// From inside a linked worktree the repository is still the main one.
	linked := filepath.Join(t.TempDir(), "linked")
	tgit(t, dir, "worktree", "add", "-q", "-b", "side", linked, "main")
	if r := openTestRepo(t, linked); r.Root() != dir {
		t.Errorf("Root from a linked worktree = %q, want %q", r.Root(), dir)
	}

	tgit(t, dir, "checkout", "-q", "--detach")
	_, err = r.CurrentBranch(ctx)
	if !errors.Is(err, ErrDetachedHead) || !strings.Contains(err.Error(), dir) {
		t.Errorf("CurrentBranch on a detached HEAD = %v, want ErrDetachedHead naming %s", err, dir)
	}
}

func TestExcludeSwarmDir(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	// The user's own patterns, without a final newline, are kept.
	writeFile(t, exclude, "*.log")
	writeFile(t, filepath.Join(dir, ".swarm", "bus.db"), "x")
	if st := tgit(t, dir, "status", "--porcelain"); st != "?? .swarm/" {
		t.Fatalf("status before = %q, want the untracked .swarm/", st)
	}

	for range 3 {
		if err := r.ExcludeSwarmDir(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, exclude); got != "*.log\n.swarm/\n" {
		t.Errorf("info/exclude = %q, want the user's line and .swarm/ once", got)
	}
	if st := tgit(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("status after = %q, want clean", st)
	}

	// A repository without info/exclude gets one.
	dir2 := newTestRepo(t)
	if err := os.RemoveAll(filepath.Join(dir2, ".git", "info")); err != nil {
		t.Fatal(err)
	}
	if err := openTestRepo(t, dir2).ExcludeSwarmDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir2, ".git", "info", "exclude")); got != ".swarm/\n" {
		t.Errorf("new info/exclude = %q", got)
	}
}

func TestAddTaskWorktree(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	base := tgit(t, dir, "rev-parse", "main")
	r := openTestRepo(t, dir)

	branch, path, err := r.AddTaskWorktree(ctx, "t1", "main")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".swarm", "worktrees", "t1"); branch != "swarm/t1" || path != want {
		t.Fatalf("AddTaskWorktree = %q, %q; want swarm/t1, %s", branch, path, want)
	}
	if got := tgit(t, dir, "rev-parse", "swarm/t1"); got != base {
		t.Errorf("swarm/t1 at %s, want main's %s", got, base)
	}
	if got := tgit(t, path, "symbolic-ref", "HEAD"); got != "refs/heads/swarm/t1" {
		t.Errorf("worktree HEAD = %s", got)
	}
	if got := readFile(t, filepath.Join(path, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("worktree a.txt = %q", got)
	}
	if got := worktreeList(t, dir); !cmp.Equal(got, []string{dir, path}) {
		t.Errorf("worktree list = %q", got)
	}
	// The worktree is not dirt in the main worktree.
	if files, err := r.Dirty(ctx); err != nil || len(files) != 0 {
		t.Errorf("Dirty = %q, %v", files, err)
	}

	// The agent commits; cancel removes the worktree, even with uncommitted
	// changes, and keeps the branch.
	work := commitFile(t, path, "a.txt", "one\ntwo\nthree\nfour\n", "task work")
	writeFile(t, filepath.Join(path, "scratch.txt"), "uncommitted")
	if err := r.RemoveWorktree(ctx, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree dir after remove: %v", err)
	}
	if got := worktreeList(t, dir); !cmp.Equal(got, []string{dir}) {
		t.Errorf("worktree list after remove = %q", got)
	}
	if got := tgit(t, dir, "rev-parse", "swarm/t1"); got != work {
		t.Errorf("branch after remove at %s, want %s", got, work)
	}
	if err := r.RemoveWorktree(ctx, path); err != nil {
		t.Errorf("removing again: %v", err)
	}

	// Retry: the existing branch is checked out again, with its work.
	commitFile(t, dir, "b.txt", "main moved\n", "main moves")
	branch, path2, err := r.AddTaskWorktree(ctx, "t1", "main")
	if err != nil || branch != "swarm/t1" || path2 != path {
		t.Fatalf("retry: %q, %q, %v", branch, path2, err)
	}
	if got := tgit(t, path, "rev-parse", "HEAD"); got != work {
		t.Errorf("retried worktree at %s, want the branch's %s", got, work)
	}

	// A worktree directory deleted by hand does not block a new one.
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.AddTaskWorktree(ctx, "t1", "main"); err != nil {
		t.Fatalf("after the directory was deleted by hand: %v", err)
	}

	// Only task worktrees are removed.
	user := filepath.Join(t.TempDir(), "mine")
	tgit(t, dir, "worktree", "add", "-q", "-b", "mine", user, "main")
	if err := r.RemoveWorktree(ctx, user); err == nil || !strings.Contains(err.Error(), "not a task worktree") {
		t.Errorf("RemoveWorktree(user's worktree) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(user, "a.txt")); err != nil {
		t.Errorf("user's worktree touched: %v", err)
	}
}

// TestAddTaskWorktreeRollback makes each step of a create fail and checks
// that nothing the call made is left: no branch, no directory, no entry in
// `git worktree list`, no administrative files.
func TestAddTaskWorktreeRollback(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()

	noTrace := func(t *testing.T, dir, id string, branches string) {
		t.Helper()
		if got := tgit(t, dir, "branch", "--list", "swarm/*", "--format=%(refname)"); got != branches {
			t.Errorf("swarm branches = %q, want %q", got, branches)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".swarm", "worktrees", id)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("worktree path left: %v", err)
		}
		if got := worktreeList(t, dir); len(got) != 1 || got[0] != dir {
			t.Errorf("worktree list = %q, want the main worktree only", got)
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, ".git", "worktrees")); len(entries) != 0 {
			t.Errorf("administrative files left: %v", entries)
		}
	}

	t.Run("path occupied", func(t *testing.T) {
		dir := newTestRepo(t)
		r := openTestRepo(t, dir)
		occupant := filepath.Join(dir, ".swarm", "worktrees", "t1")
		writeFile(t, occupant, "not yours")
		_, _, err := r.AddTaskWorktree(ctx, "t1", "main")
		if err == nil || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), occupant) {
			t.Fatalf("err = %v, want the path named as already existing", err)
		}
		if got := readFile(t, occupant); got != "not yours" {
			t.Errorf("occupant changed: %q", got)
		}
		if err := os.Remove(occupant); err != nil {
			t.Fatal(err)
		}
		noTrace(t, dir, "t1", "")
	})

	t.Run("invalid branch name", func(t *testing.T) {
		dir := newTestRepo(t)
		_, _, err := openTestRepo(t, dir).AddTaskWorktree(ctx, "bad..id", "main")
		wantGitMessage(t, err, "git branch --no-track swarm/bad..id refs/heads/main")
		noTrace(t, dir, "bad..id", "")
	})

	t.Run("id with a slash", func(t *testing.T) {
		dir := newTestRepo(t)
		_, _, err := openTestRepo(t, dir).AddTaskWorktree(ctx, "../escape", "main")
		if err == nil || !strings.Contains(err.Error(), `"../escape"`) {
			t.Fatalf("err = %v", err)
		}
		noTrace(t, dir, "escape", "")
	})

	t.Run("base missing", func(t *testing.T) {
		dir := newTestRepo(t)
		_, _, err := openTestRepo(t, dir).AddTaskWorktree(ctx, "t1", "nope")
		wantGitMessage(t, err, "git branch --no-track swarm/t1 refs/heads/nope")
		noTrace(t, dir, "t1", "")
	})

	t.Run("checkout fails after the worktree was made", func(t *testing.T) {
		dir := newTestRepo(t)
		// git has made the worktree and the branch when the hook fails.
		writeFile(t, filepath.Join(dir, ".git", "hooks", "post-checkout"), "#!/bin/sh\necho checkout refused >&2\nexit 1\n")
		if err := os.Chmod(filepath.Join(dir, ".git", "hooks", "post-checkout"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, _, err := openTestRepo(t, dir).AddTaskWorktree(ctx, "t1", "main")
		wantGitMessage(t, err, "git worktree add")
		if !strings.Contains(err.Error(), "checkout refused") {
			t.Errorf("err = %v, want the hook's reason", err)
		}
		noTrace(t, dir, "t1", "")
	})

	t.Run("context ends during the checkout", func(t *testing.T) {
		dir := newTestRepo(t)
		pidFile := filepath.Join(t.TempDir(), "hook.pid")
		blockingHook(t, dir, "post-checkout", pidFile)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go cancelWhenStarted(ctx, cancel, pidFile)
		_, _, err := openTestRepo(t, dir).AddTaskWorktree(ctx, "t1", "main")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		wantGitMessage(t, err, "git worktree add")
		waitGone(t, pidFile)
		noTrace(t, dir, "t1", "")
	})

	t.Run("existing branch checked out elsewhere is kept", func(t *testing.T) {
		dir := newTestRepo(t)
		other := filepath.Join(t.TempDir(), "other")
		tgit(t, dir, "worktree", "add", "-q", "-b", "swarm/t1", other, "main")
		tip := commitFile(t, other, "c.txt", "c\n", "work in progress")
		_, _, err := openTestRepo(t, dir).AddTaskWorktree(ctx, "t1", "main")
		wantGitMessage(t, err, "git worktree add")
		if got := tgit(t, dir, "rev-parse", "swarm/t1"); got != tip {
			t.Errorf("existing branch at %s, want it kept at %s", got, tip)
		}
		if got := worktreeList(t, dir); !cmp.Equal(got, []string{dir, other}) {
			t.Errorf("worktree list = %q", got)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".swarm", "worktrees", "t1")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("worktree path left: %v", err)
		}
	})
}

// blockingHook installs a hook that records its pid and then blocks until
// it is killed.
func blockingHook(t *testing.T, dir, name, pidFile string) {
	t.Helper()
	hook := filepath.Join(dir, ".git", "hooks", name)
	writeFile(t, hook, fmt.Sprintf("#!/bin/sh\necho $$ > %s.tmp && mv %s.tmp %s\nexec sleep 600\n", pidFile, pidFile, pidFile))
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
}

// cancelWhenStarted cancels once the blocking hook has written its pid, or
// gives up when ctx ends.
func cancelWhenStarted(ctx context.Context, cancel context.CancelFunc, pidFile string) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(pidFile); err == nil {
			cancel()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// waitGone waits until the hook process of pidFile has ended: ending the
// context must end what git started, too.
func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("hook process %d still running", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRebase(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()

	setup := func(t *testing.T) (dir, wt string, r *Repo) {
		dir = newTestRepo(t)
		r = openTestRepo(t, dir)
		_, wt, err := r.AddTaskWorktree(ctx, "t1", "main")
		if err != nil {
			t.Fatal(err)
		}
		return dir, wt, r
	}

	t.Run("clean", func(t *testing.T) {
		dir, wt, r := setup(t)
		commitFile(t, wt, "a.txt", "ONE\ntwo\nthree\n", "task change")
		commitFile(t, dir, "b.txt", "bee moved\n", "main moves")
		if err := r.Rebase(ctx, wt, "main"); err != nil {
			t.Fatal(err)
		}
		if _, err := tgitErr(dir, "merge-base", "--is-ancestor", "main", "swarm/t1"); err != nil {
			t.Errorf("main is not an ancestor of swarm/t1 after the rebase")
		}
		if got := tgit(t, wt, "log", "-1", "--format=%s"); got != "task change" {
			t.Errorf("tip = %q", got)
		}
		if got := tgit(t, wt, "symbolic-ref", "HEAD"); got != "refs/heads/swarm/t1" {
			t.Errorf("worktree HEAD = %s", got)
		}
		if got := readFile(t, filepath.Join(wt, "b.txt")) + readFile(t, filepath.Join(wt, "a.txt")); got != "bee moved\nONE\ntwo\nthree\n" {
			t.Errorf("files after rebase = %q", got)
		}
		if st := tgit(t, wt, "status", "--porcelain"); st != "" {
			t.Errorf("status = %q", st)
		}
		// Up to date: nothing to do.
		if err := r.Rebase(ctx, wt, "main"); err != nil {
			t.Errorf("second rebase: %v", err)
		}
	})

	t.Run("conflict", func(t *testing.T) {
		dir, wt, r := setup(t)
		commitFile(t, wt, "a.txt", "task\ntwo\nthree\n", "task change")
		commitFile(t, wt, "c.txt", "new\n", "task adds c")
		commitFile(t, dir, "a.txt", "main\ntwo\nthree\n", "main changes a")
		before, mainBefore := takeSnapshot(t, wt), takeSnapshot(t, dir)
		err := r.Rebase(ctx, wt, "main")
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
			t.Fatalf("err = %v, want a *ConflictError", err)
		}
		if !cmp.Equal(ce.Files, []string{"a.txt"}) || ce.Op != "rebase" {
			t.Errorf("ConflictError = %+v", ce)
		}
		if want := "rebase swarm/t1 onto main: conflict in a.txt"; err.Error() != want {
			t.Errorf("message %q, want %q", err.Error(), want)
		}
		sameSnapshot(t, "task worktree", before, takeSnapshot(t, wt))
		sameSnapshot(t, "main worktree", mainBefore, takeSnapshot(t, dir))
	})

	t.Run("uncommitted changes", func(t *testing.T) {
		dir, wt, r := setup(t)
		commitFile(t, wt, "a.txt", "ONE\ntwo\nthree\n", "task change")
		commitFile(t, dir, "b.txt", "bee moved\n", "main moves")
		writeFile(t, filepath.Join(wt, "b.txt"), "edited, not committed\n")
		writeFile(t, filepath.Join(wt, "new", "n.txt"), "never added\n")
		before := takeSnapshot(t, wt)
		err := r.Rebase(ctx, wt, "main")
		var de *DirtyError
		if !errors.As(err, &de) || !errors.Is(err, ErrDirty) {
			t.Fatalf("err = %v, want a *DirtyError", err)
		}
		if !cmp.Equal(de.Files, []string{"b.txt", "new/n.txt"}) || de.Dir != wt {
			t.Errorf("DirtyError = %+v", de)
		}
		if want := "uncommitted changes in " + wt + ": b.txt, new/n.txt"; err.Error() != want {
			t.Errorf("message %q, want %q", err.Error(), want)
		}
		sameSnapshot(t, "task worktree", before, takeSnapshot(t, wt))
	})
}

func TestDiff(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	_, wt, err := r.AddTaskWorktree(ctx, "t1", "main")
	if err != nil {
		t.Fatal(err)
	}
	commitFile(t, wt, "a.txt", "one\ntwo\nthree\nfour\n", "task adds a line")
	// A change on base after the branch left it is not part of the review.
	commitFile(t, dir, "c.txt", "main only\n", "main adds c")

	stat, err := r.DiffStat(ctx, "main", "swarm/t1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stat, " a.txt | 1 +") || !strings.Contains(stat, "1 file changed, 1 insertion(+)") || strings.Contains(stat, "c.txt") {
		t.Errorf("DiffStat = %q", stat)
	}
	diff, err := r.Diff(ctx, "main", "swarm/t1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "diff --git a/a.txt b/a.txt") || !strings.Contains(diff, "\n+four\n") || strings.Contains(diff, "c.txt") {
		t.Errorf("Diff = %q", diff)
	}
	_, err = r.Diff(ctx, "main", "swarm/nope")
	wantGitMessage(t, err, "git diff --no-color --no-ext-diff refs/heads/main...refs/heads/swarm/nope")
}

func TestDirty(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	if files, err := r.Dirty(ctx); err != nil || len(files) != 0 {
		t.Fatalf("clean repo: Dirty = %q, %v", files, err)
	}
	// Untracked files and .swarm/ (even without the exclude line) do not count.
	writeFile(t, filepath.Join(dir, "untracked.txt"), "u")
	writeFile(t, filepath.Join(dir, ".swarm", "bus.db"), "db")
	if files, err := r.Dirty(ctx); err != nil || len(files) != 0 {
		t.Fatalf("untracked only: Dirty = %q, %v", files, err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n")
	writeFile(t, filepath.Join(dir, "staged.txt"), "s")
	tgit(t, dir, "add", "staged.txt")
	tgit(t, dir, "mv", "b.txt", "renamed.txt")
	files, err := r.Dirty(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if want := []string{"a.txt", "renamed.txt", "staged.txt"}; !cmp.Equal(files, want) {
		t.Errorf("Dirty = %q, want %q", files, want)
	}
}

// taskWithChange makes task t1's worktree with one commit changing name.
func taskWithChange(t *testing.T, r *Repo, id, name, content string) (wt, tip string) {
	t.Helper()
	_, wt, err := r.AddTaskWorktree(context.Background(), id, "main")
	if err != nil {
		t.Fatal(err)
	}
	return wt, commitFile(t, wt, name, content, "task "+id+" changes "+name)
}

func TestMergeCheckedOut(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	wt, tip := taskWithChange(t, r, "t1", "a.txt", "one\ntwo\nthree\nfour\n")
	old := commitFile(t, dir, "b.txt", "bee moved\n", "main moves")
	if err := r.ExcludeSwarmDir(ctx); err != nil {
		t.Fatal(err)
	}
	// Untracked files in the main worktree do not stop a merge.
	writeFile(t, filepath.Join(dir, "notes.txt"), "mine")
	wtBefore := takeSnapshot(t, wt)

	const msg = "Merge task t1: add a line\n\nTask-Id: t1"
	commit, err := r.Merge(ctx, "main", "swarm/t1", msg)
	if err != nil {
		t.Fatal(err)
	}
	if head := tgit(t, dir, "rev-parse", "HEAD"); commit != head || tgit(t, dir, "rev-parse", "main") != head {
		t.Errorf("Merge returned %s; HEAD is %s", commit, head)
	}
	if got := parents(t, dir, commit); !cmp.Equal(got, []string{old, tip}) {
		t.Errorf("parents = %q, want [%s %s]", got, old, tip)
	}
	if got := tgit(t, dir, "log", "-1", "--format=%B", commit); got != msg+"\n" {
		t.Errorf("message = %q", got)
	}
	if got := tgit(t, dir, "log", "-1", "--format=%an <%ae>", commit); got != "Swarm Tester <tester@example.com>" {
		t.Errorf("author = %q, want the user's identity", got)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "one\ntwo\nthree\nfour\n" {
		t.Errorf("a.txt on main = %q", got)
	}
	if st := tgit(t, dir, "status", "--porcelain"); st != "?? notes.txt" {
		t.Errorf("main status = %q", st)
	}
	wtAfter := takeSnapshot(t, wt)
	// main moved; nothing else may.
	wtBefore.Refs, wtAfter.Refs = withoutRef(wtBefore.Refs, "refs/heads/main"), withoutRef(wtAfter.Refs, "refs/heads/main")
	sameSnapshot(t, "task worktree", wtBefore, wtAfter)

	// Merging the same branch again records nothing.
	before := takeSnapshot(t, dir)
	_, err = r.Merge(ctx, "main", "swarm/t1", msg)
	if !errors.Is(err, ErrNothingToMerge) || !strings.Contains(err.Error(), "swarm/t1 is already in main") {
		t.Errorf("second merge: %v", err)
	}
	sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))

	_, err = r.Merge(ctx, "main", "swarm/nope", msg)
	if err == nil || !strings.Contains(err.Error(), `branch "swarm/nope" not found`) {
		t.Errorf("missing branch: %v", err)
	}
	wantGitMessage(t, err, "git rev-parse --verify")
}

func TestMergeNotCheckedOut(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	wt, tip := taskWithChange(t, r, "t1", "a.txt", "one\ntwo\nthree\nfour\n")
	old := commitFile(t, dir, "b.txt", "bee moved\n", "main moves")
	// The user works on dev, with uncommitted changes: merging into main,
	// which is checked out nowhere, must touch none of it.
	tgit(t, dir, "checkout", "-q", "-b", "dev")
	writeFile(t, filepath.Join(dir, "b.txt"), "dev edit\n")
	mainBefore, wtBefore := takeSnapshot(t, dir), takeSnapshot(t, wt)

	commit, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
	if err != nil {
		t.Fatal(err)
	}
	if got := tgit(t, dir, "rev-parse", "main"); got != commit {
		t.Errorf("main at %s, Merge returned %s", got, commit)
	}
	if got := parents(t, dir, commit); !cmp.Equal(got, []string{old, tip}) {
		t.Errorf("parents = %q, want [%s %s]", got, old, tip)
	}
	if got := tgit(t, dir, "log", "-1", "--format=%B", commit); got != "Merge task t1\n" {
		t.Errorf("message = %q", got)
	}
	if got := tgit(t, dir, "show", "main:a.txt") + "|" + tgit(t, dir, "show", "main:b.txt"); got != "one\ntwo\nthree\nfour|bee moved" {
		t.Errorf("main's files = %q", got)
	}
	if got := tgit(t, dir, "reflog", "-1", "--format=%gs", "main"); got != "swarm: merge swarm/t1" {
		t.Errorf("reflog = %q", got)
	}
	after, wtAfter := takeSnapshot(t, dir), takeSnapshot(t, wt)
	// main moved; nothing else may.
	for _, s := range []*snapshot{&mainBefore, &after, &wtBefore, &wtAfter} {
		s.Refs = withoutRef(s.Refs, "refs/heads/main")
	}
	sameSnapshot(t, "main worktree", mainBefore, after)
	sameSnapshot(t, "task worktree", wtBefore, wtAfter)
}

func TestMergeCheckedOutInAnotherWorktree(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	taskWithChange(t, r, "t1", "a.txt", "one\ntwo\nthree\nfour\n")
	tgit(t, dir, "checkout", "-q", "-b", "dev")
	other := filepath.Join(t.TempDir(), "other")
	tgit(t, dir, "worktree", "add", "-q", other, "main")
	before, otherBefore := takeSnapshot(t, dir), takeSnapshot(t, other)
	_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
	if err == nil || !strings.Contains(err.Error(), "main is checked out in the worktree "+other) {
		t.Fatalf("err = %v", err)
	}
	sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))
	sameSnapshot(t, "other worktree", otherBefore, takeSnapshot(t, other))

	// Being rebased there counts as checked out.
	tgit(t, other, "checkout", "-q", "--detach")
	writeFile(t, filepath.Join(dir, ".git", "worktrees", "other", "rebase-merge", "head-name"), "refs/heads/main\n")
	_, err = r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
	if err == nil || !strings.Contains(err.Error(), "main is being rebased in "+other) {
		t.Fatalf("err = %v", err)
	}
}

func TestMergeConflict(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	for _, checkedOut := range []bool{true, false} {
		t.Run(fmt.Sprintf("checked out %v", checkedOut), func(t *testing.T) {
			dir := newTestRepo(t)
			r := openTestRepo(t, dir)
			wt, _ := taskWithChange(t, r, "t1", "a.txt", "task\ntwo\nthree\n")
			commitFile(t, wt, "c.txt", "c\n", "task adds c")
			commitFile(t, dir, "a.txt", "main\ntwo\nthree\n", "main changes a")
			if !checkedOut {
				tgit(t, dir, "checkout", "-q", "-b", "dev")
			}
			before, wtBefore := takeSnapshot(t, dir), takeSnapshot(t, wt)
			_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
			var ce *ConflictError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
				t.Fatalf("err = %v, want a *ConflictError", err)
			}
			if !cmp.Equal(ce.Files, []string{"a.txt"}) || err.Error() != "merge swarm/t1 into main: conflict in a.txt" {
				t.Errorf("err = %v (%+v)", err, ce)
			}
			sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))
			sameSnapshot(t, "task worktree", wtBefore, takeSnapshot(t, wt))
		})
	}
}

func TestMergeDirtyRefused(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	taskWithChange(t, r, "t1", "c.txt", "c\n")
	writeFile(t, filepath.Join(dir, "a.txt"), "edited\n")
	writeFile(t, filepath.Join(dir, "s.txt"), "staged\n")
	tgit(t, dir, "add", "s.txt")
	writeFile(t, filepath.Join(dir, "u.txt"), "untracked\n")
	before := takeSnapshot(t, dir)
	_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
	var de *DirtyError
	if !errors.As(err, &de) || !errors.Is(err, ErrDirty) {
		t.Fatalf("err = %v, want a *DirtyError", err)
	}
	if want := "the main worktree " + dir + " has uncommitted changes (a.txt, s.txt): commit or stash them first"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))
}

// TestMergeFailsAfterCheck makes git merge itself fail after merge-tree
// found the merge clean: nothing may be left half-merged.
func TestMergeFailsAfterCheck(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()

	t.Run("hook refuses the merge commit", func(t *testing.T) {
		dir := newTestRepo(t)
		r := openTestRepo(t, dir)
		taskWithChange(t, r, "t1", "a.txt", "one\ntwo\nthree\nfour\n")
		hook := filepath.Join(dir, ".git", "hooks", "pre-merge-commit")
		writeFile(t, hook, "#!/bin/sh\necho tests failed >&2\nexit 1\n")
		if err := os.Chmod(hook, 0o755); err != nil {
			t.Fatal(err)
		}
		before := takeSnapshot(t, dir)
		_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
		wantGitMessage(t, err, "git merge --quiet --no-ff")
		if !strings.Contains(err.Error(), "tests failed") || !strings.HasSuffix(err.Error(), "(merge aborted)") {
			t.Errorf("err = %v", err)
		}
		sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))
	})

	t.Run("context ends while the hook runs", func(t *testing.T) {
		dir := newTestRepo(t)
		r := openTestRepo(t, dir)
		wt, _ := taskWithChange(t, r, "t1", "a.txt", "one\ntwo\nthree\nfour\n")
		commitFile(t, wt, "new.txt", "added by the task\n", "task adds a file")
		pidFile := filepath.Join(t.TempDir(), "hook.pid")
		blockingHook(t, dir, "pre-merge-commit", pidFile)
		before := takeSnapshot(t, dir)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go cancelWhenStarted(ctx, cancel, pidFile)
		_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		wantGitMessage(t, err, "git merge --quiet --no-ff")
		waitGone(t, pidFile)
		sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))
	})

	t.Run("untracked file in the way", func(t *testing.T) {
		dir := newTestRepo(t)
		r := openTestRepo(t, dir)
		taskWithChange(t, r, "t1", "n.txt", "from the task\n")
		writeFile(t, filepath.Join(dir, "n.txt"), "the user's\n")
		before := takeSnapshot(t, dir)
		_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
		wantGitMessage(t, err, "git merge --quiet --no-ff")
		sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))
	})
}

func TestMergeIdentityFallback(t *testing.T) {
	ctx := context.Background()
	for _, checkedOut := range []bool{true, false} {
		t.Run(fmt.Sprintf("checked out %v", checkedOut), func(t *testing.T) {
			gitTestEnv(t, true)
			dir := newTestRepo(t)
			r := openTestRepo(t, dir)
			taskWithChange(t, r, "t1", "c.txt", "c\n")
			if !checkedOut {
				tgit(t, dir, "checkout", "-q", "-b", "dev")
			}
			cfgBefore := readFile(t, os.Getenv("GIT_CONFIG_GLOBAL")) + readFile(t, filepath.Join(dir, ".git", "config"))
			commit, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
			if err != nil {
				t.Fatal(err)
			}
			if got := tgit(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>", commit); got != "swarm <swarm@localhost>|swarm <swarm@localhost>" {
				t.Errorf("identity = %q", got)
			}
			if got := readFile(t, os.Getenv("GIT_CONFIG_GLOBAL")) + readFile(t, filepath.Join(dir, ".git", "config")); got != cfgBefore {
				t.Errorf("configuration changed:\n%s", got)
			}
		})
	}
}

// holdMergeLock takes the merge lock as another swarm process would.
func holdMergeLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ".git", "swarm-merge.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	var done bool
	release = func() {
		if !done {
			done = true
			f.Close()
		}
	}
	t.Cleanup(release)
	return release
}

func TestMergeGivesUpWaitingForTheLock(t *testing.T) {
	gitTestEnv(t)
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	taskWithChange(t, r, "t1", "c.txt", "c\n")
	release := holdMergeLock(t, dir)
	before := takeSnapshot(t, dir)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := r.Merge(ctx, "main", "swarm/t1", "Merge task t1")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "wait for another merge") {
		t.Fatalf("err = %v", err)
	}
	sameSnapshot(t, "main worktree", before, takeSnapshot(t, dir))

	release()
	if _, err := r.Merge(context.Background(), "main", "swarm/t1", "Merge task t1"); err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
}

// mergeHelper is this test binary run as another process that merges.
type mergeHelper struct {
	cmd   *exec.Cmd
	lines chan string
}

func startMergeHelper(t *testing.T, dir, base, branch string) *mergeHelper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SWARM_TEST_GIT_MERGE="+dir+"|"+base+"|"+branch)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &mergeHelper{cmd: cmd, lines: make(chan string, 8)}
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			for range h.lines {
			}
			_ = cmd.Wait()
		}
	})
	return h
}

func (h *mergeHelper) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			t.Fatal("merge helper ended early")
		}
		return l
	case <-time.After(time.Minute):
		t.Fatal("no line from the merge helper within a minute")
	}
	return ""
}

func (h *mergeHelper) wait(t *testing.T) {
	t.Helper()
	for range h.lines {
	}
	if err := h.cmd.Wait(); err != nil {
		t.Errorf("merge helper: %v", err)
	}
}

// TestMergeTwoProcesses starts two processes merging two branches into the
// same base while a third holds the merge lock, then lets them go: both
// merges succeed, one after the other.
func TestMergeTwoProcesses(t *testing.T) {
	for _, checkedOut := range []bool{true, false} {
		t.Run(fmt.Sprintf("checked out %v", checkedOut), func(t *testing.T) {
			gitTestEnv(t)
			dir := newTestRepo(t)
			tipA := branchWithCommit(t, dir, "swarm/a", "main", "a-new.txt", "from a\n")
			tipB := branchWithCommit(t, dir, "swarm/b", "main", "b-new.txt", "from b\n")
			if !checkedOut {
				tgit(t, dir, "checkout", "-q", "-b", "dev")
			}
			old := tgit(t, dir, "rev-parse", "main")
			release := holdMergeLock(t, dir)

			a := startMergeHelper(t, dir, "main", "swarm/a")
			b := startMergeHelper(t, dir, "main", "swarm/b")
			for _, h := range []*mergeHelper{a, b} {
				if l := h.line(t); l != "waiting" {
					t.Fatalf("helper said %q", l)
				}
			}
			if got := tgit(t, dir, "rev-parse", "main"); got != old {
				t.Fatalf("main moved to %s while the lock was held", got)
			}
			release()

			var commits []string
			for _, h := range []*mergeHelper{a, b} {
				l := h.line(t)
				c, ok := strings.CutPrefix(l, "merged ")
				if !ok {
					t.Fatalf("helper: %s", l)
				}
				commits = append(commits, c)
				h.wait(t)
			}

			merges := strings.Fields(tgit(t, dir, "rev-list", "--merges", "main"))
			if len(merges) != 2 {
				t.Fatalf("merges on main = %q, want 2", merges)
			}
			first, second := merges[1], merges[0] // rev-list lists newest first
			if got := []string{first, second}; !cmp.Equal(got, commits) && !cmp.Equal(got, []string{commits[1], commits[0]}) {
				t.Errorf("merges %q, helpers reported %q", got, commits)
			}
			if p := parents(t, dir, first); p[0] != old {
				t.Errorf("first merge's first parent = %s, want the old main %s", p[0], old)
			}
			if p := parents(t, dir, second); p[0] != first {
				t.Errorf("second merge's first parent = %s, want the first merge %s", p[0], first)
			}
			for _, tip := range []string{tipA, tipB} {
				if _, err := tgitErr(dir, "merge-base", "--is-ancestor", tip, "main"); err != nil {
					t.Errorf("%s is not in main", tip)
				}
			}
			if checkedOut {
				if st := tgit(t, dir, "status", "--porcelain"); st != "" {
					t.Errorf("main worktree status = %q", st)
				}
				if readFile(t, filepath.Join(dir, "a-new.txt"))+readFile(t, filepath.Join(dir, "b-new.txt")) != "from a\nfrom b\n" {
					t.Error("main worktree lacks the merged files")
				}
			}
		})
	}
}

func TestGitErrorMessage(t *testing.T) {
	e := &GitError{
		Args: []string{"-c", "user.name=swarm", "merge", "--no-ff", "-m", "Merge task 0190a1b2: a rather long title\n\nwith a body", "refs/heads/swarm/x"},
		Stderr: "Author identity unknown\n\n*** Please tell me who you are.\n\n" +
			"fatal: unable to auto-detect email address (got 'root@vm.(none)')\n",
		Err: &exec.ExitError{},
	}
	want := `git merge --no-ff -m "Merge task 0190a1b2: a rather long title…" refs/heads/swarm/x: unable to auto-detect email address (got 'root@vm.(none)')`
	if got := e.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}

	e = &GitError{Args: []string{"rebase", "refs/heads/main"}, Err: context.Canceled}
	if got := e.Error(); got != "git rebase refs/heads/main: context canceled" || !errors.Is(e, context.Canceled) {
		t.Errorf("Error() = %q", got)
	}

	long := "/home/someone/projects/a-project-with-a-long-name/.swarm/worktrees/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	e = &GitError{Args: []string{"worktree", "add", "/tmp/a b", long}, Stderr: "hint: something\nPreparing worktree\n"}
	if got := e.Error(); got != `git worktree add "/tmp/a b" `+long+`: Preparing worktree` {
		t.Errorf("Error() = %q", got)
	}

	// A real failure, and a context that has ended.
	gitTestEnv(t)
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	_, err := r.DiffStat(context.Background(), "nope", "main")
	wantGitMessage(t, err, "git diff --no-color --no-ext-diff --stat refs/heads/nope...refs/heads/main: ")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.DiffStat(ctx, "main", "main")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("with an ended context: %v", err)
	}
	wantGitMessage(t, err, "git diff")
}
