package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"swarm/bus"
	"swarm/gitrepo"
	"swarm/tasks"
	"swarm/textsafe"
)

// The merge queue. `swarm task merge` puts an APPROVED task at its end
// (tasks.Service.Merge, when the swarm has checks); the queue takes one
// task at a time, in order:
//
//  1. the base must be able to move (checked out nowhere, or clean in the
//     main worktree), else the entry waits, saying why;
//  2. the merge of the task's branch onto the base as it is now is made
//     as a commit on no branch (a conflict sends the task to CONFLICTED);
//  3. its checks run in a scratch worktree .swarm/merges/<task> (a
//     failure sends the task to CHANGES_REQUESTED with the command and its
//     last lines, told to its agent);
//  4. the base moves to the merge commit as a compare-and-set (a base
//     moved meanwhile means the merge is made and checked again), the
//     main worktree following, and the task is COMPLETED.
//
// Crash rules: the queue and each entry's phase are on the bus, the base
// is moved only to a commit whose checks passed, and the next queue to
// start (one per bus: a lock file) removes the scratch worktrees and what
// a killed one's checks left running, takes checking and waiting entries
// from the start, and finishes an advancing one (the base at its merge
// commit: the worktree made to follow, the task completed; else the move
// is made again).

// waitRetry is how often an entry that waits (the person's checkout has
// changes) looks again: the files of a worktree are not on the bus.
const waitRetry = 2 * time.Second

// Queue merges the merge queue's tasks for a Service.
type Queue struct{ s *Service }

// NewQueue returns the merge queue of s.
func NewQueue(s *Service) *Queue { return &Queue{s} }

// Run merges queued tasks until ctx ends, holding the queue's lock (it
// waits for it while another process holds it).
func (q *Queue) Run(ctx context.Context) { _ = q.run(ctx, "") }

// RunUntil merges queued tasks until task's entry is done (the task merged
// or out of the queue) or ctx ends; while another process holds the
// queue's lock, it only waits for the entry. It is how `swarm task merge`
// gets its answer when no swarm runs.
func (q *Queue) RunUntil(ctx context.Context, task string) error { return q.run(ctx, task) }

