package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"swarm/bus"
)

// taskNamespace makes assignment message ids deterministic, so that a
// dispatch repeated after a crash publishes nothing new.
var taskNamespace = uuid.MustParse("6f1c2a8e-3d4b-4f5a-9c7e-2b8d1e0f4a6c")

// dispatchTasks sends each agent its next task: the oldest ASSIGNED one,
// when the agent has no task in WORKING or CONFLICTED and none assigned
// before it. Later tasks wait, still ASSIGNED.
func (s *Supervisor) dispatchTasks(ctx context.Context) {
	wake, unsub := s.bus.Subscribe()
	defer unsub()
	sent := map[uuid.UUID]bool{}
	for {
		s.dispatchOnce(ctx, sent)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
	}
}

func (s *Supervisor) dispatchOnce(ctx context.Context, sent map[uuid.UUID]bool) {
	tasks, err := s.bus.Tasks(ctx, bus.TaskFilter{States: []bus.TaskState{bus.TaskAssigned, bus.TaskWorking, bus.TaskConflicted}})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("list tasks", "err", err)
		}
		return
	}
	busy := map[string]bool{}
	for _, t := range tasks {
		if t.State != bus.TaskAssigned {
			busy[t.Assignee] = true
		}
	}
	for _, t := range tasks { // oldest first
		if t.State != bus.TaskAssigned || busy[t.Assignee] {
			continue
		}
		busy[t.Assignee] = true
		if _, err := s.agent(t.Assignee); err != nil {
			continue // not an agent of this swarm: it stays ASSIGNED
		}
		id := uuid.NewSHA1(taskNamespace, []byte(fmt.Sprintf("%s/%d", t.ID, t.Updated.UnixNano())))
		if sent[id] {
			continue
		}
		if err := s.sendAssignment(ctx, t, id.String()); err != nil {
			s.log.Error("dispatch task", "task", t.ID, "err", err)
			continue
		}
		sent[id] = true
	}
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
	fmt.Fprintf(&b, "Report with `swarm task start %s`, `swarm task done %s` or `swarm task fail %s --reason TEXT` (or @relay:swarm task_start %s).", t.ID, t.ID, t.ID, t.ID)
	data, _ := json.Marshal(map[string]string{"task": t.ID, "title": t.Title, "description": t.Description, "dir": dir, "branch": t.Branch})
	_, err := s.bus.Publish(ctx, bus.Message{ID: id, From: "swarm", To: t.Assignee, Kind: "task_assigned", Body: b.String(), Data: data})
	return err
}

// StartTask moves a task to WORKING on its assignee's behalf.
func (s *Supervisor) StartTask(ctx context.Context, id, actor string) (bus.Task, error) {
	return s.bus.Transition(ctx, id, bus.TaskWorking, actor, "")
}

// FinishTask moves a task to IN_REVIEW: its assignee says it is done.
func (s *Supervisor) FinishTask(ctx context.Context, id, actor string) (bus.Task, error) {
	return s.bus.Transition(ctx, id, bus.TaskInReview, actor, "")
}

// Approve moves a task in review to APPROVED.
func (s *Supervisor) Approve(ctx context.Context, id, note string) (bus.Task, error) {
	return s.bus.Transition(ctx, id, bus.TaskApproved, "human", note)
}

// RequestChanges sends a task in review back to WORKING and delivers the
// note to its assignee.
func (s *Supervisor) RequestChanges(ctx context.Context, id, note string) (bus.Task, error) {
	t, err := s.bus.TransitionFrom(ctx, id, bus.TaskInReview, bus.TaskWorking, "human", note)
	if err != nil {
		return t, err
	}
	body := fmt.Sprintf("changes requested on task %s (%s): %s", t.ID, t.Title, note)
	_, err = s.bus.Publish(ctx, bus.Message{From: "human", To: t.Assignee, Kind: "task_changes", Body: body})
	return t, err
}

// Cancel cancels a task and tells its assignee to stop work on it.
func (s *Supervisor) Cancel(ctx context.Context, id, note string) (bus.Task, error) {
	before, err := s.bus.Task(ctx, id)
	if err != nil {
		return before, err
	}
	t, err := s.bus.Transition(ctx, id, bus.TaskCancelled, "human", note)
	if err != nil || before.State == bus.TaskCancelled {
		return t, err
	}
	body := fmt.Sprintf("task %s (%s) is cancelled: stop work on it", t.ID, t.Title)
	if note != "" {
		body += " — " + note
	}
	_, err = s.bus.Publish(ctx, bus.Message{From: "human", To: t.Assignee, Kind: "task_cancelled", Body: body})
	return t, err
}

// Retry reassigns a FAILED task; it is dispatched again like a new one.
func (s *Supervisor) Retry(ctx context.Context, id, note string) (bus.Task, error) {
	return s.bus.TransitionFrom(ctx, id, bus.TaskFailed, bus.TaskAssigned, "human", note)
}
