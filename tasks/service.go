// Package tasks is the task service: it moves tasks on request, by one
// rule for who may make which move (Service.Move, refusing with
// ErrNotAllowed), and does what goes with each move — the git work of a
// task that has a branch (its worktree, the rebase at done, the merge, the
// cleanup at cancel and retry) and the messages its assignee needs. The
// state machine itself, every transition a compare-and-set, is the bus's;
// the git is gitrepo's. The command line, the running supervisor (its
// control messages and its UI) and the MCP tools all move tasks through
// here, so a task moves the same way whoever moves it.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"swarm/bus"
	"swarm/gitrepo"
)

// Service carries out task transitions together with what goes with them:
// the git work of a task that has a branch (rebase at done, merge,
// removing its worktree) and the messages its assignee needs. The running
// supervisor and the command line both use it, so a task moves the same
// way whoever moves it.
//
// Every transition is a compare-and-set on the bus. Git work that can fail
// comes before the state change it leads to, so a git failure leaves the
// task where it was; the error names the task and the git command.
type Service struct {
	bus     *bus.Bus
	repo    *gitrepo.Repo // nil when the project is not a git repository
	repoErr error         // why repo is nil
	base    string
}

// New returns the task service for the project in projectDir.
// baseBranch is the branch task branches start from; "" means the branch
// checked out in the main worktree when a task's branch is made.
func New(ctx context.Context, b *bus.Bus, projectDir, baseBranch string) *Service {
	repo, err := gitrepo.OpenRepo(ctx, projectDir)
	return &Service{bus: b, repo: repo, repoErr: err, base: baseBranch}
}

// Repo returns the project's repository, or nil and why there is none.
func (t *Service) Repo() (*gitrepo.Repo, error) { return t.repo, t.repoErr }

func taskError(id string, err error) error { return fmt.Errorf("task %s: %w", id, err) }

// wrongState refuses an action that applies only to tasks in the states
// want, naming the task's state and what the person does first when one
// of their moves leads there (merge of a task IN_REVIEW: approve it
// first), else the states the task can go to from its own.
func wrongState(task bus.Task, action string, want ...bus.TaskState) error {
	wanted := make([]string, len(want))
	for i, w := range want {
		wanted[i] = w.String()
	}
	for m := MoveApprove; m.reviewers(); m++ {
		if m.AppliesTo(task.State) && slices.Contains(want, m.to()) {
			return &refusal{fmt.Sprintf("task %s is %s: %s applies to a task %s; %s it first",
				task.ID, task.State, action, strings.Join(wanted, " or "), m)}
		}
	}
	moves := bus.AllowedMoves(task.State)
	if len(moves) == 0 {
		return &refusal{fmt.Sprintf("task %s is %s, which is final: %s applies to a task %s",
			task.ID, task.State, action, strings.Join(wanted, " or "))}
	}
	allowed := make([]string, len(moves))
	for i, m := range moves {
		allowed[i] = m.String()
	}
	return &refusal{fmt.Sprintf("task %s is %s: %s applies to a task %s (from %s it can go to %s)",
		task.ID, task.State, action, strings.Join(wanted, " or "), task.State, strings.Join(allowed, ", "))}
}

// refusal is an action refused in a task's current state; it matches
// bus.ErrInvalidTransition.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == bus.ErrInvalidTransition }

