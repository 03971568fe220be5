package supervisor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"swarm/bus"
	"swarm/parser"
	"swarm/spawner"
)

// maxAttempts is how many times a message is typed in before it fails.
const maxAttempts = 3

// injectLoop delivers the agent's pending messages, one at a time in bus
// order, whenever it is woken (a publish, a process start, a timer).
func (a *agent) injectLoop() {
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-a.wake:
		case <-retry.C:
		}
		if wait := a.deliverReady(); wait > 0 {
			retry.Reset(wait)
		}
	}
}

// deliverReady delivers pending messages while the agent is ready. It
// returns how long to wait before trying again, or 0 to wait for a wake-up.
func (a *agent) deliverReady() time.Duration {
	for a.ctx.Err() == nil {
		proc := a.running()
		if proc == nil {
			return 0 // a process start wakes the injector
		}
		if wait := time.Until(a.retryAt); wait > 0 {
			return wait // backing off after an unconfirmed attempt
		}
		if wait := a.notReadyFor(proc); wait > 0 {
			return wait
		}
		if a.cfg.Brief && a.needsBrief() {
			a.typeBrief(proc)
			continue
		}
		msgs, err := a.s.bus.Pending(a.ctx, a.cfg.Name, 1)
		if err != nil {
			if a.ctx.Err() == nil {
				a.s.log.Error("pending", "agent", a.cfg.Name, "err", err)
			}
			return time.Second
		}
		if len(msgs) == 0 {
			return 0
		}
		if wait := a.deliver(proc, msgs[0]); wait > 0 {
			return wait
		}
	}
	return 0
}

// notReadyFor says how long until the agent is ready for a message: it has
// shown some output (or StartGrace has passed since it started, for
// programs that print nothing), its output has been quiet for its quiet
// period, and nobody typed into it for UserIdle. Zero means ready now.
func (a *agent) notReadyFor(proc *spawner.Process) time.Duration {
	now := time.Now()
	a.mu.Lock()
	started := a.started
	typed := a.lastInput
	a.mu.Unlock()
	out := proc.LastOutput()
	wait := time.Duration(0)
	if out.IsZero() {
		// Still starting: what is typed now may be lost or garbled. The
		// first output wakes the injector (onOutput).
		a.awaitingOutput.Store(true)
		wait = started.Add(a.s.opts.StartGrace).Sub(now)
		out = started
	}
	if a.cfg.Quiet > 0 {
		wait = max(wait, out.Add(a.cfg.Quiet).Sub(now))
	}
	if !typed.IsZero() {
		wait = max(wait, typed.Add(a.s.opts.UserIdle).Sub(now))
	}
	return max(wait, 0)
}

// deliver types one message into the process and waits for its id marker
// to show on the screen. It returns a wait before the next try when the
// message is to be retried.
func (a *agent) deliver(proc *spawner.Process, m bus.Message) time.Duration {
	attempts := 0
	for _, d := range m.Deliveries {
		if d.Recipient == a.cfg.Name {
			attempts = d.Attempts
		}
	}
	ctx := a.publishCtx()
	if attempts >= maxAttempts {
		a.fail(ctx, m, fmt.Sprintf("not confirmed after %d attempts", attempts))
		return 0
	}
	marker := "#" + bus.ShortID(m.ID)
	a.drainOutputSeen()
	select {
	case <-proc.Exited():
		return 0 // dying: what is typed now reaches nobody; the next process gets it
	default:
	}
	a.expect(marker)
	defer a.expect("")
	if err := proc.WriteContext(a.ctx, a.format(proc, m)); err != nil {
		if a.ctx.Err() != nil {
			return 0
		}
		// The process is gone; the message stays queued for the next one.
		a.s.log.Info("inject", "agent", a.cfg.Name, "id", m.ID, "err", err)
		return 0
	}
	if err := a.s.bus.MarkInjected(ctx, m.ID, a.cfg.Name); err != nil {
		a.s.log.Error("mark injected", "agent", a.cfg.Name, "err", err)
	}
	if !a.cfg.Confirm || a.waitMarker(proc, marker) {
		if err := a.s.bus.MarkConfirmed(ctx, m.ID, a.cfg.Name); err != nil {
			a.s.log.Error("mark confirmed", "agent", a.cfg.Name, "err", err)
		}
		a.confirmed(proc, m.ID)
		a.s.hub.emit(Event{Kind: EventDelivered, Agent: a.cfg.Name, Message: &m})
		return 0
	}
	if a.ctx.Err() != nil {
		return 0
	}
	if attempts+1 >= maxAttempts {
		a.fail(ctx, m, fmt.Sprintf("%s did not show message %s after %d attempts", a.cfg.Name, marker, maxAttempts))
		return 0
	}
	// Back off before typing it again: 500 ms, then 1 s. Other wake-ups
	// (a new message) do not cut the wait short.
	wait := time.Duration(500<<attempts) * time.Millisecond
	a.retryAt = time.Now().Add(wait)
	return wait
}

