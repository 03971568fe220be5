package spawner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// screenState is everything a batch of scrolls must leave as single
// scrolls would: committed lines, the visible screen with its styles, the
// scrollback and the cursor.
type screenState struct {
	Lines      []string
	Render     string
	Scrollback []string
	Cursor     Cursor
}

func feedState(t testing.TB, data string, chunk int) screenState {
	t.Helper()
	return feedScreen(t, NewScreen(ScreenOptions{Rows: 6, Cols: 20}), data, chunk)
}

func feedScreen(t testing.TB, s *Screen, data string, chunk int) screenState {
	t.Helper()
	defer s.Close()
	var lines []string
	for i := 0; i < len(data); {
		n := len(data) - i
		if chunk > 0 {
			n = min(chunk, n)
		}
		if _, err := s.Write([]byte(data[i : i+n])); err != nil {
			t.Fatal(err)
		}
		i += n
		for _, l := range s.TakeLines() {
			lines = append(lines, fmt.Sprintf("%d:%s", l.N, l.Text))
		}
	}
	st := screenState{Lines: lines, Render: s.Render(0), Cursor: s.Snapshot().Cursor}
	for off := s.ScrollbackLen(); off > 0; off-- {
		st.Scrollback = append(st.Scrollback, strings.SplitN(s.Render(off), "\n", 2)[0])
	}
	// The lines still held (a redraw's, until output settles) count too:
	// whether one moved was decided as the rows scrolled.
	for _, l := range s.Flush() {
		st.Lines = append(st.Lines, fmt.Sprintf("%d:%s", l.N, l.Text))
	}
	return st
}

func TestBatchedScrollsMatchSingleScrolls(t *testing.T) {
	many := func(f func(i int) string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	cases := map[string]string{
		"plain":          many(func(i int) string { return fmt.Sprintf("line %d\r\n", i) }, 40),
		"bare LF":        many(func(i int) string { return fmt.Sprintf("l%d\n", i) }, 30),
		"coloured":       many(func(i int) string { return fmt.Sprintf("\x1b[3%dm%03d\x1b[0m ok\r\n", i%7+1, i) }, 40),
		"256 and rgb fg": many(func(i int) string { return fmt.Sprintf("\x1b[38;5;%dm#%d\x1b[38;2;1;2;3mx\x1b[m\r\n", i, i) }, 30),
		"full width":     many(func(i int) string { return strings.Repeat(string(rune('a'+i%26)), 20) + "\r\n" }, 30),
		"wrapping":       many(func(i int) string { return strings.Repeat("w", 15+i%10) + "\r\n" }, 30),
		"long wraps":     many(func(i int) string { return fmt.Sprintf("\x1b[32m%d\x1b[m", i) + strings.Repeat("x", 41+i%5) + "\n" }, 30),
		"no autowrap":    "\x1b[?7l" + many(func(i int) string { return strings.Repeat("n", 25) + fmt.Sprint(i) + "\r\n" }, 20),
		"background":     many(func(i int) string { return fmt.Sprintf("\x1b[4%dmbg %d\x1b[49m\r\n", i%7+1, i) }, 30),
		"bg left on":     "\x1b[44m" + many(func(i int) string { return fmt.Sprintf("blue %d\r\n", i) }, 20) + "\x1b[0m",
		"cr overwrite":   many(func(i int) string { return fmt.Sprintf("progress %d\rdone %d\r\n", i, i) }, 30),
		"mixed":          many(func(i int) string { return fmt.Sprintf("a%d\r\n\x1b[1mB\x1b[0m\n\x1b[2K\r\nζ%d\r\n", i, i) }, 15),
		"relay lines":    many(func(i int) string { return fmt.Sprintf("@relay:bob ping %d\r\n", i) }, 25),
		// Lines after an Ink-style redraw scroll inside its zone: wrapped
		// lines, repeated text and rows whose committed text was changed.
		// "2" moves up a row in a redraw: when it scrolls off, the row that
		// showed it is still on the screen, line by line.
		"moved line": "1\r\n2\r\n3\r\n\x1b[3A\x1b[2K2\r\n\x1b[2Kother\r\n\x1b[3B\r\np\r\nq\r\nr\r\ns\r\n",
		// A redraw moves "mmm…" up three rows and "c-line…" down two, past
		// it: lines that move in one redraw keep their order, so c-line is
		// new there (inOrder). "mmm…" is found moved as the top row scrolls
		// off, two rows at once or one by one, from where it was: the rows
		// still on the screen are at their own positions then, not short
		// by the rows still to go.
		"moved past a line": movedPastALine,
		"after a redraw": many(func(i int) string {
			return fmt.Sprintf("log %d\r\nspin %d\r\n> \x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[Gspin %d\r\n> \r\n", i, i, i+1) +
				strings.Repeat("z", 25+i%7) + "\r\nsame\r\nsame\r\n\x1b[3A\x1b[2Kchanged\x1b[3B\r\n"
		}, 12),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			want := feedState(t, data, 1) // one byte at a time: nothing to batch
			for _, chunk := range []int{0, 7, 64} {
				if diff := cmp.Diff(want, feedState(t, data, chunk)); diff != "" {
					t.Errorf("fed in chunks of %d (0: whole), differs from byte by byte:\n%s", chunk, diff)
				}
			}
		})
	}
}

