package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"swarm/supervisor"
)

// attachConfig is a swarm of a shell (taking messages, as comments) and
// an agent that counts.
const attachConfig = `[[agent]]
name = "sh"
cmd = "PS1='$ ' exec sh"
messages = true

[[agent]]
name = "tick"
cmd = "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.1; done"
`

// lastTick returns the highest count swarm peek shows of the tick agent,
// -1 when none.
func lastTick(t *testing.T, e *env) int {
	t.Helper()
	out, _, _ := e.run("peek", "tick")
	return shownTick(out)
}

// shownTick returns the highest count of the tick agent a screen shows,
// -1 when none.
func shownTick(screen string) int {
	n := -1
	for _, m := range regexp.MustCompile(`tick (\d+)`).FindAllStringSubmatch(screen, -1) {
		if v, _ := strconv.Atoi(m[1]); v > n {
			n = v
		}
	}
	return n
}

// children returns the direct children of pid: a server's agents.
func children(pid int) []int {
	var out []int
	for _, p := range descendants(pid) {
		if pp, ok := procField(p, 4); ok && pp == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// serverPid returns the pid of the swarm holding the bus directory's lock.
func serverPid(t *testing.T, busDir string) int {
	t.Helper()
	var pid int
	waitUntil(t, "the server", func() bool {
		var running bool
		pid, running = supervisor.SwarmRunning(busDir)
		return running && pid != 0 // 0: the lock taken, the pid not yet written
	})
	return pid
}

// TestAgentsOutliveTheUI: swarm starts its agents in a server and attaches
// the UI; the UI killed outright, the agents go on; swarm attach shows
// them again and types into them; detached, they go on; swarm stop ends
// them all.
func TestAgentsOutliveTheUI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = "" // the bus in ./.swarm, where up keeps it
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(attachConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	ui := startTUI(t, e.cwd, 30, 120)
	ui.waitText("tick · running", "sh · running")
	server := serverPid(t, filepath.Join(e.cwd, ".swarm"))
	if server == ui.cmd.Process.Pid {
		t.Fatal("the agents run in the UI's process")
	}
	agents := children(server)
	if len(agents) != 2 {
		t.Fatalf("the server runs %d agents, want 2", len(agents))
	}

	// The UI dies; the agents do not, and their output keeps coming.
	_ = ui.cmd.Process.Signal(syscall.SIGKILL)
	_ = ui.waitExit()
	before := lastTick(t, e)
	waitUntil(t, "the count going on without a UI", func() bool { return lastTick(t, e) > before+5 })
	for _, p := range agents {
		if gone(p) {
			t.Fatalf("agent process %d ended with the UI", p)
		}
	}

	// Attached again: the current screens (a count at least as far as the
	// one before the attach: on a busy machine the pane may be a frame
	// behind the agent), and keys reach the shell.
	n := lastTick(t, e)
	ui2 := startTUI(t, e.cwd, 30, 120, "attach")
	ui2.waitText("tick · running", "sh · running")
	ui2.waitFor(fmt.Sprintf("a count from %d on in its pane", n), func(s string) bool { return shownTick(s) >= n })
	ui2.press(keyEnter)
	ui2.waitText("ATTACHED sh")
	ui2.press("echo hello-$((40+2))")
	ui2.press(keyEnter)
	ui2.waitFor("the shell's answer", func(s string) bool { return strings.Contains(s, "hello-42") })
	ui2.press(keyDetach)
	ui2.waitFor("the pane detached", func(s string) bool { return !strings.Contains(s, "ATTACHED sh") })

	// Leaving asks; detaching leaves the agents running.
	ui2.press("q")
	ui2.waitText("Leave the swarm?")
	ui2.press("d")
	if err := ui2.waitExit(); err != nil {
		t.Fatalf("swarm attach exited with %v", err)
	}
	if out, _, _ := e.run("peek", "sh"); !strings.Contains(out, "hello-42") {
		t.Errorf("sh's screen after the detach:\n%s", out)
	}

	// swarm stop ends the server and every agent, and returns after.
	if out := e.ok("stop"); strings.TrimSpace(out) != "stopped" {
		t.Errorf("swarm stop printed %q", out)
	}
	requireGone(t, append(agents, server))
	e.fails(1, []string{"peek", "tick"}, "no swarm is running")
}

// TestTwoClientsSeeTheSameAgents: two UIs attached at once both show the
// agents live; what one types, the other sees.
func TestTwoClientsSeeTheSameAgents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(attachConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	serverPid(t, filepath.Join(e.cwd, ".swarm"))
	waitUntil(t, "the socket", func() bool { return lastTick(t, e) > 0 })
	a := startTUI(t, e.cwd, 30, 120, "attach")
	b := startTUI(t, e.cwd, 24, 100, "attach")
	for _, ui := range []*tuiTerm{a, b} {
		ui.waitText("tick · running", "sh · running")
	}
	n := lastTick(t, e)
	for _, ui := range []*tuiTerm{a, b} {
		ui.waitFor("a later count", func(s string) bool { return shownTick(s) > n })
	}
	a.press(keyEnter)
	a.waitText("ATTACHED sh")
	a.press("echo from-a-$((1+1))")
	a.press(keyEnter)
	b.waitFor("a's line in b", func(s string) bool { return strings.Contains(s, "from-a-2") })
	// Each has its own selection: b is not attached to sh.
	if strings.Contains(b.text(), "ATTACHED") {
		t.Errorf("b follows a's attachment:\n%s", b.text())
	}
	a.press(keyDetach)
	for _, ui := range []*tuiTerm{a, b} {
		ui.press("q")
		ui.waitText("Leave the swarm?")
		ui.press("d")
		if err := ui.waitExit(); err != nil {
			t.Fatalf("swarm attach exited with %v", err)
		}
	}
	if code := up.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm up --headless exited %d", code)
	}
}

// TestAKilledServerTakesItsAgents: the server killed outright takes its
// agents with it, the attached UI says the swarm stopped, and the next
// swarm starts afresh on the same bus.
func TestAKilledServerTakesItsAgents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(attachConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	ui := startTUI(t, e.cwd, 30, 120)
	ui.waitText("tick · running")
	busDir := filepath.Join(e.cwd, ".swarm")
	server := serverPid(t, busDir)
	agents := children(server)
	e.dir = busDir
	e.ok("send", "sh", "kept across swarms")
	e.dir = ""

	_ = syscall.Kill(server, syscall.SIGKILL)
	requireGone(t, append(agents, server))
	ui.waitText("the swarm stopped")
	if err := ui.waitExit(); err == nil {
		t.Error("the UI of a killed swarm exited 0")
	}

	ui2 := startTUI(t, e.cwd, 30, 120)
	ui2.waitText("tick · running")
	if next := serverPid(t, busDir); next == server {
		t.Fatalf("the same server %d", next)
	}
	e.dir = busDir
	if log := e.ok("log"); !strings.Contains(log, "kept across swarms") {
		t.Errorf("the bus lost a message:\n%s", log)
	}
	if err := ui2.quit(); err != nil {
		t.Fatalf("quit: %v", err)
	}
}

// swarm in a directory whose swarm runs attaches to it, and says so when
// swarm.toml changed since it started (the running swarm has the old one).
func TestSwarmAttachesToTheRunningOneAndSaysWhenItsConfigChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	cfgPath := filepath.Join(e.cwd, "swarm.toml")
	if err := os.WriteFile(cfgPath, []byte(attachConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	server := serverPid(t, filepath.Join(e.cwd, ".swarm"))
	waitUntil(t, "the socket", func() bool { return lastTick(t, e) > 0 })
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(cfgPath, later, later); err != nil {
		t.Fatal(err)
	}
	ui := startTUI(t, e.cwd, 30, 120)
	ui.waitText("tick · running", "swarm.toml changed since this swarm started")
	if now := serverPid(t, filepath.Join(e.cwd, ".swarm")); now != server {
		t.Errorf("a second swarm (%d) started beside %d", now, server)
	}
	ui.press("q")
	ui.waitText("Leave the swarm?")
	ui.press("d")
	if err := ui.waitExit(); err != nil {
		t.Fatalf("swarm exited with %v", err)
	}
	if code := up.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm up --headless exited %d", code)
	}
}
