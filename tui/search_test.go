package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The search box scrolls its query by the width it is drawn at in the
// status line, so that what is typed stays in sight, however narrow the
// window and long the query; after the window is resized too.
func TestALongSearchStaysInSight(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 60, 20, Options{})
	h.press(h.m.keys.Scroll)
	h.press(h.m.keys.Search)
	if h.m.Mode() != ModeSearch {
		t.Fatalf("mode after the search key: %v", h.m.Mode())
	}
	query := "an error message that is longer than the status line's room for it"
	check := func(typed string, n int) {
		t.Helper()
		status := h.screen()
		if lines := strings.Split(status, "\n"); len(lines) >= 2 {
			status = lines[len(lines)-2] // the status line, above the keys
		}
		if tail := typed[max(len(typed)-n, 0):]; !strings.Contains(status, tail) {
			t.Fatalf("after %d characters the status line does not show %q:\n%q", len(typed), tail, status)
		}
	}
	for i := range query {
		h.typeText(query[i : i+1])
		if i%10 == 9 || i == len(query)-1 {
			check(query[:i+1], 8)
		}
	}
	// Narrower: the box has 6 cells left.
	h.send(tea.WindowSizeMsg{Width: 44, Height: 20})
	check(query, 5)
}

// So does the agent filter's.
func TestALongFilterStaysInSight(t *testing.T) {
	h := newHarness(t, scenario(t), 60, 20, Options{})
	h.press(h.m.keys.Filter)
	if h.m.Mode() != ModeFilter {
		t.Fatalf("mode after the filter key: %v", h.m.Mode())
	}
	query := "no agent is called anything like this"
	for i := range query {
		h.typeText(query[i : i+1])
	}
	lines := strings.Split(h.screen(), "\n")
	if status := lines[len(lines)-2]; !strings.Contains(status, "e this") {
		t.Fatalf("the status line does not show the end of the filter %q:\n%q", query, status)
	}
}
