package supervisor

import (
	"context"
	"time"

	"swarm/bus"
)

// route follows the bus: every new message (from this process or any
// other) becomes an EventMessage and wakes the injectors of its
// recipients; every task transition becomes an EventTask. It is woken at
// once by in-process writes and within about 50 ms by other processes'.
//
// Start takes the positions to follow from (last, lastEvent) before it
// starts route, so nothing written after Start returns is missed.
func (s *Supervisor) route(ctx context.Context, wake <-chan struct{}, last, lastEvent int64) {
	// Whatever was queued before this run starts now.
	for _, a := range s.agentSnapshot() {
		a.poke()
	}
	for {
		var ok1, ok2 bool
		last, ok1 = s.routeNew(ctx, last)
		lastEvent, ok2 = s.routeTaskEvents(ctx, lastEvent)
		if !waitWake(ctx, wake, !ok1 || !ok2) {
			return
		}
	}
}

// retryAfter is how soon a loop over the bus tries again after a failed
// read, even if nothing wakes it.
const retryAfter = time.Second

// waitWake waits for the bus to change, or, when the last pass failed, at
// most retryAfter. It reports false when ctx ends.
func waitWake(ctx context.Context, wake <-chan struct{}, failed bool) bool {
	var retry <-chan time.Time
	if failed {
		t := time.NewTimer(retryAfter)
		defer t.Stop()
		retry = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case <-wake:
	case <-retry:
	}
	return true
}

func (s *Supervisor) agentSnapshot() []*agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentList()
}

func (s *Supervisor) routeNew(ctx context.Context, last int64) (int64, bool) {
	for {
		msgs, err := s.bus.Messages(ctx, last, 512)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("read messages", "err", err)
			}
			return last, false
		}
		for i := range msgs {
			m := &msgs[i]
			last = m.Seq
			for _, d := range m.Deliveries {
				if d.State == bus.DeliveryQueued || d.State == bus.DeliveryInjected {
					if a, err := s.agent(d.Recipient); err == nil {
						a.poke()
					}
				}
			}
			s.hub.emit(Event{Kind: EventMessage, Message: m, Agent: m.From, Time: m.Time})
		}
		if len(msgs) < 512 {
			return last, true
		}
	}
}

// lastTaskEvent is the position of the newest task transition.
func (s *Supervisor) lastTaskEvent(ctx context.Context) int64 {
	var last int64
	for {
		evs, err := s.bus.TaskEventsAfter(ctx, last, 4096)
		if err != nil || len(evs) == 0 {
			return last
		}
		last = evs[len(evs)-1].N
	}
}

// routeTaskEvents emits an EventTask for each transition after last.
func (s *Supervisor) routeTaskEvents(ctx context.Context, last int64) (int64, bool) {
	for {
		evs, err := s.bus.TaskEventsAfter(ctx, last, 256)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("read task events", "err", err)
			}
			return last, false
		}
		for i := range evs {
			e := &evs[i]
			t, err := s.bus.Task(ctx, e.TaskID)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Error("read task", "task", e.TaskID, "err", err)
				}
				return last, false // this event again, next pass
			}
			last = e.N
			t.State = e.To // the task as this transition left it
			s.hub.emit(Event{Kind: EventTask, Task: &t, TaskEvent: e, Agent: t.Assignee, Time: e.Time})
		}
		if len(evs) < 256 {
			return last, true
		}
	}
}