// Prepare gives a task its own branch swarm/<id> and worktree
// .swarm/worktrees/<id>, made from the base branch, and records them on
// the task. A task that already has a worktree on disk keeps it. A create
// that fails half-way removes what it made.
func (t *Service) Prepare(ctx context.Context, task bus.Task) (bus.Task, error) {
	if t.repo == nil {
		return task, taskError(task.ID, fmt.Errorf("its agent has worktree = true, but %w", t.repoErr))
	}
	if task.Worktree != "" {
		if _, err := os.Stat(task.Worktree); err == nil {
			return task, nil
		}
	}
	base := task.Base
	if base == "" {
		base = t.base
	}
	if base == "" {
		var err error
		if base, err = t.repo.CurrentBranch(ctx); err != nil {
			return task, taskError(task.ID, fmt.Errorf("choose a base branch: %w", err))
		}
	}
	if err := t.repo.ExcludeSwarmDir(ctx); err != nil {
		return task, taskError(task.ID, err)
	}
	branch, path, err := t.repo.AddTaskWorktree(ctx, task.ID, base)
	if err != nil {
		return task, taskError(task.ID, err)
	}
	if err := t.bus.SetTaskGit(ctx, task.ID, branch, path, base); err != nil {
		_ = t.repo.RemoveWorktree(context.WithoutCancel(ctx), path)
		return task, taskError(task.ID, err)
	}
	task.Branch, task.Worktree, task.Base = branch, path, base
	return task, nil
}

// repoFor returns the repository a task's git work happens in: the
// project's, else the one its worktree belongs to (a command run from
// elsewhere, e.g. with SWARM_DIR set).
func (t *Service) repoFor(ctx context.Context, task bus.Task) (*gitrepo.Repo, error) {
	if t.repo != nil {
		return t.repo, nil
	}
	if task.Worktree != "" {
		if r, err := gitrepo.OpenRepo(ctx, task.Worktree); err == nil {
			return r, nil
		}
	}
	return nil, taskError(task.ID, fmt.Errorf("its branch %s needs a git repository: %w", task.Branch, t.repoErr))
}

// check is what every move does first, before any git work: refuse it in
// the task's state (Allowed), or find it a repeat (the task is already
// where the move leads), in which case nothing is done.
func check(task bus.Task, move Move) (done bool, err error) {
	if err := Allowed(task, move); err != nil {
		return true, err
	}
	return repeat(task, move), nil
}

// step makes move on task: from the state it was read in to where the
// move leads, as a compare-and-set (a task moved meanwhile is
// bus.ErrStateChanged). The states come from the move's rule; no method
// names them again.
func (t *Service) step(ctx context.Context, task bus.Task, move Move, actor, note string) (bus.Task, error) {
	return t.bus.TransitionFrom(ctx, task.ID, task.State, move.to(), actor, note)
}

// resolve finds a task by id or unique prefix; with an empty id, the
// actor's current task.
func (t *Service) resolve(ctx context.Context, id, actor string) (bus.Task, error) {
	if id == "" {
		task, err := t.bus.CurrentTask(ctx, actor)
		if err != nil {
			return task, fmt.Errorf("no task id given and %w", err)
		}
		return task, nil
	}
	return t.bus.Task(ctx, id)
}

// Start moves a task to WORKING: its assignee begins it (from ASSIGNED) or
// goes back to work on it (from CONFLICTED). A task in review goes back to
// work only when the human requests changes, so a late or repeated start
// cannot pull it out of review.
func (t *Service) Start(ctx context.Context, id, actor, note string) (bus.Task, error) {
	task, err := t.resolve(ctx, id, actor)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveStart); done {
		return task, err
	}
	return t.step(ctx, task, MoveStart, actor, note)
}

// Done submits a task for review. A task with a branch is first rebased
// onto its base branch: clean → IN_REVIEW; a conflict → CONFLICTED (the
// rebase is aborted, the assignee is told which files, and the error wraps
// gitrepo.ErrConflict); uncommitted changes in its worktree → refused, nothing
// changes.
func (t *Service) Done(ctx context.Context, id, actor, note string) (bus.Task, error) {
	task, err := t.resolve(ctx, id, actor)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveDone); done {
		return task, err
	}
	if task.Worktree == "" {
		return t.step(ctx, task, MoveDone, actor, note)
	}
	repo, err := t.repoFor(ctx, task)
	if err != nil {
		return task, err
	}
	err = repo.Rebase(ctx, task.Worktree, task.Base)
	var conflict *gitrepo.ConflictError
	if errors.As(err, &conflict) {
		return t.conflicted(ctx, task, actor, conflict,
			fmt.Sprintf("Rebase it yourself in %s (`git rebase %s`), resolve the conflicts, commit, then report done again.", task.Worktree, task.Base))
	}
	if err != nil {
		return task, taskError(task.ID, err)
	}
	return t.step(ctx, task, MoveDone, actor, note)
}

