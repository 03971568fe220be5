package spawner

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"swarm/internal/testrun"
	"sync"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/google/go-cmp/cmp"
)

// feed writes data to a fresh screen in the given chunk sizes (0: whole)
// and returns the committed lines as "N:text".
func feed(t testing.TB, opts ScreenOptions, data string, cut func(int) []int) []string {
	t.Helper()
	return feedReading(t, opts, data, cut, false)
}

// feedReading is feed, reading the screen as the UI does (a snapshot) at
// every cut when read is set.
func feedReading(t testing.TB, opts ScreenOptions, data string, cut func(int) []int, read bool) []string {
	t.Helper()
	s := NewScreen(opts)
	defer s.Close()
	var out []string
	add := func(ls []Line) {
		for _, l := range ls {
			out = append(out, fmt.Sprintf("%d:%s", l.N, l.Text))
		}
	}
	prev := 0
	for _, c := range append(cut(len(data)), len(data)) {
		if _, err := s.Write([]byte(data[prev:c])); err != nil {
			t.Fatal(err)
		}
		add(s.TakeLines())
		if read {
			_ = s.Snapshot()
		}
		prev = c
	}
	add(s.Flush())
	return out
}

func whole(int) []int { return nil }

// cutPhases are the sets of cut offsets into an input of n bytes: each
// offset alone up to 512 bytes, else 32 passes each cutting every offset
// of one residue mod 32.
func cutPhases(n int) [][]int {
	var sets [][]int
	if n <= 512 {
		for k := 1; k < n; k++ {
			sets = append(sets, []int{k})
		}
		return sets
	}
	const m = 32
	for phase := 1; phase <= m; phase++ {
		var cuts []int
		for k := phase; k < n; k += m {
			cuts = append(cuts, k)
		}
		sets = append(sets, cuts)
	}
	return sets
}

func bytewise(n int) []int {
	cuts := make([]int, 0, n)
	for i := 1; i < n; i++ {
		cuts = append(cuts, i)
	}
	return cuts
}

// texts drops the line numbers.
func texts(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[strings.IndexByte(l, ':')+1:]
	}
	return out
}

// inkFrames renders frames the way Ink's log-update does: erase the
// previous frame line by line going up, then write the new one. The
// newlines are CRLF, as the tty delivers them.
func inkFrames(frames ...[]string) string {
	var sb strings.Builder
	prev := 0
	for _, f := range frames {
		for i := range prev {
			sb.WriteString("\x1b[2K")
			if i < prev-1 {
				sb.WriteString("\x1b[1A")
			}
		}
		if prev > 0 {
			sb.WriteString("\x1b[G")
		}
		sb.WriteString(strings.Join(f, "\r\n"))
		prev = len(f)
	}
	return sb.String()
}

func repeatFrames(n int, f func(i int) []string) [][]string {
	var out [][]string
	for i := range n {
		out = append(out, f(i))
	}
	return out
}

