package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
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

// rowsOf cuts text into rows of width cols.
func rowsOf(text string, cols int) []string {
	var out []string
	for len(text) > cols {
		out = append(out, text[:cols])
		text = text[cols:]
	}
	return append(out, text)
}

// A line that straddles the scrollback and the screen at a resize is laid
// out whole at the new width: its rows that had left are no fragment of
// the old width, on the screen or in the scrollback, and it is not
// committed again.
func TestStraddlingLineReflowsWhole(t *testing.T) {
	long := "@relay:bob " + strings.Repeat("abcdefghi ", 4)[:39] // 50 characters
	for _, tc := range []struct {
		name   string
		cols   int
		screen []string // the rows at the new width
		back   []string // the newest rows of the scrollback
	}{
		{name: "wider", cols: 25,
			screen: append(append(rowsOf(long, 25), "tail 1", "tail 2", "tail 3", "tail 4", "tail 5", "tail 6", "tail 7"), "$"),
			back:   []string{"line 1", "line 2", "line 3"}},
		// As tmux 3.3a shows it: rows leave at the top, the line's first
		// rows among them, and the rows under the cursor stay.
		{name: "narrower", cols: 10,
			screen: append(rowsOf(long, 10)[3:], "tail 1", "tail 2", "tail 3", "tail 4", "tail 5", "tail 6", "tail 7", "$"),
			back:   append([]string{"line 1", "line 2", "line 3"}, rowsOf(long, 10)[:3]...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScreen(ScreenOptions{Rows: 10, Cols: 20})
			defer s.Close()
			fmt.Fprintf(s, "line 1\r\nline 2\r\nline 3\r\n\x1b[32m%s\x1b[0m\r\n", long)
			for i := 1; i <= 7; i++ {
				fmt.Fprintf(s, "tail %d\r\n", i)
			}
			fmt.Fprint(s, "$ ")
			taken := s.TakeLines()
			if got := s.Snapshot().Lines[0]; got != long[20:40] {
				t.Fatalf("set-up: the top row is %q, want the long line's second row", got)
			}
			s.Resize(10, tc.cols)
			snap := s.Snapshot()
			if !slices.Equal(snap.Lines, tc.screen) {
				t.Errorf("at %d columns the screen is\n%q\nwant\n%q", tc.cols, snap.Lines, tc.screen)
			}
			n := s.ScrollbackLen()
			var back []string
			for _, row := range strings.Split(s.Render(len(tc.back)), "\n")[:len(tc.back)] {
				back = append(back, strings.TrimRight(ansi.Strip(row), " "))
			}
			if !slices.Equal(back, tc.back) {
				t.Errorf("at %d columns the scrollback (%d rows) ends with\n%q\nwant\n%q", tc.cols, n, back, tc.back)
			}
			if got := s.Render(len(tc.back)); !strings.Contains(got, "\x1b[32m@relay") {
				t.Errorf("the colour is gone: %q", got)
			}
			committedOnce(t, s, taken, "line 1", long, "tail 7", "$")
		})
	}
}

// The line under the cursor, longer than the screen (a long command being
// typed), is laid out whole at the new width, the cursor after its end;
// the row it frees takes back the line above it, as in tmux 3.3a.
func TestStraddlingCursorLineReflowsWhole(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 20})
	defer s.Close()
	long := "$ " + strings.Repeat("0123456789", 25)[:248] // 13 rows of 20
	fmt.Fprint(s, "before\r\n"+long)
	s.TakeLines()
	s.Resize(10, 30)
	snap := s.Snapshot()
	want := append([]string{"before"}, rowsOf(long, 30)...)
	if !slices.Equal(snap.Lines, want) {
		t.Errorf("at 30 columns:\n%q\nwant\n%q", snap.Lines, want)
	}
	if snap.Cursor != (Cursor{X: 10, Y: 9}) {
		t.Errorf("cursor %+v, want after the line's end", snap.Cursor)
	}
	if n := s.ScrollbackLen(); n != 0 {
		t.Errorf("the scrollback keeps %d rows, want none (all on the screen)", n)
	}
	fmt.Fprint(s, "\r\n")
	committedOnce(t, s, nil, long)
}

