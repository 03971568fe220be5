package supervisor

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"swarm/checks"
)

func TestChecksConfig(t *testing.T) {
	t.Parallel()
	const agents = `
[[agent]]
name = "w"
cmd = "sh"
checks = ["make lint"]

[[agent]]
name = "rev"
cmd = "sh"
`
	cfg, err := ParseConfig(filepath.Join(t.TempDir(), "swarm.toml"), []byte(`
[checks]
run = ["go build ./...", "go test ./..."]
timeout = "2m"
review_by = "rev"
review_required = true
parallel = 3
`+agents))
	if err != nil {
		t.Fatal(err)
	}
	want := &ChecksConfig{Run: []string{"go build ./...", "go test ./..."}, Timeout: 2 * time.Minute, ReviewBy: "rev", ReviewRequired: true, Parallel: 3}
	if d := cmp.Diff(want, cfg.Checks); d != "" {
		t.Errorf("[checks] (-want +got):\n%s", d)
	}
	if w := cfg.Agents[0]; !w.OwnChecks || !cmp.Equal(w.Checks, []string{"make lint"}) || cfg.Agents[1].OwnChecks {
		t.Errorf("agents' own checks: %+v / %+v", w, cfg.Agents[1])
	}

	// No [checks]: none, unless an agent has checks of its own, which
	// bring the table in with its defaults.
	cfg, err = ParseConfig("swarm.toml", []byte("[[agent]]\nname = \"a\"\ncmd = \"sh\"\n"))
	if err != nil || cfg.Checks != nil {
		t.Errorf("no [checks]: %+v, %v", cfg.Checks, err)
	}
	cfg, err = ParseConfig("swarm.toml", []byte(agents))
	if err != nil {
		t.Fatal(err)
	}
	want = &ChecksConfig{Timeout: DefaultCheckTimeout, Parallel: checks.DefaultParallel()}
	if d := cmp.Diff(want, cfg.Checks); d != "" {
		t.Errorf("[checks] implied by an agent's (-want +got):\n%s", d)
	}
}

func TestChecksConfigErrors(t *testing.T) {
	t.Parallel()
	const agent = "\n[[agent]]\nname = \"alice\"\ncmd = \"sh\"\n"
	for _, c := range []struct{ name, src, want string }{
		{"unknown key", "[checks]\nrun = []\ntimout = \"1m\"\n" + agent,
			`swarm.toml:3: unknown key "timout" in [checks] (did you mean "timeout"?)`},
		{"run not an array", "[checks]\nrun = \"make\"\n" + agent,
			`swarm.toml:2: checks run must be an array of shell commands such as ["go build ./...", "go test ./..."], not the string "make"`},
		{"run element not a string", "[checks]\nrun = [\"make\", 5]\n" + agent,
			`swarm.toml:2: checks run element 2 must be a string (a shell command), not the number 5`},
		{"blank command", "[checks]\nrun = [\"make\", \" \"]\n" + agent,
			`swarm.toml:2: checks run element 2 is empty`},
		{"timeout without unit", "[checks]\ntimeout = 10\n" + agent,
			`swarm.toml:2: checks timeout = 10 needs a unit: write "10ms" or "10s"`},
		{"reviewer not an agent", "[checks]\nreview_by = \"alcie\"\n" + agent,
			`swarm.toml:2: checks review_by "alcie" is not an agent of this file (did you mean "alice"?)`},
		{"review required without reviewer", "[checks]\nreview_required = true\n" + agent,
			`swarm.toml:2: checks review_required = true needs a reviewer: review_by = "NAME"`},
		{"parallel out of range", "[checks]\nparallel = 0\n" + agent,
			`swarm.toml:2: checks parallel 0 is out of range (1 to 1000)`},
		{"checks as an array of tables", "[[checks]]\nrun = []\n" + agent,
			`swarm.toml:1: checks must be a table ([checks]), not an array`},
		{"agent checks not an array", agent + "checks = \"make\"\n",
			`swarm.toml:5: agent "alice": checks must be an array of shell commands such as ["go test ./..."], not the string "make"`},
		{"agent checks element blank", agent + "checks = [\"\"]\n",
			`swarm.toml:5: agent "alice": checks element 1 is empty`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("swarm.toml", []byte(c.src))
			if err == nil || err.Error() != c.want {
				t.Errorf("error:\n got %v\nwant %s", err, c.want)
			}
		})
	}
}
