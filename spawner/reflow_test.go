package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// committedOnce writes more output until every row on the screen has
// scrolled off, then checks that each of want was committed exactly once
// over the screen's life (lines holds what was taken before).
func committedOnce(t *testing.T, s *Screen, lines []Line, want ...string) {
	t.Helper()
	rows, _ := s.Size()
	for i := range rows + 2 {
		fmt.Fprintf(s, "\r\nmore %d", i)
	}
	lines = append(lines, s.TakeLines()...)
	lines = append(lines, s.Flush()...)
	seen := map[string]int{}
	for _, l := range lines {
		seen[l.Text]++
	}
	for _, w := range want {
		if seen[w] != 1 {
			var all []string
			for _, l := range lines {
				all = append(all, l.Text)
			}
			t.Errorf("%q committed %d times, want once; all: %q", w, seen[w], all)
		}
	}
}

// A pane made taller shows the rows of its scrollback above its text, as
// tmux does: the rows come down from the scrollback and the cursor's row
// moves down by as many, wherever the cursor is; the pane is not left
// blank under its text.
func TestTallerScreenPullsTheScrollbackDown(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cols       int // the new width
		footer     bool
		wantCursor Cursor
	}{
		{name: "taller", cols: 20, wantCursor: Cursor{X: 2, Y: 24}},
		// The main + stack layout: the large pane is taller and wider.
		{name: "taller and wider", cols: 30, wantCursor: Cursor{X: 2, Y: 24}},
		// An input box with a footer under it: the cursor is not on the
		// bottom row.
		{name: "cursor above a footer", cols: 20, footer: true, wantCursor: Cursor{X: 2, Y: 23}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScreen(ScreenOptions{Rows: 10, Cols: 20})
			defer s.Close()
			for i := 1; i <= 30; i++ {
				fmt.Fprintf(s, "\x1b[3%dmline %d\x1b[0m\r\n", i%7+1, i)
			}
			fmt.Fprint(s, "$ ")
			if tc.footer {
				fmt.Fprint(s, "\r\nfooter\x1b[A\x1b[3G")
			}
			taken := s.TakeLines()
			s.Resize(25, tc.cols)
			snap := s.Snapshot()
			var want []string
			first := 7 // 21 rows had left: the 15 newest come back
			if tc.footer {
				first = 8 // one more row had left for the footer
			}
			for i := first; i <= 30; i++ {
				want = append(want, fmt.Sprintf("line %d", i))
			}
			want = append(want, "$")
			if tc.footer {
				want = append(want, "footer")
			}
			if !slices.Equal(snap.Lines, want) {
				t.Fatalf("at 25 rows:\n%q\nwant\n%q", snap.Lines, want)
			}
			if snap.Cursor != tc.wantCursor {
				t.Errorf("cursor %+v, want %+v", snap.Cursor, tc.wantCursor)
			}
			if got := s.Render(0); !strings.Contains(got, "\x1b[32mline 8") {
				t.Errorf("the colours are gone from the rows pulled down: %q", got)
			}
			// Typing goes on at the cursor; every line is committed once.
			fmt.Fprint(s, "echo")
			committedOnce(t, s, taken, "line 1", "line 7", "line 30", "$ echo")
		})
	}
}