// confirmed remembers a confirmation to proc for requeueWindow, so that
// the lifecycle can requeue it if proc crashes. If proc has already ended,
// a crash requeues it at once.
func (a *agent) confirmed(proc *spawner.Process, id string) {
	now := time.Now()
	a.mu.Lock()
	if a.proc == proc {
		keep := a.recent[:0]
		for _, c := range a.recent {
			if now.Sub(c.at) < requeueWindow {
				keep = append(keep, c)
			}
		}
		a.recent = append(keep, confirmation{id: id, at: now})
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	if st, _ := proc.Wait(); !st.Success() {
		a.requeue([]confirmation{{id: id, at: now}}, now)
	}
}

func (a *agent) fail(ctx context.Context, m bus.Message, reason string) {
	if err := a.s.bus.MarkFailed(ctx, m.ID, a.cfg.Name, reason); err != nil {
		a.s.log.Error("mark failed", "agent", a.cfg.Name, "err", err)
	}
	a.s.hub.emit(Event{Kind: EventDeliveryFailed, Agent: a.cfg.Name, Message: &m, Text: reason})
}

func (a *agent) drainOutputSeen() {
	select {
	case <-a.outputSeen:
	default:
	}
}

// expect sets the marker the pump watches committed lines for ("" for
// none) and forgets an earlier hit.
func (a *agent) expect(marker string) {
	a.markerMu.Lock()
	a.marker = marker
	a.markerMu.Unlock()
	select {
	case <-a.markerHit:
	default:
	}
}

// sawLine is the pump's half of confirmation: a committed line with the
// expected marker.
func (a *agent) sawLine(text string) {
	a.markerMu.Lock()
	hit := a.marker != "" && strings.Contains(text, a.marker)
	a.markerMu.Unlock()
	if hit {
		select {
		case a.markerHit <- struct{}{}:
		default:
		}
	}
}

// waitMarker waits until marker shows on the process's screen or in a
// committed line, for at most ConfirmTimeout. A marker seen when the
// process had crashed proves nothing: the terminal echoes input nobody
// reads.
func (a *agent) waitMarker(proc *spawner.Process, marker string) bool {
	deadline := time.NewTimer(a.s.opts.ConfirmTimeout)
	defer deadline.Stop()
	// A program that exited cleanly after its marker showed read it (a
	// player reading "game over", say); one that crashed may not have.
	alive := func() bool {
		select {
		case <-proc.Exited():
			st, _ := proc.Wait()
			return st.Success()
		default:
			return true
		}
	}
	for {
		if proc.Screen().Contains(marker) {
			return alive()
		}
		select {
		case <-a.markerHit:
			return alive()
		case <-a.outputSeen:
		case <-proc.Exited():
			_, _ = proc.Wait() // its last output is on the screen then
			return proc.Screen().Contains(marker) && alive()
		case <-deadline.C:
			return proc.Screen().Contains(marker) && alive()
		case <-a.ctx.Done():
			return false
		}
	}
}

// format renders a message as the bytes typed into the recipient:
// `[relay #id from sender] body` and a carriage return. Control characters
// are removed so that no sender can drive the recipient's terminal. A
// multi-line body goes in as one bracketed paste when the program asked
// for bracketed paste; otherwise its lines are joined.
func (a *agent) format(proc *spawner.Process, m bus.Message) []byte {
	return formatMessage(m, proc.Screen().Snapshot().BracketedPaste)
}

func formatMessage(m bus.Message, bracketed bool) []byte {
	head := fmt.Sprintf("[relay #%s from %s] ", bus.ShortID(m.ID), m.From)
	lines := strings.Split(sanitize(m.Body), "\n")
	if len(lines) == 1 || !bracketed {
		parts := lines[:0]
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" {
				parts = append(parts, l)
			}
		}
		return []byte(head + strings.Join(parts, " ") + "\r")
	}
	// Later lines start lines of their own on the recipient's screen: escape
	// any that would read as a relay command, so an echo is never one.
	for i := 1; i < len(lines); i++ {
		lines[i] = parser.EscapeLine(lines[i])
	}
	body := head + strings.Join(lines, "\r")
	return append(spawner.PasteBytes(body), '\r')
}

// sanitize removes C0 controls except tab and newline, ESC, DEL and C1
// controls, and turns CRLF and lone CR into newlines.
func sanitize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return -1
		}
		return r
	}, s)
}

// needsBrief says whether the current process still has to be briefed.
func (a *agent) needsBrief() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.briefed
}

// typeBrief types the agent's brief in once per process start. It is
// recorded on the bus (log only) so the log shows what the agent was told.
func (a *agent) typeBrief(proc *spawner.Process) {
	a.mu.Lock()
	a.briefed = true
	a.mu.Unlock()
	text := a.s.brief(a.cfg)
	m, err := a.s.bus.Publish(a.publishCtx(), bus.Message{From: "swarm", To: a.cfg.Name, Kind: "brief", Body: text, LogOnly: true})
	if err != nil {
		a.s.log.Error("publish brief", "agent", a.cfg.Name, "err", err)
		m = bus.Message{ID: "brief", From: "swarm", Body: text}
	}
	if err := proc.WriteContext(a.ctx, a.format(proc, m)); err != nil {
		a.s.log.Info("brief", "agent", a.cfg.Name, "err", err)
	}
}
