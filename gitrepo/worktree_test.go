package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