// A display the program erased (clear) went into the scrollback, but a
// taller screen does not take it back: the clear is not undone. Rows that
// scroll off after it come back.
func TestTallerScreenKeepsAClearedDisplayCleared(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 5, Cols: 20})
	defer s.Close()
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(s, "old %d\r\n", i)
	}
	fmt.Fprint(s, "\x1b[H\x1b[2J$ ")
	s.Resize(8, 30)
	if got, want := s.Snapshot().Lines, []string{"$", "", "", "", "", "", "", ""}; !slices.Equal(got, want) {
		t.Errorf("after a clear, made taller:\n%q\nwant\n%q", got, want)
	}
	s.Resize(5, 30)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(s, "\r\nnew %d", i)
	}
	s.Resize(8, 30)
	want := []string{"$", "new 1", "new 2", "new 3", "new 4", "new 5", "new 6", ""}
	if got := s.Snapshot().Lines; !slices.Equal(got, want) {
		t.Errorf("after more output, made taller:\n%q\nwant\n%q", got, want)
	}
}

// A line printed up to a blank, the screen made so narrow that its text
// fills a row exactly, and the rest printed after: the blank goes on at
// the start of the next row and the rest after it, as one line; the
// cursor is not put back over the text it had passed.
func TestBlankAfterAFullRowKeptAtANarrowerWidth(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 26, Cols: 90})
	defer s.Close()
	head := "@relay:bob " + strings.Repeat("0", 20) // 31 columns
	fmt.Fprint(s, head+" ")
	s.Resize(32, 31)
	fmt.Fprint(s, "000\r\n")
	committedOnce(t, s, nil, head+" 000")
}

// A taller pane takes back as many rows as it adds, as tmux does, even
// when the first of them is in the middle of a line: that line's start
// stays in the scrollback, and every line is still committed once.
func TestTallerScreenPullsBackTheEndOfALine(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 20})
	defer s.Close()
	line := func(i int) string { return fmt.Sprintf("line %02d %s", i, strings.Repeat("x", 22)) } // 2 rows
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(s, "%s\r\n", line(i))
	}
	fmt.Fprint(s, "$ ")
	taken := s.TakeLines()
	// 4 rows come back: line 8's first (the top row was its second), line
	// 7, and line 6's second, whose first stays in the scrollback.
	s.Resize(14, 20)
	snap := s.Snapshot()
	want := []string{line(6)[20:]}
	for i := 7; i <= 12; i++ {
		want = append(want, rowsOf(line(i), 20)...)
	}
	want = append(want, "$")
	if !slices.Equal(snap.Lines, want) {
		t.Fatalf("at 14 rows:\n%q\nwant\n%q", snap.Lines, want)
	}
	if snap.Cursor != (Cursor{X: 2, Y: 13}) {
		t.Errorf("cursor %+v, want after the prompt on the last row", snap.Cursor)
	}
	// Back to 20 columns after a narrower width: line 6's second row is
	// the top row again.
	s.Resize(14, 12)
	s.Resize(14, 20)
	if got := s.Snapshot().Lines; !slices.Equal(got, want) {
		t.Errorf("after a narrower width and back:\n%q\nwant\n%q", got, want)
	}
	committedOnce(t, s, taken, line(1), line(6), line(7), line(8), line(12))
}

// A pane made narrower and shorter at once, the cursor in the middle of a
// line that now takes more rows than the pane has above its blank rows,
// keeps the line whole: blank rows under the cursor give way as many as
// the pane lost, then the line's first rows leave at the top, as in tmux,
// and what the program prints next goes on after what it printed before
// (the reflow was refused while blank rows were left under the line, and
// the emulator cut it: "@relay:b世界" was committed).
func TestNarrowerAndShorterKeepsTheCursorsLine(t *testing.T) {
	got := committedAcrossResize("@relay:bob 你好, ", 4, 9, "世界\r\n")
	if want := []string{"@relay:bob 你好, 世界"}; !slices.Equal(got, want) {
		t.Errorf("committed %q, want %q", got, want)
	}
}

