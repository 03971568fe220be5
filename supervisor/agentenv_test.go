package supervisor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"swarm/bus"
)

// envOf reads an environment written by `env`.
func envOf(path string) map[string]string {
	out := map[string]string{}
	for _, l := range readLines(path) {
		if k, v, ok := strings.Cut(l, "="); ok {
			out[k] = v
		}
	}
	return out
}

// An agent does not inherit the terminal swarm was started in (tmux's
// session and pane, screen's, the terminal program, its size), unless its
// config sets them; it gets swarm as .swarm/bin/swarm, a link to the
// running binary, last on its PATH and in SWARM_BIN; and its brief names
// that link by its absolute path, which works from a login shell's PATH
// and whatever the binary is called.
func TestAnAgentsEnvironmentAndItsSwarm(t *testing.T) {
	for k, v := range map[string]string{
		"TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%3", "STY": "1.pts-0.host", "TERM_PROGRAM": "iTerm.app",
		"COLUMNS": "211", "KITTY_WINDOW_ID": "4", "ZELLIJ_SESSION_NAME": "z", "SWARM_TEST_KEPT": "yes",
	} {
		t.Setenv(k, v)
	}
	h := newHarness(t)
	// The swarm binary under another name, as a build may leave it.
	exe := filepath.Join(t.TempDir(), "swarm-dev")
	if err := os.Symlink(os.Args[0], exe); err != nil {
		t.Fatal(err)
	}
	dump := func(name string) AgentConfig {
		script := `env > "$OUT"; echo ready; exec cat`
		return AgentConfig{Name: name, Argv: []string{"sh", "-c", script}, Cmd: script, Restart: RestartNever, Confirm: true,
			Env: map[string]string{"OUT": h.path(name + ".env")}}
	}
	own := dump("own")
	own.Env["TMUX"] = "mine"
	briefed := scripted("briefed", "listen", map[string]string{"LOG": h.path("briefed.log")})
	briefed.Brief = true
	h.run(Options{Executable: exe}, dump("plain"), own, briefed)
	h.running("plain")
	h.running("own")
	h.waitFor("the environments written", func() bool { return len(readLines(h.path("own.env"))) > 0 && len(readLines(h.path("plain.env"))) > 0 })

	env := envOf(h.path("plain.env"))
	for _, k := range []string{"TMUX", "TMUX_PANE", "STY", "TERM_PROGRAM", "COLUMNS", "KITTY_WINDOW_ID", "ZELLIJ_SESSION_NAME"} {
		if v, ok := env[k]; ok {
			t.Errorf("the agent inherited %s=%s", k, v)
		}
	}
	if env["SWARM_TEST_KEPT"] != "yes" || env["TERM"] != "xterm-256color" {
		t.Errorf("the rest of the environment: %v", env)
	}
	if got := envOf(h.path("own.env"))["TMUX"]; got != "mine" {
		t.Errorf("a TMUX the config sets: %q", got)
	}

	link := filepath.Join(h.dir, ".swarm", "bin", "swarm")
	if target, err := os.Readlink(link); err != nil || target != exe {
		t.Fatalf("the link: %q %v", target, err)
	}
	if env["SWARM_BIN"] != link || !strings.HasSuffix(env["PATH"], ":"+filepath.Dir(link)) {
		t.Errorf("SWARM_BIN=%s PATH=%s", env["SWARM_BIN"], env["PATH"])
	}
	// From a login shell's PATH, which knows nothing of swarm's, the
	// link named in the brief still runs this binary (here the test
	// binary, as a scripted agent: it says "listening").
	h.waitFor("the brief", func() bool {
		msgs, _ := h.bus.Messages(t.Context(), 0, 100)
		for _, m := range msgs {
			if m.Kind == bus.KindBrief && m.To == "briefed" {
				return strings.Contains(m.Body, "`"+link+" task start`")
			}
		}
		return false
	})
	cmd := exec.Command("/bin/sh", "-c", "PATH=/usr/bin:/bin; command -v swarm || \""+link+"\"")
	cmd.Env = []string{"SWARM_TEST_AGENT=listen", "LOG=" + h.path("login.log")}
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "listening") {
		t.Errorf("the link from a login shell's PATH: %v %q", err, out)
	}
}