var lineCases = []struct {
	name       string
	rows, cols int
	newline    bool
	in         string
	want       []string
}{
	{name: "plain lines", in: "hello\r\nworld\r\n", want: []string{"hello", "world"}},
	{name: "cursor line at the end", in: "one\r\n$ ", want: []string{"one", "$"}},
	{name: "leading blanks kept", in: "   indented\r\n", want: []string{"   indented"}},
	{name: "blank lines", in: "a\r\n\r\n\r\nb\r\n", want: []string{"a", "", "", "b"}},
	{name: "newline mode", newline: true, in: "a\nb\n", want: []string{"a", "b"}},
	{name: "bare line feed keeps the column", in: "ab\ncd\r\n", want: []string{"ab", "  cd"}},
	{name: "carriage return overwrites", in: "10%\r20%\r100%\r\n@relay:bob done\r\n", want: []string{"100%", "@relay:bob done"}},
	{name: "backspace", in: "abc\b\bXY\r\n", want: []string{"aXY"}},
	{name: "erase in line", in: "hello world\r\x1b[Khi\r\n", want: []string{"hi"}},
	{name: "tab", in: "a\tb\r\n", want: []string{"a       b"}},
	{name: "colours", in: "\x1b[1;31m@relay:bob\x1b[0m \x1b[38;5;42mhi\x1b[m\r\n", want: []string{"@relay:bob hi"}},
	{name: "same line twice", in: "@relay:bob ok\r\n@relay:bob ok\r\n", want: []string{"@relay:bob ok", "@relay:bob ok"}},
	{
		name: "wrapped line joined", cols: 10,
		in:   "@relay:bob this body is longer than ten\r\nnext\r\n",
		want: []string{"@relay:bob this body is longer than ten", "next"},
	},
	{name: "blank at the wrap point kept", cols: 5, in: "abcd efgh\r\n", want: []string{"abcd efgh"}},
	{name: "full-width line not joined with the next", cols: 5, in: "abcde\r\nfgh\r\n", want: []string{"abcde", "fgh"}},
	{
		name: "wrapped line longer than the screen", rows: 3, cols: 10,
		in:   strings.Repeat("0123456789", 9) + "end\r\nafter\r\n",
		want: []string{strings.Repeat("0123456789", 9) + "end", "after"},
	},
	{name: "wide characters", cols: 20, in: "@relay:bob 你好, 世界\r\n", want: []string{"@relay:bob 你好, 世界"}},
	{name: "wide character ending in the last column", cols: 6, in: "abcd你好x\r\n", want: []string{"abcd你好x"}},
	{name: "wide character not fitting the last column", cols: 6, in: "abcde你x\r\n", want: []string{"abcde你x"}},
	// The next character wraps, whatever comes between (vt patch 20).
	{name: "wide character ending in the last column, then a cluster of no column", cols: 6, in: "abcd你\u2029\r\n", want: []string{"abcd你\u2029"}},
	{name: "wide character ending in the last column, then the cursor hidden", cols: 6, in: "abcd你\x1b[?25lx\r\n", want: []string{"abcd你x"}},
	{name: "wide character ending in the last column, then a bell and a query", cols: 6, in: "abcd你\a\x1b[6nx\r\n", want: []string{"abcd你x"}},
	{name: "wide characters wrapping", cols: 5, in: "你好世界你好世界\r\n", want: []string{"你好世界你好世界"}},
	{name: "wide characters on a screen two columns wide", cols: 2, in: "0你0\r\n", want: []string{"0你0"}},
	{
		name: "emoji", cols: 12,
		in:   "@relay:bob 👍🏽 and 👨‍👩‍👧 and 🇫🇷 ok\r\n",
		want: []string{"@relay:bob 👍🏽 and 👨‍👩‍👧 and 🇫🇷 ok"},
	},
	{name: "combining mark", in: "cafe\u0301\r\n", want: []string{"cafe\u0301"}},
	{
		name: "spinner on one line", in: "⠋ working\r⠙ working\r⠹ working\r\x1b[2Kdone\r\n@relay:bob hi\r\n",
		want: []string{"done", "@relay:bob hi"},
	},
	{
		name: "scrolling", rows: 3,
		in:   "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n",
		want: []string{"1", "2", "3", "4", "5", "6", "7"},
	},
	{
		name: "region redrawn with the same text",
		in:   "@relay:bob hi\r\nstatus 1" + strings.Repeat("\x1b[2K\x1b[1A\x1b[2K\x1b[G@relay:bob hi\r\nstatus 2", 50) + "\r\n",
		want: []string{"@relay:bob hi", "status 2"},
	},
	{
		name: "ink region redrawn 50 times",
		in: inkFrames(repeatFrames(50, func(i int) []string {
			return []string{"⠋ working " + fmt.Sprint(i), "@relay:bob hi", "> "}
		})...),
		want: []string{"⠋ working 0", "@relay:bob hi", "⠋ working 49", ">"},
	},
	{
		name: "ink region growing above the relay line",
		in: inkFrames(
			[]string{"@relay:bob hi", "status"},
			[]string{"thinking 1", "@relay:bob hi", "status"},
			[]string{"thinking 1", "thinking 2", "@relay:bob hi", "status"},
			[]string{"thinking 1", "thinking 2", "thinking 3", "@relay:bob hi", "status"},
		),
		want: []string{"@relay:bob hi", "thinking 1", "thinking 2", "thinking 3", "status"},
	},
	{
		name: "ink region shrinking above the relay line",
		in: inkFrames(
			[]string{"a", "b", "@relay:bob hi", "status"},
			[]string{"a", "@relay:bob hi", "status"},
			[]string{"@relay:bob hi", "status"},
		),
		want: []string{"a", "b", "@relay:bob hi", "status"},
	},
	{
		name: "ink streaming a line is committed once, complete",
		in: inkFrames(
			[]string{"⠋", "> "},
			[]string{"@relay:bob please", "⠙", "> "},
			[]string{"@relay:bob please review", "⠹", "> "},
			[]string{"@relay:bob please review auth.go", "⠸", "> "},
			[]string{"@relay:bob please review auth.go", "> "},
		),
		want: []string{"⠋", "@relay:bob please review auth.go", ">"},
	},
	{
		name: "ink static output above the region",
		in: inkFrames(
			[]string{"⠋ 1", "> "},
			[]string{"@relay:bob one", "⠙ 2", "> "},
			[]string{"@relay:bob one", "@relay:bob two", "⠹ 3", "> "},
		),
		want: []string{"⠋ 1", "@relay:bob one", "@relay:bob two", "⠹ 3", ">"},
	},
	{
		name: "screen cleared and redrawn",
		in:   "@relay:bob hi\r\nstatus\r\n\x1b[H\x1b[2J@relay:bob hi\r\nstatus\r\n\x1b[H\x1b[J@relay:bob hi\r\nstatus\r\n",
		want: []string{"@relay:bob hi", "status"},
	},
	{
		name: "alternate screen: its rows once, the main screen not again",
		in:   "before\r\n\x1b[?1049h\x1b[H@relay:bob from vim\r\n~\r\n~\x1b[?1049lafter\r\n",
		want: []string{"before", "@relay:bob from vim", "~", "~", "after"},
	},
	{
		name: "alternate screen together with other modes",
		in:   "a\r\n\x1b[?1049;25h@relay:x y\r\nz\x1b[?25;1049lb\r\n",
		want: []string{"a", "@relay:x y", "z", "b"},
	},
	{
		name: "scroll region with a status row", rows: 4,
		in: "\x1b[1;3r\x1b[4;1Hstatus 0\x1b[1;1H" +
			"l1\r\nl2\r\nl3\r\n\x1b7\x1b[4;1H\x1b[2Kstatus 1\x1b8l4\r\nl5\r\n\x1b7\x1b[4;1H\x1b[2Kstatus 2\x1b8",
		want: []string{"l1", "l2", "l3", "l4", "l5", "status 2"},
	},
	{
		name: "insert and delete lines",
		in:   "one\r\ntwo\r\nthree\r\n\x1b[2A\x1b[Linserted\r\n\x1b[3B",
		want: []string{"one", "two", "three", "inserted"},
	},
	{name: "huge repeat and erase counts", rows: 2, cols: 5, in: "ab\x1b[999999999b\r\n\x1b[999999999X\x1b[99999999Ix\r\n", want: []string{"abbbbbbbbbbb", "    x"}},
	{name: "terminal queries", in: "\x1b[6n\x1b[c\x1b[>c\x1b[5nok\r\n", want: []string{"ok"}},
	{name: "hyperlink", in: "\x1b]8;;https://example.com\x07link\x1b]8;;\x07 text\r\n", want: []string{"link text"}},
	{name: "title and unknown sequences", in: "\x1b]0;title\x07\x1bP1$r\x1b\\\x1b[?2026hx\x1b[?2026l\r\n", want: []string{"x"}},
}

