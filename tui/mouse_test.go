package tui

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Attached, a click on another pane attaches to that one, as a click makes
// a pane tmux's active one: the keys go there. A pane whose agent does not
// run is selected, and the keys come back to the UI.
func TestClickingAnotherPaneWhileAttachedAttachesToIt(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 120, 30, Options{})
	h.press(h.m.keys.Attach) // alice
	h.keys("a")
	bob, _ := h.m.lay.cellNamed("bob")
	h.send(tea.MouseClickMsg{X: bob.r.x + 3, Y: bob.r.y + 3, Button: tea.MouseLeft})
	requireContains(t, h.screen(), "ATTACHED bob")
	h.keys("b")
	if got := sw.typed("bob"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("bob got %q, want the key typed after the click", got)
	}
	if got := sw.typed("alice"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("alice got %q, want only the key typed before the click", got)
	}
	// A click on the attached pane itself changes nothing.
	h.send(tea.MouseClickMsg{X: bob.r.x + 4, Y: bob.r.y + 4, Button: tea.MouseLeft})
	requireContains(t, h.screen(), "ATTACHED bob")

	// carol gave up: selected, not attached; the next key is the UI's.
	carol, _ := h.m.lay.cellNamed("carol")
	h.send(tea.MouseClickMsg{X: carol.r.x + 3, Y: carol.r.y + 3, Button: tea.MouseLeft})
	requireContains(t, h.screen(), "cannot attach: carol is gave-up")
	h.press(h.m.keys.Help)
	if h.m.Mode() != ModeHelp {
		t.Errorf("after clicking a pane that cannot be attached, ? went to mode %v", h.m.Mode())
	}
	if got := sw.typed("bob"); len(got) != 1 {
		t.Errorf("bob got %q after the click away", got)
	}
}
