package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"swarm/internal/testrun"
	"swarm/supervisor"
	"swarm/tui"
	"sync"
	"syscall"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// tuiTerm is swarm's terminal UI running in a PTY, seen as a person sees
// it: everything swarm writes goes through a VT emulator, whose answers
// to terminal queries go back to swarm.
type tuiTerm struct {
	t    testing.TB
	cmd  *exec.Cmd
	ptmx *os.File
	rows int
	cols int

	mu      sync.Mutex
	emu     *vt.Emulator
	changed chan struct{} // signalled after each write to the emulator

	wg      sync.WaitGroup // reader and reply copier
	exited  chan struct{}  // closed when swarm has exited
	drained chan struct{}  // closed when all swarm wrote is on the emulator
	err     error          // swarm's exit, valid after exited
	closed  bool
	copied  string // the text of the last OSC 52 swarm wrote (under mu)
	// notified are the desktop notifications swarm sent (OSC 9), under mu.
	notified []string
}

// startTUI runs swarm with args in dir, in a PTY of rows×cols, in a
// terminal that says it is an xterm with 256 colours.
func startTUI(t testing.TB, dir string, rows, cols int, args ...string) *tuiTerm {
	t.Helper()
	return startTUIIn(t, []string{"TERM=xterm-256color"}, dir, rows, cols, args...)
}

// osc52 is a terminal's clipboard being set.
var osc52 = regexp.MustCompile("\x1b]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\\\)")

// osc9 is a desktop notification sent through the terminal.
var osc9 = regexp.MustCompile("\x1b]9;([^\x07\x1b]*)(?:\x07|\x1b\\\\)")

// answerRGB in startTUIIn's env makes the terminal answer a query for the
// RGB capability (XTGETTCAP) as a terminal with 24-bit colour does; the
// test's emulator answers none by itself.
const answerRGB = "TEST_TERMINAL_ANSWERS_RGB"

// startTUIIn is startTUI with the terminal's variables (TERM, COLORTERM)
// in env.
func startTUIIn(t testing.TB, env []string, dir string, rows, cols int, args ...string) *tuiTerm {
	t.Helper()
	return startTUIOf(t, swarmBin, env, dir, rows, cols, args...)
}