func TestCommittedLines(t *testing.T) {
	for _, tc := range lineCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := ScreenOptions{Rows: tc.rows, Cols: tc.cols, NewlineMode: tc.newline}
			got := feed(t, opts, tc.in, whole)
			if diff := cmp.Diff(tc.want, texts(got)); diff != "" {
				t.Fatalf("lines (-want +got):\n%s", diff)
			}
			// Cut anywhere: same lines, same numbers. A short input is cut
			// at each offset alone; a long one in phases (every offset ≡
			// phase mod 32 in one pass), so each offset is still cut once
			// without a pass per byte.
			for _, cuts := range cutPhases(len(tc.in)) {
				if split := feed(t, opts, tc.in, func(int) []int { return cuts }); !cmp.Equal(got, split) {
					t.Fatalf("cut at %v of %q:\n%s", cuts, tc.in, cmp.Diff(got, split))
				}
			}
			if one := feed(t, opts, tc.in, bytewise); !cmp.Equal(got, one) {
				t.Fatalf("one byte at a time:\n%s", cmp.Diff(got, one))
			}
		})
	}
}

func TestLineNumbers(t *testing.T) {
	got := feed(t, ScreenOptions{Rows: 3}, "a\r\nb\r\nc\r\nd\r\ne\r\n", whole)
	want := []string{"0:a", "1:b", "2:c", "3:d", "4:e"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestRedrawZoneWaitsForSettle(t *testing.T) {
	s := NewScreen(ScreenOptions{})
	defer s.Close()
	_, _ = s.Write([]byte(inkFrames([]string{"⠋", "> "}, []string{"@relay:bob hi", "⠙", "> "})))
	if got := texts(lineStrings(s.TakeLines())); !cmp.Equal(got, []string{"⠋"}) {
		t.Fatalf("before settling: %q", got)
	}
	if got := texts(lineStrings(s.Settle())); !cmp.Equal(got, []string{"@relay:bob hi", "⠙"}) {
		t.Fatalf("settled: %q", got)
	}
	// Settled lines are not committed again by a later redraw of the
	// same frame.
	_, _ = s.Write([]byte("\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G@relay:bob hi\r\n⠙\r\n> "))
	if got := lineStrings(s.Flush()); !cmp.Equal(got, []string{"2:>"}) {
		t.Fatalf("after redraw: %q, want only the cursor line", got)
	}
}

func lineStrings(ls []Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = fmt.Sprintf("%d:%s", l.N, l.Text)
	}
	return out
}

func TestSnapshot(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 10})
	defer s.Close()
	_, _ = s.Write([]byte("\x1b]2;my title\x07\x1b[?2004hab你\r\n\x1b[31mred\x1b[m"))
	got := s.Snapshot()
	want := Snapshot{
		Rows: 3, Cols: 10, Lines: []string{"ab你", "red", ""},
		Cursor: Cursor{X: 3, Y: 1}, CursorVisible: true,
		BracketedPaste: true, Title: "my title",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if !s.BracketedPaste() {
		t.Fatal("BracketedPaste() is not the snapshot's")
	}
	_, _ = s.Write([]byte("\x1b[?2004l\x1b[?25l\x1b[?1049hfull"))
	got = s.Snapshot()
	if !got.AltScreen || got.BracketedPaste || s.BracketedPaste() || got.CursorVisible || got.Lines[0] != "full" {
		t.Fatalf("alternate screen snapshot: %+v", got)
	}
	_, _ = s.Write([]byte("\x1b[?1049l"))
	if got = s.Snapshot(); got.AltScreen || got.Lines[1] != "red" || got.CursorVisible {
		t.Fatalf("back on the main screen, whose cursor was hidden before: %+v", got)
	}
	// vim's way out: hide the cursor on the alternate screen, leave it,
	// show the cursor. The shell's cursor is back.
	_, _ = s.Write([]byte("\x1b[?25h\x1b[?1049h\x1b[?25l\x1b[?1049l\x1b[?25h"))
	if got = s.Snapshot(); !got.CursorVisible {
		t.Fatalf("after a full-screen program the cursor is hidden: %+v", got)
	}
	// A hidden cursor stays hidden on the alternate screen.
	_, _ = s.Write([]byte("\x1b[?25l\x1b[?1049h"))
	if got = s.Snapshot(); got.CursorVisible {
		t.Fatalf("the alternate screen showed a cursor hidden before: %+v", got)
	}
}

// A title whose UTF-8 holds the byte 0x9C ("✳" is E2 9C B3: Claude
// Code's "✳ Claude Code") is the title whole, on either screen and cut
// anywhere into writes: none of it is printed where the cursor is.
func TestATitleHoldingTheByte9CIsNotPrinted(t *testing.T) {
	const title = "✳ Claude Code"
	stream := "\x1b[2;3H\x1b]0;" + title + "\x07X\x1bP+q✳Z\x1b\\Y"
	for _, alt := range []bool{false, true} {
		for cut := range len(stream) + 1 {
			s := NewScreen(ScreenOptions{Rows: 3, Cols: 20})
			if alt {
				_, _ = s.Write([]byte("\x1b[?1049h"))
			}
			_, _ = s.Write([]byte(stream[:cut]))
			_, _ = s.Write([]byte(stream[cut:]))
			got := s.Snapshot()
			s.Close()
			if got.Lines[1] != "  XY" || got.Title != title {
				t.Fatalf("alternate screen %v, cut at %d: row %q, title %q", alt, cut, got.Lines[1], got.Title)
			}
		}
	}
}

