// Package gitrepo is the git layer for tasks: a branch and worktree per
// task, the review diff, rebase at done and the merge into the base
// branch. Everything runs the git command line (one function, run); nothing
// here knows about tasks or the bus.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// joined is errors.Join on one line: git failures end up in task notes,
// notices typed into agents and the status line.
type joined []error

func (j joined) Error() string {
	parts := make([]string, len(j))
	for i, e := range j {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

func (j joined) Unwrap() []error { return j }

// joinErrs joins the non-nil errors (nil when there are none).
func joinErrs(errs ...error) error {
	var out joined
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// ErrNotGitRepo means a directory is not inside a git repository.
var ErrNotGitRepo = errors.New("not a git repository")

// ErrDetachedHead means the main worktree has no branch checked out, so
// there is no current branch to use as a base.
var ErrDetachedHead = errors.New("HEAD is detached")

// ErrDirty means a worktree has uncommitted changes; the *DirtyError that
// wraps it names the files.
var ErrDirty = errors.New("uncommitted changes")

// ErrConflict means a rebase or merge conflicts; the *ConflictError that
// wraps it names the files.
var ErrConflict = errors.New("conflict")

// ErrNothingToMerge means the branch is already contained in the base
// branch: a merge would record nothing.
var ErrNothingToMerge = errors.New("nothing to merge")

// GitError is a git command that failed. Its message is one line naming the
// command and git's reason, e.g.
// `git worktree add --quiet /p swarm/t1: '/p' already exists`.
type GitError struct {
	Args   []string // arguments after "git"
	Dir    string   // where it ran
	Stderr string   // everything git wrote to stderr
	Err    error    // the exit status, or the context's error if it ended
}

// Error returns `git <args>: <reason>` on one line.
func (e *GitError) Error() string {
	return commandLine(e.Args) + ": " + e.reason()
}

// Unwrap returns the exit error or the context's error.
func (e *GitError) Unwrap() error { return e.Err }

// reason is the line of stderr that says what went wrong: git often starts
// with hints or banners ("Author identity unknown") and ends with the
// fatal/error line that matters.
func (e *GitError) reason() string {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return e.Err.Error()
	}
	var first string
	for _, line := range strings.Split(e.Stderr, "\n") {
		line = strings.TrimSpace(line)
		for _, p := range []string{"fatal: ", "error: "} {
			if strings.HasPrefix(line, p) {
				return strings.TrimPrefix(line, p)
			}
		}
		if first == "" && line != "" && !strings.HasPrefix(line, "hint:") {
			first = line
		}
	}
	if first != "" {
		return first
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return "failed"
}

// commandLine renders a git command for a message: configuration overrides
// (-c k=v) are left out, a commit message (-m) is cut to the start of its
// first line and arguments that need it are quoted, so the result stays one
// readable line.
func commandLine(args []string) string {
	var b strings.Builder
	b.WriteString("git")
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" && i+1 < len(args) {
			i++
			continue
		}
		a := args[i]
		if i > 0 && args[i-1] == "-m" {
			first, _, cut := strings.Cut(a, "\n")
			if r := []rune(first); len(r) > 40 {
				first, cut = string(r[:40]), true
			}
			if cut {
				a = first + "…"
			}
		}
		if a == "" || strings.IndexFunc(a, needsQuote) >= 0 {
			a = strconv.Quote(a)
		}
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	case strings.ContainsRune("-_./:=@%^+,{}~…", r):
		return false
	}
	return true
}

// DirtyError is a worktree with uncommitted changes. It wraps ErrDirty.
type DirtyError struct {
	Dir   string   // the worktree
	Files []string // changed paths, relative to the worktree
	Main  bool     // Dir is the main worktree, the person's own
}

// Error names the worktree and the files.
func (e *DirtyError) Error() string {
	if e.Main {
		return fmt.Sprintf("the main worktree %s has %s (%s): commit or stash them first", e.Dir, ErrDirty, fileList(e.Files))
	}
	return fmt.Sprintf("%s in %s: %s", ErrDirty, e.Dir, fileList(e.Files))
}

// Unwrap returns ErrDirty.
func (e *DirtyError) Unwrap() error { return ErrDirty }

// ConflictError is a rebase or merge that conflicts. Nothing was changed:
// a conflicting rebase has been aborted, a conflicting merge never started
// or was aborted. It wraps ErrConflict.
type ConflictError struct {
	Op     string   // "rebase" or "merge"
	Branch string   // the task branch
	Base   string   // the base branch
	Files  []string // conflicting paths
}

// Error reads "rebase swarm/t1 onto main: conflict in a.go, b.go" or
// "merge swarm/t1 into main: conflict in a.go".
func (e *ConflictError) Error() string {
	prep := "into"
	if e.Op == "rebase" {
		prep = "onto"
	}
	return fmt.Sprintf("%s %s %s %s: %s in %s", e.Op, e.Branch, prep, e.Base, ErrConflict, fileList(e.Files))
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

func fileList(files []string) string {
	const max = 10
	if len(files) <= max {
		return strings.Join(files, ", ")
	}
	return strings.Join(files[:max], ", ") + fmt.Sprintf(" and %d more", len(files)-max)
}

// Repo is a git repository seen from its main worktree. Task worktrees live
// under <root>/.swarm/worktrees/<task-id> on branches swarm/<task-id>.
//
// A Repo holds no open resources and is safe for concurrent use; merges are
// serialised by a lock file shared by every process (see Merge).
//
// git runs with the user's own configuration, hooks and identity, with its
// input from /dev/null, no terminal prompts, no editor, and without
// inherited variables that would point it at another repository (GIT_DIR,
// GIT_WORK_TREE, GIT_INDEX_FILE, …).
type Repo struct {
	root      string // the main worktree
	commonDir string // the .git directory shared by all worktrees
}

// OpenRepo opens the repository containing dir. From inside a linked
// worktree it still opens the main worktree. A directory outside any
// repository gives an error wrapping ErrNotGitRepo; a bare repository is
// refused because tasks are merged through its main worktree.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	out, err := runGit(ctx, abs, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && exitCode(ge.Err) == 128 && ctx.Err() == nil {
			if strings.Contains(ge.Stderr, "not a git repository") {
				return nil, fmt.Errorf("%s: %w", abs, ErrNotGitRepo)
			}
			return nil, fmt.Errorf("%s: %w (%w)", abs, ErrNotGitRepo, err)
		}
		return nil, err
	}
	r := &Repo{commonDir: strings.TrimSpace(out)}
	wts, err := r.worktrees(ctx, abs)
	if err != nil {
		return nil, err
	}
	if len(wts) == 0 || wts[0].bare {
		return nil, fmt.Errorf("%s: the repository is bare: swarm needs its main worktree", abs)
	}
	r.root = wts[0].path
	return r, nil
}

