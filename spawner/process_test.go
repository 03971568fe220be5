package spawner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"swarm/internal/testrun"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// lineLog collects a process's committed lines.
type lineLog struct {
	mu    sync.Mutex
	lines []Line
}

func (l *lineLog) add(batch []Line) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, batch...)
}

func (l *lineLog) texts() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(l.lines))
	for i, x := range l.lines {
		out[i] = x.Text
	}
	return out
}

func (l *lineLog) has(text string) bool {
	for _, t := range l.texts() {
		if t == text {
			return true
		}
	}
	return false
}

// start runs argv and makes sure it is gone when the test ends.
func start(t *testing.T, opts Options, log *lineLog) *Process {
	t.Helper()
	if log != nil {
		opts.OnLines = log.add
	}
	p, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Stop(time.Second)
		waitGroupGone(t, p.Pid())
	})
	return p
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testrun.Within(t, testrun.Patience, what, cond)
}

func waitDone(t *testing.T, p *Process) ExitStatus {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(testrun.Patience):
		t.Fatal("process did not finish")
	}
	st, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// groupAlive reports whether any live (not zombie) process is in process
// group pgid.
func groupAlive(pgid int) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	eventually(t, fmt.Sprintf("process group %d to end", pgid), func() bool { return !groupAlive(pgid) })
}

func TestProcessLines(t *testing.T) {
	var log lineLog
	script := `printf 'plain\n\033[1;32m@relay:bob green\033[0m\n'
printf '10%%\r50%%\r100%%\n'
printf '\033[2K\033[1A\033[2K\033[G@relay:bob repainted\n'
printf 'no newline at exit'`
	p := start(t, Options{Argv: []string{"sh", "-c", script}}, &log)
	st := waitDone(t, p)
	if !st.Success() {
		t.Fatalf("status %v", st)
	}
	want := []string{"plain", "@relay:bob green", "100%", "@relay:bob repainted", "no newline at exit"}
	if diff := cmp.Diff(want, log.texts()); diff != "" {
		t.Fatalf("lines (-want +got):\n%s", diff)
	}
}

func TestProcessPythonRedraws(t *testing.T) {
	var log lineLog
	script := `
import sys, time
w = sys.stdout.write
for i in range(0, 101, 20):
    w("\rprogress %3d%%" % i); sys.stdout.flush(); time.sleep(0.01)
w("\n")
# an Ink-like region redrawn with the relay line moving down a row
frames = [["@relay:bob hi", "status"], ["thinking", "@relay:bob hi", "status"]]
prev = 0
for f in frames * 3:
    if prev:
        w("\x1b[2K" + "\x1b[1A\x1b[2K" * (prev - 1) + "\x1b[G")
    w("\n".join(f)); sys.stdout.flush(); time.sleep(0.01)
    prev = len(f)
w("\n\u4f60\u597d \U0001F44D\n")
`
	p := start(t, Options{Argv: []string{"python3", "-c", script}, Cols: 40}, &log)
	waitDone(t, p)
	relays := 0
	for _, l := range log.texts() {
		if l == "@relay:bob hi" {
			relays++
		}
	}
	if relays != 1 || !log.has("progress 100%") || !log.has("你好 👍") {
		t.Fatalf("lines %q: want one relay line, the final progress and the wide characters", log.texts())
	}
}

func TestProcessResize(t *testing.T) {
	var log lineLog
	p := start(t, Options{Argv: []string{"sh", "-c", "stty size; read x; stty size; read y"}, Rows: 24, Cols: 80}, &log)
	eventually(t, "first size", func() bool { return p.Screen().Contains("24 80") })
	if err := p.Resize(30, 100); err != nil {
		t.Fatal(err)
	}
	if r, c := p.Screen().Size(); r != 30 || c != 100 {
		t.Fatalf("screen %dx%d after resize", r, c)
	}
	if err := p.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "second size", func() bool { return log.has("30 100") })
	if err := p.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	if err := p.Resize(10, 10); !errors.Is(err, ErrExited) {
		t.Fatalf("resize after exit: %v", err)
	}
	// The screen a UI goes on showing gets the size.
	if r, c := p.Screen().Size(); r != 10 || c != 10 {
		t.Errorf("screen %dx%d after a resize after exit, want 10x10", r, c)
	}
}