// startTUIOf is startTUIIn with the swarm binary bin.
func startTUIOf(t testing.TB, bin string, env []string, dir string, rows, cols int, args ...string) *tuiTerm {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWARM_") && !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "COLORTERM=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	rgb := slices.Contains(env, answerRGB)
	cmd.Env = append(cmd.Env, slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return kv == answerRGB })...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("start swarm in a pty: %v", err)
	}
	term := &tuiTerm{
		t: t, cmd: cmd, ptmx: ptmx, rows: rows, cols: cols,
		emu:     vt.NewEmulator(cols, rows),
		changed: make(chan struct{}, 1),
		exited:  make(chan struct{}),
		drained: make(chan struct{}),
	}
	term.wg.Add(2)
	go func() { // swarm's output → the emulator
		defer term.wg.Done()
		defer close(term.drained)
		buf := make([]byte, 64<<10)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 && rgb && bytes.Contains(buf[:n], []byte("\x1bP+q524742")) {
				_, _ = ptmx.Write([]byte("\x1bP1+r524742\x1b\\")) // "RGB": yes
			}
			if n > 0 {
				term.mu.Lock()
				if m := osc52.FindSubmatch(buf[:n]); m != nil {
					if text, err := base64.StdEncoding.DecodeString(string(m[1])); err == nil {
						term.copied = string(text)
					}
				}
				for _, m := range osc9.FindAllSubmatch(buf[:n], -1) {
					term.notified = append(term.notified, string(m[1]))
				}
				_, _ = term.emu.Write(buf[:n])
				term.mu.Unlock()
				select {
				case term.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { // the emulator's replies → swarm
		defer term.wg.Done()
		_, _ = io.Copy(ptmx, term.emu)
	}()
	go func() {
		term.err = cmd.Wait()
		close(term.exited)
	}()
	t.Cleanup(term.close)
	return term
}

// close kills swarm if it still runs (a failed test) and ends the
// goroutines: the PTY is closed first, so nothing writes to the emulator
// any more, then the emulator's reply pipe.
func (term *tuiTerm) close() {
	if term.closed {
		return
	}
	term.closed = true
	select {
	case <-term.exited:
	default:
		_ = syscall.Kill(-term.cmd.Process.Pid, syscall.SIGKILL)
		<-term.exited
	}
	// A server the UI started outlives it: stop it (it may be gone).
	stop := exec.Command(swarmBin, "stop")
	stop.Dir = term.cmd.Dir
	_ = stop.Run()
	_ = term.ptmx.Close()
	if c, ok := term.emu.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
	term.wg.Wait()
}

// screen returns the visible rows.
func (term *tuiTerm) screen() []string {
	term.mu.Lock()
	defer term.mu.Unlock()
	lines := make([]string, term.rows)
	var sb strings.Builder
	for y := range term.rows {
		sb.Reset()
		for x := 0; x < term.cols; x++ {
			c := term.emu.CellAt(x, y)
			if c == nil {
				break
			}
			if c.Width == 0 && c.Content == "" {
				continue // the second half of a wide character
			}
			if c.Content == "" {
				sb.WriteByte(' ')
			} else {
				sb.WriteString(c.Content)
			}
		}
		lines[y] = strings.TrimRight(sb.String(), " ")
	}
	return lines
}

func (term *tuiTerm) text() string { return strings.Join(term.screen(), "\n") }

// waitFor waits until the screen shows what cond wants, failing after
// testrun.Patience.
func (term *tuiTerm) waitFor(what string, cond func(screen string) bool) {
	term.t.Helper()
	timeout := testrun.Patience
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s := term.text()
		if cond(s) {
			return
		}
		select {
		case <-term.changed:
		case <-term.exited:
			if s := term.text(); cond(s) {
				return
			}
			term.t.Fatalf("swarm exited (%v) while waiting for %s; screen:\n%s", term.err, what, term.text())
		case <-deadline.C:
			term.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", timeout, what, term.text())
		}
	}
}

// waitText waits until every one of texts shows.
func (term *tuiTerm) waitText(texts ...string) {
	term.t.Helper()
	term.waitFor(fmt.Sprintf("%q", texts), func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// press types bytes as the keyboard would send them.
func (term *tuiTerm) press(s string) {
	term.t.Helper()
	if _, err := term.ptmx.Write([]byte(s)); err != nil {
		term.t.Fatalf("type %q: %v", s, err)
	}
}

// waitExit waits for swarm to exit and returns its exit status.
func (term *tuiTerm) waitExit() error {
	term.t.Helper()
	timeout := testrun.Patience
	select {
	case <-term.exited:
		return term.err
	case <-time.After(timeout):
		term.t.Fatalf("swarm did not exit within %s; screen:\n%s", timeout, term.text())
		return nil
	}
}

// lastScreen waits until swarm has exited and everything it wrote is
// on the screen (its last words, after the UI), and returns the screen.
func (term *tuiTerm) lastScreen() string {
	term.t.Helper()
	timeout := testrun.Patience
	select {
	case <-term.drained:
	case <-time.After(timeout):
		term.t.Fatalf("swarm's terminal was not closed within %s; screen:\n%s", timeout, term.text())
	}
	return term.text()
}

// quit presses q, confirms if swarm asks (stopping the swarm when the UI
// is attached to one), and waits for it to exit.
func (term *tuiTerm) quit() error {
	term.t.Helper()
	timeout := testrun.Patience
	term.press("q")
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	confirmed := false
	for {
		switch screen := term.text(); {
		case confirmed:
		case strings.Contains(screen, "Quit swarm?"):
			term.press("y")
			confirmed = true
		case strings.Contains(screen, "Leave the swarm?"):
			term.press("s")
			confirmed = true
		}
		select {
		case <-term.exited:
			return term.err
		case <-term.changed:
		case <-deadline.C:
			term.t.Fatalf("swarm did not quit within %s; screen:\n%s", timeout, term.text())
		}
	}
}

// pressKey types a key binding of the UI's key map, by its first key, as
// the keyboard sends it.
func (term *tuiTerm) pressKey(b key.Binding) {
	term.t.Helper()
	name := b.Keys()[0]
	seq, ok := map[string]string{
		"enter": "\r", "esc": "\x1b", "tab": "\t", "shift+tab": "\x1b[Z", "space": " ",
		"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
		"pgup": "\x1b[5~", "pgdown": "\x1b[6~", "home": "\x1b[H", "end": "\x1b[F",
		"ctrl+]": "\x1d", "ctrl+c": "\x03", "ctrl+u": "\x15", "ctrl+d": "\x04",
	}[name]
	if !ok {
		if len([]rune(name)) != 1 {
			term.t.Fatalf("no bytes for key %q", name)
		}
		seq = name
	}
	term.press(seq)
}

// clipboard waits for the UI to set the terminal's clipboard (OSC 52) and
// returns the text.
func (term *tuiTerm) clipboard() string {
	term.t.Helper()
	var text string
	term.waitFor("the clipboard to be set", func(string) bool {
		term.mu.Lock()
		defer term.mu.Unlock()
		text = term.copied
		return text != ""
	})
	return text
}

// Keys as a terminal sends them.
const (
	keyEnter  = "\r"
	keyEsc    = "\x1b"
	keyDetach = "\x1d" // ctrl+]
)

// descendants returns the processes below pid (children, grandchildren…).
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := procField(p, 4); ok {
			parent[p], _ = strconv.Atoi(pp)
		}
	}
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		cur := frontier[0]
		frontier = frontier[1:]
		for c, p := range parent {
			if p == cur {
				out = append(out, c)
				frontier = append(frontier, c)
			}
		}
	}
	sort.Ints(out)
	return out
}

// procField returns field n (1-based, as in proc(5)) of /proc/pid/stat.
func procField(pid, n int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(string(b[i+1:]))
	if n < 3 || n-3 >= len(fields) {
		return "", false
	}
	return fields[n-3], true
}

