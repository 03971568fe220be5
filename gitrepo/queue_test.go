package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A planned merge is a commit on no branch: nothing else changes.
func TestPlanMergeTouchesNothing(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	repo := newTestRepo(t)
	tip := branchWithCommit(t, repo, "swarm/t1", "main", "c.txt", "see\n")
	r := openTestRepo(t, repo)
	before := takeSnapshot(t, repo)
	p, err := r.PlanMerge(ctx, "main", "swarm/t1", "Merge t1")
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, "the repository", before, takeSnapshot(t, repo))
	if got := parents(t, repo, p.Commit); len(got) != 2 || got[0] != p.Old || got[1] != tip || p.Tip != tip {
		t.Errorf("plan %+v: parents %v", p, got)
	}
	if _, err := r.PlanMerge(ctx, "main", "main", "m"); !errors.Is(err, ErrNothingToMerge) {
		t.Errorf("a branch in its base: %v", err)
	}
	branchWithCommit(t, repo, "swarm/t2", "main", "a.txt", "A\n")
	commitFile(t, repo, "a.txt", "B\n", "main moves")
	var c *ConflictError
	if _, err := r.PlanMerge(ctx, "main", "swarm/t2", "m"); !errors.As(err, &c) || strings.Join(c.Files, ",") != "a.txt" {
		t.Errorf("a conflict: %v", err)
	}
}

// Advance moves the base as a compare-and-set, the main worktree following
// when it has the base checked out and clean; a dirty one, untracked files
// in the way, or the base checked out elsewhere block it, changing nothing.
func TestAdvanceMovesTheBaseOnlyWhereItMay(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	repo := newTestRepo(t)
	branchWithCommit(t, repo, "swarm/t1", "main", "c.txt", "see\n")
	r := openTestRepo(t, repo)
	p, err := r.PlanMerge(ctx, "main", "swarm/t1", "Merge t1")
	if err != nil {
		t.Fatal(err)
	}

	// Uncommitted changes in the person's checkout: blocked, said why.
	writeFile(t, filepath.Join(repo, "a.txt"), "mine\n")
	before := takeSnapshot(t, repo)
	var blocked *BlockedError
	if err := r.AdvanceBlocked(ctx, "main"); !errors.As(err, &blocked) || !strings.Contains(err.Error(), "uncommitted changes (a.txt)") {
		t.Errorf("AdvanceBlocked with a.txt changed: %v", err)
	}
	if err := r.Advance(ctx, "main", p.Old, p.Commit); !errors.As(err, &blocked) {
		t.Errorf("Advance with a.txt changed: %v", err)
	}
	sameSnapshot(t, "a blocked advance", before, takeSnapshot(t, repo))
	tgit(t, repo, "checkout", "a.txt")

	// An untracked file the merge would overwrite: blocked too.
	writeFile(t, filepath.Join(repo, "c.txt"), "mine\n")
	before = takeSnapshot(t, repo)
	if err := r.Advance(ctx, "main", p.Old, p.Commit); !errors.As(err, &blocked) || !strings.Contains(err.Error(), "c.txt") {
		t.Errorf("Advance with c.txt in the way: %v", err)
	}
	sameSnapshot(t, "a blocked advance", before, takeSnapshot(t, repo))
	os.Remove(filepath.Join(repo, "c.txt"))

	// A base not where the merge was made: ErrBaseMoved.
	if err := r.Advance(ctx, "main", p.Tip, p.Commit); !errors.Is(err, ErrBaseMoved) {
		t.Errorf("Advance from the wrong commit: %v", err)
	}

	// Clean: the base moves and the checkout follows.
	if err := r.Advance(ctx, "main", p.Old, p.Commit); err != nil {
		t.Fatal(err)
	}
	if got := tgit(t, repo, "rev-parse", "main"); got != p.Commit {
		t.Errorf("main at %s, want %s", got, p.Commit)
	}
	if readFile(t, filepath.Join(repo, "c.txt")) != "see\n" || tgit(t, repo, "status", "--porcelain") != "" {
		t.Errorf("the checkout did not follow: %q", tgit(t, repo, "status", "--porcelain"))
	}

	// Checked out in another worktree: blocked.
	other := filepath.Join(t.TempDir(), "other")
	tgit(t, repo, "checkout", "-q", "--detach")
	tgit(t, repo, "worktree", "add", "-q", other, "main")
	if err := r.AdvanceBlocked(ctx, "main"); !errors.As(err, &blocked) || !strings.Contains(err.Error(), other) {
		t.Errorf("main checked out in %s: %v", other, err)
	}
}