func TestProcessStopKillsAfterGrace(t *testing.T) {
	p := start(t, Options{Argv: []string{"sh", "-c", `trap "" TERM HUP; echo ready; while :; do sleep 1; done`}}, nil)
	eventually(t, "ready", func() bool { return p.Screen().Contains("ready") })
	if err := p.Stop(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	st, _ := p.Wait()
	if st.Signal != syscall.SIGKILL || st.Code != -1 {
		t.Fatalf("status %v, want killed by SIGKILL", st)
	}
	waitGroupGone(t, p.Pid())
}

// A program that ignores SIGTERM (an interactive shell does) is hung up
// on, as tmux does to a pane it kills: stopping a shell's pane does not
// wait out the grace to kill it.
func TestProcessStopHangsUpOnAProgramThatIgnoresTerm(t *testing.T) {
	t.Parallel()
	// Each is stopped once it is ready, as an agent's shell sits at its
	// prompt: a bash hung up on while it still sets itself up can miss the
	// hang-up (its handler only raises a flag it may not look at again
	// before it blocks reading), and is then killed after the grace. Its
	// prompt on the screen is not enough: readline draws it, looks at that
	// flag, then waits for a key (pselect), and a loaded machine may stop
	// it in between; it is ready once it sleeps in that wait.
	for name, c := range map[string]struct {
		argv    []string
		ready   string
		waiting bool // ready only once it sleeps waiting for a key
	}{
		"interactive bash": {[]string{"bash", "--norc", "--noprofile", "-i"}, "bash-ready$", true},
		"sh trapping TERM": {[]string{"sh", "-c", `trap "" TERM; echo ready; while :; do sleep 1; done`}, "ready", false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := start(t, Options{Argv: c.argv, Env: []string{"PS1=bash-ready$ "}}, nil)
			eventually(t, "the program ready, ignoring SIGTERM", func() bool {
				return p.Screen().Contains(c.ready) && ignoresSignal(p.Pid(), syscall.SIGTERM) &&
					(!c.waiting || waitsForKeys(p.Pid()))
			})
			if err := p.Stop(testrun.Patience); err != nil {
				t.Fatal(err)
			}
			if st, _ := p.Wait(); st.Signal != syscall.SIGHUP {
				t.Fatalf("status %v, want ended by SIGHUP", st)
			}
		})
	}
}

// waitsForKeys reports whether process pid sleeps waiting for input: in
// select or poll (readline's wait for a key), or in a terminal's read.
// Where the kernel does not name the wait (/proc/PID/wchan "0"), only
// that it sleeps.
func waitsForKeys(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) == 0 || f[0] != "S" {
		return false
	}
	wchan, err := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
	if err != nil {
		return false
	}
	w := string(wchan)
	return w == "0" || strings.HasPrefix(w, "poll_schedule_timeout") || strings.HasPrefix(w, "do_select") ||
		strings.HasPrefix(w, "wait_woken") || strings.HasPrefix(w, "n_tty_read")
}

func TestProcessStopTerm(t *testing.T) {
	p := start(t, Options{Argv: []string{"sleep", "60"}}, nil)
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Wait(); st.Signal != syscall.SIGTERM {
		t.Fatalf("status %v, want SIGTERM", st)
	}
}

func TestProcessExitCodeAndSignal(t *testing.T) {
	p := start(t, Options{Argv: []string{"sh", "-c", "exit 3"}}, nil)
	if st := waitDone(t, p); st.Code != 3 || st.Signal != 0 || st.String() != "exit code 3" {
		t.Fatalf("status %+v %q", st, st)
	}
	// Not sh -c "echo up; sleep 60": dash run with -c catches SIGINT, and
	// one that comes between its commands is lost. A signal that comes
	// before sleep runs waits, blocked, until it does.
	p = start(t, Options{Argv: []string{"sleep", "60"}}, nil)
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if st := waitDone(t, p); st.Signal != syscall.SIGINT {
		t.Fatalf("status %v, want SIGINT", st)
	}
	if err := p.Signal(syscall.SIGINT); !errors.Is(err, ErrExited) {
		t.Fatalf("signal after exit: %v", err)
	}
}

func TestProcessTerminalQuery(t *testing.T) {
	var log lineLog
	script := `
import os, sys, termios, tty
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(1, b"\x1b[3;5H\x1b[6n")
r = b""
while not r.endswith(b"R"):
    r += os.read(fd, 1)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
print("\nreply=" + r[1:].decode())
`
	p := start(t, Options{Argv: []string{"python3", "-c", script}}, &log)
	waitDone(t, p)
	if !log.has("reply=[3;5R") {
		t.Fatalf("lines %q: the cursor position report did not arrive", log.texts())
	}
}