// The space after a word, printed before the next word comes, is part of
// the line at a new width even where it ends a row: the words do not run
// together (an agent streams its text a word at a time, and a resize came
// between "hello " and "world").
func TestReflowKeepsTheBlanksBeforeTheCursor(t *testing.T) {
	got := committedAcrossResize("@relay:bob hello ", 6, 17, "world\r\n")
	if want := []string{"@relay:bob hello world"}; !slices.Equal(got, want) {
		t.Errorf("committed %q, want %q", got, want)
	}
}

// committedAcrossResize prints before on a 6×20 screen, resizes it to
// rows×cols, prints after, and returns the texts of the lines committed.
func committedAcrossResize(before string, rows, cols int, after string) []string {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
	defer s.Close()
	fmt.Fprint(s, before)
	s.Resize(rows, cols)
	fmt.Fprint(s, after)
	var got []string
	for _, l := range append(s.TakeLines(), s.Flush()...) {
		got = append(got, l.Text)
	}
	return got
}

// A line erased under the cursor that a shorter screen cuts, and that the
// program then prints on another row once the screen is as tall as
// before, moved there, as on a screen never resized (its erased row still
// had the line's record): it is not committed again. The program writing
// ends what the screen never resized is read for (unresized), but not
// the erased line's record.
func TestErasedLineCutByAShorterScreenMovesAfterTheProgramWrites(t *testing.T) {
	const pre = "top\r\nstatus: a line long enough to move\r\nmore\r\n\x1b[3A\x1b[1B\x1b[2K\x1b[1A"
	const post = "\x1b[5;1Hstatus: a line long enough to move\r\n"
	var want []string
	for _, resize := range []bool{false, true} {
		s := NewScreen(ScreenOptions{Rows: 6, Cols: 40})
		_, _ = s.Write([]byte(pre))
		got := appendTexts(nil, s.TakeLines())
		if resize {
			s.Resize(1, 40)
			s.Resize(6, 40)
		}
		_, _ = s.Write([]byte(post))
		got = appendTexts(got, s.Flush())
		s.Close()
		if !resize {
			want = got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("lines differ from a screen never resized (-want +got):\n%s", diff)
		}
	}
	if len(want) != 3 {
		t.Fatalf("the screen never resized committed %q, want top, status and more once", want)
	}
}

// A line the program ended with a carriage return before a reflow and a
// line feed after it ends there, whole, and the next line is written on
// the row under it: the cursor, at the start of the line's last row,
// stays at the start of its last row at the new width, not inside the
// line where a line feed would land on the line's own next row (narrower:
// its first row; wider, or from a row that is not its first: past a
// row's start). tmux 3.3a differs here on purpose (TestResizeShowsWhatTmuxShows):
// it maps the cursor by its offset into the line, and the program's next
// line overwrites the line's end ("@relay:bob a…z0123456789" written at 80
// columns, made 20 wide: tmux shows "text: next" over "3456789"); the
// line the program printed whole stays whole here.
func TestACarriageReturnBeforeAReflowKeepsTheCursorAtTheLinesEnd(t *testing.T) {
	relay := "@relay:bob abcdefghijklmnopqrstuvwxyz0123456789" // 47 columns
	for _, tc := range []struct {
		name        string
		cols, cols2 int
	}{
		{name: "narrower", cols: 80, cols2: 20},
		{name: "wider", cols: 30, cols2: 40},
		{name: "narrower, from its second row", cols: 24, cols2: 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScreen(ScreenOptions{Rows: 12, Cols: tc.cols})
			defer s.Close()
			fmt.Fprint(s, "$ run\r\n"+relay+"\r")
			lines := s.TakeLines()
			s.Resize(12, tc.cols2)
			fmt.Fprint(s, "\ntext: next\r\n")
			lines = append(lines, s.TakeLines()...)
			var got []string
			for _, l := range append(lines, s.Flush()...) {
				got = append(got, l.Text)
			}
			if want := []string{"$ run", relay, "text: next"}; !slices.Equal(got, want) {
				t.Fatalf("committed %q; want %q", got, want)
			}
		})
	}
}

