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
			closed := computeLayout(size[0], size[1], names, "", false, false)
			open := computeLayout(size[0], size[1], names, "", true, false)
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
