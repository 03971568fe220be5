package main

// Tests of the second fault trial's findings (RELIABILITY.md): the swarm
// as a user runs it, the built binary with real agents, and what a user
// (or an agent) does around it.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"swarm/bus"
	"swarm/internal/testrun"
)

// server is a `swarm up --server` run in the background, as swarm starts
// it, its output (its log) collected.
type server struct {
	cmd  *exec.Cmd
	out  testrun.Buffer
	done chan struct{}
	err  error
}

func (e *env) server(args ...string) *server {
	e.t.Helper()
	s := &server{done: make(chan struct{})}
	s.cmd = e.command(append([]string{"up", "--server"}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	if err := s.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		defer close(s.done)
		s.err = s.cmd.Wait()
	}()
	e.t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	return s
}

// exited waits for the server to end and returns its exit status.
func (s *server) exited(t *testing.T, what string) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(testrun.Patience):
		t.Fatalf("%s: the server still runs; its output:\n%s", what, s.out.String())
	}
	if ee, ok := s.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

// pidIn waits for a process to write its pid into file and returns it.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	var pid int
	waitUntil(t, "the pid in "+filepath.Base(file), func() bool {
		b, _ := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

// detachedFrom returns the pids swarm status --json lists as having left
// agent's session ("" for those whose agent cannot be told).
func detachedFrom(t *testing.T, e *env, agent string) map[int]bool {
	t.Helper()
	var st struct {
		Detached []struct {
			Pid   int
			Agent string
		}
	}
	out, _, _ := e.run("status", "--json")
	_ = json.Unmarshal([]byte(out), &st)
	pids := map[int]bool{}
	for _, d := range st.Detached {
		if d.Agent == agent {
			pids[d.Pid] = true
		}
	}
	return pids
}

// without returns cmd with the environment variables names unset.
func without(cmd *exec.Cmd, names ...string) *exec.Cmd {
	var env []string
	for _, kv := range cmd.Env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd
}

// lsEntries runs swarm ls --json with cmd's environment and returns the
// entries of busDir.
func lsEntries(t *testing.T, cmd *exec.Cmd, busDir string) []map[string]any {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("swarm ls --json: %v", err)
	}
	var mine []map[string]any
	for _, r := range jsonLines(t, string(out)) {
		if r["bus_dir"] == busDir {
			mine = append(mine, r)
		}
	}
	return mine
}

// A swarm started, or listed, without $HOME (and $XDG_CACHE_HOME) is
// found where the others are: the user's home is in the user database.
// (This test's note is in the real user's cache directory while it runs.)
func TestSwarmLsFindsSwarmsWithoutHome(t *testing.T) {
	t.Parallel()
	if os.Getenv("HOME") != "" {
		if u, err := user.Current(); err != nil || filepath.Clean(u.HomeDir) != filepath.Clean(os.Getenv("HOME")) {
			t.Skip("$HOME is not the user's home in the user database")
		}
	}
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", "echo ready; exec sleep 300")), 0o600); err != nil {
		t.Fatal(err)
	}
	busDir := filepath.Join(e.cwd, ".swarm")
	srv := &server{done: make(chan struct{})}
	srv.cmd = without(e.command("up", "--server"), "HOME", "XDG_CACHE_HOME")
	srv.cmd.Stdout, srv.cmd.Stderr = &srv.out, &srv.out
	if err := srv.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { defer close(srv.done); srv.err = srv.cmd.Wait() }()
	t.Cleanup(func() { _ = srv.cmd.Process.Signal(syscall.SIGTERM); <-srv.done })
	waitUntil(t, "the swarm listed by an ls without $HOME", func() bool {
		return len(lsEntries(t, without(e.command("ls", "--json"), "HOME", "XDG_CACHE_HOME"), busDir)) == 1
	})
	// Listed from the moment it holds its directory; reachable once its
	// agents have started and its socket answers.
	var l []map[string]any
	if !testrun.Poll(testrun.Patience, func() bool {
		l = lsEntries(t, without(e.command("ls", "--json"), "XDG_CACHE_HOME"), busDir)
		return len(l) == 1 && l[0]["reachable"] == true
	}) {
		t.Errorf("swarm ls with $HOME: %v", l)
	}
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.exited(t, "SIGTERM")
	if l := lsEntries(t, without(e.command("ls", "--json"), "HOME", "XDG_CACHE_HOME"), busDir); len(l) != 0 {
		t.Errorf("a stopped swarm is still listed: %v", l)
	}
}

