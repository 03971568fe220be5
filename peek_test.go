package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// swarm peek prints an agent's screen as the running swarm has it, as
// plain text (what the agent drew never reaches the terminal as control
// sequences), also from inside another agent; with no swarm running it
// says so.
func TestPeekPrintsAnAgentsScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = "" // the bus in ./.swarm, where up keeps it
	cfg := `[[agent]]
name = "a"
restart = "never"
cmd = "printf '\\033[1;31mred\\033[0m alert \\033]52;c;aGk=\\007 done\\n'; exec sleep 300"

[[agent]]
name = "b"
restart = "never"
cmd = "until grep -q done seen.txt 2>/dev/null; do swarm peek a > seen.txt; sleep 0.1; done; exec sleep 300"
`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fails(1, []string{"peek", "a"}, "no swarm is running")
	up := e.start("up", "--headless")
	want := "red alert  done"
	var out string
	waitUntil(t, "a's screen through peek", func() bool {
		out, _, _ = e.run("peek", "a")
		return strings.Contains(out, want)
	})
	if strings.ContainsAny(out, "\x1b\x07") || strings.HasSuffix(out, "\n\n") {
		t.Errorf("peek printed control characters or trailing blank rows: %q", out)
	}
	var r struct {
		Agent string   `json:"agent"`
		Rows  int      `json:"rows"`
		Cols  int      `json:"cols"`
		Lines []string `json:"lines"`
	}
	if err := json.Unmarshal([]byte(e.ok("peek", "a", "--json")), &r); err != nil || r.Agent != "a" || r.Rows == 0 || len(r.Lines) != r.Rows || r.Lines[0] != want {
		t.Errorf("peek --json: %+v %v", r, err)
	}
	waitUntil(t, "b's peek at a", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "seen.txt"))
		return strings.Contains(string(b), want)
	})
	e.fails(1, []string{"peek", "nobody"}, `unknown agent "nobody"`)

	// A swarm killed outright leaves its socket file: that is no swarm.
	_ = up.cmd.Process.Signal(syscall.SIGKILL)
	<-up.done
	_ = up.cmd.Wait()
	e.fails(1, []string{"peek", "a"}, "no swarm is running")
}

// While a swarm runs, swarm send, task and heartbeat make their requests
// through it (attributed as on the bus: an agent's token, its process),
// and swarm status shows what each agent's screen shows now.
func TestCommandsGoThroughTheRunningSwarm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	cfg := "[[agent]]\nname = \"a\"\nrestart = \"never\"\ncmd = \"echo ready-and-waiting; swarm heartbeat --status idle; exec cat > a.raw\"\n"
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.start("up", "--headless")
	busDir := filepath.Join(e.cwd, ".swarm")
	serverPid(t, busDir)
	waitUntil(t, "a's screen", func() bool { out, _, _ := e.run("peek", "a"); return strings.Contains(out, "ready-and-waiting") })
	connections := func() int {
		b, _ := os.ReadFile(filepath.Join(busDir, "swarm.log"))
		return strings.Count(string(b), "socket: connection ended")
	}
	// The agent's heartbeat went through the swarm: from a, by its token.
	waitUntil(t, "a's heartbeat", func() bool {
		var st struct {
			Agents []struct {
				Name      string `json:"name"`
				Screen    string `json:"screen"`
				Heartbeat *struct {
					Status string `json:"status"`
				} `json:"heartbeat"`
			} `json:"agents"`
		}
		out, _, _ := e.run("status", "--json")
		return json.Unmarshal([]byte(out), &st) == nil && len(st.Agents) == 1 && st.Agents[0].Heartbeat != nil &&
			st.Agents[0].Heartbeat.Status == "idle" && st.Agents[0].Screen == "ready-and-waiting"
	})
	if out := e.ok("status"); !strings.Contains(out, "SCREEN") || !strings.Contains(out, "ready-and-waiting") {
		t.Errorf("status without the screens:\n%s", out)
	}
	before := connections()
	e.ok("send", "a", "through the swarm")
	id := strings.TrimSpace(e.ok("task", "add", "--to", "a", "a task"))
	waitUntil(t, "the server's lines for both", func() bool { return connections() >= before+2 })
	waitUntil(t, "a to read the message", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "a.raw"))
		return strings.Contains(string(b), "through the swarm")
	})
	// Refusals read as on the bus, with the same exit status.
	e.fails(2, []string{"send", "a", "x", "--data", "{bad"}, "--data")
	e.claiming("a").fails(1, []string{"task", "start", id}, `$SWARM_AGENT is "a", but this is not agent a's process`)
	e.dir = busDir
	for _, m := range jsonLines(t, e.ok("log", "--json")) {
		if m["body"] == "through the swarm" && m["from"] != "human" {
			t.Errorf("the message is from %v, not the human", m["from"])
		}
	}
}
