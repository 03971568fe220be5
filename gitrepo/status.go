package gitrepo

import (
	"context"
	"strings"
)

// Uncommitted lists the changed paths of a task worktree, untracked files
// included: what removing it would lose.
func (r *Repo) Uncommitted(ctx context.Context, worktree string) ([]string, error) {
	return r.status(ctx, worktree, true)
}

// Dirty lists the paths with uncommitted changes (staged or not) in the
// main worktree. Untracked files do not count — git merge refuses by itself
// if one would be overwritten — and nothing under .swarm/ counts.
func (r *Repo) Dirty(ctx context.Context) ([]string, error) {
	return r.status(ctx, r.root, false)
}

// status lists changed paths of a worktree, .swarm/ left out.
func (r *Repo) status(ctx context.Context, dir string, untracked bool) ([]string, error) {
	out, err := git("status", "--porcelain=v1", "-z").
		argIfElse(untracked, "--untracked-files=all", "--untracked-files=no").
		arg("--", ":/", ":(top,exclude).swarm").run(ctx, dir)
	if err != nil {
		return nil, err
	}
	var files []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		files = append(files, e[3:])
		if e[0] == 'R' || e[0] == 'C' || e[1] == 'R' || e[1] == 'C' {
			i++ // the original path of a rename or copy follows
		}
	}
	return files, nil
}

// unmerged lists the conflicting paths of a worktree mid-rebase or mid-merge.
func (r *Repo) unmerged(ctx context.Context, dir string) ([]string, error) {
	out, err := git("diff", "--name-only", "--diff-filter=U", "-z").run(ctx, dir)
	if err != nil {
		return nil, err
	}
	return nulList(out), nil
}

// SaveWork commits whatever is uncommitted in a task worktree, untracked
// files included, to its branch with message, so that removing the
// worktree loses nothing. Hooks do not run: this is a safety save, not a
// commit of the agent's. It reports whether there was anything to save.
func (r *Repo) SaveWork(ctx context.Context, worktree, message string) (bool, error) {
	files, err := r.status(ctx, worktree, true)
	if err != nil || len(files) == 0 {
		return false, err
	}
	ident, err := r.identity(ctx)
	if err != nil {
		return false, err
	}
	if _, err := git("add", "--all", "--", ":/").run(ctx, worktree); err != nil {
		return false, err
	}
	if _, err := git("commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", message).withConfig(ident...).run(ctx, worktree); err != nil {
		return false, err
	}
	return true, nil
}