// requireGone waits until none of pids exists (a zombie counts as gone
// once it is reaped, so it is waited for too).
func requireGone(t testing.TB, pids []int) {
	t.Helper()
	var alive []string
	gone := testrun.Poll(testrun.Patience, func() bool {
		alive = alive[:0]
		for _, p := range pids {
			if st, ok := procField(p, 3); ok {
				alive = append(alive, fmt.Sprintf("%d(%s)", p, st))
			}
		}
		return len(alive) == 0
	})
	if !gone {
		t.Fatalf("processes left behind after swarm exited: %s", strings.Join(alive, " "))
	}
}

// agentProcs waits until swarm has started n agent processes and returns
// every process below it.
func (term *tuiTerm) agentProcs(n int) []int {
	term.t.Helper()
	var kids []int
	direct := 0
	started := testrun.Poll(testrun.Patience, func() bool {
		kids, direct = descendants(term.cmd.Process.Pid), 0
		for _, p := range kids {
			if pp, ok := procField(p, 4); ok && pp == strconv.Itoa(term.cmd.Process.Pid) {
				direct++
			}
		}
		return direct >= n
	})
	if !started {
		term.t.Fatalf("swarm started %d agent processes, want %d", direct, n)
	}
	return kids
}

// TestTUIDemoTicTacToe plays the demo in the terminal UI as a person
// would watch it: two players, the board, a result; ? shows the keys, q
// asks before stopping running agents, and nothing is left running.
func TestTUIDemoTicTacToe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The bus goes in the test's directory (by default the demo makes a
	// fresh one under $TMPDIR and keeps it).
	term := startTUI(t, dir, 48, 160, "demo", "tictactoe", "--dir", filepath.Join(dir, ".swarm"))

	// Both players' panes and the board.
	term.waitText("X · running", "O · running", "tic-tac-toe", "---+---+---", "X vs O")
	procs := term.agentProcs(2)

	// q while the players run asks first; n keeps the game going.
	term.press("q")
	term.waitText("Quit swarm? 2 running agents will be stopped.")
	term.press("n")
	term.waitFor("the quit dialog to close", func(s string) bool { return !strings.Contains(s, "Quit swarm?") })

	// The game reaches a result on the board.
	// The result line of the board box, at the left edge (a player's
	// pane may say "draw" too).
	result := regexp.MustCompile(`(?m)^│game over +│.*\n│(draw|[XO] wins \(\d-\d-\d\)|[XO] wins by forfeit) `)
	term.waitFor("a result on the board", func(s string) bool { return result.MatchString(s) })
	t.Logf("result: %s", result.FindStringSubmatch(term.text())[1])
	// The moves travelled as relay messages through the players' terminals.
	requireContainsScreen(t, term.text(), "@relay:O move", "@relay:X move")

	// ? shows every key; esc closes it.
	term.press("?")
	term.waitText("esc closes", "ctrl+]", "detach", "zoom pane", "task board", "message log", "quit")
	term.press(keyEsc)
	term.waitFor("the key list to close", func(s string) bool { return !strings.Contains(s, "esc closes") })

	// q leaves: at once when the players have finished, else after y.
	if err := term.quit(); err != nil {
		t.Fatalf("swarm demo exited with %v", err)
	}
	requireGone(t, append(procs, term.cmd.Process.Pid))
	if err := syscall.Kill(-term.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("swarm's process group still has members: %v", err)
	}
}

func requireContainsScreen(t *testing.T, screen string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(screen, w) {
			t.Fatalf("screen does not show %q:\n%s", w, screen)
		}
	}
}

