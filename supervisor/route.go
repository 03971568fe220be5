package supervisor

import (
	"context"
	"time"

	"swarm/bus"
)

// route follows the bus: every new message (from this process or any
// other) becomes an EventMessage and wakes the injectors of its
// recipients; every task state change becomes an EventTask. It is woken at
// once by in-process writes and within about 50 ms by other processes'.
func (s *Supervisor) route(ctx context.Context) {
	wake, unsub := s.bus.Subscribe()
	defer unsub()
	last, err := s.bus.LastSeq(ctx)
	if err != nil {
		s.log.Error("last seq", "err", err)
	}
	tasks := map[string]bus.TaskState{}
	s.diffTasks(ctx, tasks, false)
	// Whatever was queued before this run starts now.
	for _, a := range s.agentSnapshot() {
		a.poke()
	}
	for {
		last = s.routeNew(ctx, last)
		s.diffTasks(ctx, tasks, true)
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

// diffTasks emits an EventTask for each task whose state differs from
// what seen holds, and records the new states.
func (s *Supervisor) diffTasks(ctx context.Context, seen map[string]bus.TaskState, emit bool) {
	tasks, err := s.bus.Tasks(ctx, bus.TaskFilter{})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("read tasks", "err", err)
		}
		return
	}
	for i := range tasks {
		t := &tasks[i]
		if st, ok := seen[t.ID]; ok && st == t.State {
			continue
		}
		seen[t.ID] = t.State
		if emit {
			s.hub.emit(Event{Kind: EventTask, Task: t, Agent: t.Assignee, Time: time.Now()})
		}
	}
}
