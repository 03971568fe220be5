package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Rebase rebases the branch checked out in a task worktree onto base. The
// worktree must be clean, untracked files included (removing the worktree
// later would lose them): otherwise *DirtyError names the files and nothing
// is done. On a conflict the rebase is aborted — the worktree is back on
// its branch as it was — and *ConflictError names the files.
func (r *Repo) Rebase(ctx context.Context, worktree, base string) error {
	files, err := r.status(ctx, worktree, true)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return &DirtyError{Dir: worktree, Files: files}
	}
	branch, err := r.branchAt(ctx, worktree)
	if err != nil {
		return err
	}
	_, err = git("rebase", "--quiet", "--no-autostash", "--no-update-refs", headRef(base)).run(ctx, worktree)
	if err == nil {
		return nil
	}
	cctx, cancel := cleanupContext()
	defer cancel()
	in, perr := r.rebaseInProgress(cctx, worktree)
	if perr != nil {
		return joinErrs(err, perr)
	}
	if !in {
		return err
	}
	conflicts, uerr := r.unmerged(cctx, worktree)
	if _, aerr := git("rebase", "--abort").run(cctx, worktree); aerr != nil {
		return joinErrs(err, aerr)
	}
	if uerr != nil || len(conflicts) == 0 || ctx.Err() != nil {
		return err
	}
	return &ConflictError{Op: "rebase", Branch: branch, Base: base, Files: conflicts}
}

func (r *Repo) rebaseInProgress(ctx context.Context, dir string) (bool, error) {
	out, err := git("rev-parse", "--path-format=absolute", "--git-path", "rebase-merge", "--git-path", "rebase-apply").run(ctx, dir)
	if err != nil {
		return false, err
	}
	for _, p := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if _, err := os.Stat(p); err == nil {
			return true, nil
		}
	}
	return false, nil
}

// rebasing returns the worktree in which ref is being rebased, if any:
// during a rebase the branch is not checked out (HEAD is detached), but
// moving it would be undone when the rebase finishes.
func (r *Repo) rebasing(ref string) (string, error) {
	gitDirs := []string{r.commonDir}
	more, err := filepath.Glob(filepath.Join(r.commonDir, "worktrees", "*"))
	if err != nil {
		return "", err
	}
	for _, gd := range append(gitDirs, more...) {
		for _, d := range []string{"rebase-merge", "rebase-apply"} {
			b, err := os.ReadFile(filepath.Join(gd, d, "head-name"))
			if err == nil && strings.TrimSpace(string(b)) == ref {
				if gd == r.commonDir {
					return r.root, nil
				}
				if wt, err := os.ReadFile(filepath.Join(gd, "gitdir")); err == nil {
					return filepath.Dir(strings.TrimSpace(string(wt))), nil
				}
				return gd, nil
			}
		}
	}
	return "", nil
}

