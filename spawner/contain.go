package spawner

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	uv "github.com/charmbracelet/ultraviolet"
)

// Containment: the screen model (the emulator and the line tracking
// around it: lines, frames, boxes, glimpses, reflow, replay) is thousands
// of lines of rules that have panicked before on output nobody had seen.
// A Process's screen is used from its output goroutine and from whoever
// reads or resizes it (a UI, the supervisor's delivery), and every one of
// those calls can reach the model (a read first feeds a character held
// back). A panic there must not end the program that runs every agent: it
// is contained in the screen, here, in one place.
//
// Every exported method of Screen holds s.mu through its body and releases
// it with `defer s.leave()`. For a screen that contains (a Process's:
// Start sets contain), leave recovers a panic and the screen goes plain
// for good (fail):
//
//   - no line is committed again: TakeLines, Settle and Flush return
//     nothing, and the lines committed but not yet taken are dropped (the
//     call that panicked may have left them half read). A reader of the
//     lines (the relay) reads nothing more of this run of the program.
//   - the output goes on to a terminal emulator alone (x/vt, which every
//     terminal rule of the model already defers to), raw: the pane keeps
//     showing the program, the rows it scrolls off go on into the
//     scrollback, keys and resizes reach it. The emulator is the one the
//     screen had when the program was on the main screen and x/vt was not
//     at work when it panicked; else (x/vt itself failed, or two
//     emulators were in use) a fresh one of the same size, started with
//     the rows the screen showed and the cursor where it was — its modes
//     and pen start anew, so the program may look off until it draws
//     again (Fault.Emulator says so).
//   - the fault is told once (ScreenOptions are not involved: the
//     Process's Options.OnFault), outside the lock, by the goroutine that
//     hit it, with the panic value and its stack.
//
// A panic in plain mode (x/vt again) is contained the same way, with a
// fresh emulator, and not told again. Screens without a Process (replays,
// tests, fuzzing, corpus scoring) do not contain: a panic there is a bug
// to see.

// Fault is a panic of a screen's model, contained (see contain.go).
type Fault struct {
	// Value is what the panic was called with; Stack the goroutine's stack
	// where it was recovered (the panic's frames included).
	Value any
	Stack []byte
	// Emulator says the terminal emulator was started afresh (it was at
	// work when the panic came, or the program was on the alternate
	// screen): the pane shows what the screen showed then as plain rows,
	// and the program's output from then on.
	Emulator bool
}

// String is the fault in a line: the panic value and where it came from.
func (f Fault) String() string {
	s := fmt.Sprint(f.Value)
	if at := panicSite(f.Stack); at != "" {
		s += " at " + at
	}
	return s
}

// panicSite is the function the stack shows right after the panic's own
// frames, with its file and line: where the panic happened.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") || i+2 >= len(lines) {
			continue
		}
		// Runtime helpers (an index out of range) come first.
		for j := i + 2; j+1 < len(lines); j += 2 {
			fn := lines[j]
			if strings.HasPrefix(fn, "runtime.") {
				continue
			}
			if k := strings.LastIndexByte(fn, '('); k > 0 {
				fn = fn[:k]
			}
			file := strings.TrimSpace(lines[j+1])
			if k := strings.LastIndexByte(file, ' '); k > 0 {
				file = file[:k] // the frame's offset
			}
			if k := strings.LastIndexByte(file, '/'); k >= 0 {
				file = file[k+1:]
			}
			return fn + " (" + file + ")"
		}
	}
	return ""
}

// FaultForTest, when a test sets it, is called with each write a
// containing screen's model takes, inside the model: a test makes the
// model panic there to see the panic contained. Nothing else sets it.
var FaultForTest atomic.Pointer[func(p []byte)]

// Fault returns the panic the screen contained, nil if none.
func (s *Screen) Fault() *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault == nil {
		return nil
	}
	f := *s.fault
	return &f
}

// leave ends a call of an exported method: it unlocks s.mu, first
// containing a panic of the model if the screen contains. It must be
// deferred right after s.mu.Lock (recover works only so).
func (s *Screen) leave() {
	var told *Fault
	if s.contain {
		if r := recover(); r != nil {
			told = s.fail(r, debug.Stack(), emulatorAtWork())
		}
	}
	onFault := s.onFault
	s.mu.Unlock()
	if told != nil && onFault != nil {
		onFault(*told)
	}
}

// emulatorAtWork says whether the panicking stack goes through x/vt: the
// emulator was in the middle of something, and may be left half done.
// Called in the deferred leave, whose callers are the panic's frames.
func emulatorAtWork() bool {
	pc := make([]uintptr, 256)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/charmbracelet/x/vt.") {
			return true
		}
		if !more {
			return false
		}
	}
}