func TestHeldBackClusterShowsOnRead(t *testing.T) {
	s := NewScreen(ScreenOptions{})
	defer s.Close()
	_, _ = s.Write([]byte("$ "))
	_, _ = s.Write([]byte("e"))
	if got := s.Snapshot().Lines[0]; got != "$ e" {
		t.Fatalf("got %q", got)
	}
}

// A combining mark or joiner that comes in a later write than its
// character, after the screen was read (the UI's snapshot feeds the
// character held back), still belongs to that character: the committed
// line is the one the program wrote in one piece.
func TestMarkAfterAReadJoinsItsCharacter(t *testing.T) {
	for _, writes := range [][]string{
		{"@relay:bob ab e", "\u0301 x\r\n"},
		{"@relay:bob 世", "\u0301", " x\r\n"},
		{"@relay:bob 👨", "\u200d👧 x\r\n"},
	} {
		s := NewScreen(ScreenOptions{Rows: 4, Cols: 40})
		c := &committed{t: t, s: s, take: s.TakeLines}
		for i, w := range writes {
			if i > 0 {
				_ = s.Snapshot()
			}
			c.write(w)
		}
		want := strings.Join(writes, "")
		if got := c.flush(); len(got) != 1 || got[0] != strings.TrimSuffix(want, "\r\n") {
			t.Errorf("%q with reads between: committed %q", writes, got)
		}
		s.Close()
	}
}

func TestRender(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 2, Cols: 20})
	defer s.Close()
	_, _ = s.Write([]byte("\x1b[1;31mbold red\x1b[m plain\r\n\x1b[4munder\x1b[m 你好\r\nlast"))
	got := s.Render(0)
	want := "\x1b[4munder\x1b[m 你好\nlast"
	if got != want {
		t.Fatalf("Render(0) = %q, want %q", got, want)
	}
	if got := s.Render(1); got != "\x1b[31;1mbold red\x1b[m plain\n\x1b[4munder\x1b[m 你好" {
		t.Fatalf("Render(1) = %q", got)
	}
	if s.Render(5) != s.Render(1) {
		t.Fatal("Render past the scrollback is not clamped")
	}
}

func TestRenderHidesWrapMarks(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 5})
	defer s.Close()
	_, _ = s.Write([]byte("abcdefgh"))
	if got := s.Render(0); got != "abcde\nfgh\n" {
		t.Fatalf("got %q", got)
	}
}

func TestScrollbackSearchContains(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 3, Cols: 10, Scrollback: 5})
	defer s.Close()
	for i := range 10 {
		fmt.Fprintf(s, "line %d\r\n", i)
	}
	_, _ = s.Write([]byte("[relay #abcdef12 from x]"))
	if n := s.ScrollbackLen(); n != 5 {
		t.Fatalf("scrollback %d rows, want 5 (capped)", n)
	}
	// The marker wraps over the three rows of the screen, so lines 0-9
	// scrolled off; the scrollback keeps 5-9 (index 0 is the oldest).
	if got := matchRows(s.Find("LINE 7")); !cmp.Equal(got, []int{2}) {
		t.Fatalf("Find(LINE 7) = %v", got)
	}
	if got := matchRows(s.Find("#ab")); !cmp.Equal(got, []int{5}) {
		t.Fatalf("Find(#ab) = %v", got)
	}
	if !s.Contains("#abcdef12 from x") {
		t.Fatal("Contains misses text wrapped over rows")
	}
	if !s.Contains("line 8") || s.Contains("line 6") {
		t.Fatal("Contains should see the last screenful of scrollback only")
	}
}

func TestResize(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 5, Cols: 20})
	defer s.Close()
	_, _ = s.Write([]byte("one\r\ntwo\r\n"))
	s.Resize(3, 8)
	_, _ = s.Write([]byte("three is long\r\n"))
	snap := s.Snapshot()
	if snap.Rows != 3 || snap.Cols != 8 || len(snap.Lines) != 3 {
		t.Fatalf("snapshot %+v", snap)
	}
	got := texts(lineStrings(s.Flush()))
	if want := []string{"one", "two", "three is long"}; !cmp.Equal(want, got) {
		t.Fatalf("lines %q, want %q", got, want)
	}
}

// A shorter screen cuts the rows under the cursor: their lines are
// committed as they leave, after the lines above them that were written
// over since their commit, as a screen never resized commits them, from
// the top down. The second "status" is a line of its own, not the first
// moved down (that one shows "00atus" now), at the same width or another.
func TestAShorterScreenCommitsTheLinesAboveTheCutFirst(t *testing.T) {
	for _, cols := range []int{20, 31} {
		s := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
		_, _ = s.Write([]byte("status\r\nstatus\x1b[H00"))
		got := texts(lineStrings(s.TakeLines()))
		s.Resize(1, cols)
		got = append(got, texts(lineStrings(append(s.TakeLines(), s.Flush()...)))...)
		s.Close()
		if want := []string{"status", "00atus", "status"}; !cmp.Equal(want, got) {
			t.Errorf("at %d columns: lines %q, want %q", cols, got, want)
		}
	}
}

// linesShrunkOnce writes in on a 6×20 screen and returns the texts of the
// lines it commits; with shrink, the screen is made one row tall and as
// tall as before once in is written (a shorter screen commits the rows it
// pushes off as they leave).
func linesShrunkOnce(in string, shrink bool) []string {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
	defer s.Close()
	_, _ = s.Write([]byte(in))
	got := appendTexts(nil, s.TakeLines())
	if shrink {
		s.Resize(1, 20)
		got = appendTexts(got, s.TakeLines())
		s.Resize(6, 20)
	}
	return appendTexts(got, s.Flush())
}

