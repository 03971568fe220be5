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

// A server whose directory is removed (rm -rf of the project), or whose
// bus.db is replaced, stops its agents and ends, saying why: it would
// otherwise run on unreachable (its socket gone), writing to a file no
// one reads.
func TestAServerEndsWhenItsBusIsRemovedOrReplaced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, why string
		change    func(t *testing.T, project string)
	}{
		{"the project directory removed", "was removed", func(t *testing.T, project string) {
			if err := os.RemoveAll(project); err != nil {
				t.Fatal(err)
			}
		}},
		{"bus.db replaced", "was replaced by another file", func(t *testing.T, project string) {
			db := filepath.Join(project, ".swarm", "bus.db")
			if err := os.Rename(db, db+".away"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(db, []byte(strings.Repeat("random bytes ", 500)), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.dir = ""
			pids := t.TempDir() // outside the project, which may go
			cfg := agentTOML("a", "always", "echo $$ > "+filepath.Join(pids, "a.pid")+"; echo ready; exec sleep 300")
			if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			srv := e.server()
			agent := pidIn(t, filepath.Join(pids, "a.pid"))
			serverPid(t, filepath.Join(e.cwd, ".swarm"))
			tc.change(t, e.cwd)
			if code := srv.exited(t, tc.name); code != 1 {
				t.Errorf("the server exited %d, want 1", code)
			}
			out := srv.out.String()
			if !strings.Contains(out, tc.why) || !strings.Contains(out, "stopped every agent and ended") {
				t.Errorf("the server's log does not say why it ended:\n%s", out)
			}
			requireGone(t, []int{agent})
			if _, err := os.Stat(e.cwd); err == nil {
				if log, _ := os.ReadFile(filepath.Join(e.cwd, ".swarm", "swarm.log")); !strings.Contains(string(log), tc.why) {
					t.Errorf("swarm.log does not say why the swarm stopped:\n%s", log)
				}
			}
		})
	}
}

// waitFile waits until file holds a whole line and returns what it holds.
func waitFile(t *testing.T, file string) string {
	t.Helper()
	var s string
	waitUntil(t, filepath.Base(file)+" written", func() bool {
		b, _ := os.ReadFile(file)
		s = string(b)
		return strings.HasSuffix(s, "\n")
	})
	return s
}

// An agent cannot approve its own task as the human by leaving its
// process (setsid -f, a double fork, both) and dropping swarm's variables:
// the swarm is its agents' subreaper, so what they start stays below it;
// in the agent's session it is the agent's, out of it no one's.
func TestAnAgentThatLeavesItsProcessIsNeverTheHuman(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	strip := "env -u SWARM_TOKEN -u SWARM_AGENT swarm task approve $id"
	script := `while [ ! -s id ]; do sleep 0.05; done; id=$(cat id); swarm task start $id >/dev/null && swarm task done $id >/dev/null; ` +
		`echo reviewed > in-review; ` +
		`setsid -f ` + strip + ` > setsid-f.txt 2>&1; ` + // the escape: a new session, re-parented at once
		`( ( ` + strip + ` > double-fork.txt 2>&1 & ) & ); ` + // orphaned, still in the agent's session
		`( setsid ` + strip + ` > both.txt 2>&1 & ); ` + // orphaned and out of the session
		`exec sleep 300`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("w", "never", script)), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	waitUntil(t, "w registered", func() bool {
		out, _, _ := e.run("status", "--json")
		return strings.Contains(out, `"name":"w"`)
	})
	id := strings.TrimSpace(e.ok("task", "add", "--to", "w", "approve me yourself"))
	if err := os.WriteFile(filepath.Join(e.cwd, "id"), []byte(id+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(e.cwd, "in-review"))
	outs := map[string]string{}
	for _, f := range []string{"setsid-f.txt", "double-fork.txt", "both.txt"} {
		outs[f] = waitFile(t, filepath.Join(e.cwd, f))
	}
	if show := e.ok("task", "show", id, "--json"); !strings.Contains(show, `"state":"IN_REVIEW"`) {
		t.Errorf("the task left review:\n%s", show)
	}
	for f, want := range map[string]string{
		"setsid-f.txt":    "a process that left its agent (setsid, a double fork) acts for no one",
		"double-fork.txt": "only the human reviewer moves tasks this way; this runs as agent w",
		"both.txt":        "a process that left its agent (setsid, a double fork) acts for no one",
	} {
		if !strings.Contains(outs[f], want) || strings.Contains(outs[f], "APPROVED") {
			t.Errorf("%s: %q, want a refusal saying %q", f, outs[f], want)
		}
	}
	up.stop(t, syscall.SIGTERM)
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

// What an agent starts and leaves running (setsid, a daemon) is listed by
// swarm status while it runs, ended when the agent's process ends, and
// what no agent's end took (it dropped its token) when the swarm stops —
// SIGKILL for what ignores SIGTERM. Nothing is left a zombie.
func TestWhatAnAgentLeavesRunningEndsWithIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	daemon := func(name, prefix string) string {
		return `( ` + prefix + `setsid sh -c 'echo $$ > ` + name + `.pid; exec sleep 300' & ); `
	}
	quitter := daemon("a1", "") + daemon("a2", "") + `while [ ! -e quit ]; do sleep 0.05; done; exit 0`
	stayer := daemon("b1", "") +
		`( setsid sh -c 'trap "" TERM HUP; echo $$ > b2.pid; exec sleep 300' & ); ` + // ignores SIGTERM
		daemon("b3", "env -u SWARM_TOKEN -u SWARM_AGENT ") + // its agent cannot be told
		`exec sleep 300`
	cfg := agentTOML("a", "never", quitter) + agentTOML("b", "never", stayer)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	pid := func(name string) int { return pidIn(t, filepath.Join(e.cwd, name+".pid")) }
	a1, a2, b1, b2, b3 := pid("a1"), pid("a2"), pid("b1"), pid("b2"), pid("b3")
	t.Cleanup(func() {
		for _, p := range []int{a1, a2, b1, b2, b3} {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	e.dir = filepath.Join(e.cwd, ".swarm")
	waitUntil(t, "swarm status listing what left the agents' sessions", func() bool {
		a, b, unknown := detachedFrom(t, e, "a"), detachedFrom(t, e, "b"), detachedFrom(t, e, "")
		return a[a1] && a[a2] && b[b1] && b[b2] && unknown[b3]
	})
	if out := e.ok("status"); !strings.Contains(out, "left their agent's session (5)") || !strings.Contains(out, "dropped its token") {
		t.Errorf("swarm status:\n%s", out)
	}

	// a ends: what it left ends with it; b's go on.
	if err := os.WriteFile(filepath.Join(e.cwd, "quit"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	requireGone(t, []int{a1, a2})
	for _, p := range []int{b1, b2, b3} {
		if gone(p) {
			t.Fatalf("b's process %d ended with a", p)
		}
	}
	server := up.cmd.Process.Pid
	for _, c := range children(server) {
		if st, _ := procField(c, 3); st == "Z" {
			t.Errorf("the swarm left its adopted child %d a zombie", c)
		}
	}

	// The swarm stops: everything below it ends.
	up.stop(t, syscall.SIGTERM)
	requireGone(t, []int{b1, b2, b3})
}

// A swarm killed outright cannot end what its agents left outside their
// process groups; the next swarm on the bus does.
func TestTheNextSwarmEndsTheDaemonsAKilledOneLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	script := `( setsid sh -c 'trap "" HUP; echo $$ > d.pid; exec sleep 300' & ); exec sleep 300`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", script)), 0o600); err != nil {
		t.Fatal(err)
	}
	first := e.start("up", "--headless")
	d := pidIn(t, filepath.Join(e.cwd, "d.pid"))
	t.Cleanup(func() { _ = syscall.Kill(d, syscall.SIGKILL) })
	_ = first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.done
	_ = first.cmd.Wait()
	if gone(d) {
		t.Fatal("the daemon died with swarm: this test needs a leftover")
	}
	second := e.start("up", "--headless")
	requireGone(t, []int{d})
	waitUntil(t, "the notice", func() bool { return second.has("ended now: sleep (pid " + strconv.Itoa(d) + ")") })
	second.stop(t, syscall.SIGTERM)
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
	if l := lsEntries(t, without(e.command("ls", "--json"), "XDG_CACHE_HOME"), busDir); len(l) != 1 || l[0]["reachable"] != true {
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
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", "echo done; exit 0")), 0o600); err != nil {
		t.Fatal(err)
	}
	busDir := filepath.Join(e.cwd, ".swarm")
	srv := e.server()
	var l []map[string]any
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

// An agent's log that cannot be written (/dev/full: every write fails as
// on a full disk) is reported, in swarm status and as a notice (the UI's
// status line; the headless log here), and written again once it can be.
func TestAnAgentsLogThatCannotBeWrittenIsReportedAndGoesOn(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	e := newEnv(t)
	e.dir = ""
	script := `i=0; while [ ! -e go-on ]; do i=$((i+1)); echo "tick $i"; sleep 0.05; done; echo after-recovery; exec sleep 300`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", script)), 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(e.cwd, ".swarm", "logs", "a.log")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", log); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	waitUntil(t, "the notice", func() bool { return up.has("its log " + log + " cannot be written (no space left on device)") })
	if out := e.ok("status"); !strings.Contains(out, "its log cannot be written (no space left on device); retrying") {
		t.Errorf("swarm status:\n%s", out)
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cwd, "go-on"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the log written again", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "after-recovery") && up.has("its log is written again")
	})
	if out := e.ok("status", "--json"); strings.Contains(out, "log_problem") {
		t.Errorf("swarm status still reports a problem:\n%s", out)
	}
	up.stop(t, syscall.SIGTERM)
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

// With TERM=dumb the UI is refused in one line before anything is drawn:
// no alternate screen, mouse or keyboard modes, no escape sequence at all.
func TestADumbTerminalGetsNoEscapeSequences(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("a", "never", "exec sleep 300")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"attach"}, {"demo", "tictactoe"}} {
		cmd := e.command(args...)
		cmd.Env = append(cmd.Env, "TERM=dumb")
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
		if strings.ContainsRune(text, '\x1b') || strings.Count(text, "\n") != 0 || !strings.Contains(text, "TERM is dumb") {
			t.Errorf("swarm %v printed %q", args, out)
		}
	}
	if _, err := os.Stat(filepath.Join(e.cwd, ".swarm", "swarm.sock")); err == nil {
		t.Error("a swarm was started for a dumb terminal")
		e.run("stop")
	}
}