// A swarm whose directory is gone while it cannot notice (it is stopped,
// hung) is marked by swarm ls, and swarm ls --prune ends it and forgets it.
func TestSwarmLsMarksAndPrunesASwarmWhoseDirectoryIsGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	pids := t.TempDir()
	cfg := agentTOML("a", "never", "echo $$ > "+filepath.Join(pids, "a.pid")+"; exec sleep 300")
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	busDir := filepath.Join(e.cwd, ".swarm")
	srv := e.server()
	agent := pidIn(t, filepath.Join(pids, "a.pid"))
	waitUntil(t, "the swarm listed", func() bool { return len(lsEntries(t, e.command("ls", "--json"), busDir)) == 1 })
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.cwd); err != nil {
		t.Fatal(err)
	}
	e.cwd = t.TempDir()
	if l := lsEntries(t, e.command("ls", "--json"), busDir); len(l) != 1 || l[0]["dir_gone"] != true {
		t.Fatalf("swarm ls --json: %v", l)
	}
	if out := e.ok("ls"); !strings.Contains(out, "(directory gone)") || !strings.Contains(out, "swarm ls --prune ends them") {
		t.Errorf("swarm ls:\n%s", out)
	}
	out := e.ok("ls", "--prune")
	if !strings.Contains(out, "its directory is gone") || !strings.Contains(out, strconv.Itoa(srv.cmd.Process.Pid)) {
		t.Errorf("swarm ls --prune:\n%s", out)
	}
	srv.exited(t, "pruned")
	requireGone(t, []int{agent})
	if l := lsEntries(t, e.command("ls", "--json"), busDir); len(l) != 0 {
		t.Errorf("still listed after --prune: %v", l)
	}
}

// A server whose agents have all ended and to which no UI is attached
// says so in swarm ls, and ends by itself, as swarm up --headless does.
func TestAServerWithNothingLeftEndsByItself(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	// The agent ends when the test closes this FIFO, not at once: the
	// server ends IdleEnd after its last agent, and on a loaded machine a
	// start and a few swarm ls can take longer than that.
	end := filepath.Join(t.TempDir(), "end")
	if err := syscall.Mkfifo(end, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", "cat "+end+" >/dev/null; echo done; exit 0")), 0o600); err != nil {
		t.Fatal(err)
	}
	busDir := filepath.Join(e.cwd, ".swarm")
	srv := e.server()
	var l []map[string]any
	waitUntil(t, "swarm ls listing the agent running", func() bool {
		l = lsEntries(t, e.command("ls", "--json"), busDir)
		return len(l) == 1 && l[0]["agents_running"] == float64(1)
	})
	// A FIFO opens for writing without waiting only once a reader has it
	// open (ENXIO before): the agent's cat.
	waitUntil(t, "the agent reading its FIFO", func() bool {
		f, err := os.OpenFile(end, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.Close()
		}
		return err == nil
	})
	waitUntil(t, "swarm ls saying every agent has ended", func() bool {
		l = lsEntries(t, e.command("ls", "--json"), busDir)
		return len(l) == 1 && l[0]["ended"] == true
	})
	if l[0]["clients"] != float64(0) || l[0]["agents_running"] != float64(0) {
		t.Errorf("swarm ls --json: %v", l)
	}
	if out := e.ok("ls"); !strings.Contains(out, "0/1 running, all ended, no UI: it ends within") {
		t.Errorf("swarm ls:\n%s", out)
	}
	if code := srv.exited(t, "every agent ended"); code != 0 {
		t.Errorf("the server exited %d", code)
	}
	if out := srv.out.String(); !strings.Contains(out, "every agent has ended and no UI is attached: the server ends") {
		t.Errorf("the server's log:\n%s", out)
	}
}

