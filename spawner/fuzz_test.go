package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// FuzzScreen feeds arbitrary bytes to a small screen: no panic, the
// scrollback stays within its cap, and cutting the input in two changes no
// committed line, also with the screen read at the cut (the UI's snapshot
// feeds a character held back for a mark that may follow).
func FuzzScreen(f *testing.F) {
	for _, tc := range lineCases {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2), uint8(tc.rows), uint8(tc.cols))
	}
	f.Add([]byte("\x1b[1;999r\x1b[999B\r\nx\x1b[?1049h\x1b[5S\x1b[?1049l\x1b[3J"), uint16(5), uint8(3), uint8(4))
	f.Add([]byte("你好\x1b[31m世界e\u0301\x1b[6n\x1b[?47h\x1bc"), uint16(3), uint8(2), uint8(3))
	// Cut after "e" (at 4: 32773 % 11), the screen read there.
	f.Add([]byte("ab e\u0301 x\r\n"), uint16(1<<15+5), uint8(3), uint8(20))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, rows, cols uint8) {
		opts := ScreenOptions{Rows: int(rows%40) + 1, Cols: int(cols%100) + 1, Scrollback: 50, Clock: stillClock}
		k := int(cut) % (len(data) + 1)
		read := cut >= 1<<15
		whole := feed(t, opts, string(data), func(int) []int { return nil })
		split := feedReading(t, opts, string(data), func(int) []int { return []int{k} }, read)
		if !cmp.Equal(whole, split) {
			t.Fatalf("cut at %d (read there: %v) changes the lines:\n%s", k, read, cmp.Diff(whole, split))
		}
		s := NewScreen(opts)
		defer s.Close()
		_, _ = s.Write(data)
		_ = s.Render(10)
		_ = s.Snapshot()
		if n := s.ScrollbackLen(); n > 50 {
			t.Fatalf("scrollback %d rows over its cap", n)
		}
		for _, l := range s.Flush() {
			if len(l.Text) > maxLineBytes {
				t.Fatalf("line of %d bytes", len(l.Text))
			}
		}
	})
}

// FuzzShrinkAndGrow: a screen made shorter and then as tall as before,
// when the rows it pushed out all came back, looks as it did and commits
// the same lines as one never resized.
func FuzzShrinkAndGrow(f *testing.F) {
	for _, tc := range lineCases {
		f.Add([]byte(tc.in), uint8(3))
	}
	f.Add([]byte("1\r\n2\r\n3\r\nwrapped over the width of the screen\r\n$ "), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, shrink uint8) {
		opts := ScreenOptions{Rows: 6, Cols: 20, Scrollback: 100}
		var lines, want []string
		take := func(dst *[]string, ls []Line) {
			for _, l := range ls {
				*dst = append(*dst, fmt.Sprintf("%d:%s", l.N, l.Text))
			}
		}
		plain := NewScreen(opts)
		defer plain.Close()
		_, _ = plain.Write(data)
		take(&want, plain.TakeLines())
		take(&want, plain.Flush())

		s := NewScreen(opts)
		defer s.Close()
		_, _ = s.Write(data)
		take(&lines, s.TakeLines())
		before, beforeRender, sb := s.Snapshot(), s.Render(0), s.ScrollbackLen()
		s.Resize(int(shrink%5)+1, 20)
		take(&lines, s.TakeLines())
		pushed := s.ScrollbackLen() > sb
		s.Resize(6, 20)
		take(&lines, s.TakeLines())
		if !pushed || s.ScrollbackLen() != sb || before.AltScreen {
			return // not all of it came back: nothing to compare
		}
		for _, l := range before.Lines[before.Cursor.Y+1:] {
			if l != "" {
				return // rows under the cursor were cut, as on a terminal
			}
		}
		// Rows under the cursor that show only a colour (blanks erased or
		// scrolled in with a background) were cut too: a taller screen
		// adds rows of default blanks there. No text was cut: the lines
		// are compared still.
		coloured := slices.ContainsFunc(strings.Split(beforeRender, "\n")[before.Cursor.Y+1:], func(l string) bool { return l != "" })
		after := s.Snapshot()
		if got := s.Render(0); !coloured && got != beforeRender || after.Cursor != before.Cursor {
			t.Fatalf("all rows came back but the screen differs:\n%q %+v\nwant\n%q %+v", got, after.Cursor, beforeRender, before.Cursor)
		}
		take(&lines, s.Flush())
		slices.Sort(lines)
		slices.Sort(want)
		if diff := cmp.Diff(want, lines); diff != "" {
			t.Fatalf("committed lines differ from a screen never resized (-want +got):\n%s", diff)
		}
	})
}

