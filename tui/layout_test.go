package tui

import (
	"fmt"
	"testing"
)

// Opening a panel makes the panes shorter, never narrower (a terminal that
// gets narrower cuts its lines, one that gets shorter keeps them), unless
// they would get too short to read.
func TestPanelKeepsPaneWidths(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}, {200, 60}} {
		for n := 1; n <= 9; n++ {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprint("a", i)
			}
			closed := computeLayout(size[0], size[1], layoutOpts{names: names})
			open := computeLayout(size[0], size[1], layoutOpts{names: names, panel: true})
			if open.panes.h/len(closed.rows) < minPaneHeight {
				continue // too short: the grid takes other columns
			}
			for _, name := range names {
				c, _ := closed.cellNamed(name)
				o, ok := open.cellNamed(name)
				if !ok || o.r.w != c.r.w || o.r.h > c.r.h {
					t.Errorf("%dx%d, %d agents: %s is %dx%d with the panel open, %dx%d without; want the same width",
						size[0], size[1], n, name, o.r.w, o.r.h, c.r.w, c.r.h)
				}
			}
		}
	}
}

// Every arrangement covers the panes' area exactly once: no pane overlaps
// another, none leaves a hole.
func TestArrangementsTileThePaneArea(t *testing.T) {
	for _, size := range [][2]int{{60, 15}, {80, 24}, {160, 48}} {
		for n := 1; n <= 7; n++ {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprint("a", i)
			}
			for a := range arrangements {
				for _, hide := range []bool{false, true} {
					l := computeLayout(size[0], size[1], layoutOpts{names: names, selected: names[n/2], arrange: a, hideList: hide})
					covered := map[[2]int]int{}
					for _, row := range l.rows {
						for _, c := range row {
							for y := c.r.y; y < c.r.y+c.r.h; y++ {
								for x := c.r.x; x < c.r.x+c.r.w; x++ {
									covered[[2]int{x, y}]++
								}
							}
						}
					}
					for y := l.panes.y; y < l.panes.y+l.panes.h; y++ {
						for x := l.panes.x; x < l.panes.x+l.panes.w; x++ {
							if covered[[2]int{x, y}] != 1 {
								t.Fatalf("%dx%d, %d panes, %s, list hidden %v: cell %d,%d covered %d times",
									size[0], size[1], n, a, hide, x, y, covered[[2]int{x, y}])
							}
						}
					}
					if l.agents.empty() && l.summary.empty() {
						t.Errorf("%dx%d, list hidden %v: no list and no summary", size[0], size[1], hide)
					}
				}
			}
		}
	}
}