func (q *Queue) run(ctx context.Context, until string) error {
	s := q.s
	wake, unsub := s.bus.Subscribe()
	defer unsub()
	var unlock func()
	defer func() {
		if unlock != nil {
			// Stopping: what was being checked or waited is not any more.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			q.requeue(ctx)
			cancel()
			unlock()
		}
	}()
	for {
		if until != "" {
			if e, err := s.bus.QueueEntryOf(ctx, until); err != nil || e.Phase == bus.PhaseDone {
				return err
			}
		}
		if unlock == nil {
			if unlock = q.lock(); unlock != nil {
				q.recover(ctx)
			}
		}
		// next says how long to wait: -1 not at all (the queue moved
		// on), 0 until the bus changes, else that long at most.
		wait := waitRetry
		if unlock != nil {
			wait = q.next(ctx)
		}
		if wait >= 0 && !sleep(ctx, wake, wait) || ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// sleep waits for a change on the bus, or d (0: only the bus), or ctx.
func sleep(ctx context.Context, wake <-chan struct{}, d time.Duration) bool {
	var after <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case <-wake:
	case <-after:
	}
	return true
}

// lock takes the queue's lock, .swarm/checks/queue.lock, if it is free;
// nil if another process holds it.
func (q *Queue) lock() func() {
	if err := os.MkdirAll(q.s.Dir(), 0o700); err != nil {
		q.s.log.Error("merge queue: lock", "err", err)
		return nil
	}
	f, err := os.OpenFile(filepath.Join(q.s.Dir(), "queue.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		q.s.log.Error("merge queue: lock", "err", err)
		return nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// recover cleans up after a queue that was killed: its checks' processes,
// its scratch worktrees; entries it was checking or that waited start
// again from the top (requeue).
func (q *Queue) recover(ctx context.Context) {
	s := q.s
	endMarked(func(m string) bool { return strings.HasPrefix(m, markPrefix(s.bus.Dir(), bus.RunMerge)+"|") })
	if s.repo != nil {
		if err := s.repo.RemoveScratchWorktrees(ctx); err != nil {
			s.log.Warn("merge queue: remove scratch worktrees", "err", err)
		}
	}
	q.requeue(ctx)
}

// requeue puts the entries that were being checked, or that waited, back
// in the queued phase, to start again from the top: what a queue that
// stopped or was killed leaves (so that `swarm task queue` does not say
// checking when nothing checks). An advancing entry stays: its base may
// have moved already, and next finishes it.
func (q *Queue) requeue(ctx context.Context) {
	s := q.s
	entries, err := s.bus.MergeQueue(ctx)
	if err != nil {
		s.log.Error("merge queue", "err", err)
		return
	}
	for _, e := range entries {
		if e.Phase == bus.PhaseChecking || e.Phase == bus.PhaseWaiting {
			if err := s.bus.SetQueuePhase(ctx, e.Task, bus.PhaseQueued, "", "", ""); err != nil {
				s.log.Error("merge queue", "task", e.Task, "err", err)
			}
		}
	}
}

// next takes the first entry of the queue one step, and returns how long
// to wait before the next look: -1 not at all (the queue moved on), 0
// until the bus changes, else at most that long.
func (q *Queue) next(ctx context.Context) time.Duration {
	s := q.s
	entries, err := s.bus.MergeQueue(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("merge queue", "err", err)
		}
		return waitRetry
	}
	if len(entries) == 0 {
		return 0
	}
	e := entries[0]
	task, err := s.bus.Task(ctx, e.Task)
	switch {
	case errors.Is(err, bus.ErrNotFound):
		q.finish(ctx, e.Task, false, err.Error())
		return -1
	case err != nil:
		if ctx.Err() == nil {
			s.log.Error("merge queue", "task", e.Task, "err", err)
		}
		return waitRetry // never dropped for a read that failed
	}
	switch {
	case task.State == bus.TaskCompleted && e.Phase == bus.PhaseAdvancing:
		// Killed after the task was completed.
		q.finish(ctx, task.ID, true, "merged as "+e.New)
		return -1
	case task.State != bus.TaskApproved:
		q.finish(ctx, task.ID, false, fmt.Sprintf("task %s is %s: out of the merge queue", task.ID, task.State))
		return -1
	case e.Phase == bus.PhaseAdvancing:
		return q.advance(ctx, task, e.Old, e.New)
	default:
		return q.merge(ctx, task)
	}
}

// finish takes task out of the queue with its outcome. It, and the task
// moves that come with an outcome, are made even as the swarm stops: an
// outcome found is not lost.
func (q *Queue) finish(ctx context.Context, task string, merged bool, outcome string) {
	if err := q.s.bus.FinishQueued(context.WithoutCancel(ctx), task, merged, outcome); err != nil {
		q.s.log.Error("merge queue", "task", task, "err", err)
	}
}

// wait notes why the entry waits.
func (q *Queue) wait(ctx context.Context, task bus.Task, phase bus.QueuePhase, why, old, new string) time.Duration {
	if err := q.s.bus.SetQueuePhase(ctx, task.ID, phase, why, old, new); err != nil && ctx.Err() == nil {
		q.s.log.Error("merge queue", "task", task.ID, "err", err)
	}
	return waitRetry
}

// merge makes the merge of task's branch onto its base, checks it and, if
// the checks pass, advances the base to it.
func (q *Queue) merge(ctx context.Context, task bus.Task) time.Duration {
	s := q.s
	if task.Branch == "" {
		_, err := s.tasks.Merged(context.WithoutCancel(ctx), task, "no branch: nothing to merge")
		q.finish(ctx, task.ID, err == nil, outcome("completed: it has no branch", err))
		return -1
	}
	repo := s.repo
	if repo == nil {
		q.finish(ctx, task.ID, false, "not in a git repository")
		return -1
	}
	var blocked *gitrepo.BlockedError
	if err := repo.AdvanceBlocked(ctx, task.Base); errors.As(err, &blocked) {
		return q.wait(ctx, task, bus.PhaseWaiting, blocked.Reason, "", "")
	} else if err != nil {
		return q.wait(ctx, task, bus.PhaseWaiting, err.Error(), "", "")
	}
	if s.policy.ReviewRequired {
		tip, err := repo.BranchCommit(ctx, task.Branch)
		if err == nil {
			err = s.tasks.ReviewedAt(ctx, task, s.policy.ReviewBy, tip)
		}
		switch {
		case ctx.Err() != nil:
			return -1
		case err != nil:
			q.finish(ctx, task.ID, false, err.Error())
			return -1
		}
	}
	cmds := s.commands(task)
	plan, err := repo.PlanMerge(ctx, task.Base, task.Branch, mergeMessage(task, cmds))
	var conflict *gitrepo.ConflictError
	switch {
	case errors.Is(err, gitrepo.ErrNothingToMerge):
		_, err := s.tasks.Merged(context.WithoutCancel(ctx), task, "nothing new: already in "+task.Base)
		q.finish(ctx, task.ID, err == nil, outcome("nothing new: already in "+task.Base, err))
		return -1
	case errors.As(err, &conflict):
		_, err := s.tasks.MergeConflicted(context.WithoutCancel(ctx), task, conflict)
		var again *gitrepo.ConflictError
		if errors.As(err, &again) {
			err = nil
		}
		q.finish(ctx, task.ID, false, outcome(conflict.Error(), err))
		return -1
	case err != nil:
		if ctx.Err() != nil {
			return -1
		}
		q.finish(ctx, task.ID, false, "the merge could not be made: "+err.Error())
		return -1
	}
	if err := s.bus.SetQueuePhase(ctx, task.ID, bus.PhaseChecking, "", plan.Old, plan.Commit); err != nil {
		return waitRetry
	}
	if len(cmds) > 0 {
		failed, left, err := q.check(ctx, task, plan.Commit, cmds)
		switch {
		case ctx.Err() != nil:
			return -1 // stopping: the next queue checks it again
		case err != nil:
			q.finish(ctx, task.ID, false, "its merge could not be checked: "+err.Error())
			return -1
		case left:
			q.finish(ctx, task.ID, false, fmt.Sprintf("task %s left APPROVED while its merge was checked: out of the merge queue", task.ID))
			return -1
		case failed != nil:
			q.sendBack(ctx, task, *failed)
			return -1
		}
	}
	if err := s.bus.SetQueuePhase(ctx, task.ID, bus.PhaseAdvancing, "", plan.Old, plan.Commit); err != nil {
		return waitRetry
	}
	return q.advance(ctx, task, plan.Old, plan.Commit)
}

func outcome(done string, err error) string {
	if err != nil {
		return err.Error()
	}
	return done
}

// mergeMessage is the merge commit's message: the task's, and the checks
// it passed.
func mergeMessage(task bus.Task, cmds []string) string {
	msg := tasks.MergeMessage(task)
	if len(cmds) > 0 {
		msg += "\n\nChecks passed on this merge:\n"
		for _, c := range cmds {
			msg += "  " + c + "\n"
		}
	}
	return msg
}

// check runs cmds on commit in a scratch worktree: the first check that
// did not pass (nil: all passed), or left if the task left APPROVED
// meanwhile (its checks are ended).
func (q *Queue) check(ctx context.Context, task bus.Task, commit string, cmds []string) (failed *bus.Check, left bool, err error) {
	s := q.s
	dir, err := s.repo.AddScratchWorktree(ctx, task.ID, commit)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.repo.RemoveScratchWorktrees(cctx); err != nil {
			s.log.Warn("merge queue: remove the scratch worktree", "task", task.ID, "err", err)
		}
	}()
	logs := make([]string, len(cmds))
	for i := range cmds {
		logs[i] = s.logPath(task.ID, bus.RunMerge, commit, i)
	}
	_ = os.RemoveAll(filepath.Join(s.Dir(), task.ID, string(bus.RunMerge)))
	if err := s.bus.StartChecks(ctx, task.ID, bus.RunMerge, commit, cmds, logs); err != nil {
		return nil, false, err
	}
	// The task leaving APPROVED (cancelled, failed) ends its checks.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watched := make(chan bool, 1)
	go func() {
		watched <- q.watchTask(cctx, task.ID, cancel)
	}()
	checks := s.runAll(cctx, task, bus.RunMerge, commit, dir, cmds, logs, true, nil)
	cancel()
	if <-watched {
		return nil, true, nil
	}
	for i := range checks {
		if c := checks[i]; c.State == bus.CheckFailed || c.State == bus.CheckTimedOut {
			return &c, false, nil
		}
	}
	for _, c := range checks {
		if c.State != bus.CheckPassed {
			return &c, false, nil // cancelled without a failure: only by ctx, which the caller sees
		}
	}
	return nil, false, nil
}

// watchTask calls leave, and reports true, if task leaves APPROVED before
// ctx ends.
func (q *Queue) watchTask(ctx context.Context, task string, leave func()) bool {
	wake, unsub := q.s.bus.Subscribe()
	defer unsub()
	for {
		if t, err := q.s.bus.Task(ctx, task); err == nil && t.State != bus.TaskApproved {
			leave()
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-wake:
		}
	}
}

// sendBack sends a task whose merge failed a check back to its agent.
func (q *Queue) sendBack(ctx context.Context, task bus.Task, c bus.Check) {
	how := fmt.Sprintf("failed (exit status %d)", c.Exit)
	if c.State == bus.CheckTimedOut {
		how = fmt.Sprintf("ran past its timeout of %s", q.s.policy.Timeout)
	}
	note := fmt.Sprintf("the check `%s` %s on its merge with %s", c.Cmd, how, task.Base)
	if last := lastLines(c.Tail, 1); strings.TrimSpace(last) != "" {
		note += ": " + textsafe.Words(last)
	}
	body := fmt.Sprintf("task %s (%s) is CHANGES_REQUESTED: the check `%s` %s on the merge of %s with %s as it is now (%s). %s\n"+
		"Bring your branch up to date in %s (`git rebase %s`), fix it, commit, then report done again (full output: %s).",
		task.ID, textsafe.Words(task.Title), c.Cmd, how, task.Branch, task.Base, shortCommit(c.Commit), lastLinesSaid(c.Tail), task.Worktree, task.Base, c.Log)
	_, err := q.s.tasks.SendBack(context.WithoutCancel(ctx), task, bus.Swarm, note, body)
	q.finish(ctx, task.ID, false, outcome(note, err))
}

// advance moves task's base from old to its checked merge commit new,
// and completes the task. A base that has it already (a killed queue
// moved it) only has the main worktree follow.
func (q *Queue) advance(ctx context.Context, task bus.Task, old, new string) time.Duration {
	s := q.s
	// Moving the base, the checkout following and the task completing are
	// not cut short by a swarm that stops: a checkout left half-written
	// is what a kill leaves, not a stop.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	at, err := s.repo.BranchCommit(ctx, task.Base)
	if err != nil {
		return q.wait(ctx, task, bus.PhaseAdvancing, err.Error(), old, new)
	}
	has := at == new
	if !has {
		if has, err = s.repo.IsAncestor(ctx, new, at); err != nil {
			return q.wait(ctx, task, bus.PhaseAdvancing, err.Error(), old, new)
		}
	}
	if has {
		if err := s.repo.FollowBase(ctx, task.Base, old, new); err != nil {
			s.log.Warn("merge queue: the main worktree did not follow", "task", task.ID, "err", err)
		}
	} else {
		err := s.repo.Advance(ctx, task.Base, old, new)
		var blocked *gitrepo.BlockedError
		switch {
		case errors.Is(err, gitrepo.ErrBaseMoved):
			// Made onto a base that has moved since: made and checked again.
			_ = s.bus.SetQueuePhase(ctx, task.ID, bus.PhaseQueued, "", "", "")
			return -1
		case errors.As(err, &blocked):
			return q.wait(ctx, task, bus.PhaseAdvancing, blocked.Reason, old, new)
		case err != nil:
			return q.wait(ctx, task, bus.PhaseAdvancing, err.Error(), old, new)
		}
	}
	note := fmt.Sprintf("merged as %s", new)
	if cmds := s.commands(task); len(cmds) > 0 {
		note += fmt.Sprintf(", its %d checks passed on the merge", len(cmds))
	}
	if _, err := s.tasks.Merged(ctx, task, note); err != nil {
		s.log.Error("merge queue: complete the task", "task", task.ID, "err", err)
		q.finish(ctx, task.ID, true, "merged as "+new+", but: "+err.Error())
		return -1
	}
	q.finish(ctx, task.ID, true, "merged as "+new)
	return -1
}
