package swarmrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"swarm/internal/testrun"
	"swarm/server"
	"swarm/supervisor"
	"swarm/swarmapi"
)

// askVar, in an agent's environment, makes the test binary that agent: it
// asks its swarm for the agents as soon as it starts, dialing once, and
// writes what it learned to the file askVar names.
const askVar = "SWARMRUN_TEST_ASK"

func TestMain(m *testing.M) {
	if out := os.Getenv(askVar); out != "" {
		os.Exit(ask(out))
	}
	os.Exit(m.Run())
}

// asked is what the asking agent learned: the agents, or why it could
// not ask.
type asked struct {
	Agents []swarmapi.AgentInfo
	Error  string
}

func ask(out string) int {
	var a asked
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := server.Attach(ctx, os.Getenv("SWARM_DIR"), "swarmrun test agent")
	if err != nil {
		a.Error = err.Error()
	} else {
		defer r.Close()
		a.Agents = r.Agents()
	}
	b, _ := json.Marshal(a)
	if err := os.WriteFile(out+".new", b, 0o600); err != nil || os.Rename(out+".new", out) != nil {
		fmt.Println("cannot write", out)
		return 1
	}
	_, _ = os.Stdin.Read(make([]byte, 1)) // lives until the swarm stops it
	return 0
}

// An agent that calls its swarm as soon as it starts finds the socket (it
// listens before any agent starts) and is answered once every agent has
// been started: it is told of those defined after it too. The asker is first of
// several agents, so that the others are still starting when it looks.
func TestAnAgentAskingAtOnceIsAnsweredAboutEveryAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "asked.json")
	// The shell looks for the socket at once, before the test binary has
	// even loaded.
	const lookFirst = `if test -S "$SWARM_DIR/swarm.sock"; then exec "$0"; else echo '{"Error":"no socket yet when the agent started"}' >"$` + askVar + `"; exec sleep 100; fi`
	agents := []supervisor.AgentConfig{{Name: "asker", Argv: []string{"sh", "-c", lookFirst, os.Args[0]}, Env: map[string]string{askVar: out}, Dir: dir, Restart: supervisor.RestartNever}}
	for i := range 6 {
		agents = append(agents, supervisor.AgentConfig{Name: fmt.Sprintf("other%d", i), Argv: []string{"sh", "-c", "exec sleep 100"}, Dir: dir, Restart: supervisor.RestartNever})
	}
	cfg := &supervisor.Config{
		Quiet:     supervisor.DefaultQuiet,
		Heartbeat: supervisor.HeartbeatConfig{Warn: supervisor.DefaultWarn, Stale: supervisor.DefaultStale, Dead: supervisor.DefaultDead},
		Agents:    agents,
	}
	var stderr syncBuffer
	var got asked
	err := Run(context.Background(), Options{BusDir: filepath.Join(dir, ".swarm"), Supervisor: supervisor.Options{Config: cfg}, Program: "swarmrun test", Stderr: &stderr},
		func(ctx context.Context, sw *Swarm) error {
			testrun.Within(t, testrun.Patience, "the asking agent's answer", func() bool {
				b, err := os.ReadFile(out)
				return err == nil && json.Unmarshal(b, &got) == nil
			})
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if got.Error != "" {
		t.Fatalf("the agent could not ask its swarm: %s", got.Error)
	}
	states := map[string]swarmapi.AgentState{}
	for _, a := range got.Agents {
		states[a.Name] = a.State
	}
	for _, a := range agents {
		if _, ok := states[a.Name]; !ok {
			t.Errorf("the agent was not told of %s (told: %v)", a.Name, states)
		}
	}
	if want := "swarm: stopping "; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q does not say %q", stderr.String(), want)
	}
}

// syncBuffer is a bytes.Buffer that Run and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A config with a [cluster] table is refused by a caller that gives Run no
// way to start a cluster (the server binary that links no NATS), with an
// error that says so; its agents are stopped and the bus directory's lock
// let go, so that swarm itself can run the config there next.
func TestAClusterWithoutItsStartIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := &supervisor.Config{
		Path:      filepath.Join(dir, "swarm.toml"),
		Quiet:     supervisor.DefaultQuiet,
		Heartbeat: supervisor.HeartbeatConfig{Warn: supervisor.DefaultWarn, Stale: supervisor.DefaultStale, Dead: supervisor.DefaultDead},
		Cluster:   &supervisor.ClusterConfig{Listen: "127.0.0.1:0"},
		Agents:    []supervisor.AgentConfig{{Name: "a", Argv: []string{"sh", "-c", "exec sleep 100"}, Dir: dir, Restart: supervisor.RestartNever}},
	}
	busDir := filepath.Join(dir, ".swarm")
	ran := false
	err := Run(context.Background(), Options{BusDir: busDir, Supervisor: supervisor.Options{Config: cfg}, Program: "swarmrun test", Stderr: io.Discard},
		func(ctx context.Context, sw *Swarm) error { ran = true; return nil })
	if err == nil || !strings.Contains(err.Error(), "[cluster]") {
		t.Fatalf("Run without StartCluster on a [cluster] config: %v, want an error naming [cluster]", err)
	}
	if ran {
		t.Error("the swarm's body ran")
	}
	cfg.Cluster = nil
	if err := Run(context.Background(), Options{BusDir: busDir, Supervisor: supervisor.Options{Config: cfg}, Program: "swarmrun test", Stderr: io.Discard},
		func(ctx context.Context, sw *Swarm) error { return nil }); err != nil {
		t.Fatalf("the same bus directory afterwards: %v", err)
	}
}
