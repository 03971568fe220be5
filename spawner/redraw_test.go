package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"swarm/screenmodel"
)

// redrawLines plays writes on an 80×12 screen, settling after each as a
// pause in the output does, and returns the lines committed.
// committed collects the texts of the lines a screen commits as a test
// writes to it: take (TakeLines, Settle) after each write, Flush at the
// end.
type committed struct {
	t    *testing.T
	s    *Screen
	take func() []Line
	got  []string
}

func (c *committed) write(b string) {
	c.t.Helper()
	if _, err := c.s.Write([]byte(b)); err != nil {
		c.t.Fatal(err)
	}
	c.add(c.take())
}

func (c *committed) add(lines []Line) {
	for _, l := range lines {
		c.got = append(c.got, l.Text)
	}
}

// flush commits what the screen still holds and returns every text.
func (c *committed) flush() []string {
	c.add(c.s.Flush())
	return c.got
}

// settledScreen is a 10×60 screen whose lines c collects as they settle
// (Screen.Settle), closed when the test ends.
func settledScreen(t *testing.T) (*Screen, *committed) {
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 60})
	t.Cleanup(func() { _ = s.Close() })
	return s, &committed{t: t, s: s, take: s.Settle}
}

// fillerLines is n lines of plain output ("  filler line K"), enough to
// scroll what came before off a short screen.
func fillerLines(n int) string {
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, "  filler line %d\r\n", k)
	}
	return b.String()
}

func redrawLines(t *testing.T, writes ...string) []string {
	t.Helper()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 80})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	for _, w := range writes {
		c.write(w)
	}
	return c.flush()
}

// TestNewTextWhereTypedTextWas: output drawn in place of a line that held
// the same words in its middle is new text, not that line redrawn (issue
// 29, cause 4). Gemini CLI 0.61.0 draws its live area (the typed command
// in its input box, a footer) below the transcript and redraws it from the
// top on every change; once the command ran, the command's output row
// lands where the typed command was.
func TestNewTextWhereTypedTextWas(t *testing.T) {
	t.Parallel()
	got := redrawLines(t,
		"transcript\r\n\r\n ! printf '%s\\n' '@relay:bob hi there'\r\n footer\r\n\x1b[2A\x1b[4G",
		// Erased from the bottom up, then drawn again with the output.
		"\x1b[2B\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G"+
			"╭──────────────────────────╮\r\n│ @relay:bob hi there      │\r\n╰──────────────────────────╯\r\n footer\r\n")
	want := []string{"transcript", "", " ! printf '%s\\n' '@relay:bob hi there'", " footer",
		"╭──────────────────────────╮", "│ @relay:bob hi there      │", "╰──────────────────────────╯",
		// The footer drawn again right after new output: text that short
		// is taken for more of it (see rule 4), here a harmless repeat.
		" footer"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParagraphRedrawnIsNotNew: a paragraph drawn again in place with
// another wrap (Claude Code collapses a command's output once it is done,
// cut mid-word at another width) is the same text, rows that start where
// the paragraph did and go on where the row before ended.
func TestParagraphRedrawnIsNotNew(t *testing.T) {
	t.Parallel()
	got := redrawLines(t,
		"  ⎿  @relay:bob long 100 101 102 103 104 105 106 107 108 109\r\n     110 111 112 113\r\n\r\n> \x1b[3A",
		"\x1b[2K  ⎿  @relay:bob long 100 101 102 103 104 105 10\r\n\x1b[2K     6 107 108 109 110 111 112 113\r\n\x1b[2K\r\n> ")
	want := []string{"  ⎿  @relay:bob long 100 101 102 103 104 105 106 107 108 109", "     110 111 112 113", "", ">"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReplayWithSomethingNew: a program that clears its screen and writes
// its transcript again may show part of it anew (Codex collapses a long
// output to "… +N lines", and a command it showed running as done); the
// lines after that are still the transcript written again, wrapped for
// the new width, not new lines.
func TestReplayWithSomethingNew(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 80})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.TakeLines}
	c.write("• You ran cat f01.txt\r\n  └ line one\r\n    line two\r\n    line three\r\n    line four\r\n" +
		"• Running cat f02.txt\r\n    @thinking:bob value fast black meet quart part month wheel light father wood\r\n" +
		"    train summer\r\n\r\n")
	c.got = nil
	s.Resize(10, 60)
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"• You ran cat f01.txt\r\n  └ line one\r\n    … +3 lines\r\n" +
		"• You ran cat f02.txt\r\n    @thinking:bob value fast black meet quart part month\r\n" +
		"    wheel light father wood train summer\r\n\r\n")
	got := c.flush()
	if diff := cmp.Diff([]string{"    … +3 lines", "• You ran cat f02.txt"}, got); diff != "" {
		t.Errorf("written again: (-want +got):\n%s", diff)
	}
}

// TestReplayInTranscriptOrder: a transcript written again after a resize
// follows the transcript's order, which need not be the order its lines
// were committed in (issue 29, cause 5). Codex 0.171.0 (inline) shows a
// running command's header and output, then turns the header into "You
// ran", committed after the output; after a resize it clears the screen
// and writes the transcript again for the new width, the header first,
// the output rewrapped under it. None of it is new.
func TestReplayInTranscriptOrder(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 60})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("  Tip: Maximize usage with the newest model. Try it on complex work for\r\n  performance at a lower cost.\r\n\r\n" +
		"• Running sh f02.sh\r\n  └ @relay:bob friend locate build group lie length strong\r\n" +
		"    language lift pound summer hash uber than jalapeno stand\r\n    simple ear tiny summer only might\r\n\r\n")
	c.write("\x1b[5A\r\x1b[2K• You ran sh f02.sh\x1b[5B\r")
	c.got = nil
	s.Resize(10, 100)
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"  Tip: Maximize usage with the newest model. Try it on complex work for performance at a lower cost.\r\n\r\n" +
		"• You ran sh f02.sh\r\n  └ @relay:bob friend locate build group lie length strong language lift pound summer\r\n" +
		"    hash uber than jalapeno stand simple ear tiny summer only might\r\n\r\n")
	got := c.flush()
	if strings.TrimSpace(strings.Join(got, "")) != "" {
		t.Errorf("written again after a resize, committed again: %q", got)
	}
}

// TestReplayAfterAResizeSkipsAhead: after a resize, a transcript written
// again wrapped for the new width may leave out part of what was committed
// (Claude Code redraws its last screenful, Codex collapses an output);
// a paragraph after the part left out is still the old text, wrapped anew
// over several committed lines.
func TestReplayAfterAResizeSkipsAhead(t *testing.T) {
	t.Parallel()
	s, c := settledScreen(t)
	filler := fillerLines(12)
	c.write("  the header\r\n  first paragraph alpha bravo charlie delta echo foxtrot golf\r\n  hotel india juliett\r\n" +
		"  second paragraph kilo lima mike november oscar papa quebec\r\n  romeo sierra tango\r\n" +
		"  @relay:bob third paragraph uniform victor whiskey xray yankee\r\n  zulu and the rest\r\n" + filler)
	c.got = nil
	s.Resize(10, 100)
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"  the header\r\n  first paragraph alpha bravo charlie delta echo foxtrot golf hotel india juliett\r\n" +
		"  … +2 lines\r\n" +
		"  @relay:bob third paragraph uniform victor whiskey xray yankee zulu and the rest\r\n" + filler)
	got := c.flush()
	if diff := cmp.Diff([]string{"  … +2 lines"}, got); diff != "" {
		t.Errorf("written again after a resize: (-want +got):\n%s", diff)
	}
}

