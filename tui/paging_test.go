package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"swarm/supervisor"
)

// The grid lays out only panes of at least the least size; the others are
// on other pages, each agent on exactly one, and the page shown is the
// selected agent's.
func TestGridPagesHoldPanesThatFit(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {160, 48}, {250, 70}} {
		for _, n := range []int{1, 5, 16, 37, 100} {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprint("w", i)
			}
			seen := map[string]int{}
			for _, sel := range names {
				l := computeLayout(size[0], size[1], layoutOpts{names: names, selected: sel})
				if _, ok := l.cellNamed(sel); !ok {
					t.Fatalf("%dx%d, %d agents: %s selected, not on the page shown", size[0], size[1], n, sel)
				}
				for _, row := range l.rows {
					for _, c := range row {
						if c.r.w < minPaneWidth || c.r.h < minPaneRows {
							t.Fatalf("%dx%d, %d agents: %s is %dx%d, under %dx%d", size[0], size[1], n, c.name, c.r.w, c.r.h, minPaneWidth, minPaneRows)
						}
						if c.name == sel {
							seen[c.name]++ // once per agent: on its own page
						}
					}
				}
				if l.pages != (n+l.perPage-1)/l.perPage {
					t.Fatalf("%d agents, %d a page: %d pages", n, l.perPage, l.pages)
				}
			}
			if len(seen) != n {
				t.Errorf("%dx%d: %d of %d agents shown on some page", size[0], size[1], len(seen), n)
			}
		}
	}
}

// hundred is a fake swarm of a hundred running agents, w0 … w99.
func hundred(t *testing.T) *fakeSwarm {
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprint("w", i)
	}
	sw := newFakeSwarm(t, names...)
	for _, n := range names {
		sw.setScreen(n, n+" $ make")
	}
	return sw
}

// laidOut lists the panes the window shows.
func laidOut(h *harness) []string {
	var out []string
	for _, row := range h.m.lay.rows {
		for _, c := range row {
			out = append(out, c.name)
		}
	}
	return out
}

// A hundred agents: the grid shows a page of panes and says which; the
// page keys and moving the selection off the page turn it; the agent list
// keeps the selection in view.
func TestHundredAgentsPageThroughTheGrid(t *testing.T) {
	h := newHarness(t, hundred(t), 160, 48, Options{})
	first := laidOut(h)
	pages := h.m.lay.pages
	if pages < 2 || len(first) == 0 || first[0] != "w0" {
		t.Fatalf("%d pages, first page %v", pages, first)
	}
	requireContains(t, h.screen(), fmt.Sprintf("page 1/%d", pages), "w0 $ make")
	h.press(h.m.keys.NextPage)
	second := laidOut(h)
	if h.m.selected != second[0] || second[0] != fmt.Sprint("w", len(first)) {
		t.Fatalf("after next page: selected %s, panes %v", h.m.selected, second)
	}
	requireContains(t, h.screen(), fmt.Sprintf("page 2/%d", pages), second[0]+" $ make")
	// Back a page, then the selection walks off its end onto the next.
	h.press(h.m.keys.PrevPage)
	if got := laidOut(h); !slices.Equal(got, first) || h.m.selected != "w0" {
		t.Fatalf("previous page: selected %s, panes %v", h.m.selected, got)
	}
	for range len(first) {
		h.press(h.m.keys.Next)
	}
	if got := laidOut(h); !slices.Equal(got, second) {
		t.Fatalf("tab past the page's last pane shows %v, want the second page", got)
	}
	// From the first, previous page wraps to the last, whose agent shows
	// in the list too.
	h.press(h.m.keys.PrevPage)
	h.press(h.m.keys.PrevPage)
	if h.m.lay.page != pages-1 {
		t.Fatalf("on page %d of %d", h.m.lay.page+1, pages)
	}
	requireContains(t, h.screen(), "▶ "+h.m.selected)
}

// `/` filters the agent list and the grid as it is typed; enter keeps the
// filter, esc takes it away; while typing, esc puts back the one before.
func TestFilterTheAgentList(t *testing.T) {
	sw := hundred(t)
	sw.setAgent("w42", func(a *supervisor.AgentInfo) { a.State = supervisor.StateExited })
	h := newHarness(t, sw, 160, 48, Options{})
	h.press(h.m.keys.Filter)
	h.typeText("w1")
	want := []string{"w1", "w10", "w11", "w12", "w13", "w14", "w15", "w16", "w17", "w18", "w19"}
	if got := laidOut(h); !slices.Equal(got, want) {
		t.Fatalf("filtered on w1, the panes are %v", got)
	}
	scr := h.screen()
	requireContains(t, scr, "agents 11 of 100 /w1", "FILTER", "filter agents (11 of 100): /w1")
	if strings.Contains(scr, "w2 ") || strings.Contains(scr, "w0 ") {
		t.Fatalf("agents the filter leaves out show:\n%s", scr)
	}
	if h.m.selected != "w1" {
		t.Errorf("selected %s, want the first match", h.m.selected)
	}
	// Keys other than enter and esc are the filter's: j is typed, not a move.
	h.keys("j", "backspace")
	h.keys("enter")
	requireContains(t, h.screen(), "11 of 100 agents match \"w1\"", "NORMAL")
	h.press(h.m.keys.Next)
	if h.m.selected != "w10" {
		t.Errorf("next pane in the filtered list: %s", h.m.selected)
	}
	// A state is matched too: the agent that exited.
	h.press(h.m.keys.Filter)
	for range 2 {
		h.keys("backspace")
	}
	h.typeText("exited")
	if got := laidOut(h); !slices.Equal(got, []string{"w42"}) || h.m.selected != "w42" {
		t.Fatalf("filtered on exited: panes %v, selected %s", got, h.m.selected)
	}
	h.press(h.m.keys.Close) // back to the filter before
	if got := laidOut(h); !slices.Equal(got, want) {
		t.Fatalf("after esc the panes are %v, want w1's", got)
	}
	h.press(h.m.keys.Close) // in normal mode: every agent again
	requireContains(t, h.screen(), "agents 100", "page 1/")
	if h.m.filter != "" || len(h.m.visible()) != 100 {
		t.Errorf("filter %q, %d agents shown", h.m.filter, len(h.m.visible()))
	}
}