// TestTUIAttachShell attaches to a shell agent, runs a command in it,
// detaches, and checks that the next key is the UI's again.
// An agent's 24-bit colour reaches a terminal that shows it as 24-bit
// colour, not the nearest of 256: the agent is told it may use it
// (COLORTERM), and the UI passes it through.
func TestTUIPassesTrueColour(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `[ "$COLORTERM" = truecolor ] && printf '\033[38;2;0;200;100mGREENISH\033[0m\n'; exec sleep 60`
	cfg := fmt.Sprintf("[[agent]]\nname = \"painter\"\ncmd = %q\n", script)
	if err := os.WriteFile(filepath.Join(dir, "swarm.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The terminal's environment does not say it shows 24-bit colour; asked
	// (XTGETTCAP RGB), it says it does, as xterm does.
	term := startTUIIn(t, []string{"TERM=xterm-256color", answerRGB}, dir, 24, 100, "up")
	term.waitText("GREENISH")
	var fgc color.Color
	rgb := func() bool {
		for y, row := range term.screen() {
			if i := strings.Index(row, "GREENISH"); i >= 0 {
				term.mu.Lock()
				fgc = term.emu.CellAt(ansi.StringWidth(row[:i]), y).Style.Fg
				term.mu.Unlock()
			}
		}
		if fgc == nil {
			return false
		}
		r, g, b, _ := fgc.RGBA()
		return r>>8 == 0 && g>>8 == 200 && b>>8 == 100
	}
	term.waitFor("GREENISH in rgb(0,200,100), not the nearest of 256 colours", func(string) bool { return rgb() })
}

func TestTUIAttachShell(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := "[[agent]]\nname = \"shell\"\ncmd = \"PS1='$ ' exec sh\"\n"
	if err := os.WriteFile(filepath.Join(dir, "swarm.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// In the UI's own process (--foreground), quitting stops the agents.
	term := startTUI(t, dir, 30, 100, "up", "--foreground")
	term.waitText("shell · running")
	procs := term.agentProcs(1)
	// The prompt shows in the pane once sh runs at the pane's size.
	term.waitFor("the prompt", func(s string) bool { return regexp.MustCompile(`(?m)[│┃]\$ +[│┃]`).MatchString(s) })

	term.press(keyEnter)
	term.waitText("ATTACHED shell", "ctrl+] detach")
	// Capitals and shifted symbols reach the agent too.
	term.press("echo Hi THERE!")
	term.press(keyEnter)
	hiRow := regexp.MustCompile(`(?m)┃Hi THERE! +┃`)
	term.waitFor("the echo in the attached pane", func(s string) bool { return hiRow.MatchString(s) })

	term.press(keyDetach)
	term.waitFor("detaching", func(s string) bool {
		return !strings.Contains(s, "ATTACHED shell") && strings.Contains(s, "detached from shell")
	})
	// The next key goes to the UI: ? opens the key list, and the shell
	// does not get it.
	term.press("?")
	term.waitText("esc closes")
	term.press(keyEsc)
	term.waitFor("the key list to close", func(s string) bool { return !strings.Contains(s, "esc closes") })
	if regexp.MustCompile(`(?m)[│┃]\$ \?`).MatchString(term.text()) {
		t.Fatalf("the shell got the ? meant for the UI:\n%s", term.text())
	}

	// q asks while the shell runs; y stops it and leaves.
	term.press("q")
	term.waitText("Quit swarm? 1 running agent will be stopped.")
	term.press("y")
	if err := term.waitExit(); err != nil {
		t.Fatalf("swarm up exited with %v", err)
	}
	requireGone(t, append(procs, term.cmd.Process.Pid))
}

// TestTUINeedsATerminal: without a terminal the UI is refused with the
// headless command to use instead.
func TestTUINeedsATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := "[[agent]]\nname = \"shell\"\ncmd = \"sh\"\n"
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fails(2, []string{"up"}, "the terminal UI needs a terminal", "swarm up --headless")
	e.fails(2, []string{"up", "--json"}, "--json goes with --headless")
	e.fails(2, []string{"demo", "tictactoe"}, "the terminal UI needs a terminal", "swarm demo tictactoe --headless")
}

// ---- load figures (BENCHMARKS.md) ----

// procCPU returns the CPU time (user+system) a process has used.
func procCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	u, ok1 := procField(pid, 14)
	s, ok2 := procField(pid, 15)
	if !ok1 || !ok2 {
		t.Fatalf("read /proc/%d/stat", pid)
	}
	ut, _ := strconv.Atoi(u)
	st, _ := strconv.Atoi(s)
	// Clock ticks are 1/100 s on Linux (sysconf(_SC_CLK_TCK)).
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// procRSS returns a process's resident set and its peak, in MiB.
func procRSS(t testing.TB, pid int) (rss, peak float64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}

// writerScript writes about 1 MB/s of coloured, numbered build-log
// lines: 10 kB every 10 ms, cut from a megabyte made up front so that the
// writer itself costs little CPU.
const writerScript = `import os, sys, time
lines = []
n = 0
i = 0
while n < 1 << 20:
    l = "\x1b[3%dm%08d\x1b[0m build step %d: compiling package number %d of the project ... ok\n" % (i % 7 + 1, i, i, i * 7)
    lines.append(l)
    n += len(l)
    i += 1
data = "".join(lines).encode()
out = sys.stdout.buffer
pos = 0
total = 0
count = os.environ["SWARM_AGENT"] + ".bytes"
next = time.time()
while True:
    chunk = data[pos:pos + 10000]
    pos = (pos + 10000) % (len(data) - 10000)
    out.write(chunk)
    out.flush()
    total += len(chunk)
    if total % 200000 == 0:
        with open(count + ".tmp", "w") as f:
            f.write(str(total))
        os.replace(count + ".tmp", count)
    next += 0.01
    time.sleep(max(0, next - time.time()))
`

// writtenBytes is how much the load writers in dir have written so far
// (each records its total every 200 kB).
func writtenBytes(t testing.TB, dir string) float64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.bytes"))
	total := 0.0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		total += n
	}
	return total
}

// loadConfig writes a swarm.toml with writers writing agents and the
// probe shell.
func loadConfig(t testing.TB, dir string, writers int, idle int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "writer.py"), []byte(writerScript), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("[[agent]]\nname = \"probe\"\ncmd = \"PS1='$ ' exec sh\"\n")
	for i := range writers {
		fmt.Fprintf(&b, "\n[[agent]]\nname = \"w%d\"\ncmd = \"exec python3 writer.py\"\n", i+1)
	}
	for i := range idle {
		fmt.Fprintf(&b, "\n[[agent]]\nname = \"idle%d\"\ncmd = \"PS1='$ ' exec sh\"\n", i+1)
	}
	if err := os.WriteFile(filepath.Join(dir, "swarm.toml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// keyLatencies attaches to the probe shell and types n keys, each after
// the previous one showed, returning how long each took to show on the
// screen.
func keyLatencies(b *testing.B, term *tuiTerm, n int, gap time.Duration) []time.Duration {
	term.press(keyEnter) // the probe is the first agent, selected
	term.waitText("ATTACHED probe")
	var lat []time.Duration
	typed := 0
	for i := range n {
		if typed == 16 { // keep the line within the pane: erase it (ctrl+u)
			term.press("\x15")
			term.waitFor("the line to clear", func(s string) bool { return !strings.Contains(s, "$ x") })
			typed = 0
		}
		want := "$ " + strings.Repeat("x", typed+1)
		start := time.Now()
		term.press("x")
		term.waitFor(fmt.Sprintf("key %d", i), func(s string) bool {
			return strings.Contains(s, want+" ") || strings.Contains(s, want+"┃")
		})
		lat = append(lat, time.Since(start))
		typed++
		time.Sleep(gap) // spread the keys over the measured period
	}
	term.press(keyDetach)
	return lat
}

// headlessCPU runs the same swarm with `swarm up --headless` for the
// period and returns its CPU in cores: the cost of the swarm without the
// UI, to tell the UI's share from the runtime's.
func headlessCPU(b *testing.B, dir string, period time.Duration) float64 {
	b.Helper()
	cmd := startServer(b, dir)
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	time.Sleep(2 * time.Second) // start-up settles
	cpu0, t0 := procCPU(b, cmd.Process.Pid), time.Now()
	time.Sleep(period)
	return (procCPU(b, cmd.Process.Pid) - cpu0).Seconds() / time.Since(t0).Seconds()
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(int(float64(len(s))*p), len(s)-1)]
}

// BenchmarkTUILoad: agents each writing about 1 MB/s (9 — the goal's
// case — and 3) while a person types into one more, a shell. Reports the
// time from a key press to its echo on swarm's screen (p50, p95, max),
// swarm's CPU in cores and its memory over the period, and the CPU of the
// same swarm run headless (the runtime without the UI). Run with:
//
//	go test -run '^$' -bench BenchmarkTUILoad -benchtime 1x .
func BenchmarkTUILoad(b *testing.B) {
	for _, writers := range []int{9, 3} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			for range b.N {
				benchLoad(b, writers)
			}
		})
	}
}

