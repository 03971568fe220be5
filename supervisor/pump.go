package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"swarm/bus"
	"swarm/games"
	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
	"swarm/textsafe"
)

// logFlushAfter is how long what an agent printed may wait in memory
// before it is written to its output log.
const logFlushAfter = 200 * time.Millisecond

// pump turns one process's committed lines into published messages. It
// runs until the process has exited and every line it wrote is handled.
func (a *agent) pump(proc *spawner.Process, lines <-chan []spawner.Line, faults <-chan spawner.Fault) {
	r := newCommandReader(parser.Options{}, screenmodel.Of(a.profile.Kind))
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	defer flush.Stop()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	retrying := false
	tally := time.NewTimer(time.Hour)
	tally.Stop()
	defer tally.Stop()
	tallying := false
	logFlush := time.NewTimer(time.Hour)
	logFlush.Stop()
	defer logFlush.Stop()
	logArmed := false
	failed := func(f spawner.Fault) {
		// The screen panicked (screenFailed): the lines it gave before are
		// read, then what the reader holds of a block that will never end
		// is dropped — the screen gives no line again.
		for len(lines) > 0 {
			a.readLines(r, <-lines)
		}
		r = newCommandReader(parser.Options{}, screenmodel.Of(a.profile.Kind))
		flush.Stop()
		a.outLog.mark("%s: its screen failed and was contained: %s; what it prints is no longer read. The panic, for a bug report:\n%s", a.cfg.Name, f, f.Stack)
		a.outLog.flush() // no line comes to have it written (one that fails is tried again with the next)
	}
	for {
		if n := len(a.unsent.msgs); n > 0 && !retrying {
			retry.Reset(unsentRetry)
			retrying = true
		}
		if a.relayUntold > 0 && !tallying {
			tally.Reset(time.Until(a.relayWarned.Add(time.Second)))
			tallying = true
		}
		select {
		case batch := <-lines:
			a.readLines(r, batch)
			if r.pending() {
				flush.Reset(a.s.opts.FlushAfter)
			}
			if len(lines) == 0 && !logArmed {
				// Written out a moment after the agent pauses, not per
				// batch: a busy agent pauses between every few lines.
				logFlush.Reset(logFlushAfter)
				logArmed = true
			}
		case <-logFlush.C:
			logArmed = false
			if a.outLog.flush() { // a failed write waits for its retry
				logFlush.Reset(logRetry)
				logArmed = true
			}
		case f := <-faults:
			failed(f)
		case <-flush.C:
			a.handle(r.flush(false))
		case <-retry.C:
			retrying = false
			a.sendUnsent()
		case <-tally.C:
			tallying = false
			a.tellDropped()
		case <-proc.Done():
			for {
				select {
				case batch := <-lines:
					a.readLines(r, batch)
					continue
				default:
				}
				break
			}
			select {
			case f := <-faults: // told as the output ended
				failed(f)
			default:
			}
			a.handle(r.flush(true))
			if a.relayUntold > 0 {
				a.tellDropped()
			}
			a.drainUnsent()
			return
		}
	}
}

// screenFailed is told that the process's screen panicked and was
// contained (spawner.Options.OnFault), by whichever goroutine hit it: the
// process runs on and its pane shows its output, but nothing it prints is
// read from then on — its relay lines, and the echoes and markers read
// from them. Messages are still typed in: what readiness and confirmation
// read of its screen, the terminal emulator alone shows as faithfully (and
// an agent with swarm's MCP tools can still send). The person is told once
// (a notice, `swarm status`); the panic and its stack go to the agent's
// log by way of its pump (faults; after the pump has ended, only to
// swarm's own log) and to swarm's log. A new process (a restart) has a
// new screen.
func (a *agent) screenFailed(f spawner.Fault, faults chan<- spawner.Fault) {
	problem := "its screen failed: what it prints is not read for relaying; restart it to read it again"
	a.mu.Lock()
	a.screenErr = problem
	a.mu.Unlock()
	a.s.log.Error("agent screen panicked; contained", "agent", a.cfg.Name, "panic", f.String(), "stack", string(f.Stack))
	a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name,
		Text: fmt.Sprintf("its screen failed (%s): its pane goes on and messages are still typed in, but what it prints is no longer read for relaying; restart it to read it again (the panic is in its log)", textsafe.Line(f.String()))})
	select {
	case faults <- f:
	default:
	}
}

