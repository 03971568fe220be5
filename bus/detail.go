package bus

import (
	"context"
	"errors"
	"time"
)

// TaskDetail is a task with everything recorded about it: what `swarm
// task show` prints, read here once for the command line and for a host,
// whose agents' tasks are on its main swarm's bus.
type TaskDetail struct {
	Task    Task
	Events  []TaskEvent
	Checks  []Check
	Reviews []Review
	Queue   *QueueEntry // its entry in the merge queue, nil if it was never queued
}

// TaskDetail returns task ref (an id or a unique prefix) with its
// transitions, checks, reviews and merge-queue entry.
func (b *Bus) TaskDetail(ctx context.Context, ref string) (TaskDetail, error) {
	var d TaskDetail
	var err error
	if d.Task, err = b.Task(ctx, ref); err != nil {
		return d, err
	}
	id := d.Task.ID
	if d.Events, err = b.TaskEvents(ctx, id); err != nil {
		return d, err
	}
	if d.Checks, err = b.Checks(ctx, id); err != nil {
		return d, err
	}
	if d.Reviews, err = b.Reviews(ctx, id); err != nil {
		return d, err
	}
	switch e, err := b.QueueEntryOf(ctx, id); {
	case err == nil:
		d.Queue = &e
	case !errors.Is(err, ErrNotFound):
		return d, err
	}
	return d, nil
}

// RosterEntry is an agent as the swarm's record has it: its health (state,
// liveness, last heartbeat) and its current task (CurrentTask's, nil if
// none).
type RosterEntry struct {
	Health
	Task *Task
}

// Roster returns every registered agent's status at now under th, in
// Health's order.
func (b *Bus) Roster(ctx context.Context, th Thresholds, now time.Time) ([]RosterEntry, error) {
	health, err := b.Health(ctx, th, now)
	if err != nil {
		return nil, err
	}
	out := make([]RosterEntry, len(health))
	for i, h := range health {
		out[i].Health = h
		switch t, err := b.CurrentTask(ctx, h.Agent.Name); {
		case err == nil:
			out[i].Task = &t
		case !errors.Is(err, ErrNotFound):
			return nil, err
		}
	}
	return out, nil
}
