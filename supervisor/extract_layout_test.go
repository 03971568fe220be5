package supervisor

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"swarm/asciicast"
	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
)

// These tests play small inputs modelled on what the agent CLIs write
// (the rows and escape sequences of recordings of Claude Code 2.1.332,
// Codex 0.171.0, Gemini CLI 0.61.0 and opencode 1.18.33) and check the
// commands a person reading the screen would take from them.

// commands extracts data as written by a program of kind on a screen of
// cols×rows, whole and cut into reads of 7 bytes, and returns the commands
// and errors as `kind to "body"` strings.
func commands(t *testing.T, data, kind string, cols, rows int) []string {
	t.Helper()
	var out []string
	for _, chunk := range []int{0, 7} {
		var got []string
		err := Extract(strings.NewReader(data), ExtractOptions{Kind: kind, Cols: cols, Rows: rows, ChunkSize: chunk}, func(ev parser.Event) {
			if ev.Err != nil {
				got = append(got, "error: "+ev.Err.Reason)
				return
			}
			got = append(got, fmt.Sprintf("%s %s %q", ev.Command.Kind, ev.Command.To, ev.Command.Body))
		})
		if err != nil {
			t.Fatal(err)
		}
		if chunk == 0 {
			out = got
		} else if diff := cmp.Diff(out, got); diff != "" {
			t.Fatalf("read 7 bytes at a time, the commands differ (-whole +cut):\n%s", diff)
		}
	}
	return out
}

// commandsTimed is commands for output written in pieces a second apart,
// as a recording with its timing: the screen settles between them, as a
// person pausing between typing and Enter lets it.
func commandsTimed(t *testing.T, kind string, cols, rows int, pieces ...string) []string {
	t.Helper()
	events := make([]asciicast.Event, len(pieces))
	for i, p := range pieces {
		events[i] = asciicast.Event{Time: time.Duration(i) * time.Second, Code: asciicast.Output, Data: p}
	}
	return commandsRecorded(t, kind, cols, rows, events...)
}