// The base checked out nowhere moves without any worktree.
func TestAdvanceABaseCheckedOutNowhere(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	repo := newTestRepo(t)
	tgit(t, repo, "branch", "trunk")
	branchWithCommit(t, repo, "swarm/t1", "trunk", "c.txt", "see\n")
	r := openTestRepo(t, repo)
	p, err := r.PlanMerge(ctx, "trunk", "swarm/t1", "Merge t1")
	if err != nil {
		t.Fatal(err)
	}
	before := takeSnapshot(t, repo)
	if err := r.Advance(ctx, "trunk", p.Old, p.Commit); err != nil {
		t.Fatal(err)
	}
	after := takeSnapshot(t, repo)
	after.Refs = before.Refs // the one change: trunk
	sameSnapshot(t, "the main worktree", before, after)
	if got := tgit(t, repo, "rev-parse", "trunk"); got != p.Commit {
		t.Errorf("trunk at %s", got)
	}
}

// A process killed between moving the base and the checkout following
// leaves the checkout at the old commit; FollowBase brings it along.
func TestFollowBaseFinishesAHalfDoneAdvance(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	repo := newTestRepo(t)
	branchWithCommit(t, repo, "swarm/t1", "main", "c.txt", "see\n")
	r := openTestRepo(t, repo)
	p, err := r.PlanMerge(ctx, "main", "swarm/t1", "Merge t1")
	if err != nil {
		t.Fatal(err)
	}
	tgit(t, repo, "update-ref", "refs/heads/main", p.Commit, p.Old) // the ref moved, nothing else
	if tgit(t, repo, "status", "--porcelain") == "" {
		t.Fatal("the half-done advance should show as changes")
	}
	if err := r.FollowBase(ctx, "main", p.Old, p.Commit); err != nil {
		t.Fatal(err)
	}
	if st := tgit(t, repo, "status", "--porcelain"); st != "" || readFile(t, filepath.Join(repo, "c.txt")) != "see\n" {
		t.Errorf("after FollowBase: %q", st)
	}
	// Again: nothing to do.
	if err := r.FollowBase(ctx, "main", p.Old, p.Commit); err != nil {
		t.Fatal(err)
	}
}

// Scratch worktrees, whole or half-made, are removed.
func TestScratchWorktreesAreRemoved(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	repo := newTestRepo(t)
	r := openTestRepo(t, repo)
	head := tgit(t, repo, "rev-parse", "HEAD")
	path, err := r.AddScratchWorktree(ctx, "t1", head)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(path, "b.txt")) != "bee\n" {
		t.Error("the scratch worktree lacks the commit's files")
	}
	// A second one: registered, its directory gone; a third: a directory
	// git does not know.
	gone, err := r.AddScratchWorktree(ctx, "t2", head)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(gone)
	writeFile(t, filepath.Join(repo, ".swarm", "merges", "t3", "junk"), "x")
	if err := r.RemoveScratchWorktrees(ctx); err != nil {
		t.Fatal(err)
	}
	if wts := worktreeList(t, repo); len(wts) != 1 {
		t.Errorf("worktrees left: %v", wts)
	}
	if entries, _ := os.ReadDir(filepath.Join(repo, ".swarm", "merges")); len(entries) != 0 {
		t.Errorf("left in .swarm/merges: %v", entries)
	}
}

// Killed while the checkout was following: some files already new's,
// the index still old's. FollowBase finishes it; a file the person
// changed since stops it, and nothing is touched.
func TestFollowBaseFinishesAHalfWrittenCheckout(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	repo := newTestRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	tgit(t, repo, "worktree", "add", "-q", "-b", "swarm/t1", wt, "main")
	commitFile(t, wt, "a.txt", "one\nTWO\nthree\n", "a")
	commitFile(t, wt, "c.txt", "see\n", "c")
	tgit(t, repo, "worktree", "remove", wt)
	r := openTestRepo(t, repo)
	p, err := r.PlanMerge(ctx, "main", "swarm/t1", "Merge t1")
	if err != nil {
		t.Fatal(err)
	}
	tgit(t, repo, "update-ref", "refs/heads/main", p.Commit, p.Old)
	writeFile(t, filepath.Join(repo, "c.txt"), "see\n") // written before the kill; a.txt was not

	// The person changed b.txt since: left alone.
	writeFile(t, filepath.Join(repo, "b.txt"), "mine\n")
	before := takeSnapshot(t, repo)
	if err := r.FollowBase(ctx, "main", p.Old, p.Commit); err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, "a checkout the person changed", before, takeSnapshot(t, repo))

	writeFile(t, filepath.Join(repo, "b.txt"), "bee\n")
	if err := r.FollowBase(ctx, "main", p.Old, p.Commit); err != nil {
		t.Fatal(err)
	}
	if st := tgit(t, repo, "status", "--porcelain"); st != "" || readFile(t, filepath.Join(repo, "a.txt")) != "one\nTWO\nthree\n" {
		t.Errorf("after FollowBase: %q", st)
	}
}
