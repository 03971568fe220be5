package spawner

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// tmuxReflowInput is what testdata/tmux-reflow/make.sh writes for kind:
// thirty short lines, three that wrap at 40 columns and a prompt; C clears
// the display before the long lines, D puts a footer under the prompt, E
// erases the seven rows under the cursor first (a program redrawing its
// bottom), leaving a blank row under the prompt.
func tmuxReflowInput(kind string) string {
	var b strings.Builder
	if kind == "X" { // a line of two rows at 80 columns, and blank rows under the cursor
		return strings.Repeat("E", 150) + "\r\nbye\r\n"
	}
	if kind == "P" { // 200 lines that wrap at 80 columns and less
		for i := 1; i <= 200; i++ {
			fmt.Fprintf(&b, "row %03d %0100d\r\n", i, i)
		}
		b.WriteString("$ ")
		return b.String()
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	switch kind {
	case "C":
		b.WriteString("\x1b[H\x1b[2J")
	case "E":
		b.WriteString("\x1b[7A\x1b[J")
	}
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "L%d-%s\r\n", i, strings.Repeat("x", 66))
	}
	b.WriteString("$ ")
	if kind == "D" {
		b.WriteString("\r\nfooter\x1b[A\x1b[3G")
	}
	return b.String()
}

// A pane resized (wider, taller, both, narrower) shows what tmux shows for
// the same output: the bottom of the text laid out at the new width, rows
// a wider pane frees and rows a taller one adds taken back from the
// scrollback, the rows under the cursor kept. testdata/tmux-reflow/
// screens.txt is tmux 3.3a's screen, cursor and scrollback for each case.
// P is one pane resized again and again (a grid, a smaller client, the
// grid again, a panel opened, the main + stack layout): its rows come
// back from the middle of lines. X is a pane made narrower and shorter
// with blank rows under its cursor (an agent that has exited, shown in a
// grid): as many of them give way as the pane lost rows, and then rows
// leave at the top. Two differences are kept on purpose: a display the program cleared stays
// cleared (tmux brings the cleared rows back when a pane gets wider); and
// a cursor a carriage return left at the start of a wrapped line's last
// row stays at the start of its last row, where tmux keeps its offset
// into the line and the next line feed lands inside it, so the program's
// next line overwrites the line's end
// (TestACarriageReturnBeforeAReflowKeepsTheCursorAtTheLinesEnd).
func TestResizeShowsWhatTmuxShows(t *testing.T) {
	f, err := os.Open("testdata/tmux-reflow/screens.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type tcase struct {
		kind       string
		cols, rows int
		cursor     Cursor
		hist       int
		screen     []string
	}
	var cases []tcase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "== ") {
			var c tcase
			if _, err := fmt.Sscanf(line, "== %s %dx%d cursor %d,%d hist=%d", &c.kind, &c.cols, &c.rows, &c.cursor.X, &c.cursor.Y, &c.hist); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			cases = append(cases, c)
		} else {
			cases[len(cases)-1].screen = append(cases[len(cases)-1].screen, line)
		}
	}
	if len(cases) != 26 {
		t.Fatalf("%d cases in screens.txt, want 26", len(cases))
	}
	series := map[string]*Screen{} // the inputs resized in turn, from 80×24
	for _, k := range []string{"P", "X"} {
		series[k] = NewScreen(ScreenOptions{Rows: 24, Cols: 80})
		defer series[k].Close()
		fmt.Fprint(series[k], tmuxReflowInput(k))
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %dx%d", c.kind, c.cols, c.rows), func(t *testing.T) {
			if c.kind == "C" && c.cols > 40 {
				// The clear is kept: the rows tmux brings back above the
				// first long line stay in the scrollback, blank rows below.
				back := slices.IndexFunc(c.screen, func(l string) bool { return strings.HasPrefix(l, "L1-") })
				c.screen = append(c.screen[back:], make([]string, back)...)
				c.cursor.Y -= back
				c.hist += back
			}
			s, ok := series[c.kind]
			if !ok {
				s = NewScreen(ScreenOptions{Rows: 10, Cols: 40})
				defer s.Close()
				fmt.Fprint(s, tmuxReflowInput(c.kind))
			}
			s.Resize(c.rows, c.cols)
			snap := s.Snapshot()
			if !slices.Equal(snap.Lines, c.screen) {
				t.Errorf("the screen at %dx%d:\n%q\ntmux shows\n%q", c.cols, c.rows, snap.Lines, c.screen)
			}
			if snap.Cursor != c.cursor {
				t.Errorf("cursor %+v, tmux's %+v", snap.Cursor, c.cursor)
			}
			if n := s.ScrollbackLen(); n != c.hist {
				t.Errorf("scrollback %d rows, tmux's %d", n, c.hist)
			}
		})
	}
}
