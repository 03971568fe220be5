package main

// Tests of the second fault trial's findings (RELIABILITY.md): the swarm
// as a user runs it, the built binary with real agents, and what a user
// (or an agent) does around it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	case <-time.After(time.Minute):
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
			requireGone(t, []int{agent}, 10*time.Second)
			if _, err := os.Stat(e.cwd); err == nil {
				if log, _ := os.ReadFile(filepath.Join(e.cwd, ".swarm", "swarm.log")); !strings.Contains(string(log), tc.why) {
					t.Errorf("swarm.log does not say why the swarm stopped:\n%s", log)
				}
			}
		})
	}
}
