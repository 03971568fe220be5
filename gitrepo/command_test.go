package gitrepo

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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

// Configuration overrides reach git before the subcommand, where git reads
// them (after it, -c is an option of the subcommand or an error), and a
// failure names the command as built.
func TestCommandLine(t *testing.T) {
	c := git("commit", "--quiet").arg("-m", "msg").withConfig("user.name=swarm", "user.email=swarm@localhost")
	want := []string{"-c", "user.name=swarm", "-c", "user.email=swarm@localhost", "commit", "--quiet", "-m", "msg"}
	if diff := cmp.Diff(want, c.argv()); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	for _, untracked := range []bool{true, false} {
		got := git("status").argIfElse(untracked, "--untracked-files=all", "--untracked-files=no").argv()
		want := []string{"status", "--untracked-files=no"}
		if untracked {
			want[1] = "--untracked-files=all"
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("untracked %v (-want +got):\n%s", untracked, diff)
		}
	}

	gitTestEnv(t)
	dir := newTestRepo(t)
	_, err := git("config", "--get", "swarm.test").withConfig("swarm.test=from-c").run(context.Background(), dir)
	if err != nil {
		t.Fatalf("-c not applied before the subcommand: %v", err)
	}
	_, err = git("no-such-command").withConfig("a.b=c").run(context.Background(), dir)
	wantGitMessage(t, err, "git no-such-command: ")
}
