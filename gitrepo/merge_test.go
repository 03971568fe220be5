package gitrepo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