func TestRowsAhead(t *testing.T) {
	for _, c := range []struct {
		in       string
		col      int
		want     int
		describe string
	}{
		{"", 3, 0, "nothing ahead"},
		{"a\r\nb\r\nc", 0, 2, "two line feeds; the unfinished line has not wrapped"},
		{"a\r\n0123456789ABC", 0, 2, "the unfinished line counts its wrap"},
		{"a\r\n0123456789A", 0, 1, "but not a wrap made by the last character, held back"},
		{"a\r\n0123456789ABC\t", 0, 1, "nor when something not plain cuts it"},
		{"a\r\n012345678901234567890123456789012345678901234", 0, 1, "nor when its wraps would pass the limit"},
		{"a\r\nb\x1b[31mc\x1b[0m\r\n", 0, 2, "fg colour is plain"},
		{"a\r\n\x1b[41mb\r\n", 0, 1, "a background stops the batch"},
		{"a\r\n\x1b[1;48;5;2mb\r\n", 0, 1, "an indexed background too"},
		{"a\r\n\x1b[38;5;41;1mb\r\n", 0, 2, "a foreground numbered like a background is plain"},
		{"a\r\n\x1b[38;2;40;41;42;58;5;100mb\r\n", 0, 2, "and so are RGB and underline colours"},
		{"a\r\n\x1b[38;2;40;41;42;43mb\r\n", 0, 1, "but not a background after them"},
		{"a\r\n\x1b[38;1;44mb\r\n", 0, 1, "38 without 5 or 2 leaves what follows to be read"},
		{"a\r\n\x1b[;mb\x1b[mc\r\n", 0, 2, "empty parameters are resets"},
		{"a\r\n\x1b[2Ab\r\n", 0, 1, "cursor movement stops it"},
		{"0123456789\r\n", 0, 1, "a row that just fits"},
		{"56789\r\n", 5, 1, "a row that fits from the cursor column"},
		{"567890\r\n", 5, 2, "a row that wraps from the cursor column takes two"},
		{"0123456789X\r\nab\r\n", 0, 3, "a wrapped line counts its wrap"},
		{"01234567890123456789012\n", 0, 3, "two wraps"},
		{"0123456789X\r\n", 0, 0, "a line that would pass the limit"},
		{"ab\tc\r\n", 0, 0, "tabs are not plain"},
		{"é\r\n", 0, 0, "non-ASCII is not plain"},
		{"a\r\nb\x1b[3", 0, 1, "a cut sequence stops it"},
		{"\n\n\n\n\n\n", 0, 4, "at most the limit"},
	} {
		limit := 4
		if c.describe == "a line that would pass the limit" {
			limit = 1
		}
		if got := rowsAhead([]byte(c.in), c.col, 10, limit, true); got != c.want {
			t.Errorf("%s: rowsAhead(%q) = %d, want %d", c.describe, c.in, got, c.want)
		}
	}
	if got := rowsAhead([]byte("0123456789XY\n"), 0, 10, 4, false); got != 1 {
		t.Errorf("without auto-wrap a long line takes one row, got %d", got)
	}
}

