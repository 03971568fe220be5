package supervisor

import (
	"fmt"
	"time"

	"swarm/bus"
)

// A message swarm has read from an agent's screen is never lost to a busy
// bus: when the database is locked by another process (or the disk is
// full for a moment), the message waits in memory, in order, and the pump
// commits it when the bus takes writes again. Each message gets its id
// before the first try, so a try that did commit is not stored twice.
// Memory is bounded: past Options.UnsentLimit, what the agent sends is dropped,
// counted, and the agent is told how many once the bus is back.

// unsentRetry is how often the pump tries the bus again.
const unsentRetry = 250 * time.Millisecond

// unsent is an agent's messages waiting for the bus.
type unsent struct {
	msgs  []bus.Message
	since time.Time // when the first of msgs failed
	lost  int       // dropped at the bound since the bus last took writes
}

// publish stores m on the bus, or keeps it for later if the bus cannot
// take it now. It runs on the pump.
func (a *agent) publish(m bus.Message) {
	if m.ID == "" {
		m.ID = bus.NewID()
	}
	if m.Time.IsZero() {
		m.Time = time.Now() // when it was read, not when the bus took it
	}
	u := &a.unsent
	if len(u.msgs) == 0 {
		_, err := a.s.bus.Publish(a.publishCtx(), m)
		if err == nil {
			return
		}
		if !bus.IsTransient(err) {
			a.s.log.Error("publish", "agent", a.cfg.Name, "to", m.To, "err", err)
			a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: "publish failed: " + err.Error()})
			return
		}
		a.s.log.Warn("publish: the bus is busy; messages wait in memory", "agent", a.cfg.Name, "err", err)
		a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: fmt.Sprintf(
			"the bus cannot take messages now (%v): what %s sends waits in memory (up to %d messages)", err, a.cfg.Name, a.s.opts.UnsentLimit)})
		u.since = time.Now()
	}
	if len(u.msgs) >= a.s.opts.UnsentLimit {
		if u.lost == 0 {
			a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: fmt.Sprintf(
				"%s has %d messages waiting for the bus: what it sends now is dropped", a.cfg.Name, a.s.opts.UnsentLimit)})
		}
		u.lost++
		return
	}
	u.msgs = append(u.msgs, m)
}

// sendUnsent tries to commit the waiting messages, in order, in batches;
// it stops at the first batch the bus cannot take.
func (a *agent) sendUnsent() {
	u := &a.unsent
	for len(u.msgs) > 0 {
		batch := u.msgs[:min(len(u.msgs), 500)]
		if _, err := a.s.bus.PublishBatch(a.publishCtx(), batch); err != nil {
			if bus.IsTransient(err) {
				return
			}
			// A message the bus refuses outright fails alone.
			for _, m := range batch {
				if _, err := a.s.bus.Publish(a.publishCtx(), m); err != nil && bus.IsTransient(err) {
					return
				} else if err != nil {
					a.s.log.Error("publish", "agent", a.cfg.Name, "to", m.To, "err", err)
				}
				u.msgs = u.msgs[1:]
			}
			continue
		}
		u.msgs = u.msgs[len(batch):]
	}
	u.msgs = nil
	waited := time.Since(u.since).Round(time.Millisecond)
	a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: fmt.Sprintf(
		"the bus takes messages again: what %s sent in the last %s is stored", a.cfg.Name, waited)})
	if u.lost > 0 {
		a.notify(fmt.Sprintf("%d of your messages were dropped: the bus could not take them for %s and swarm holds at most %d in memory; send them again",
			u.lost, waited, a.s.opts.UnsentLimit))
		u.lost = 0
	}
}

// drainUnsent is the pump's last act: what waits is committed before the
// next process of the agent starts, unless swarm stops first, when it gets
// a last try.
func (a *agent) drainUnsent() {
	for len(a.unsent.msgs) > 0 {
		a.sendUnsent()
		if len(a.unsent.msgs) == 0 {
			return
		}
		t := time.NewTimer(unsentRetry)
		select {
		case <-a.s.ctx.Done():
			t.Stop()
			a.sendUnsent()
			if n := len(a.unsent.msgs); n > 0 {
				a.s.log.Error("swarm stops while the bus cannot take messages: they are lost", "agent", a.cfg.Name, "messages", n)
			}
			return
		case <-t.C:
		}
	}
}

// persist runs a write of a delivery's state, trying again while the bus
// cannot take writes: a confirmation lost to a locked database would have
// the message typed in again. It gives up when swarm stops.
func (a *agent) persist(write func() error) error {
	wait := 50 * time.Millisecond
	for {
		err := write()
		if err == nil || !bus.IsTransient(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-a.s.ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}
