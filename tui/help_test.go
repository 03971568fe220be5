package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestHelpHeadingsHaveTheirKeys: at every window size, each group heading
// of the key list has a key right under it, in its column; from 80×24 on
// every group is shown.
func TestHelpHeadingsHaveTheirKeys(t *testing.T) {
	h := newHarness(t, scenario(t), 80, 24, Options{})
	h.keys("?")
	groups := h.m.keys.fullHelp()
	for _, w := range []int{60, 80, 100, 120, 160} {
		for ht := 14; ht <= 50; ht++ {
			h.send(tea.WindowSizeMsg{Width: w, Height: ht})
			rows := strings.Split(h.screen(), "\n")
			for _, g := range groups {
				found := false
				for r, row := range rows[:len(rows)-3] {
					for _, title := range []string{g.title, g.title + " (more)"} {
						i := strings.Index(row, "║ "+title+" ")
						if i < 0 {
							i = strings.Index(row, "  "+title+" ")
						}
						if i < 0 {
							continue
						}
						found = true
						col := len([]rune(row[:i])) + 2
						below := []rune(rows[r+1])
						if col >= len(below) || below[col] == ' ' || below[col] == '═' {
							t.Fatalf("%dx%d: heading %q has no key under it:\n%s", w, ht, title, h.screen())
						}
					}
				}
				if !found && w >= 80 && ht >= 24 {
					t.Fatalf("%dx%d: no heading %q:\n%s", w, ht, g.title, h.screen())
				}
			}
		}
	}
}

// TestHelpLineEndsWithHelpAndQuit: whatever the width and the open panel,
// the help line ends with the way to every key and the way out.
func TestHelpLineEndsWithHelpAndQuit(t *testing.T) {
	h := newHarness(t, scenario(t), 80, 24, Options{})
	for _, panel := range []string{"", "t", "i", "l"} {
		if panel != "" {
			h.keys(panel)
		}
		for w := 60; w <= 260; w += 10 {
			h.send(tea.WindowSizeMsg{Width: w, Height: 30})
			rows := strings.Split(h.screen(), "\n")
			last := strings.TrimRight(rows[len(rows)-1], " ")
			if !strings.HasSuffix(last, "? all keys • q quit") {
				t.Errorf("width %d, panel %q: help line %q", w, panel, last)
			}
		}
		if panel != "" {
			h.keys(panel) // close it
		}
	}
}

// TestTheKeyListPagesWhatDoesNotFit: in a window too small for every
// column of the key list, → shows the next ones and ← goes back; every
// key is on some page, and none is said to be hidden.
func TestTheKeyListPagesWhatDoesNotFit(t *testing.T) {
	for _, size := range [][2]int{{60, 15}, {40, 10}, {70, 12}} {
		h := newHarness(t, scenario(t), size[0], size[1], Options{})
		h.press(h.m.keys.Help)
		seen := h.screen()
		first := seen
		for range 20 {
			h.press(h.m.keys.Next)
			seen += h.screen()
		}
		if strings.Contains(seen, "hidden") {
			t.Errorf("%dx%d: the key list says keys are hidden:\n%s", size[0], size[1], seen)
		}
		for _, g := range h.m.keys.fullHelp() {
			for _, b := range g.bindings {
				if !strings.Contains(seen, b.Help().Desc) {
					t.Errorf("%dx%d: no page shows %q (%s):\n%s", size[0], size[1], b.Help().Desc, b.Help().Key, seen)
				}
			}
		}
		for range 20 {
			h.press(h.m.keys.Prev)
		}
		if h.screen() != first {
			t.Errorf("%dx%d: ← back to the start shows another page:\n%s\nwant:\n%s", size[0], size[1], h.screen(), first)
		}
		h.press(h.m.keys.Close)
		if h.m.Mode() != ModeNormal {
			t.Errorf("%dx%d: esc left the key list in mode %v", size[0], size[1], h.m.Mode())
		}
	}
}
