package gitrepo

// Tests of the git layer against real repositories in temporary
// directories. The tests observe the repositories with their own git
// commands (tgit), independent of the code under test. The concurrent-merge
// test runs this test binary as a second and third process: init below
// turns it into a merge helper when SWARM_TEST_GIT_MERGE is set.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"swarm/gitrepo/gittest"
	"swarm/internal/testrun"
)

func init() {
	// SWARM_TEST_GIT_MERGE=<repo>|<base>|<branch>: print "waiting", merge,
	// print "merged <commit>" and exit 0, or print the error and exit 1.
	spec := os.Getenv("SWARM_TEST_GIT_MERGE")
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "|")
	ctx, cancel := context.WithTimeout(context.Background(), testrun.Patience)
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
	if !testrun.Poll(testrun.Patience, func() bool { return syscall.Kill(pid, 0) != nil }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("hook process %d still running", pid)
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
