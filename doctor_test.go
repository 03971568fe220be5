package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// swarm doctor finds what swarm up refuses (here worktree = true outside
// a git repository), names the program of a shell loop (the shell), and
// judges a CLI's kit by what the CLI itself says it loaded: a Gemini that
// skipped its settings fails, and so do settings Gemini could not read.
func TestDoctorFindsWhatUpRefusesAndWhatTheCLILoaded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = filepath.Join(e.cwd, ".swarm")
	bin := filepath.Join(e.cwd, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fakeCLIs(t, bin, "gemini")
	home := filepath.Join(e.cwd, "home")
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.extra = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home}
	conf := `[[agent]]
name = "loop"
cmd = "while read l; do echo $l; done"
worktree = true

[[agent]]
name = "gem"
kind = "gemini"
`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	refusal := "agent loop has worktree = true, but"
	e.fails(1, []string{"up", "--headless"}, refusal)
	out := e.fails(1, []string{"doctor"}, "doctor: 1 problem(s)")
	for _, want := range []string{"swarm up would refuse to start:\n  FAIL  " + refusal, "ok    sh is ", "ok    gemini mcp list: ✓ swarm: "} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "while is") {
		t.Errorf("doctor names the shell's keyword as the program:\n%s", out)
	}

	// A Gemini that loaded nothing of the kit fails, whatever swarm wrote.
	e.extra = append(e.extra, "FAKE_CLI_NO_KIT=1")
	out = e.fails(1, []string{"doctor"}, "doctor: 2 problem(s)")
	if !strings.Contains(out, "FAIL  gemini mcp list: swarm's MCP server is not loaded: swarm is not among its MCP servers: No MCP servers configured.") {
		t.Errorf("doctor:\n%s", out)
	}
	// Settings Gemini cannot read: no kit, and doctor says why.
	e.extra = e.extra[:2]
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = e.fails(1, []string{"doctor"}, "doctor: 2 problem(s)")
	if !strings.Contains(out, "FAIL  kit not wired: "+filepath.Join(home, ".gemini", "settings.json")+" cannot be read as Gemini reads it") {
		t.Errorf("doctor:\n%s", out)
	}
}
