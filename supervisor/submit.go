package supervisor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"swarm/bus"
	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
	"swarm/textsafe"
)

// Typing a message into an agent's terminal so that the program takes it,
// and telling truthfully whether it did.
//
// The message is typed as a person would: its text (a multi-line body as
// one bracketed paste when the program asked for bracketed paste), then,
// once the text shows in the program's input and the profile's pause has
// passed, Enter on its own. A program reading lines (canonical mode) gets
// the line and Enter at once: the kernel edits it. It counts as taken when
// it has left the input: for a program reading lines, once it showed on
// the screen; for a composer (an agent CLI's input box, where the cursor
// is, as its screen model reads it), once the box no longer holds it;
// for other programs, once the cursor left the line it was typed on. Still in the input after Enter, it
// gets Enter again, never its text again; never seen taken, it is
// unconfirmed.

// maxTyped bounds a message typed in as text: a program reading lines
// takes 4,095 bytes of a line and drops the rest, and a paste of many
// kilobytes swamps an input box. A longer message is put in a file.
const maxTyped = 4000

// submitTries is how many times Enter is pressed for one message.
const submitTries = 3

// leftFor is how long a composer must show a message out of its box
// before it counts as taken.
const leftFor = 100 * time.Millisecond

// quietFrame is how long output must pause for the screen to show a
// finished frame, not one half drawn.
const quietFrame = 30 * time.Millisecond

// outcome is what became of a message typed in.
type outcome int

const (
	taken       outcome = iota // it left the program's input
	unconfirmed                // no sign that the program took it
	gone                       // the process exited, or swarm is stopping
)

// header is the start of a message as typed: its id lets the recipient
// tell a repeat and swarm confirm it.
func header(m bus.Message) string {
	return fmt.Sprintf("[relay #%s from %s] ", bus.ShortID(m.ID), m.From)
}

// render returns what is typed for m: the header and the body, made safe
// to type (textsafe: no control characters, no tab, no bidi controls), and every body line that could read as a
// header or a relay command escaped; a multi-line body as one paste when
// bracketed (canPaste), else as one line, its lines joined with ⏎. A body
// too long to type is written to a file under the swarm's directory and
// named instead. A shell gets what typedtext.go says.
func (a *agent) render(m bus.Message, bracketed bool) (string, error) {
	if a.profile.Shell {
		return a.renderShell(m)
	}
	lines := strings.Split(textsafe.Body(m.Body), "\n")
	for i := range lines {
		lines[i] = escapeBodyLine(lines[i], i == 0)
	}
	head := header(m)
	if len(lines) == 1 || !bracketed {
		parts := lines[:0]
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" {
				parts = append(parts, l)
			}
		}
		text := head + strings.Join(parts, " ⏎ ")
		if len(text) <= maxTyped {
			return text, nil
		}
	} else if text := head + string(spawner.PasteBytes(strings.Join(lines, "\r"))); len(text) <= maxTyped {
		return text, nil
	}
	ref, err := a.longBodyRef(m)
	if err != nil {
		return "", err
	}
	return head + ref, nil
}