// conflicted moves a task to CONFLICTED after a rebase or merge conflict
// and tells its assignee what to do.
func (t *Service) conflicted(ctx context.Context, task bus.Task, actor string, c *gitrepo.ConflictError, todo string) (bus.Task, error) {
	files := strings.Join(c.Files, ", ")
	// A task conflicting again stays CONFLICTED and its assignee is told
	// again: a repeat is not refused here.
	if _, err := check(task, moveConflict); err != nil {
		return task, err
	}
	moved, err := t.step(ctx, task, moveConflict, actor, c.Error())
	if err != nil {
		return moved, err
	}
	t.tell(ctx, moved, "swarm", bus.KindTaskConflict, fmt.Sprintf("task %s (%s) is CONFLICTED: %s conflicts with %s in %s. %s",
		task.ID, task.Title, task.Branch, task.Base, files, todo))
	return moved, taskError(task.ID, c)
}

// Fail gives a task up; the worktree stays for a person to look at.
func (t *Service) Fail(ctx context.Context, id, actor, reason string) (bus.Task, error) {
	task, err := t.resolve(ctx, id, actor)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveFail); done {
		return task, err
	}
	return t.step(ctx, task, MoveFail, actor, reason)
}

// GiveUp fails a task the runtime cannot carry out (its worktree could
// not be made), as swarm, so that it is not tried again at every change;
// `swarm task retry` tries again once the cause is fixed. Like every move
// it is a compare-and-set from the state the task was read in.
func (t *Service) GiveUp(ctx context.Context, task bus.Task, cause error) (bus.Task, error) {
	if done, err := check(task, MoveFail); done {
		return task, err
	}
	return t.step(ctx, task, MoveFail, bus.Swarm, cause.Error())
}

// Approve moves a task in review to APPROVED.
func (t *Service) Approve(ctx context.Context, id, actor, note string) (bus.Task, error) {
	task, err := t.bus.Task(ctx, id)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveApprove); done {
		return task, err
	}
	return t.step(ctx, task, MoveApprove, actor, note)
}

// RequestChanges sends a task in review back to WORKING and delivers the
// note to its assignee.
func (t *Service) RequestChanges(ctx context.Context, id, actor, note string) (bus.Task, error) {
	before, err := t.bus.Task(ctx, id)
	if err != nil {
		return before, err
	}
	if done, err := check(before, MoveRequestChanges); done {
		return before, err
	}
	task, err := t.step(ctx, before, MoveRequestChanges, actor, note)
	if err != nil {
		return task, err
	}
	body := fmt.Sprintf("changes requested on task %s (%s)", task.ID, task.Title)
	if note != "" {
		body += ": " + note
	}
	t.tell(ctx, task, actor, bus.KindTaskChanges, body)
	return task, nil
}

// Cancel cancels a task: its worktree is removed (the branch is kept) and
// its assignee is told to stop work on it.
func (t *Service) Cancel(ctx context.Context, id, actor, note string) (bus.Task, error) {
	task, err := t.bus.Task(ctx, id)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveCancel); done {
		return task, err
	}
	saved, err := t.removeWorktree(ctx, task, "cancelled")
	if err != nil {
		return task, err
	}
	note = strings.TrimSpace(note + saved)
	moved, err := t.step(ctx, task, MoveCancel, actor, note)
	if err != nil {
		return moved, err
	}
	body := fmt.Sprintf("task %s (%s) is cancelled: stop work on it", task.ID, task.Title)
	if note != "" {
		body += " — " + note
	}
	t.tell(ctx, moved, actor, bus.KindTaskCancelled, body)
	return moved, nil
}

// Retry assigns a FAILED task again. Its old worktree is removed; the task
// gets a fresh one (on its kept branch) when it is dispatched.
func (t *Service) Retry(ctx context.Context, id, actor, note string) (bus.Task, error) {
	task, err := t.bus.Task(ctx, id)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveRetry); done {
		return task, err
	}
	saved, err := t.removeWorktree(ctx, task, "retried")
	if err != nil {
		return task, err
	}
	note = strings.TrimSpace(note + saved)
	return t.step(ctx, task, MoveRetry, actor, note)
}

