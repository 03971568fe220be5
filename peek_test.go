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
