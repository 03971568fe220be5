package supervisor

import "testing"

// A swarm whose local agents have all ended has not ended while agents of
// its config run on other hosts: the main swarm serves them (a server
// with no UI must not end under them).
func TestASwarmWithAgentsElsewhereHasNotEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t).run(Options{}, scripted("local", "crash", nil),
		AgentConfig{Name: "builder", Cmd: "codex", Argv: []string{"codex"}, Host: "buildbox"})
	h.waitFor("the local agent to end for good", func() bool {
		a, err := h.sup.Agent("local")
		return err == nil && a.State == StateExited
	})
	if h.sup.Ended() {
		t.Fatal("Ended() with an agent on host buildbox")
	}
}