// removeWorktree removes a task's worktree, keeping its branch, and clears
// it from the task. Uncommitted work in it is first saved as a commit on
// the branch, so nothing is lost; saved is a note saying so, or "".
func (t *Service) removeWorktree(ctx context.Context, task bus.Task, why string) (saved string, err error) {
	if task.Worktree == "" {
		return "", nil
	}
	repo, err := t.repoFor(ctx, task)
	if err != nil {
		return "", err
	}
	if _, statErr := os.Stat(task.Worktree); statErr == nil {
		msg := fmt.Sprintf("swarm: work in progress on task %s (%s), saved when it was %s", task.ID, task.Title, why)
		ok, err := repo.SaveWork(ctx, task.Worktree, msg)
		if err != nil {
			return "", taskError(task.ID, fmt.Errorf("save the uncommitted work in %s: %w", task.Worktree, err))
		}
		if ok {
			saved = " (uncommitted work saved as a commit on " + task.Branch + ")"
		}
	}
	if err := repo.RemoveWorktree(ctx, task.Worktree); err != nil {
		return saved, taskError(task.ID, err)
	}
	return saved, t.bus.SetTaskGit(ctx, task.ID, task.Branch, "", task.Base)
}

// Merge merges an APPROVED task's branch into its base branch (--no-ff,
// one merge at a time across processes) and completes it; its worktree is
// removed and its branch kept. A dirty main worktree is refused. A
// conflict changes nothing in git: the task goes CONFLICTED, its assignee
// is asked to rebase, and the error wraps gitrepo.ErrConflict. A task without a
// branch completes with nothing to merge.
//
// When the swarm has checks ([checks], bus.CheckPolicy), Merge puts the
// task in the merge queue instead and returns it as it is, APPROVED: the
// queue (package checks) merges it once its merge with the base passes
// the checks.
func (t *Service) Merge(ctx context.Context, id, actor string) (bus.Task, error) {
	task, err := t.bus.Task(ctx, id)
	if err != nil {
		return task, err
	}
	if done, err := check(task, MoveMerge); done {
		return task, err
	}
	if task.Branch == "" {
		return t.step(ctx, task, MoveMerge, actor, "no branch: nothing to merge")
	}
	repo, err := t.repoFor(ctx, task)
	if err != nil {
		return task, err
	}
	if err := t.committed(ctx, repo, task); err != nil {
		return task, err
	}
	policy, err := t.bus.CheckPolicy(ctx)
	if err != nil {
		return task, taskError(task.ID, err)
	}
	if policy != nil {
		return t.queue(ctx, repo, task, actor, policy)
	}
	commit, err := repo.Merge(ctx, task.Base, task.Branch, MergeMessage(task))
	var conflict *gitrepo.ConflictError
	switch {
	case errors.As(err, &conflict):
		return t.conflicted(ctx, task, actor, conflict, rebaseTodo(task))
	case errors.Is(err, gitrepo.ErrNothingToMerge):
		commit = "nothing new: already in " + task.Base
	case err != nil:
		return task, taskError(task.ID, err)
	default:
		commit = "merged as " + commit
	}
	return t.merged(ctx, task, actor, commit)
}

// merged completes a task whose branch is in its base now (note says how)
// and removes its worktree.
func (t *Service) merged(ctx context.Context, task bus.Task, actor, note string) (bus.Task, error) {
	moved, err := t.step(ctx, task, MoveMerge, actor, note)
	if err != nil {
		return moved, err
	}
	if _, err := t.removeWorktree(ctx, moved, "merged"); err != nil {
		return moved, fmt.Errorf("merged, but: %w", err)
	}
	moved.Worktree = ""
	return moved, nil
}

