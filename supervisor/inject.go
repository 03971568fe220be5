package supervisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"swarm/bus"
	"swarm/screenmodel"
	"swarm/spawner"
)

// maxAttempts is how many processes a message is typed into before it
// fails: each died before the message was judged.
const maxAttempts = 3

// injectLoop delivers the agent's pending messages, one at a time in bus
// order, whenever it is woken (a publish, a process start, a timer), and
// between times looks at the agent's screen while it changes (shown.go).
// The looks run on a timer armed by output, a turn set, a wake-up, or a
// look that must come again; an agent whose screen is still and that
// holds nothing is not looked at, so idle agents cost no wake-ups.
func (a *agent) injectLoop() {
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	lookTimer := time.NewTimer(lookEvery)
	defer lookTimer.Stop()
	looking := true // lookTimer is armed
	armLook := func() {
		if !looking {
			lookTimer.Reset(lookEvery)
			looking = true
		}
	}
	var lookedAt time.Time // the output last looked at
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-a.looks:
			armLook()
			continue
		case <-lookTimer.C:
			looking = false
			proc := a.running()
			if proc == nil {
				continue
			}
			a.mu.Lock()
			held := a.waiting
			again := a.graceRuns()
			a.mu.Unlock()
			// A changed screen is looked at once it settles; one that
			// holds something, or whose grace runs, is looked at again.
			if out := proc.LastOutput(); !out.Equal(lookedAt) || held || again {
				if a.observe(proc, held) {
					lookedAt = out
				}
				armLook()
			}
			continue
		case <-a.wake:
		case <-retry.C:
		}
		armLook()
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
		brief := a.cfg.Brief && a.needsBrief()
		var next *bus.Message
		var notices []bus.Message
		if !brief {
			msgs, err := a.s.bus.Pending(a.ctx, a.cfg.Name, 1)
			if err == nil && len(msgs) == 1 && bus.IsDeliveryNotice(msgs[0]) {
				msgs, notices, err = a.pendingWithNotices()
			}
			if err != nil {
				if a.ctx.Err() == nil {
					a.s.log.Error("pending", "agent", a.cfg.Name, "err", err)
				}
				return time.Second
			}
			if len(msgs) == 0 {
				a.setWaiting(false) // nothing, or notices alone: they wait in its inbox
				return 0
			}
			next = &msgs[0]
		}
		a.setWaiting(true)
		wait := a.notReadyFor(proc)
		if wait > 0 && !a.busyTakes(proc) {
			return wait
		}
		if !a.model.ModeOnly && !settled(proc) {
			return quietFrame // judged on a whole frame only
		}
		r := a.look(proc)
		if !mayType(r) || brief && r.State != screenmodel.Prompt {
			// A dialog, its shell mode, a screen not known, a turn its
			// queue does not take (nor a brief): the injector looks again
			// while it waits; the lookout puts a dialog on the "needs
			// you" list.
			a.observe(proc, true)
			return heldRecheck
		}
		if a.holdForLine(r) {
			return heldRecheck // the line's end pokes the injector; a box emptied by the program does not
		}
		if wait := a.firstPromptWait(r); wait > 0 {
			return wait
		}
		a.mu.Lock()
		a.typedInRun = true
		a.mu.Unlock()
		if brief {
			a.typeBrief(proc)
			continue
		}
		if wait := a.deliver(proc, *next, notices); wait > 0 {
			return wait
		}
	}
	return 0
}

// noticeWindow is how many pending messages the injector reads to find
// the message that the notices at the head of an agent's queue go with.
const noticeWindow = 64

// pendingWithNotices is the next message to type into the agent when
// swarm's notices about its undeliverable messages head its queue
// (bus.IsDeliveryNotice). They are not typed by themselves — each would
// start an AI agent's turn — but with its next message, all in one
// (deliver); until it has one they wait in its inbox, and the person saw
// each failure as it happened. A queue of more notices than the window
// holds, whatever follows them, gets them typed as one batch.
func (a *agent) pendingWithNotices() (next []bus.Message, notices []bus.Message, err error) {
	msgs, err := a.s.bus.Pending(a.ctx, a.cfg.Name, noticeWindow)
	if err != nil {
		return nil, nil, err
	}
	n := 0
	for n < len(msgs) && bus.IsDeliveryNotice(msgs[n]) {
		n++
	}
	switch {
	case n < len(msgs):
		return msgs[n : n+1], msgs[:n], nil
	case n == noticeWindow:
		return msgs[:1], msgs[1:n], nil
	}
	return nil, nil, nil
}

