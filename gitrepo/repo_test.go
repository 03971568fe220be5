package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
