package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"swarm/internal/testrun"
	"swarm/supervisor"
)

// A swarm whose agents have all ended is unneeded once its last UI has
// left; swarm ls counts the UIs attached meanwhile.
func TestASwarmIsUnneededOnceItsAgentsEndedAndItsLastUILeft(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a registry of this test's own
	busDir := filepath.Join(t.TempDir(), ".swarm")
	srv := startSwarm(t, busDir, supervisor.AgentConfig{Name: "a", Argv: []string{"sh", "-c", "exit 0"}, Restart: supervisor.RestartNever, Confirm: true})
	ctx := context.Background()
	ui, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	events := ui.Subscribe()
	unneeded := srv.Unneeded(50 * time.Millisecond)
	testrun.Within(t, testrun.Patience, "swarm ls: every agent ended, one UI attached", func() bool {
		l, err := List(ctx, "swarm test")
		return err == nil && len(l) == 1 && l[0].Ended && l[0].Clients == 1
	})
	events.Close()
	ui.Close()
	select {
	case <-unneeded:
	case <-time.After(10 * time.Second):
		t.Fatal("the swarm is still needed after its last UI left")
	}
	if l, _ := List(ctx, "swarm test"); len(l) != 1 || l[0].Clients != 0 {
		t.Errorf("swarm ls after the UI left: %+v", l)
	}
}