func TestProcessWritesDoNotInterleave(t *testing.T) {
	var log lineLog
	p := start(t, Options{Argv: []string{"sh", "-c", "stty -echo; echo ready; cat"}}, &log)
	eventually(t, "ready", func() bool { return log.has("ready") })
	const writers, each, size = 6, 15, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := []byte(strings.Repeat(string(rune('A'+w)), size) + "\r")
			for range each {
				if err := p.Write(msg); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	eventually(t, "all lines echoed", func() bool { return len(log.texts()) >= 1+writers*each })
	counts := map[byte]int{}
	for _, l := range log.texts()[1:] {
		if len(l) != size || strings.Count(l, l[:1]) != size {
			t.Fatalf("interleaved line %q", l)
		}
		counts[l[0]]++
	}
	for w := range writers {
		if c := counts[byte('A'+w)]; c != each {
			t.Fatalf("writer %c: %d lines, want %d", 'A'+w, c, each)
		}
	}
}

func TestProcessWriteContextCancel(t *testing.T) {
	// The program never reads: once the terminal's input buffer is full a
	// write blocks, and the context must still end the wait.
	p := start(t, Options{Argv: []string{"sh", "-c", "stty -icanon -echo; echo ready; sleep 60"}}, nil)
	eventually(t, "ready", func() bool { return p.Screen().Contains("ready") })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	big := []byte(strings.Repeat("x", 1<<20))
	if err := p.WriteContext(ctx, big); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("blocked write: %v", err)
	}
	// Queued behind it: cancelled before its turn.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := p.WriteContext(ctx2, []byte("y")); !errors.Is(err, context.Canceled) {
		t.Fatalf("queued write: %v", err)
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Write([]byte("z")); !errors.Is(err, ErrExited) {
		t.Fatalf("write after exit: %v", err)
	}
}

func TestProcessDeliversEverythingBeforeExit(t *testing.T) {
	var log lineLog
	p := start(t, Options{Argv: []string{"sh", "-c", `i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done; printf '@relay:bob last'`}}, &log)
	waitDone(t, p)
	got := log.texts()
	if len(got) != 2001 || got[0] != "line 0" || got[1999] != "line 1999" || got[2000] != "@relay:bob last" {
		t.Fatalf("%d lines, first %q, last %q", len(got), got[:min(3, len(got))], got[max(0, len(got)-2):])
	}
}

func TestProcessGroupEndsWithIt(t *testing.T) {
	p := start(t, Options{Argv: []string{"sh", "-c", "sleep 60 & echo started"}}, nil)
	waitDone(t, p)
	waitGroupGone(t, p.Pid())
}

func TestProcessEnvAndDir(t *testing.T) {
	var log lineLog
	dir := t.TempDir()
	p := start(t, Options{Argv: []string{"sh", "-c", `echo "$TERM $SWARM_TEST"; pwd`}, Env: []string{"SWARM_TEST=yes", "TERM=dumb"}, Dir: dir}, &log)
	waitDone(t, p)
	want := []string{"xterm-256color yes", dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		want[1] = real
	}
	if diff := cmp.Diff(want, log.texts()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Options{}); !errors.Is(err, ErrNoCommand) {
		t.Fatalf("no argv: %v", err)
	}
	_, err := Start(Options{Argv: []string{"/nonexistent/agent"}})
	if err == nil || !strings.HasPrefix(err.Error(), "start /nonexistent/agent: ") {
		t.Fatalf("missing program: %v", err)
	}
}

func TestProcessSettlesHeldLines(t *testing.T) {
	var log lineLog
	// An Ink-style frame, then the program waits: the held-back line is
	// committed once output is quiet, not only at exit.
	script := `printf '⠋\r\n> '; printf '\033[2K\033[1A\033[2K\033[G@relay:bob hi\r\n⠙\r\n> '; read x`
	p := start(t, Options{Argv: []string{"sh", "-c", script}, Settle: 50 * time.Millisecond}, &log)
	eventually(t, "the held-back line", func() bool { return log.has("@relay:bob hi") })
	select {
	case <-p.Done():
		t.Fatal("committed only at exit")
	default:
	}
	_ = p.Write([]byte("\r"))
	waitDone(t, p)
}

// TestNoGoroutinesLeft runs last in this file's order of declaration; it
// checks that finished processes and closed screens leave no goroutine of
// this package behind.
func TestNoGoroutinesLeft(t *testing.T) {
	p := start(t, Options{Argv: []string{"sh", "-c", "printf '\\033[6n'; echo bye"}}, nil)
	waitDone(t, p)
	s := NewScreen(ScreenOptions{})
	_, _ = s.Write([]byte("\x1b[?1049h\x1b[6n"))
	_ = s.Close()
	eventually(t, "goroutines to end", func() bool {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "swarm/spawner.") && !strings.Contains(g, "TestNoGoroutinesLeft") && !strings.Contains(g, "testing.tRunner") {
				return false
			}
		}
		return true
	})
}