// movedPastALine: see TestBatchedScrollsMatchSingleScrolls.
const movedPastALine = "r0\r\nr1\r\nc-line-long-enough\r\nmmm-line-long-enough\r\nr4\r\n" +
	"\x1b[1;1H\x1b[2Kmmm-line-long-enough\x1b[3;1H\x1b[2Kxx\x1b[4;1H\x1b[2Kzzz\x1b[5;1H\x1b[2Kc-line-long-enough\x1b[6;1H\np1\r\n"

// batchCases are inputs where batching once went wrong: inside an
// Ink-style redraw, with a background colour brought back by a restored
// cursor or by leaving the alternate screen, and outside a redraw, a line
// erased (ED 1) and written again lower down, which line by line has moved
// but was committed again when the batch took the erased row off at once.
var batchCases = []string{
	movedPastALine,
	"\n@relay:bob x\x1b[7H\x1b[1;J@relay:bob x\n0000000000\n",
	"\r\n@relay:bob x\x1b[6;7H\x1b[1;8H\r@relay:bob x\r\nrrrrrrrrrqqqqqqqqqqqqqqqqqqqq\r\n@relay:bob x\n\r\n\n\n\r\n\r\n",
	"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n\x1b[44m\x1b7\x1b[0m\x1b8a\n\rb\x1b[0m\r\nc\r\nd\r\n",
	"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n\x1b[44m\x1b[?1049h\x1b[0m\x1b[?1049la\r\nb\x1b[0m\r\nc\r\nd\r\ne\r\n",
}

// FuzzScrollBatch checks that scrolling runs of lines at once gives what
// scrolling line by line gives, for any output.
func FuzzScrollBatch(f *testing.F) {
	for _, c := range batchCases {
		f.Add([]byte(c))
	}
	f.Add([]byte("a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\n\x1b[2A\x1b[Ki\r\nj\r\nk\r\n"))
	f.Add([]byte("a\r\nb\r\n> \x1b[2K\x1b[1A\x1b[2K\x1b[Gb\r\n> \r\nwwwwwwwwwwwwwwwwwwwwwwww\r\nb\r\nc\r\nd\r\n\x1b[2A\x1b[2Kx\x1b[2B\r\ne\r\nf\r\ng\r\nh\r\ni\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		line := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
		line.noBatch = true
		want := feedScreen(t, line, string(data), 0)
		got := feedScreen(t, NewScreen(ScreenOptions{Rows: 6, Cols: 20}), string(data), 0)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("batched scrolling differs from line by line for %q:\n%s", data, diff)
		}
		// Between writes too: the same output in pieces shows the same
		// screen after each piece.
		chunk := 1 + len(data)%23
		line, batched := NewScreen(ScreenOptions{Rows: 6, Cols: 20}), NewScreen(ScreenOptions{Rows: 6, Cols: 20})
		defer line.Close()
		defer batched.Close()
		line.noBatch = true
		for i := 0; i < len(data); i += chunk {
			piece := data[i:min(i+chunk, len(data))]
			_, _ = line.Write(piece)
			_, _ = batched.Write(piece)
			if a, b := line.Render(0), batched.Render(0); a != b {
				t.Fatalf("after %q, batched scrolling shows\n%s\nline by line\n%s", data[:i+len(piece)], b, a)
			}
			if a, b := line.Snapshot().Cursor, batched.Snapshot().Cursor; a != b {
				t.Fatalf("after %q, the cursor is at %+v batched, %+v line by line", data[:i+len(piece)], b, a)
			}
		}
	})
}