// A message its recipient read is delivered again by the next swarm
// after a kill (it may not have been read: RELIABILITY.md), but kills of
// swarm never make it fail: they are not the message's fault.
func TestKillsOfSwarmNeverFailAMessageTheRecipientRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	once := `[ -e sent ] || { echo "@relay:b only-one"; touch sent; }; exec sleep 300`
	cfg := agentTOML("a", "never", once) + agentTOML("b", "always", listener("b.log"))
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	reads := func() int {
		return strings.Count(func() string { b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log")); return string(b) }(), "only-one")
	}
	var b *bus.Bus
	state := func() bus.DeliveryState {
		if b == nil {
			if _, err := os.Stat(filepath.Join(e.cwd, ".swarm", "bus.db")); err != nil {
				return bus.DeliveryQueued
			}
			b = trialBus(t, e)
		}
		msgs, err := b.Messages(t.Context(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Body == "only-one" && len(m.Deliveries) == 1 {
				return m.Deliveries[0].State
			}
		}
		return bus.DeliveryQueued
	}
	const kills = 4
	for k := 0; k <= kills; k++ {
		up := e.start("up", "--headless")
		waitUntil(t, fmt.Sprintf("read %d times", k+1), func() bool { return reads() > k || state() == bus.DeliveryFailed })
		if k == kills || state() == bus.DeliveryFailed {
			up.stop(t, syscall.SIGTERM)
			break
		}
		_ = up.cmd.Process.Signal(syscall.SIGKILL)
		<-up.done
		_ = up.cmd.Wait()
	}
	if state() == bus.DeliveryFailed {
		t.Errorf("a message b read %d times was marked failed after kills of swarm", reads())
	}
}

// With TERM=dumb, or no TERM, the UI is refused in one line before
// anything is drawn: no alternate screen, mouse or keyboard modes, no
// escape sequence at all.
func TestADumbTerminalGetsNoEscapeSequences(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", "exec sleep 300")), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, args := range [][]string{{}, {"attach"}, {"demo", "tictactoe"}, {}} {
		cmd := e.command(args...)
		term, want := "dumb", "TERM is dumb"
		if i == 3 {
			term, want = "", "TERM is not set"
		}
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "TERM=") })
		if term != "" {
			cmd.Env = append(cmd.Env, "TERM="+term)
		}
		cmd.Stdin = nil // the terminal
		ptmx, err := pty.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		ended := make(chan struct{})
		go func() { // a UI drawn for a dumb terminal would run on
			select {
			case <-ended:
			case <-time.After(testrun.Patience):
				_ = cmd.Process.Kill()
			}
		}()
		out, _ := io.ReadAll(ptmx) // EIO once swarm has exited
		close(ended)
		ptmx.Close()
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("swarm %v: %v, want exit status 2", args, err)
		}
		text := strings.TrimSpace(string(out))
		if strings.ContainsRune(text, '\x1b') || strings.Count(text, "\n") != 0 || !strings.Contains(text, want) {
			t.Errorf("swarm %v with TERM=%q printed %q", args, term, out)
		}
	}
	if _, err := os.Stat(filepath.Join(e.cwd, ".swarm", "swarm.sock")); err == nil {
		t.Error("a swarm was started for a dumb terminal")
		e.run("stop")
	}
}

// A swarm stopped (SIGSTOP; a frozen container or a paused VM, where its
// agents stop too) for longer than a recipient's patience while a message
// it typed in waits for its echo still confirms the message when the
// recipient shows it, a moment after both go on: the time swarm was away
// is not the recipient's silence.
func TestASwarmStoppedWhileAMessageWaitsForItsEchoConfirmsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	// w shows the line it read only once told to, after swarm goes on.
	w := `stty -echo; echo ready; IFS= read -r l; touch typed; until [ -e go ]; do sleep 0.05; done; printf '%s\n' "$l"; exec sleep 300`
	cfg := agentTOML("a", "never", `echo "@relay:w wake up"; exec sleep 300`) + agentTOML("w", "never", w)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := e.server()
	waitUntil(t, "w read the message", func() bool {
		_, err := os.Stat(filepath.Join(e.cwd, "typed"))
		return err == nil
	})
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	t.Cleanup(func() { _ = srv.cmd.Process.Signal(syscall.SIGCONT) })
	// A program's patience is 10 s (supervisor's profiles).
	waitUntil(t, "swarm stopped for longer than w's patience", func() bool { return time.Since(stopped) > 12*time.Second })
	if err := srv.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cwd, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b := trialBus(t, e)
	var d bus.Delivery
	waitUntil(t, "the delivery to w ended", func() bool {
		msgs, err := b.Messages(t.Context(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Body == "wake up" && len(m.Deliveries) == 1 {
				d = m.Deliveries[0]
				return d.State != bus.DeliveryQueued && d.State != bus.DeliveryInjected
			}
		}
		return false
	})
	if d.State != bus.DeliveryConfirmed {
		t.Errorf("the delivery to w is %v (%s), want confirmed", d.State, d.Error)
	}
}