// withNotices is what is typed for m when notices go with it: its body,
// then a line per notice, or per group of notices that say the same of
// messages to one recipient (bus.DeliveryNoticeLines).
func withNotices(m bus.Message, notices []bus.Message) bus.Message {
	if len(notices) == 0 {
		return m
	}
	lines := []string{m.Body}
	for _, l := range bus.DeliveryNoticeLines(notices) {
		lines = append(lines, "(from swarm: "+l+")")
	}
	m.Body = strings.Join(lines, "\n")
	return m
}

// setWaiting notes whether something waits to be typed into the agent:
// an unknown screen that holds it back is then the person's business.
func (a *agent) setWaiting(w bool) {
	a.mu.Lock()
	a.waiting = w
	a.mu.Unlock()
}

// busyTakes says whether the agent's program is in a turn whose queue
// takes a message now: its output is never quiet then (a spinner), and a
// settled frame is enough.
func (a *agent) busyTakes(proc *spawner.Process) bool {
	if !a.model.BusyTakesInput || !settled(proc) {
		return false
	}
	r := a.look(proc)
	return r.State == screenmodel.Busy && r.TakesInput
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
	if a.cfg.Quiet > 0 && !a.idleByHook() {
		wait = max(wait, out.Add(a.cfg.Quiet).Sub(now))
	}
	if !typed.IsZero() {
		wait = max(wait, typed.Add(a.s.opts.UserIdle).Sub(now))
	}
	return max(wait, 0)
}

// firstPromptHold is how long the first prompt a run shows must stay
// before anything is typed into it. A CLI may draw its prompt and put a
// question in its place a moment later — Codex 0.171 on a fresh HOME
// draws its prompt, then its sign-in picker — and an Enter typed in
// between answers the question.
const firstPromptHold = time.Second

// firstPromptWait is how much longer the prompt r shows must stay before
// the run's first brief or message is typed into it; 0 once one was, or
// for a screen other than a prompt (a busy turn whose queue takes input
// came after a prompt already).
func (a *agent) firstPromptWait(r screenmodel.Reading) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.typedInRun || r.State != screenmodel.Prompt {
		return 0
	}
	return time.Until(a.shown.Since.Add(firstPromptHold))
}

// heldRecheck is how often a held delivery looks at the screen again.
const heldRecheck = time.Second

// holdForLine reports whether a line is being typed into the agent, which
// messages must not be added to — anything its input box shows typed, or
// for a program without one, what a person typed since their last Enter —
// and keeps the count of the messages
// waiting for it up to date for the UIs.
func (a *agent) holdForLine(r screenmodel.Reading) bool {
	typing := r.Typed || a.keysOnLine()
	n := 0
	if typing {
		msgs, err := a.s.bus.Pending(a.ctx, a.cfg.Name, maxHeldShown)
		if err != nil {
			a.s.log.Error("pending", "agent", a.cfg.Name, "err", err)
		}
		n = len(msgs)
	}
	a.mu.Lock()
	changed := a.held != n
	a.held = n
	a.mu.Unlock()
	if changed {
		a.s.hub.emit(Event{Kind: EventHeld, Agent: a.cfg.Name, Held: n})
	}
	return typing
}

// personAtKeys is the last look before a message is typed: a person who
// began typing since the injector judged the agent ready has the
// terminal.
func (a *agent) personAtKeys() bool {
	a.mu.Lock()
	recent := !a.lastInput.IsZero() && time.Since(a.lastInput) < a.s.opts.UserIdle
	a.mu.Unlock()
	return recent || a.keysOnLine()
}

// keysOnLine says whether a person's keys left a line in a program
// without an input box (humanline.go). A program with one shows what its
// box holds, which its screen model reads: the keys' estimate, which
// cannot tell a mode switch ("!") from text, is not needed there.
func (a *agent) keysOnLine() bool {
	if a.model.Input != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lineLen > 0
}