// A line the program wrote on after, where it stands ("@relay:bob hi"
// grown to "@relay:bob hi!"), is still there for a reader: the same text
// printed a few rows lower is a line of its own, not that line moved
// down, on a screen never resized as on one made shorter and as tall as
// before (which commits the first line's rows as they leave).
func TestALineWrittenOnWhereItStandsIsNotMovedByTheSameTextLower(t *testing.T) {
	const in = "a\r\n@relay:bob hi\r\n\x1b[A\x1b[14G!\r\nb\r\nc\r\n@relay:bob hi"
	want := []string{"a", "@relay:bob hi", "@relay:bob hi!", "b", "c", "@relay:bob hi"}
	for _, resize := range []bool{false, true} {
		got := linesShrunkOnce(in, resize)
		if !cmp.Equal(want, got) {
			t.Errorf("resized %v: lines %q, want %q", resize, got, want)
		}
	}
}

// The same holds for the text printed above a line written on where it
// stands (found moved by the row's record, not a ghost): "@relay:bob hi"
// grown to "@relay:bob hi0" is still there, and the "@relay:bob hi"
// printed on the row above is a line of its own, on a screen never
// resized as on one made shorter first (which commits the lower line as
// the cut takes it).
func TestTheSameTextAboveALineWrittenOnIsNotThatLineMoved(t *testing.T) {
	const in = "\n@relay:bob hi\n\x1b[A0\x1b[H@relay:bob hi"
	want := []string{"@relay:bob hi", "@relay:bob hi", "@relay:bob hi0"}
	for _, resize := range []bool{false, true} {
		got := linesShrunkOnce(in, resize)
		got = slices.DeleteFunc(got, func(l string) bool { return l == "" })
		slices.Sort(got)
		if !cmp.Equal(want, got) {
			t.Errorf("resized %v: lines %q, want %q", resize, got, want)
		}
	}
}

// A line replaced where it stands and printed a few rows lower is that
// line moved (the ghost rule, moved), however often the screen offered
// the lines in between: a shorter screen commits the rows it pushes off
// as they leave and offers them again as they scroll off, and the line
// moved is still the line moved once the screen is as tall as before.
func TestALineMovedIsFoundAfterAShorterScreenOfferedRowsTwice(t *testing.T) {
	const in = "a\r\n@relay:bob hi\r\n\x1b[A\x1b[2Kxyz\r\nb\r\nc\r\nd\r\n@relay:bob hi"
	var want []string
	for _, resize := range []bool{false, true} {
		got := linesShrunkOnce(in, resize)
		if !resize {
			want = got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("lines differ from a screen never resized (-want +got):\n%s", diff)
		}
	}
	if w := []string{"a", "@relay:bob hi", "xyz", "b", "c", "d"}; !cmp.Equal(w, want) {
		t.Fatalf("the screen never resized committed %q, want %q", want, w)
	}
}

// A program with a scroll region (Codex draws its transcript so) keeps its
// cursor where it is when the screen gets shorter, so the rows under the
// new bottom are cut. A line wrapped across the cut is committed whole,
// once: a relay command on it is not cut short.
func TestAShorterScreenCommitsALineItCutsWhole(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
	defer s.Close()
	// Rows 1 and 2 hold one line, wrapped: "@relay:bob see the" "log".
	_, _ = s.Write([]byte("\x1b[2;6r\x1b[2;1H@relay:bob see the log"))
	s.Resize(2, 20)
	_, _ = s.Write([]byte("\r\n"))
	s.Resize(6, 20)
	got := texts(lineStrings(append(s.TakeLines(), s.Flush()...)))
	if want := []string{"@relay:bob see the log"}; !cmp.Equal(want, got) {
		t.Fatalf("lines %q, want %q", got, want)
	}
}

func TestReplies(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	s := NewScreen(ScreenOptions{Replies: w})
	_, _ = s.Write([]byte("\x1b[3;5H\x1b[6n"))
	_ = s.Close() // waits for the reply to be copied
	mu.Lock()
	defer mu.Unlock()
	if got := buf.String(); got != "\x1b[3;5R" {
		t.Fatalf("reply %q", got)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestClosedScreen(t *testing.T) {
	s := NewScreen(ScreenOptions{})
	_, _ = s.Write([]byte("still readable"))
	_ = s.Close()
	if _, err := s.Write([]byte("x")); err != ErrClosed {
		t.Fatalf("write after close: %v", err)
	}
	if s.Snapshot().Lines[0] != "still readable" {
		t.Fatal("screen not readable after close")
	}
}

func TestConcurrentReaders(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 5, Cols: 20})
	defer s.Close()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.Snapshot()
				_ = s.Render(2)
				_ = s.Contains("x")
			}
		}()
	}
	for i := range 300 {
		fmt.Fprintf(s, "\x1b[3%dmline %d\x1b[m\r\n", i%8, i)
		if i%50 == 0 {
			s.Resize(5+i%3, 20+i%7)
		}
	}
	close(stop)
	wg.Wait()
	if n := len(s.TakeLines()); n != 300 {
		t.Fatalf("%d lines, want 300", n)
	}
}

