package spawner

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// panicOn makes the model of every containing screen panic on a write that
// holds marker, for the rest of the test (FaultForTest). The markers are
// the tests' own: no other test's output holds them.
func panicOn(t *testing.T, marker string) {
	f := func(p []byte) {
		if bytes.Contains(p, []byte(marker)) {
			panic("test: the model fails on " + marker)
		}
	}
	FaultForTest.Store(&f)
	t.Cleanup(func() { FaultForTest.Store(nil) })
}

// faults counts what OnFault was told.
type faults struct {
	mu   sync.Mutex
	told []Fault
}

func (f *faults) add(x Fault) { f.mu.Lock(); f.told = append(f.told, x); f.mu.Unlock() }
func (f *faults) n() int      { f.mu.Lock(); defer f.mu.Unlock(); return len(f.told) }

// TestAPanicOfTheScreenStaysInIt: a program whose screen's model panics
// on its output runs on. Its pane goes on showing what it prints, and it
// still reads what is typed and resizes; the panic is told once, with its
// stack; no line is committed from then on (none of the chunk that
// panicked, none after); its exit is waited for as ever.
func TestAPanicOfTheScreenStaysInIt(t *testing.T) {
	panicOn(t, "BOOM-contained")
	var log lineLog
	var told faults
	script := `echo before; while read l; do case $l in quit) exit 3;; esac; echo "got $l"; done`
	p := start(t, Options{Argv: []string{"sh", "-c", script}, OnFault: told.add}, &log)
	eventually(t, "the first line", func() bool { return log.has("before") })
	if err := p.Write([]byte("BOOM-contained\n")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fault told", func() bool { return told.n() == 1 })
	f := p.Screen().Fault()
	if f == nil || !strings.Contains(f.String(), "the model fails on BOOM-contained at swarm/spawner.panicOn.func1 (contain_test.go:") || !strings.Contains(string(f.Stack), "contain_test.go") {
		t.Fatalf("fault %+v: want the panic's value and stack", f)
	}
	if f.Emulator {
		t.Errorf("the emulator was started afresh for a panic of the line tracking")
	}
	// The program reads on; the pane shows what it prints.
	for _, l := range []string{"after", "BOOM-contained again"} {
		if err := p.Write([]byte(l + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "its output on the pane", func() bool {
		return p.Screen().Contains("got after") && p.Screen().Contains("got BOOM-contained again")
	})
	if !p.Screen().Contains("before") {
		t.Errorf("the pane lost what it showed before the panic:\n%s", strings.Join(p.Screen().Snapshot().Lines, "\n"))
	}
	if err := p.Resize(30, 100); err != nil {
		t.Fatal(err)
	}
	if r, c := p.Screen().Size(); r != 30 || c != 100 {
		t.Errorf("size %dx%d after the resize, want 30x100", r, c)
	}
	if err := p.Write([]byte("quit\n")); err != nil {
		t.Fatal(err)
	}
	if st := waitDone(t, p); st.Code != 3 {
		t.Errorf("status %v, want exit code 3", st)
	}
	if got := log.texts(); len(got) != 1 || got[0] != "before" {
		t.Errorf("lines %q, want only the one before the panic", got)
	}
	if n := told.n(); n != 1 {
		t.Errorf("told %d times, want once", n)
	}
}

// TestAPanicOfTheEmulatorStartsItAfresh: a panic with x/vt at work (here
// a callback of its, on a title) leaves the emulator suspect: a fresh one
// takes over, showing the rows the screen showed, the alternate screen's
// over the main screen's, and goes on with the output; a second panic is
// contained too and not told again.
func TestAPanicOfTheEmulatorStartsItAfresh(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 40})
	defer s.Close()
	var told faults
	s.contain, s.onFault = true, told.add
	failOnTitle := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.active().SetCallbacks(vt.Callbacks{Title: func(string) { panic("test: the emulator fails") }})
	}
	_, _ = s.Write([]byte("main row\r\n\x1b[?1049h\x1b[2;3Halt row"))
	failOnTitle()
	_, _ = s.Write([]byte("\x1b]0;t\x07lost"))
	f := s.Fault()
	if f == nil || !f.Emulator || told.n() != 1 {
		t.Fatalf("fault %+v, told %d times: want one, of the emulator", f, told.n())
	}
	snap := s.Snapshot()
	if !snap.AltScreen || snap.Lines[1] != "  alt row" || snap.Cursor != (Cursor{X: 9, Y: 1}) {
		t.Fatalf("afresh, the screen shows %q (alternate %v, cursor %v); want the alternate screen's rows and cursor", snap.Lines, snap.AltScreen, snap.Cursor)
	}
	_, _ = s.Write([]byte(" more\x1b[?1049l"))
	if snap := s.Snapshot(); snap.AltScreen || snap.Lines[0] != "main row" {
		t.Fatalf("back on the main screen, it shows %q (alternate %v)", snap.Lines, snap.AltScreen)
	}
	failOnTitle()
	_, _ = s.Write([]byte("\x1b]0;t\x07"))
	_, _ = s.Write([]byte("\r\nstill here"))
	if !s.Contains("still here") || told.n() != 1 {
		t.Fatalf("after a second panic: shows %q, told %d times", s.Snapshot().Lines, told.n())
	}
	before := s.ScrollbackLen()
	_, _ = s.Write([]byte(strings.Repeat("scrolled\r\n", 10)))
	if n := s.ScrollbackLen(); n < before+5 || !strings.Contains(s.Text(0, n+5), "still here") {
		t.Errorf("scrollback %d rows after 10 lines (%d before), with %q", n, before, s.Text(0, n+5))
	}
	if lines := append(s.TakeLines(), append(s.Settle(), s.Flush()...)...); len(lines) != 0 {
		t.Errorf("lines committed after the panic: %v", lines)
	}
}

