package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"swarm/bus"
	"swarm/tasks"
)

// taskNamespace makes assignment message ids deterministic, so that a
// dispatch repeated after a crash publishes nothing new.
var taskNamespace = uuid.MustParse("6f1c2a8e-3d4b-4f5a-9c7e-2b8d1e0f4a6c")

// dispatchTasks sends each agent its next task: the oldest ASSIGNED one,
// when the agent has no task in hand (WORKING, CHANGES_REQUESTED,
// CONFLICTED: bus.TaskState.InHand). Later tasks wait,
// still ASSIGNED. An agent with worktree = true is moved (restarted) into
// the task's own worktree first.
func (s *Supervisor) dispatchTasks(ctx context.Context) {
	wake, unsub := s.bus.Subscribe()
	defer unsub()
	sent := map[uuid.UUID]bool{}
	for {
		if !waitWake(ctx, wake, !s.dispatchOnce(ctx, sent)) {
			return
		}
	}
}

// dispatchOnce dispatches what can be; false means a read failed and it
// should run again soon.
func (s *Supervisor) dispatchOnce(ctx context.Context, sent map[uuid.UUID]bool) bool {
	tasks, err := s.bus.Tasks(ctx, bus.TaskFilter{States: bus.OpenTaskStates()})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("list tasks", "err", err)
		}
		return false
	}
	// The task each agent is on: the one it has in hand, else the oldest
	// ASSIGNED one, which is the one to dispatch. Worktrees of tasks
	// still open (in review or approved too) stay where they are.
	current := map[string]bus.Task{}
	open := map[string]bool{}
	for _, t := range tasks {
		if t.Worktree != "" {
			open[t.Worktree] = true
		}
		if t.State.InHand() {
			current[t.Assignee] = t
		}
	}
	for _, t := range tasks { // oldest first
		if _, busy := current[t.Assignee]; t.State == bus.TaskAssigned && !busy {
			current[t.Assignee] = t
		}
	}
	done := true
	for _, a := range s.agentSnapshot() {
		t, ok := current[a.cfg.Name]
		if a.cfg.Worktree {
			if ok && t.State == bus.TaskAssigned {
				var err error
				if t, err = s.tasks.Prepare(ctx, t); err != nil {
					s.refuseTask(ctx, t, err)
					continue
				}
			}
			s.placeAgent(ctx, a, t, ok, open)
		}
		if !ok || t.State != bus.TaskAssigned {
			continue
		}
		id, err := s.assignmentID(ctx, t)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("dispatch task", "task", t.ID, "err", err)
			}
			done = false
			continue
		}
		if sent[id] {
			continue
		}
		if err := s.sendAssignment(ctx, t, id.String()); err != nil {
			s.log.Error("dispatch task", "task", t.ID, "err", err)
			done = false
			continue
		}
		sent[id] = true
	}
	return done
}

// placeAgent keeps a worktree agent where its work is: in the worktree of
// the task it is on; once that task is finished (merged, cancelled,
// retried) and no open task has its directory, back in its own directory.
// Moving restarts it there (see agent.moveTo).
func (s *Supervisor) placeAgent(ctx context.Context, a *agent, t bus.Task, onTask bool, open map[string]bool) {
	want, task := "", ""
	switch dir := a.workDir(); {
	case onTask && t.Worktree != "":
		want, task = t.Worktree, t.ID
	case dir != a.cfg.Dir && !open[dir]:
		want = a.cfg.Dir
	}
	if want == "" {
		return
	}
	if err := a.moveTo(ctx, want, task); err != nil && ctx.Err() == nil {
		s.log.Error("move agent", "agent", a.cfg.Name, "dir", want, "err", err)
		s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: err.Error()})
	}
}

// refuseTask fails a task that cannot be set up (its worktree could not be
// made) so that it is not tried again on every change; `swarm task retry`
// tries again once the cause is fixed.
func (s *Supervisor) refuseTask(ctx context.Context, t bus.Task, cause error) {
	s.log.Error("prepare task", "task", t.ID, "err", cause)
	s.hub.emit(Event{Kind: EventNotice, Agent: t.Assignee, Text: cause.Error()})
	if _, err := s.tasks.GiveUp(ctx, t, cause); err != nil && ctx.Err() == nil {
		s.log.Error("fail task", "task", t.ID, "err", err)
	}
}

