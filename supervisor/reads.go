package supervisor

import (
	"context"

	"swarm/bus"
)

// What a UI reads of the swarm's bus: inboxes, the log, tasks and
// heartbeats. The supervisor answers for its bus, so a UI needs no handle
// on the database.

// Inbox returns the latest limit messages to or from agent (0: all).
func (s *Supervisor) Inbox(ctx context.Context, agent string, limit int) ([]bus.Message, error) {
	return s.bus.Inbox(ctx, agent, limit)
}

// Messages returns up to limit messages after seq afterSeq.
func (s *Supervisor) Messages(ctx context.Context, afterSeq int64, limit int) ([]bus.Message, error) {
	return s.bus.Messages(ctx, afterSeq, limit)
}

// LastSeq returns the seq of the newest message.
func (s *Supervisor) LastSeq(ctx context.Context) (int64, error) { return s.bus.LastSeq(ctx) }

// Pending returns up to limit messages not yet delivered to recipient.
func (s *Supervisor) Pending(ctx context.Context, recipient string, limit int) ([]bus.Message, error) {
	return s.bus.Pending(ctx, recipient, limit)
}

// Tasks returns the tasks f selects.
func (s *Supervisor) Tasks(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) {
	return s.bus.Tasks(ctx, f)
}

// TaskEvents returns a task's history.
func (s *Supervisor) TaskEvents(ctx context.Context, id string) ([]bus.TaskEvent, error) {
	return s.bus.TaskEvents(ctx, id)
}

// AllChecks returns the checks of every task (bus.Bus.AllChecks).
func (s *Supervisor) AllChecks(ctx context.Context) ([]bus.Check, error) { return s.bus.AllChecks(ctx) }

// MergeQueue returns the merge queue, in order.
func (s *Supervisor) MergeQueue(ctx context.Context) ([]bus.QueueEntry, error) {
	return s.bus.MergeQueue(ctx)
}

// Reviews returns the reviewer agent's verdicts on a task.
func (s *Supervisor) Reviews(ctx context.Context, id string) ([]bus.Review, error) {
	return s.bus.Reviews(ctx, id)
}

// Heartbeats returns every agent's latest heartbeat.
func (s *Supervisor) Heartbeats(ctx context.Context) ([]bus.Heartbeat, error) {
	return s.bus.Heartbeats(ctx)
}
