package supervisor

import (
	"time"

	"swarm/bus"
	"swarm/screenmodel"
	"swarm/spawner"
)

// What an agent's program shows, as the screen model of its kind reads it
// (package screenmodel): its prompt, a busy turn, a dialog, its shell
// mode, or something unknown. The injector looks before it types
// anything (mayType is the one rule); between messages it keeps looking
// while the output changes, so that the agent's status words follow the
// screen: an agent CLI's is working while busy and idle at its prompt (a
// turn ended by Esc, which runs no hook, included); any agent's is
// needs-human at a dialog — and at an unknown screen while something
// waits to be typed — once it has shown for needsYouGrace.

// needsYouGrace is how long a dialog, or an unknown screen that holds a
// message back, shows before the agent is listed as needing the person:
// a program passes through screens while it starts and redraws.
const needsYouGrace = 3 * time.Second

// turnEndGrace is how long a prompt must show, after a turn was said to
// be working, before the turn counts as ended: a CLI shows its prompt for
// a moment before its spinner.
const turnEndGrace = 2 * time.Second

// lookEvery is how often the injector looks at a running agent's screen
// when its output has changed.
const lookEvery = 250 * time.Millisecond

// frameOf is what the screen model reads of a process's terminal.
func frameOf(proc *spawner.Process) screenmodel.Frame {
	snap := proc.Screen().Snapshot()
	lineMode, _ := proc.LineMode()
	return screenmodel.Frame{
		Rows: snap.Lines, CursorRow: snap.Cursor.Y, CursorCol: snap.Cursor.X,
		CursorVisible: snap.CursorVisible, AltScreen: snap.AltScreen, LineMode: lineMode,
	}
}

// look reads what proc shows now and remembers it.
func (a *agent) look(proc *spawner.Process) screenmodel.Reading {
	var f screenmodel.Frame
	if a.model.ModeOnly {
		f.LineMode, _ = proc.LineMode() // its rows are not read: not copied
	} else {
		f = frameOf(proc)
	}
	r := a.model.Read(f)
	if r.State == screenmodel.ShellMode && a.profile.Shell {
		// A shell's own prompt is its prompt, not a CLI's shell mode:
		// a shell told to take messages gets each as a comment line that
		// runs nothing (typedtext.go); one that takes none gets none.
		r.State, r.What, r.TakesInput = screenmodel.Prompt, "", true
	}
	now := time.Now()
	a.mu.Lock()
	if a.proc == proc && (a.shown.State != r.State || a.shown.What != r.What) {
		a.shown = ScreenState{State: r.State, What: r.What, Since: now}
		if r.State == screenmodel.Prompt || r.State == screenmodel.Busy || r.State == screenmodel.ShellMode {
			a.reachedPrompt = true
		}
	}
	a.mu.Unlock()
	return r
}

// mayType is the one rule for typing into an agent: a message goes into a
// prompt, and into a busy program whose own queue takes it; nothing is
// typed into a dialog, the program's shell mode or a screen its model does
// not know.
func mayType(r screenmodel.Reading) bool {
	return r.TakesInput && (r.State == screenmodel.Prompt || r.State == screenmodel.Busy)
}

// observe looks at proc's screen when its output changed since the last
// look (or a grace may have passed) and brings the agent's turn in line
// with it. waiting says whether something waits to be typed into it. It
// returns whether it could look (the screen settled).
func (a *agent) observe(proc *spawner.Process, waiting bool) bool {
	if proc.LastOutput().IsZero() || !a.model.ModeOnly && !a.awaitSettled(proc) {
		return false
	}
	r := a.look(proc)
	now := time.Now()
	a.mu.Lock()
	if a.proc != proc {
		a.mu.Unlock()
		return true
	}
	shown, t := a.shown, a.turn
	a.mu.Unlock()
	next, change := t, false
	// A program without an input box (a line reader, a shell) says
	// nothing of turns by its prompt: only what holds messages back
	// counts.
	cli := a.model.Input != nil
	switch {
	case r.State == screenmodel.Dialog, r.State == screenmodel.Unknown && waiting:
		if now.Sub(shown.Since) >= needsYouGrace && (t.Status != bus.StatusNeedsHuman || t.Note != r.What) {
			next, change = Turn{Status: bus.StatusNeedsHuman, Hook: "screen", Note: r.What, At: now}, true
		}
	case !cli:
	case r.State == screenmodel.Busy:
		if t.Status != bus.StatusWorking || !t.Known() {
			next, change = Turn{Status: bus.StatusWorking, Hook: "screen", At: now}, true
		}
	case r.State == screenmodel.Prompt:
		// A turn said working ends when the prompt has shown a while with
		// no spinner (Esc runs no hook); what the screen said waits for
		// the person ends as soon as the prompt is back.
		since := shown.Since
		if t.At.After(since) {
			since = t.At
		}
		ended := t.Status == bus.StatusWorking && now.Sub(since) >= turnEndGrace
		if !t.Known() || ended || t.Status == bus.StatusNeedsHuman && t.Hook == "screen" {
			next, change = Turn{Status: bus.StatusIdle, Hook: "screen", At: now}, true
		}
	}
	if change {
		a.setTurn(next)
	}
	if mayType(r) && waiting {
		a.poke()
	}
	return true
}

// graceRuns says whether what the agent shows will mean something else
// after a grace: a prompt after a turn said working (its end), a dialog
// not yet on the "needs you" list. a.mu is held.
func (a *agent) graceRuns() bool {
	switch a.shown.State {
	case screenmodel.Prompt:
		return a.turn.Status == bus.StatusWorking
	case screenmodel.Dialog:
		return a.turn.Status != bus.StatusNeedsHuman || a.turn.Note != a.shown.What
	}
	return false
}

// awaitSettled waits a little for proc's screen to show a whole frame: a
// spinner redraws many times a second, with short pauses between.
func (a *agent) awaitSettled(proc *spawner.Process) bool {
	deadline := time.Now().Add(settleWait)
	for !settled(proc) {
		if time.Now().After(deadline) || a.ctx.Err() != nil {
			return false
		}
		time.Sleep(quietFrame / 6)
	}
	return true
}

// settleWait bounds awaitSettled.
const settleWait = 200 * time.Millisecond

// setTurn makes t the agent's turn: recorded on the bus for `swarm
// status`, told to the UIs, and an idle agent gets what waits for it.
func (a *agent) setTurn(t Turn) {
	a.mu.Lock()
	if a.proc == nil {
		if a.state == StateStarting {
			a.earlyTurn = t
		}
		a.mu.Unlock()
		return
	}
	a.turn = t
	a.mu.Unlock()
	a.lookSoon() // a grace may run from now (graceRuns)
	ctx := a.publishCtx()
	hb := bus.Heartbeat{Agent: a.cfg.Name, Status: t.Status, Note: t.Note, Time: t.At}
	if cur, err := a.s.bus.CurrentTask(ctx, a.cfg.Name); err == nil {
		hb.Task = cur.ID
	}
	if err := a.s.bus.Beat(ctx, hb); err != nil {
		a.s.log.Warn("record turn", "agent", a.cfg.Name, "err", err)
	}
	a.s.hub.emit(Event{Kind: EventTurn, Agent: a.cfg.Name, Text: t.String()})
	if t.Status == bus.StatusIdle {
		a.poke()
	}
}