// assignmentID is the id of the message that gives t to its assignee: the
// same for as long as t stays in this assignment (so a repeated dispatch,
// even after a crash, publishes nothing new), a new one when it is
// assigned again (a retry).
func (s *Supervisor) assignmentID(ctx context.Context, t bus.Task) (uuid.UUID, error) {
	evs, err := s.bus.TaskEvents(ctx, t.ID)
	if err != nil {
		return uuid.UUID{}, err
	}
	var n int64
	for _, e := range evs {
		if e.To == bus.TaskAssigned {
			n = e.N
		}
	}
	return uuid.NewSHA1(taskNamespace, []byte(fmt.Sprintf("%s/%d", t.ID, n))), nil
}

func (s *Supervisor) sendAssignment(ctx context.Context, t bus.Task, id string) error {
	dir := t.Worktree
	var b strings.Builder
	fmt.Fprintf(&b, "task %s: %s\n", t.ID, t.Title)
	if t.Description != "" {
		fmt.Fprintf(&b, "%s\n", t.Description)
	}
	if dir != "" {
		fmt.Fprintf(&b, "Work in %s (branch %s).\n", dir, t.Branch)
	}
	fmt.Fprintf(&b, "Report with `%[1]s task start %[2]s`, `%[1]s task done %[2]s` or `%[1]s task fail %[2]s --reason TEXT` (or @relay:swarm task_start %[2]s).", s.swarmCommand(), t.ID)
	data, _ := json.Marshal(map[string]string{"task": t.ID, "title": t.Title, "description": t.Description, "dir": dir, "branch": t.Branch})
	_, err := s.bus.Publish(ctx, bus.Message{ID: id, From: "swarm", To: t.Assignee, Kind: bus.KindTaskAssigned, Body: b.String(), Data: data})
	return err
}

// Prune deletes the branches of finished tasks merged into their base
// (see tasks.Service.Prune).
func (s *Supervisor) Prune(ctx context.Context, dryRun bool) ([]tasks.Pruned, error) {
	return s.tasks.Prune(ctx, dryRun)
}

// CreateTask creates a task from t.CreatedBy (the human when empty); the
// dispatcher gives it to its assignee.
func (s *Supervisor) CreateTask(ctx context.Context, t bus.NewTask) (bus.Task, error) {
	if t.CreatedBy == "" {
		t.CreatedBy = bus.Human
	}
	return s.bus.CreateTask(ctx, t)
}

// Approve moves a task in review to APPROVED.
func (s *Supervisor) Approve(ctx context.Context, id, note string) (bus.Task, error) {
	return s.humanMove(ctx, id, tasks.MoveApprove, note)
}

// RequestChanges sends a task in review back to WORKING and delivers the
// note to its assignee.
func (s *Supervisor) RequestChanges(ctx context.Context, id, note string) (bus.Task, error) {
	return s.humanMove(ctx, id, tasks.MoveRequestChanges, note)
}

// Cancel cancels a task, removes its worktree and tells its assignee to
// stop work on it.
func (s *Supervisor) Cancel(ctx context.Context, id, note string) (bus.Task, error) {
	return s.humanMove(ctx, id, tasks.MoveCancel, note)
}

// Retry reassigns a FAILED task; it is dispatched again like a new one.
func (s *Supervisor) Retry(ctx context.Context, id, note string) (bus.Task, error) {
	return s.humanMove(ctx, id, tasks.MoveRetry, note)
}

// Merge merges an APPROVED task's branch into its base branch and
// completes it (see Tasks.Merge).
func (s *Supervisor) Merge(ctx context.Context, id string) (bus.Task, error) {
	return s.humanMove(ctx, id, tasks.MoveMerge, "")
}

// humanMove is a move of the person at the UI, through tasks.Service.Move.
func (s *Supervisor) humanMove(ctx context.Context, id string, move tasks.Move, note string) (bus.Task, error) {
	_, after, err := s.tasks.Move(ctx, bus.Human, id, move, note)
	return after, err
}

// Review returns the diff stat and diff of a task's branch against its
// base.
func (s *Supervisor) Review(ctx context.Context, id string) (stat, diff string, err error) {
	return s.tasks.Diff(ctx, id)
}