// TestAPanicOnTheAlternateScreenKeepsBothScreens: a panic of the model
// while the program draws on the alternate screen (two emulators in use)
// starts a fresh one that holds both screens as they were.
func TestAPanicOnTheAlternateScreenKeepsBothScreens(t *testing.T) {
	panicOn(t, "BOOM-alt")
	s := NewScreen(ScreenOptions{Rows: 5, Cols: 30})
	defer s.Close()
	s.contain = true
	_, _ = s.Write([]byte("shell prompt $ vim\r\n\x1b[?1049h\x1b[Hfile text"))
	_, _ = s.Write([]byte("BOOM-alt"))
	if f := s.Fault(); f == nil || !f.Emulator {
		t.Fatalf("fault %+v: want one, with the emulator afresh", f)
	}
	if snap := s.Snapshot(); !snap.AltScreen || snap.Lines[0] != "file text" {
		t.Fatalf("shows %q (alternate %v)", snap.Lines, snap.AltScreen)
	}
	_, _ = s.Write([]byte("\x1b[?1049l"))
	if snap := s.Snapshot(); snap.AltScreen || snap.Lines[0] != "shell prompt $ vim" {
		t.Fatalf("back on the main screen, it shows %q (alternate %v)", snap.Lines, snap.AltScreen)
	}
}

// TestAPanicOutsideAProcessIsNotContained: a screen without a process
// (a replay, a fuzz run, corpus scoring) lets a panic through, its lock
// released: there it is a bug to see, not to hide.
func TestAPanicOutsideAProcessIsNotContained(t *testing.T) {
	s := NewScreen(ScreenOptions{})
	defer s.Close()
	s.main.SetCallbacks(vt.Callbacks{Title: func(string) { panic("test: a replay's panic") }})
	func() {
		defer func() {
			if r := recover(); r != "test: a replay's panic" {
				t.Fatalf("recovered %v, want the panic", r)
			}
		}()
		_, _ = s.Write([]byte("\x1b]0;t\x07"))
	}()
	if s.Fault() != nil {
		t.Error("a fault recorded by a screen that does not contain")
	}
}
