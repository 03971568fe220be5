package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
)

// Switching to the main + stack layout makes the chosen pane taller and
// wider: it shows the rows of its scrollback above its text, as tmux does,
// rather than blank rows under it.
func TestMainPaneFillsWithItsScrollback(t *testing.T) {
	t.Parallel()
	b, err := bus.Open(bus.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	printer := `i=0; while [ $i -lt 80 ]; do i=$((i+1)); echo "line $i"; done; exec sleep 1000`
	agents := []supervisor.AgentConfig{{Name: "a", Argv: []string{"sh", "-c", printer}, Restart: supervisor.RestartNever, Confirm: true}}
	for _, n := range []string{"b", "c", "d"} {
		agents = append(agents, supervisor.AgentConfig{Name: n, Argv: []string{"sh", "-c", "exec sleep 1000"}, Restart: supervisor.RestartNever, Confirm: true})
	}
	sup, err := supervisor.New(supervisor.Options{Config: &supervisor.Config{Agents: agents}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Shutdown(context.Background()) })

	h := newHarness(t, inProcess{sup}, 120, 40, Options{})
	if h.m.arrange != arrangeGrid || h.m.selected != "a" {
		t.Fatalf("set-up: layout %v, %q selected; want the grid, a", h.m.arrange, h.m.selected)
	}
	testrun.Within(t, testrun.Patience, "a printed everything at its grid size", func() bool {
		snap, err := sup.Snapshot("a")
		return err == nil && snap.Rows < 25 && strings.Contains(strings.Join(snap.Lines, "\n"), "line 80")
	})
	h.press(h.m.keys.Arrange)
	if h.m.arrange != arrangeMain {
		t.Fatalf("layout after the layout key: %v, want main + stack", h.m.arrange)
	}
	snap, err := sup.Snapshot("a")
	if err != nil || snap.Rows < 30 {
		t.Fatalf("a's screen in the main pane: %d rows (%v)", snap.Rows, err)
	}
	// The rows above "line 80" fill the pane; the cursor's row, empty,
	// is the last.
	for y, want := 0, 80-(snap.Rows-2); y < snap.Rows-1; y, want = y+1, want+1 {
		if got := snap.Lines[y]; got != fmt.Sprintf("line %d", want) {
			t.Fatalf("row %d of the main pane is %q, want %q: %q", y, got, fmt.Sprintf("line %d", want), snap.Lines)
		}
	}
	if !strings.Contains(h.screen(), fmt.Sprintf("line %d", 80-(snap.Rows-2))) {
		t.Errorf("the main pane does not show the rows that came back:\n%s", h.screen())
	}
}