// maxHeldShown bounds the count of held messages shown ("99+").
const maxHeldShown = 100

// deliver types one message into the process and submits it (submit.go).
// It returns a wait before the next try when the message is to be tried
// again.
func (a *agent) deliver(proc *spawner.Process, m bus.Message, notices []bus.Message) time.Duration {
	attempts := 0
	for _, d := range m.Deliveries {
		if d.Recipient == a.cfg.Name {
			attempts = d.Attempts
		}
	}
	ctx := a.publishCtx()
	if a.staleBrief(m) {
		return 0
	}
	if attempts >= maxAttempts {
		// Typed into maxAttempts processes that each died before taking it.
		a.fail(ctx, m, fmt.Sprintf("typed in %d times, each time into a process that then ended", attempts))
		return 0
	}
	select {
	case <-proc.Exited():
		return 0 // dying: what is typed now reaches nobody; the next process gets it
	default:
	}
	if m.BodyErr != "" && m.BodyLater {
		// Refused for now (blobs/ replaced by a link, say): it waits as a
		// body whose file cannot be written does.
		return a.renderFailed(ctx, m, errors.New("its body cannot be read now: "+m.BodyErr))
	}
	if m.BodyErr != "" {
		a.fail(ctx, m, "its body cannot be read: "+m.BodyErr)
		return 0
	}
	text, err := a.render(withNotices(m, notices), canPaste(proc))
	if err != nil {
		return a.renderFailed(ctx, m, err) // it waits, or fails (bodyfile.go)
	}
	a.bodyFileWritten(m)
	// The last look at the person's line and the message's text go out
	// together: keys typed meanwhile wait for the text (keysMu).
	a.keysMu.Lock()
	locked := true
	unlock := func() {
		if locked {
			locked = false
			a.keysMu.Unlock()
		}
	}
	defer unlock()
	if a.personAtKeys() {
		return time.Millisecond // they began a moment ago: look again
	}
	marker := "#" + bus.ShortID(m.ID)
	a.drainOutputSeen()
	a.expect(marker)
	defer a.expect("")
	unsure := false
	res, reason := a.typeIn(proc, text, marker, func(kernel bool) {
		unsure = kernel
		unlock() // the text is out: the person's keys may follow it
		if err := a.persist(func() error { return a.s.bus.MarkInjected(ctx, m.ID, a.cfg.Name) }); err != nil {
			a.s.log.Error("mark injected", "agent", a.cfg.Name, "err", err)
		}
	})
	at := time.Now() // before it is recorded: whoever sees it confirmed sees it confirmed by then
	switch {
	case a.ctx.Err() != nil:
		return 0 // stays injected: typed again after a restart of swarm
	case res == gone:
		return 0 // the next process gets it again
	case res == unconfirmed:
		if err := a.persist(func() error { return a.s.bus.MarkUnconfirmed(ctx, m.ID, a.cfg.Name, reason) }); err != nil {
			a.s.log.Error("mark unconfirmed", "agent", a.cfg.Name, "err", err)
		}
		a.s.hub.emit(Event{Kind: EventUnconfirmed, Agent: a.cfg.Name, Message: &m, Text: reason})
		return 0
	}
	a.submitted()
	if err := a.persist(func() error { return a.s.bus.MarkConfirmed(ctx, m.ID, a.cfg.Name) }); err != nil {
		// Not recorded (the delivery was ended meanwhile, or swarm is
		// stopping): no one is told of a delivery the bus does not hold.
		a.s.log.Error("mark confirmed", "agent", a.cfg.Name, "err", err)
		return 0
	}
	head := strings.TrimSpace(header(m))
	a.confirmed(proc, confirmation{id: m.ID, at: at, header: head, typed: len(text), unsure: unsure})
	a.s.hub.emit(Event{Kind: EventDelivered, Agent: a.cfg.Name, Message: &m})
	for _, n := range notices {
		if err := a.persist(func() error { return a.s.bus.MarkConfirmed(ctx, n.ID, a.cfg.Name) }); err != nil {
			a.s.log.Error("mark notice confirmed", "agent", a.cfg.Name, "err", err)
			continue
		}
		a.confirmed(proc, confirmation{id: n.ID, at: at, header: head, unsure: unsure}) // typed in m's line: read, or not, with it
		a.s.hub.emit(Event{Kind: EventDelivered, Agent: a.cfg.Name, Message: &n})
	}
	return 0
}

