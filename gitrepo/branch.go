package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CurrentBranch is the branch checked out in the main worktree (a branch
// without commits yet counts). A detached HEAD is ErrDetachedHead.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	return r.branchAt(ctx, r.root)
}

func (r *Repo) branchAt(ctx context.Context, dir string) (string, error) {
	out, err := git("symbolic-ref", "--quiet", "HEAD").run(ctx, dir)
	ref := strings.TrimSpace(out)
	if err != nil || !strings.HasPrefix(ref, "refs/heads/") {
		var ge *GitError
		if errors.As(err, &ge) && ge.Stderr != "" {
			return "", err
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("worktree %s: %w", dir, ErrDetachedHead)
	}
	return strings.TrimPrefix(ref, "refs/heads/"), nil
}

// TaskBranch is the branch of a task: swarm/<id>.
func TaskBranch(id string) string { return "swarm/" + id }

// headRef turns a branch name into its full ref, so a tag or a file of the
// same name cannot be taken for it.
func headRef(name string) string {
	if strings.HasPrefix(name, "refs/") {
		return name
	}
	return "refs/heads/" + name
}

// commitOf resolves a branch ref to its commit; name is how the caller
// called it, for the message.
func (r *Repo) commitOf(ctx context.Context, ref, name string) (string, error) {
	out, err := git("rev-parse", "--verify", "--end-of-options", ref+"^{commit}").run(ctx, r.root)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("branch %q not found: %w", name, err)
	}
	return strings.TrimSpace(out), nil
}

func (r *Repo) refExists(ctx context.Context, ref string) (bool, error) {
	_, err := git("rev-parse", "--verify", "--quiet", "--end-of-options", ref).run(ctx, r.root)
	if err == nil {
		return true, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && exitCode(ge.Err) == 1 && ctx.Err() == nil {
		return false, nil
	}
	return false, err
}

func (r *Repo) refExistsNoErr(ctx context.Context, ref string) bool {
	ok, err := r.refExists(ctx, ref)
	return ok && err == nil
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) isAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := git("merge-base", "--is-ancestor", a, b).run(ctx, r.root)
	if err == nil {
		return true, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && exitCode(ge.Err) == 1 && ctx.Err() == nil {
		return false, nil
	}
	return false, err
}

// MergedBranch reports whether branch exists and, if it does, returns an
// error wrapping ErrUnmerged when it holds commits base does not.
func (r *Repo) MergedBranch(ctx context.Context, branch, base string) (existed bool, err error) {
	_, existed, err = r.mergedTip(ctx, branch, base)
	return existed, err
}

// DeleteMergedBranch deletes branch if every commit on it is on base, and
// reports whether it existed. A branch with work of its own is kept and
// the error wraps ErrUnmerged; nothing is ever lost.
func (r *Repo) DeleteMergedBranch(ctx context.Context, branch, base string) (existed bool, err error) {
	tip, existed, err := r.mergedTip(ctx, branch, base)
	if err != nil || !existed {
		return existed, err
	}
	// Only if it still points where it was checked: a branch moved
	// meanwhile is not deleted on a stale check.
	_, err = git("update-ref", "-d", "refs/heads/"+branch, tip).run(ctx, r.root)
	return true, err
}

// mergedTip returns the tip of branch if every commit on it is on base.
func (r *Repo) mergedTip(ctx context.Context, branch, base string) (tip string, existed bool, err error) {
	ref := "refs/heads/" + branch
	if ok, err := r.refExists(ctx, ref); err != nil || !ok {
		return "", false, err
	}
	if tip, err = r.commitOf(ctx, ref, branch); err != nil {
		return "", true, err
	}
	baseTip, err := r.commitOf(ctx, "refs/heads/"+base, base)
	if err != nil {
		return "", true, err
	}
	merged, err := r.isAncestor(ctx, tip, baseTip)
	if err != nil {
		return "", true, err
	}
	if !merged {
		return "", true, fmt.Errorf("%s: %w %s", branch, ErrUnmerged, base)
	}
	return tip, true, nil
}
