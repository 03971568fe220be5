package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"swarm/bus"
	"swarm/cluster"
	"swarm/server"
	"swarm/tasks"
)

// record is where the command line reads the swarm's tasks and its
// agents' heartbeats: the bus, or in a host's state directory (package
// cluster) the main swarm's bus, through the host's socket.
type record interface {
	Tasks(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error)
	TaskDetail(ctx context.Context, ref string) (bus.TaskDetail, error)
	// Review is the task's diff stat and diff against its base.
	Review(ctx context.Context, id string) (stat, diff string, err error)
	Roster(ctx context.Context) ([]bus.RosterEntry, error)
}

// record opens the swarm's record for reading; done closes it.
func (g *Globals) record() (r record, done func(), err error) {
	dir := g.busDir()
	if host := cluster.HostOf(dir); host != "" {
		cl, err := g.dialSwarm()
		if errors.Is(err, server.ErrNotRunning) {
			return nil, nil, fmt.Errorf("%s is host %s's directory: the tasks are its main swarm's, read through the host, which is not running (swarm host URL starts it; or run this in the main swarm's directory)", dir, host)
		}
		if err != nil {
			return nil, nil, err
		}
		return server.Record{Client: cl}, func() { cl.Close() }, nil
	}
	b, err := g.open(false)
	if err != nil {
		return nil, nil, err
	}
	return busRecord{b}, func() { b.Close() }, nil
}

// busRecord is the record on the bus.
type busRecord struct{ b *bus.Bus }

func (r busRecord) Tasks(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) {
	return r.b.Tasks(ctx, f)
}

func (r busRecord) TaskDetail(ctx context.Context, ref string) (bus.TaskDetail, error) {
	return r.b.TaskDetail(ctx, ref)
}

// Review diffs in the working directory's repository, the project's.
func (r busRecord) Review(ctx context.Context, id string) (stat, diff string, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	return tasks.New(ctx, r.b, wd, "").Diff(ctx, id)
}

func (r busRecord) Roster(ctx context.Context) ([]bus.RosterEntry, error) {
	return r.b.Roster(ctx, bus.DefaultThresholds, time.Now())
}
