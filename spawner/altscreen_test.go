package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"swarm/screenmodel"
)

// A row of the alternate screen that a resize cuts, and that the program
// does not draw again, is not new text: the relay line on it is committed
// once and whole, not a second time cut short. (A UI attaching to a swarm
// resizes its agents.) What the program then draws on the row is new.
func TestARowAResizeCutIsNotNewText(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 40, Scrollback: 100})
	defer s.Close()
	_, _ = s.Write([]byte("\x1b[?1049h\x1b[H@relay:bob please review auth.go"))
	s.Resize(6, 20)
	s.Resize(6, 40)
	_, _ = s.Write([]byte("\x1b[3;1Hdrawn after the resize"))
	var got []string
	for _, l := range append(s.TakeLines(), s.Flush()...) {
		if t := strings.TrimSpace(l.Text); t != "" {
			got = append(got, t)
		}
	}
	want := []string{"@relay:bob please review auth.go", "drawn after the resize"}
	if !slices.Equal(got, want) {
		t.Errorf("committed %q, want %q", got, want)
	}
}

// A row the terminal keeps through a resize, until the program draws it
// again, is the row the program laid out for the old width: its side
// panel is where the old width put it, not its text, and it wraps where
// the old width wrapped it (Line.Cols). opencode shows a panel in the
// last 42 columns of a screen wider than 120.
func TestARowKeptThroughAResizeIsReadAsDrawn(t *testing.T) {
	r := newKindRun(t, "opencode", 10, 135)
	var lines []Line
	write := func(b string) {
		if _, err := r.s.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, r.s.TakeLines()...)
	}
	// The transcript's text in the first 93 columns, the panel at 94.
	text := "  ┃  @relay:bob the first row of a command that the program wrapped"
	write("\x1b[?1049h\x1b[?25l\x1b[2;1H" + text + "\x1b[2;95H$0.00 spent\x1b[3;1H  ┃  and its second row\x1b[10;1H")
	r.s.Resize(10, 163)
	lines = append(lines, r.s.TakeLines()...)
	// The program starts its frame for the new width, then erases the
	// view before drawing something else.
	write("\x1b[H")
	write("\x1b[2J\x1b[5;1H  ┃  drawn for the new width\x1b[10;1H")
	r.now = r.now.Add(time.Second)
	lines = append(lines, r.s.Settle()...)
	lines = append(lines, r.s.Flush()...)
	found := false
	for _, l := range lines {
		if strings.Contains(l.Text, "$0.00") {
			t.Errorf("committed the side panel as text: %q", l.Text)
		}
		if strings.TrimRight(l.Text, " ") == text {
			found = true
			if l.Cols != 135 {
				t.Errorf("%q committed as laid out for %d columns, want 135", l.Text, l.Cols)
			}
		}
	}
	if !found {
		var got []string
		for _, l := range lines {
			got = append(got, l.Text)
		}
		t.Errorf("the row is not committed as drawn; lines:\n%s", strings.Join(got, "\n"))
	}
}

// opencodeFrame draws rows as opencode's transcript on a screen 12 rows
// high, with its input box under it, the cursor in the box.
func opencodeFrame(rows ...string) string {
	return drawRows(9, rows) + "\x1b[10;1H  ┃\x1b[K\x1b[11;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[10;6H"
}