// readLines takes a batch of the agent's committed lines: seen, logged and
// read for what it says to others, as its profile's kind lays out its
// screen.
func (a *agent) readLines(r *commandReader, batch []spawner.Line) {
	defer a.linesBehind.Add(-1)
	for _, l := range batch {
		if !l.Again {
			// A row given again (spawner.Line.Again) was seen and
			// logged as it was read first.
			text := a.sawLine(l.Text)
			a.outLog.line(l.Text)
			l.Text = text // without an echo of swarm's inside it
		}
		a.handle(r.read(l))
	}
}

// publishCtx is for writes that must land even while the agent shuts
// down: the bus outlives the agents.
func (a *agent) publishCtx() context.Context { return context.WithoutCancel(a.ctx) }

func (a *agent) handle(events []parser.Event) {
	for _, ev := range events {
		if ev.Err != nil {
			a.notify(fmt.Sprintf("relay error: %s", ev.Err.Error()))
			continue
		}
		a.command(ev.Command)
	}
}

// notify tells this agent something through the bus (a notice from swarm)
// and tells the UIs too.
func (a *agent) notify(text string) {
	a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: text})
	_, err := a.s.bus.Publish(a.publishCtx(), bus.Message{From: "swarm", To: a.cfg.Name, Kind: bus.KindNotice, Body: text})
	if err != nil {
		a.s.log.Warn("publish notice", "agent", a.cfg.Name, "err", err)
	}
}

// allow takes a token from the agent's relay budget (Options.RelayRate
// and RelayBurst): enough for any conversation, not for a runaway loop such
// as `yes @relay:bob spam`, which would fill the bus (and every inbox) in
// seconds. What goes over is dropped and the agent is told. It runs on the
// pump.
func (a *agent) allow() bool {
	now := time.Now()
	rate, burst := float64(a.s.opts.RelayRate), float64(a.s.opts.RelayBurst)
	if a.relayAt.IsZero() {
		a.relayTokens = burst
	} else {
		a.relayTokens = min(burst, a.relayTokens+now.Sub(a.relayAt).Seconds()*rate)
	}
	a.relayAt = now
	if a.relayTokens >= 1 {
		a.relayTokens--
		return true
	}
	a.relayDropped++
	a.relayUntold++
	if now.Sub(a.relayWarned) >= time.Second {
		a.tellDropped()
	}
	return false
}

// tellDropped tells the agent how many of its relay commands the rate
// limit dropped since it was last told: at most once a second while they
// go over, and once more after the last (the pump's tally timer), so the
// counts told add up to all that were dropped.
func (a *agent) tellDropped() {
	a.relayWarned = time.Now()
	n := a.relayUntold
	a.relayUntold = 0
	a.notify(fmt.Sprintf("relay refused: more than %d messages a second; %d dropped since the last notice, %d in all",
		a.s.opts.RelayRate, n, a.relayDropped))
}

func (a *agent) command(c *parser.Command) {
	if !a.allow() {
		return
	}
	m := bus.Message{
		From: a.cfg.Name, To: c.To, Kind: bus.Kind(c.Type), Body: c.Body, Data: c.Data,
		Topic: c.Topic, CorrelationID: c.CorrelationID, InReplyTo: c.InReplyTo,
	}
	if m.Kind == "" {
		m.Kind = bus.KindMessage
	}
	if c.Kind == parser.KindThinking {
		m.Kind = bus.KindThinking
		m.LogOnly = !a.s.wantsThinking(c.To)
	}
	if c.To == a.cfg.Name {
		a.notify(fmt.Sprintf("relay refused: %s cannot send a message to itself", a.cfg.Name))
		return
	}
	if a.s.opts.Referee != nil && a.judge(&m) {
		return
	}
	a.publish(m)
}