func TestSendKeyFollowsCursorKeyMode(t *testing.T) {
	var out testrun.Buffer
	s := NewScreen(ScreenOptions{Replies: &out})
	defer s.Close()
	want := func(k uv.KeyPressEvent, seq string) {
		t.Helper()
		s.SendKey(k)
		got := ""
		if !testrun.Poll(testrun.Patience, func() bool { got += out.Take(); return got == seq }) {
			t.Fatalf("key %v sent %q, want %q", k, got, seq)
		}
	}
	want(uv.KeyPressEvent{Code: uv.KeyUp}, "\x1b[A")
	want(uv.KeyPressEvent{Code: 'c', Mod: uv.ModCtrl}, "\x03")
	want(uv.KeyPressEvent{Code: 'x', Text: "x", Mod: uv.ModAlt}, "\x1bx")
	// Capitals: a terminal reports "A" as shift+a with its text; Alt
	// adds ESC and no text; Caps Lock types the capital too.
	want(uv.KeyPressEvent{Code: 'a', ShiftedCode: 'A', Text: "A", Mod: uv.ModShift}, "A")
	want(uv.KeyPressEvent{Code: 'b', Mod: uv.ModShift | uv.ModAlt}, "\x1bB")
	want(uv.KeyPressEvent{Code: 'c', Text: "C", Mod: uv.ModCapsLock}, "C")
	want(uv.KeyPressEvent{Code: '1', ShiftedCode: '!', Mod: uv.ModShift}, "!")
	want(uv.KeyPressEvent{Code: uv.KeyExtended, Text: "é"}, "é")
	want(uv.KeyPressEvent{Code: 'a', Text: "a"}, "a")
	want(uv.KeyPressEvent{Code: uv.KeyEnter}, "\r")
	_, _ = s.Write([]byte("\x1b[?1h")) // application cursor keys, as vim and less set
	want(uv.KeyPressEvent{Code: uv.KeyUp}, "\x1bOA")
}

func TestShrinkingKeepsTheNewestRowsInView(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 20})
	defer s.Close()
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(s, "line %d\r\n", i)
	}
	fmt.Fprint(s, "$ ")
	s.Resize(4, 20)
	snap := s.Snapshot()
	if got := strings.Join(snap.Lines, "|"); got != "line 7|line 8|line 9|$" {
		t.Errorf("after shrinking: %q, want the last rows and the prompt", got)
	}
	if snap.Cursor != (Cursor{X: 2, Y: 3}) {
		t.Errorf("cursor %+v, want it on the prompt", snap.Cursor)
	}
	if n := s.ScrollbackLen(); n != 6 {
		t.Errorf("scrollback %d rows, want the 6 that left the top", n)
	}
	// Growing back shows nothing lost and nothing repeated.
	s.Resize(10, 20)
	var lines []string
	for _, l := range append(s.TakeLines(), s.Flush()...) {
		lines = append(lines, l.Text)
	}
	want := []string{"line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "$"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("committed lines %q, want each once", lines)
	}
}

// A screen made shorter and taller again while the cursor waits to wrap
// after the last column (vt patch 21): the next character goes on the
// line, not over its last character.
func TestAResizeOfTheHeightKeepsAPendingWrap(t *testing.T) {
	for _, rows := range []int{1, 3, 9} {
		s := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
		_, _ = s.Write([]byte("@relay:bob abcdefghi"))
		s.Resize(rows, 20)
		s.Resize(6, 20)
		_, _ = s.Write([]byte("jk\r\n"))
		got := texts(lineStrings(append(s.TakeLines(), s.Flush()...)))
		s.Close()
		if want := []string{"@relay:bob abcdefghijk"}; !cmp.Equal(want, got) {
			t.Errorf("resized to %d rows and back: lines %q, want %q", rows, got, want)
		}
	}
}

// A line longer than the scrollback loses its first rows at the cap: the
// scrollback's oldest row is in the middle of it, and a screen that grows
// back does not take it for the line's start. The line is committed once
// and whole, whether it had ended before the resize or goes on after it,
// at the same width or another.
func TestALineLongerThanTheScrollbackIsCommittedWholeAfterAResize(t *testing.T) {
	relay := "@relay:bob " + strings.Repeat("abcdefghijklm", 10) // 141 columns: 8 rows of 20
	for _, tc := range []struct {
		name string
		tail string
		want []string
	}{
		{"the line goes on", "", []string{"first", relay + " and more"}},
		{"the line ended", "\r\n$ ", []string{"first", relay, "$  and more"}},
	} {
		for _, size := range [][2]int{{3, 20}, {12, 20}, {4, 13}} {
			s := NewScreen(ScreenOptions{Rows: 6, Cols: 20, Scrollback: 2})
			_, _ = s.Write([]byte("first\r\n" + relay + tc.tail))
			got := texts(lineStrings(s.TakeLines()))
			s.Resize(size[0], size[1])
			s.Resize(6, 20)
			_, _ = s.Write([]byte(" and more\r\n"))
			got = append(got, texts(lineStrings(append(s.TakeLines(), s.Flush()...)))...)
			s.Close()
			if !cmp.Equal(tc.want, got) {
				t.Errorf("%s, resized to %v and back: lines\n%q\nwant\n%q", tc.name, size, got, tc.want)
			}
		}
	}
}

// A screen that gets shorter pushes its top rows into the scrollback; when
// it grows back with the cursor still on its bottom row they come back,
// colours and wrapped lines included, and no line is committed twice.
func TestGrowingBackPullsRowsFromTheScrollback(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 8, Cols: 20})
	defer s.Close()
	var lines []string
	take := func() {
		for _, l := range s.TakeLines() {
			lines = append(lines, l.Text)
		}
	}
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(s, "\x1b[3%dmline %d\x1b[0m\r\n", i, i)
	}
	fmt.Fprint(s, "wrapped line that is longer than twenty\r\nlast\r\n$ ")
	take()
	before := s.Snapshot()
	beforeStyled := s.Render(0)
	sbBefore := s.ScrollbackLen()

	s.Resize(3, 20) // a panel opened under the pane
	take()
	if got := s.Snapshot().Lines; got[2] != "$" {
		t.Fatalf("shrunk: %q, want the prompt on the bottom row", got)
	}
	s.Resize(8, 20) // and closed
	take()
	after := s.Snapshot()
	if diff := cmp.Diff(before.Lines, after.Lines); diff != "" {
		t.Errorf("grown back (-before +after):\n%s", diff)
	}
	if after.Cursor != before.Cursor {
		t.Errorf("cursor %+v, want %+v as before", after.Cursor, before.Cursor)
	}
	if got := s.Render(0); got != beforeStyled {
		t.Errorf("styles changed:\n%q\nwant\n%q", got, beforeStyled)
	}
	if n := s.ScrollbackLen(); n != sbBefore {
		t.Errorf("scrollback %d rows, want %d as before", n, sbBefore)
	}

	// The program goes on; every line is committed once.
	fmt.Fprint(s, "echo\r\n")
	for i := range 10 {
		fmt.Fprintf(s, "more %d\r\n", i)
	}
	take()
	for _, l := range s.Flush() {
		lines = append(lines, l.Text)
	}
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	for _, want := range []string{"line 1", "line 4", "wrapped line that is longer than twenty", "last", "$ echo", "more 9"} {
		if seen[want] != 1 {
			t.Errorf("%q committed %d times, want once; all: %q", want, seen[want], lines)
		}
	}
}

