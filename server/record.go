package server

import (
	"context"

	"swarm/bus"
	"swarm/wire"
)

// Record reads the swarm's record (its tasks, its agents' heartbeats)
// through the swarm's socket: the command line in a host's directory
// does, whose host reads it from its main swarm (upstreamReads).
type Record struct{ Client *Client }

func request[P, R any](ctx context.Context, cl *Client, m wire.Method[P, R], params P) (R, error) {
	var out R
	err := cl.call(ctx, m.Name, params, &out)
	return out, err
}

// Tasks returns the tasks f selects.
func (r Record) Tasks(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) {
	return request(ctx, r.Client, wire.Tasks, f)
}

// TaskDetail returns task ref (an id or a unique prefix) with what is
// recorded about it.
func (r Record) TaskDetail(ctx context.Context, ref string) (bus.TaskDetail, error) {
	return request(ctx, r.Client, wire.TaskDetail, wire.IDParams{ID: ref})
}

// Review returns the task's diff stat and diff against its base.
func (r Record) Review(ctx context.Context, id string) (stat, diff string, err error) {
	res, err := request(ctx, r.Client, wire.Review, wire.IDParams{ID: id})
	return res.Stat, res.Diff, err
}

// Roster returns every agent's status.
func (r Record) Roster(ctx context.Context) ([]bus.RosterEntry, error) {
	return request(ctx, r.Client, wire.Roster, wire.None{})
}