// commandsRecorded is commands for a recording of cols×rows holding
// events (output and resizes).
func commandsRecorded(t *testing.T, kind string, cols, rows int, events ...asciicast.Event) []string {
	t.Helper()
	var rec bytes.Buffer
	w, err := asciicast.NewWriter(&rec, asciicast.Header{Width: cols, Height: rows})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err = ExtractRecording(&rec, ExtractOptions{Kind: kind}, func(ev parser.Event) {
		if ev.Err != nil {
			got = append(got, "error: "+ev.Err.Reason)
			return
		}
		got = append(got, fmt.Sprintf("%s %s %q", ev.Command.Kind, ev.Command.To, ev.Command.Body))
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// claudeFrames is Claude Code's fullscreen renderer drawing each frame on
// the alternate screen of cols×rows: from the home position down, each row
// erased to its end, the transcript at the top and its input box (a rule,
// the prompt, a rule, the footer) at the bottom; a row that fills the
// screen's width is not erased after (that would erase its last
// character, as a terminal does). Each frame is drawn three
// times, as a view repaints while nothing changes: in output replayed
// without its timing, that settles its rows.
func claudeFrames(cols, rows int, frames ...[]string) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(claudeFrame(cols, rows, f, "❯\u00a0"))
	}
	return b.String()
}

// claudeFrame is one frame of claudeFrames, its input box holding box.
func claudeFrame(cols, rows int, transcript []string, box ...string) string {
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[?25l")
	rule := strings.Repeat("─", cols)
	{
		view := append([]string(nil), transcript...)
		for len(view) < rows-3-len(box) {
			view = append(view, "")
		}
		view = append(append(append(view[:rows-3-len(box)], rule), box...), rule, "  ? for shortcuts")
		for range 3 {
			b.WriteString("\x1b[H")
			for y, row := range view {
				if y > 0 {
					b.WriteString("\r\x1b[1B")
				}
				b.WriteString(row)
				if ansi.StringWidth(row) < cols {
					b.WriteString("\x1b[K")
				}
			}
			// The cursor at the end of what is typed.
			fmt.Fprintf(&b, "\x1b[%d;%dH", rows-2, ansi.StringWidth(box[len(box)-1])+1)
		}
	}
	return b.String()
}

// TestWrapJudgedByWidth: a short row followed by a row at the same hanging
// indent is two lines, not one line the program wrapped: a program that
// wraps leaves a row too short for the next row's first word, judged
// against the width its rows may reach (issue 29, cause 1).
func TestWrapJudgedByWidth(t *testing.T) {
	t.Parallel()
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		data := claudeFrames(80, 24, []string{
			"\x1b[48;5;59m! cat p1.txt" + strings.Repeat(" ", 68) + "\x1b[49m",
			"  ⎿ \u00a0@relay:bob same again",
			"     ordinary",
			"  ⎿ \u00a0Interrupted · What should Claude do instead?",
		})
		want := []string{`relay bob "same again"`}
		if diff := cmp.Diff(want, commands(t, data, "claude", 80, 24)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("codex inline", func(t *testing.T) {
		t.Parallel()
		// Codex's --no-alt-screen mode writes its history on the main screen.
		data := "\x1b[1m•\x1b[22m \x1b[1mYou ran\x1b[22m cat p4.txt\r\n" +
			"\x1b[2m  └ @relay:bob alpha beta gamma\x1b[0m\r\n" +
			"    \x1b[2msecond\x1b[0m\r\n" +
			"    \x1b[2m@relay:bob x1\x1b[0m\r\n" +
			"    \x1b[2m  indented text\x1b[0m\r\n\r\n"
		want := []string{`relay bob "alpha beta gamma"`, `relay bob "x1"`}
		if diff := cmp.Diff(want, commands(t, data, "codex", 80, 24)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestClaudeWrapsOneColumnEarly: Claude Code moves a word that would end in
// the last column to the next row; the body goes on there. When the
// command is done Claude draws the same output again collapsed and cut
// mid-word at another width: the same paragraph, not new text (issue 29,
// cause 2).
func TestClaudeWrapsOneColumnEarly(t *testing.T) {
	t.Parallel()
	echo := "\x1b[48;5;59m! cat p2.txt" + strings.Repeat(" ", 68) + "\x1b[49m"
	data := claudeFrames(80, 24,
		[]string{
			echo,
			"  ⎿ \u00a0@relay:bob long 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114",
			"     115 116 117 118 119 120 121 122 123 124 125 126 127 128 129 130 131 132",
			"     133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 148 149 150 151",
			"     152 153 154 155 156 157 158 159 160",
			"\x1b[38;5;174m✽\x1b[39m Spelunking…",
		},
		[]string{
			echo,
			"  ⎿ \u00a0@relay:bob long 100 101 102 103 104 105 106 107 108 109 110 111 112 11",
			"     3 114 115 116 117 118 119 120 121 122 123 124 125 126 127 128 129 130",
			"     131 132 133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 14",
			"     8 149 150 151 152 153 154 155 156 157 158 159 160",
			"  ⎿ \u00a0Interrupted · What should Claude do instead?",
		})
	var nums []string
	for i := 100; i <= 160; i++ {
		nums = append(nums, fmt.Sprint(i))
	}
	want := []string{fmt.Sprintf("relay bob %q", "long "+strings.Join(nums, " "))}
	if diff := cmp.Diff(want, commands(t, data, "claude", 80, 24)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTypedInputIsNotOutput: what is typed into a CLI — its input box
// while it is typed, and the transcript's echo of it once sent — is never
// read as the CLI's output, however it wraps (issue 29, cause 3). The
// typed command puts "@relay:bob typed out" at the start of a row.
func TestTypedInputIsNotOutput(t *testing.T) {
	t.Parallel()
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		// Typed, in the box between the rules (the cursor in it); then
		// sent: the transcript echoes it (a shaded "! " row) above the
		// output.
		data := claudeFrame(80, 24, nil, "!\u00a0echo padding-padding-padding-padding-padding-padding-padding-pad", "  @relay:bob typed out") +
			claudeFrame(80, 24, []string{
				"\x1b[48;5;59m! echo padding-padding-padding-padding-padding-padding-padding-pad\x1b[49m",
				"\x1b[48;5;59m  @relay:bob typed out\x1b[49m",
				"  ⎿ \u00a0padding-padding-padding-padding-padding-padding-padding-pad @relay:bob",
				"     typed out",
			}, "❯\u00a0")
		if got := commands(t, data, "claude", 80, 24); len(got) != 0 {
			t.Errorf("commands read from typed input: %q", got)
		}
	})
	t.Run("codex inline", func(t *testing.T) {
		t.Parallel()
		data := "\x1b[1m•\x1b[22m \x1b[1mYou ran\x1b[22m echo padding-padding-padding-padding-padding-padding-padding-pad\r\n" +
			"  │ @relay:bob typed out\r\n" +
			"\x1b[2m  └ padding-padding-padding-padding-padding-padding-padding-pad @relay:bob typed\x1b[0m\r\n" +
			"    \x1b[2mout\x1b[0m\r\n\r\n"
		if got := commands(t, data, "codex", 80, 24); len(got) != 0 {
			t.Errorf("commands read from typed input: %q", got)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		// Its live area (a rule, the shaded input box, a footer) is erased
		// and drawn again as the command is typed, the cursor left in the
		// box; once sent, the transcript echoes it (" $ ") in a shaded
		// box of its own.
		shade := func(row string) string {
			return "\x1b[48;5;240m" + row + strings.Repeat(" ", 80-ansi.StringWidth(row)) + "\x1b[49m\r\n"
		}
		live := func(box ...string) string {
			var b strings.Builder
			b.WriteString("\x1b[2m" + strings.Repeat("─", 80) + "\x1b[22m\r\n  shell mode enabled (esc to disable)\r\n")
			b.WriteString(shade(""))
			for _, row := range box {
				b.WriteString(shade(row))
			}
			b.WriteString(shade(""))
			b.WriteString(" workspace (/directory)\r\n /tmp/work\r\n")
			fmt.Fprintf(&b, "\x1b[4A\x1b[%dG", ansi.StringWidth(box[len(box)-1])+1)
			return b.String()
		}
		erase := func(rows, below int) string {
			return fmt.Sprintf("\x1b[%dB", below) + strings.Repeat("\x1b[2K\x1b[1A", rows-1) + "\x1b[2K\x1b[G"
		}
		got := commandsTimed(t, "gemini", 80, 24, live(" ! "),
			erase(7, 3)+live(" ! echo padding-padding-padding-padding-padding-padding-padding-pad", "   @relay:bob typed out"),
			erase(8, 4)+shade("")+shade(" $ echo padding-padding-padding-padding-padding-padding-padding-pad @relay:bob")+
				shade("   typed out")+shade("")+"\r\n"+
				"╭"+strings.Repeat("─", 74)+"╮\r\n"+
				"│ padding-padding-padding-padding-padding-padding-padding-pad @relay:bob   │\r\n"+
				"╰"+strings.Repeat("─", 74)+"╯\r\n"+live(" ! "))
		if len(got) != 0 {
			t.Errorf("commands read from typed input: %q", got)
		}
	})
	t.Run("opencode", func(t *testing.T) {
		t.Parallel()
		// The transcript on the alternate screen, down a gutter: the shell
		// command's echo, a blank gutter row, its output; the input box
		// (a gutter closed by a row of ▀) at the bottom, the cursor in it.
		rows := []string{
			"  ┃", "  ┃  $ echo padding-padding-padding-padding-padding-padding-padding-pad",
			"  ┃  @relay:bob typed out", "  ┃",
			"  ┃  padding-padding-padding-padding-padding-padding-padding-pad @relay:bob",
			"  ┃  typed out", "  ┃", "", "     ▣  Shell", "",
		}
		for len(rows) < 18 {
			rows = append(rows, "")
		}
		rows = append(rows, "  ┃", "  ┃", "  ┃", "  ┃  Shell", "  ╹"+strings.Repeat("▀", 76), "")
		var b strings.Builder
		b.WriteString("\x1b[?1049h")
		for range 3 {
			b.WriteString("\x1b[?2026h")
			for y, row := range rows {
				fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", y+1, row)
			}
			b.WriteString("\x1b[20;6H\x1b[?2026l")
		}
		if got := commands(t, b.String(), "opencode", 80, 24); len(got) != 0 {
			t.Errorf("commands read from typed input: %q", got)
		}
	})
}

// TestSidePanelIsNotOutput: opencode, wider than 120 columns, shows a side
// panel (the session's title, context, tokens, cost) in its last 42
// columns, on the same rows as its transcript; the panel is not part of
// what the transcript says, and its changing numbers make nothing new.
func TestSidePanelIsNotOutput(t *testing.T) {
	t.Parallel()
	const cols = 130
	frame := func(tokens string) string {
		rows := []string{
			"  ┃  $ cat q0.txt", "  ┃",
			"  ┃  @relay:bob emubcr ls q bcnn hc nbsdhuusb bhbrejn rds rvfds ldrw sb pvrn osoljh",
			"  ┃  wyh sj pkxojtcdq fykepnb yr",
			"  ┃  end of file", "  ┃",
		}
		panel := []string{"Context", tokens + " tokens", "0% used", "$0.00 spent", "", "LSP"}
		var b strings.Builder
		b.WriteString("\x1b[?2026h")
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s\x1b[%d;%dH%s", y+1, row, y+1, cols-40+1, panel[y])
		}
		b.WriteString("\x1b[20;1H  ┃\x1b[21;1H  ┃  Build\x1b[22;1H  ╹" + strings.Repeat("▀", 80) + "\x1b[20;6H\x1b[?2026l")
		return b.String()
	}
	data := "\x1b[?1049h" + strings.Repeat(frame("0"), 3) + strings.Repeat(frame("1,234"), 3)
	want := []string{`relay bob "emubcr ls q bcnn hc nbsdhuusb bhbrejn rds rvfds ldrw sb pvrn osoljh wyh sj pkxojtcdq fykepnb yr"`}
	if diff := cmp.Diff(want, commands(t, data, "opencode", cols, 30)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGeminiLostCharacters: Gemini CLI runs a command in a terminal of its
// own, as wide as the window, and shows each of that terminal's rows as a
// row of its box cut at the last blank that fits: the rest of the row is
// lost. A row cut short of a long word is still the same line going on in
// the next row, which starts with the end of that terminal row's next part
// (issue 29, cause 6); the body is what the box shows.
func TestGeminiLostCharacters(t *testing.T) {
	t.Parallel()
	border := "\x1b[38;5;244m│\x1b[39m"
	row := func(text string) string {
		return border + " " + text + strings.Repeat(" ", 72-ansi.StringWidth(text)) + " " + border + "\r\n"
	}
	data := "\r\n \x1b[38;5;152m$ \x1b[38;5;231mcat f01.txt\x1b[39m\r\n\r\n" +
		"\x1b[38;5;244m╭" + strings.Repeat("─", 74) + "╮\x1b[39m\r\n" +
		row("\x1b[38;5;194m✓\x1b[39m  Shell Command cat f01.txt") + row("") +
		// "temperature" did not fit the row and was lost with what
		// followed it; the next terminal row starts with "ss".
		row("@relay:bob two port wheel picture smørrebrød wrong just brown carts") +
		row("ss meat grand food") +
		row("ordinary output after it") + row("") +
		"\x1b[38;5;244m╰" + strings.Repeat("─", 74) + "╯\x1b[39m\r\n"
	want := []string{`relay bob "two port wheel picture smørrebrød wrong just brown carts ss meat grand food"`}
	if diff := cmp.Diff(want, commands(t, data, "gemini", 80, 24)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStatusRowIsNotOutput: a CLI's live status row (Codex's "◦ Working
// (Ns • esc to interrupt)") holds still under output that streams in; it
// is the CLI's own, not a row of the transcript, and does not end up in
// the middle of a block whose end comes after it.
func TestStatusRowIsNotOutput(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		b.WriteString("\x1b[?2026h\x1b[H")
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\x1b[J\x1b[15;3H\x1b[?2026l")
		return b.String()
	}
	head := []string{"• Running sh f1.sh", "  └ @relay:alice before the block", "    [[RELAY]]", `    {"to":"bob","type":"message","body":"hi there"}`}
	status := func(s int) string { return fmt.Sprintf("◦ Working (%ds • esc to interrupt)", s) }
	box := []string{"", "", "", "", "", "", "", "", "› Ask Codex to do anything"}
	got := commandsTimed(t, "codex", 80, 16,
		"\x1b[?1049h"+frame(append(append(append([]string{}, head...), "", status(0)), box...)...),
		frame(append(append(append([]string{}, head...), "", status(1)), box...)...),
		frame(append(append(append([]string{}, head...), "    [[/RELAY]]", "    @relay:alice after the block", "", status(2)), box[2:]...)...),
		frame(append(append(append([]string{}, head...), "    [[/RELAY]]", "    @relay:alice after the block", ""), box[1:]...)...))
	want := []string{`relay alice "before the block"`, `relay bob "hi there"`, `relay alice "after the block"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCollapsedBlockEndsAtTheNextCommand: opencode shows a long output
// collapsed, its first rows then "…" and "Click to expand", so a block in
// it shows no end marker. On a short screen only the collapsed output's
// last rows (the "…") show; made taller, the screen shows its first rows
// above them: the block opens after the row that cut it was read. The
// echo of the next command typed ends the output, and the block open
// there is the program's cut, not its author's mistake: no error, no
// command (issue 29). A block in an output shown whole, with no hint to
// expand it, that ends so was left open by its author: an error.
func TestCollapsedBlockEndsAtTheNextCommand(t *testing.T) {
	t.Parallel()
	frame := func(rows int, text ...string) string { return opencodeView(80, rows, text...) }
	tail := []string{`  ┃    "topic": "t9"`, "  ┃  }", "  ┃  …", "  ┃", "  ┃  Click to expand", "  ┃"}
	whole := append([]string{"  ┃  $ cat f1.txt", "  ┃", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`,
		`  ┃    "type": "message",`, `  ┃    "body": "cut short by the program",`}, tail...)
	whole = append(whole, "  ┃  $ cat f2.txt", "  ┃", "  ┃  @relay:bob the next file", "  ┃")
	got := commandsRecorded(t, "opencode", 80, 12,
		asciicast.Event{Time: 0, Code: asciicast.Output, Data: "\x1b[?1049h" + frame(12, tail...)},
		asciicast.Event{Time: time.Second, Code: asciicast.Resize, Data: "80x24"},
		asciicast.Event{Time: time.Second + 100*time.Millisecond, Code: asciicast.Output, Data: frame(24, whole...)},
		asciicast.Event{Time: 2 * time.Second, Code: asciicast.Output, Data: frame(24, whole...)})
	want := []string{`relay bob "the next file"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A short output the program shows whole, without the hint: the
	// agent left its block open, and a reader sees a block never closed.
	short := []string{"  ┃  $ cat f1.txt", "  ┃", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`,
		`  ┃    "body": "never closed by its author"`, "  ┃  }", "", "     ▣  Build", "",
		"  ┃  $ cat f2.txt", "  ┃", "  ┃  @relay:bob the next file", "  ┃"}
	got = commandsTimed(t, "opencode", 80, 24, "\x1b[?1049h"+frame(24, short[:10]...), frame(24, short...), frame(24, short...))
	want = []string{"error: unterminated relay block", `relay bob "the next file"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a block never closed (-want +got):\n%s", diff)
	}
}

// opencodeView is opencode drawing a frame of its view on a screen of
// cols×rows, in one synchronized update: the transcript's rows from the
// top, then its input box (a gutter, the model's row, a rule of ▀) with
// the cursor in it.
func opencodeView(cols, rows int, text ...string) string {
	var b strings.Builder
	b.WriteString("\x1b[?2026h")
	for y := range rows - 6 {
		row := ""
		if y < len(text) {
			row = text[y]
		}
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", y+1, row)
	}
	fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K  ┃\x1b[%d;1H\x1b[2K  ┃  Build\x1b[%d;1H\x1b[2K  ╹%s\x1b[%d;6H\x1b[?2026l",
		rows-5, rows-4, rows-3, strings.Repeat("▀", cols-4), rows-5)
	return b.String()
}

// opencodeSession is a recording of opencode's view on a screen rows
// high: each step a frame drawn (at the width the screen has then) or a
// resize, a second apart, the output settling between them.
func opencodeSession(t *testing.T, cols, rows int, steps ...any) []string {
	t.Helper()
	var events []asciicast.Event
	first := cols
	for i, st := range steps {
		at := time.Duration(i) * time.Second
		switch st := st.(type) {
		case []string:
			out := opencodeView(cols, rows, st...)
			if i == 0 {
				out = "\x1b[?1049h" + out
			}
			events = append(events, asciicast.Event{Time: at, Code: asciicast.Output, Data: out})
		case int: // a resize to st columns
			cols = st
			events = append(events, asciicast.Event{Time: at, Code: asciicast.Resize, Data: fmt.Sprintf("%dx%d", cols, rows)})
		default:
			t.Fatalf("step %d: %T", i, st)
		}
	}
	return commandsRecorded(t, "opencode", first, rows, events...)
}

// TestABlankRowKeptAsTheViewScrolls: a paragraph read as it settled and
// the next one, under a blank row, read a moment later after the view
// scrolled up a row, are two paragraphs, as the screen shows them: a
// reader does not join a row to the one above it across a blank row,
// however full that row is (issue 29: a thinking line's body took in
// the text under it, its row and the next one's committed one row apart).
func TestABlankRowKeptAsTheViewScrolls(t *testing.T) {
	t.Parallel()
	const cols = 80
	// A thinking line that fills its row: the next row's first word would
	// not have fitted after it.
	thinking := "  ┃  @thinking:bob"
	for i := 0; ansi.StringWidth(thinking)+4 < screenmodel.Of("opencode").WrapAt(cols)-2; i++ {
		thinking += fmt.Sprintf(" w%02d", i)
	}
	view := func(under string, scrolled int) string {
		rows := []string{"  ┃  $ sh one.sh", "  ┃", "  ┃  an output row", "  ┃", thinking, "  ┃", "  ┃  " + under, "  ┃"}
		return opencodeView(cols, 24, rows[scrolled:]...)
	}
	var events []asciicast.Event
	at := func(ms int, out string) {
		events = append(events, asciicast.Event{Time: time.Duration(ms) * time.Millisecond, Code: asciicast.Output, Data: out})
	}
	at(0, "\x1b[?1049h"+view("iron", 0))
	at(100, view("iron thought", 0))
	at(200, view("iron thought floor", 0))
	at(300, view("iron thought floor follow", 0)) // the thinking line settled: read
	at(400, view("iron thought floor follow quite", 1))
	got := commandsRecorded(t, "opencode", cols, 24, events...)
	want := []string{`thinking bob "` + strings.TrimPrefix(thinking, "  ┃  @thinking:bob ") + `"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestALineReadAsItLeavesTheViewRowByRow: the view follows an output
// up a row a frame, faster than a row settles, so a wrapped line's rows
// are read one after the other as each leaves the view's top row. They
// are one line, as the frame that showed both showed them: a reader
// joins them (issue 29: both were read as line 0, one row drawn over,
// and the body cut at its first row).
func TestALineReadAsItLeavesTheViewRowByRow(t *testing.T) {
	t.Parallel()
	const cols, height = 62, 14 // six rows of output over the answer's footer
	// A thinking line that fills its row: the next row's first word would
	// not have fitted after it.
	thinking := "  ┃  @thinking:bob"
	for i := 0; ansi.StringWidth(thinking)+4 < screenmodel.Of("opencode").WrapAt(cols)-2; i++ {
		thinking += fmt.Sprintf(" w%02d", i)
	}
	rows := []string{"  ┃  $ sh f04.sh", "  ┃", thinking, "  ┃  whereupon the rest of it"}
	for i := range 8 {
		rows = append(rows, fmt.Sprintf("  ┃  output row %d", i))
	}
	var events []asciicast.Event
	footer := []string{"", "     ▣  Build · GPT-5.6"}
	for k := 0; k+6 <= len(rows); k++ {
		out := opencodeView(cols, height, slices.Concat(rows[k:k+6], footer)...)
		if k == 0 {
			out = "\x1b[?1049h" + out
		}
		events = append(events, asciicast.Event{Time: time.Duration(k) * 100 * time.Millisecond, Code: asciicast.Output, Data: out})
	}
	got := commandsRecorded(t, "opencode", cols, height, events...)
	want := []string{`thinking bob "` + strings.TrimPrefix(thinking, "  ┃  @thinking:bob ") + ` whereupon the rest of it"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTheNextTurnUnderACollapsedOutput: opencode, narrower, shows an
// older output collapsed (its first rows, "…", its hint to expand it) and
// the next command's output under the hint; wider again, it shows the
// older output whole and the next one under it, as before. The next
// output is under all of the older one, the rows the hint hid too: read
// once (issue 29: it was put between the rows shown and the rows hidden,
// and, shown whole again under those, read again).
func TestTheNextTurnUnderACollapsedOutput(t *testing.T) {
	t.Parallel()
	var whole []string
	whole = append(whole, "  ┃  $ sh one.sh", "  ┃")
	for i := range 8 {
		whole = append(whole, fmt.Sprintf("  ┃  progress %d0%% of the first script", i))
	}
	whole = append(whole, "  ┃  @relay:bob the first script is done", "  ┃")
	collapsed := append(slices.Clone(whole[:5]), "  ┃  progress 30% of the…", "  ┃", "  ┃  Click to expand", "  ┃")
	next := []string{"  ┃  $ sh two.sh", "  ┃", "  ┃  @relay:alice the second script", "  ┃"}
	footer := []string{"", "     ▣  Build · GPT-5.6"} // under an answer done
	got := opencodeSession(t, 80, 24,
		slices.Concat(whole, footer),
		60,
		slices.Concat(collapsed, footer),
		slices.Concat(collapsed, next, footer),
		80,
		slices.Concat(whole, next, footer))
	want := []string{`relay bob "the first script is done"`, `relay alice "the second script"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestOutputRightUnderAnEcho: the echo of a typed command goes on in the
// next row only where its row had no room left for that row's first word:
// the program wrapped it there. Once opencode's view scrolls, a command's
// first output row can be committed right under the row where its echo
// was committed, down the same gutter the echo wraps down; it is output,
// not the echo going on (issue 29: both relay lines a command printed were
// lost so).
func TestOutputRightUnderAnEcho(t *testing.T) {
	t.Parallel()
	const cols = 72 // opencode wraps at 69
	typed := "  ┃  $ printf '%s\\n' '@relay:bob a long typed command that fills the"
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"output under a short echo", []string{"  ┃  $ sh f03.sh", "  ┃  @relay:bob while particular at night"},
			[]string{`relay bob "while particular at night"`}},
		{"an echo the program wrapped", []string{typed, "  ┃  @relay:bob and more of it'"}, nil},
	} {
		r := newCommandReader(parser.Options{}, screenmodel.Of("opencode"))
		var got []string
		for i, text := range append(c.lines, "  ┃  end of the output") {
			for _, ev := range r.read(spawner.Line{N: int64(23 + i), Text: text, Cols: cols}) {
				got = append(got, fmt.Sprintf("%s %s %q", ev.Command.Kind, ev.Command.To, ev.Command.Body))
			}
		}
		for _, ev := range r.p.Flush() {
			got = append(got, fmt.Sprintf("%s %s %q", ev.Command.Kind, ev.Command.To, ev.Command.Body))
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCollapseHintReadBeforeItsEcho: opencode's view, scrolling a new
// output into the place where the last output's hint to expand it was,
// may show that old hint above as if new: the hint is read before the echo
// of the output it is under. A block that output leaves open is still the
// program's cut, not an error (issue 29).
func TestCollapseHintReadBeforeItsEcho(t *testing.T) {
	t.Parallel()
	r := newCommandReader(parser.Options{}, screenmodel.Of("opencode"))
	var got []string
	describe := func(evs []parser.Event) { got = append(got, readerEvents(evs)...) }
	for i, row := range []string{"  ┃  $ cat f1.txt", "  ┃  an output", "  ┃  Click to expand", "  ┃  $ cat f2.txt",
		"  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`, "  ┃  $ cat f3.txt", "  ┃  @relay:bob the next file"} {
		describe(r.read(spawner.Line{N: int64(i), Text: row, Cols: 80}))
	}
	describe(r.p.Flush())
	want := []string{`relay bob "the next file"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCollapsedBlockEndsWithTheSession: a session that ends in an output
// opencode shows collapsed, a block in it open (the hint to expand it read
// before the block's rows, a short view showing it first), ends in the
// program's cut, as at the next command typed: no error (issue 29,
// opencode-s8100022). A block left open in an output shown whole is its
// author's: an error.
func TestCollapsedBlockEndsWithTheSession(t *testing.T) {
	t.Parallel()
	block := []string{"  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "bob",`}
	for _, c := range []struct {
		name string
		rows []string
		want []string
	}{
		{"collapsed", slices.Concat([]string{"  ┃  $ cat f1.txt", "  ┃  Click to expand"}, block), nil},
		{"shown whole", slices.Concat([]string{"  ┃  $ cat f1.txt"}, block), []string{"error: unterminated relay block"}},
	} {
		r := newCommandReader(parser.Options{}, screenmodel.Of("opencode"))
		var got []string
		describe := func(evs []parser.Event) { got = append(got, readerEvents(evs)...) }
		for i, row := range c.rows {
			describe(r.read(spawner.Line{N: int64(i), Text: row, Cols: 80}))
		}
		describe(r.flush(true))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestAQuietSpellSettlesOnce: a recording's quiet spell settles the
// screen once, as a running agent's screen settles once output has been
// quiet for the settle time; a resize in it is no output and does not
// settle the screen again. Claude Code 2.1.332 inline draws a frame laid
// out for the old width right after a resize (spawner: a redraw laid out
// for the old width is not read): settled again after the resize, the
// screen took that frame for one drawn once output had paused, and read
// its garbled rows (issue 29: claude-inline-s6300036).
func TestAQuietSpellSettlesOnce(t *testing.T) {
	t.Parallel()
	rule := func(w int) string { return strings.Repeat("─", w) }
	box := func(w int) string {
		return rule(w) + "\r\n❯ \r\n" + rule(w) + "\r\n  ? for shortcuts\x1b[2A\r\x1b[2C"
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	got := commandsRecorded(t, "claude", 60, 12,
		asciicast.Event{Time: 0, Code: asciicast.Output, Data: "! cat a.txt\r\n  ⎿  first line\r\n  ⎿  Interrupted\r\n\r\n" +
			"! cat f.txt\r\n  ⎿  Running…\r\n\r\n" + box(60)},
		asciicast.Event{Time: ms(1000), Code: asciicast.Resize, Data: "40x12"},
		// The frame for 60 columns, up to the "Running…" row as the
		// program last drew it, the cells that changed.
		asciicast.Event{Time: ms(1020), Code: asciicast.Output, Data: "\r\x1b[5A\x1b[5C@relay:bob hello from the file\x1b[K\r\n" +
			"     @relay:bob a second row of the output\r\n     third row\r\n     fourth row\r\n     @relay:bob the last row\r\n\r\n" +
			rule(60) + "\r\n❯ \r\n" + rule(60) + "\r\n  esc to interrupt\x1b[2A\r\x1b[2C"},
		// The resize taken in: every row erased, the transcript drawn anew.
		asciicast.Event{Time: ms(1150), Code: asciicast.Output, Data: "\x1b[2B\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 11) + "\x1b[2K\x1b[H" +
			"! cat f.txt\r\n  ⎿  @relay:bob hello from the file\r\n     @relay:bob a second row of the output\r\n     third row\r\n" +
			"     fourth row\r\n     @relay:bob the last row\r\n\r\n" + box(40)},
	)
	want := []string{`relay bob "hello from the file"`, `relay bob "a second row of the output"`, `relay bob "the last row"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBusyBarCaughtInABlockIsNotRead: opencode draws its busy bar right
// after its input box's gutter, over the agent's name, while a turn runs.
// A frame drawn mid-resize can leave that row committed between a block's
// rows; a reader sees the program's status there, not the block's text,
// and reads the block through it (issue 29, n/opencode-s11700020: the
// block was a malformed error and its command lost).
func TestBusyBarCaughtInABlockIsNotRead(t *testing.T) {
	t.Parallel()
	r := newCommandReader(parser.Options{}, screenmodel.Of("opencode"))
	var got []string
	describe := func(evs []parser.Event) { got = append(got, readerEvents(evs)...) }
	for i, row := range []string{"  ┃  $ sh f4.sh", "  ┃  [[RELAY]]", "  ┃  {",
		"  ┃■■■■⬝⬝⬝⬝· GPT-5.6 Terra Pro OpenAI",
		`  ┃    "to": "bob",`, `  ┃    "type": "message",`, `  ┃    "body": "#hash cent \\ end"`, "  ┃  }", "  ┃  [[/RELAY]]",
		"  ┃■■⬝⬝⬝⬝⬝⬝· @relay:bob not a line of output"} {
		describe(r.read(spawner.Line{N: int64(i), Text: row, Cols: 80}))
	}
	describe(r.p.Flush())
	want := []string{`relay bob "#hash cent \\ end"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The transcript's text two blanks inside the gutter is output, even
	// when it starts with the bar's cells.
	if l := screenmodel.Of("opencode"); l.BusyBar("  ┃  ■■ @relay:bob x") || !l.BusyBar("  ┃⬝⬝⬝■") || screenmodel.Of("claude").BusyBar("  ┃■■") {
		t.Error("BusyBar: only a row of the bar right after opencode's gutter")
	}
}

// TestCollapsedBlockDrawnOverIsCut: opencode's short view shows the last
// rows of each output. A block in an output it shows collapsed ends in
// "…" and the hint to expand it; the next output, its echo above the view,
// is drawn over the same rows, and the "…" row, unchanged, is not read
// again: the block's first row is read again holding other text. The
// block was cut by the program, not left open by its author: no error
// (issue 29, o/opencode-s12300002). Where the output showed no hint, the
// block was left open: an error, as before.
func TestCollapsedBlockDrawnOverIsCut(t *testing.T) {
	t.Parallel()
	block := []string{"  ┃  represent animal", "  ┃  [[RELAY]]", "  ┃  {", `  ┃    "to": "qa_1",`, `  ┃    "type": "message",`,
		`  ┃    "body": "gas moon colony allow`, `  ┃  area cover wrote",`, `  ┃    "topic": "t663"`, "  ┃  }"}
	next := []string{"  ┃  sharp element arrange", "  ┃  progress 0%", "  ┃  progress 50%", "  ┃  @relay:* new while team"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"collapsed", []string{`relay * "new while team"`}},
		{"whole", []string{"error: unterminated relay block: a new command started on line 3", `relay * "new while team"`}},
	} {
		r := newCommandReader(parser.Options{}, screenmodel.Of("opencode"))
		var got []string
		describe := func(evs []parser.Event) { got = append(got, readerEvents(evs)...) }
		describe(r.read(spawner.Line{N: 20, Text: "  ┃  $ cat f5.txt", Cols: 120}))
		if tc.name == "collapsed" {
			describe(r.read(spawner.Line{N: 13, Text: "  ┃  Click to expand", Cols: 120}))
		}
		for i, row := range block {
			describe(r.read(spawner.Line{N: int64(i), Text: row, Cols: 120}))
		}
		for i, row := range next {
			describe(r.read(spawner.Line{N: int64(i), Text: row, Cols: 120}))
		}
		describe(r.flush(true))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestBlockWhoseRowsSlidByUnreadIsCut: rows read from Claude Code's
// running preview (spawner's glimpses) hold a block's first rows, then,
// after rows that slid by unread, other rows: the line read right after
// the rows left out says so (Line.Elided), and the block open there is
// the program's cut, dropped without an error; a relay line after it is
// read (issue 29, claude-s13500018). The same rows with no rows left out
// between them are a block its author left open: an error, as before.
func TestBlockWhoseRowsSlidByUnreadIsCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		elided bool
		want   []string
	}{
		{true, []string{`relay * "read after the gap"`}},
		{false, []string{"error: unterminated relay block: a new command started on line 6", `relay * "read after the gap"`}},
	} {
		r := newCommandReader(parser.Options{}, screenmodel.Of("claude"))
		var got []string
		for i, l := range []spawner.Line{
			{Text: "! sh f1.sh"},
			{Text: "  ⎿  line one"},
			{Text: "     [[RELAY]]"},
			{Text: `     {"to":"bob","type":"message","body":"the block's end slid by"`},
			{N: 5, Text: "     line eight", Elided: tc.elided},
			{N: 6, Text: "     @relay:* read after the gap"},
		} {
			if l.N == 0 {
				l.N = int64(i)
			}
			l.Cols = 80
			got = append(got, readerEvents(r.read(l))...)
		}
		got = append(got, readerEvents(r.flush(true))...)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("elided %v (-want +got):\n%s", tc.elided, diff)
		}
	}
}

// readCommands feeds lines, in order, to a new reader for the program kind
// and returns what it read, flushed at the end, as readerEvents describes
// it.
func readCommands(kind string, lines ...spawner.Line) []string {
	r := newCommandReader(parser.Options{}, screenmodel.Of(kind))
	var got []string
	for _, l := range lines {
		got = append(got, readerEvents(r.read(l))...)
	}
	return append(got, readerEvents(r.flush(true))...)
}

// readerEvents describes the reader's events as its tests compare them:
// a command's kind, recipient and quoted body, or "error: " and the
// reason.
func readerEvents(evs []parser.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Err != nil {
			out = append(out, "error: "+ev.Err.Reason)
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %q", ev.Command.Kind, ev.Command.To, ev.Command.Body))
	}
	return out
}

// TestRowsANarrowerScreenPushedOffGoOnAcrossTheirLines: Claude Code inline
// draws a command's output in its live area, a relay wrapped over three
// rows for 60 columns; the screen narrows to 40 and shortens before output
// settles, and the terminal rewraps the rows, each over two lines, as they
// leave at the top; then the program erases the screen and draws its last
// rows for 40 columns. A reader scrolling back sees the relay's rows one
// under the other, each broken over two lines: one line, read whole (issue
// 29: claude-inline-s13500004, three relays cut to their first rows).
func TestRowsANarrowerScreenPushedOffGoOnAcrossTheirLines(t *testing.T) {
	t.Parallel()
	rule := func(w int) string { return strings.Repeat("─", w) }
	box := func(w int) string {
		return rule(w) + "\r\n❯ \r\n" + rule(w) + "\r\n  ? for shortcuts\x1b[2A\r\x1b[2C"
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	got := commandsRecorded(t, "claude", 60, 12,
		asciicast.Event{Time: 0, Code: asciicast.Output, Data: "! cat a.txt\r\n  ⎿  done\r\n\r\n" +
			"! sh f.sh\r\n  ⎿  Running…\r\n\r\n" + box(60)},
		// The output drawn over the live area, from the "Running…" row.
		asciicast.Event{Time: ms(1000), Code: asciicast.Output, Data: "\r\x1b[3A" +
			"  ⎿  @relay:bob alpha bravo charlie delta echo foxtrot\x1b[K\r\n" +
			"     november oscar papa quebec romeo sierra tango golf\x1b[K\r\n" +
			"     uniform victor whiskey\x1b[K\r\n     end of the output\x1b[K\r\n\x1b[K\r\n" + box(60)},
		asciicast.Event{Time: ms(1002), Code: asciicast.Resize, Data: "40x8"},
		// Every row erased, the frame's last rows drawn for 40 columns.
		asciicast.Event{Time: ms(1030), Code: asciicast.Output, Data: "\x1b[2B\x1b[H" + strings.Repeat("\x1b[2K\x1b[1B", 7) + "\x1b[2K\x1b[H" +
			"     papa quebec romeo sierra tango golf\r\n     uniform victor whiskey\r\n     end of the output\r\n\r\n" + box(40)},
	)
	want := []string{`relay bob "alpha bravo charlie delta echo foxtrot november oscar papa quebec romeo sierra tango golf uniform victor whiskey"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestALineWiderThanItsScreenPushedOffStaysApart: a line the terminal
// broke at the width it was shown on (wider than that screen: no row the
// program wrapped) and that a narrower screen then pushed off takes more
// lines, as a rewrapped row does; the line under all of them is another
// line, as it was under the line before the screen narrowed. A row that
// fit its screen goes on there.
func TestALineWiderThanItsScreenPushedOffStaysApart(t *testing.T) {
	t.Parallel()
	read := func(first string, rows int) []string {
		r := newCommandReader(parser.Options{}, screenmodel.Of("claude"))
		var got []string
		got = append(got, readerEvents(r.read(spawner.Line{N: 10, Text: first, Cols: 40, Rows: rows}))...)
		got = append(got, readerEvents(r.read(spawner.Line{N: 10 + int64(rows), Text: "     november oscar", Cols: 40}))...)
		return append(got, readerEvents(r.p.Flush())...)
	}
	wide := "  ⎿  @relay:bob alpha bravo charlie delta echo foxtrot golf hotel"
	if got, want := read(wide, 3), []string{`relay bob "alpha bravo charlie delta echo foxtrot golf hotel"`}; !slices.Equal(got, want) {
		t.Errorf("a line wider than its screen: got %q, want %q", got, want)
	}
	fit := "  ⎿  @relay:bob alpha bravo charlie"
	if got, want := read(fit, 2), []string{`relay bob "alpha bravo charlie november oscar"`}; !slices.Equal(got, want) {
		t.Errorf("a row that fit its screen: got %q, want %q", got, want)
	}
}