func benchLoad(b *testing.B, writers int) {
	dir := b.TempDir()
	loadConfig(b, dir, writers, 0)
	term := startTUI(b, dir, 48, 160, "up", "--foreground") // the whole swarm in the measured process
	term.waitText("probe · running", fmt.Sprintf("w%d · running", writers))
	term.waitFor("the probe's prompt", func(s string) bool { return strings.Contains(s, "$") })
	pid := term.cmd.Process.Pid
	cpu0, t0, bytes0 := procCPU(b, pid), time.Now(), writtenBytes(b, dir)
	lat := keyLatencies(b, term, 60, 150*time.Millisecond)
	if rest := 10*time.Second - time.Since(t0); rest > 0 {
		time.Sleep(rest) // the period is at least 10 s of load
	}
	period := time.Since(t0).Seconds()
	cores := (procCPU(b, pid) - cpu0).Seconds() / period
	// How much each writer got out: swarm's terminals slow writers down
	// (flow control) when their output comes faster than it is emulated.
	b.ReportMetric((writtenBytes(b, dir)-bytes0)/period/float64(writers)/1e6, "MBps-per-writer")
	rss, peak := procRSS(b, pid)
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(slices.Max(lat).Microseconds())/1000, "max-ms")
	b.ReportMetric(cores, "cpu-cores")
	b.ReportMetric(rss, "rss-MiB")
	b.ReportMetric(peak, "peak-rss-MiB")
	if err := term.quit(); err != nil {
		b.Fatalf("swarm exited with %v", err)
	}
	b.ReportMetric(headlessCPU(b, dir, 10*time.Second), "headless-cpu-cores")
}

// BenchmarkTUIIdle: four idle shells for 10 s. Reports swarm's CPU in
// cores (0.02 = 2 % of one core). Run with:
//
//	go test -run '^$' -bench BenchmarkTUIIdle -benchtime 1x .
func BenchmarkTUIIdle(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		loadConfig(b, dir, 0, 3)
		term := startTUI(b, dir, 48, 160, "up", "--foreground") // the whole swarm in the measured process
		term.waitText("probe · running", "idle3 · running")
		// Let start-up (first renders, resizes, prompts) settle.
		time.Sleep(2 * time.Second)
		pid := term.cmd.Process.Pid
		cpu0, t0 := procCPU(b, pid), time.Now()
		time.Sleep(10 * time.Second)
		cores := (procCPU(b, pid) - cpu0).Seconds() / time.Since(t0).Seconds()
		rss, _ := procRSS(b, pid)
		b.ReportMetric(cores, "cpu-cores")
		b.ReportMetric(rss, "rss-MiB")
		if err := term.quit(); err != nil {
			b.Fatalf("swarm exited with %v", err)
		}
		b.ReportMetric(headlessCPU(b, dir, 10*time.Second), "headless-cpu-cores")
	}
}

