package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The merge queue's git: the merge of a task's branch onto its base made
// as a commit without touching any worktree or ref (PlanMerge), a scratch
// worktree to check it in (.swarm/merges/<name>), and moving the base to
// it only as a compare-and-set, the person's checkout following when it
// has the base checked out and clean (Advance). A process killed at any
// point leaves the base either where it was or at the checked merge;
// RemoveScratchWorktrees and FollowBase clean up after it.

// BranchCommit is the commit branch is at.
func (r *Repo) BranchCommit(ctx context.Context, branch string) (string, error) {
	return r.commitOf(ctx, headRef(branch), branch)
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	return r.isAncestor(ctx, a, b)
}

// MergePlan is the merge of a branch onto its base as they are now.
type MergePlan struct {
	Old    string // the base's commit
	Tip    string // the branch's commit
	Commit string // the merge commit (parents Old and Tip), on no branch yet
}

// PlanMerge makes the commit merging branch into base (--no-ff, carrying
// message) without touching any worktree, index or ref. A branch already
// in base is ErrNothingToMerge; a conflict is *ConflictError.
func (r *Repo) PlanMerge(ctx context.Context, base, branch, message string) (MergePlan, error) {
	var p MergePlan
	var err error
	if p.Old, err = r.commitOf(ctx, headRef(base), base); err != nil {
		return p, err
	}
	if p.Tip, err = r.commitOf(ctx, headRef(branch), branch); err != nil {
		return p, err
	}
	if in, err := r.isAncestor(ctx, p.Tip, p.Old); err != nil {
		return p, err
	} else if in {
		return p, fmt.Errorf("merge %s into %s: %w: %s is already in %s", branch, base, ErrNothingToMerge, branch, base)
	}
	tree, conflicts, err := r.mergeTree(ctx, p.Old, p.Tip)
	if err != nil {
		return p, err
	}
	if len(conflicts) > 0 {
		return p, &ConflictError{Op: "merge", Branch: branch, Base: base, Files: conflicts}
	}
	ident, err := r.identity(ctx)
	if err != nil {
		return p, err
	}
	out, err := git("commit-tree", tree, "-p", p.Old, "-p", p.Tip, "-m", message).withConfig(ident...).run(ctx, r.root)
	if err != nil {
		return p, err
	}
	p.Commit = strings.TrimSpace(out)
	return p, nil
}

// scratchDir holds the merge queue's scratch worktrees.
func (r *Repo) scratchDir() string { return filepath.Join(r.root, ".swarm", "merges") }

// AddScratchWorktree checks commit out, detached, in a new worktree
// .swarm/merges/<name> (one left there before is removed first) and
// returns its path.
func (r *Repo) AddScratchWorktree(ctx context.Context, name, commit string) (string, error) {
	if name == "" || strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." {
		return "", fmt.Errorf("scratch worktree %q: not a name", name)
	}
	path := filepath.Join(r.scratchDir(), name)
	if err := r.removeScratch(ctx, path); err != nil {
		return "", err
	}
	if err := os.MkdirAll(r.scratchDir(), 0o700); err != nil {
		return "", fmt.Errorf("scratch worktree: %w", err)
	}
	if _, err := git("worktree", "add", "--quiet", "--detach", path, commit).run(ctx, r.root); err != nil {
		cctx, cancel := cleanupContext()
		defer cancel()
		return "", joinErrs(err, r.removeScratch(cctx, path))
	}
	return path, nil
}

// RemoveScratchWorktrees removes every scratch worktree of the merge
// queue, whatever state a killed process left it in.
func (r *Repo) RemoveScratchWorktrees(ctx context.Context) error {
	entries, err := os.ReadDir(r.scratchDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("scratch worktrees: %w", err)
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, r.removeScratch(ctx, filepath.Join(r.scratchDir(), e.Name())))
	}
	// Registered ones whose directory is gone.
	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		return joinErrs(append(errs, err)...)
	}
	for _, wt := range wts {
		if rel, err := filepath.Rel(resolvePath(r.scratchDir()), resolvePath(wt.path)); err == nil && !strings.HasPrefix(rel, "..") {
			_, err := git("worktree", "prune").run(ctx, r.root)
			errs = append(errs, err)
			break
		}
	}
	return joinErrs(errs...)
}

// removeScratch removes the scratch worktree at path: git's entry and the
// directory.
func (r *Repo) removeScratch(ctx context.Context, path string) error {
	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		return err
	}
	var errs []error
	if wt := findWorktree(wts, path); wt != nil {
		if _, err := git("worktree", "remove", "--force", wt.path).run(ctx, r.root); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(path); err != nil {
		errs = append(errs, err)
	}
	if wts, err := r.worktrees(ctx, r.root); err == nil && findWorktree(wts, path) != nil {
		if _, err := git("worktree", "prune").run(ctx, r.root); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrs(errs...)
}

// ErrBaseMoved means the base branch is not at the commit a merge was
// made onto: the merge must be made (and checked) again.
var ErrBaseMoved = errors.New("the base branch moved")

// BlockedError says why the base branch cannot move now: the person's
// checkout of it has uncommitted changes, it is checked out in another
// worktree, it is being rebased. The merge waits; nothing was changed.
type BlockedError struct{ Reason string }

func (e *BlockedError) Error() string { return e.Reason }

// checkout says where base is checked out: in the main worktree (inMain),
// nowhere, or a *BlockedError for anywhere else.
func (r *Repo) checkout(ctx context.Context, base string) (inMain bool, err error) {
	ref := headRef(base)
	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		return false, err
	}
	for i, wt := range wts {
		if wt.branch != ref {
			continue
		}
		if i == 0 {
			inMain = true
			continue
		}
		return false, &BlockedError{fmt.Sprintf("%s is checked out in the worktree %s; swarm moves it only when it is checked out in the main worktree or nowhere", base, wt.path)}
	}
	if dir, err := r.rebasing(ref); err != nil {
		return false, err
	} else if dir != "" {
		return false, &BlockedError{fmt.Sprintf("%s is being rebased in %s", base, dir)}
	}
	return inMain, nil
}