// A narrower screen wraps its lines anew instead of cutting them, and a
// wider one joins them back; nothing is committed by the resize itself.
func TestNarrowerScreenReflowsLines(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 20})
	defer s.Close()
	fmt.Fprint(s, "short\r\n\x1b[32m@relay:bob a message longer than the pane\x1b[0m\r\n$ ")
	s.TakeLines()

	s.Resize(6, 10)
	// Five rows for the relay line and one for the prompt: as in tmux
	// 3.3a, rows leave at the top (the first line and the relay line's
	// first row) and the blank row under the cursor stays.
	want := []string{" a message", " longer th", "an the pan", "e", "$", ""}
	if got := s.Snapshot().Lines; !slices.Equal(got, want) {
		t.Fatalf("at 10 columns: %q, want %q", got, want)
	}
	if got := s.Snapshot().Cursor; got != (Cursor{X: 2, Y: 4}) {
		t.Errorf("cursor %+v, want after the prompt", got)
	}
	if lines := s.TakeLines(); len(lines) != 0 {
		t.Errorf("the resize committed %v", lines)
	}
	s.Resize(6, 20)
	want = []string{"short", "@relay:bob a message", " longer than the pan", "e", "$", ""}
	if got := s.Snapshot(); !slices.Equal(got.Lines, want) || got.Cursor != (Cursor{X: 2, Y: 4}) {
		t.Errorf("back at 20 columns: %q %+v, want %q", got.Lines, got.Cursor, want)
	}
	if got := s.Render(0); !strings.Contains(got, "\x1b[32m@relay") {
		t.Errorf("the colour is gone: %q", got)
	}
	// The relay line is committed once, whole, when it finally leaves.
	for range 8 {
		fmt.Fprint(s, "\r\nmore")
	}
	var relay []string
	for _, l := range append(s.TakeLines(), s.Flush()...) {
		if strings.HasPrefix(l.Text, "@relay") {
			relay = append(relay, l.Text)
		}
	}
	if len(relay) != 0 {
		t.Errorf("relay line committed again: %q", relay)
	}
}

func TestCursorLineAndBlock(t *testing.T) {
	for _, tc := range []struct {
		name, in    string
		cols        int
		line, block string
	}{
		{name: "a shell's line, wrapped", cols: 10, in: "out\r\n$ [relay #abcdef12 from x] hi",
			line: "$ [relay #abcdef12 from x] hi", block: "out\n$ [relay #\nabcdef12 f\nrom x] hi"},
		{name: "an input box between rules", cols: 20,
			in:   "transcript\r\n\r\n────────────\r\n❯ [relay #ab] hi\r\n────────────\r\n  footer\x1b[4;17H",
			line: "❯ [relay #ab] hi", block: "❯ [relay #ab] hi"},
		{name: "the cursor on an empty line under the typed ones", cols: 20,
			in:   "› [relay #ab] hi\r\n\r\n\r\n\r\n\r\n? for shortcuts\x1b[4;3H",
			line: "", block: "› [relay #ab] hi\n\n\n"},
		{name: "a gutter", cols: 30,
			in:   "  ┃\r\n  ┃  [relay #ab] hi\r\n  ┃\r\n  ┃  Build\x1b[2;20H",
			line: "  ┃  [relay #ab] hi", block: "  ┃  [relay #ab] hi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScreen(ScreenOptions{Rows: 8, Cols: tc.cols})
			defer s.Close()
			_, _ = s.Write([]byte(tc.in))
			if got := s.CursorLine(); got != tc.line {
				t.Errorf("CursorLine = %q, want %q", got, tc.line)
			}
			if got := s.CursorBlock(); got != tc.block {
				t.Errorf("CursorBlock = %q, want %q", got, tc.block)
			}
		})
	}
}

// TestAnEscapeCutShortIsDropped: an ESC followed by another starts over,
// as in any terminal, whether the sequence that follows is the emulator's
// or the screen's own (a screen switch), and wherever writes are cut.
func TestAnEscapeCutShortIsDropped(t *testing.T) {
	opts := ScreenOptions{Rows: 2, Cols: 20, Scrollback: 20}
	for _, in := range []string{
		"\x1b[?1049h\x1b\x1b[?47hok",
		"\x1b\x1b[?1049hok",
		"\x1b[3\x1b[31mok",
		"\x1b]0;title\x1b\x1b[mok",
	} {
		for k := 0; k <= len(in); k++ {
			s := NewScreen(opts)
			_, _ = s.Write([]byte(in[:k]))
			_, _ = s.Write([]byte(in[k:]))
			if got := s.Snapshot().Lines[0]; got != "ok" {
				t.Errorf("%q cut at %d shows %q, want ok", in, k, got)
			}
			s.Close()
		}
	}
}

