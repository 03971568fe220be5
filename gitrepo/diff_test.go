package gitrepo

import (
	"context"
	"strings"
	"testing"
)

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