// The main flows a person takes, in the built binary, driven by the key
// map's bindings: send a message, create a task and take it through review
// to completion on the board, scroll and search the scrollback and copy
// from it, restart an agent keeping its history, and resize the window.
func TestTUIMainFlows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = filepath.Join(e.cwd, ".swarm")
	script := `for i in $(seq -w 1 60); do echo "line $i of the log"; done; ` +
		`while IFS= read -r l; do echo "$l" >> received.txt; case "$l" in *size*) stty size | tee -a sizes.txt;; esac; done`
	cfg := fmt.Sprintf("[[agent]]\nname = \"worker\"\ncmd = %q\n", script)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	keys := tui.DefaultKeyMap()
	term := startTUI(t, e.cwd, 30, 120, "up")
	term.waitText("worker · running", "line 60 of the log")
	received := func(want string) {
		t.Helper()
		waitUntil(t, "worker to read "+want, func() bool {
			b, _ := os.ReadFile(filepath.Join(e.cwd, "received.txt"))
			return strings.Contains(string(b), want)
		})
	}

	// Send: the dialog is for the selected agent; the message is typed in.
	term.pressKey(keys.Send)
	term.waitText("Send a message")
	term.press("hello from the ui")
	term.pressKey(keys.Submit)
	term.waitText("sent #")
	received("hello from the ui")

	// A task: created from the UI, moved by the worker's side from the
	// command line, approved and completed on the board.
	term.pressKey(keys.NewTask)
	term.waitText("New task")
	term.press("write the docs")
	term.pressKey(keys.Submit) // enter creates, from the title field
	created := regexp.MustCompile(`created task (\w+) \(write the docs\) for worker`)
	term.waitFor("the task", func(s string) bool { return created.MatchString(s) })
	id := created.FindStringSubmatch(term.text())[1]
	term.pressKey(keys.Tasks)
	term.waitText("task board", "write the docs")
	e.ok("task", "start", id)
	e.ok("task", "done", id)
	term.waitText("IN_REVIEW")
	term.pressKey(keys.Approve)
	term.waitText("approved task " + id)
	term.pressKey(keys.Merge)
	term.waitText("Complete task " + id)
	term.pressKey(keys.Yes)
	term.waitText("task " + id + " (write the docs) completed")
	term.pressKey(keys.Tasks)
	term.waitFor("the board to close", func(s string) bool { return !strings.Contains(s, "─ task board ─") })

	// Scroll back, search, copy from the match (copy mode's cursor is on
	// it) to a character on the next line.
	term.pressKey(keys.Scroll)
	term.pressKey(keys.Search)
	term.press("LINE 07 of")
	term.pressKey(keys.Submit)
	term.waitText(`1 match for "LINE 07 of" in worker`)
	term.pressKey(keys.Select)
	term.pressKey(keys.LineDown)
	for range 6 {
		term.pressKey(keys.CursorRight)
	}
	term.pressKey(keys.Copy)
	term.waitText("copied 2 lines (26 characters) of worker")
	if got, want := term.clipboard(), "line 07 of the log\nline 08"; got != want {
		t.Errorf("clipboard %q, want %q", got, want)
	}
	term.pressKey(keys.Close) // the copy ended the selection: this leaves scroll mode
	term.waitFor("scroll mode to end", func(s string) bool { return !strings.Contains(s, "SCROLL") })

	// Restart: the history stays, under a line saying so.
	term.pressKey(keys.Restart)
	term.waitText("Restart")
	term.pressKey(keys.Yes)
	// The first run's output stays in the scrollback, above a line saying
	// why the program started again (the new run's output soon pushes it
	// off the screen: it is searched for). Each key waits for the UI to be
	// where it goes (keys typed into the wrong mode would act there).
	term.waitFor("the question to close", func(s string) bool { return !strings.Contains(s, "Restart agent worker?") })
	search := func(q string) bool {
		term.pressKey(keys.Scroll)
		term.waitText("SCROLL")
		term.pressKey(keys.Search)
		term.waitText("SEARCH")
		term.press(q)
		term.pressKey(keys.Submit)
		term.waitFor("the search's result", func(s string) bool {
			return strings.Contains(s, "match for") || strings.Contains(s, "not found")
		})
		found := strings.Contains(term.text(), "match for \""+q+"\" in worker")
		term.pressKey(keys.Close)
		term.waitFor("scroll mode to end", func(s string) bool { return !strings.Contains(s, "SCROLL") })
		return found
	}
	waitUntil(t, "the restart line in the scrollback", func() bool { return search("started again") })

	// Resize: the agent's terminal follows the pane.
	if err := pty.Setsize(term.ptmx, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	_ = term.cmd.Process.Signal(syscall.SIGWINCH)
	term.waitFor("the narrower window", func(s string) bool {
		for _, row := range strings.Split(s, "\n") {
			if ansi.StringWidth(row) > 80 {
				return false
			}
		}
		return strings.Contains(s, "worker")
	})
	// The agent prints its terminal's size (stty size) when told "size";
	// the size reaches it a moment after the window settles: ask until it
	// says it is narrower.
	sizes := func() []string {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "sizes.txt"))
		return strings.Fields(string(b))
	}
	waitUntil(t, "the agent's terminal to get narrower", func() bool {
		before := len(sizes())
		e.ok("send", "worker", "size")
		waitUntil(t, "the agent's size", func() bool { return len(sizes()) > before })
		cols, _ := strconv.Atoi(sizes()[len(sizes())-1])
		return cols < 60
	})
	if err := term.quit(); err != nil {
		t.Fatalf("swarm up exited with %v", err)
	}
}

