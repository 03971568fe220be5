package tui

import (
	"fmt"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"swarm/swarmapi"
)

// A terminal larger than an agent's may be shows its panes at the largest
// size an agent takes (swarmapi.CheckSize), rather than asking for a
// size the swarm refuses.
func TestAHugeTerminalGivesAgentsTheLargestSize(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.send(tea.WindowSizeMsg{Width: 3000, Height: 1200})
	h.keys("z")
	want := fmt.Sprintf("%s %d×%d", h.m.selected, swarmapi.MaxRows, swarmapi.MaxCols)
	if !slices.Contains(sw.resizes, want) {
		t.Fatalf("the zoomed pane of a 3000×1200 terminal: resizes %q, want %q among them", sw.resizes, want)
	}
	for _, r := range sw.resizes {
		var name string
		var rows, cols int
		if _, err := fmt.Sscanf(r, "%s %d×%d", &name, &rows, &cols); err != nil {
			t.Fatal(err)
		}
		if err := swarmapi.CheckSize(rows, cols); err != nil {
			t.Errorf("resize %q: %v", r, err)
		}
	}
}
