package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TaskWorktree is where the worktree of a task lives:
// <root>/.swarm/worktrees/<id>.
func (r *Repo) TaskWorktree(id string) string { return filepath.Join(r.worktreesDir(), id) }

// worktreesDir holds the task worktrees.
func (r *Repo) worktreesDir() string { return filepath.Join(r.root, ".swarm", "worktrees") }

// AddTaskWorktree creates branch swarm/<id> from the branch base and checks
// it out in a new worktree at <root>/.swarm/worktrees/<id>. If the branch
// already exists (a retried task) it is checked out as it is, keeping its
// commits. The worktree path must not exist yet.
//
// If a step fails, what this call made is removed again — the worktree
// (directory and git's administrative files) and the branch if it created
// it — so a failed create leaves the repository as it was.
func (r *Repo) AddTaskWorktree(ctx context.Context, id, base string) (branch, path string, err error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00") {
		return "", "", fmt.Errorf("task id %q cannot name a worktree", id)
	}
	branch, path = TaskBranch(id), r.TaskWorktree(id)

	if _, serr := os.Lstat(path); serr == nil {
		return "", "", fmt.Errorf("worktree for task %s: %s already exists", id, path)
	}
	// A worktree registered at our path whose directory is gone (deleted by
	// hand) would make `git worktree add` refuse; clear just that entry.
	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		return "", "", err
	}
	if wt := findWorktree(wts, path); wt != nil {
		if _, err := git("worktree", "remove", "--force", wt.path).run(ctx, r.root); err != nil {
			return "", "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", fmt.Errorf("worktree for task %s: %w", id, err)
	}

	exists, err := r.refExists(ctx, "refs/heads/"+branch)
	if err != nil {
		return "", "", err
	}
	if !exists {
		if _, err := git("branch", "--no-track", branch, headRef(base)).run(ctx, r.root); err != nil {
			return "", "", err
		}
	}
	if _, err := git("worktree", "add", "--quiet", path, branch).run(ctx, r.root); err != nil {
		return "", "", joinErrs(err, r.undoAdd(path, branch, !exists))
	}
	return branch, path, nil
}

// undoAdd removes a half-made task worktree and, if the call created it,
// the branch. It runs on its own deadline: the caller's context may be the
// reason the create failed.
func (r *Repo) undoAdd(path, branch string, deleteBranch bool) error {
	ctx, cancel := cleanupContext()
	defer cancel()
	var errs []error
	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		errs = append(errs, err)
	} else if wt := findWorktree(wts, path); wt != nil {
		if _, err := git("worktree", "remove", "--force", wt.path).run(ctx, r.root); err != nil {
			errs = append(errs, err)
		}
	}
	// git removes its own junk when it fails, but not always when it was
	// killed: remove the directory, then the entry if git still lists it.
	if err := os.RemoveAll(path); err != nil {
		errs = append(errs, err)
	}
	if wts, err := r.worktrees(ctx, r.root); err == nil && findWorktree(wts, path) != nil {
		if _, err := git("worktree", "prune").run(ctx, r.root); err != nil {
			errs = append(errs, err)
		}
	}
	if deleteBranch {
		if _, err := git("branch", "-D", branch).run(ctx, r.root); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("undo the worktree %s: %w", path, joinErrs(errs...))
	}
	return nil
}

// RemoveWorktree removes a task worktree with everything in it, including
// uncommitted changes; its branch is kept. A worktree that is already gone
// is not an error. Only worktrees under <root>/.swarm/worktrees are
// removed: it never deletes a worktree the user made.
func (r *Repo) RemoveWorktree(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("remove worktree %s: %w", path, err)
	}
	if rel, err := filepath.Rel(r.worktreesDir(), abs); err != nil || rel == "." || rel == ".." || strings.Contains(rel, string(filepath.Separator)) {
		return fmt.Errorf("remove worktree %s: not a task worktree (those are in %s)", path, r.worktreesDir())
	}
	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		return err
	}
	wt := findWorktree(wts, abs)
	if wt == nil {
		if _, err := os.Lstat(abs); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove worktree %s: not a worktree of %s", path, r.root)
	}
	_, err = git("worktree", "remove", "--force", wt.path).run(ctx, r.root)
	return err
}

// worktree is one entry of `git worktree list`; the first is the main one.
type worktree struct {
	path   string
	branch string // full ref; empty when detached
	bare   bool
}

func (r *Repo) worktrees(ctx context.Context, dir string) ([]worktree, error) {
	out, err := git("worktree", "list", "--porcelain", "-z").run(ctx, dir)
	if err != nil {
		return nil, err
	}
	var wts []worktree
	for _, f := range strings.Split(out, "\x00") {
		switch k, v, _ := strings.Cut(f, " "); k {
		case "worktree":
			wts = append(wts, worktree{path: v})
		case "branch":
			if len(wts) > 0 {
				wts[len(wts)-1].branch = v
			}
		case "bare":
			if len(wts) > 0 {
				wts[len(wts)-1].bare = true
			}
		}
	}
	return wts, nil
}

// findWorktree finds the worktree registered at path, comparing resolved
// paths: git records them resolved, a caller's path may run through a
// symlink.
func findWorktree(wts []worktree, path string) *worktree {
	want := resolvePath(path)
	for i := range wts {
		if resolvePath(wts[i].path) == want {
			return &wts[i]
		}
	}
	return nil
}

// resolvePath resolves symlinks in the longest existing prefix of path.
func resolvePath(path string) string {
	path = filepath.Clean(path)
	var rest []string
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = append(rest, filepath.Base(p))
	}
}
