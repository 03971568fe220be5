package supervisor

import (
	"context"
	"time"

	"swarm/bus"
)

// livenessTick is how often levels are recomputed and output activity is
// written as a heartbeat (the bus keeps at most one write a second).
const livenessTick = time.Second

// watchLiveness keeps each agent's liveness level: what the age of its
// last sign of life (process start, output, or an explicit heartbeat)
// means for what it is doing — a worry only with a task in progress (IDLE
// otherwise), DONE or DEAD once its process has ended well or badly. Output activity is recorded on the bus as a
// heartbeat so that `swarm status` in another process sees it.
func (s *Supervisor) watchLiveness(ctx context.Context) {
	tick := time.NewTicker(livenessTick)
	defer tick.Stop()
	written := map[string]time.Time{}
	for {
		s.checkLiveness(ctx, written)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *Supervisor) thresholds() bus.Thresholds {
	h := s.opts.Config.Heartbeat
	t := bus.DefaultThresholds
	if h.Warn > 0 {
		t.Warn = h.Warn
	}
	if h.Stale > 0 {
		t.Stale = h.Stale
	}
	if h.Dead > 0 {
		t.Dead = h.Dead
	}
	return t
}

func (s *Supervisor) checkLiveness(ctx context.Context, written map[string]time.Time) {
	beats := map[string]bus.Heartbeat{}
	if hbs, err := s.bus.Heartbeats(ctx); err == nil {
		for _, hb := range hbs {
			beats[hb.Agent] = hb
		}
	} else if ctx.Err() == nil {
		s.log.Warn("read heartbeats", "err", err)
	}
	busy, err := s.bus.Busy(ctx)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("read tasks in progress", "err", err)
	}
	th := s.thresholds()
	now := time.Now()
	if s.opts.livenessNow != nil {
		now = s.opts.livenessNow()
	}
	for _, a := range s.agentSnapshot() {
		in := a.info()
		hb := beats[in.Name]
		if in.LastOutput.After(written[in.Name]) {
			written[in.Name] = in.LastOutput
			// Output says the agent is alive, not that it works: its
			// turn (what its hooks or its screen said) says that, for an
			// agent that has no heartbeat yet; one that has keeps what it
			// reported.
			beat := bus.Heartbeat{Agent: in.Name, Status: bus.StatusIdle}
			if in.Turn.Known() {
				beat.Status, beat.Note = in.Turn.Status, in.Turn.Note
			}
			if err := s.bus.Alive(ctx, beat); err != nil && ctx.Err() == nil {
				s.log.Warn("write heartbeat", "agent", in.Name, "err", err)
			}
		}
		if in.State == StateStarting && in.Started.IsZero() {
			continue // not started yet: neither late nor dead
		}
		seen := in.Started
		for _, t := range []time.Time{in.LastOutput, hb.Time} {
			if t.After(seen) {
				seen = t
			}
		}
		level := th.Level(now.Sub(seen), activity(in, busy[in.Name]))
		a.mu.Lock()
		changed := a.level != level
		a.level = level
		a.mu.Unlock()
		if changed {
			s.hub.emit(Event{Kind: EventLevel, Agent: in.Name, Level: level})
		}
	}
}

// activity says what an agent is doing, from its process state and
// whether it has a task in progress.
func activity(in AgentInfo, busy bool) bus.Activity {
	switch in.State {
	case StateRunning, StateStarting:
		if busy {
			return bus.Working
		}
		return bus.Waiting
	case StateStopped:
		return bus.Ended
	case StateExited:
		if in.ExitCode == 0 {
			return bus.Ended
		}
	}
	return bus.Died
}
