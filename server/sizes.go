package server

import (
	"sync"

	"swarm/supervisor"
)

// Several clients may show the same agent at different sizes, and an
// agent's terminal has one. As tmux does, it takes the size of the client
// that typed into it last; until one has typed, the last size asked for.

// sizes keeps, per agent, the size each client shows it at and which
// client typed into it last.
type sizes struct {
	sup    *supervisor.Supervisor
	mu     sync.Mutex
	wanted map[string]map[uint64][2]int // agent → client → rows, cols
	typist map[string]uint64            // agent → the client that typed last
}

func newSizes(sup *supervisor.Supervisor) *sizes {
	return &sizes{sup: sup, wanted: map[string]map[uint64][2]int{}, typist: map[string]uint64{}}
}

// resize records the size a client shows an agent at, and gives it to the
// agent unless another client is the one typing into it.
func (z *sizes) resize(conn uint64, agent string, rows, cols int) error {
	z.mu.Lock()
	if z.wanted[agent] == nil {
		z.wanted[agent] = map[uint64][2]int{}
	}
	z.wanted[agent][conn] = [2]int{rows, cols}
	t := z.typist[agent]
	z.mu.Unlock()
	if t != 0 && t != conn {
		return nil
	}
	return z.sup.Resize(agent, rows, cols)
}

// typing makes conn the client that types into agent: the agent takes the
// size that client shows it at.
func (z *sizes) typing(conn uint64, agent string) error {
	z.mu.Lock()
	prev := z.typist[agent]
	z.typist[agent] = conn
	size, ok := z.wanted[agent][conn]
	z.mu.Unlock()
	if prev == conn || !ok {
		return nil
	}
	return z.sup.Resize(agent, size[0], size[1])
}

// gone forgets a client that has left.
func (z *sizes) gone(conn uint64) {
	z.mu.Lock()
	defer z.mu.Unlock()
	for agent, m := range z.wanted {
		delete(m, conn)
		if z.typist[agent] == conn {
			delete(z.typist, agent)
		}
	}
}
