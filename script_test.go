package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"swarm/bus"
)

// TestScripts runs the command line's end-to-end cases that are written
// as scripts: testdata/script/*.txtar, in the language of go-internal's
// testscript (its commands: exec, stdout, stderr, exists, cmp, env, …;
// `go doc github.com/rogpeppe/go-internal/testscript`). A new case is a
// new file there (CONTRIBUTING.md). Each script runs in a directory of
// its own, $WORK, with its bus in $WORK/bus ($SWARM_DIR), as the human;
// these commands are swarm's:
//
//	swarm ARGS...     runs the swarm binary built for these tests; with !,
//	                  it must fail with one error line on stderr, starting
//	                  "swarm: ", as every failing command does
//	status N          the last swarm command exited with status N
//	register [-nomessages] NAME...
//	                  registers agents on the bus as a running swarm does,
//	                  each with the token `as` hands it (-nomessages:
//	                  agents that take no messages)
//	as NAME           the commands after it run as agent NAME (its
//	                  $SWARM_AGENT and $SWARM_TOKEN); `as human` ends that
//	claim NAME        they run with $SWARM_AGENT=NAME but no token: a
//	                  process pretending to be that agent
//
// Run one script with `go test -run TestScripts/NAME .`.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		RequireUniqueNames: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("SWARM_DIR", filepath.Join(e.WorkDir, "bus"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(e.WorkDir, ".cache"))
			e.Values[lastStatus{}] = new(int)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"swarm":    scriptSwarm,
			"status":   scriptStatus,
			"register": scriptRegister,
			"as": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: as NAME")
				}
				if args[0] == bus.Human {
					ts.Setenv("SWARM_AGENT", "")
					ts.Setenv("SWARM_TOKEN", "")
					return
				}
				ts.Setenv("SWARM_AGENT", args[0])
				ts.Setenv("SWARM_TOKEN", testToken(args[0]))
			},
			"claim": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: claim NAME")
				}
				ts.Setenv("SWARM_AGENT", args[0])
				ts.Setenv("SWARM_TOKEN", "")
			},
		},
	})
}

// lastStatus keys a script's last swarm exit status in its Values.
type lastStatus struct{}

func scriptSwarm(ts *testscript.TestScript, neg bool, args []string) {
	err := ts.Exec(swarmBin, args...)
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("swarm %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	*ts.Value(lastStatus{}).(*int) = code
	switch {
	case neg && code == 0:
		ts.Fatalf("swarm %s succeeded, want a failure", strings.Join(args, " "))
	case !neg && code != 0:
		ts.Fatalf("swarm %s: exit status %d", strings.Join(args, " "), code)
	case neg:
		if stderr := ts.ReadFile("stderr"); strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "swarm: ") {
			ts.Fatalf("swarm %s: stderr is not one error line: %q", strings.Join(args, " "), stderr)
		}
	}
}

func scriptStatus(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: status N")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status %s: %v", args[0], err)
	}
	if got := *ts.Value(lastStatus{}).(*int); (got == want) == neg {
		ts.Fatalf("the last swarm exited with status %d (want %s%d)", got, map[bool]string{true: "not "}[neg], want)
	}
}

func scriptRegister(ts *testscript.TestScript, neg bool, args []string) {
	noMessages := len(args) > 0 && args[0] == "-nomessages"
	if noMessages {
		args = args[1:]
	}
	if neg || len(args) == 0 {
		ts.Fatalf("usage: register [-nomessages] NAME...")
	}
	b, err := bus.Open(bus.Options{Dir: ts.Getenv("SWARM_DIR")})
	ts.Check(err)
	defer b.Close()
	ctx := context.Background()
	for _, n := range args {
		ts.Check(b.RegisterAgent(ctx, bus.Agent{Name: n, Cmd: "sh", State: bus.AgentRunning, NoMessages: noMessages}))
		ts.Check(b.SetAgentToken(ctx, n, testToken(n)))
	}
}