// A screen started after another (the program ran again) keeps what the
// last run printed — its scrollback and what its screen showed — above a
// separator, styles included; none of it is committed again.
func TestScreenKeepsThePreviousRun(t *testing.T) {
	old := NewScreen(ScreenOptions{Rows: 3, Cols: 20})
	defer old.Close()
	_, _ = old.Write([]byte("one\r\ntwo\r\n\x1b[31mthree\x1b[0m\r\nfour"))
	old.TakeLines()
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 20, Before: old, Separator: "── again ──"})
	defer s.Close()
	_, _ = s.Write([]byte("fresh\r\n"))
	if got := s.ScrollbackLen(); got != 5 {
		t.Fatalf("scrollback %d rows, want 5 (one, two, three, four, the separator)", got)
	}
	for offset, want := range map[int]string{5: "one\ntwo\n\x1b[31mthree", 2: "four\n\x1b[2m── again ──\x1b[m\nfresh"} {
		if view := s.Render(offset); !strings.HasPrefix(view, want) {
			t.Errorf("view scrolled back %d rows:\n%q\nwant it to start\n%q", offset, view, want)
		}
	}
	if hits := matchRows(s.Find("three")); len(hits) != 1 || hits[0] != 2 {
		t.Errorf("search for the last run's text: %v, want [2]", hits)
	}
	for _, l := range s.TakeLines() {
		if l.Text != "fresh" {
			t.Errorf("committed %q from the last run", l.Text)
		}
	}
}

// matchRows is the rows matches start on.
func matchRows(ms []Match) []int {
	rows := make([]int, len(ms))
	for i, m := range ms {
		rows[i] = m.Row
	}
	return rows
}

// Search finds text the terminal wrapped over rows, and says which cells
// of which rows a match covers, wide characters counted as two.
func TestFindAcrossWrappedRows(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 4, Cols: 10})
	defer s.Close()
	// "tick 61" wraps after "tick" at the edge: "xxxxxtick " / "61".
	_, _ = s.Write([]byte("xxxxx\x1b[32mtick \x1b[0m61\r\n你好 Tick 7\r\n"))
	got := s.Find("TICK 61")
	want := []Match{{Row: 0, Spans: []Span{{Row: 0, From: 5, To: 10}, {Row: 1, From: 0, To: 2}}}}
	if !cmp.Equal(got, want) {
		t.Fatalf("Find(TICK 61) = %+v, want %+v", got, want)
	}
	// 你好 takes four cells: "你好 Tick 7" is eleven and wraps before the 7.
	if got := s.Find("tick 7"); len(got) != 1 || !cmp.Equal(got[0].Spans, []Span{{Row: 2, From: 5, To: 10}, {Row: 3, From: 0, To: 1}}) {
		t.Fatalf("Find(tick 7) after wide characters = %+v", got)
	}
	if got := s.Find("tick"); len(got) != 2 {
		t.Fatalf("Find(tick) = %+v, want 2 matches", got)
	}
}