// TestNewBlockBelowACollapsedOne: lines that move in one redraw keep their
// order. Claude Code (inline) collapses a command's output once the next
// one runs and draws the next output below it; the rows under the
// collapsed one move up, and the next block's "[[RELAY]]", "{" and
// "type" rows, equal to the collapsed block's, land below them: they are
// new, not the old block's rows moved down past the rows that moved up.
func TestNewBlockBelowACollapsedOne(t *testing.T) {
	t.Parallel()
	block := func(body string) string {
		return "  ⎿  [[RELAY]]\r\n     {\r\n       \"type\": \"message\",\r\n       \"body\": \"" + body +
			"\"\r\n     }\r\n     [[/RELAY]]\r\n"
	}
	got := redrawLines(t,
		"! cat a\r\n"+block("one")+"  ⎿  Interrupted\r\n! cat b\r\n> ",
		// Up to the collapsed output's first row, and every row drawn again.
		"\x1b[8A\r"+strings.ReplaceAll("     … +5 lines\r\n  ⎿  Interrupted\r\n! cat b\r\n"+block("two")+"> ", "\r\n", "\x1b[K\r\n"))
	want := []string{"! cat a", "  ⎿  [[RELAY]]", "     {", "       \"type\": \"message\",", "       \"body\": \"one\"",
		"     }", "     [[/RELAY]]", "  ⎿  Interrupted", "! cat b",
		"     … +5 lines", "  ⎿  [[RELAY]]", "     {", "       \"type\": \"message\",", "       \"body\": \"two\"",
		"     }", "     [[/RELAY]]", ">"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRowsLeftAloneUnderALineThatMovedUpAreNew: Claude Code's inline
// renderer redraws its frame by writing only the cells that changed since
// the last one (issue 29). Once a command ends it collapses an older
// output above ("… +9 lines"), which moves the rows under it up, and
// draws the next output's block where the older block's "[[RELAY]]", "{"
// and "type" rows were: those rows it leaves alone. A reader sees the new
// block whole: the rows that moved up ("! cat b") keep their order, so
// the rows now under them are not the older rows that were above them.
func TestRowsLeftAloneUnderALineThatMovedUpAreNew(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 16, Cols: 80})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	block := []string{"     [[RELAY]]", "     {", `       "type": "message",`, `       "body": "one"`, "     }", "     [[/RELAY]]"}
	first := append(append([]string{"! cat a", "  ⎿  alpha line one of the output", "     beta line two of the output",
		"     gamma line three of the output", "     delta line four of the output"}, block...), "  ⎿  Interrupted", "! cat b", "> ")
	c.write(strings.Join(first, "\r\n"))
	// From the cursor (row 13) up to row 1; the rows that did not change
	// are passed over (CUD), not written again.
	c.write("\x1b[12A\r     … +9 lines\x1b[K\r\n  ⎿  Interrupted\x1b[K\r\n! cat b\x1b[K\r\n" +
		"  ⎿  epsilon first line of b\x1b[K\r\n\x1b[3B\x1b[16G\"two\"\x1b[K\r\n\x1b[2B\r> \x1b[J")
	got := c.flush()
	want := append(slices.Clone(first[:len(first)-1]),
		"     … +9 lines", "  ⎿  epsilon first line of b", "     [[RELAY]]", "     {", `       "type": "message",`, `       "body": "two"`, "     }", "     [[/RELAY]]", ">")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRowsLeftAloneOverAnOlderEqualBlockAreNew: as in
// TestRowsLeftAloneUnderALineThatMovedUpAreNew, but the collapsed output
// held three blocks to one recipient, and the next output's block lands
// on the second one's rows, the third one's equal rows further down. The
// lines that moved up ("  ⎿  Interrupted", "! cat b") were each
// committed once: the moves found are theirs, and the third block's rows,
// above them before, are above them now, not under them. The new block
// is read whole (claude-inline-s10500008, a relay lost).
func TestRowsLeftAloneOverAnOlderEqualBlockAreNew(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	block := func(body string) []string {
		return []string{"     [[RELAY]]", "     {", `       "type": "message",`, `       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	var first []string
	first = append(first, "! cat a", "  ⎿  alpha line one of the output")
	first = append(append(append(first, block("one")...), block("two")...), block("three")...)
	first = append(first, "  ⎿  Interrupted", "! cat b", "> ")
	c.write(strings.Join(first, "\r\n"))
	// From the cursor (row 22) up to row 1; the new block lands on the
	// second block's rows (8 to 13), and the rows that did not change are
	// passed over (CUD), not written again.
	c.write("\x1b[21A\r     … +19 lines\x1b[K\r\n  ⎿  Interrupted\x1b[K\r\n! cat b\x1b[K\r\n" +
		"  ⎿  epsilon first line of b\x1b[K\r\n     zeta second line\x1b[K\r\n     eta third line\x1b[K\r\n     theta fourth line\x1b[K\r\n" +
		"\x1b[3B\x1b[16G\"four\"\x1b[K\r\n\x1b[2B\r> \x1b[J")
	got := c.flush()
	want := append(slices.Clone(first[:len(first)-1]),
		"     … +19 lines", "  ⎿  epsilon first line of b", "     zeta second line", "     eta third line", "     theta fourth line")
	want = append(append(want, block("four")...), ">")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestEqualRowsUnderAMoveAreNotNew: two equal lines in a row (the same
// relay printed twice), the line above them collapsed away: the program
// moves every row up one and, drawing only the cells that changed, leaves
// the second equal row alone. The move found for the first is the
// second's (its row shows other text now), over the row left alone; a
// reader still sees two "@relay:bob same" lines: nothing is new
// (TestRowsLeftAloneUnderALineThatMovedUpAreNew's rule, found in review).
func TestEqualRowsUnderAMoveAreNotNew(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 80})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("  header\r\n  alpha line\r\n  @relay:bob same\r\n  @relay:bob same\r\n  omega line\r\n> ")
	// Up to row 1; row 2 unchanged (passed over), rows 3-4 rewritten.
	c.write("\x1b[4A\r  @relay:bob same\x1b[K\r\n\x1b[B\r  omega line\x1b[K\r\n> \x1b[K\x1b[J")
	got := c.flush()
	want := []string{"  header", "  alpha line", "  @relay:bob same", "  @relay:bob same", "  omega line", ">"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRunningPreviewInline: Claude Code's inline renderer shows a running
// command's latest output rows above "… +N lines (1s)" in its live area
// and redraws them as more comes (issue 29, cause 4). They are a preview:
// the output is read once, in its order, where Claude prints it whole;
// also when the preview is drawn afresh (after a resize), its rows left
// by line feeds before the count under them is drawn.
func TestRunningPreviewInline(t *testing.T) {
	t.Parallel()
	// The live area: three rows and a blank one, the cursor under it
	// (where Claude's input box would be); redrawn from its top.
	redraw := func(rows ...string) string {
		return "\x1b[4A\r" + strings.Join(rows, "\x1b[K\r\n") + "\x1b[K\r\n\r\n\x1b[J"
	}
	for _, tc := range []struct {
		name  string
		first []string
	}{
		{"redrawn", []string{"! sh f1.sh\r\n  ⎿  Running…\r\n\r\n\r\n\r\n",
			redraw("  ⎿  @relay:bob second line", "     @relay:bob third line", "     … +1 line (1s)")}},
		{"drawn afresh", []string{"! sh f1.sh\r\n  ⎿  @relay:bob second line\r\n     @relay:bob third line\r\n" +
			"     … +1 line (1s)\r\n\r\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScreen(ScreenOptions{Rows: 12, Cols: 80, Layout: screenmodel.Of("claude")})
			defer s.Close()
			var got []string
			for _, w := range append(tc.first,
				redraw("  ⎿  @relay:bob third line", "     @relay:bob fourth line", "     … +2 lines (2s)"),
				redraw("  ⎿  @relay:bob first line", "     @relay:bob second line", "     @relay:bob third line",
					"     @relay:bob fourth line", "! next")) {
				if _, err := s.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
				for _, l := range append(s.TakeLines(), s.Settle()...) {
					got = append(got, l.Text)
				}
			}
			for _, l := range s.Flush() {
				got = append(got, l.Text)
			}
			var relays []string
			for _, l := range got {
				if _, rest, ok := strings.Cut(l, "@relay:"); ok {
					relays = append(relays, rest)
				}
			}
			want := []string{"bob first line", "bob second line", "bob third line", "bob fourth line"}
			if diff := cmp.Diff(want, relays); diff != "" {
				t.Errorf("relay lines (-want +got):\n%s\nall lines:\n%s", diff, strings.Join(got, "\n"))
			}
		})
	}
}

// TestAPreviewTakenBackIsNewWhenDrawnAgain: a running command's preview
// drawn afresh (its rows left before the count under them is drawn, as
// after a resize) is taken back, not read (TestRunningPreviewInline):
// the program did not print those rows yet. When it draws its screen
// again with the output whole, they are new lines, not lines drawn again
// (issue 29: Claude Code inline on a 17-row screen).
func TestAPreviewTakenBackIsNewWhenDrawnAgain(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 80, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("! sh f1.sh\r\n  ⎿  @relay:bob second line\r\n     @relay:bob third line\r\n     … +1 line (1s)\r\n\r\n")
	c.got = nil
	c.write("\x1b[H\x1b[2J\x1b[3J\x1b[H! sh f1.sh\r\n  ⎿  @relay:bob first line\r\n     @relay:bob second line\r\n" +
		"     @relay:bob third line\r\n  ⎿  Interrupted\r\n\r\n")
	got := c.flush()
	want := []string{"  ⎿  @relay:bob first line", "     @relay:bob second line", "     @relay:bob third line", "  ⎿  Interrupted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBlankRowsInsertedKeepTheirPlace: Codex 0.171.0 (inline) ends a
// running command by erasing its live area, inserting blank rows at its
// top (a scroll region and reverse index) and writing the finished cell
// there as history, on the rows that showed it running: the same rows
// under another header (issue 29, cause 9). Rows inserted into rows that
// show nothing move nothing a reader sees: the rows written over them show
// what was committed there, and are not committed again.
func TestBlankRowsInsertedKeepTheirPlace(t *testing.T) {
	t.Parallel()
	cell := func(header string) string {
		return header + "\r\n  └ [[RELAY]]\r\n    {\"to\":\"bob\",\"body\":\"hi\"}\r\n    [[/RELAY]]\r\n" +
			"    @relay:bob hello there\r\n    end of the output\r\n"
	}
	data := "› run it\r\n\r\n" + cell("◦ Running sh f.sh") + "\r\n› Ask Codex" +
		"\x1b[3;1H\x1b[J\x1b[3;12r\x1b[3;1H" + strings.Repeat("\x1bM", 6) + "\x1b[r\x1b[1;10r\x1b[2;1H\r\n" +
		strings.ReplaceAll(cell("• You ran sh f.sh"), "\r\n", "\x1b[K\r\n") + "\x1b[r\r\n› Ask Codex"
	for _, cut := range [][]int{nil, {len(data) / 2}} {
		got := texts(feed(t, ScreenOptions{Rows: 12, Cols: 40}, data, func(int) []int { return cut }))
		want := []string{"› run it", "", "◦ Running sh f.sh", "  └ [[RELAY]]", `    {"to":"bob","body":"hi"}`,
			"    [[/RELAY]]", "    @relay:bob hello there", "    end of the output", "", "› Ask Codex", "• You ran sh f.sh"}
		if !slices.Equal(got, want) {
			t.Errorf("cut at %v: committed\n%q\nwant\n%q", cut, got, want)
		}
	}
}

// TestReplayDoesNotResumeAtAnOldBlock: Claude Code (inline) repaints its
// whole transcript (clear, scrollback too) with the latest output under
// it. A new block's "{", "\"type\": \"message\"," and "}" rows, right
// after its new first row, are its rows — not a replay going on at the
// rows of an older block that hold the same text (issue 29: the block was
// lost). The repainted transcript is still no new output.
func TestReplayDoesNotResumeAtAnOldBlock(t *testing.T) {
	t.Parallel()
	block := func(to, body string) string {
		return "[[RELAY]]\r\n     {\r\n       \"to\": \"" + to + "\",\r\n       \"type\": \"message\",\r\n" +
			"       \"body\": \"" + body + "\"\r\n     }\r\n     [[/RELAY]]\r\n"
	}
	older := "! cat f00.txt\r\n  ⎿  " + block("alice", "zeroth one")
	old := "! cat f01.txt\r\n  ⎿  " + block("bob", "first one") + "     end of the output\r\n"
	s := NewScreen(ScreenOptions{Rows: 30, Cols: 80})
	defer s.Close()
	var got []string
	write := func(b string) {
		if _, err := s.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		for _, l := range s.TakeLines() {
			got = append(got, strings.TrimSpace(l.Text))
		}
	}
	write(older + old)
	got = nil
	// The older output shows collapsed now: its rows are not drawn again.
	write("\x1b[2J\x1b[3J\x1b[H! cat f00.txt\r\n  ⎿  … +7 lines (ctrl+o to expand)\r\n" + old + "! cat f02.txt\r\n  ⎿  " + block("qa_1", "second one") + "\r\n")
	for _, l := range s.Flush() {
		got = append(got, strings.TrimSpace(l.Text))
	}
	want := []string{"⎿  … +7 lines (ctrl+o to expand)", "! cat f02.txt", "⎿  [[RELAY]]", "{", `"to": "qa_1",`, `"type": "message",`,
		`"body": "second one"`, "}", "[[/RELAY]]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("repainted with a new block: (-want +got):\n%s", diff)
	}
}

// TestReplayDoesNotBeginAtACommonRowAfterNewOnes: a screen cleared and
// drawn from its top with rows that repeat nothing is new output, not the
// transcript written again (issue 29: Codex 0.171.0 inline erases the
// screen from its top as a running command's output fills its live area).
// A new block's "[[RELAY]]" and "{" among those rows are its own, though
// an older block committed before showed the same rows: a replay does not
// begin on so common a row after new ones (the block lost its "{":
// malformed).
func TestReplayDoesNotBeginAtACommonRowAfterNewOnes(t *testing.T) {
	t.Parallel()
	block := func(to, body string) string {
		return "    [[RELAY]]\r\n    {\r\n      \"to\": \"" + to + "\",\r\n      \"body\": \"" + body + "\"\r\n    }\r\n    [[/RELAY]]\r\n"
	}
	s := NewScreen(ScreenOptions{Rows: 30, Cols: 80})
	defer s.Close()
	var got []string
	write := func(b string) {
		if _, err := s.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		for _, l := range s.TakeLines() {
			got = append(got, strings.TrimSpace(l.Text))
		}
	}
	write("• You ran cat f01.txt\r\n" + block("bob", "first one") + "    end of the output\r\n\r\n")
	got = nil
	write("\x1b[H\x1b[J    the second file starts here\r\n    and goes on with more\r\n" + block("qa_1", "second one"))
	for _, l := range s.Flush() {
		got = append(got, strings.TrimSpace(l.Text))
	}
	want := []string{"the second file starts here", "and goes on with more", "[[RELAY]]", "{", `"to": "qa_1",`,
		`"body": "second one"`, "}", "[[/RELAY]]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("new rows under a clear: (-want +got):\n%s", diff)
	}
}

// TestReplayBegunAfterALongNewRow: a program that erases its scrollback
// too (ED 3) writes all of its transcript again (Ink: Claude Code's
// classic interface, Gemini CLI), and its first row may be drawn anew (a
// banner with a count, a row laid out for a new width): the short rows
// under it (an echo, a short relay line) still repeat the transcript,
// and begin the replay. Only the new row is committed (reviewer's repro).
func TestReplayBegunAfterALongNewRow(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 10, Cols: 80})
	defer s.Close()
	var got []string
	write := func(b string) {
		if _, err := s.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		for _, l := range s.TakeLines() {
			got = append(got, strings.TrimSpace(l.Text))
		}
	}
	var tail strings.Builder
	for i := range 12 {
		fmt.Fprintf(&tail, "     row %d\r\n", i)
	}
	write(" Welcome, 3 sessions in this directory so far\r\n! cat f00.txt\r\n  ⎿  @relay:bob ok\r\n" + tail.String())
	got = nil
	write("\x1b[2J\x1b[3J\x1b[H Welcome back, 4 sessions in this directory so far\r\n! cat f00.txt\r\n  ⎿  @relay:bob ok\r\n" + tail.String())
	for _, l := range s.Flush() {
		got = append(got, strings.TrimSpace(l.Text))
	}
	want := []string{"Welcome back, 4 sessions in this directory so far"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript written again under a new long row: (-want +got):\n%s", diff)
	}
}

// TestSynchronizedFrameLeavesUntouchedRowsLive: a frame drawn in a
// synchronized update (mode 2026) by a program that draws only the cells
// that changed says nothing about the rows it did not touch (issue 29:
// Codex 0.171.0 inline, a running command's latest rows in its live area).
// Codex erases the ends of the rows that got shorter from the top down,
// then draws the rows that changed from the top down, the output scrolling
// up a row a frame; a frame that only turns its spinner leaves the rows
// above it as they were. Those rows are still its live area: the command's
// output is read where Codex prints it whole, once it is done, in its
// order, not a row or two of each frame at the positions it had then.
func TestSynchronizedFrameLeavesUntouchedRowsLive(t *testing.T) {
	t.Parallel()
	out := []string{"first", "[[RELAY]]", `{"to":"bob","type":"message","body":"hi"}`, "[[/RELAY]]", "last"}
	// The live area: a header, three rows of the command's latest output,
	// a blank row, the spinner; the cursor two rows under it.
	frame := func(from int, erase ...int) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h")
		for _, y := range erase {
			fmt.Fprintf(&b, "\x1b[%d;4H\x1b[K", y)
		}
		for i := range 3 {
			fmt.Fprintf(&b, "\x1b[%d;1H  %s", 3+i, out[from+i])
		}
		b.WriteString("\x1b[9;3H\x1b[?2026l")
		return b.String()
	}
	writes := []string{
		"transcript\r\n\x1b[9;3H",
		"\x1b[?2026h\x1b[2;1H• Running sh f.sh\x1b[3;1H  first\x1b[4;1H  [[RELAY]]\x1b[5;1H  " + out[2] +
			"\x1b[7;1H◦ Working\x1b[9;1H› \x1b[?2026l",
		frame(1, 5),
		frame(2, 4, 5),
		"\x1b[?2026h\x1b[7;1H•\x1b[9;3H\x1b[?2026l",
		// Done: the live area erased, the finished cell printed whole,
		// the input box under it.
		"\x1b[?2026h\x1b[2;1H\x1b[J• Ran sh f.sh\r\n  " + strings.Join(out, "\r\n  ") + "\r\n\r\n› \x1b[?2026l",
	}
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 60})
	defer s.Close()
	var got []string
	for _, w := range writes {
		if _, err := s.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
		for _, l := range s.TakeLines() {
			got = append(got, l.Text)
		}
	}
	for _, l := range s.Flush() {
		got = append(got, l.Text)
	}
	want := []string{"transcript", "• Ran sh f.sh", "  first", "  [[RELAY]]", "  " + out[2], "  [[/RELAY]]", "  last", "", "›"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRowsSlidOutOfALongOutputAreOutput: a running command's latest rows
// that slide up under the row that elides the middle of its output ("…
// +N lines") and leave the view there are output, committed once, in
// order, after the output's first rows (issue 29: Codex 0.171.0 inline
// shows a long output's first rows, "… +N lines", then its latest rows,
// and moves those up a row a frame by drawing only the cells that changed;
// the finished output leaves the rows that slid out out again, so they
// are read as they leave or never).
func TestRowsSlidOutOfALongOutputAreOutput(t *testing.T) {
	t.Parallel()
	out := []string{"first", "second", "@relay:bob slid out", "[[RELAY]]",
		`{"to":"bob","type":"message","body":"hi"}`, "[[/RELAY]]", "next", "before last", "last"}
	s := NewScreen(ScreenOptions{Rows: 14, Cols: 60, Layout: screenmodel.Of("codex")})
	defer s.Close()
	at := map[string]int64{} // where each line was committed
	c := &committed{t: t, s: s, take: func() []Line {
		lines := s.TakeLines()
		for _, l := range lines {
			at[strings.TrimSpace(l.Text)] = l.N
		}
		return lines
	}}
	got := slidingOutput(c, out, func(int) bool { return false })
	want := append([]string{"└ head"}, out...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output lines (-want +got):\n%s", diff)
	}
	// Numbered on, as rows that scroll off are: a command over several
	// rows reads as one.
	for i := 2; i < 5; i++ {
		if at[out[i+1]] != at[out[i]]+1 {
			t.Errorf("%q at %d, %q at %d: want the next position", out[i], at[out[i]], out[i+1], at[out[i+1]])
		}
	}
}

// TestABlankRowSlidOutPartsTheRowsAroundIt: a blank row of a running
// command's output, slid out under "… +N lines" between a row that ends
// near the edge and a short one, parts them as it does on the screen: the
// row under it is numbered past it, so the parser does not take it for the
// rest of the row above, wrapped ("… tiny horse cover" + "live"; issue 29,
// codex-inline-s9300014: a relay read with a word of the next paragraph).
func TestABlankRowSlidOutPartsTheRowsAroundIt(t *testing.T) {
	t.Parallel()
	relay := "@relay:bob a relay line whose text runs near the edge"
	out := []string{"first", "second", relay, "", "live", "next", "before last", "last"}
	s := NewScreen(ScreenOptions{Rows: 14, Cols: 60, Layout: screenmodel.Of("codex")})
	defer s.Close()
	at := map[string]int64{}
	c := &committed{t: t, s: s, take: func() []Line {
		lines := s.TakeLines()
		for _, l := range lines {
			at[strings.TrimSpace(l.Text)] = l.N
		}
		return lines
	}}
	got := slidingOutputShowing(c, out, func(int) bool { return false }, 4)
	want := []string{"└ head", "first", "second", relay, "live", "next", "before last", "last"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output lines (-want +got):\n%s", diff)
	}
	if at["live"] == at[relay]+1 {
		t.Errorf("%q at %d right after %q at %d: the blank row between them is lost", "live", at["live"], relay, at[relay])
	}
}

// slidingOutput plays Codex 0.171.0 inline running a command whose output
// is out on c's screen (14×60): the live area shows the command, its first
// row, "… +N lines", then its three latest rows, moved up a row a frame;
// output pauses (the screen settles) after the frames paused says. Then
// the command is done: the live area erased, the finished output printed
// with its middle left out again. It returns the lines committed that
// hold the first row or a line of out, trimmed.
func slidingOutput(c *committed, out []string, paused func(frame int) bool) []string {
	return slidingOutputShowing(c, out, paused, 3)
}

// slidingOutputShowing is slidingOutput with the live area showing the
// output's latest shown rows (up to 4).
func slidingOutputShowing(c *committed, out []string, paused func(frame int) bool, shown int) []string {
	frame := func(from int) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h")
		fmt.Fprintf(&b, "\x1b[4;5H\x1b[K… +%d lines (^t to view transcript)", from+1)
		for i := range shown {
			fmt.Fprintf(&b, "\x1b[%d;5H\x1b[K%s", 5+i, out[from+i])
		}
		b.WriteString("\x1b[11;3H\x1b[?2026l")
		return b.String()
	}
	c.write("transcript\r\n\x1b[11;3H")
	c.write("\x1b[?2026h\x1b[2;1H• Running sh f.sh\x1b[3;1H  └ head\x1b[9;1H◦ Working\x1b[11;1H› \x1b[?2026l")
	for from := range len(out) - shown + 1 {
		c.write(frame(from))
		if paused(from) {
			c.add(c.s.Settle())
		}
	}
	c.write("\x1b[?2026h\x1b[2;1H\x1b[J• Ran sh f.sh\r\n  └ head\r\n    … +6 lines (^t to view transcript)\r\n    " +
		strings.Join(out[len(out)-3:], "\r\n    ") + "\r\n\r\n› \x1b[?2026l")
	var got []string
	for _, l := range c.flush() {
		if strings.Contains(l, "head") || slices.ContainsFunc(out, func(o string) bool { return strings.HasSuffix(l, " "+o) }) {
			got = append(got, strings.TrimSpace(l))
		}
	}
	return got
}

// TestRowsReadWhileOutputPausedSlideOutUnread: the latest rows of a
// running command's output, read while output paused, are not read
// again when later frames slide them up under "… +N lines" and out of
// the view (issue 29: Codex 0.171.0 inline, a command that sleeps between
// its lines; a relay line came out twice).
func TestRowsReadWhileOutputPausedSlideOutUnread(t *testing.T) {
	t.Parallel()
	out := []string{"[[RELAY]]", `{"to":"bob","type":"message","body":"hi"}`, "[[/RELAY]]"}
	for i := range 12 {
		out = append(out, fmt.Sprintf("line %d of the output", i))
	}
	out = append(out, "@relay:bob slid out after two pauses", "next", "before last", "last")
	for first := range len(out) - 2 {
		for second := first + 1; second < len(out)-2; second++ {
			s := NewScreen(ScreenOptions{Rows: 14, Cols: 60, Layout: screenmodel.Of("codex")})
			c := &committed{t: t, s: s, take: s.TakeLines}
			got := slidingOutput(c, out, func(f int) bool { return f == first || f == second })
			s.Close()
			want := append([]string{"└ head"}, out...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output paused after frames %d and %d: output lines (-want +got):\n%s", first, second, diff)
			}
		}
	}
}

// TestAViewTallerThanTheScreenSlidAsAWhole: a running command's output
// taller than the screen, whose bottom rows the view shows, slides up as
// a whole; when the row that elides its middle ("… +N lines") first
// shows, the rows over it moved up as far as the view did, and only the
// rows that went under it slid out: the rows over it are shown still,
// and those that left at the top show again when the program prints the
// output whole (issue 29: Codex 0.171.0 inline, a live view taller than
// the screen; a block above the elision came out twice).
func TestAViewTallerThanTheScreenSlidAsAWhole(t *testing.T) {
	t.Parallel()
	out := make([]string, 17)
	for i := range out {
		out[i] = fmt.Sprintf("line %d of the output", i)
	}
	out[5] = "@relay:bob shown over the elision"
	out[8] = "@relay:bob slid out under it"
	// rows draws a frame of the live area: the view (rows 1–12), the
	// spinner under it, the cursor in the input box at the bottom.
	rows := func(view ...string) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h")
		for i, r := range view {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[K%s", i+1, r)
		}
		b.WriteString("\x1b[14;1H◦ Working\x1b[16;1H› \x1b[16;3H\x1b[?2026l")
		return b.String()
	}
	indent := func(lines []string) []string {
		r := make([]string, len(lines))
		for i, l := range lines {
			r[i] = "    " + l
		}
		return r
	}
	s := NewScreen(ScreenOptions{Rows: 16, Cols: 60, Layout: screenmodel.Of("codex")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.TakeLines}
	c.write("\x1b[16;1H› ")
	// The command and its first rows fill the view; then three rows more
	// push its top out of the view.
	c.write(rows(slices.Concat([]string{"• Running sh f.sh", "  └ " + out[0]}, indent(out[1:11]))...))
	c.write(rows(indent(out[2:14])...))
	// The middle elided: the rows over the elision moved up two rows,
	// the latest rows three.
	c.write(rows(slices.Concat(indent(out[4:7]), []string{"    … +2 lines (^t to view transcript)"}, indent(out[9:17]))...))
	// Done: the output printed whole, its middle left out again.
	c.write("\x1b[?2026h\x1b[1;1H\x1b[J• Ran sh f.sh\r\n  └ " + out[0] + "\r\n" +
		strings.Join(indent(out[1:7]), "\r\n") + "\r\n    … +2 lines (^t to view transcript)\r\n" +
		strings.Join(indent(out[9:17]), "\r\n") + "\r\n\r\n› \x1b[?2026l")
	seen := map[string]int{}
	for _, l := range c.flush() {
		seen[strings.TrimPrefix(strings.TrimSpace(l), "└ ")]++
	}
	for _, o := range out {
		if seen[o] != 1 {
			t.Errorf("%q committed %d times, want once", o, seen[o])
		}
	}
}

// TestRowsLeftAtTheTopOfAViewTallerThanTheScreen: a running command's
// output taller than the screen, the row that elides its middle above the
// screen, moves up under the live area's blank top row, and its rows
// leave the screen there. A paragraph that has left whole (a blank row
// left under it) was shown there and may be nowhere else: its lines are
// read, once; the program, done, prints the output whole (its first and
// last rows) after clearing the screen and the scrollback, and the rows
// read as they left show there again as the transcript does. A line whose
// first row left while the rest still showed is read where it is shown
// whole, once, not in part (issue 29: Codex 0.171.0 inline on a short
// screen; codex-inline-s8700004, s8100026: a relay line shown only so was
// lost; s8700024: the output's first lines, shown only so before a
// resize, were read after lines under them).
func TestRowsLeftAtTheTopOfAViewTallerThanTheScreen(t *testing.T) {
	t.Parallel()
	middle := "@relay:bob shown only as the output went by"
	// Two rows at the view's 56 columns of text.
	cut := []string{"@relay:bob a line whose first row leaves the view while", "its last row is still shown"}
	var out []string
	for i := range 5 {
		out = append(out, fmt.Sprintf("head line %d", i))
	}
	block := []string{"[[RELAY]]", "{", `  "to": "bob",`, `  "type": "message",`, `  "body": "hi"`, "}", "[[/RELAY]]"}
	out = append(out, "", "middle line", middle, "", cut[0], cut[1])
	out = append(out, block...)
	for i := range 5 {
		out = append(out, fmt.Sprintf("tail line %d", i))
	}
	rows := []string{"• Running sh f.sh"}
	for i, o := range out {
		switch {
		case i == 0:
			rows = append(rows, "  └ "+o)
		case o == "":
			rows = append(rows, "")
		default:
			rows = append(rows, "    "+o)
		}
	}
	const view = 11 // rows 2-12; the spinner at 14, the input box at 16
	frame := func(from int) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h\x1b[1;1H\x1b[K")
		for i, r := range rows[from : from+view] {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[K%s", i+2, r)
		}
		b.WriteString("\x1b[14;1H◦ Working\x1b[16;1H› \x1b[16;3H\x1b[?2026l")
		return b.String()
	}
	s := NewScreen(ScreenOptions{Rows: 16, Cols: 60, Layout: screenmodel.Of("codex")})
	defer s.Close()
	at := map[string][]int64{} // where each line was committed
	record := func(lines []Line) []Line {
		for _, l := range lines {
			text := strings.TrimPrefix(strings.TrimSpace(l.Text), "└ ")
			at[text] = append(at[text], l.N)
		}
		return lines
	}
	c := &committed{t: t, s: s, take: func() []Line { return record(s.TakeLines()) }}
	c.write("transcript\r\n\x1b[16;1H› ")
	for from := 0; from+view <= len(rows); from++ {
		c.write(frame(from))
	}
	// Done: the screen and the scrollback cleared, the transcript again,
	// the output's middle left out: its first rows, and its last ones
	// from the paragraph cut at the view's top.
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H\x1b[?2026htranscript\r\n\r\n• You ran sh f.sh\r\n" +
		strings.Join(rows[1:6], "\r\n") + "\r\n    … +4 lines (ctrl+t to view transcript)\r\n" +
		strings.Join(rows[10:], "\r\n") + "\r\n\r\n› \x1b[?2026l")
	record(s.Flush())
	for _, o := range out {
		if o = strings.TrimSpace(o); o != "" && len(at[o]) != 1 {
			t.Errorf("%q committed at %v, want once", o, at[o])
		}
	}
	// The paragraph cut at the view's top is read whole from the print:
	// its rows one after the other (a line over two rows, a block).
	para := append(cut, block...)
	for i := 1; i < len(para); i++ {
		a, b := at[strings.TrimSpace(para[i-1])], at[strings.TrimSpace(para[i])]
		if len(a) == 1 && len(b) == 1 && b[0] != a[0]+1 {
			t.Errorf("%q at %d, %q at %d: want the next position", para[i-1], a[0], para[i], b[0])
		}
	}
}

// TestParagraphLeavingAtTheTopAsTheScreenShrinks: a running command's
// view taller than the screen is sliding a paragraph out at its top (a
// relay over two rows, then a block) when the screen gets shorter, and
// the resize takes the paragraph's last row and the blank row under it
// off the top, as they were shown: the paragraph left whole, seen row by
// row, and is read, once, its rows one after the other. The program,
// done, prints the output with its middle, the paragraph, left out, so
// it is shown nowhere else (issue 29, codex-inline-s12900024: Codex
// 0.171.0 inline resized from 97×31 to 67×18 while a block went by; the
// block was lost). A paragraph whose rest stays on the screen is laid
// out anew by the program, rows of it unseen: it is not read there.
func TestParagraphLeavingAtTheTopAsTheScreenShrinks(t *testing.T) {
	t.Parallel()
	para := []string{"@relay:bob a line whose rows leave the view one by", "one until the screen shrinks",
		"[[RELAY]]", "{", `  "to": "bob",`, `  "type": "message",`, `  "body": "hi"`, "}", "[[/RELAY]]"}
	var out []string
	for i := range 5 {
		out = append(out, fmt.Sprintf("head line %d", i))
	}
	out = append(out, "")
	out = append(out, para...)
	out = append(out, "", "tail line 0", "", "tail line 1", "")
	for i := 2; i < 8; i++ {
		out = append(out, fmt.Sprintf("tail line %d", i))
	}
	rows := []string{"• Running sh f.sh"}
	for i, o := range out {
		switch {
		case i == 0:
			rows = append(rows, "  └ "+o)
		case o == "":
			rows = append(rows, "")
		default:
			rows = append(rows, "    "+o)
		}
	}
	firstPara, last := slices.Index(rows, "    "+para[0]), slices.Index(rows, "    [[/RELAY]]")
	// The view: its blank top row, then view rows, the spinner two rows
	// under them and the input box two rows further.
	frame := func(from, view int) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h\x1b[1;1H\x1b[K")
		for i, r := range rows[from : from+view] {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[K%s", i+2, r)
		}
		fmt.Fprintf(&b, "\x1b[%d;1H◦ Working\x1b[%d;1H› \x1b[%d;3H\x1b[?2026l", view+3, view+5, view+5)
		return b.String()
	}
	for _, tc := range []struct {
		name       string
		cols, upTo int
		whole      bool
	}{
		{"shorter", 60, last, true},
		{"shorter and narrower", 56, last, true},
		// The resize takes the block's first rows off, not its last ones
		// nor the blank row under them: they stay, laid out anew.
		{"rest stays", 60, last - 6, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const view, small = 11, 4
			s := NewScreen(ScreenOptions{Rows: view + 5, Cols: 60, Layout: screenmodel.Of("codex")})
			defer s.Close()
			at := map[string][]int64{} // where each line was committed
			record := func(lines []Line) []Line {
				for _, l := range lines {
					text := strings.TrimPrefix(strings.TrimSpace(l.Text), "└ ")
					at[text] = append(at[text], l.N)
				}
				return lines
			}
			c := &committed{t: t, s: s, take: func() []Line { return record(s.TakeLines()) }}
			c.write("transcript\r\n\x1b[16;1H› ")
			for from := 0; from <= tc.upTo; from++ {
				c.write(frame(from, view))
			}
			s.Resize(small+5, tc.cols)
			record(s.TakeLines())
			// Drawn again for the new size: the transcript, then the view's
			// bottom rows, the latest output, as before the resize.
			c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[Htranscript" + strings.Repeat("\r\n", small+5))
			for from := tc.upTo + view - small; from+small <= len(rows); from++ {
				c.write(frame(from, small))
			}
			// Done: the output's first rows, its middle left out, then its
			// last paragraph.
			tail := slices.Index(rows, "    tail line 2")
			c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H\x1b[?2026htranscript\r\n\r\n• You ran sh f.sh\r\n" +
				strings.Join(rows[1:4], "\r\n") + fmt.Sprintf("\r\n    … +%d lines (ctrl+t to view transcript)\r\n", tail-4) +
				strings.Join(rows[tail:], "\r\n") + "\r\n\r\n› \x1b[?2026l")
			record(s.Flush())
			for i, o := range para {
				// Rows that leave in the resize are committed as any line
				// that leaves the screen is.
				if n := len(at[strings.TrimSpace(o)]); tc.whole && n != 1 || !tc.whole && i < tc.upTo-firstPara && n != 0 {
					t.Errorf("%q committed at %v", o, at[strings.TrimSpace(o)])
				}
			}
			for _, o := range out {
				if slices.Contains(para, o) || !tc.whole {
					continue
				}
				if o = strings.TrimSpace(o); o != "" && len(at[o]) != 1 {
					t.Errorf("%q committed at %v, want once", o, at[o])
				}
			}
			for i := 1; tc.whole && i < len(para); i++ {
				a, b := at[strings.TrimSpace(para[i-1])], at[strings.TrimSpace(para[i])]
				if len(a) == 1 && len(b) == 1 && b[0] != a[0]+1 {
					t.Errorf("%q at %d, %q at %d: want the next position", para[i-1], a[0], para[i], b[0])
				}
			}
		})
	}
}

// TestReplayFromANoticeShownAgain: a transcript written again may start
// with a notice wrapped anew (issue 29, Claude Code 2.1.332 inline: after
// a resize it erases its rows and draws the transcript again from a
// notice at its top, which an earlier redraw had wrapped anew, and the
// outputs under it collapsed to their first rows, a screenful of rows
// holding more lines than it has). The notice joined on one row is the
// notice (TestReplayBeginsWithAParagraphJoined), and the lines under it
// are the transcript's, not new output: an old block's first rows are not
// a new block cut short.
func TestReplayFromANoticeShownAgain(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 60})
	defer s.Close()
	c := &committed{t: t, s: s, take: func() []Line { return append(s.TakeLines(), s.Settle()...) }}
	var output strings.Builder
	for i := range 12 {
		fmt.Fprintf(&output, "  output line %d\r\n", i)
	}
	c.write("⚠ Settings failed to load · no remote\r\n  policy applied\r\n\r\n! cat f01.txt\r\n" +
		"  [[RELAY]]\r\n  {\r\n    \"to\": \"bob\",\r\n    \"type\": \"message\",\r\n    \"body\": \"hi\"\r\n  }\r\n  [[/RELAY]]\r\n" +
		"! cat f02.txt\r\n" + output.String())
	// Drawn again wider: the notice on one row.
	s.Resize(12, 90)
	c.write("\x1b[H\x1b[2J⚠ Settings failed to load · no remote policy applied\r\n\r\n")
	// Drawn again at another width, the outputs collapsed.
	s.Resize(12, 80)
	c.write("\x1b[H\x1b[2J\r\n⚠ Settings failed to load · no remote policy applied\r\n\r\n! cat f01.txt\r\n" +
		"  [[RELAY]]\r\n  {\r\n  … +5 lines (ctrl+o to expand)\r\n! cat f02.txt\r\n  output line 0\r\n" +
		"  … +11 lines (ctrl+o to expand)\r\n")
	got := c.flush()
	var after []string
	for i, l := range got {
		if l == "  output line 11" {
			after = nil
			for _, l := range got[i+1:] {
				if l != "" {
					after = append(after, l)
				}
			}
		}
	}
	want := []string{"  … +5 lines (ctrl+o to expand)", "  … +11 lines (ctrl+o to expand)"}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("lines after the notice drawn again: (-want +got):\n%s\nall lines:\n%s", diff, strings.Join(got, "\n"))
	}
}

// TestBoxScrolledBackShowsNoLineAgain: a line that gave way to the line
// under it, moving up into its place, moved up with it; shown again a row
// lower, it is the same line, not new output (issue 29). Gemini CLI
// 0.61.0 shows a running command's output in a live box that holds its
// latest rows: a row comes in at the bottom and the top row goes under
// "… N hidden"; the finished box, a row taller, shows that row again and
// everything under it a row lower than the frame before.
func TestBoxScrolledBackShowsNoLineAgain(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for _, r := range rows {
			b.WriteString("\x1b[2K" + r + "\r\n")
		}
		return b.String()
	}
	row := func(text string) string { return fmt.Sprintf("│ %-40s │", text) }
	const top, bottom = "╭" + "──────────────────────────────────────────" + "╮", "╰" + "──────────────────────────────────────────" + "╯"
	alpha, bravo := "@relay:bob alpha one two three", "@relay:bob bravo four five six"
	charlie, delta := "@relay:bob charlie seven eight", "@relay:bob delta nine ten eleven"
	got := redrawLines(t,
		"transcript\r\n"+frame(top, row("… 1 hidden"), row(alpha), row(bravo), row(charlie), bottom, " footer line"),
		// The live box scrolled: alpha under "… 2 hidden", delta in.
		"\x1b[7A"+frame(top, row("… 2 hidden"), row(bravo), row(charlie), row(delta), bottom, " footer line"),
		// The finished box, a row taller: alpha shows again.
		"\x1b[7A"+frame(top, row("… 1 hidden"), row(alpha), row(bravo), row(charlie), row(delta), bottom, " footer line"))
	for _, text := range []string{alpha, bravo, charlie, delta} {
		if n := slices.Index(got, row(text)); n < 0 || slices.Index(got[n+1:], row(text)) >= 0 {
			t.Errorf("%q committed other than once; all lines:\n%s", text, strings.Join(got, "\n"))
		}
	}
}

// TestLineGivenWayPrintedAgainFurtherOn: a line that gave way to a line
// moving into its place moved a row with its region; the same text
// printed again further down is new output
// (Gemini CLI prints the same block again for another file: its rows are
// those of a block an earlier box scrolled away).
func TestLineGivenWayPrintedAgainFurtherOn(t *testing.T) {
	t.Parallel()
	alpha, bravo := `  "to": "alice", "one": 1`, `  "type": "message", "two": 2`
	const footer = " footer of the program's live area"
	got := redrawLines(t,
		"transcript\r\n"+alpha+"\r\n"+bravo+"\r\n"+footer+"\r\n",
		// Redrawn a row up: bravo takes alpha's place.
		"\x1b[3A\x1b[2K"+bravo+"\r\n\x1b[2K"+footer+"\r\n\x1b[2K\r\n",
		// A dozen lines more, then the same text again.
		"\x1b[2A\x1b[J"+strings.Repeat("another line of output\r\n", 12)+alpha+"\r\n")
	if n := slices.Index(got, alpha); n < 0 || slices.Index(got[n+1:], alpha) < 0 {
		t.Errorf("%q printed again further on, not committed again; all lines:\n%s", alpha, strings.Join(got, "\n"))
	}
}

// TestReplayOfAFilePrintedAgain: a command's output comes after its
// echo, so once a transcript written again reaches the echo of the
// command typed last, a line after it that repeats only older lines is
// new: the command printed the same text again (issue 29, Claude Code
// inline: a file printed twice). Claude Code 2.1.332 (inline) clears the
// screen and the scrollback when its live area outgrows the screen and
// writes its transcript again, the first print's output collapsed under
// its echo, the latest output whole under its own.
func TestReplayOfAFilePrintedAgain(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("! cat f01.txt\r\n  ⎿  @relay:bob first line of the file\r\n     @relay:alice second line of the file\r\n" +
		"     @relay:bob third line of the file\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f02.txt\r\n  ⎿  another file\r\n  ⎿  Interrupted\r\n\r\n")
	box := strings.Repeat("─", 80) + "\r\n❯ \r\n" + strings.Repeat("─", 80) + "\r\n  ? for shortcuts"
	c.write("! cat f03.txt\r\n  ⎿  Running…\r\n\r\n" + box)
	c.got = nil
	c.write("\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"! cat f01.txt\r\n  ⎿  @relay:bob first line of the file\r\n     … +2 lines\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f02.txt\r\n  ⎿  another file\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f03.txt\r\n  ⎿  @relay:bob first line of the file\r\n     @relay:alice second line of the file\r\n" +
		"     @relay:bob third line of the file\r\n  ⎿  Interrupted\r\n\r\n" + box)
	got := c.flush()
	want := []string{"     … +2 lines", "  ⎿  @relay:bob first line of the file", "     @relay:alice second line of the file",
		"     @relay:bob third line of the file", "  ⎿  Interrupted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLiveAreaTallerThanTheScreenDrawnFromItsTop: Claude Code inline,
// when its live area (the command typed last, its output, the status row
// and the input box) grows taller than the screen, erases the screen's
// rows one by one and draws the area's last rows from the top row,
// cutting off the rows above (issue 29: a 16-row screen). A file printed
// a second time then shows, from the top row, rows the first print
// showed, but the echo of the command typed last, cut off, is above
// them: they are the second print's, which nothing read yet, not the
// first print's drawn again. A drawing that shows an echo (the
// transcript drawn again) is read as before.
func TestLiveAreaTallerThanTheScreenDrawnFromItsTop(t *testing.T) {
	t.Parallel()
	file := []string{"the first line of the file", "     [[RELAY]]", `     {"to":"bob","body":"hello there"}`, "     [[/RELAY]]",
		"     end of the output, 4 lines"}
	box := strings.Repeat("─", 60) + "\r\n❯ \r\n" + strings.Repeat("─", 60) + "\r\n  ? for shortcuts"
	erase := "\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 11) + "\x1b[2K\x1b[H"
	for _, tc := range []struct {
		name, drawn string
		want        []string
	}{
		{"cut above", strings.Join(file[1:], "\r\n") + "\r\n\r\n✻ Working…\r\n\r\n",
			append(slices.Clone(file[1:]), "✻ Working…", "")},
		{"echo shown", "! cat f.txt\r\n  ⎿  " + strings.Join(file, "\r\n") + "\r\n  ⎿  Interrupted\r\n\r\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of("claude")})
			defer s.Close()
			c := &committed{t: t, s: s, take: s.Settle}
			c.write("! cat f.txt\r\n  ⎿  " + strings.Join(file, "\r\n") + "\r\n  ⎿  Interrupted\r\n\r\n")
			c.write("! cat g.txt\r\n  ⎿  another file\r\n  ⎿  Interrupted\r\n\r\n")
			c.write("! cat f.txt\r\n  ⎿  Running…\r\n\r\n" + box)
			c.got = nil
			c.write(erase + tc.drawn + box)
			got := c.flush()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLiveAreaDrawnOverRowsThatShowedTheSameText: the live area cut
// above (TestLiveAreaTallerThanTheScreenDrawnFromItsTop) is drawn on rows
// erased one by one, and where a row of it has the text an older line
// had at that row, or a few rows under it (another block's "[[RELAY]]"
// and "[[/RELAY]]"), it is still the latest command's output, drawn anew,
// not that line shown again or moved up: read as the rows around it are,
// or the block is read without its first and last rows (issue 29, Claude
// Code 2.1.332 inline: a file printed again over the rows of another
// file's block, claude-inline-s8100032, fresh claude-inline-s94200008).
func TestLiveAreaDrawnOverRowsThatShowedTheSameText(t *testing.T) {
	t.Parallel()
	file := []string{"the first line of the file", "     [[RELAY]]", `     {"to":"bob","body":"hello there"}`, "     [[/RELAY]]",
		"     end of the output, 4 lines"}
	box := strings.Repeat("─", 60) + "\r\n❯ \r\n" + strings.Repeat("─", 60) + "\r\n  ? for shortcuts"
	erase := "\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 11) + "\x1b[2K\x1b[H"
	for _, tc := range []struct {
		name string
		// after: what h.txt printed after its block; at: the row that
		// shows the block's "[[RELAY]]" then.
		after string
		at    int
	}{
		{"where they were", "  ⎿  Interrupted\r\n\r\n", 0},
		{"two rows under", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of("claude")})
			defer s.Close()
			c := &committed{t: t, s: s, take: s.Settle}
			c.write("! cat f.txt\r\n  ⎿  " + strings.Join(file, "\r\n") + "\r\n  ⎿  Interrupted\r\n\r\n")
			// Another file's block, on the screen when the live area is
			// drawn.
			c.write("! cat h.txt\r\n  ⎿  a line of h\r\n     [[RELAY]]\r\n" + `     {"to":"alice","body":"another"}` +
				"\r\n     [[/RELAY]]\r\n" + tc.after)
			c.write("! cat f.txt\r\n  ⎿  Running…\r\n\r\n" + box)
			if row := s.Snapshot().Lines[tc.at]; row != file[1] {
				t.Fatalf("row %d shows %q, not the other block's first row", tc.at, row)
			}
			c.got = nil
			c.write(erase + strings.Join(file[1:], "\r\n") + "\r\n\r\n✻ Working…\r\n\r\n" + box)
			got := slices.DeleteFunc(c.flush(), func(l string) bool { return l == "" })
			if diff := cmp.Diff(append(slices.Clone(file[1:]), "✻ Working…"), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLiveAreaGrowingIsReadOnce: a command's output growing in the live
// area cut above, drawn from the screen's top frame after frame (the
// last rows that fit), a few rows more each time, is read once, row by
// row: rows drawn again a few rows higher are the ones read before, also
// a block alike one printed before it (see
// TestLiveAreaDrawnOverRowsThatShowedTheSameText).
func TestLiveAreaGrowingIsReadOnce(t *testing.T) {
	t.Parallel()
	box := strings.Repeat("─", 60) + "\r\n❯ \r\n" + strings.Repeat("─", 60) + "\r\n  ? for shortcuts"
	erase := "\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 11) + "\x1b[2K\x1b[H"
	var out []string
	for i := range 30 {
		switch i {
		case 10:
			out = append(out, "     @relay:bob hello there from the file")
		case 14:
			out = append(out, "     [[RELAY]]", `     {"to":"bob","body":"new"}`, "     [[/RELAY]]")
		default:
			out = append(out, fmt.Sprintf("     line %d of the output", i))
		}
	}
	out[0] = "  ⎿  " + strings.TrimSpace(out[0])
	for _, step := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			t.Parallel()
			s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of("claude")})
			defer s.Close()
			c := &committed{t: t, s: s, take: s.Settle}
			c.write("! cat a.txt\r\n  ⎿  an older file\r\n     [[RELAY]]\r\n" + `     {"to":"bob","body":"old"}` +
				"\r\n     [[/RELAY]]\r\n  ⎿  Interrupted\r\n\r\n")
			c.write("! cat f.txt\r\n  ⎿  Running…\r\n\r\n" + box)
			c.got = nil
			for k := step; k < len(out)+step; k += step {
				rows := append(slices.Clone(out[:min(k, len(out))]), "", "✻ Working…", "")
				c.write(erase + strings.Join(rows[max(len(rows)-8, 0):], "\r\n") + "\r\n" + box)
			}
			got := c.flush()
			for _, l := range out {
				if n := slices.Index(got, l); n < 0 || slices.Index(got[n+1:], l) >= 0 {
					t.Errorf("%q not read once:\n%s", l, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// TestTranscriptDrawnAgainWithANewBlockUnderTheLatestEcho: a transcript
// drawn again from the screen's top, showing the echo of the command typed
// last, shows that command's output under it: its first rows are new, not
// the rows of an older block cut off above that read the same ("⎿
// [[RELAY]]", "{", "to": "alice"), which the replay would take them for —
// the older block's rows are not drawn again, so nothing else would take
// them (issue 29, Claude Code 2.1.332 inline: claude-inline-s8100026).
func TestTranscriptDrawnAgainWithANewBlockUnderTheLatestEcho(t *testing.T) {
	t.Parallel()
	block := func(body string) string {
		return "  ⎿  [[RELAY]]\r\n     {\r\n" + `       "to": "alice",` + "\r\n" + `       "body": "` + body + `"` +
			"\r\n     }\r\n     [[/RELAY]]\r\n"
	}
	box := strings.Repeat("─", 60) + "\r\n❯ \r\n" + strings.Repeat("─", 60) + "\r\n  ? for shortcuts"
	erase := "\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 15) + "\x1b[2K\x1b[H"
	s := NewScreen(ScreenOptions{Rows: 16, Cols: 60, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("! cat f.txt\r\n" + block("the first file's message") + "  ⎿  Interrupted\r\n\r\n")
	g := "! cat g.txt\r\n  ⎿  another file\r\n  ⎿  Interrupted\r\n\r\n"
	c.write(g)
	c.write("! cat h.txt\r\n  ⎿  Running…\r\n\r\n" + box)
	c.got = nil
	c.write(erase + g + "! cat h.txt\r\n" + block("the second file's message") + "\r\n" + box)
	want := []string{"  ⎿  [[RELAY]]", "     {", `       "to": "alice",`, `       "body": "the second file's message"`, "     }",
		"     [[/RELAY]]"}
	if diff := cmp.Diff(want, c.flush()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTranscriptDrawnAgainWithAFilePrintedAgainUnderTheLatestEcho: a
// transcript drawn again from the screen's top, showing the echo of the
// command typed last, shows that command's output under it: a file
// printed again there shows the rows of its first print, which an output
// drawn since replaced where they were (the first print collapsed, the
// next command's rows drawn over them). They are that command's output,
// new, not the first print's rows moved down past the echo: taken so,
// rows of a relay the program wrapped were left out, and the relay was
// read cut (issue 29, Claude Code 2.1.332 inline: claude-inline-s14100008).
func TestTranscriptDrawnAgainWithAFilePrintedAgainUnderTheLatestEcho(t *testing.T) {
	t.Parallel()
	file := []string{"  ⎿  a first line of the file", "     @relay:bob one long message that the program",
		"     wrapped over three rows of its own, and that", "     ends on this row", "     end of the output, 4 lines"}
	box := strings.Repeat("─", 60) + "\r\n❯ \r\n" + strings.Repeat("─", 60) + "\r\n  ? for shortcuts"
	erase := "\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 15) + "\x1b[2K\x1b[H"
	s := NewScreen(ScreenOptions{Rows: 16, Cols: 60, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("! cat f.txt\r\n" + strings.Join(file, "\r\n") + "\r\n  ⎿  Interrupted\r\n\r\n")
	c.write("\x1b[7A" + file[0] + "\x1b[K\r\n     … +4 lines\x1b[K\r\n  ⎿  Interrupted\x1b[K\r\n\x1b[K\r\n" +
		"! sh g.sh\x1b[K\r\n  ⎿  the output of another command\x1b[K\r\n  ⎿  Interrupted\x1b[K\r\n\x1b[K\r\n")
	c.write("! cat again.txt\r\n  ⎿  Running…\r\n\r\n" + box)
	c.got = nil
	c.write(erase + "\r\n! cat again.txt\r\n" + strings.Join(file, "\r\n") + "\r\n\r\n✻ Working…\r\n\r\n" + box)
	got := slices.DeleteFunc(c.flush(), func(l string) bool { return !slices.Contains(file, l) })
	if diff := cmp.Diff(file, got); diff != "" {
		t.Errorf("the file's rows read (-want +got):\n%s", diff)
	}
}

// TestAnEchoJoinedAtANewWidthIsNoNewCommand: Claude Code wraps the echo
// of a long command itself, on rows of their own; on a wider screen it
// draws the echo joined, a text no line committed has. Drawn so again by
// a later redraw where the last one showed it, the echo is an older line
// of the transcript, not the echo of the command typed last — taken for
// it, the next transcript written again would be read as that command's
// output from there on, every older output under it committed again
// (issue 29, Claude Code 2.1.332 inline: fresh claude-inline-s94300014,
// two extra relays after a second resize).
func TestAnEchoJoinedAtANewWidthIsNoNewCommand(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 20, Cols: 60, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	const typed = "! : f01; printf '%s\\n' '@relay:alice start' '    noise give"
	older := "  ⎿  @relay:alice start\r\n  ⎿  Interrupted\r\n\r\n! cat f02.txt\r\n  ⎿  @relay:bob a sign\r\n  ⎿  Interrupted\r\n\r\n"
	c.write(typed + "\r\n  long fact'\r\n" + older)
	latest := "! cat f03.txt\r\n  ⎿  Running…\r\n\r\n"
	c.write(latest)
	box := strings.Repeat("─", 100) + "\r\n❯ \r\n" + strings.Repeat("─", 100) + "\r\n  ? for shortcuts"
	again := "\x1b[H\x1b[2J\x1b[3J\x1b[H" + typed + " long fact'\r\n" + older + latest + box
	s.Resize(20, 100)
	c.write(again)
	c.got = nil
	c.write(again)
	// Drawn again a row lower (a notice): the rows show other lines than
	// they did, and the replay reads each of them; then on a shorter
	// screen, as the resize left it.
	c.write(strings.Replace(again, "\x1b[H"+typed, "\x1b[H\r\n"+typed, 1))
	s.Resize(12, 100)
	c.write(again)
	if got := strings.TrimSpace(strings.Join(c.flush(), "")); strings.Contains(got, "@relay") {
		t.Errorf("the transcript written again, its relays committed again: %q", got)
	}
}

// TestReplayOfAFilePrintedAgainRewrapped: a transcript written again for
// a new width holds a file printed twice, each print under its own echo,
// the first print committed at one width, the second at another; the
// first print's rows, wrapped anew as the second's were, match the
// second print's lines first, but once the replay reaches the second
// echo, the lines under it are the second print's, written again: nothing
// is new (Codex 0.171.0 inline, after a resize).
func TestReplayOfAFilePrintedAgainRewrapped(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 20, Cols: 100, Layout: screenmodel.Of("codex")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write("• You ran sh f02.sh\r\n  └ @relay:bob friend locate build group lie length strong nothing single size so language\r\n" +
		"    @relay:alice anger iron law and the rest of it\r\n\r\n• You ran sh f03.sh\r\n  └ something else\r\n\r\n")
	s.Resize(20, 60)
	narrow := "  └ @relay:bob friend locate build group lie length strong\r\n    nothing single size so language\r\n" +
		"    @relay:alice anger iron law and the rest of it\r\n"
	c.write("• You ran sh f04.sh\r\n" + narrow + "\r\n")
	c.got = nil
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" + "• You ran sh f02.sh\r\n" + narrow + "\r\n• You ran sh f03.sh\r\n" +
		"  └ something else\r\n\r\n• You ran sh f04.sh\r\n" + narrow + "\r\n")
	if got := c.flush(); strings.TrimSpace(strings.Join(got, "")) != "" {
		t.Errorf("written again, committed again: %q", got)
	}
}

// TestReplayAtTheNewWidthAgainPastALineLeftOut: a transcript written again
// at the width of the last resize, once that resize is over, shows a
// paragraph the program wrapped itself as rows of the new width, over
// several lines committed at the old one; a line committed between it and
// the row the replay matched last, and not written again (a notice shown
// for a moment under the command's echo), does not make it new. Claude
// Code 2.1.332 (inline) repaints its whole transcript when a command ends,
// long after a resize: a command's output already read came out again.
func TestReplayAtTheNewWidthAgainPastALineLeftOut(t *testing.T) {
	t.Parallel()
	s, c := settledScreen(t)
	filler := fillerLines(10)
	c.write("! cat f03.txt\r\n  Switched to manual for a moment\r\n" +
		"  ⎿  @relay:bob alpha bravo charlie delta echo foxtrot golf\r\n" +
		"     hotel india juliett kilo lima mike november oscar\r\n     papa quebec\r\n" + filler)
	c.got = nil
	wide := "\x1b[H\x1b[2J\x1b[3J\x1b[H! cat f03.txt\r\n" +
		"  ⎿  @relay:bob alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mik\r\n" +
		"     e november oscar papa quebec\r\n" + filler
	s.Resize(10, 100)
	c.write(wide)
	c.write(wide)
	if got := c.flush(); len(got) != 0 {
		t.Errorf("written again at the new width, committed again: %q", got)
	}
}

// TestReplayShowsWholeAParagraphItShowedElided: a transcript written
// again for a new size may show whole an output it showed with rows left
// out ("… +N lines") where a paragraph went on: the paragraph's rows,
// wrapped anew, go on from its first rows into the rows left out and end
// in the rows shown after them. They are history, as is the same
// paragraph printed again further down: neither is read again, in part
// or whole (issue 29, codex-inline-s99800002: Codex 0.171.0 inline
// showed a relay line with its middle rows left out, then the same line
// whole; resized wider, it wrote both whole, and the first was taken for
// the second's rows, the second's first rows for new output, and read
// cut short: a third delivery).
func TestReplayShowsWholeAParagraphItShowedElided(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 40, Layout: screenmodel.Of("codex")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	// The paragraph at 40 columns: six rows.
	narrow := []string{"    @relay:alice alpha bravo charlie", "    delta echo foxtrot golf hotel india",
		"    juliett kilo lima mike november", "    oscar papa quebec romeo sierra tango",
		"    uniform victor whiskey xray yankee", "    zulu one two three four five six"}
	c.write("• You ran cat f.txt\r\n  └ first line of the output\r\n" + narrow[0] +
		"\r\n    … +3 lines (ctrl+t to view transcript)\r\n" + strings.Join(narrow[4:], "\r\n") +
		"\r\n    " + strings.TrimSpace(narrow[0]) + "\r\n" + strings.Join(narrow[1:], "\r\n") +
		"\r\n    end of the output\r\n" + fillerLines(12))
	c.got = nil
	// Wider: each in two rows, the break where no row broke before.
	wide := []string{"    @relay:alice alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo",
		"    lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray",
		"    yankee zulu one two three four five six"}
	s.Resize(12, 90)
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H• You ran cat f.txt\r\n  └ first line of the output\r\n" +
		strings.Join(wide, "\r\n") + "\r\n" + strings.Join(wide, "\r\n") + "\r\n    end of the output\r\n" + fillerLines(12))
	if got := c.flush(); strings.TrimSpace(strings.Join(got, "")) != "" {
		t.Errorf("written again whole, committed again: %q", got)
	}
}

// TestARowErasedUnderALineThatScrolledOffStartsALine: a line whose first
// row scrolled off goes on into the top row only until the program erases
// that row: what it writes there then is a line of its own, and what is
// left of the line above, in the scrollback, was committed already.
// Claude Code 2.1.332 (inline), after a resize, erases its rows from the
// top down and draws its transcript again; its banner, drawn on the top
// row, was read as the end of a relay line the new width had wrapped
// there ("… answer inv ▐▛███▛█ Claude Code v2.1.332"). The view cleared
// from the top left (ED 0) erases that row too (FuzzReflow 5f0bed73: the
// relay line drawn first after the clear was read as the end of the line
// above, garbled, and a screen resized meanwhile read a line twice).
func TestARowErasedUnderALineThatScrolledOffStartsALine(t *testing.T) {
	t.Parallel()
	for _, erase := range []string{"\x1b[2K", "\r\x1b[K", "\x1b[J"} {
		s := NewScreen(ScreenOptions{Rows: 4, Cols: 20})
		c := &committed{t: t, s: s, take: s.Settle}
		long := "@relay:bob alpha bravo charlie"
		// The long line's first row scrolls off, its second is the top
		// row.
		c.write(long + "\r\nrow two\r\nrow three\r\n")
		c.write("\x1b[H" + erase + "banner\r\n")
		got := c.flush()
		s.Close()
		want := []string{long, "row two", "row three", "banner"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("top row erased with %q: (-want +got):\n%s", erase, diff)
		}
	}
	// The view cleared and drawn again as it was: the top row shows the
	// same rest of the line, a repaint — not a line of its own (a relay
	// marker in it would be a relay nobody sent), nor the line again.
	for _, first := range []string{"@relay:bob alpha bravo charlie", "@relay:bob see then @relay:carol hi"} {
		for _, erase := range []string{"\x1b[2K", "\x1b[J"} {
			s := NewScreen(ScreenOptions{Rows: 4, Cols: 20})
			c := &committed{t: t, s: s, take: s.Settle}
			c.write(first + "\r\nrow two\r\nrow three\r\n")
			c.write("\x1b[H" + erase + first[20:] + "\r\nrow two\r\nrow three\r\n")
			got := c.flush()
			s.Close()
			want := []string{first, "row two", "row three"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("view drawn again after %q: (-want +got):\n%s", erase, diff)
			}
		}
	}
}

// TestReplayOfAFilePrintedAgainUnderAnEchoMovedOutOfTheBox: the echo of
// the command typed last is a line of the transcript however it got
// there, also when it committed nothing: Claude Code 2.1.332 (inline)
// moves the line typed out of its input box into the transcript as the
// command starts, drawing it over the box's top rule, so no line is
// committed for it. A transcript written again after that is still under
// that echo for the replay rule: the command's output, another file's
// lines printed again, is new.
func TestReplayOfAFilePrintedAgainUnderAnEchoMovedOutOfTheBox(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 80, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	rule := strings.Repeat("─", 80)
	box := rule + "\r\n! \r\n" + rule + "\r\n  ! for shell mode\x1b[2A\r\x1b[2C"
	var long strings.Builder
	for i := range 30 {
		fmt.Fprintf(&long, "     line %d of another file\r\n", i)
	}
	c.write("! cat f01.txt\r\n  ⎿  @relay:bob first line of the file\r\n     @relay:alice second line of the file\r\n" +
		"     @relay:bob third line of the file\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f02.txt\r\n  ⎿  another file\r\n" + long.String() + "  ⎿  Interrupted\r\n\r\n" + box)
	// The command typed into the box, where the cursor rests.
	c.write("cat f03.txt")
	// Enter: the line typed drawn over the box's top rule, the box under it.
	c.write("\x1b[1A\r\x1b[2K! cat f03.txt\r\n\x1b[2K  ⎿  Running…\r\n\x1b[2K\r\n\x1b[2K" + box)
	c.got = nil
	c.write("\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"! cat f01.txt\r\n  ⎿  @relay:bob first line of the file\r\n     … +2 lines\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f02.txt\r\n  ⎿  another file\r\n" + long.String() + "  ⎿  Interrupted\r\n\r\n" +
		"! cat f03.txt\r\n  ⎿  @relay:bob first line of the file\r\n     @relay:alice second line of the file\r\n" +
		"     @relay:bob third line of the file\r\n  ⎿  Interrupted\r\n\r\n" + box)
	got := c.flush()
	var relays []string
	for _, l := range got {
		if strings.Contains(l, "@relay:") {
			relays = append(relays, l)
		}
	}
	want := []string{"  ⎿  @relay:bob first line of the file", "     @relay:alice second line of the file", "     @relay:bob third line of the file"}
	if diff := cmp.Diff(want, relays); diff != "" {
		t.Errorf("relay lines committed by the transcript written again (-want +got):\n%s\nall lines:\n%s", diff, strings.Join(got, "\n"))
	}
}

// TestEchoMovedOutOfTheBoxKeepsItsRows: the rows that continue the echo
// of a command moved out of the input box are the transcript's rows too,
// also the one drawn where the box showed the line typed. Claude Code
// 2.1.332 (inline) draws a long command typed over the box's top rule and
// first row as it starts; redrawn after a resize, the echo's second row
// (a piece of the relay line the command prints) was taken for a piece of
// the output, and the output's relay line, drawn again under it, was
// committed a second time.
func TestEchoMovedOutOfTheBoxKeepsItsRows(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 100, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	rule := strings.Repeat("─", 100)
	box := rule + "\r\n! \r\n" + rule + "\r\n  ! for shell mode\x1b[2A\r\x1b[2C"
	const rowA, rowB = "! printf '%s\\n' '@relay:bob alpha bravo charlie delta echo foxtrot golf hotel india", "  juliett kilo lima mike'"
	c.write("! cat f01.txt\r\n  ⎿  one\r\n  ⎿  Interrupted\r\n\r\n" + box)
	// The command typed: the box, redrawn from its top rule, grows a row.
	c.write("\x1b[1A\r" + rule + "\r\n\x1b[2K" + rowA + "\r\n\x1b[2K" + rowB + "\r\n\x1b[2K" + rule +
		"\r\n\x1b[2K  ! for shell mode\x1b[2A\r\x1b[25C")
	// Enter: the echo over the box's top rule and first row, the box under it.
	c.write("\x1b[2A\r\x1b[2K" + rowA + "\r\n\x1b[2K" + rowB + "\r\n\x1b[2K  ⎿  Running…\r\n\x1b[J\r\n" + box)
	// Done: the output under the echo.
	c.write("\x1b[4A\r\x1b[J  ⎿  @relay:bob alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima\r\n     mike\r\n" +
		"  ⎿  Interrupted\r\n\r\n" + box)
	before := len(c.got)
	// Narrower: the echo's second row, drawn anew, is a piece of the
	// output's relay line.
	s.Resize(12, 60)
	rule = strings.Repeat("─", 60)
	c.write("\x1b[H\x1b[2J! cat f01.txt\r\n  ⎿  one\r\n  ⎿  Interrupted\r\n\r\n" +
		"! printf '%s\\n' '@relay:bob alpha bravo charlie delta echo\r\n  foxtrot golf hotel india juliett kilo lima\r\n  mike'\r\n" +
		"  ⎿  @relay:bob alpha bravo charlie delta echo foxtrot golf\r\n     hotel india juliett kilo lima mike\r\n" +
		"  ⎿  Interrupted\r\n\r\n" + rule + "\r\n! \r\n" + rule + "\r\n  ! for shell mode\x1b[2A\r\x1b[2C")
	got := c.flush()
	for _, l := range got[before:] {
		if strings.Contains(l, "⎿  @relay:") {
			t.Errorf("the output's relay line committed again after the resize: %q\nall lines:\n%s", l, strings.Join(got, "\n"))
		}
	}
	if !slices.ContainsFunc(got[:before], func(l string) bool { return strings.Contains(l, "⎿  @relay:bob alpha") }) {
		t.Errorf("the output's relay line never committed:\n%s", strings.Join(got, "\n"))
	}
}

// TestReplayOfAFilePrintedAgainAfterAShortRow: under the echo of the
// command typed last, a line as long as minResumeKey repeats only lines
// committed since, also when a short row right under the echo ("⎿  one",
// common to any output) took the replay back to an older output: the
// line is not that output's next line, wrapped anew. Claude Code 2.1.332
// (inline) printing a file a second time, repainted at once on a
// 24-row screen: the relay lines under a block's short rows were taken
// for the first print's.
func TestReplayOfAFilePrintedAgainAfterAShortRow(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	output := "  ⎿  one\r\n     @relay:bob the first long line of the file\r\n     @relay:alice the second long line of the file\r\n"
	c.write("! cat f01.txt\r\n" + output + "  ⎿  Interrupted\r\n\r\n" +
		"! cat f02.txt\r\n  ⎿  another file\r\n  ⎿  Interrupted\r\n\r\n")
	box := strings.Repeat("─", 80) + "\r\n❯ \r\n" + strings.Repeat("─", 80) + "\r\n  ? for shortcuts"
	c.write("! cat f03.txt\r\n  ⎿  Running…\r\n\r\n" + box)
	c.got = nil
	c.write("\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"! cat f01.txt\r\n  ⎿  one\r\n     … +2 lines\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f02.txt\r\n  ⎿  another file\r\n  ⎿  Interrupted\r\n\r\n" +
		"! cat f03.txt\r\n" + output + "  ⎿  Interrupted\r\n\r\n" + box)
	var relays []string
	for _, l := range c.flush() {
		if strings.Contains(l, "@relay:") {
			relays = append(relays, l)
		}
	}
	want := []string{"     @relay:bob the first long line of the file", "     @relay:alice the second long line of the file"}
	if diff := cmp.Diff(want, relays); diff != "" {
		t.Errorf("relay lines of the file printed again (-want +got):\n%s", diff)
	}
}

// TestReplayOfAnEchoDrawnWhereItWasTyped: the rows that continue the echo
// of a command drawn where the input box showed them typed commit nothing
// (the same text, or the same words indented anew), but they are rows of
// the transcript as the echo's first row is: a transcript written again
// shows them, and they are not new. Gemini CLI 0.61.0 draws a shell
// command's echo where its input box was and, on /quit, writes its whole
// transcript again; the echo's second row was taken for new output there,
// or for a piece of a later command's echo that holds the same words,
// after which every line between was taken for new output.
func TestReplayOfAnEchoDrawnWhereItWasTyped(t *testing.T) {
	t.Parallel()
	// frame erases the live area of rows rows, the cursor on its last,
	// and draws rows in its place, as Ink does.
	frame := func(rows int, draw ...string) string {
		return strings.Repeat("\x1b[2K\x1b[1A", rows-1) + "\x1b[2K\x1b[G" + strings.Join(draw, "\r\n")
	}
	box := strings.Join([]string{boxTop, boxHead("✓"), boxBlank, boxRow("@relay:bob hi"), boxBottom}, "\r\n")
	older := strings.Repeat(" $ sh f.sh\r\n\r\n"+box+"\r\n\r\n", 2)
	for _, echo := range []struct{ start, cont string }{{" $ ", "   "}, {" $", "  "}} {
		s := NewScreen(ScreenOptions{Rows: 12, Cols: 40, Layout: screenmodel.Of("gemini")})
		c := &committed{t: t, s: s, take: s.Settle}
		shown := []string{echo.start + ": f.sh; printf '%s\\n' 'alpha bravo", echo.cont + "charlie delta echo foxtrot golf", echo.cont + "hotel india'"}
		c.write(older + strings.Join([]string{"", " !   Type your shell command", "", "  footer"}, "\r\n"))
		// The command typed into the input box, the cursor in it.
		c.write(frame(4, "", " ! : f.sh; printf '%s\\n' 'alpha bravo", "   charlie delta echo foxtrot golf", "   hotel india'", "", "  footer") + "\x1b[2A")
		// Enter: the echo where the line typed was, the command's box under it.
		c.write("\x1b[2B" + frame(6, append(append([]string{""}, shown...), "", box, "", "", "  footer")...))
		before := len(c.got)
		c.write("\x1b[2J\x1b[3J\x1b[H" + older + strings.Join(shown, "\r\n") + "\r\n\r\n" + box + "\r\n\r\n")
		if got := c.flush()[before:]; strings.TrimSpace(strings.Join(got, "")) != "" {
			t.Errorf("echo %q: the transcript written again committed %q", echo.start, got)
		}
		s.Close()
	}
}

// TestReplayNewEchoOutputIsNew: a transcript written again after a resize
// that shows a command the replay has not seen (its echo repeats nothing)
// shows that command's output under it, new: rows as common as a block's
// "[[RELAY]]" or "{" there are not the rows of an older block above,
// though after a resize other rows are looked for anywhere (issue 29:
// codex-inline-s6300024 lost two blocks printed by a command that ended
// as Codex wrote its transcript again at 172 columns, their rows taken
// for those of a block printed earlier).
func TestReplayNewEchoOutputIsNew(t *testing.T) {
	t.Parallel()
	block := "  └ [[RELAY]]\r\n    {\r\n      \"to\": \"bob\",\r\n      \"type\": \"message\",\r\n" +
		"      \"body\": \"%s\"\r\n    }\r\n    [[/RELAY]]\r\n    end of the output\r\n\r\n"
	old := "• You ran cat f01.txt\r\n" + fmt.Sprintf(block, "the first block's body") + "  Worked for 1s\r\n\r\n"
	s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of("codex")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write(old)
	c.got = nil
	s.Resize(12, 100)
	newBlock := fmt.Sprintf(block, "the second block's body")
	// Codex shows a long output collapsed: the first block's rows are not
	// written again.
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" + "• You ran cat f01.txt\r\n  └ … +7 lines\r\n  Worked for 1s\r\n\r\n" +
		"• You ran sh f02.sh\r\n" + newBlock)
	got := c.flush()
	want := append([]string{"  └ … +7 lines", "• You ran sh f02.sh"}, strings.Split(strings.TrimSuffix(newBlock, "\r\n\r\n"), "\r\n")...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a new command's output in a transcript written again: (-want +got):\n%s", diff)
	}
}

// TestReplayBeginsWithAParagraphJoined: after a resize to a wider screen,
// the first line a transcript written again shows may be a paragraph
// that was committed over several rows, now joined into fewer: it starts
// the replay as the lines it joins, and nothing is committed again
// (issue 29: codex-inline-s6900038, grown from 57 to 97 columns, read
// three relay lines again from the reprint of their output).
func TestReplayBeginsWithAParagraphJoined(t *testing.T) {
	t.Parallel()
	s, c := settledScreen(t)
	filler := fillerLines(12)
	c.write("  Tip: alpha bravo charlie delta echo foxtrot golf hotel india\r\n  juliett kilo lima mike november oscar\r\n\r\n" +
		"• You ran sh f01.sh\r\n  └ @relay:bob uniform victor whiskey xray yankee zulu and the\r\n    rest of the relay line\r\n" + filler)
	c.got = nil
	s.Resize(10, 100)
	c.write("\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"  Tip: alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima\r\n  mike november oscar\r\n\r\n" +
		"• You ran sh f01.sh\r\n  └ @relay:bob uniform victor whiskey xray yankee zulu and the rest of the relay line\r\n" + filler)
	if got := c.flush(); len(got) != 0 {
		t.Errorf("written again after a resize, wider: committed again %q", got)
	}
}

// TestARedrawLaidOutForTheOldWidthIsNotRead: Claude Code 2.1.332 inline
// draws only the cells that changed since its last frame; right after a
// change of width, before it takes the resize in, it draws a frame for
// the old width: up as many rows as its last frame had, over rows the
// terminal laid out anew, keeping cells that are no longer those it drew
// there, and its rows run past the new edge. A reader sees garbled rows
// until the program erases the screen and draws its transcript anew for
// the new width, a moment later: the garbled rows are not its text,
// neither as the frame leaves them (the cursor goes on down, issue 29:
// claude-inline-s6300036 read "─────}" inside a block) nor as they scroll
// off the top (claude-inline-s6900006 read a command twice, garbled).
// Only the transcript drawn anew is read.
func TestARedrawLaidOutForTheOldWidthIsNotRead(t *testing.T) {
	t.Parallel()
	rule := func(w int) string { return strings.Repeat("─", w) }
	box := func(w int) string { return rule(w) + "\r\n❯ \r\n" + rule(w) + "\r\n  ? for shortcuts" }
	erase := "\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 11) + "\x1b[2K\x1b[H"
	// At 40 columns the relay line takes two rows, and the first leaves
	// the top of the screen: the line is carried on the top row.
	history := "! cat a.txt\r\n  ⎿  first line\r\n     @relay:bob soft represent clean thousand words here\r\n  ⎿  Interrupted\r\n\r\n"
	for _, tc := range []struct {
		name string
		// old is the frame drawn for 60 columns on the screen laid out
		// for 40: up to the "Running…" row as the program last drew it,
		// the cells that changed, the cursor left in the input box.
		old, redrawn string
		want         []string
	}{
		{"left", "\r\x1b[5A\x1b[5C@relay:bob hello from the file\x1b[K\r\n\r\n" + rule(60) + "\r\n❯ \r\n" + rule(60) +
			"\r\n  esc to interrupt\x1b[2A\r\x1b[2C",
			"! cat f.txt\r\n  ⎿  @relay:bob hello from the file\r\n\r\n",
			[]string{"  ⎿  @relay:bob hello from the file"}},
		{"scrolled off", "\r\x1b[5A\x1b[5C@relay:bob hello from the file\x1b[K\r\n     second row of the output\r\n" +
			"     third row of the output\r\n     fourth row of the output\r\n     fifth row\r\n     sixth row\r\n" +
			"     @relay:bob the last row\r\n\r\n" + rule(60) + "\r\n❯ \r\n" + rule(60) + "\r\n  esc to interrupt\x1b[2A\r\x1b[2C",
			"     fifth row\r\n     sixth row\r\n     @relay:bob the last row\r\n\r\n",
			[]string{"     @relay:bob the last row"}},
		{"carried on the top row", "\r\x1b[30A\x1b[5C… +2 lines (ctrl+o to expand)\x1b[K\r\n  ⎿  Interrupted\r\n\r\n! cat f.txt\r\n" +
			"     @relay:bob hello\r\n\r\n" + rule(60) + "\r\n❯ \r\n" + rule(60) + "\r\n  esc to interrupt\x1b[2A\r\x1b[2C",
			"     … +2 lines (ctrl+o to expand)\r\n  ⎿  Interrupted\r\n\r\n! cat f.txt\r\n  ⎿  @relay:bob hello\r\n\r\n",
			[]string{"  ⎿  @relay:bob hello"}},
		{"carried off the top", "\r\x1b[5A\x1b[5C@relay:bob hello from the file\r\n     @relay:bob this line was laid out for sixty columns\r\n" +
			"     row 1\r\n     row 2\r\n     row 3\r\n     row 4\r\n     row 5\r\n     row 6\r\n     row 7\r\n     row 8\r\n" +
			"     row 9\r\n     row 10\r\n     @relay:bob row 11\x1b[2A\r\x1b[2C",
			"     row 10\r\n     @relay:bob row 11\r\n\r\n",
			[]string{"     @relay:bob row 11"}},
		// Ink (Gemini CLI) erases the rows of its last frame going up and
		// writes its rows whole: those the terminal wrapped are its text.
		{"whole rows", strings.Repeat("\x1b[2K\x1b[1A", 5) + "\x1b[2K\r! cat f.txt\r\n  ⎿  @relay:bob hello from the file\r\n\r\n" +
			rule(60) + "\r\n❯ \r\n" + rule(60) + "\r\n  esc to interrupt\x1b[2A\r\x1b[2C",
			"", []string{"  ⎿  @relay:bob hello from the file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of("claude")})
			defer s.Close()
			c := &committed{t: t, s: s, take: s.TakeLines}
			c.write(history + "! cat f.txt\r\n  ⎿  Running…\r\n\r\n" + box(60))
			c.add(s.Settle())
			c.got = nil
			s.Resize(12, 40)
			c.add(s.TakeLines())
			c.write(tc.old)
			c.write("\x1b[2B" + erase + tc.redrawn + box(40))
			c.add(s.Settle())
			// The relay lines read: the rows around them drawn anew
			// (blanks, rules, the echo) are no matter here.
			got := slices.DeleteFunc(c.got, func(l string) bool { return !strings.Contains(l, "@relay") })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnOldWidthFrameIsLetGoOnlyForAProgramThatDrawsItAgain: the frame of
// TestARedrawLaidOutForTheOldWidthIsNotRead (the cells that changed, text
// past the new edge, the cursor moved right over text kept) is let go
// counting on the program to draw it again once it takes the resize in.
// Claude Code inline does: it erases the screen and draws its whole last
// frame from the top row, scrolling (claude-inline-s6900006 after its
// resize to 57x15: 23 rows), and a relay line the old frame scrolled off
// is read from that redraw. A program not known to (no layout, Gemini CLI,
// Codex inline) may never draw again: the relay line its frame shows,
// left on the screen or scrolled off, is its text and is read (issue 29;
// the reviewer's s12 probe: the scrolled-off line was lost for them).
func TestAnOldWidthFrameIsLetGoOnlyForAProgramThatDrawsItAgain(t *testing.T) {
	t.Parallel()
	rule := func(w int) string { return strings.Repeat("─", w) }
	box := func(w int) string { return rule(w) + "\r\n❯ \r\n" + rule(w) + "\r\n  ? for shortcuts" }
	history := "! cat a.txt\r\n  ⎿  first line\r\n     @relay:bob soft represent clean thousand words here\r\n  ⎿  Interrupted\r\n\r\n"
	output := "     second row of the output\r\n     third row of the output\r\n     fourth row of the output\r\n" +
		"     fifth row\r\n     sixth row\r\n     seventh row\r\n\r\n"
	// Drawn for 60 columns on the screen laid out for 40, up to the
	// "Running…" row as the program last drew it: the relay line left on
	// the screen, or scrolled off as the frame draws on.
	left := "\r\x1b[5A\x1b[5C@relay:bob hello from the file\x1b[K\r\n\r\n" + rule(60) + "\r\n❯ \r\n" + rule(60) +
		"\r\n  esc to interrupt\x1b[2A\r\x1b[2C"
	scrolled := "\r\x1b[5A\x1b[5C@relay:bob hello from the file\x1b[K\r\n" + output +
		rule(60) + "\r\n❯ \r\n" + rule(60) + "\r\n  esc to interrupt\x1b[2A\r\x1b[2C"
	erase := "\x1b[2B\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 11) + "\x1b[2K\x1b[H"
	redrawn := erase + "! cat f.txt\r\n  ⎿  @relay:bob hello from the file\r\n" + output + box(40)
	for _, tc := range []struct {
		name, layout, old, redrawn string
	}{
		{"claude redrawn, scrolled off", "claude", scrolled, redrawn},
		{"no layout, left", "", left, ""},
		{"no layout, scrolled off", "", scrolled, ""},
		{"gemini, scrolled off", "gemini", scrolled, ""},
		{"codex, scrolled off", "codex", scrolled, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of(tc.layout)})
			defer s.Close()
			c := &committed{t: t, s: s, take: s.TakeLines}
			c.write(history + "! cat f.txt\r\n  ⎿  Running…\r\n\r\n" + box(60))
			c.add(s.Settle())
			c.got = nil
			s.Resize(12, 40)
			c.add(s.TakeLines())
			c.write(tc.old)
			c.write(tc.redrawn)
			c.add(s.Settle())
			c.add(s.Flush())
			got := slices.DeleteFunc(c.got, func(l string) bool { return !strings.Contains(l, "@relay") })
			if len(got) != 1 || !strings.Contains(got[0], "@relay:bob hello from the file") {
				t.Errorf("relay lines read %q, want the one shown once; committed:\n%s", got, strings.Join(c.got, "\n"))
			}
		})
	}
}

// TestANewBlockUnderTheLatestEchoAfterAResize: after a change of width,
// Claude Code inline erases its screen and draws its transcript anew, an
// older block shown collapsed (its "type" row, "}" and "[[/RELAY]]" not
// shown), then the echo of the command typed last and, under it, that
// command's output, new: a block whose "type", "}" and "[[/RELAY]]" rows
// are those of the older block. Under the latest echo, a row right after
// a new one is more of that command's output, not an older block's row
// the replay did not see yet, also after a resize (issue 29:
// claude-inline-s6300036 lost a block's "type" and end rows, "unterminated
// relay block").
func TestANewBlockUnderTheLatestEchoAfterAResize(t *testing.T) {
	t.Parallel()
	block := func(to, body string) string {
		return "     [[RELAY]]\r\n     {\r\n       \"to\": \"" + to + "\",\r\n       \"type\": \"message\",\r\n" +
			"       \"body\": \"" + body + "\"\r\n     }\r\n     [[/RELAY]]\r\n"
	}
	box := func(w int) string {
		return strings.Repeat("─", w) + "\r\n❯ \r\n" + strings.Repeat("─", w) + "\r\n  ? for shortcuts\x1b[2A\r\x1b[2C"
	}
	s := NewScreen(ScreenOptions{Rows: 30, Cols: 60, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.TakeLines}
	c.write("! cat a.txt\r\n  ⎿  the first row of the file\r\n" + block("bob", "an older block") + "  ⎿  Interrupted\r\n\r\n" +
		"! sh b.sh\r\n  ⎿  Running…\r\n\r\n" + box(60))
	c.add(s.Settle())
	c.got = nil
	s.Resize(30, 50)
	c.add(s.TakeLines())
	c.write("\x1b[2J\x1b[3J\x1b[H! cat a.txt\r\n  ⎿  the first row of the file\r\n     [[RELAY]]\r\n     {\r\n" +
		"     … +5 lines (ctrl+o to expand)\r\n  ⎿  Interrupted\r\n\r\n! sh b.sh\r\n  ⎿  a new row of output\r\n" +
		block("alice", "a new block") + "  ⎿  Interrupted\r\n\r\n" + box(50))
	c.add(s.Settle())
	want := []string{"  ⎿  a new row of output", "     [[RELAY]]", "     {", "       \"to\": \"alice\",", "       \"type\": \"message\",",
		"       \"body\": \"a new block\"", "     }", "     [[/RELAY]]", "  ⎿  Interrupted"}
	got := slices.DeleteFunc(c.got, func(l string) bool { return l == "" || strings.Contains(l, "+5 lines") || strings.Trim(l, "─") == "" })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestARowWhereALineStoodBeforeARedrawIsNew: a line the program draws
// again as history after its row was erased (a replay) is found where
// the redraw puts it; new output that later lands on the row where it
// stood before the redraw, showing the same text, is new, not that line
// moved back (issue 29: Claude Code 2.1.332 inline redraws its view after
// a resize, each line some rows from where the terminal's rewrap had put
// it, then collapses an output and prints a new block whose "to" and
// "type" rows land where the older block's stood: they were not read, and
// the block was missing "to").
func TestARowWhereALineStoodBeforeARedrawIsNew(t *testing.T) {
	t.Parallel()
	block := func(gutter, body string) []string {
		return []string{gutter + "[[RELAY]]", "     {", `       "to": "bob",`, `       "type": "message",`,
			`       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	rows := func(lines ...[]string) string {
		return strings.Join(slices.Concat(lines...), "\r\n") + "\r\n"
	}
	box := strings.Repeat("─", 60) + "\r\n❯ \r\n" + strings.Repeat("─", 60) + "\r\n  ? for shortcuts\x1b[2A\r\x1b[2C"
	history := []string{"  filler line zero", "  ⎿  Interrupted", "", "  filler line three", "  filler line four",
		"  filler line five", "  filler line six", "  filler line seven"}
	transcript := rows([]string{"! cat b.txt", "  ⎿  the first row of the file"}, block("     ", "an older block"), []string{"  ⎿  Interrupted", ""})
	s := NewScreen(ScreenOptions{Rows: 20, Cols: 60, Layout: screenmodel.Of("claude")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	// 23 rows: the first three scroll off; the older block's "type" row
	// is row 10.
	c.write(rows(history) + transcript + box)
	// Every row erased, and the transcript drawn again from three rows
	// further up: its first row moves up from row 14 (an "Interrupted"
	// alike), each row under it three rows down, "type" to row 13.
	c.write("\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 20) + "\x1b[H" + rows(history) + transcript)
	c.got = nil
	// The older output collapsed under its echo, a new command's drawn
	// under it: the new block's "type" row is row 10.
	c.write("\x1b[3;1H\x1b[2K! cat b.txt\r\n\x1b[2K     … +8 lines (ctrl+o to expand)\r\n\x1b[2K  ⎿  Interrupted\r\n\x1b[2K\r\n" +
		"\x1b[2K! sh c.sh\r\n" + strings.ReplaceAll(rows(block("  ⎿  ", "a new block")), "\r\n", "\x1b[K\r\n") +
		"\x1b[J\r\n" + box)
	got := c.flush()
	want := block("  ⎿  ", "a new block")
	if i := slices.Index(got, want[0]); i < 0 || len(got) < i+len(want) || !slices.Equal(got[i:i+len(want)], want) {
		t.Errorf("the new block's rows not all read: want\n%s\nin\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// TestRowsUnderAnEchoCutAboveAreItsOutput: Claude Code 2.1.332 inline
// draws a command's live area that grew taller than the screen from the
// screen's top, over the rows there, the echo of the command cut above
// (issue 29: a file printed again, its rows drawn a few rows lower than
// where the first print's stood, the new echo's row overwritten). The
// rows under that echo are the command's output, not the first print's
// rows moved down past it: lines drawn again keep their order, and the
// echo, under them, would show lower still. The command's own rows do
// move down as the area shrinks, and are not read again.
func TestRowsUnderAnEchoCutAboveAreItsOutput(t *testing.T) {
	t.Parallel()
	box := []string{strings.Repeat("─", 60), "❯ ", strings.Repeat("─", 60), "  ? for shortcuts"}
	// draw draws rows from the screen's top, as Claude Code draws a live
	// area cut above, and leaves the cursor in its input box.
	draw := func(rows ...[]string) string {
		return "\x1b[H" + strings.Join(slices.Concat(rows...), "\x1b[K\r\n") + "\x1b[K\x1b[J\x1b[3A\r\x1b[2C"
	}
	file := []string{"     first row of the file", "     second row of the file", "     @relay:bob the relay in the file",
		"     fourth row of the file"}
	t.Run("a file printed again", func(t *testing.T) {
		t.Parallel()
		s := NewScreen(ScreenOptions{Rows: 14, Cols: 60, Layout: screenmodel.Of("claude")})
		defer s.Close()
		c := &committed{t: t, s: s, take: s.Settle}
		c.write(draw([]string{"! cat a.txt"}, file, []string{"  ⎿  Interrupted", "", "! cat b.txt", "  ⎿  Running…", ""}, box))
		c.got = nil
		// b.txt is four rows and a.txt: the relay's row is three rows
		// lower than a.txt's was, the echo's row shows the file's last.
		c.write(draw([]string{"     extra row two", "     extra row three", "     extra row four", "     extra row five"}, file, []string{""}, box))
		got := c.flush()
		if !slices.Contains(got, file[2]) {
			t.Errorf("the relay printed again not read; all lines:\n%s", strings.Join(got, "\n"))
		}
	})
	t.Run("the area shrinks", func(t *testing.T) {
		t.Parallel()
		s := NewScreen(ScreenOptions{Rows: 12, Cols: 60, Layout: screenmodel.Of("claude")})
		defer s.Close()
		c := &committed{t: t, s: s, take: s.Settle}
		c.write(draw([]string{"  history zero", "  history one", "  history two", "  history three", "! cat a.txt", "  ⎿  Running…", ""}, box))
		c.write(draw(file, []string{"", "✻ Working… (3s)", "  ⎿  Tip: something to read", ""}, box))
		c.got = nil
		// Done: the spinner rows gone, the area's last rows drawn from
		// the top again, the file's rows three rows lower.
		c.write(draw([]string{"     a row before the file", "     another row before it", "     the third row before it"}, file, []string{""}, box))
		if got := c.flush(); slices.Contains(got, file[2]) {
			t.Errorf("the relay read again as the area shrank; lines committed then:\n%s", strings.Join(got, "\n"))
		}
	})
}