// committed refuses to merge a task whose worktree holds uncommitted
// work: it would not be merged, and removing the worktree afterwards
// would bury it; the agent commits first.
func (t *Service) committed(ctx context.Context, repo *gitrepo.Repo, task bus.Task) error {
	if task.Worktree == "" {
		return nil
	}
	files, err := repo.Uncommitted(ctx, task.Worktree)
	if err != nil {
		return taskError(task.ID, err)
	}
	if len(files) > 0 {
		return taskError(task.ID, fmt.Errorf("its worktree %s has uncommitted changes (%s): have its agent commit them, or request changes: %w",
			task.Worktree, strings.Join(files, ", "), gitrepo.ErrDirty))
	}
	return nil
}

// MergeMessage is the message of the commit that merges task's branch.
func MergeMessage(task bus.Task) string {
	return fmt.Sprintf("Merge task %s: %s\n\nswarm task %s, assigned to %s, approved by review.", task.ID, task.Title, task.ID, task.Assignee)
}

// Diff returns the review of a task's branch: `git diff --stat` and the
// diff of base...branch.
func (t *Service) Diff(ctx context.Context, id string) (stat, diff string, err error) {
	task, err := t.bus.Task(ctx, id)
	if err != nil {
		return "", "", err
	}
	if task.Branch == "" {
		return "", "", taskError(task.ID, errors.New("it has no branch (its agent does not work in a worktree)"))
	}
	repo, err := t.repoFor(ctx, task)
	if err != nil {
		return "", "", err
	}
	if stat, err = repo.DiffStat(ctx, task.Base, task.Branch); err != nil {
		return "", "", taskError(task.ID, err)
	}
	if diff, err = repo.Diff(ctx, task.Base, task.Branch); err != nil {
		return "", "", taskError(task.ID, err)
	}
	return stat, diff, nil
}

// tell queues a message about a task for its assignee. Failing to queue
// it does not undo the transition; it is logged by the caller's bus.
func (t *Service) tell(ctx context.Context, task bus.Task, from string, kind bus.Kind, body string) {
	if from == "" || bus.ValidName(from) != nil && from != bus.Human && from != bus.Swarm {
		from = bus.Swarm
	}
	data, _ := json.Marshal(map[string]string{"task": task.ID, "state": task.State.String()})
	_, _ = t.bus.Publish(context.WithoutCancel(ctx), bus.Message{From: from, To: task.Assignee, Kind: kind, Body: body, Data: data})
}

// Pruned is what Prune did with one finished task's branch.
type Pruned struct {
	Task    bus.Task
	Deleted bool  // the branch is gone
	Kept    error // why it was kept (it holds work its base does not), or nil
}

// Prune deletes the branches of finished tasks (COMPLETED, CANCELLED)
// whose every commit is on their base branch — what a merge left behind —
// and clears them from the tasks. A branch with work of its own (a
// cancelled task's saved work) is kept and reported. dryRun only reports
// what would be deleted.
func (t *Service) Prune(ctx context.Context, dryRun bool) ([]Pruned, error) {
	if t.repo == nil {
		return nil, t.repoErr
	}
	var final []bus.TaskState
	for _, s := range bus.TaskStates() {
		if s.Final() {
			final = append(final, s)
		}
	}
	finished, err := t.bus.Tasks(ctx, bus.TaskFilter{States: final})
	if err != nil {
		return nil, err
	}
	var out []Pruned
	for _, task := range finished {
		if task.Branch == "" || task.Worktree != "" {
			continue
		}
		p := Pruned{Task: task}
		prune := t.repo.DeleteMergedBranch
		if dryRun {
			prune = t.repo.MergedBranch
		}
		existed, err := prune(ctx, task.Branch, task.Base)
		switch {
		case errors.Is(err, gitrepo.ErrUnmerged):
			p.Kept = err
		case err != nil:
			return out, taskError(task.ID, err)
		case !dryRun:
			if err := t.bus.SetTaskGit(ctx, task.ID, "", "", task.Base); err != nil {
				return out, taskError(task.ID, err)
			}
			fallthrough
		default:
			p.Deleted = existed
		}
		out = append(out, p)
	}
	return out, nil
}
