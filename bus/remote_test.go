package bus

import "testing"

// TestARemoteAgentIsNotDead: an agent its host runs has no process here;
// it is waiting or working as its heartbeats and tasks say, never dead.
func TestARemoteAgentIsNotDead(t *testing.T) {
	t.Parallel()
	remote := Agent{Name: "w", State: AgentRemote, Reason: "on host box, away since 2026-11-26 22:00:00"}
	if got := ActivityOf(remote, false); got != Waiting {
		t.Errorf("idle remote agent: %v, want Waiting", got)
	}
	if got := ActivityOf(remote, true); got != Working {
		t.Errorf("busy remote agent: %v, want Working", got)
	}
	if got := ActivityOf(Agent{Name: "x", State: AgentExited, Reason: "exit status 1"}, false); got != Died {
		t.Errorf("an agent that exited badly: %v, want Died", got)
	}
}