// fail makes the screen plain after a panic (see above) and returns the
// fault to tell, nil if one was told already. s.mu is held. It runs in
// the deferred leave, where a panic would go through: what it does with
// the old emulators, which may be broken, is tried (try).
func (s *Screen) fail(r any, stack []byte, emulator bool) *Fault {
	var told *Fault
	if s.fault == nil {
		s.fault = &Fault{Value: r, Stack: stack}
		told = s.fault
	}
	wasPlain := s.plain
	s.plain = true
	s.deferred = nil
	// The character the feeder held back (a combining mark may follow it)
	// goes on raw too.
	held := s.hold
	s.hold = nil
	kept := !emulator && !wasPlain && s.alt.em == nil && try(func() {
		// The emulator is sound: it goes on alone, its callbacks no longer
		// calling into the line tracking.
		s.main.SetCallbacks(s.callbacks(true))
		if s.main.Width() != s.cols || s.main.Height() != s.rows {
			s.main.Resize(s.cols, s.rows) // it panicked in a resize
		}
		s.main.SetScrollbackSize(queueRows(s.rows))
		s.harvestPlain()
		s.writePlain(held)
	})
	if !kept {
		s.fresh()
		if !wasPlain {
			s.fault.Emulator = true
		}
		try(func() { s.writePlain(held) })
	}
	if told != nil {
		f := *told
		return &f
	}
	return nil
}

// try runs f and says whether it ended without a panic.
func try(f func()) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	f()
	return true
}

// fresh replaces the screen's emulators with a new one of the screen's
// size that shows what they showed: the main screen's rows, the alternate
// screen's over them when the program was there, the cursor. What cannot
// be read of them (the reading panics too) is left blank.
func (s *Screen) fresh() {
	oldMain, oldAlt := s.main, s.alt.em
	hidden := s.cursorHidden()
	e, pipe := s.newEmulator(true)
	try(func() {
		var b []byte
		rows := func(src interface {
			Line(int) uv.Line
		}) {
			for y := range s.rows {
				b = append(b, "\x1b["+strconv.Itoa(y+1)+";1H"...)
				b = appendRow(b, src.Line(y), s.cols)
				b = append(b, "\x1b[0m"...)
			}
		}
		rows(oldMain)
		cur := oldMain.CursorPosition()
		if oldAlt != nil {
			b = append(b, "\x1b[?1049h"...)
			rows(oldAlt)
			cur = oldAlt.CursorPosition()
		}
		b = append(b, "\x1b["+strconv.Itoa(cur.Y+1)+";"+strconv.Itoa(cur.X+1)+"H"...)
		if hidden {
			b = append(b, "\x1b[?25l"...)
		}
		if s.bracketedPaste {
			b = append(b, "\x1b[?2004h"...)
		}
		_, _ = e.Write(b)
	})
	for _, p := range []io.Closer{s.mainPipe, s.altPipe} {
		if p != nil {
			_ = p.Close() // their copy goroutines end
		}
	}
	if s.closed {
		_ = pipe.Close() // nothing to answer: the program has ended, Close waited for the rest
	}
	s.main, s.mainPipe = e, pipe
	s.alt.em, s.altPipe = nil, nil
	s.main.Scrollback().Clear() // the rows shown are on the screen, not scrolled off
}

// writePlain feeds output to a plain screen's emulator, raw, in pieces
// small enough that the rows one piece scrolls off fit x/vt's queue
// (queueRows); they go on into the scrollback.
func (s *Screen) writePlain(p []byte) {
	for len(p) > 0 {
		n := min(len(p), maxSegment)
		_, _ = s.main.Write(p[:n])
		s.harvestPlain()
		p = p[n:]
	}
}

// resizePlain resizes a plain screen's emulator: no reflow, the program
// draws again for the new size.
func (s *Screen) resizePlain(rows, cols int) {
	s.rows, s.cols = rows, cols
	s.main.Resize(cols, rows)
	s.main.SetScrollbackSize(queueRows(rows))
	s.harvestPlain()
}

// harvestPlain moves the rows x/vt pushed off a plain screen into the
// scrollback the UI shows.
func (s *Screen) harvestPlain() {
	sb := s.main.Scrollback()
	for _, l := range sb.Lines() {
		s.rowBuf = appendText(s.rowBuf[:0], l, s.cols)
		s.keep(l, string(s.rowBuf), true, nil)
	}
	sb.Clear()
}

// onAlt says whether the program draws on the alternate screen.
func (s *Screen) onAlt() bool {
	return s.alt.em != nil || s.plain && s.main.IsAltScreen()
}
