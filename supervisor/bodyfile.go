package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"swarm/bus"
)

// A message too long to type is written to a file that the agent is told
// to read (render, writeMessageFile). When that file cannot be written (a
// full disk, a read-only one, a messages/ swarm may not use), the message
// is not failed: like a message the bus cannot store for a moment, it
// waits — pending on the bus, the agent's later messages behind it, in
// order — and the injector tries again, after bodyFileRetry, doubling up
// to bodyFileRetryMax, and whenever it is woken meanwhile. The person is
// told once why it waits, and again when it goes.

const (
	bodyFileRetry    = time.Second
	bodyFileRetryMax = time.Minute
)

// bodyFileWait is the injector's note of the message whose file could not
// be written.
type bodyFileWait struct {
	id   string
	wait time.Duration
}

// renderFailed notes that m could not be made ready to type (err) and
// returns how long the injector waits before it tries again: its body
// file could not be written. A path that cannot be typed will not change
// by waiting: that message fails (0: the next goes).
func (a *agent) renderFailed(ctx context.Context, m bus.Message, err error) time.Duration {
	if errors.Is(err, errUntypablePath) {
		a.fail(ctx, m, err.Error())
		return 0
	}
	w := &a.bodyWait
	if w.id == m.ID {
		w.wait = min(w.wait*2, bodyFileRetryMax)
		return w.wait
	}
	*w = bodyFileWait{id: m.ID, wait: bodyFileRetry}
	a.s.log.Warn("a message waits: its body file cannot be written", "agent", a.cfg.Name, "id", m.ID, "err", err)
	a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Message: &m, Text: fmt.Sprintf(
		"message #%s from %s waits, and those after it: it is too long to type and %v; tried again until it can be written",
		bus.ShortID(m.ID), m.From, err)})
	return w.wait
}

// bodyFileWritten notes that m is typed in now (its file written, or
// none needed), and tells the person if it had waited.
func (a *agent) bodyFileWritten(m bus.Message) {
	if a.bodyWait.id != m.ID {
		return
	}
	a.bodyWait = bodyFileWait{}
	a.s.log.Info("a message that waited for its body file goes", "agent", a.cfg.Name, "id", m.ID)
	a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Message: &m, Text: fmt.Sprintf(
		"message #%s from %s, which waited for its file, goes now", bus.ShortID(m.ID), m.From)})
}