// Merge merges branch into base with a merge commit (--no-ff) carrying
// message, and returns the new commit of base.
//
// Merges run one at a time, across processes: Merge holds an exclusive lock
// on <git dir>/swarm-merge.lock throughout, waiting for it until ctx ends.
//
// Nothing is left half-merged. Mergeability is checked first with
// `git merge-tree --write-tree`; a conflict returns *ConflictError and
// changes nothing. Then:
//   - base checked out in the main worktree: the worktree must be clean
//     (*DirtyError names the files), and `git merge --no-ff` runs there with
//     the user's hooks; if it fails the merge is aborted;
//   - base checked out nowhere: the merge commit is built without touching
//     any worktree (`git commit-tree`) and base is moved to it with a
//     compare-and-set (`git update-ref <base> <new> <old>`), so a concurrent
//     change to base makes the merge fail instead of losing that change;
//     no hooks run;
//   - base checked out (or being rebased) in another worktree: refused.
//
// A branch already contained in base is ErrNothingToMerge. The merge commit
// uses the user's git identity; if git cannot determine one (no user.name
// or user.email configured and none to detect), it is made as
// "swarm <swarm@localhost>" — only this commit, the configuration is not
// changed.
func (r *Repo) Merge(ctx context.Context, base, branch, message string) (commit string, err error) {
	unlock, err := r.lockMerge(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()

	baseRef, branchRef := headRef(base), headRef(branch)
	old, err := r.commitOf(ctx, baseRef, base)
	if err != nil {
		return "", err
	}
	tip, err := r.commitOf(ctx, branchRef, branch)
	if err != nil {
		return "", err
	}
	if merged, err := r.isAncestor(ctx, tip, old); err != nil {
		return "", err
	} else if merged {
		return "", fmt.Errorf("merge %s into %s: %w: %s is already in %s", branch, base, ErrNothingToMerge, branch, base)
	}

	wts, err := r.worktrees(ctx, r.root)
	if err != nil {
		return "", err
	}
	inMain := false
	for i, wt := range wts {
		if wt.branch != baseRef {
			continue
		}
		if i == 0 {
			inMain = true
			continue
		}
		return "", fmt.Errorf("merge %s into %s: %s is checked out in the worktree %s; swarm merges only into a branch checked out in the main worktree or nowhere", branch, base, base, wt.path)
	}
	if dir, err := r.rebasing(baseRef); err != nil {
		return "", err
	} else if dir != "" {
		return "", fmt.Errorf("merge %s into %s: %s is being rebased in %s", branch, base, base, dir)
	}
	if inMain {
		files, err := r.Dirty(ctx)
		if err != nil {
			return "", err
		}
		if len(files) > 0 {
			return "", &DirtyError{Dir: r.root, Files: files, Main: true}
		}
	}

	tree, conflicts, err := r.mergeTree(ctx, old, tip)
	if err != nil {
		return "", err
	}
	if len(conflicts) > 0 {
		return "", &ConflictError{Op: "merge", Branch: branch, Base: base, Files: conflicts}
	}
	ident, err := r.identity(ctx)
	if err != nil {
		return "", err
	}
	if inMain {
		return r.mergeInMain(ctx, base, branch, old, tip, message, ident)
	}
	out, err := git("commit-tree", tree, "-p", old, "-p", tip, "-m", message).withConfig(ident...).run(ctx, r.root)
	if err != nil {
		return "", err
	}
	commit = strings.TrimSpace(out)
	if _, err := git("update-ref", "-m", "swarm: merge "+branch, baseRef, commit, old).run(ctx, r.root); err != nil {
		return "", err
	}
	return commit, nil
}

// mergeInMain runs git merge in the main worktree, where base is checked
// out at commit old, and undoes a merge that stopped part-way.
func (r *Repo) mergeInMain(ctx context.Context, base, branch, old, tip, message string, ident []string) (string, error) {
	_, err := git("merge", "--quiet", "--no-ff", "--no-edit", "--no-squash", "--no-autostash", "-m", message, tip).
		withConfig(ident...).run(ctx, r.root)
	cctx, cancel := cleanupContext()
	defer cancel()
	out, herr := git("rev-parse", "--verify", "HEAD").run(cctx, r.root)
	if herr != nil {
		return "", joinErrs(err, herr)
	}
	head := strings.TrimSpace(out)
	if err == nil {
		return head, nil
	}
	if head != old {
		// Killed after the merge commit was made: the merge is complete.
		if ps, perr := git("rev-list", "--parents", "-n", "1", head).run(cctx, r.root); perr == nil && strings.Join(strings.Fields(ps)[1:], " ") == old+" "+tip {
			return head, nil
		}
		return "", fmt.Errorf("%w (HEAD of %s moved to %s meanwhile; left as it is)", err, r.root, head)
	}
	if r.refExistsNoErr(cctx, "MERGE_HEAD") {
		conflicts, uerr := r.unmerged(cctx, r.root)
		if _, aerr := git("merge", "--abort").run(cctx, r.root); aerr != nil {
			return "", joinErrs(err, aerr)
		}
		if uerr == nil && len(conflicts) > 0 && ctx.Err() == nil {
			return "", &ConflictError{Op: "merge", Branch: branch, Base: base, Files: conflicts}
		}
		return "", fmt.Errorf("%w (merge aborted)", err)
	}
	// Stopped (killed) after updating the index and files but before
	// recording the merge: the worktree was clean, so reset it to HEAD.
	files, derr := r.Dirty(cctx)
	if derr != nil {
		return "", joinErrs(err, derr)
	}
	if len(files) == 0 {
		return "", err
	}
	if _, rerr := git("reset", "--quiet", "--merge").run(cctx, r.root); rerr != nil {
		return "", joinErrs(err, rerr)
	}
	return "", fmt.Errorf("%w (merge undone)", err)
}

// mergeTree computes the merge of two commits without touching any
// worktree, index or ref: the tree it would produce, or the conflicting
// paths.
func (r *Repo) mergeTree(ctx context.Context, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := git("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs).run(ctx, r.root)
	fields := nulList(out)
	if len(fields) == 0 || !isHash(fields[0]) {
		if err == nil {
			err = fmt.Errorf("%s: unexpected output %q", commandLine([]string{"merge-tree", "--write-tree", ours, theirs}), out)
		}
		return "", nil, err
	}
	var ge *GitError
	if err != nil && !(errors.As(err, &ge) && exitCode(ge.Err) == 1) {
		return "", nil, err
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		if !seen[f] {
			seen[f] = true
			conflicts = append(conflicts, f)
		}
	}
	if err != nil && len(conflicts) == 0 {
		return "", nil, err
	}
	return fields[0], conflicts, nil
}

// identity returns the configuration a commit needs when git cannot
// determine the user's identity (key=value pairs for withConfig): the
// fallback swarm <swarm@localhost>, only for what is missing from the
// configuration.
func (r *Repo) identity(ctx context.Context) ([]string, error) {
	_, aerr := git("var", "GIT_AUTHOR_IDENT").run(ctx, r.root)
	_, cerr := git("var", "GIT_COMMITTER_IDENT").run(ctx, r.root)
	if aerr == nil && cerr == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var config []string
	for _, kv := range [][2]string{{"user.name", "swarm"}, {"user.email", "swarm@localhost"}} {
		if v, _ := git("config", "--get", kv[0]).run(ctx, r.root); strings.TrimSpace(v) == "" {
			config = append(config, kv[0]+"="+kv[1])
		}
	}
	return config, nil
}

// lockMerge takes the repository-wide merge lock, polling until ctx ends: a
// blocking flock could not be interrupted. flock locks belong to the open
// file, so two goroutines of one process exclude each other too.
func (r *Repo) lockMerge(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(r.commonDir, "swarm-merge.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("merge lock: %w", err)
	}
	delay := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("merge lock %s: %w", path, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("wait for another merge to finish (%s): %w", path, ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}