func TestLineMode(t *testing.T) {
	t.Parallel()
	// cat reads lines as the kernel edits them; a program in raw mode
	// (shells with line editing, agent CLIs) reads keys.
	cat := start(t, Options{Argv: []string{"cat"}}, nil)
	raw := start(t, Options{Argv: []string{"python3", "-c",
		"import sys, tty; tty.setraw(0); print('raw', flush=True); sys.stdin.read(1)"}}, nil)
	eventually(t, "cat in line mode", func() bool { m, err := cat.LineMode(); return err == nil && m })
	eventually(t, "python in raw mode", func() bool {
		m, err := raw.LineMode()
		return err == nil && !m && raw.Screen().Contains("raw")
	})
}

// A program of the group that handles the stop's SIGTERM gets to finish
// what it does then, although the leader ends at once: it is not killed
// the moment the leader is reaped.
func TestProcessGroupGetsItsGraceWhenTheLeaderEndsFirst(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "saved")
	// The handler ignores the hang-up that follows (the leader's end hangs
	// the terminal up) so that its own work is not cut short by it.
	script := `(trap 'trap "" HUP TERM; sleep 0.2; echo done > "$1"; exit 0' TERM HUP; echo ready; while :; do sleep 0.05; done) & exec sleep 1000`
	p := start(t, Options{Argv: []string{"sh", "-c", script, "sh", saved}}, nil)
	eventually(t, "ready", func() bool { return p.Screen().Contains("ready") })
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Wait(); st.Signal != syscall.SIGTERM {
		t.Fatalf("leader's status %v, want ended by SIGTERM", st)
	}
	if b, err := os.ReadFile(saved); err != nil || string(b) != "done\n" {
		t.Fatalf("the group's SIGTERM handler did not finish: %q, %v", b, err)
	}
	waitGroupGone(t, p.Pid())
}

// What was typed into a program reading lines and echoed by the kernel,
// but never read, is still known once the program is dead: swarm holds
// the terminal's input queue (Unread). What it read is not in it.
func TestUnreadInputOutlivesTheProgram(t *testing.T) {
	t.Parallel()
	p := start(t, Options{Argv: []string{"sh", "-c", `echo ready; read l; echo "got $l"; exec sleep 1000`}}, nil)
	eventually(t, "ready", func() bool { return p.Screen().Contains("ready") })
	if err := p.Write([]byte("read #1\r")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first line read", func() bool { return p.Screen().Contains("got read #1") })
	if err := p.Write([]byte("never read #2\r")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the second line echoed", func() bool { return p.Screen().Contains("never read #2") })
	if err := syscall.Kill(-p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	if got, known := p.Unread(); !known || string(got) != "never read #2\n" {
		t.Fatalf("unread %q (known %t), want the second line", got, known)
	}
}

// The queue is the group's, not the leader's: a program the leader started
// may read a line after the leader died (it ignores the hang-up), and that
// line is read; one left for a program the group never had is not.
func TestUnreadInputIsWhatNoneOfTheGroupRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gone, got := filepath.Join(dir, "gone"), filepath.Join(dir, "got")
	if err := syscall.Mkfifo(gone, 0o600); err != nil {
		t.Fatal(err)
	}
	// The child says it is ready once it ignores the hang-up: a child not
	// yet at its trap when the leader died was ended by the hang-up (under
	// load), and read nothing. It waits on a FIFO, not by polling, so that
	// it reads well within the time the group gets after the leader's end.
	child := `trap '' HUP; echo ready; read go < "$1"; read l <&3; echo "$l" > "$2"`
	// (A command sh runs in the background reads /dev/null on its stdin.)
	script := `exec 3<&0; (` + child + `) & exec sleep 1000`
	p := start(t, Options{Argv: []string{"sh", "-c", script, "sh", gone, got}}, nil)
	eventually(t, "ready", func() bool { return p.Screen().Contains("ready") })
	if err := p.Write([]byte("for the child\rfor nobody\r")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both lines echoed", func() bool { return p.Screen().Contains("for nobody") })
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil { // the leader alone
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(testrun.Patience):
		t.Fatal("the leader was not reaped")
	}
	// The child reads now. (Opened for reading too, the FIFO opens at
	// once and keeps the line for the child, however late it opens it.)
	fifo, err := os.OpenFile(gone, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	if _, err := fifo.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	if b, err := os.ReadFile(got); err != nil || string(b) != "for the child\n" {
		t.Fatalf("the child read %q, %v", b, err)
	}
	if got, known := p.Unread(); !known || string(got) != "for nobody\n" {
		t.Fatalf("unread %q (known %t), want the line nobody read", got, known)
	}
}