// wantsThinking says whether @thinking messages to name are delivered.
func (s *Supervisor) wantsThinking(name string) bool {
	a, err := s.agent(name)
	return err == nil && a.cfg.Thinking
}

// judge lets the referee see a message between players. It returns true
// when it has handled the message (an illegal move is recorded but not
// delivered); false means publish it as usual.
func (a *agent) judge(m *bus.Message) bool {
	s := a.s
	v := s.opts.Referee.Judge(m.From, m.To, m.Body)
	if !v.Move {
		return false
	}
	ctx := a.publishCtx()
	if !v.Legal {
		m.LogOnly = true
		m.Kind = bus.KindGameIllegal
		if _, err := s.bus.Publish(ctx, *m); err != nil {
			s.log.Error("publish illegal move", "err", err)
		}
		a.notify(v.Reason)
		if s.updateGame(v, m.From) { // a forfeit
			s.announceResult(ctx, v.Result)
		}
		return true
	}
	s.pace(a.ctx)
	m.Kind = bus.KindGameMove
	if _, err := s.bus.Publish(ctx, *m); err != nil {
		s.log.Error("publish move", "err", err)
	}
	if s.updateGame(v, m.From) {
		s.announceResult(ctx, v.Result)
	}
	return true
}

// pace holds a move back until Options.Pace has passed since the last one,
// or until ctx ends (the mover is being stopped).
func (s *Supervisor) pace(ctx context.Context) {
	if s.opts.Pace <= 0 {
		return
	}
	s.mu.Lock()
	wait := time.Until(s.lastMove.Add(s.opts.Pace))
	s.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	s.mu.Lock()
	s.lastMove = time.Now()
	s.mu.Unlock()
}

// updateGame records a verdict in the game state and reports whether it
// ended the game (so the result is announced once).
func (s *Supervisor) updateGame(v games.Verdict, mover string) (ended bool) {
	s.mu.Lock()
	g := *s.game
	ended = v.Result.Over && !g.Result.Over
	g.Mover, g.Cell, g.Illegal = mover, v.Cell, ""
	if v.Legal {
		g.Board = v.Board
	} else {
		g.Illegal = v.Reason
	}
	g.Result = v.Result
	g.Turn = nextTurn(g.Board, g.Result)
	s.game = &g
	s.mu.Unlock()
	s.hub.emit(Event{Kind: EventGame, Agent: mover, Game: &g, Text: gameLine(g)})
	return ended
}

func nextTurn(b games.Board, r games.Result) games.Mark {
	if r.Over {
		return games.Empty
	}
	x, o := 0, 0
	for _, m := range b {
		switch m {
		case games.MarkX:
			x++
		case games.MarkO:
			o++
		}
	}
	if x > o {
		return games.MarkO
	}
	return games.MarkX
}

func gameLine(g GameState) string {
	switch {
	case g.Illegal != "":
		return fmt.Sprintf("%s refused: %s", g.Mover, g.Illegal)
	case g.Result.Over:
		return fmt.Sprintf("%s plays %d; game over: %s", g.Mover, g.Cell, g.Result)
	default:
		return fmt.Sprintf("%s plays %d", g.Mover, g.Cell)
	}
}

// announceResult records the result on the bus and tells both players.
func (s *Supervisor) announceResult(ctx context.Context, r games.Result) {
	s.mu.Lock()
	x, o := s.game.X, s.game.O
	s.mu.Unlock()
	body := games.GameOverNotice(r)
	data, _ := json.Marshal(struct {
		Winner string `json:"winner"`
		Line   [3]int `json:"line"`
		Draw   bool   `json:"draw"`
	}{winnerName(r, x, o), r.Line, r.Over && r.Winner == games.Empty})
	for _, to := range []string{x, o} {
		_, err := s.bus.Publish(ctx, bus.Message{From: "swarm", To: to, Kind: bus.KindGameResult, Body: body, Data: data})
		if err != nil {
			s.log.Error("publish result", "err", err)
		}
	}
}

func winnerName(r games.Result, x, o string) string {
	switch r.Winner {
	case games.MarkX:
		return x
	case games.MarkO:
		return o
	}
	return ""
}