// FuzzReflow: a screen made narrower or wider and then as wide as before
// commits the same lines as one never resized, and shows the same text
// when no line had to leave or was cut.
func FuzzReflow(f *testing.F) {
	for _, tc := range lineCases {
		f.Add([]byte(tc.in), uint8(7), uint8(6))
	}
	f.Add([]byte("short\r\na line that is longer than twenty columns\r\n你好世界你好世界你好世界\r\n$ "), uint8(7), uint8(6))
	f.Fuzz(func(t *testing.T, data []byte, width, height uint8) {
		opts := ScreenOptions{Rows: 6, Cols: 20, Scrollback: 100}
		// Blanks at the end of a line may differ after a reflow (the rows
		// it wrapped on end elsewhere), and so may whether a blank line
		// was committed; no text may.
		texts := func(ls []Line) []string {
			var out []string
			for _, l := range ls {
				if t := strings.TrimRight(l.Text, " "); t != "" {
					out = append(out, t)
				}
			}
			return out
		}
		plain := NewScreen(opts)
		defer plain.Close()
		_, _ = plain.Write(data)
		want := append(texts(plain.TakeLines()), texts(plain.Flush())...)

		s := NewScreen(opts)
		defer s.Close()
		_, _ = s.Write(data)
		got := texts(s.TakeLines())
		before, sb := s.Snapshot(), s.ScrollbackLen()
		rows := int(height%8) + 1
		// A shorter screen cuts the rows under the cursor, as tmux does (the
		// rows above it go into the scrollback first, unless a scroll region
		// is set): their text is committed, but the screen does not get it
		// back.
		cutFrom := max(rows, before.Cursor.Y+1)
		if !s.lines.wholeRegion() {
			cutFrom = rows // with a scroll region, nothing goes into the scrollback
		}
		cut := cutFrom < len(before.Lines) && slices.ContainsFunc(before.Lines[cutFrom:], func(l string) bool { return l != "" })
		// Two layouts a reflow does not keep, because the line is laid out
		// afresh from its text: a row a wide character did not fit on ends
		// in padding, and the character is gone from the next row (written
		// over), so the text now fits without it; and a line wraps onto a
		// row of blanks only (x/vt does not tell a space written from a
		// cell never written, so they are trimmed as trailing blanks; and
		// coloured blanks at a line's end do not go on to a row of their
		// own: flowLine.fit).
		relaid := false
		for y := range opts.Rows - 1 {
			wrapped, pad := lineWrap(s.main.Line(y), opts.Cols)
			next := s.main.Line(y + 1)
			if pad && next[0].Width != 2 || wrapped && strings.Trim(string(appendText(nil, next, opts.Cols)), " ") == "" {
				relaid = true
			}
		}
		// The first layout also holds in the rows of a line whose start
		// scrolled off, which the reflow takes back from the scrollback
		// (carriedCells).
		nextWide := s.main.Line(0)[0].Width == 2
		for i := s.hist.len() - 1; i >= 0 && s.hist.at(i).wrapped; i-- {
			h := s.hist.at(i)
			if h.pad && !nextWide {
				relaid = true
			}
			_, w := ansi.FirstGraphemeCluster(h.text, ansi.GraphemeWidth)
			nextWide = w == 2
		}
		s.Resize(rows, int(width%39)+2) // a wide character needs 2 columns
		got = append(got, texts(s.TakeLines())...)
		// A resize that could not reflow (the cursor's row would have had
		// to leave) cuts lines: the screen does not get them back, but
		// they are committed whole as they leave.
		cutLines := s.cutLines
		s.Resize(6, 20)
		got = append(got, texts(s.TakeLines())...)
		// (A scrollback at its cap as long as before may have lost rows at
		// its top for as many that came in.)
		if s.ScrollbackLen() == sb && sb < opts.Scrollback && !before.AltScreen && !cutLines && !s.cutLines && !cut && !relaid {
			// Blank rows at the top may have left (the scrollback keeps no
			// blank lines) and not come back: the text has to be the same.
			if after := s.Snapshot(); !slices.Equal(trimBlankRows(after.Lines), trimBlankRows(before.Lines)) {
				t.Fatalf("nothing left, but the screen differs:\n%q\nwant\n%q", after.Lines, before.Lines)
			}
		}
		got = append(got, texts(s.Flush())...)
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("committed lines differ from a screen never resized (-want +got):\n%s", diff)
		}
	})
}

// FuzzRowKey: RowKey drops exactly what dropFromKey names, character by
// character, whatever the mix of ASCII and the rest.
func FuzzRowKey(f *testing.F) {
	for _, s := range []string{"", "plain", "  two  words ", "│ boxed │", "tab\there\r\n", "你好 👍🏽 ─╮", "\u00a0nbsp\u2003em", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return // rows come from the emulator: valid UTF-8
		}
		want := strings.Map(func(r rune) rune {
			if dropFromKey(r) {
				return -1
			}
			return r
		}, text)
		if got := RowKey(text); got != want {
			t.Fatalf("RowKey(%q) = %q, want %q", text, got, want)
		}
		if hasKey(text) != (want != "") {
			t.Fatalf("hasKey(%q) = %v, RowKey %q", text, hasKey(text), want)
		}
	})
}

// stillClock is a clock that does not move, for properties that compare
// two feeds of one input: a row of the alternate screen settles by time
// (ScreenOptions.Settle), and how long a loaded machine took between two
// writes of a feed, or before its flush, must not tell them apart
// (FuzzAltScreen's input 65386a6a, rows of a 1-column screen redrawn in
// synchronized updates: the cut changed the lines in about 1 run of 200
// under load, GOGC=1, and in none of 400 with the clock still).
func stillClock() time.Time { return time.Unix(1_700_000_000, 0) }

// trimBlankRows is rows without the blank rows around the text.
func trimBlankRows(rows []string) []string {
	blank := func(l string) bool { return l == "" }
	for len(rows) > 0 && blank(rows[0]) {
		rows = rows[1:]
	}
	for len(rows) > 0 && blank(rows[len(rows)-1]) {
		rows = rows[:len(rows)-1]
	}
	return rows
}