// confirmed remembers confirmation c to proc while proc may not have read
// it — within requeueWindow, or while less than unreadHeld was typed
// after it — so that when proc ends, the lifecycle can requeue it if it
// did not (requeueUnread). If proc has ended already, it is judged now.
func (a *agent) confirmed(proc *spawner.Process, c confirmation) {
	a.mu.Lock()
	if a.proc == proc {
		a.recent = append(a.recent, c)
		after, drop := 0, 0
		for i := len(a.recent) - 1; i >= 0; i-- {
			if old := a.recent[i]; c.at.Sub(old.at) >= requeueWindow && after >= unreadHeld {
				drop = i + 1
				break
			}
			after += a.recent[i].typed
		}
		a.recent = slices.Delete(a.recent, 0, drop)
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	st, _ := proc.Wait()
	a.requeueUnread(proc, []confirmation{c}, !st.Success())
}

func (a *agent) fail(ctx context.Context, m bus.Message, reason string) {
	if err := a.persist(func() error { return a.s.bus.MarkFailed(ctx, m.ID, a.cfg.Name, reason) }); err != nil {
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
// none) and forgets an earlier hit. Marker and hit change together under
// markerMu (see sawLine).
func (a *agent) expect(marker string) {
	a.markerMu.Lock()
	defer a.markerMu.Unlock()
	a.marker = marker
	select {
	case <-a.markerHit:
	default:
	}
}

// expectEcho says that text, holding marker, is typed into a program
// reading lines: the kernel echoes it where the cursor is (sawLine).
func (a *agent) expectEcho(text, marker string) {
	i := strings.Index(text, marker)
	if marker == "" || i < 0 {
		return
	}
	a.markerMu.Lock()
	defer a.markerMu.Unlock()
	if len(a.echoes) == maxEchoes { // echoes never shown: lost with their process
		a.echoes = slices.Delete(a.echoes, 0, 1)
	}
	a.echoes = append(a.echoes, text[:i+len(marker)])
}

// maxEchoes bounds the echoes an agent's pump looks for.
const maxEchoes = 8

// sawLine is the pump's half of confirmation: a committed line with the
// expected marker. The hit is signalled under the lock it was judged by:
// signalled after it, a hit on one message's marker could land after
// expect moved on to the next message and confirm that one before its
// echo showed. Neither side blocks (markerHit holds one signal).
//
// It returns the line's text to read commands in. The kernel echoes a
// line typed into a program reading lines at the cursor, which may be
// inside an output line the program has not ended: even one written at
// once, whose text and newline the kernel writes apart. The first line
// showing a message's echo (expectEcho) is that echo; what stands before
// it there is the program's, and only that is read: `@relay:lead pong
// 1[relay #… from bob] ping 2` is the relay "pong 1". A later line
// showing it is the program's own (it quotes what it read), read whole.
func (a *agent) sawLine(text string) string {
	a.markerMu.Lock()
	defer a.markerMu.Unlock()
	if a.marker != "" && strings.Contains(text, a.marker) {
		select {
		case a.markerHit <- struct{}{}:
		default:
		}
	}
	for k, head := range a.echoes {
		if i := strings.Index(text, head); i >= 0 {
			a.echoes = slices.Delete(a.echoes, k, k+1)
			if i > 0 {
				return strings.TrimRight(text[:i], " ")
			}
			break
		}
	}
	return text
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
	tools := a.tools
	a.mu.Unlock()
	text := a.s.brief(a.cfg, tools)
	m, err := a.publishBrief(text)
	if err != nil {
		a.s.log.Error("publish brief", "agent", a.cfg.Name, "err", err)
		m = bus.Message{ID: "brief", From: "swarm", Body: text}
	}
	if text, err = a.render(m, canPaste(proc)); err != nil {
		a.briefTyped(m, gone, err.Error())
		return
	}
	res, reason := a.typeIn(proc, text, "#"+bus.ShortID(m.ID), func(bool) {})
	if res == taken {
		a.submitted()
	}
	a.briefTyped(m, res, reason)
}