// AdvanceBlocked returns a *BlockedError when base cannot move now: it is
// checked out elsewhere than in the main worktree, or there with
// uncommitted changes. The queue asks before it makes and checks a merge.
func (r *Repo) AdvanceBlocked(ctx context.Context, base string) error {
	inMain, err := r.checkout(ctx, base)
	if err != nil || !inMain {
		return err
	}
	return r.mainClean(ctx, base)
}

func (r *Repo) mainClean(ctx context.Context, base string) error {
	files, err := r.Dirty(ctx)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return &BlockedError{fmt.Sprintf("%s is checked out in %s, which has uncommitted changes (%s): commit or stash them, and the merge goes on",
			base, r.root, fileList(files))}
	}
	return nil
}

// Advance moves base from old to new, a commit whose first parent is old
// (a checked merge), one at a time with every merge (the merge lock):
//   - base checked out nowhere: the ref moves as a compare-and-set
//     (`git update-ref <base> <new> <old>`);
//   - checked out in the main worktree: that worktree must be clean and
//     able to take new's files (untracked files in the way say so), else
//     *BlockedError; the ref moves as above, then the worktree follows
//     (`git read-tree -m -u old new`); should that fail, the ref moves back
//     and *BlockedError says why;
//   - checked out in another worktree, or being rebased: *BlockedError.
//
// A base not at old is ErrBaseMoved. Hooks do not run.
func (r *Repo) Advance(ctx context.Context, base, old, new string) error {
	unlock, err := r.lockMerge(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	ref := headRef(base)
	if at, err := r.commitOf(ctx, ref, base); err != nil {
		return err
	} else if at != old {
		return fmt.Errorf("%w: %s is at %s, the merge was made onto %s", ErrBaseMoved, base, at, old)
	}
	inMain, err := r.checkout(ctx, base)
	if err != nil {
		return err
	}
	if inMain {
		if err := r.mainClean(ctx, base); err != nil {
			return err
		}
		if _, err := git("read-tree", "-n", "-m", "-u", old, new).run(ctx, r.root); err != nil {
			return &BlockedError{fmt.Sprintf("%s cannot take the merge: %v", r.root, err)}
		}
	}
	if _, err := git("update-ref", "-m", "swarm: merge queue", ref, new, old).run(ctx, r.root); err != nil {
		return fmt.Errorf("%w: %v", ErrBaseMoved, err)
	}
	if !inMain {
		return nil
	}
	if _, err := git("read-tree", "-m", "-u", old, new).run(ctx, r.root); err != nil {
		cctx, cancel := cleanupContext()
		defer cancel()
		if _, berr := git("update-ref", "-m", "swarm: merge queue, undone", ref, old, new).run(cctx, r.root); berr != nil {
			return joinErrs(err, berr)
		}
		return &BlockedError{fmt.Sprintf("%s could not follow %s to the merge (moved back): %v", r.root, base, err)}
	}
	return nil
}

// FollowBase finishes an Advance a killed process left half-done: base
// is at new and checked out in the main worktree, whose index is still
// old's, and whose files are old's or, for those the killed process had
// already written, new's — nothing the person changed since. The index
// and the files are then brought to new. In any other case (the checkout
// followed, or holds changes of the person's) it does nothing.
func (r *Repo) FollowBase(ctx context.Context, base, old, new string) error {
	if at, err := r.commitOf(ctx, headRef(base), base); err != nil || at != new {
		return err
	}
	if inMain, err := r.checkout(ctx, base); err != nil || !inMain {
		var blocked *BlockedError
		if errors.As(err, &blocked) {
			return nil
		}
		return err
	}
	if _, err := git("diff-index", "--cached", "--quiet", old, "--").run(ctx, r.root); err != nil {
		return nil // the index is not old's: it followed, or the person changed it
	}
	// What differs from the index (old's), and untracked files new has:
	// each must be as new has it, or the person has been at work.
	out, err := git("diff-files", "--name-only", "-z").run(ctx, r.root)
	if err != nil {
		return err
	}
	paths := nulList(out)
	if out, err = git("ls-files", "--others", "-z", "--", ":/", ":(top,exclude).swarm").run(ctx, r.root); err != nil {
		return err
	}
	for _, p := range nulList(out) {
		if _, err := git("cat-file", "-e", new+":"+p).run(ctx, r.root); err == nil {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		if ok, err := r.asIn(ctx, new, p); err != nil || !ok {
			return err
		}
	}
	if len(paths) == 0 {
		_, err = git("read-tree", "-m", "-u", old, new).run(ctx, r.root)
		return err
	}
	_, err = git("read-tree", "--reset", "-u", new).run(ctx, r.root)
	return err
}

// asIn reports whether the file at path in the main worktree is as commit
// has it (absent where commit has none).
func (r *Repo) asIn(ctx context.Context, commit, path string) (bool, error) {
	want, werr := git("rev-parse", "--verify", "--quiet", commit+":"+path).run(ctx, r.root)
	if _, err := os.Lstat(filepath.Join(r.root, path)); errors.Is(err, os.ErrNotExist) {
		return werr != nil, nil
	}
	if werr != nil {
		return false, nil
	}
	got, err := git("hash-object", "--", path).run(ctx, r.root)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(got) == strings.TrimSpace(want), nil
}
