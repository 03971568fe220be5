package server

import (
	"sync"
	"time"

	"swarm/swarmapi"
)

// A server nobody needs any more ends, as `swarm up --headless` does:
// once every agent has ended (swarmapi.Ended: only a person can start
// one again) and no UI has been attached for IdleEnd, it has nothing to
// show and nothing to run. While a UI is attached it stays: the person
// sees the agents' last screens and may start them again. `swarm ls`
// shows how many UIs are attached to each swarm.

// IdleEnd is how long a server whose agents have all ended waits, with
// no UI attached, before it ends: time for a UI that is starting (or
// connecting again) to attach and show the last screens.
const IdleEnd = 10 * time.Second

// clients counts the UIs attached to a server (its event streams) and
// keeps the count in its note for swarm ls.
type clients struct {
	mu       sync.Mutex
	n        int
	note     Running
	changed  chan struct{} // a UI attached or left
	unneeded chan struct{} // closed once the server is not needed (Unneeded)
	watching bool
}

func newClients(note Running) *clients {
	return &clients{note: note, changed: make(chan struct{}, 1), unneeded: make(chan struct{})}
}

// attached counts a UI that attached (+1) or left (-1).
func (s *Server) attached(delta int) {
	c := s.clients
	c.mu.Lock()
	c.n += delta
	c.note.Clients = c.n
	note := c.note
	c.mu.Unlock()
	if err := register(note); err != nil {
		s.log.Warn("swarm ls will not show this swarm's clients", "err", err)
	}
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *clients) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Unneeded returns a channel closed once every agent of the swarm has
// ended and no UI has been attached for after (IdleEnd, where swarm up
// starts the server). It watches from its first call until Close.
func (s *Server) Unneeded(after time.Duration) <-chan struct{} {
	c := s.clients
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.watching {
		c.watching = true
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.watchNeed(after)
		}()
	}
	return c.unneeded
}

// watchNeed closes unneeded once the swarm has been without running
// agents and without clients for after. It looks again when a UI comes
// or goes, and a moment after each event of the swarm's (an agent's
// final state is recorded just after the event of its end).
func (s *Server) watchNeed(after time.Duration) {
	sub := s.sup.Subscribe()
	defer sub.Close()
	idle, recheck := time.NewTimer(after), time.NewTimer(settle)
	idle.Stop()
	defer idle.Stop()
	defer recheck.Stop()
	idling := false
	for {
		switch needed := !s.sup.Ended() || s.clients.count() > 0; {
		case needed && idling:
			idle.Stop()
			idling = false
		case !needed && !idling:
			idle.Reset(after)
			idling = true
			s.log.Info("every agent has ended and no UI is attached: the server ends unless one attaches", "in", after)
		}
		for waiting := true; waiting; {
			select {
			case <-s.ctx.Done():
				return
			case ev := <-sub.Events():
				if ev.Kind != swarmapi.EventScreen {
					recheck.Reset(settle)
				}
			case <-recheck.C:
				waiting = false
			case <-s.clients.changed:
				waiting = false
			case <-idle.C:
				s.log.Info("every agent has ended and no UI is attached: the server ends")
				close(s.clients.unneeded)
				return
			}
		}
	}
}

// settle is how long after an event the swarm is looked at again.
const settle = 250 * time.Millisecond