// A program drawing a frame over its rows moves down through them with
// line feeds, a wrapped line's among them: the line it did not draw again
// stays one line, committed once, its continuation no line of its own.
func TestARedrawFeedingThroughAWrappedLineKeepsIt(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 8, Cols: 20})
	defer s.Close()
	long := "a line of thirty-two characters!"
	fmt.Fprint(s, "$ run\r\n"+long+"\r\nstatus 1\r\n")
	lines := s.TakeLines()
	// Up to the wrapped line's first row, down past it, the status drawn anew.
	fmt.Fprint(s, "\x1b[3A\r\n\r\n\x1b[2Kstatus 2\r\n")
	lines = append(lines, s.Flush()...)
	var got []string
	for _, l := range lines {
		got = append(got, l.Text)
	}
	if want := []string{"$ run", long, "status 1", "status 2"}; !slices.Equal(got, want) {
		t.Fatalf("committed %q; want %q", got, want)
	}
}

// A screen made shorter under a cursor waiting to wrap (after text that
// fills its row) keeps it waiting: the line goes on at the start of the
// next row, its last character not written over.
func TestAShorterScreenKeepsTheCursorWaitingToWrap(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 10})
	defer s.Close()
	fmt.Fprint(s, "$ run\r\nstart\r\n0123456789")
	lines := s.TakeLines()
	s.Resize(2, 10)
	fmt.Fprint(s, "ab\r\n")
	lines = append(lines, s.TakeLines()...)
	var got []string
	for _, l := range append(lines, s.Flush()...) {
		got = append(got, l.Text)
	}
	if want := []string{"$ run", "start", "0123456789ab"}; !slices.Equal(got, want) {
		t.Fatalf("committed %q; want %q", got, want)
	}
}

// A program that draws its rows in place (Claude Code inline redraws its
// live area so) wraps a paragraph for a 50-column screen; the screen then
// narrows to 30 and shortens, and the rows leave at the top as the
// terminal rewrapped them, each over as many lines as it takes at 30
// columns. Each is committed whole, as shown at 50 columns, numbered by
// its first line there, and says how many lines it takes (Rows): the next
// row of the paragraph is that many lines under it.
func TestRowsANarrowerScreenPushesOffSayHowManyLinesTheyTake(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 8, Cols: 50})
	defer s.Close()
	for i := range 6 {
		fmt.Fprintf(s, "row %d\r\n", i)
	}
	fmt.Fprint(s, "> ")
	s.TakeLines()
	rows := []string{
		"@relay:bob one two three four five six seven",
		"eight nine",
		"ten eleven twelve thirteen fourteen fifteen",
		"sixteen",
	}
	fmt.Fprint(s, "\x1b[6A\r")
	for _, r := range rows {
		fmt.Fprintf(s, "%s\x1b[K\r\x1b[1B", r)
	}
	s.TakeLines()
	s.Resize(3, 30)
	type got struct {
		N    int64
		Rows int
		Cols int
		Text string
	}
	var lines []got
	for _, l := range s.TakeLines() {
		lines = append(lines, got{l.N, l.Rows, l.Cols, l.Text})
	}
	want := []got{
		{0, 2, 50, rows[0]},
		{2, 1, 50, rows[1]},
		{3, 2, 50, rows[2]},
		{5, 1, 50, rows[3]},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines pushed off (-want +got):\n%s", diff)
	}
}
