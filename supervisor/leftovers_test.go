package supervisor

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
)

// With no swarm running, an agent recorded as running is orphaned while
// its process lives on (the next swarm up ends it), stopped once it has
// ended; either way it is not alive. Other records stand as they are.
func TestStaleRecord(t *testing.T) {
	t.Parallel()
	started := time.Now()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := false
	end := func() {
		if !ended {
			ended = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	defer end()
	rec := bus.Health{Agent: bus.Agent{Name: "a", State: bus.AgentRunning, Pid: cmd.Process.Pid, Started: started},
		Alive: true, Level: bus.LevelIdle}
	h := StaleRecord(rec)
	if h.Agent.State != bus.AgentOrphaned || h.Alive || h.Level != bus.LevelDead {
		t.Fatalf("a record whose process lives on: %+v", h)
	}
	end()
	h = StaleRecord(rec)
	if h.Agent.State != bus.AgentStopped || h.Alive || h.Level != bus.LevelDead {
		t.Fatalf("a record whose process ended: %+v", h)
	}
	exited := bus.Health{Agent: bus.Agent{Name: "b", State: bus.AgentExited, Pid: 1}}
	if h := StaleRecord(exited); h != exited {
		t.Fatalf("an exited agent's record changed: %+v", h)
	}
}