// A view is read at one moment: its rows are those of its offset, and a
// view scrolled to a row keeps showing it while output goes on.
func TestViewOfAScreen(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 2, Cols: 10})
	defer s.Close()
	_, _ = s.Write([]byte("one\r\ntwo\r\nthree\r\nfour"))
	live := s.View(-1)
	if live.Rows != "three\nfour" || live.Scrollback != 2 || live.Offset != 0 ||
		live.Cursor != (Cursor{X: 4, Y: 1}) || !live.CursorVisible {
		t.Fatalf("live view %+v", live)
	}
	if v := s.View(0); v.Rows != "one\ntwo" || v.Offset != 2 {
		t.Fatalf("view from row 0: %+v", v)
	}
	_, _ = s.Write([]byte("\r\nfive\x1b[?25l"))
	if v := s.View(1); v.Rows != "two\nthree" || v.Scrollback != 3 || v.Offset != 2 || v.CursorVisible {
		t.Fatalf("view from row 1 after more output: %+v", v)
	}
	_, _ = s.Write([]byte("\x1b[?1049hfull screen"))
	if v := s.View(0); v.Offset != 0 || !strings.HasPrefix(v.Rows, "full scree") {
		t.Fatalf("the alternate screen scrolled: %+v", v)
	}
}

// A control inside a screen switch (ESC, a C0 control the terminal
// executes there, then "[?47h") is part of that sequence: the emulator is
// not left holding its ESC, to take the next character for the end of it,
// so "0" written on the alternate screen is read, whole or cut anywhere.
func TestAControlInsideAScreenSwitchLeavesNoEscapeOpen(t *testing.T) {
	const in = "\x1b[?1049h\x1b\x1f[?47h0"
	opts := ScreenOptions{Rows: 1, Cols: 11, Scrollback: 20}
	for k := 0; k <= len(in); k++ {
		got := feed(t, opts, in, func(int) []int { return []int{k} })
		if want := []string{"0:0"}; !cmp.Equal(want, got) {
			t.Errorf("cut at %d: lines %q, want %q", k, got, want)
		}
	}
}

// A line feed inside a sequence ("\x1b[", LF) moves the cursor at once,
// and the sequence stays open until the ESC of a screen switch cuts it
// short: the emulator does not keep it open past the switch the screen
// makes itself, to take the lines printed after it for its parameters.
// They are read as when the write is cut inside the switch.
func TestALineFeedInsideASequenceCutShortByAScreenSwitchLeavesItClosed(t *testing.T) {
	const in = "\x1b[?1049h\x1b[\n\x1b[?1049h1\r\n2\r\n3\r\n"
	opts := ScreenOptions{Rows: 2, Cols: 21, Scrollback: 20}
	want := []string{"-2:1", "-1:2", "0:3"}
	for k := 0; k <= len(in); k++ {
		if got := feed(t, opts, in, func(int) []int { return []int{k} }); !cmp.Equal(want, got) {
			t.Errorf("cut at %d: lines %q, want %q", k, got, want)
		}
	}
}

// A string (OSC, DCS, SOS, PM, APC) ends at the ESC of the next sequence as
// well as at its ST. When that sequence is a screen switch, which the
// screen makes itself, the emulator still drops what it had of the
// string: the next character shows.
func TestAStringCutShortByAScreenSwitchLeavesNothingPending(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x1bXab\x1b[?47lz", "z"},
		{"\x1b]0;title\x1b[?1049hz", "z"},
		{"\x1bPq#0\x1b[?1049h\x1b[?1049lz", "z"},
	} {
		s := NewScreen(ScreenOptions{Rows: 3, Cols: 10})
		_, _ = s.Write([]byte(c.in))
		if got := s.Snapshot().Lines[0]; got != c.want {
			t.Errorf("%q shows %q, want %q", c.in, got, c.want)
		}
		s.Close()
	}
}

// A scroll region whose top is below the screen is ignored, by x/vt and by
// the line tracking alike: the lines after it scroll and are committed as
// on a screen without one, and a line redrawn in place with the same text
// after they scrolled is not committed again.
func TestMarginsBelowTheScreenAreIgnored(t *testing.T) {
	t.Parallel()
	for _, seq := range []string{"\x1b[5;40r", "\x1b[30;40r"} {
		s := NewScreen(ScreenOptions{Rows: 4, Cols: 10, Scrollback: 10})
		_, _ = s.Write([]byte(seq + "\x1b[4;1Hone\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n"))
		_, _ = s.Write([]byte("\x1b[2A\rfive\r\nsix\r\n")) // the last two redrawn as they were
		got := texts(lineStrings(append(s.TakeLines(), s.Flush()...)))
		if want := []string{"one", "two", "three", "four", "five", "six"}; !cmp.Equal(got, want) {
			t.Errorf("%q: lines %q, want %q", seq, got, want)
		}
		if rows := s.Snapshot().Lines; !cmp.Equal(rows, []string{"four", "five", "six", ""}) {
			t.Errorf("%q: screen %q", seq, rows)
		}
		s.Close()
	}
}

// On a screen one row high (a pane squeezed in a grid), a line the
// terminal wraps is committed whole, as on a taller one: each row leaves at
// the top as it wraps, and it goes on below (a relay line was committed a
// row at a time).
func TestOneRowScreenJoinsWrappedLines(t *testing.T) {
	for _, in := range []string{
		"@relay:bob a body longer than the screen\r\nnext\r\n",
		"@relay:bob 你好世界你好世界\r\nnext\r\n", // wide characters that do not fit in the last column
	} {
		got := texts(feed(t, ScreenOptions{Rows: 1, Cols: 9}, in, whole))
		want := texts(feed(t, ScreenOptions{Rows: 4, Cols: 9}, in, whole))
		if !slices.Equal(got, want) || len(want) != 2 {
			t.Errorf("%q on one row committed %q, on four %q", in, got, want)
		}
	}
}