// procsIn returns the processes whose working directory is dir: a swarm's
// server and agents run in the directory of its swarm.toml.
func procsIn(dir string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			out = append(out, pid)
		}
	}
	return out
}

// serverOf returns the pid of the server swarm started (a process under
// it running `swarm up --server`), 0 while there is none.
func serverOf(pid int) int {
	for _, p := range descendants(pid) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && bytes.Contains(b, []byte("\x00--server\x00")) {
			return p
		}
	}
	return 0
}

// rawErrors are what an interrupted start printed before: Go's errors,
// not a line for a person.
var rawErrors = []string{"context canceled", "operation was canceled", "deadline exceeded"}

// Ctrl-C while swarm is still starting (the terminal is not the UI's yet,
// so it is a SIGINT) leaves nothing running that the person did not see
// start, and says so in one line, whatever moment of the start it hits:
// at once, once the server runs but before its socket is there, once the
// socket is there.
func TestInterruptingTheStartLeavesNothingRunning(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		when func(ui *tuiTerm, busDir string) bool // when to interrupt
	}{
		{"at once", func(*tuiTerm, string) bool { return true }},
		{"the server started", func(ui *tuiTerm, _ string) bool { return serverOf(ui.cmd.Process.Pid) != 0 }},
		{"its socket there", func(_ *tuiTerm, busDir string) bool {
			_, err := os.Stat(filepath.Join(busDir, "swarm.sock"))
			return err == nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.dir = ""
			// The real path: procfs names resolved directories.
			cwd, err := filepath.EvalSymlinks(e.cwd)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, "swarm.toml"), []byte(attachConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			busDir := filepath.Join(cwd, ".swarm")
			ui := startTUI(t, cwd, 30, 120)
			waitUntil(t, c.name, func() bool { return c.when(ui, busDir) })
			_ = ui.cmd.Process.Signal(syscall.SIGINT)
			err = ui.waitExit()
			screen := ui.lastScreen()
			t.Logf("exit %v; screen: %q", err, strings.TrimSpace(screen))
			for _, raw := range rawErrors {
				if strings.Contains(screen, raw) {
					t.Errorf("swarm printed %q:\n%s", raw, screen)
				}
			}
			_, running := supervisor.SwarmRunning(busDir)
			switch {
			case strings.Contains(screen, "swarm: interrupted: the swarm it was starting is stopped"):
				// Before the UI: what it started is gone, and while its
				// agents had their grace a line said what was going on.
				if !strings.Contains(screen, "swarm: interrupted: stopping the swarm it was starting…") {
					t.Errorf("nothing said the swarm was being stopped:\n%s", screen)
				}
				if left := procsIn(cwd); len(left) > 0 {
					t.Errorf("left running in %s after the interrupt: %v\n%s", cwd, left, screen)
				}
				if running {
					t.Errorf("a swarm still holds %s", busDir)
				}
			case strings.Contains(screen, "swarm: detached; the agents go on (swarm attach comes back, swarm stop ends them)"):
				// The UI was up (a loaded machine is slow to see the
				// moment): a signal then detaches, and says so.
				if !running {
					t.Errorf("swarm said the agents go on, but none runs:\n%s", screen)
				}
			default:
				// A SIGINT before swarm has set up its handling ends it
				// at once; it has started nothing then.
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != -1 {
					t.Errorf("swarm exited with %v without saying why:\n%s", err, screen)
				}
				if left := procsIn(cwd); len(left) > 0 || running {
					t.Errorf("left running in %s after the interrupt: %v\n%s", cwd, left, screen)
				}
			}
		})
	}
}

// Ctrl-C while swarm attaches to a swarm that was running already leaves
// that swarm running, and says so, or says nothing (the signal came
// before swarm could act on it).
func TestInterruptingAnAttachLeavesTheSwarmRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(attachConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	server := serverPid(t, filepath.Join(e.cwd, ".swarm"))
	waitUntil(t, "the socket", func() bool { return lastTick(t, e) > 0 })
	ui := startTUI(t, e.cwd, 30, 120)
	_ = ui.cmd.Process.Signal(syscall.SIGINT)
	_ = ui.waitExit()
	screen := ui.lastScreen()
	for _, raw := range rawErrors {
		if strings.Contains(screen, raw) {
			t.Errorf("swarm printed %q:\n%s", raw, screen)
		}
	}
	if strings.Contains(screen, "swarm: interrupted") && !strings.Contains(screen, "the swarm runs on: `swarm attach`") {
		t.Errorf("the line does not say the swarm runs on:\n%s", screen)
	}
	if gone(server) {
		t.Fatal("interrupting an attach stopped the swarm")
	}
	if code := up.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm up --headless exited %d", code)
	}
}