// A line typed while the program works waits under its transcript until
// the program takes it up (opencode shows "$ command" there, with no
// gutter): it is typed input, not output, and it is no row of the
// transcript either, which shows the command where it runs (issue 29: the
// echo of a command typed ahead was read as a row after the output
// running, and the output of the command, once it ran, was put after it).
func TestALineTypedAheadIsNotOutput(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	frame := opencodeFrame
	r.write("\x1b[?1049h")
	for _, rows := range [][]string{
		{"  ┃  $ sh f1.sh", "  ┃  working on it", "", "     $ cat f2.txt", "       continued", "", "     ▣  Build"},
		{"  ┃  $ sh f1.sh", "  ┃  working on it", "  ┃  done", "", "  ┃  $ cat f2.txt", "  ┃  @relay:bob the file", "", "     ▣  Build"},
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	for _, l := range r.lines {
		if strings.HasPrefix(l, "     $") || strings.Contains(l, "continued") {
			t.Errorf("committed the line typed ahead as output: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
	if n := r.count("$ cat f2.txt"); n != 1 {
		t.Errorf("the command's echo committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// A row the program draws again after a resize is its text for the new
// width, even when it is exactly what the resize left of the old row (its
// first words fill the narrower row): the line it wraps onto the next row
// is that line wrapped anew, not new text (issue 29: Codex's first row of
// an output, redrawn for a narrower screen, was taken for the leftover and
// the rest of the line read again).
func TestARowDrawnAgainAfterAResizeIsRead(t *testing.T) {
	r := newAltRun(t, 8, 30)
	// A title row above the text and a bar of the program's own under it,
	// both fitting either width.
	r.write("\x1b[1;1Hthe title row\x1b[2;1Hshort head and then more words\x1b[4;1Hthe bottom row of the view\x1b[8;1Ha bar of its own")
	r.pause(time.Second)
	r.s.Resize(8, 20)
	r.take(r.s.TakeLines())
	r.write("\x1b[1;1Hthe title row\x1b[K\x1b[2;1Hshort head and then\x1b[K\x1b[3;1Hmore words\x1b[K" +
		"\x1b[4;1Hthe bottom row of\x1b[K\x1b[5;1Hthe view\x1b[K\x1b[8;1Ha bar of its own")
	r.pause(time.Second)
	r.flush()
	want := []string{"the title row", "short head and then more words", "the bottom row of the view", "a bar of its own"}
	if !slices.Equal(r.lines, want) {
		t.Errorf("committed %q, want %q", r.lines, want)
	}
}

// A frame a program draws after the screen got narrower but before it has
// taken in the new width is laid out for the old width: its rows run past
// the right edge and the terminal wraps them. Those rows are not the
// program's text; the frame it draws for the new width is (issue 29:
// opencode draws one such frame after a resize, and the rows the side
// panel's column cut there were committed as relay lines cut short).
func TestAFrameDrawnForTheOldWidthIsNotRead(t *testing.T) {
	r := newAltRun(t, 8, 60)
	frame := func(rows string) string { return "\x1b[?2026h" + rows + "\x1b[?2026l" }
	r.write(frame(drawRows(8, []string{"the title row"})))
	r.pause(time.Second)
	r.s.Resize(8, 40)
	r.take(r.s.TakeLines())
	// Every row painted out to the old right edge, as a full-screen
	// program paints its rows.
	var old strings.Builder
	for y, row := range []string{"the title row", "@relay:bob one two three four five six seven eight nine", "", "a bar of its own"} {
		fmt.Fprintf(&old, "\x1b[%d;1H%-60s", y+1, row)
	}
	r.write(frame(old.String()))
	r.write(frame(drawRows(8, []string{"the title row", "@relay:bob one two three four five six", "seven eight nine", "", "a bar of its own"})))
	r.pause(time.Second)
	r.flush()
	want := []string{"the title row", "@relay:bob one two three four five six", "seven eight nine", "a bar of its own"}
	if !slices.Equal(r.lines, want) {
		t.Errorf("committed %q, want %q", r.lines, want)
	}
}

// A program that paints its rows out to the right edge (opencode) and,
// after the screen got wider, paints them only as far as the old width
// has not taken the resize in yet: the rows of that frame are laid out,
// and wrapped, for the old width (Line.Cols), as the program wrapped them
// (issue 29: opencode printed a command's output for the old width, and
// the relay line it wrapped there was read as ending at the wrap).
func TestAFramePaintedForTheOldWidthIsLaidOutForIt(t *testing.T) {
	r := newKindRun(t, "opencode", 8, 40)
	paint := func(width int, rows ...string) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h")
		for y := range 8 {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%-*s", y+1, width, row)
		}
		b.WriteString("\x1b[8;1H\x1b[?2026l")
		return b.String()
	}
	var lines []Line
	write := func(b string) {
		if _, err := r.s.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, r.s.TakeLines()...)
	}
	write("\x1b[?1049h\x1b[?25l" + paint(40, "the title row"))
	r.now = r.now.Add(time.Second)
	lines = append(lines, r.s.Settle()...)
	r.s.Resize(8, 60)
	lines = append(lines, r.s.TakeLines()...)
	const relay = "@relay:bob one two three four five six"
	write(paint(40, "the title row", relay, "seven eight nine"))
	r.now = r.now.Add(time.Second)
	lines = append(lines, r.s.Settle()...)
	lines = append(lines, r.s.Flush()...)
	for _, l := range lines {
		if l.Text == relay {
			if l.Cols != 40 {
				t.Errorf("%q committed as laid out for %d columns, want 40", l.Text, l.Cols)
			}
			return
		}
	}
	t.Errorf("%q not committed; lines: %v", relay, lines)
}

// A view scrolled back (PageUp), or grown taller above what it showed,
// shows the rows it showed moved down and history above them: the echo of
// the line typed before them there is an old turn, not a new one, and the
// rows under it are the ones read already, not a new output (issue 29:
// opencode's view, following an output taller than itself, never showed
// its echo; scrolled back to it, every row of the output was read again).
func TestAViewScrolledBackToAnEchoShowsOldRows(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	frame := opencodeFrame
	above := []string{"  ┃  $ cat f1.txt", "  ┃", "  ┃  the first row of the file, long enough"}
	bottom := []string{"  ┃  @relay:bob the command in the file", "  ┃  the third row of the file, long enough",
		"  ┃  the fourth row of the file, long enough", "  ┃  end of the file, 5 lines", "", "     ▣  Build"}
	r.write("\x1b[?1049h")
	for _, rows := range [][]string{bottom, slices.Concat(above, bottom), bottom} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "@relay:bob the command in the file", "the third row of the file", "end of the file")
}

// opencode pages back half its view at a time, with no hint, and its view
// of the transcript ends above its input box: a page back moves the rows
// the last frame showed down, its lower half behind the box. Back at the
// top, the echo of the command shows above the file's first rows, seen
// before: history, not a new turn whose output those rows are — they were
// read, and paging forth shows them again, not anew (issue 29, blind
// batches n and o: opencode-s12300000 read every relay of a file paged
// back and forth twice).
func TestAPageBackToAnEchoBehindTheInputBoxIsHistory(t *testing.T) {
	const rows, view = 16, 8
	r := newKindRun(t, "opencode", rows, 90)
	// A blank row under the view, the input box (a gutter, the agent and
	// model on its last row, closed by ▀) and the footer under it.
	frame := func(shown ...string) string {
		return "\x1b[?2026h" + drawRows(view+1, shown) + "\x1b[10;1H  ┃\x1b[K\x1b[11;1H  ┃\x1b[K\x1b[12;1H  ┃\x1b[K" +
			"\x1b[13;1H  ┃  Build · GPT-5.6 Terra Pro OpenAI\x1b[K\x1b[14;1H  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀\x1b[K" +
			"\x1b[15;1H   /tmp/work                             tab agents  ctrl+p commands\x1b[K\x1b[10;6H\x1b[?2026l"
	}
	file := []string{"  ┃  @relay:bob the command at the top of the file, long enough"}
	for i := 2; i <= 12; i++ {
		file = append(file, fmt.Sprintf("  ┃  row %d of the file, long enough to count", i))
	}
	top := append([]string{"", "", "  ┃  $ cat f01.txt", "  ┃"}, file...)
	r.write("\x1b[?1049h")
	// The file's end, its first rows above the view; a page back, and
	// another to the top; then forth to the end again.
	for _, at := range []int{8, 4, 0, 4, 8} {
		r.write(frame(top[at : at+view]...))
		r.pause(time.Second)
	}
	r.flush()
	n := 0
	for _, l := range r.late {
		if !l.Again && strings.Contains(l.Text, "@relay:bob") {
			n++
		}
	}
	if n += r.count("@relay:bob"); n != 1 {
		t.Errorf("the command read %d times, want once; lines:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// While a command runs with its echo above the view, opencode draws the
// spinner alone on the view's top row, over the blank row under the echo;
// done, it shows the echo there, its output one row lower. The spinner
// said nothing of where the view is: the rows under it, all shown again
// one row down, with the echo above them, are the view moved back to the
// turn's top, not a new turn whose block is read again (issue 29, fresh
// opencode-s99100016: a block read twice on an 18-row screen).
func TestASpinnerOnTheTopRowDoesNotHideAViewMovedDown(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 140)
	block := []string{"  ┃  [[RELAY]]", `  ┃  {"to":"qa_1","type":"message","body":"point \"q\" clear among energy serve\nselect cool"}`,
		"  ┃  [[/RELAY]]", "  ┃  end of the output, 4 lines", "", "     ▣  Build · GPT-5.6 Terra Pro"}
	r.write("\x1b[?1049h")
	for _, rows := range [][]string{
		append([]string{"  ┃  ⠋"}, block...),
		append([]string{"  ┃  ⠙"}, block...),
		append([]string{"  ┃  $ cat f01.txt", "  ┃"}, block...),
	} {
		r.write(opencodeFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "[[RELAY]]", `"to":"qa_1"`, "[[/RELAY]]")
}

// While a command runs, opencode shows its echo with a spinner in place of
// the "$" and the output under it; the echo shows "$" again once the
// command is done. The spinner's row is that echo all the same: typed
// input, one row of the transcript above the output. Taken for a new row
// at each turn of the spinner, it was committed at every pause, below the
// output already read, and split a relay block there (issue 29:
// "malformed relay block: invalid character 'â'", the gutter of the
// spinner's row read inside the block's JSON).
func TestARunningCommandsSpinnerIsItsEcho(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	block := []string{"  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"hi"}`, "  ┃  [[/RELAY]]"}
	for i, mark := range []string{"⠙", "⠹", "⠸", "$"} {
		rows := []string{"  ┃  earlier output", "", "  ┃  " + mark + " sh f1.sh", "  ┃"}
		rows = append(rows, block[:min(i+2, 3)]...)
		r.write(opencodeFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	for _, l := range r.lines {
		if strings.Contains(l, "sh f1.sh") && !strings.Contains(l, "$ sh f1.sh") {
			t.Errorf("committed the running command's spinner row: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
	r.wantOnce(t, "earlier output", "$ sh f1.sh", "[[RELAY]]", "[[/RELAY]]")
	if got := strings.Join(r.lines, "\n"); !strings.Contains(got, "$ sh f1.sh\n"+strings.Join(block, "\n")) {
		t.Errorf("the echo and the block under it are not read in their order:\n%s", got)
	}
}

// While the echo of the command at work is above the view, opencode draws
// its spinner over the view's top row, where the echo's mark would be: the
// row under it, hidden in part, is neither a new row at each turn of the
// spinner nor the echo of a command.
func TestASpinnerOverTheTopRowIsNotText(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	r.write(opencodeFrame(`  ┃    "topic": "t90"`, "  ┃  }", "  ┃  [[/RELAY]]"))
	r.pause(time.Second)
	for _, mark := range []string{"⠙", "⠹", "⠸"} {
		r.write(opencodeFrame(`  ┃  `+mark+` "topic": "t90"`, "  ┃  }", "  ┃  [[/RELAY]]"))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, `"topic": "t90"`)
	for _, l := range r.lines {
		if strings.Contains(l, `$ "topic"`) {
			t.Errorf("the row under the spinner taken for an echo: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
}

// opencode draws its own rows under its transcript: "▣  Build · model"
// under the answer at work, then its input box (a gutter, blank rows
// included, closed by a row of ▀) and a footer. The output grows above
// them. Committed once they stood still, they were read inside a relay
// block whose end came a frame later (issue 29: "malformed relay block:
// invalid character 'â'", the ▣ or the box's gutter read in the JSON).
// Where they are still tells where the transcript ends.
func TestOpencodesOwnRowsUnderItsTranscriptAreNotRead(t *testing.T) {
	r := newKindRun(t, "opencode", 14, 80)
	r.write("\x1b[?1049h")
	own := []string{"     ▣  Build · Model", "", "  ┃", "  ┃  Build · Model Provider", "  ╹▀▀▀▀▀▀▀▀", "   ~/work    tab agents"}
	block := []string{"  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"hi"}`, "  ┃  [[/RELAY]]"}
	for _, n := range []int{2, 3} {
		rows := append([]string{"  ┃  $ sh f1.sh", "  ┃"}, block[:n]...)
		rows = append(rows, "")
		for len(rows) < 8 {
			rows = append(rows, "")
		}
		// In one synchronized update, the cursor left in the box.
		r.write("\x1b[?2026h" + drawRows(14, append(rows, own...)) + "\x1b[11;6H\x1b[?2026l")
		r.pause(time.Second)
	}
	r.flush()
	got := strings.Join(r.lines, "\n")
	for _, l := range r.lines {
		if strings.Contains(l, "Build ·") || strings.Contains(l, "tab agents") {
			t.Errorf("read opencode's own row %q; lines:\n%s", l, got)
		}
	}
	r.wantOnce(t, "[[RELAY]]", "[[/RELAY]]")
	if !strings.Contains(got, strings.Join(block, "\n")) {
		t.Errorf("the block is not read in its order:\n%s", got)
	}
}

// opencode closes every output it shows collapsed with the same hint,
// "Click to expand". Shown where the hint of an output read before was, it
// was taken for that row and not read, so the reader never learnt that
// the new output was cut: a relay block in it, its end not shown, was
// reported unterminated (issue 29). The hint under other rows than when
// it was read is read again. (The rows above it, shown with it as the
// view moved on, are still taken for new rows above the older hint: that
// match is left as it is.)
func TestAnExpandHintUnderAnotherOutputIsReadAgain(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	r.write(opencodeFrame("  ┃  $ cat a.txt", "  ┃", "  ┃  the first output, long enough to tell", "  ┃  …", "  ┃", "  ┃  Click to expand", "", "  ┃  $ cat b.txt", "  ┃  [[RELAY]]"))
	r.pause(time.Second)
	// The second output grows and is collapsed; its echo is above the view.
	r.write(opencodeFrame("  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"a body cut sh…`, "  ┃", "  ┃  Click to expand"))
	r.pause(time.Second)
	r.flush()
	if n := r.count("Click to expand"); n != 2 {
		t.Errorf("the hint committed %d times, want once under each output:\n%s", n, strings.Join(r.lines, "\n"))
	}
	// Read after the second output's echo: the reader takes the output
	// under that echo as collapsed.
	if got := strings.Join(r.lines, "\n"); strings.LastIndex(got, "Click to expand") < strings.Index(got, "$ cat b.txt") {
		t.Errorf("the second output's hint is not read under its echo:\n%s", got)
	}
}

// An output in the gutter whose last row is right above the input box
// (the view full) is read: the box is the input box's rows, not the
// output's.
func TestAnOutputRightAboveTheInputBoxIsRead(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	rows := []string{"  ┃  $ cat f.txt", "  ┃  a", "  ┃  b", "  ┃  c", "  ┃  d", "  ┃  e", "  ┃  f", "  ┃  g", "  ┃  @relay:bob the file"}
	for range 2 {
		r.write(opencodeFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "@relay:bob the file")
}

// The view scrolls on while a relay block prints under an older output
// shown collapsed: that output's long row leaves the view's top, and its
// "Click to expand" hint reaches the top. It is the same hint, read once;
// read again, it landed inside the block printing under it and the relay
// was lost as malformed.
func TestAnExpandHintWhoseAnchorLeftTheViewIsNotReadAgain(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	frames := [][]string{
		{"  ┃  $ cat a.txt", "  ┃", "  ┃  the first output, long enough to tell", "  ┃  …", "  ┃", "  ┃  Click to expand", "", "  ┃  $ cat b.txt", "  ┃  [[RELAY]]"},
		{"  ┃  the first output, long enough to tell", "  ┃  …", "  ┃", "  ┃  Click to expand", "", "  ┃  $ cat b.txt", "  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message",`, `  ┃  "body":"hi"}`},
		{"  ┃  …", "  ┃", "  ┃  Click to expand", "", "  ┃  $ cat b.txt", "  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message",`, `  ┃  "body":"hi"}`, "  ┃  [[/RELAY]]"},
	}
	for _, f := range frames {
		r.write(opencodeFrame(f...))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("Click to expand"); n != 1 {
		t.Errorf("the hint committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
	block := strings.Join([]string{"  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message",`, `  ┃  "body":"hi"}`, "  ┃  [[/RELAY]]"}, "\n")
	if got := strings.Join(r.lines, "\n"); !strings.Contains(got, block) {
		t.Errorf("the block is not read whole, in its order:\n%s", got)
	}
}

// A row of output in opencode's gutter may start with a braille
// character (a file printed, a log of a tool's spinner): it stands still
// and is no echo of a command at work. It is read as shown, not rewritten
// to "$ …" and taken for a command the agent typed (the relay in it was
// lost inside a turn of its own).
func TestBrailleOutputInTheGutterIsText(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	for range 2 {
		r.write(opencodeFrame("  ┃  $ cat log.txt", "  ┃", "  ┃  ⠋ @relay:bob hi", "  ┃  done"))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "⠋ @relay:bob hi")
	for _, l := range r.lines {
		if strings.Contains(l, "$ @relay:bob") {
			t.Errorf("the output rewritten as an echo: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
}

// A view too short for an output opencode shows collapsed shows only its
// last rows and the hint under them ("Click to expand"); once the screen
// grows, the view shows the output's first rows above that hint. Read only
// now, after the hint, the hint is read again under them: it tells the
// reader that the block those rows open was cut by the program, not left
// open by the agent (an unterminated block was reported). Here the row
// the output's first rows show above was under the spinner, never shown
// whole: they are history, as rows shown above the first row read from the
// view's top are, and not read at all; no block is left open either way.
func TestAnExpandHintReadBeforeTheOutputAboveItIsReadAgainUnderIt(t *testing.T) {
	r := newKindRun(t, "opencode", 8, 100)
	r.write("\x1b[?1049h")
	box := func(n int) string {
		return fmt.Sprintf("\x1b[%d;1H  ┃\x1b[K\x1b[%d;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[%d;6H", n+1, n+2, n+1)
	}
	r.write(drawRows(5, []string{`  ┃  ⠋ "topic": "t90"`, "  ┃  }", "  ┃  …", "  ┃", "  ┃  Click to expand"}) + box(5))
	r.pause(time.Second)
	r.write(drawRows(5, []string{`  ┃    "topic": "t90"`, "  ┃  }", "  ┃  …", "  ┃", "  ┃  Click to expand"}) + box(5))
	r.pause(time.Second)
	r.write(drawRows(5, []string{"  ┃  Click to expand", "", "  ┃  $ cat b.txt", "  ┃", "  ┃  @relay:bob the next output"}) + box(5))
	r.pause(time.Second)
	r.s.Resize(18, 80)
	r.take(r.s.TakeLines())
	r.write(drawRows(16, []string{
		"  ┃  $ cat a.txt", "  ┃", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`, `  ┃    "type": "message",`,
		`  ┃    "body": "a body long enough to show it whole",`, `  ┃    "topic": "t90"`, "  ┃  }", "  ┃  …", "  ┃", "  ┃  Click to expand",
		"", "  ┃  $ cat b.txt", "  ┃", "  ┃  @relay:bob the next output",
	}) + box(16))
	r.pause(time.Second)
	r.flush()
	last, body := -1, -1
	for i, l := range r.lines {
		if strings.Contains(l, "Click to expand") {
			last = i
		}
		if strings.Contains(l, `"body": "a body`) {
			body = i
		}
	}
	if body >= 0 && last < body {
		t.Errorf("the hint is not read under the output's rows read after it (hint at %d, body at %d):\n%s", last, body, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "@relay:bob the next output")
}

// A file printed again long after a resize shows the rows it showed the
// first time, under a turn of its own: they are new output, read again,
// though the document's rows of the first print were not shown since the
// resize. Only while the program lays its view out anew for the new size
// is an echo above rows not shown since history the view shows again.
func TestAFilePrintedAgainLongAfterAResizeIsReadAgain(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	out := []string{"  ┃  @relay:bob the same words twice over", "  ┃  and a second row that comes with it"}
	first := append([]string{"  ┃  $ cat one.txt", "  ┃"}, out...)
	r.write(opencodeFrame(append(first, "", "     ▣  Build")...))
	r.pause(time.Second)
	other := []string{"  ┃  $ cat two.txt", "  ┃", "  ┃  other output, one row of it", "  ┃  other output, two rows of it", "", "     ▣  Build"}
	r.write(opencodeFrame(other...))
	r.pause(time.Second)
	r.s.Resize(12, 90)
	r.take(r.s.TakeLines())
	// opencode lays its view out for the new width: it paints its rows
	// out to the new edge.
	laid := slices.Clone(other)
	laid[len(laid)-1] += strings.Repeat(" ", 90-ansi.StringWidth(laid[len(laid)-1]))
	r.write(opencodeFrame(laid...))
	r.pause(time.Second)
	r.pause(time.Second)
	again := append([]string{"  ┃  other output, two rows of it", "", "  ┃  $ cat three.txt", "  ┃"}, out...)
	r.write(opencodeFrame(append(again, "", "     ▣  Build")...))
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "other output, two rows of it")
	if n := r.count("@relay:bob the same words twice over"); n != 2 {
		t.Errorf("the line printed twice is read %d times, want twice:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// A new output drawn over the view where an older one showed, the view
// moved on (the older output's rows all gone), may have its short rows on
// the very rows where the older one had the same text: its "[[RELAY]]"
// and "[[/RELAY]]". They are the new output's rows, new like the rows
// around them, not the older rows that stayed (issue 29: a block's end
// marker not read, its command lost).
func TestShortRowsOfANewOutputWhereAnOlderOnesShowedAreRead(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	for _, rows := range [][]string{
		{"• You ran cat f1.txt", "  └ [[RELAY]]", `    {"to":"bob","type":"message","body":"one"}`, "    [[/RELAY]]", "    end of the output, 3 lines"},
		{"    the last rows of the second file", "    [[RELAY]]", `    {"to":"bob","type":"message","body":"two"}`, "    [[/RELAY]]", "    end of the output, 40 lines", "", "─ Worked for 1s"},
	} {
		r.write(codexFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	for _, s := range []string{"[[RELAY]]", "[[/RELAY]]"} {
		if n := r.count(s); n != 2 {
			t.Errorf("%q committed %d times, want twice (each block's); lines:\n%s", s, n, strings.Join(r.lines, "\n"))
		}
	}
}

// A view that moves takes a block's rows along with the rows around them.
// A new block's "}" and "[[/RELAY]]", drawn a few rows under where the
// view showed an older block's, with the rows next to them showing other
// text than the older block's at that distance, are the new block's rows,
// not the older ones moved down together (issue 29: the new block read
// without its end, "malformed relay block", its command lost).
func TestShortRowsMovedWithoutTheirNeighboursAreNew(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	for _, rows := range [][]string{
		{`      "body": "the body of the first block, long",`, `      "topic": "t1"`, "    }", "    [[/RELAY]]", "    end of the output, 15 lines", "", "• Running cat f2.txt"},
		{"    the second output's first row, long enough", "    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`, `      "body": "the body of the second block, long",`, `      "topic": "t2"`, "    }", "    [[/RELAY]]"},
	} {
		r.write(codexFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	for _, s := range []string{"    }", "    [[/RELAY]]"} {
		if n := slices.Index(r.lines, s); n < 0 || slices.Index(r.lines[n+1:], s) < 0 {
			t.Errorf("%q committed %d times, want twice (each block's); lines:\n%s", s, r.count(s), strings.Join(r.lines, "\n"))
		}
	}
}

// A short relay line stays where it is while the only long rows in view
// (progress rows around it) change in place: the view did not move, and
// the short row is the same line, read once (found in review).
func TestAShortRowAmongRowsChangedInPlaceIsReadOnce(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	for k := range 4 {
		r.write(codexFrame(fmt.Sprintf("  └ downloading the first part: %d0%% done", k+1), "    @relay:al ok", fmt.Sprintf("    downloading the second part: %d0%% done", k+1)))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("@relay:al ok"); n != 1 {
		t.Errorf("committed %d times, want once; lines:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// A spinner's frame before each task's name changes the start of the long
// rows around a short row: changed in place too, the view stayed, the
// short row is the same line, read once (the review of 91f0d99: committed
// at each of four frames).
func TestAShortRowAmongSpinnerRowsIsReadOnce(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	for k := range 4 {
		spin := string([]rune("⠋⠙⠹⠸")[k])
		r.write(codexFrame("  └ "+spin+" fetching the first archive from the mirror", "    @relay:al ok", "    "+spin+" fetching the second archive from the mirror"))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("@relay:al ok"); n != 1 {
		t.Errorf("committed %d times, want once; lines:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// On a screen wider than 120 columns opencode shows a side panel beside
// its transcript (the session's title, its context, its cost), with text
// beside rows of the transcript. The input box is the rows around the
// cursor that show text in the program's own columns: the panel beside
// the transcript made every row of the view one of the box's, and nothing
// the transcript showed was read (issue 29: a file printed on a wide
// screen was lost).
func TestTheSidePanelIsNoRowOfTheInputBox(t *testing.T) {
	r := newKindRun(t, "opencode", 14, 135)
	r.write("\x1b[?1049h")
	panel := []string{"New session", "2026-11-27", "", "Context", "0 tokens", "0% used", "$0.00 spent", "LSP", "LSPs are disabled", "~/work", ""}
	rows := []string{"  ┃  $ cat f.txt", "  ┃", "  ┃  @relay:bob the file printed on a wide screen", "  ┃  and its last row", "  ┃", "", "     ▣  Build · Model", "", "  ┃", "  ┃", "  ┃  Build · Model Provider", "  ╹▀▀▀▀▀▀▀▀"}
	// One synchronized update, as opencode draws its frames.
	var b strings.Builder
	b.WriteString("\x1b[?2026h" + drawRows(len(rows), rows))
	for y, p := range panel {
		if p != "" {
			fmt.Fprintf(&b, "\x1b[%d;95H%s", y+1, p)
		}
	}
	b.WriteString("\x1b[10;6H\x1b[?2026l")
	for range 2 {
		r.write(b.String())
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "@relay:bob the file printed on a wide screen", "and its last row")
	for _, l := range r.lines {
		if strings.Contains(l, "spent") || strings.Contains(l, "Build ·") {
			t.Errorf("committed the program's own row %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
}

// opencode at work on a command (its status row shows "esc interrupt")
// follows the output down: a file printed again, taller than the view,
// shows its last rows there with its echo above the view, where the last
// frame showed the end of another output. Nothing the last frame showed is
// left, and a program takes its view back half a view at a time: the view
// moved on, and the rows, though those of the file's first print, are new
// (issue 29: the relay line printed again was taken for the first print's,
// scrolled back into view, and lost).
func TestAViewThatMovedOnPastAllItShowedShowsNewRows(t *testing.T) {
	r, show, file := opencodeFilePrintedAgain(t)
	show(false, append(file[1:], "", "     ▣  Build")...)
	r.flush()
	if n := r.count("@relay:bob the same words printed twice"); n != 2 {
		t.Errorf("the line printed twice is read %d times, want twice:\n%s", n, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "other output, five rows of it")
}

// A view too short for an output opencode shows collapsed showed only its
// hint ("Click to expand") above the next command, whose block was
// printing; the screen grows mid-block, and the view shows the collapsed
// output's echo and first rows above the hint for the first time. They
// are history, above the echo of a turn read already whose output is
// still going on (opencode at work): read then, they landed inside the
// block (its "[[RELAY]]", then the older "$ cat a.txt" and "[[RELAY]]",
// then the block's body), and the relay was lost (issue 29, found in
// review of 2e47aa0). They are taken as read, as history shown while the
// view is scrolled back is.
func TestHistoryShownAboveAnOutputStillPrintingIsNotReadAmidIt(t *testing.T) {
	transcript := []string{
		"  ┃", "  ┃  $ cat a.txt", "  ┃", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`, `  ┃    "type": "message",`,
		`  ┃    "body": "a body cut short by the progr…`, "  ┃", "  ┃  Click to expand", "  ┃", "", "     ▣  Build", "",
		"  ┃", "  ┃  $ cat b.txt", "  ┃", "  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"the second block"}`, "  ┃  [[/RELAY]]",
		"  ┃", "", "     ▣  Build",
	}
	// The program's input box under the view, its status row at work.
	under := []string{"", "  ┃", "  ┃", "  ┃", "  ┃  Build · Model Provider", "  ╹▀▀▀▀▀▀", "   ■■⬝⬝⬝⬝  esc interrupt"}
	for _, grown := range []time.Duration{0, 100 * time.Millisecond, time.Second} {
		t.Run(fmt.Sprint(grown), func(t *testing.T) {
			view := 5
			r := newKindRun(t, "opencode", view+len(under), 100)
			r.write("\x1b[?1049h")
			// The view shows the transcript's first n rows, at its end.
			show := func(n int, d time.Duration) {
				rows := append(slices.Clone(transcript[max(0, n-view):n]), make([]string, view-min(n, view))...)
				r.write("\x1b[?2026h" + drawRows(view+len(under), append(rows, under...)) + fmt.Sprintf("\x1b[%d;6H\x1b[?2026l", view+3))
				r.pause(d)
			}
			show(13, time.Second)
			show(16, time.Second)
			show(18, time.Second) // the block's "[[RELAY]]", read
			view = 17
			r.s.Resize(view+len(under), 100)
			r.take(r.s.TakeLines())
			show(18, grown)
			show(19, 100*time.Millisecond)
			show(20, 100*time.Millisecond)
			show(23, time.Second)
			r.flush()
			block := strings.Join(transcript[17:20], "\n")
			if got := strings.Join(r.lines, "\n"); !strings.Contains(got, block) {
				t.Errorf("the block is not read whole, in its order:\n%s", got)
			}
			r.wantOnce(t, "[[RELAY]]")
		})
	}
}

// As in TestAViewThatMovedOnPastAllItShowedShowsNewRows, then the output
// the view followed down is drawn collapsed once done ("Click to expand":
// its first row, the next cut short with …), the program still at work:
// the view shows none of the rows the last frame showed, not because it
// moved on but because the output under it shrank, and the rows above
// the echo it shows again, come back into view, are rows read before, not
// new ones (found in review of 6be471f).
func TestAViewBackAfterAnOutputShrankShowsNoNewRows(t *testing.T) {
	r, show, _ := opencodeFilePrintedAgain(t)
	collapsed := []string{"  ┃  other output, four rows of it", "  ┃  other output, five rows of it", "", "     ▣  Build", "",
		"  ┃  $ cat one.txt", "  ┃", "  ┃  first row of the file, long enough to tell", "  ┃  second row of the f…"}
	show(true, collapsed...)
	show(false, collapsed...)
	r.flush()
	r.wantOnce(t, "other output, five rows of it", "other output, four rows of it")
}

// opencodeFilePrintedAgain draws opencode (12×80, alternate screen) showing
// a file of four rows under its echo, then another output taller than the
// view (its echo above the view), at work on it, then the file printed
// again at work, its echo and first row above the view. It returns the run,
// its frame drawer (working: the status row shows "esc interrupt") and the
// file's rows.
func opencodeFilePrintedAgain(t *testing.T) (r *altRun, show func(working bool, rows ...string), file []string) {
	r = newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	status := func(working bool) string {
		if working {
			return "\x1b[12;1H   ■■⬝⬝⬝⬝  esc interrupt\x1b[K\x1b[10;6H"
		}
		return "\x1b[12;1H   ~/work    tab agents\x1b[K\x1b[10;6H"
	}
	file = []string{"  ┃  first row of the file, long enough to tell", "  ┃  second row of the file, long enough too",
		"  ┃  @relay:bob the same words printed twice", "  ┃  end of the file, four rows"}
	show = func(working bool, rows ...string) {
		r.write("\x1b[?2026h" + opencodeFrame(rows...) + status(working) + "\x1b[?2026l")
		r.pause(time.Second)
	}
	show(false, append([]string{"  ┃  $ cat one.txt", "  ┃"}, append(file, "", "     ▣  Build")...)...)
	// Another output, taller than the view: its echo above the view too.
	other := []string{"  ┃  other output, three rows of it", "  ┃  other output, four rows of it", "  ┃  other output, five rows of it", "", "     ▣  Build"}
	show(false, append([]string{"  ┃  $ cat two.txt", "  ┃", "  ┃  other output, one row of it", "  ┃  other output, two rows of it"}, other[:2]...)...)
	show(false, other...)
	show(true, other...)
	// cat one.txt again: its echo and first rows above the view.
	show(true, append(file[1:], "", "     ▣  Build")...)
	return r, show, file
}

// opencodeTallRun is a run of opencode on a screen of 16 rows, its view 13
// rows over its input box, and its frame drawers: draw draws a frame in
// one synchronized update (working: the status row shows "esc
// interrupt"), show draws one and pauses.
func opencodeTallRun(t *testing.T) (r *altRun, show, draw func(working bool, rows ...string)) {
	r = newKindRun(t, "opencode", 16, 80)
	r.write("\x1b[?1049h")
	draw = func(working bool, rows ...string) {
		status := "   ~/work    tab agents"
		if working {
			status = "   ■■⬝⬝⬝⬝  esc interrupt"
		}
		r.write("\x1b[?2026h" + drawRows(13, rows) + "\x1b[14;1H  ┃\x1b[K\x1b[15;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[16;1H" + status + "\x1b[K\x1b[14;6H\x1b[?2026l")
	}
	show = func(working bool, rows ...string) {
		draw(working, rows...)
		r.pause(time.Second)
	}
	return r, show, draw
}

// opencode's view, at work, moves on from one command's output to the
// next (its echo above the view), whose short rows are the older one's
// ("progress 0%" … "progress 90%"), between rows of new text. The short
// rows would not align with the older output's (they moved without the
// rows around them), but their text joined is long, and it was matched as
// that output's text wrapped anew: the new output's rows went into the
// older one, and those the view moved on from were committed again when
// scrolled back to (issue 29, opencode-s6900014).
func TestShortRowsLikeAnOlderOutputsAreNewWhereTheViewMovesOn(t *testing.T) {
	r, show, _ := opencodeTallRun(t)
	progress := []string{"  ┃  progress 30%", "  ┃  progress 60%", "  ┃  progress 90%"}
	first := append(append([]string{"  ┃  @relay:bob words of one kind, long enough"}, progress...), "  ┃  @relay:bob the first output ends", "  ┃", "  ┃  Click to expand", "  ┃", "", "     ▣  Build")
	show(false, append([]string{"  ┃  $ sh one.sh", "  ┃"}, first...)...)
	second := append(append([]string{"  ┃  @thinking:alice quite other text here"}, progress...), "  ┃  @relay:carol and a last row, new too",
		"  ┃  the output goes on with more words", "  ┃  and ends here, under its relay lines", "  ┃", "  ┃  Click to expand", "  ┃", "", "     ▣  Build")
	// The view moves on to it as it runs: its short rows show two rows
	// higher than the first output's did, the hint where that one's was.
	show(true, second...)
	show(false, second...)
	// Scrolled back to the first output, and to the bottom again.
	show(false, append([]string{"  ┃  $ sh one.sh", "  ┃"}, first...)...)
	show(false, second...)
	r.flush()
	r.wantOnce(t, "@relay:bob words of one kind, long enough", "@relay:bob the first output ends",
		"@thinking:alice quite other text here", "@relay:carol and a last row, new too")
	if n := r.count("progress 60%"); n != 2 {
		t.Errorf("progress 60%% committed %d times, want twice (once in each output); lines:\n%s", n, strings.Join(r.lines, "\n"))
	}
	if got := strings.Join(r.lines, "\n"); !strings.Contains(got, strings.Join(append(append([]string{"  ┃  @thinking:alice quite other text here"}, progress...), "  ┃  @relay:carol and a last row, new too"), "\n")) {
		t.Errorf("the second output is not read in its order:\n%s", got)
	}
}

// When the view moves on to a command's output as the command starts, the
// echo heads the view, its mark a spinner, the gutter's bare row under it.
// Taken for a spinner drawn over some other row (as it is over an output
// row when the echo is above the view), it was no turn: the new output's
// rows alike the old output's ("progress 30%") were aligned with those the
// last frame showed, the new output went into the old one (its progress
// rows never read, its echo read after its output; issue 29,
// opencode-s6900014).
func TestASpinningEchoAtTheViewsTopHeadsANewOutput(t *testing.T) {
	r, show, _ := opencodeTallRun(t)
	progress := []string{"  ┃  progress 30%", "  ┃  progress 60%", "  ┃  progress 90%"}
	first := append(append([]string{"  ┃  the first output's own first row"}, progress...), "  ┃  @relay:bob the first output ends", "  ┃", "  ┃  Click to expand", "  ┃", "", "     ▣  Build")
	show(false, append([]string{"  ┃  $ sh one.sh", "  ┃"}, first...)...)
	show(false, append([]string{"  ┃", "  ┃", "  ┃"}, first...)[3:]...)
	for _, mark := range []string{"⠋", "⠙", "$"} {
		show(mark != "$", append(append([]string{"  ┃  " + mark + " sh two.sh", "  ┃", "  ┃  @relay:alice the second output's words"}, progress...),
			"  ┃  @relay:carol the second output ends", "  ┃", "  ┃  Click to expand", "  ┃", "", "     ▣  Build")...)
	}
	r.flush()
	r.wantOnce(t, "@relay:alice the second output's words", "@relay:carol the second output ends", "$ sh two.sh")
	if n := r.count("progress 60%"); n != 2 {
		t.Errorf("progress 60%% committed %d times, want twice (once in each output); lines:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// After a resize to a narrower screen, opencode draws its view anew: the
// echo and the output wrap at the new width. Output going on then scrolls
// the view: no row of the frame shows as any row the last frame showed
// (the echo's first row above the view, the rest wrapped anew, the new
// output's rows new). Such a frame was taken to go on after the rows the
// last frame showed, and the text wrapped anew was read again as new
// output: the relay line came out twice (issue 29, opencode-s6900012).
func TestAViewLaidOutAnewAndScrolledAtOnceShowsNoNewText(t *testing.T) {
	r, show, draw := opencodeTallRun(t)
	echo := "  ┃  $ printf '%s\\n' '@relay:alice words to wrap at forty cols' 'next'"
	relay := "  ┃  @relay:alice words to wrap at forty cols"
	show(false, echo, "  ┃", relay, "  ┃  next", "", "     ▣  Build")
	r.s.Resize(16, 40)
	r.take(r.s.TakeLines())
	// What the terminal kept of the view, for a while: the program moves
	// its cursor, drawing no row.
	r.write("\x1b[?2026h\x1b[14;6H\x1b[?2026l")
	r.pause(time.Second)
	wrapped := []string{"  ┃  $ printf '%s\\n' '@relay:alice", "  ┃  words to wrap at forty cols' 'next'", "  ┃",
		"  ┃  @relay:alice words to wrap at", "  ┃  forty cols", "  ┃  next", ""}
	draw(true, append(wrapped, "  ┃  $ sh two.sh", "", "     ▣  Build")...)
	r.now = r.now.Add(100 * time.Millisecond)
	scrolled := append(wrapped[1:], "", "  ┃  $ sh two.sh", "  ┃", "  ┃  @relay:bob the new output", "", "     ▣  Build")
	show(true, scrolled...)
	show(false, scrolled...)
	r.flush()
	read := 0
	for _, l := range r.lines {
		if strings.HasPrefix(l, "  ┃  @relay:alice") {
			read++
		}
	}
	if read != 1 {
		t.Errorf("the relay line read %d times, want once; lines:\n%s", read, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "@relay:bob the new output")
}

// A block's last rows read from the top of a short view, the row above
// them under opencode's spinner (the echo of the command at work above the
// view), then shown whole once the command is done; the screen grows and
// the view shows the whole block. The row under the spinner, never shown
// whole, was taken for the row shown whole there later, as text wrapped
// anew: read already, it was no longer the first row of the paragraph
// read at the view's top, and the block's first rows, shown now above it,
// were read as new output after the block's end: an unterminated block
// (issue 29, opencode-s6300020). A reader who read the block's end sees
// its first rows now as history, as rows shown above any paragraph read
// from the view's top are.
func TestARowUnderTheSpinnerShownWholeLaterLeavesNoBlockOpen(t *testing.T) {
	r, show, _ := opencodeTallRun(t)
	tail := []string{`  ┃    "type": "message",`, `  ┃    "body": "a body long enough to tell it from others",`, `  ┃    "topic": "t90"`,
		"  ┃  }", "  ┃  [[/RELAY]]", "  ┃  lot crème", "  ┃  …", "  ┃", "  ┃  Click to expand", "  ┃", "", "     ▣  Build"}
	show(true, append([]string{`  ┃  ⠋ "to": "bob",`}, tail...)...)
	show(true, append([]string{`  ┃  ⠙ "to": "bob",`}, tail...)...)
	show(false, append([]string{`  ┃    "to": "bob",`}, tail...)...)
	r.s.Resize(30, 100)
	r.take(r.s.TakeLines())
	whole := []string{"  ┃  $ cat a.txt", "  ┃", "  ┃  some text before the block", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`}
	r.write("\x1b[?2026h" + drawRows(27, append(whole, tail...)) + "\x1b[28;1H  ┃\x1b[K\x1b[29;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[30;1H   ~/work    tab agents" +
		strings.Repeat(" ", 70) + "\x1b[28;6H\x1b[?2026l")
	r.pause(time.Second)
	r.flush()
	open := false
	for _, l := range r.lines {
		switch {
		case strings.Contains(l, "[[RELAY]]"):
			open = true
		case strings.Contains(l, "[[/RELAY]]"):
			open = false
		}
	}
	if open {
		t.Errorf("the block's first rows read after its end, left open:\n%s", strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, `"body": "a body long enough`)
}

// As in TestHistoryShownAboveAnOutputStillPrintingIsNotReadAmidIt, but the
// older output the grown view shows above the turn at work holds a block
// whole, never shown before: it is given late (Line.Late), read apart,
// not amid the block still printing, and not dropped as read (a block
// whole only there would never be delivered).
func TestHistoryShownAboveAnOutputStillPrintingIsGivenLate(t *testing.T) {
	const first = `  ┃  {"to":"alice","type":"message","body":"the first block, shown only above the turn at work"}`
	transcript := []string{
		"  ┃", "  ┃  $ cat a.txt", "  ┃", "  ┃  [[RELAY]]", first, "  ┃  [[/RELAY]]", "  ┃", "", "     ▣  Build", "",
		"  ┃", "  ┃  $ cat b.txt", "  ┃", "  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"the second block"}`, "  ┃  [[/RELAY]]",
		"  ┃", "", "     ▣  Build",
	}
	under := []string{"", "  ┃", "  ┃", "  ┃", "  ┃  Build · Model Provider", "  ╹▀▀▀▀▀▀", "   ■■⬝⬝⬝⬝  esc interrupt"}
	view := 4
	r := newKindRun(t, "opencode", view+len(under), 100)
	r.write("\x1b[?1049h")
	show := func(n int, d time.Duration) {
		rows := append(slices.Clone(transcript[max(0, n-view):n]), make([]string, view-min(n, view))...)
		r.write("\x1b[?2026h" + drawRows(view+len(under), append(rows, under...)) + fmt.Sprintf("\x1b[%d;6H\x1b[?2026l", view+3))
		r.pause(d)
	}
	show(12, time.Second) // the view shows the b.txt turn's echo, none of a.txt's output
	show(14, time.Second) // the block's "[[RELAY]]", read
	view = 17
	r.s.Resize(view+len(under), 100)
	r.take(r.s.TakeLines())
	show(14, time.Second)
	show(16, 100*time.Millisecond)
	show(19, time.Second)
	r.flush()
	var late []string
	for _, l := range r.late {
		late = append(late, l.Text)
	}
	if got, want := strings.Join(late, "\n"), strings.Join(transcript[3:6], "\n"); !strings.Contains(got, want) {
		t.Errorf("the block shown only above the turn at work is not given late whole:\n%s", got)
	}
	r.wantNever(t, "above the turn at work", "alice")
	if got := strings.Join(r.lines, "\n"); !strings.Contains(got, strings.Join(transcript[13:16], "\n")) {
		t.Errorf("the block still printing is not read whole, in its order:\n%s", got)
	}
}

// opencode shows no hint while its view is scrolled back; a reader knows
// the view went back when the rows it showed all move down and an older
// command's echo shows above them: what shows there is that turn's
// output, read when it ran, however the screen lays it out now, with
// more of an output it shows collapsed maybe (issue 29: after a resize,
// PageUp showed older turns laid out anew, and their rows, relay lines
// among them, were read again as new output).
func TestAnOlderTurnScrolledBackIsHistory(t *testing.T) {
	const rows = 40
	r := newKindRun(t, "opencode", rows, 60)
	show := func(cols int, text ...string) {
		r.write("\x1b[?2026h" + drawRows(rows-6, text) + fmt.Sprintf("\x1b[%d;1H  ┃\x1b[K\x1b[%d;1H  ╹%s\x1b[K\x1b[%d;6H\x1b[?2026l",
			rows-5, rows-4, strings.Repeat("▀", cols-4), rows-5))
		r.pause(time.Second)
	}
	// A long output collapsed: its first ten rows, the last cut short,
	// and the hint to expand it; wider, its lines take fewer rows, and
	// more of them show.
	lines := []string{"@relay:bob the first file's command, long enough to be wrapped over three rows at sixty columns",
		"@relay:carol another command in the first file, two rows at sixty columns"}
	for i := range 9 {
		lines = append(lines, fmt.Sprintf("row %d of the first file", i+1))
	}
	olderAt := func(cols int) []string {
		var shown []string
		for _, l := range lines {
			shown = append(shown, opencodeWrapped(cols, l)...)
		}
		return slices.Concat([]string{"  ┃  $ cat one.txt", "  ┃"}, shown[:9], []string{"  ┃  row…", "  ┃", "  ┃  Click to expand", "  ┃"})
	}
	newer := []string{"  ┃  $ cat two.txt", "  ┃", "  ┃  first row of the second output", "  ┃  second row of the second output",
		"  ┃  third row of the second output", "  ┃  @relay:alice the second file", "  ┃"}
	r.write("\x1b[?1049h")
	show(60, olderAt(60)...)
	show(60, newer...)
	r.s.Resize(rows, 80)
	r.take(r.s.TakeLines())
	show(80, newer...)
	read := len(r.lines)
	show(80, slices.Concat(olderAt(80), newer)...) // scrolled back
	show(80, slices.Concat(olderAt(80), newer)...)
	r.flush()
	for _, l := range r.lines[read:] {
		if !strings.Contains(l, "Click to expand") { // read again under other rows: rule 2
			t.Errorf("the older turn scrolled back read as new output: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
}

// opencodeWrapped is a line as opencode shows it on a screen cols wide:
// its words wrapped, after the gutter, where the next would not fit.
func opencodeWrapped(cols int, line string) []string {
	wrapAt := screenmodel.Of("opencode").WrapAt(cols)
	var rows []string
	row := "  ┃ "
	for _, w := range strings.Fields(line) {
		if len(row) > len("  ┃ ") && ansi.StringWidth(row)+1+ansi.StringWidth(w) > wrapAt {
			rows = append(rows, row)
			row = "  ┃ "
		}
		row += " " + w
	}
	return append(rows, row)
}

// The spinner of a command at work whose echo is above the view is drawn
// on the view's top row, over whatever row shows there; over the blank
// row under the echo it shows alone, after the gutter: no text a reader
// reads (issue 29, opencode-s8100022: committed among the rows of a block
// under it, read before them, it broke the block).
func TestTheSpinnerAloneOnTheViewsTopRowIsNoText(t *testing.T) {
	r, show, _ := opencodeTallRun(t)
	block := []string{"  ┃  some text before the block", "  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"hi"}`}
	show(true, append([]string{"  ┃  ⠋ sh a.sh", "  ┃"}, block...)...)
	for _, spin := range []string{"⠙", "⠹", "⠸"} {
		show(true, append([]string{"  ┃  " + spin}, append(block, "  ┃  [[/RELAY]]", "  ┃  and text after it")...)...)
	}
	r.flush()
	for _, l := range r.lines {
		if strings.TrimLeft(l, " ┃") != "" && strings.ContainsAny(strings.TrimLeft(l, " ┃"), "⠙⠹⠸") && !strings.Contains(l, "sh a.sh") {
			t.Errorf("the spinner read as text: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
	r.wantOnce(t, "[[/RELAY]]")
}

// Over a row of text on the view's top row, the spinner hides the row's
// first cell: the blank opencode keeps at a wrap, in front of the rest of
// a line wrapped on the row above. That row is the one shown whole before,
// not new text with a spinner's frame in front (issue 29,
// opencode-s100100014: committed so as it left the view, "⠙measure" cut
// the relay line it went on).
func TestASpinnerOverATopRowsFirstCellHidesIt(t *testing.T) {
	r, show, draw := opencodeTallRun(t)
	rest := "  ┃   rest of the line wrapped"
	under := []string{"  ┃  an output row under it", "  ┃  and another one", "  ┃  and the last"}
	draw(true, append([]string{"  ┃  ⠋ sh a.sh", "  ┃", "  ┃  @relay:bob the first row of a line", rest}, under...)...)
	r.pause(100 * time.Millisecond) // shown too short a time to settle
	for _, spin := range []string{"⠙", "⠹", "⠸"} {
		show(true, append([]string{"  ┃  " + spin + strings.TrimPrefix(rest, "  ┃   ")}, under...)...)
	}
	r.flush()
	for _, l := range r.lines {
		if strings.Contains(l, "rest of the line") && l != rest {
			t.Errorf("the row under the spinner read as %q, want %q; lines:\n%s", l, rest, strings.Join(r.lines, "\n"))
		}
	}
	r.wantOnce(t, "rest of the line wrapped")
}

// A view that follows the latest turn's output down moves the rows it
// showed up, never down: when the rows the last frame showed all show
// again lower down, the view went back (opencode shows no hint), even
// when the latest turn's echo, shown last with only its own rows under
// it, no longer shows. The older turns above are history, laid out anew
// after a resize, not rows of a new output (issue 29,
// opencode-s8100022: PageUp after a resize showed the older turns
// wrapped anew, and their relay lines were read again).
func TestOlderTurnsScrolledBackPastTheLatestEchoAreHistory(t *testing.T) {
	const rows, view = 20, 13 // a blank row between the view and the input box
	r := newKindRun(t, "opencode", rows, 60)
	show := func(cols int, text ...string) {
		var b strings.Builder
		for y := range rows - 6 { // every row painted out to the edge, as opencode does
			row := ""
			if y < view && y < len(text) {
				row = text[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%-*s", y+1, cols, row)
		}
		r.write("\x1b[?2026h" + b.String() + fmt.Sprintf("\x1b[%d;1H%-*s\x1b[%d;1H  ╹%s\x1b[%d;6H\x1b[?2026l",
			rows-5, cols, "  ┃", rows-4, strings.Repeat("▀", cols-4), rows-5))
		r.pause(time.Second)
	}
	turn := func(cols int, command string, out ...string) []string {
		shown := []string{"  ┃", "  ┃  $ " + command, "  ┃"}
		for _, l := range out {
			shown = append(shown, opencodeWrapped(cols, l)...)
		}
		return append(shown, "  ┃", "")
	}
	one := []string{"@relay:bob the first file's command, long enough to be wrapped over three rows at sixty columns",
		"@relay:carol another command of the first file"}
	two := []string{"@relay:alice the second file's command, wrapped over two rows at sixty columns", "its last row, the same at both widths"}
	three := []string{"@relay:dave the third file"}
	bottom := func(text []string) []string { return text[max(0, len(text)-view):] } // the view follows the output
	r.write("\x1b[?1049h")
	show(60, turn(60, "cat one.txt", one...)...)
	show(60, bottom(slices.Concat(turn(60, "cat one.txt", one...), turn(60, "cat two.txt", two...)))...)
	r.s.Resize(rows, 80)
	r.take(r.s.TakeLines())
	older := slices.Concat(turn(80, "cat one.txt", one...), turn(80, "cat two.txt", two...))
	show(80, bottom(older)...)
	all := slices.Concat(older, turn(80, "cat three.txt", three...))
	show(80, bottom(all)...) // the latest turn under the older ones
	read := len(r.lines)
	show(80, all[:view]...) // scrolled back: the latest echo out of view
	show(80, all[:view]...)
	show(80, bottom(all)...) // and forth
	r.flush()
	if len(r.lines) > read {
		t.Errorf("the older turns scrolled back read again: %q; lines:\n%s", r.lines[read:], strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "@relay:bob", "@relay:carol", "@relay:alice", "@relay:dave")
}

// A view shows the echo of every turn between two rows it shows: a row
// alike an older one, with turns under that one in the document the view
// does not show between it and the rows aligned under it, is a new row,
// not the older one laid out anew (issue 29, opencode-s8700016: after a
// resize, a new block's "type" row, the rows around it new, was taken for
// an older block's two turns back; the new output went into the document
// there, and once the view grew taller the turn between was read again
// as new).
func TestARowAlikeOneTurnsBackIsNew(t *testing.T) {
	rows, view := 20, 13
	r := newKindRun(t, "opencode", rows, 60)
	draw := func(cols int, text ...string) {
		var b strings.Builder
		// The answer's footer, the program's own row, under the
		// transcript; every row painted out to the edge, as opencode does.
		text = append(text, "     ▣  Build · model")
		for y := range rows - 6 {
			row := ""
			if y < view && y < len(text) {
				row = text[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%-*s", y+1, cols, row)
		}
		r.write("\x1b[?2026h" + b.String() + fmt.Sprintf("\x1b[%d;1H%-*s\x1b[%d;1H  ╹%s\x1b[%d;6H\x1b[?2026l",
			rows-5, cols, "  ┃", rows-4, strings.Repeat("▀", cols-4), rows-5))
	}
	show := func(cols int, text ...string) {
		draw(cols, text...)
		r.pause(time.Second)
	}
	bottom := func(text []string) []string { return text[max(0, len(text)-(view-1)):] } // the view follows the output
	block := func(command, to, body string) []string {
		return []string{"  ┃", "  ┃  $ " + command, "  ┃", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "` + to + `",`, `  ┃    "type": "message",`,
			`  ┃    "body": "` + body + `"`, "  ┃  }", "  ┃  [[/RELAY]]", "  ┃", ""}
	}
	one := block("cat a.txt", "bob", "the first block")
	two := []string{"  ┃", "  ┃  $ echo two", "  ┃", "  ┃  @relay:carol the second turn", "  ┃", ""}
	three := block("cat c.txt", "dave", "the third block")
	r.write("\x1b[?1049h")
	show(60, bottom(one)...)
	show(60, bottom(slices.Concat(one, two))...)
	r.s.Resize(rows, 50)
	r.take(r.s.TakeLines())
	// Laid out anew, the transcript drawn in the next frame; the view
	// follows the new block, its first rows above it.
	draw(50)
	show(50, bottom(slices.Concat(one, two, three))[4:]...)
	rows, view = 30, 23
	r.s.Resize(rows, 50)
	r.take(r.s.TakeLines())
	show(50, bottom(slices.Concat(one, two, three))...) // taller: the turn between shows again
	show(50, bottom(slices.Concat(one, two, three))...)
	r.flush()
	r.wantOnce(t, "@relay:carol", `"to": "bob"`, `"to": "dave"`)
}

// opencode closes every output it shows collapsed with "Click to expand".
// A new output's hint, drawn further down than an older output's hint was
// a moment ago, the rows between gone, is the new output's: the view's
// text moves up as output comes under it, not down. Taken for the old
// hint, it put the new output's rows above the turn read under the old
// one, and once the view, grown taller, showed that turn again over the
// new output, the turn was read a second time (issue 29,
// opencode-s8100004: an extra "@thinking:* tiny").
func TestAnExpandHintFurtherDownIsANewOutputs(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	r.write(opencodeFrame("  ┃  the first output, long enough to tell, cut…", "  ┃", "  ┃  Click to expand", "", "  ┃  $ echo tiny", "  ┃", "  ┃  @thinking:* tiny"))
	r.pause(time.Second)
	// The next turn's output, collapsed, its echo above the view.
	second := []string{"  ┃  [[RELAY]]", `  ┃  {"to":"bob","type":"message","body":"a new body"}`, "  ┃  [[/RELAY]]", "  ┃  the second output goes on, cut…", "  ┃", "  ┃  Click to expand"}
	r.write(opencodeFrame(second...))
	r.pause(time.Second)
	// Taller, the view shows the turn above the output again.
	r.s.Resize(20, 80)
	taller := append([]string{"  ┃  $ echo tiny", "  ┃", "  ┃  @thinking:* tiny", "", "  ┃  $ cat b.txt", "  ┃", "  ┃  its first row"}, second...)
	r.write(drawRows(17, taller) + "\x1b[18;1H  ┃\x1b[K\x1b[19;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[18;6H")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "@thinking:* tiny", "[[RELAY]]")
	if got := strings.Join(r.lines, "\n"); strings.Index(got, "@thinking:* tiny") > strings.Index(got, "[[RELAY]]") {
		t.Errorf("the turn is read after the output under it:\n%s", got)
	}
}

// A long output opencode shows collapsed cuts its last row short with
// "…": a relay line wrapped onto that row is not read there. Laid out
// wider, the screen shows that line whole on one row, starting with the
// text of the row above the cut one: the line, never shown whole before,
// is read now, not taken for the row above with something drawn after it
// (issue 29, opencode-s8700008: the line was lost).
func TestALineCutByACollapseShownWholeWiderIsRead(t *testing.T) {
	const rows = 14
	r := newKindRun(t, "opencode", rows, 58)
	show := func(cols int, text ...string) {
		var b strings.Builder
		for y := range rows - 6 { // every row painted out to the edge, as opencode does
			row := ""
			if y < len(text) {
				row = text[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%-*s", y+1, cols, row)
		}
		r.write("\x1b[?2026h" + b.String() + fmt.Sprintf("\x1b[%d;1H%-*s\x1b[%d;1H  ╹%s\x1b[%d;6H\x1b[?2026l",
			rows-5, cols, "  ┃", rows-4, strings.Repeat("▀", cols-4), rows-5))
		r.pause(time.Second)
	}
	r.write("\x1b[?1049h")
	show(58, "  ┃  $ sh f1.sh", "  ┃", "  ┃  @relay:bob the first line of the output, whole", "  ┃  @relay:carol chair office tone metal put milk {",
		"  ┃  brace} late throw …", "  ┃", "  ┃  Click to expand")
	r.s.Resize(rows, 100)
	r.take(r.s.TakeLines())
	show(100, "  ┃  $ sh f1.sh", "  ┃", "  ┃  @relay:bob the first line of the output, whole", "  ┃  @relay:carol chair office tone metal put milk {brace} late throw crowd",
		"  ┃  the next line of the output", "  ┃  end of the output")
	r.flush()
	r.wantOnce(t, "@relay:bob", "@relay:carol chair office tone metal put milk {brace} late throw crowd")
}

// opencode shows a line typed in its input box, wrapped there over two
// rows; once it runs, the view may move on at once to the command's
// output, the echo's first row above the view and its last on the view's
// top row, where opencode draws the spinner in front of it ("⠙ wraps
// here'"). That row has the shape of a spinning echo, the gutter's bare
// row under it as under an echo, but it is the tail of the line typed,
// moved aside: taken for a new echo, the output under it was a new turn's
// and its relay was read twice (issue 29, opencode-s94500012: a duplicate
// delivery).
func TestASpinnerInFrontOfTheTailOfALineTypedIsNoNewEcho(t *testing.T) {
	r := newKindRun(t, "opencode", 16, 80)
	r.write("\x1b[?1049h")
	box := func(rows ...string) []string {
		view := make([]string, 11)
		return append(append(view, append([]string{"  ┃"}, rows...)...), "  ┃", "  ╹▀▀▀▀▀▀")
	}
	frame := func(view []string, cursor int) {
		r.write("\x1b[?2026h" + drawRows(16, view) + fmt.Sprintf("\x1b[%d;6H\x1b[?2026l", cursor))
		r.pause(time.Second)
	}
	frame(box(`  ┃  printf '%s\n' '@relay:bob a line typed that the box`, "  ┃  wraps here'"), 14)
	relay := "  ┃  @relay:bob a line typed that the box wraps here"
	output := func(top string) []string {
		view := append([]string{top, "  ┃", relay, "", "     ▣  Build"}, make([]string, 7)...)
		return append(view, "  ┃  Ask anything…", "  ┃", "  ╹▀▀▀▀▀▀")
	}
	frame(output("  ┃  ⠋"), 14)
	frame(output("  ┃  ⠙ wraps here'"), 14)
	frame(output("  ┃  wraps here'"), 14)
	r.flush()
	if n := r.count("@relay:bob"); n != 1 {
		t.Errorf("the relay line read %d times, want once; lines:\n%s", n, strings.Join(r.lines, "\n"))
	}
	for _, l := range r.lines {
		if strings.Contains(l, "$ wraps here") {
			t.Errorf("the tail of the line typed taken for an echo: %q; lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
}

// A view shows its transcript in order: rows above the echo of a turn are
// no rows of that turn's output or of a later one. opencode shows an
// output collapsed at a narrow width and whole at a wider one; the rows
// it showed collapsed are kept in the document, and the later turns'
// rows, read at the wider width, go in above them. Laid out narrow
// again, the view shows the collapsed rows again above those turns'
// echoes: taken for the kept rows, they put every row from there on
// after the later turns' rows, and the later turn's relay, wrapped anew,
// was read a second time (issue 29, opencode-s95800004 at 57x43 → 199x26
// → 56x58).
func TestRowsShownCollapsedAgainAboveALaterTurnAreNotItsOutput(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 40)
	r.write("\x1b[?1049h")
	// opencode paints every row out to the screen's edge.
	show := func(cols int, rows ...string) {
		painted := make([]string, len(rows))
		for i, row := range rows {
			painted[i] = row + strings.Repeat(" ", cols-ansi.StringWidth(row))
		}
		footer := "   ~/work    tab agents"
		r.write("\x1b[?2026h" + drawRows(9, painted) + "\x1b[10;1H  ┃\x1b[K\x1b[11;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[12;1H" + footer + strings.Repeat(" ", cols-len(footer)) + "\x1b[10;6H\x1b[?2026l")
		r.pause(time.Second)
	}
	show(40, "  ┃  $ cat a.txt", "  ┃", "  ┃  alpha bravo charlie delta echo", "  ┃  foxtrot golf hotel india juliet", "  ┃  kilo lima mike novem…", "  ┃", "  ┃  Click to expand", "", "     ▣  Build")
	r.s.Resize(12, 80)
	r.take(r.s.TakeLines())
	show(80, "  ┃  $ cat a.txt", "  ┃", "  ┃  alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo", "  ┃  lima mike november oscar papa", "  ┃  end of the output", "", "     ▣  Build")
	show(80, "  ┃  $ cat a.txt", "  ┃  alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo", "  ┃  lima mike november oscar papa", "  ┃  end of the output", "",
		"  ┃  $ cat b.txt", "  ┃  @relay:carol one two three four five six seven eight nine ten", "", "     ▣  Build")
	r.s.Resize(12, 40)
	r.take(r.s.TakeLines())
	show(40, "  ┃  foxtrot golf hotel india juliet", "  ┃  kilo lima mike novem…", "  ┃", "  ┃  Click to expand", "",
		"  ┃  $ cat b.txt", "  ┃  @relay:carol one two three four", "  ┃  five six seven eight nine ten", "")
	r.flush()
	r.wantOnce(t, "@relay:carol")
}

// opencode's view moves on to a new output, the echo of the turn before
// it gone above the view, and the new output's "Click to expand" shows
// lower than the older output's did a frame ago. A view that follows an
// output down moves what it showed up: the hint lower down, alone (the
// rows that were around it show the new output's text), is the new
// output's, not the old one moved down. Taken for the old one, it put the
// new output's rows before the turn between them in the document, and
// once the screen was resized the view laid out anew read rows again:
// here the new output's, in opencode-s10500032 the relay of the turn
// between (issue 29).
func TestAHintLowerDownWhereTheViewMovedOnIsANewOutputs(t *testing.T) {
	r := newKindRun(t, "opencode", 12, 80)
	r.write("\x1b[?1049h")
	show := r.opencodePainted
	a := []string{"  ┃  $ cat a.txt", "  ┃", `  ┃  "to": "alice", the first output's words`, `  ┃  "body": "a body long enough to tell",`, "  ┃  …", "  ┃", "  ┃  Click to expand"}
	show(12, 80, a...)
	b := []string{"", "  ┃  $ printf b", "  ┃", "  ┃  @relay:carol the relay line of the second turn"}
	show(12, 80, append(a[3:], b...)...)
	// The view moves on to the third output, its echo above the view.
	c := []string{"  ┃  the third output, its first row of text", "  ┃  the third output, its second row of text", "  ┃  the third output, its third row of text",
		"  ┃  the third output, its fourth row of text", "  ┃  …", "  ┃", "  ┃  Click to expand"}
	show(12, 80, c...)
	// A taller, narrower screen: the view laid out anew shows it all.
	r.s.Resize(30, 40)
	r.take(r.s.TakeLines())
	show(30, 40, "  ┃  $ cat a.txt", "  ┃", `  ┃  "to": "alice", the first output's`, "  ┃  words", `  ┃  "body": "a body long enough to`, `  ┃  tell",`, "  ┃  …", "  ┃", "  ┃  Click to expand", "",
		"  ┃  $ printf b", "  ┃", "  ┃  @relay:carol the relay line of the", "  ┃  second turn", "",
		"  ┃  $ cat c.txt", "  ┃", "  ┃  the third output, its first row of", "  ┃  text", "  ┃  the third output, its second row", "  ┃  of text", "  ┃  the third output, its third row of…", "  ┃", "  ┃  Click to expand")
	r.flush()
	r.wantOnce(t, "@relay:carol", "its first row of", "its third row of")
}

// opencodePainted draws a frame of opencode on a screen height rows high
// and cols wide: the view's rows over a blank row, its input box and its
// footer, every row painted out to the screen's edge as opencode paints
// them; then it lets the output settle.
func (r *altRun) opencodePainted(height, cols int, rows ...string) {
	painted := make([]string, 0, len(rows)+1)
	for _, row := range append(rows, "") {
		painted = append(painted, row+strings.Repeat(" ", cols-ansi.StringWidth(row)))
	}
	footer := "   ~/work    tab agents"
	r.write(fmt.Sprintf("\x1b[?2026h%s\x1b[%d;1H  ┃\x1b[K\x1b[%d;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[%d;1H%s%s\x1b[%d;6H\x1b[?2026l",
		drawRows(height-3, painted), height-2, height-1, height, footer, strings.Repeat(" ", cols-len(footer)), height-2))
	r.pause(time.Second)
}

// opencode shows an output collapsed: a line's first rows, its last row
// cut short with "…". Laid out anew for a narrower screen, the rows join
// as only the start of the line read before at the wider one, the row cut
// short its text going on: that row is the rest of the line shown
// collapsed, not a row of its own. Taken for new, it went into the
// document amid the line's text, and the view laid out anew once more
// (another width) no longer joined as the line: the relay was read a
// second time (issue 29, opencode-s10500028: 111 → 53 → 108 columns; here 90 → 50 →
// 76).
func TestARowCutShortInACollapsedOutputIsTheLinesRest(t *testing.T) {
	r := newKindRun(t, "opencode", 20, 90)
	r.write("\x1b[?1049h")
	head := []string{"  ┃  $ cat a.txt", "  ┃", "  ┃  some text above the relay line", "  ┃  more text above the relay line"}
	r.opencodePainted(20, 90, append(head, "  ┃  @relay:alice develop run grass silent ever crop probable fair matter just king",
		"  ┃  level pass sure family lone picture wow thought hill shall", "  ┃  and another line of the output that goes on…", "  ┃", "  ┃  Click to expand")...)
	r.s.Resize(20, 50)
	r.take(r.s.TakeLines())
	r.opencodePainted(20, 50, append(head, "  ┃  @relay:alice develop run grass silent ever", "  ┃  crop probable fair matter just …", "  ┃", "  ┃  Click to expand")...)
	r.s.Resize(20, 76)
	r.take(r.s.TakeLines())
	r.opencodePainted(20, 76, append(head, "  ┃  @relay:alice develop run grass silent ever crop probable fair matter",
		"  ┃  just king level pass sure family lone picture wow thought hill shall", "  ┃  and another line of the output that goes on…", "  ┃", "  ┃  Click to expand")...)
	r.flush()
	r.wantOnce(t, "@relay:alice")
}

// A view shows the echo of every turn between two rows it shows, but for
// rows it left blank: rows of a new output alike rows of an output two
// turns back, shown right above the program's live rows with no echo
// between, are the new output's, whatever rows the view showed before
// (issue 29, claude-s11700026 and claude-s9300006: Claude Code's view
// jumped from the turns above to the tail of a long new output, and its
// block's "to" row, alike an older block's, was taken for that row laid
// out anew: the block was read without its "to"). A view erased between
// two rows (Claude Code clears it row by row as it quits) may hide an
// echo in a blank row: a row there alike one above the echo, the
// program's own rows under it, is that row still.
func TestAltScreenRowsOverTheLiveAreaAreTheLatestTurns(t *testing.T) {
	const rows, cols = 22, 80
	r := newKindRun(t, "claude", rows, cols)
	own := []string{"✢ Enchanting…", "", strings.Repeat("─", cols), "❯ ", strings.Repeat("─", cols), "  ⏸ manual mode on"}
	show := func(text ...string) {
		r.write(drawRows(rows, slices.Concat(text, make([]string, rows-len(own)-len(text)), own)))
		r.pause(time.Second)
	}
	block := func(lead, to, body string) []string {
		return []string{lead + "[[RELAY]]", "     {", `       "to": "` + to + `",`, `       "type": "message",`,
			`       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	r.write("\x1b[?1049h\x1b[?25l")
	first := slices.Concat([]string{"! cat a.txt"}, block("  ⎿  ", "rev-2.b", "the first block"),
		[]string{"  ⎿  Interrupted · What should Claude do instead?", ""})
	second := []string{"! cat b.txt", "  ⎿  @relay:bob the second turn", "     its second row", "     its third row", "     its fourth row",
		"     its fifth row", "     its sixth row", "  ⎿  Interrupted · What should Claude do instead?", ""}
	show(first...)
	// The view moves on: the first turn above it.
	show(slices.Concat(second, []string{"! cat c.txt", "  ⎿  Running…"})...)
	// The third output, taller than the view: its tail, with a block to
	// the same recipient, right above the live rows.
	third := []string{"     progress 40%", "     progress 50%", "     progress 60%", "     progress 70%"}
	show(slices.Concat(third, block("     ", "rev-2.b", "the third block"), []string{"     end of the output"})...)
	r.flush()
	if n := r.count(`"to": "rev-2.b"`); n != 2 {
		t.Errorf(`"to": "rev-2.b" committed %d times, want twice (once a block):`+"\n%s", n, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "the third block", "@relay:bob the second turn")
}
