package supervisor

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"swarm/bus"
)

// A command run inside an agent in the moment before swarm has recorded
// the agent's pid is still the agent's, not the human's: it waits for the
// record, and without one it is refused. This test's process plays the
// swarm (it holds the bus's lock); a child of it plays the agent.
func TestACommandUnderTheSwarmIsNeverTheHumans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := bus.Open(bus.Options{Dir: filepath.Join(t.TempDir(), ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	lock, err := lockDir(b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.release()
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	noEnv := func(string) string { return "" }

	if _, err := WhoIsCalling(ctx, b, noEnv, child.Process.Pid); err == nil {
		t.Fatal("a process under the swarm's, with no agent recorded, was taken for the human's")
	}

	type result struct {
		c   Caller
		err error
	}
	got := make(chan result, 1)
	go func() {
		c, err := WhoIsCalling(ctx, b, noEnv, child.Process.Pid)
		got <- result{c, err}
	}()
	if err := b.RegisterAgent(ctx, bus.Agent{Name: "w", State: bus.AgentRunning, Pid: child.Process.Pid, Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.err != nil || r.c != (Caller{Name: "w", Agent: true}) {
		t.Fatalf("once recorded: %+v, %v; want agent w", r.c, r.err)
	}

	if c, err := WhoIsCalling(ctx, b, noEnv, 0); err != nil || c.Name != bus.Human {
		t.Fatalf("the swarm's own process: %+v, %v; want the human", c, err)
	}
}
