package gitrepo

import (
	"errors"
	"fmt"
	"strings"
)

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

// ErrUnmerged is wrapped by DeleteMergedBranch when the branch holds
// commits its base does not: deleting it would lose them.
var ErrUnmerged = errors.New("branch has commits its base does not")

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