// The scrollback is laid out again when the width changes, as the screen
// is: thirty lines of 95 characters at 120 columns, made 50 wide and 120
// again, are one row each again everywhere, and nothing is committed by
// the resizes.
func TestScrollbackReflowsWithTheScreen(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 20, Cols: 120})
	defer s.Close()
	line := func(i int) string { return fmt.Sprintf("%02d %s", i, strings.Repeat("x", 92)) }
	for i := range 30 {
		fmt.Fprintf(s, "\x1b[3%dm%s\x1b[0m\r\n", i%7+1, line(i))
	}
	s.TakeLines()
	s.Resize(20, 50)
	if got := s.Snapshot().Lines[0]; len(got) > 50 {
		t.Fatalf("at 50 columns the top row is %q", got)
	}
	for n, offset := s.ScrollbackLen(), 0; offset < n; offset++ {
		if row := strings.SplitN(s.Render(n-offset), "\n", 2)[0]; ansi.StringWidth(row) > 50 {
			t.Fatalf("at 50 columns a scrollback row is %d wide: %q", ansi.StringWidth(row), row)
		}
	}
	s.Resize(20, 120)
	// The screen's lines are one row each again; as in tmux 3.3a, the rows
	// they free take back lines from the scrollback above them.
	snap := s.Snapshot()
	for i, row := range snap.Lines[:19] {
		if want := line(11 + i); row != want {
			t.Fatalf("row %d at 120 columns is %q, want %q (all: %q)", i, row, want, snap.Lines)
		}
	}
	// The scrollback too: every line that left is one row at 120 columns,
	// in order, with its colour.
	n := s.ScrollbackLen()
	if n != 11 {
		t.Errorf("scrollback %d rows at 120 columns, want 11 (one a line)", n)
	}
	top := strings.Split(s.Render(n), "\n")
	for i := range n {
		if got := ansi.Strip(top[i]); got != line(i) {
			t.Errorf("scrollback row %d is %q, want %q", i, got, line(i))
		}
	}
	if !strings.Contains(top[0], "\x1b[31m") {
		t.Errorf("the colour is gone from the scrollback: %q", top[0])
	}
	if lines := s.TakeLines(); len(lines) != 0 {
		t.Errorf("the resizes committed %d lines: %+v", len(lines), lines)
	}
}

// Text gives rows back as lines to copy: wrapped rows joined, across the
// scrollback and the screen.
func TestTextJoinsWrappedRows(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 10})
	defer s.Close()
	_, _ = s.Write([]byte("first\r\nxxxxx\x1b[32mtick \x1b[0m61\r\nlast"))
	// first went to the scrollback; "xxxxxtick " / "61" wrapped; "last".
	if got, want := s.Text(0, 3), "first\nxxxxxtick 61\nlast"; got != want {
		t.Errorf("Text(0, 3) = %q, want %q", got, want)
	}
	if got, want := s.Text(2, 3), "61\nlast"; got != want {
		t.Errorf("Text(2, 3) = %q, want %q", got, want)
	}
}

// What a screen started after another shows is this run's: the last run's
// rows kept above the separator (a message's echo typed into that run)
// are not found by Contains, on the screen, in the scrollback, or after
// a resize lays the scrollback out again; this run's rows are, there too.
func TestContainsLeavesOutThePreviousRun(t *testing.T) {
	old := NewScreen(ScreenOptions{Rows: 3, Cols: 30})
	defer old.Close()
	_, _ = old.Write([]byte("$ \r\n[relay #5eed0001 from lead] hi\r\n$ "))
	old.TakeLines()
	if !old.Contains("#5eed0001") {
		t.Fatal("the first run does not show its own echo")
	}
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 30, Before: old, Separator: "── again ──"})
	defer s.Close()
	check := func(when string) {
		t.Helper()
		if s.Contains("#5eed0001") {
			t.Errorf("%s: the last run's echo is taken for this run's", when)
		}
	}
	check("at the start")
	_, _ = s.Write([]byte("[relay #5eed0002 from lead] again\r\n"))
	check("after a line")
	_, _ = s.Write([]byte("a\r\nb\r\nc\r\n"))
	check("after this run's first line scrolled off")
	if !s.Contains("#5eed0002") {
		t.Error("this run's line, in the scrollback, is not found")
	}
	s.Resize(3, 20)
	check("after a narrower resize")
	if !s.Contains("#5eed0002") {
		t.Error("this run's line, laid out again in the scrollback, is not found")
	}
	_, _ = s.Write([]byte("[relay #5eed0001 from lead] hi\r\n"))
	if !s.Contains("#5eed0001") {
		t.Error("the message typed into this run and echoed is not found")
	}
}