// escapeBodyLine keeps a line of a body from reading as swarm's header or
// a relay command once it starts a line on the recipient's screen: a
// leading `[relay #` gets a backslash, as the parser's escape does for
// commands. The first line follows the header, so only a header is
// escaped there.
func escapeBodyLine(l string, first bool) string {
	t := strings.TrimLeft(l, " \t")
	if strings.HasPrefix(t, "[relay #") {
		return l[:len(l)-len(t)] + `\` + t
	}
	if first {
		return l
	}
	return parser.EscapeLine(l)
}

// writeMessageFile writes m's body, control characters removed, to
// .swarm/messages/<id>.txt (private to the user; never through a link out
// of the bus directory) and returns its path. Each write has a temporary
// file of its own: the injectors of a broadcast's recipients write the
// same message at once.
func (s *Supervisor) writeMessageFile(m bus.Message) (string, error) {
	path, err := s.bus.WriteFile("messages/"+m.ID+".txt", []byte(textsafe.Body(m.Body)+"\n"))
	if err != nil {
		return "", fmt.Errorf("message file: %w", err)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// typeIn types text (which holds marker) into proc and submits it; typed
// is called once the text is written, told whether what will confirm it
// is not the program's doing — the kernel's echo of a line, or no check
// at all — so that it says nothing of the program having read it. The
// reason says why a message is unconfirmed.
func (a *agent) typeIn(proc *spawner.Process, text, marker string, typed func(unsure bool)) (outcome, string) {
	lineMode, err := proc.LineMode()
	if err != nil {
		return gone, ""
	}
	patience := a.patience()
	if lineMode || !a.cfg.Confirm {
		if lineMode {
			a.expectEcho(text, marker)
		}
		if !a.write(proc, text+"\r") {
			return gone, ""
		}
		typed(true)
		if !a.cfg.Confirm {
			return taken, ""
		}
		// The kernel echoes the line as it takes it; a busy machine may
		// take seconds to show the echo.
		switch a.waitUntil(proc, patience, func() bool { return a.shows(proc, marker) }) {
		case condMet:
			return taken, ""
		case condGone:
			return gone, ""
		}
		return unconfirmed, "it never showed on its screen"
	}

	if !a.write(proc, text) {
		return gone, ""
	}
	typed(false)
	inInput := func() bool { return inText(a.input(proc), marker) }
	switch a.waitUntil(proc, patience, inInput) {
	case condGone:
		return gone, ""
	case condTimedOut:
		switch res, why := a.pressEnter(proc); res {
		case taken:
			return unconfirmed, "it never showed in its input"
		case unconfirmed:
			return unconfirmed, "it never showed in its input, and " + why
		}
		return gone, ""
	}
	if !a.pause(proc, a.profile.SubmitDelay) {
		return gone, ""
	}
	// Left: for a program with an input box, its model reads the box
	// again (a prompt, or a turn the message started) without the
	// message, the message shows on the screen (in the transcript, or
	// the program's queue, then), and all of it still holds a moment
	// later: a CLI may park the cursor elsewhere while it draws.
	left := func() bool { return settled(proc) && !inInput() }
	if a.model.Input != nil {
		var since time.Time
		left = func() bool {
			if !settled(proc) {
				return false // judged on whole frames only, a spinner's too
			}
			r := a.model.Read(frameOf(proc))
			shown := r.State == screenmodel.Prompt || r.State == screenmodel.Busy
			if !shown || inText(r.Input, marker) || !proc.Screen().Contains(marker) {
				since = time.Time{}
				return false
			}
			if since.IsZero() {
				since = time.Now()
				a.s.log.Debug("out of the box", "agent", a.cfg.Name, "marker", marker, "screen", r.Screen, "input", r.Input)
			}
			return time.Since(since) >= leftFor
		}
	}
	for range submitTries {
		if res, why := a.pressEnter(proc); res != taken {
			return res, why
		}
		switch a.waitUntil(proc, patience/submitTries, left) {
		case condMet:
			return taken, ""
		case condGone:
			return gone, ""
		}
	}
	return unconfirmed, fmt.Sprintf("still in its input after Enter was pressed %d times", submitTries)
}

// pressEnter presses Enter into proc's input, if Enter goes to one now
// (entersInput): taken when pressed; unconfirmed, saying what shows
// instead, when not; gone with the process.
func (a *agent) pressEnter(proc *spawner.Process) (outcome, string) {
	if r, ok := a.entersInput(proc); !ok {
		return unconfirmed, "Enter was not pressed: " + r
	}
	if !a.write(proc, "\r") {
		return gone, ""
	}
	return taken, ""
}

// entersInput reports whether Enter pressed now goes to an input (a
// prompt, or a busy turn's): a program may replace its prompt with a
// question between the typing and Enter — Codex on a fresh HOME, still
// starting on a loaded machine, draws its prompt, then its sign-in
// picker, where Enter chooses "Sign in with ChatGPT". If not, it says
// what shows instead. A program without an input box is not told by
// its screen: Enter goes.
func (a *agent) entersInput(proc *spawner.Process) (string, bool) {
	if a.model.Input == nil {
		return "", true
	}
	a.awaitSettled(proc)
	r := a.look(proc)
	if r.State == screenmodel.Prompt || r.State == screenmodel.Busy {
		return "", true
	}
	if r.What != "" {
		return r.What, false
	}
	return "its screen is not an input", false
}

// patience is how long the program may take to show a message typed in,
// and to take it after Enter (shared by the tries).
func (a *agent) patience() time.Duration {
	if a.s.opts.Patience > 0 {
		return a.s.opts.Patience
	}
	return a.profile.Patience
}

// input returns what the program shows as its input: for a program with
// an input box, what its model reads there (before the cursor); else the
// line the cursor is on.
func (a *agent) input(proc *spawner.Process) string {
	if a.model.Input != nil {
		return a.model.Read(frameOf(proc)).Input
	}
	return proc.Screen().CursorLine()
}

// inText reports whether marker shows in text, which may have wrapped it
// over rows (blanks and borders between its pieces do not count).
func inText(text, marker string) bool {
	if strings.Contains(text, marker) {
		return true
	}
	return strings.Contains(spawner.RowKey(text), marker)
}

// shows reports whether marker shows on proc's screen or went by in a
// committed line since it was expected.
func (a *agent) shows(proc *spawner.Process, marker string) bool {
	select {
	case <-a.markerHit:
		return true
	default:
	}
	return proc.Screen().Contains(marker)
}

// settled reports whether proc's output has paused long enough for its
// screen to show a whole frame.
func settled(proc *spawner.Process) bool {
	return time.Since(proc.LastOutput()) >= quietFrame
}

// write writes s to proc; false when the process or the agent is gone.
func (a *agent) write(proc *spawner.Process, s string) bool {
	err := proc.WriteContext(a.ctx, []byte(s))
	if err != nil && !errors.Is(err, spawner.ErrExited) && a.ctx.Err() == nil {
		a.s.log.Info("inject", "agent", a.cfg.Name, "err", err)
	}
	return err == nil
}

// pause waits d; false when the process or the agent is gone meanwhile.
func (a *agent) pause(proc *spawner.Process, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-proc.Exited():
	case <-a.ctx.Done():
	}
	return false
}

type waitResult int

const (
	condMet waitResult = iota
	condTimedOut
	condGone
)

// maxBehind bounds how many times its patience a wait gives a program
// whose screen is behind its output (linesBehind).
const maxBehind = 6

// stalled is how long a wait may find itself blocked, past the ticks that
// wake it every quietFrame, before it takes the gap for swarm not running
// (stopped with SIGSTOP, a paused VM or container, a starved machine)
// rather than for the program's silence.
const stalled = time.Second

// waitUntil checks cond whenever proc writes, and every few milliseconds,
// for at most d — more (up to maxBehind times d) while proc's screen is
// behind what it wrote, and d again after. A deadline that passed while
// swarm itself did not run gives d again: what the program wrote meanwhile
// waits, unread, in its terminal. A process that exited cleanly after cond
// held counts (a program may end right after reading its last message);
// one that crashed proves nothing.
func (a *agent) waitUntil(proc *spawner.Process, d time.Duration, cond func() bool) waitResult {
	start := time.Now()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(quietFrame)
	defer tick.Stop()
	for {
		if cond() {
			return condMet
		}
		blocked := time.Now()
		select {
		case <-a.outputSeen:
		case <-tick.C:
		case <-proc.Exited():
			_, _ = proc.Wait() // its last output is on the screen then
			if st, _ := proc.Wait(); st.Success() && cond() {
				return condMet
			}
			return condGone
		case <-deadline.C:
			if cond() {
				return condMet
			}
			if time.Since(blocked) > stalled {
				deadline.Reset(d) // as below: swarm was away
				continue
			}
			if a.linesBehind.Load() > 0 && time.Since(start) < maxBehind*d {
				// Its output waits for the pump (a burst of messages it
				// sent is being stored): the screen shows none of what it
				// wrote since, the message's echo perhaps included. It
				// gets its patience again.
				deadline.Reset(d)
				continue
			}
			return condTimedOut
		case <-a.ctx.Done():
			return condGone
		}
		if time.Since(blocked) > stalled {
			// The ticker did not wake this wait: swarm was not running,
			// and has read none of what the program wrote since.
			deadline.Reset(d)
		}
	}
}
