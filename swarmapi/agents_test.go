package swarmapi

import "testing"

// A swarm has ended when no agent can start again without a person: an
// exited agent with a worktree per task is started again by its next
// task.
func TestEnded(t *testing.T) {
	for _, c := range []struct {
		agents []AgentInfo
		want   bool
	}{
		{[]AgentInfo{{State: StateStopped}, {State: StateGaveUp}, {State: StateExited}}, true},
		{[]AgentInfo{{State: StateStopped}, {State: StateRunning}}, false},
		{[]AgentInfo{{State: StateExited, Worktree: true}}, false},
		{[]AgentInfo{{State: StateBackoff}}, false},
	} {
		if got := Ended(c.agents); got != c.want {
			t.Errorf("Ended(%+v) = %v, want %v", c.agents, got, c.want)
		}
	}
}