// An agent that asks the person (`@relay:human …`) needs them: the UI
// counts it, notifies, shows the question; ! and s answer it, and the
// answer reaches the asker; swarm status lists it until then.
func TestAQuestionToThePersonIsAnsweredFromTheUI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = filepath.Join(e.cwd, ".swarm")
	// It asks once told to, so that it asks while the UI runs (what
	// waited when a UI started is listed, not announced).
	script := `read -r go; echo '@relay:human please decide: tabs or spaces?'; ` +
		`while IFS= read -r l; do echo "$l" >> answers.txt; case "$l" in *again*) echo '@relay:human shall I push?';; esac; done`
	cfg := fmt.Sprintf("[[agent]]\nname = \"asker\"\ncmd = %q\n", script)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	keys := tui.DefaultKeyMap()
	term := startTUI(t, e.cwd, 30, 120, "up")
	term.waitText("asker · running")
	e.ok("send", "asker", "ask now")
	term.waitText("⚑ 1", "? please decide")
	waitUntil(t, "the desktop notification", func() bool {
		term.mu.Lock()
		defer term.mu.Unlock()
		return slices.Contains(term.notified, "swarm: asker asks: please decide: tabs or spaces?")
	})
	if out := e.ok("status"); !strings.Contains(out, "needs you (1)") || !strings.Contains(out, "asker asks: please decide: tabs or spaces?") {
		t.Errorf("swarm status does not list the question:\n%s", out)
	}

	term.pressKey(keys.NextNeed)
	term.waitText("1/1: asker asks: please decide: tabs or spaces? — s answers")
	term.pressKey(keys.Send)
	term.waitText("Answer asker")
	term.press("tabs, please")
	term.pressKey(keys.Submit)
	waitUntil(t, "the asker to get the answer", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "answers.txt"))
		return regexp.MustCompile(`\[relay #\w+ from human\] tabs, please`).Match(b)
	})
	term.waitFor("the question to leave the list", func(s string) bool { return !strings.Contains(s, "⚑") })
	if out := e.ok("status"); strings.Contains(out, "needs you") {
		t.Errorf("swarm status still lists the answered question:\n%s", out)
	}

	// Another, dismissed on the asker's pane: it leaves the list, and the
	// asker is told nothing.
	e.ok("send", "asker", "ask again")
	term.waitText("⚑ 1", "? shall I push?")
	term.pressKey(keys.Dismiss)
	term.waitText("dismissed asker's question: shall I push?")
	term.waitFor("the question to leave the list", func(s string) bool { return !strings.Contains(s, "⚑") })
	if out := e.ok("status"); strings.Contains(out, "needs you") {
		t.Errorf("swarm status still lists the dismissed question:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(e.cwd, "answers.txt")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("the asker got more than the answer and the request:\n%s", b)
	}
	if err := term.quit(); err != nil {
		t.Fatalf("swarm up exited with %v", err)
	}
}

// swarm stop closes an open vim as a person would (:qa), so that it
// leaves no swap file, and never saves for the person: a vim with unsaved
// changes refuses to quit, and is then stopped, preserving them in its
// swap file for `vim -r`. The file on disk stays as it was.
func TestStoppingAnEditorLeavesNoSwapFileAndSavesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	for _, f := range []string{"notes.txt", "draft.txt"} {
		if err := os.WriteFile(filepath.Join(e.cwd, f), []byte("as saved\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "[[agent]]\nname = \"notes\"\ncmd = \"vim -N -u NONE -i NONE notes.txt\"\n\n" +
		"[[agent]]\nname = \"draft\"\ncmd = \"vim -N -u NONE -i NONE draft.txt\"\n"
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	swap := func(f string) string { return filepath.Join(e.cwd, "."+f+".swp") }
	exists := func(path string) bool { _, err := os.Stat(path); return err == nil }
	keys := tui.DefaultKeyMap()
	term := startTUI(t, e.cwd, 30, 120)
	term.waitText("notes · running", "draft · running")
	waitUntil(t, "both swap files", func() bool { return exists(swap("notes.txt")) && exists(swap("draft.txt")) })
	// A change to the draft, not saved.
	term.pressKey(keys.Next)
	term.waitText("▶ draft")
	term.pressKey(keys.Attach)
	term.waitText("ATTACHED draft")
	term.press("Ochanged, not saved")
	term.waitText("changed, not saved", "-- INSERT --")
	term.press(keyEsc)
	term.waitFor("vim out of insert mode", func(s string) bool { return !strings.Contains(s, "-- INSERT --") })
	term.press(keyDetach)
	term.waitFor("the pane detached", func(s string) bool { return !strings.Contains(s, "ATTACHED draft") })

	// Stop the swarm from the UI: q, then s.
	if err := term.quit(); err != nil {
		t.Fatalf("swarm exited with %v", err)
	}
	if exists(swap("notes.txt")) {
		t.Error("vim with nothing unsaved left its swap file")
	}
	for _, f := range []string{"notes.txt", "draft.txt"} {
		if b, _ := os.ReadFile(filepath.Join(e.cwd, f)); string(b) != "as saved\n" {
			t.Errorf("%s was written: %q", f, b)
		}
	}
	if b, err := os.ReadFile(swap("draft.txt")); err != nil || !bytes.Contains(b, []byte("changed, not saved")) {
		t.Errorf("the unsaved change is not kept in the swap file for vim -r (%v)", err)
	}
	waitUntil(t, "the server and the editors to end", func() bool { return len(procsIn(e.cwd)) == 0 })
}
