package supervisor

import (
	"context"

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
		last = s.routeNew(ctx, last)
		lastEvent = s.routeTaskEvents(ctx, lastEvent)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
	}
}

func (s *Supervisor) agentSnapshot() []*agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentList()
}

func (s *Supervisor) routeNew(ctx context.Context, last int64) int64 {
	for {
		msgs, err := s.bus.Messages(ctx, last, 512)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("read messages", "err", err)
			}
			return last
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
			return last
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
func (s *Supervisor) routeTaskEvents(ctx context.Context, last int64) int64 {
	for {
		evs, err := s.bus.TaskEventsAfter(ctx, last, 256)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("read task events", "err", err)
			}
			return last
		}
		for i := range evs {
			e := &evs[i]
			last = e.N
			t, err := s.bus.Task(ctx, e.TaskID)
			if err != nil {
				continue
			}
			t.State = e.To // the task as this transition left it
			s.hub.emit(Event{Kind: EventTask, Task: &t, TaskEvent: e, Agent: t.Assignee, Time: e.Time})
		}
		if len(evs) < 256 {
			return last
		}
	}
}