// Root is the directory of the main worktree.
func (r *Repo) Root() string { return r.root }

// CurrentBranch is the branch checked out in the main worktree (a branch
// without commits yet counts). A detached HEAD is ErrDetachedHead.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	return r.branchAt(ctx, r.root)
}

func (r *Repo) branchAt(ctx context.Context, dir string) (string, error) {
	out, err := runGit(ctx, dir, "symbolic-ref", "--quiet", "HEAD")
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

// swarmExclude is the pattern that keeps swarm's own directory out of git.
const swarmExclude = ".swarm/"

// ExcludeSwarmDir makes sure `.swarm/` is listed in the repository's
// info/exclude (shared by all worktrees), so the bus and the task worktrees
// never show up as untracked files. It adds the line only once.
func (r *Repo) ExcludeSwarmDir(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path := filepath.Join(r.commonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case ".swarm", ".swarm/", "/.swarm", "/.swarm/":
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	add := swarmExclude + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = "\n" + add
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	_, err = f.WriteString(add)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	return nil
}

// TaskBranch is the branch of a task: swarm/<id>.
func TaskBranch(id string) string { return "swarm/" + id }

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
		if _, err := r.git(ctx, r.root, "worktree", "remove", "--force", wt.path); err != nil {
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
		if _, err := r.git(ctx, r.root, "branch", "--no-track", branch, headRef(base)); err != nil {
			return "", "", err
		}
	}
	if _, err := r.git(ctx, r.root, "worktree", "add", "--quiet", path, branch); err != nil {
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
		if _, err := r.git(ctx, r.root, "worktree", "remove", "--force", wt.path); err != nil {
			errs = append(errs, err)
		}
	}
	// git removes its own junk when it fails, but not always when it was
	// killed: remove the directory, then the entry if git still lists it.
	if err := os.RemoveAll(path); err != nil {
		errs = append(errs, err)
	}
	if wts, err := r.worktrees(ctx, r.root); err == nil && findWorktree(wts, path) != nil {
		if _, err := r.git(ctx, r.root, "worktree", "prune"); err != nil {
			errs = append(errs, err)
		}
	}
	if deleteBranch {
		if _, err := r.git(ctx, r.root, "branch", "-D", branch); err != nil {
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
	_, err = r.git(ctx, r.root, "worktree", "remove", "--force", wt.path)
	return err
}

// Uncommitted lists the changed paths of a task worktree, untracked files
// included: what removing it would lose.
func (r *Repo) Uncommitted(ctx context.Context, worktree string) ([]string, error) {
	return r.status(ctx, worktree, true)
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
	if _, err := r.git(ctx, worktree, "add", "--all", "--", ":/"); err != nil {
		return false, err
	}
	args := append(ident, "commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", message)
	if _, err := r.git(ctx, worktree, args...); err != nil {
		return false, err
	}
	return true, nil
}

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
	_, err = r.git(ctx, worktree, "rebase", "--quiet", "--no-autostash", "--no-update-refs", headRef(base))
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
	if _, aerr := r.git(cctx, worktree, "rebase", "--abort"); aerr != nil {
		return joinErrs(err, aerr)
	}
	if uerr != nil || len(conflicts) == 0 || ctx.Err() != nil {
		return err
	}
	return &ConflictError{Op: "rebase", Branch: branch, Base: base, Files: conflicts}
}

func (r *Repo) rebaseInProgress(ctx context.Context, dir string) (bool, error) {
	out, err := r.git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "rebase-merge", "--git-path", "rebase-apply")
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

// DiffStat is `git diff --stat base...branch`: what the branch changed since
// it left base, whatever happened on base meanwhile.
func (r *Repo) DiffStat(ctx context.Context, base, branch string) (string, error) {
	return r.git(ctx, r.root, "diff", "--no-color", "--no-ext-diff", "--stat", headRef(base)+"..."+headRef(branch))
}

// Diff is `git diff base...branch`, the patch under review.
func (r *Repo) Diff(ctx context.Context, base, branch string) (string, error) {
	return r.git(ctx, r.root, "diff", "--no-color", "--no-ext-diff", headRef(base)+"..."+headRef(branch))
}

// Dirty lists the paths with uncommitted changes (staged or not) in the
// main worktree. Untracked files do not count — git merge refuses by itself
// if one would be overwritten — and nothing under .swarm/ counts.
func (r *Repo) Dirty(ctx context.Context) ([]string, error) {
	return r.status(ctx, r.root, false)
}

// status lists changed paths of a worktree, .swarm/ left out.
func (r *Repo) status(ctx context.Context, dir string, untracked bool) ([]string, error) {
	mode := "--untracked-files=no"
	if untracked {
		mode = "--untracked-files=all"
	}
	out, err := r.git(ctx, dir, "status", "--porcelain=v1", "-z", mode, "--", ":/", ":(top,exclude).swarm")
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
	out, err := r.git(ctx, dir, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, err
	}
	return nulList(out), nil
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
	args := slices.Concat(ident, []string{"commit-tree", tree, "-p", old, "-p", tip, "-m", message})
	out, err := r.git(ctx, r.root, args...)
	if err != nil {
		return "", err
	}
	commit = strings.TrimSpace(out)
	if _, err := r.git(ctx, r.root, "update-ref", "-m", "swarm: merge "+branch, baseRef, commit, old); err != nil {
		return "", err
	}
	return commit, nil
}

// mergeInMain runs git merge in the main worktree, where base is checked
// out at commit old, and undoes a merge that stopped part-way.
func (r *Repo) mergeInMain(ctx context.Context, base, branch, old, tip, message string, ident []string) (string, error) {
	args := slices.Concat(ident, []string{"merge", "--quiet", "--no-ff", "--no-edit", "--no-squash", "--no-autostash", "-m", message, tip})
	_, err := r.git(ctx, r.root, args...)
	cctx, cancel := cleanupContext()
	defer cancel()
	out, herr := r.git(cctx, r.root, "rev-parse", "--verify", "HEAD")
	if herr != nil {
		return "", joinErrs(err, herr)
	}
	head := strings.TrimSpace(out)
	if err == nil {
		return head, nil
	}
	if head != old {
		// Killed after the merge commit was made: the merge is complete.
		if ps, perr := r.git(cctx, r.root, "rev-list", "--parents", "-n", "1", head); perr == nil && strings.Join(strings.Fields(ps)[1:], " ") == old+" "+tip {
			return head, nil
		}
		return "", fmt.Errorf("%w (HEAD of %s moved to %s meanwhile; left as it is)", err, r.root, head)
	}
	if r.refExistsNoErr(cctx, "MERGE_HEAD") {
		conflicts, uerr := r.unmerged(cctx, r.root)
		if _, aerr := r.git(cctx, r.root, "merge", "--abort"); aerr != nil {
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
	if _, rerr := r.git(cctx, r.root, "reset", "--quiet", "--merge"); rerr != nil {
		return "", joinErrs(err, rerr)
	}
	return "", fmt.Errorf("%w (merge undone)", err)
}

// mergeTree computes the merge of two commits without touching any
// worktree, index or ref: the tree it would produce, or the conflicting
// paths.
func (r *Repo) mergeTree(ctx context.Context, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := r.git(ctx, r.root, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs)
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

// identity returns the -c options a commit needs when git cannot determine
// the user's identity: the fallback swarm <swarm@localhost>, only for what
// is missing from the configuration.
func (r *Repo) identity(ctx context.Context) ([]string, error) {
	_, aerr := r.git(ctx, r.root, "var", "GIT_AUTHOR_IDENT")
	_, cerr := r.git(ctx, r.root, "var", "GIT_COMMITTER_IDENT")
	if aerr == nil && cerr == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var args []string
	for _, kv := range [][2]string{{"user.name", "swarm"}, {"user.email", "swarm@localhost"}} {
		if v, _ := r.git(ctx, r.root, "config", "--get", kv[0]); strings.TrimSpace(v) == "" {
			args = append(args, "-c", kv[0]+"="+kv[1])
		}
	}
	return args, nil
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

// commitOf resolves a branch ref to its commit; name is how the caller
// called it, for the message.
func (r *Repo) commitOf(ctx context.Context, ref, name string) (string, error) {
	out, err := r.git(ctx, r.root, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("branch %q not found: %w", name, err)
	}
	return strings.TrimSpace(out), nil
}

// ErrUnmerged is wrapped by DeleteMergedBranch when the branch holds
// commits its base does not: deleting it would lose them.
var ErrUnmerged = errors.New("branch has commits its base does not")

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
	_, err = r.git(ctx, r.root, "update-ref", "-d", "refs/heads/"+branch, tip)
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

func (r *Repo) refExists(ctx context.Context, ref string) (bool, error) {
	_, err := r.git(ctx, r.root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
	if err == nil {
		return true, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && exitCode(ge.Err) == 1 && ctx.Err() == nil {
		return false, nil
	}
	return false, err
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) isAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.git(ctx, r.root, "merge-base", "--is-ancestor", a, b)
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

// worktree is one entry of `git worktree list`; the first is the main one.
type worktree struct {
	path   string
	branch string // full ref; empty when detached
	bare   bool
}

func (r *Repo) worktrees(ctx context.Context, dir string) ([]worktree, error) {
	out, err := r.git(ctx, dir, "worktree", "list", "--porcelain", "-z")
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

// headRef turns a branch name into its full ref, so a tag or a file of the
// same name cannot be taken for it.
func headRef(name string) string {
	if strings.HasPrefix(name, "refs/") {
		return name
	}
	return "refs/heads/" + name
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func nulList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// cleanupContext bounds the git commands that undo a failed step; they run
// even when the caller's context has ended.
func cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

func (r *Repo) git(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, dir, args...)
}

// runGit runs git in dir and returns its stdout; a failure is a *GitError.
// git gets its own process group so that ending ctx also ends the hooks it
// started; it is asked to stop with SIGTERM first, which lets it remove its
// lock files, and killed if it has not after a grace period.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return stdout.String(), &GitError{Args: args, Dir: dir, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}

// repoEnv are variables that would make git act on another repository,
// index or object store than the one in the command's directory; they are
// set, for example, in hooks and in programs git starts.
var repoEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_NAMESPACE": true,
	"GIT_PREFIX": true, "GIT_IMPLICIT_WORK_TREE": true, "GIT_GRAFT_FILE": true, "GIT_SHALLOW_FILE": true,
	"GIT_NO_REPLACE_OBJECTS": true, "GIT_REPLACE_REF_BASE": true, "GIT_QUARANTINE_PATH": true,
}

func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !repoEnv[k] {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0", // never ask for credentials
		"GIT_EDITOR=true",       // never open an editor
		"GIT_MERGE_AUTOEDIT=no",
		"GIT_OPTIONAL_LOCKS=0", // status must not take index.lock from an agent or the user
	)
}
