// Package gitrepo is the git layer for tasks: a branch and worktree per
// task, the review diff, rebase at done and the merge into the base
// branch. Everything runs the git command line; nothing here knows about
// tasks or the bus.
//
// Where each thing is:
//
//	command.go   the one way git runs: a command line is built with git(…)
//	             (arg, argIfElse, withConfig for -c overrides) and run in a
//	             directory by run, in its own process group, with an
//	             environment that cannot point it at another repository;
//	             a failure is a *GitError that reads as one line
//	errors.go    the sentinel errors callers compare with errors.Is, and
//	             *DirtyError and *ConflictError, which name the files
//	repo.go      Repo: opening the repository from any of its worktrees,
//	             keeping .swarm/ out of git (info/exclude)
//	worktree.go  task worktrees: adding one (undone if a step fails),
//	             removing one (only under .swarm/worktrees), git's list of
//	             worktrees
//	branch.go    branches and refs: the current branch, a task's branch
//	             name, resolving and comparing commits, deleting a branch
//	             only when its base holds all of it
//	merge.go     rebase at done (aborted on conflict) and the merge into
//	             the base branch (merge-tree first, one at a time across
//	             processes, never left half-merged), the fallback identity
//	diff.go      the review: diff and diff --stat of base...branch
//	queue.go     the merge queue's git: a merge made as a commit on no
//	             branch, scratch worktrees (.swarm/merges) to check it in,
//	             the base moved to it only as a compare-and-set with the
//	             main worktree following (or why it cannot move now), and
//	             finishing what a killed process left half-done
//	status.go    what a worktree holds uncommitted (status, conflicted
//	             paths) and saving it as a commit before a worktree goes
//
// A new git command goes in the file of its domain and is built with
// git(…).run, so that how git is started, what it may read from the
// environment and how its failure reads stay one rule (command.go).
package gitrepo
