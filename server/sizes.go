package server

import (
	"sync"

	"swarm/swarmapi"
)

// Several clients may show the same agent at different sizes, and an
// agent's terminal has one. As tmux does (window-size latest), it takes
// the size of the latest active client among those attached: the one that
// typed into it last, else the one that last asked for a size. When that
// client leaves (detached, or its terminal killed), the agent takes the
// size of the next one by the same rule.

// sizes keeps, per agent, the size each client shows it at and when each
// last typed into it or asked for a size.
type sizes struct {
	giveSize func(agent string, rows, cols int) error // gives an agent a size
	mu       sync.Mutex                               // held while a size is given, so that sizes are given in order
	clock    uint64                                   // counts typing and asking: a later one is larger
	views    map[string]map[uint64]*view
	current  map[string]uint64 // the client whose size each agent was given last
}

// view is a client's view of an agent.
type view struct {
	rows, cols   int    // 0: the client has not asked for a size
	typed, asked uint64 // when it last typed, asked for a size (0: never)
}

func newSizes(resize func(agent string, rows, cols int) error) *sizes {
	return &sizes{giveSize: resize, views: map[string]map[uint64]*view{}, current: map[string]uint64{}}
}

func (z *sizes) view(agent string, conn uint64) *view {
	if z.views[agent] == nil {
		z.views[agent] = map[uint64]*view{}
	}
	v := z.views[agent][conn]
	if v == nil {
		v = &view{}
		z.views[agent][conn] = v
	}
	return v
}

// resize records the size a client shows an agent at, and gives it to the
// agent unless another client is the latest active one.
func (z *sizes) resize(conn uint64, agent string, rows, cols int) error {
	if err := swarmapi.CheckSize(rows, cols); err != nil {
		return err
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	z.clock++
	v := z.view(agent, conn)
	v.rows, v.cols, v.asked = rows, cols, z.clock
	if z.latest(agent) != conn {
		return nil
	}
	return z.give(agent, conn)
}

// typing makes conn the client latest active in agent: the agent takes the
// size that client shows it at.
func (z *sizes) typing(conn uint64, agent string) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.clock++
	z.view(agent, conn).typed = z.clock
	if next := z.latest(agent); next != 0 && next != z.current[agent] {
		return z.give(agent, next)
	}
	return nil
}

// gone forgets a client that has left; the agents whose size it gave
// take the size of the next latest active client.
func (z *sizes) gone(conn uint64) {
	z.mu.Lock()
	defer z.mu.Unlock()
	for agent, vs := range z.views {
		delete(vs, conn)
		if len(vs) == 0 {
			delete(z.views, agent)
		}
		if z.current[agent] != conn {
			continue
		}
		delete(z.current, agent)
		if next := z.latest(agent); next != 0 {
			_ = z.give(agent, next) // an agent removed meanwhile has no size to take
		}
	}
}

// latest returns the latest active client of agent among those that
// asked for a size (0: none).
func (z *sizes) latest(agent string) uint64 {
	var conn uint64
	var latest *view
	for c, v := range z.views[agent] {
		if v.rows == 0 {
			continue
		}
		if latest == nil || v.typed > latest.typed || (v.typed == latest.typed && v.asked > latest.asked) {
			conn, latest = c, v
		}
	}
	return conn
}

// give gives agent the size conn shows it at.
func (z *sizes) give(agent string, conn uint64) error {
	v := z.views[agent][conn]
	if err := z.giveSize(agent, v.rows, v.cols); err != nil {
		return err
	}
	z.current[agent] = conn
	return nil
}
