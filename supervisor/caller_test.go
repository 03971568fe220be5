package supervisor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	proc, ok := ProcessOf(child.Process.Pid)
	if !ok {
		t.Fatalf("no process %d", child.Process.Pid)
	}

	if _, err := WhoIsCalling(ctx, b, noEnv, proc); err == nil {
		t.Fatal("a process under the swarm's, with no agent recorded, was taken for the human's")
	}

	type result struct {
		c   Caller
		err error
	}
	got := make(chan result, 1)
	go func() {
		c, err := WhoIsCalling(ctx, b, noEnv, proc)
		got <- result{c, err}
	}()
	if err := b.RegisterAgent(ctx, bus.Agent{Name: "w", State: bus.AgentRunning, Pid: child.Process.Pid, Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.err != nil || r.c != (Caller{Name: "w", Agent: true}) {
		t.Fatalf("once recorded: %+v, %v; want agent w", r.c, r.err)
	}

	if c, err := WhoIsCalling(ctx, b, noEnv, Process{}); err != nil || c.Name != bus.Human {
		t.Fatalf("the swarm's own process: %+v, %v; want the human", c, err)
	}
}

// A process that has ended is nobody, never the human: not when it is
// judged after it ended (a request it left behind, a connection it handed
// to a child), nor when another process has taken its pid since.
func TestAProcessThatEndedIsNobody(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := bus.Open(bus.Options{Dir: filepath.Join(t.TempDir(), ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	noEnv := func(string) string { return "" }
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	proc, ok := ProcessOf(cmd.Process.Pid)
	if !ok {
		t.Fatalf("no process %d", cmd.Process.Pid)
	}
	if c, err := WhoIsCalling(ctx, b, noEnv, proc); err != nil || c.Name != bus.Human {
		t.Fatalf("a process outside every agent: %+v, %v; want the human", c, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if c, err := WhoIsCalling(ctx, b, noEnv, proc); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Fatalf("an ended process: %+v, %v; want it refused", c, err)
	}
	self, _ := ProcessOf(os.Getpid())
	other := Process{Pid: self.Pid, Start: self.Start + 1} // an earlier process of this pid
	if c, err := WhoIsCalling(ctx, b, noEnv, other); err == nil {
		t.Fatalf("a process whose pid another has taken: %+v; want it refused", c)
	}
}
