package supervisor

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"swarm/internal/testrun"
	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
)

// updateGolden rewrites the transcripts' expected events. The flag is
// shared with any other test in the package that registers -update.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files from the code's output")
	}
}

const transcriptDir = "../testdata/transcripts"

// extractAll runs Extract over raw fed in the given cuts and returns the
// events as JSON lines.
func extractAll(t testing.TB, raw []byte, cuts []int, opts ExtractOptions) string {
	t.Helper()
	var out bytes.Buffer
	err := Extract(&cutReader{data: raw, cuts: cuts}, opts, func(ev parser.Event) {
		b, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// cutReader returns data in reads that end exactly at cuts (ascending
// offsets); after the last cut, the rest at once.
type cutReader struct {
	data []byte
	cuts []int
	off  int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	for len(r.cuts) > 0 && r.cuts[0] <= r.off {
		r.cuts = r.cuts[1:]
	}
	if len(r.cuts) > 0 {
		end = r.cuts[0]
	}
	end = min(end, r.off+len(p))
	n := copy(p, r.data[r.off:end])
	r.off += n
	return n, nil
}

// cutSets returns the ways a transcript is cut into reads, so that every
// byte offset is a read boundary in some run: runs cut every 32 bytes, one
// at each of the 32 phases (a run per offset would cost a screen per
// byte, and the one-byte-at-a-time run puts a boundary at every offset at
// once); for the oversized block (1 MiB of output, half a second a run),
// one run cut around the markers only.
func cutSets(raw []byte) [][]int {
	n := len(raw)
	if n > 64<<10 {
		return [][]int{{5, 13, 27, n / 2, n - 60, n - 47, n - 30, n - 2}}
	}
	const m = 32
	var sets [][]int
	for phase := 1; phase <= min(m, n-1); phase++ {
		var cuts []int
		for k := phase; k < n; k += m {
			cuts = append(cuts, k)
		}
		sets = append(sets, cuts)
	}
	return sets
}

// TestTranscripts plays testdata/transcripts/NAME.raw through the screen
// and the parser and compares the events with NAME.golden: read whole, cut
// at every offset (see cutSets), and one byte at a time.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	eachFile(t, transcriptDir, ".raw", func(t *testing.T, name string, raw []byte) {
		got := extractAll(t, raw, nil, ExtractOptions{})
		golden := filepath.Join(transcriptDir, name+".golden")
		if updateGolden() {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./supervisor/ -run TestTranscripts -update creates it)", err)
		}
		if got != string(want) {
			t.Fatalf("events differ from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
		}
		for _, cuts := range cutSets(raw) {
			if split := extractAll(t, raw, cuts, ExtractOptions{}); split != got {
				t.Fatalf("cut at bytes %v:\ngot:\n%s\nwant:\n%s", cuts, split, got)
			}
		}
		if len(raw) > 64<<10 {
			return // one byte at a time: a million screen writes
		}
		var one bytes.Buffer
		err = Extract(iotest.OneByteReader(bytes.NewReader(raw)), ExtractOptions{}, func(ev parser.Event) {
			b, _ := ev.MarshalJSON()
			one.Write(b)
			one.WriteByte('\n')
		})
		if err != nil || one.String() != got {
			t.Fatalf("one byte at a time (%v):\ngot:\n%s\nwant:\n%s", err, one.String(), got)
		}
	})
}

// eachFile runs fn as a parallel subtest for each file in dir whose name
// ends in ext, with the name without ext and the file's content.
func eachFile(t *testing.T, dir, ext string, fn func(t *testing.T, name string, data []byte)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s files in %s: %v", ext, dir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ext)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, name, data)
		})
	}
}

func TestExtractOptions(t *testing.T) {
	t.Parallel()
	// Plain text with bare line feeds, on a narrow screen.
	in := "@relay:bob a message wider than twenty columns\nnext\n"
	got := extractAll(t, []byte(in), nil, ExtractOptions{Cols: 20, NewlineMode: true, ChunkSize: 3})
	want := `{"kind":"relay","to":"bob","type":"message","body":"a message wider than twenty columns","line":0}` + "\n"
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestExtractReadError(t *testing.T) {
	t.Parallel()
	err := Extract(iotest.ErrReader(fmt.Errorf("disk gone")), ExtractOptions{}, func(parser.Event) {})
	if err == nil || err.Error() != "read terminal output: disk gone" {
		t.Fatalf("err = %v", err)
	}
}

// FuzzExtract plays arbitrary bytes through the screen and the parser on
// a small screen: no panic, and cutting the input in two changes no event.
func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(transcriptDir, "*.raw"))
	for _, file := range files {
		if raw, err := os.ReadFile(file); err == nil && len(raw) < 8<<10 {
			f.Add(raw, uint16(len(raw)/3), uint8(10), uint8(40))
		}
	}
	f.Add([]byte("[[RELAY]]\r\n{\"to\":\"bob\",\"body\":\"\x1b[31mx\"}\r\n[[/RELAY]]\r\n\x1b[?1049h@relay:a b\x1b[?1049l"), uint16(20), uint8(3), uint8(8))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, rows, cols uint8) {
		opts := ExtractOptions{Rows: int(rows%30) + 1, Cols: int(cols%120) + 1, Parser: parser.Options{MaxBlock: 4096}}
		whole := extractAll(t, data, nil, opts)
		k := int(cut) % (len(data) + 1)
		if split := extractAll(t, data, []int{k}, opts); split != whole {
			t.Fatalf("cut at %d:\ngot:\n%s\nwant:\n%s", k, split, whole)
		}
	})
}

// BenchmarkExtract is one agent's output pipeline, screen and parser, over
// 1 MiB of ANSI-heavy output read 4 KiB at a time. Goal: at least 4 MB/s.
func BenchmarkExtract(b *testing.B) {
	benchExtract(b, testrun.AgentOutput(1<<20), -1)
}

// benchExtract runs Extract over data read 4 KiB at a time and reports the
// commands found; want, when not -1, is how many there must be.
func benchExtract(b *testing.B, data []byte, want int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	commands := 0
	for b.Loop() {
		commands = 0
		err := Extract(bytes.NewReader(data), ExtractOptions{ChunkSize: 4096}, func(ev parser.Event) {
			if ev.Command != nil {
				commands++
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if want >= 0 && commands != want {
		b.Fatalf("%d commands, want %d", commands, want)
	}
	b.ReportMetric(float64(commands), "commands")
}

// chatSession returns about size bytes of a full-screen chat view on the
// alternate screen, drawn as Claude Code's and Codex's renderers do: a
// transcript of coloured paragraphs under bullets (some relay lines, some
// wrapped), the newest at the bottom of the view, a spinner, an input box
// and a footer; every new paragraph redraws the whole view inside a
// synchronized update, and between them the spinner turns (only its row is
// redrawn, without synchronized update). It also returns how many relay
// commands it holds.
func chatSession(size int) ([]byte, int) {
	const rows, cols = 24, 80
	var b strings.Builder
	var transcript []string
	spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	commands := 0
	b.WriteString("\x1b[?1049h\x1b[?25l")
	for i := 0; b.Len() < size; i++ {
		switch i % 4 {
		case 0:
			transcript = append(transcript, fmt.Sprintf("\x1b[32m⏺\x1b[0m \x1b[1m@relay:bob\x1b[0m step %d is done, please review it", i))
			commands++
		case 1:
			transcript = append(transcript, fmt.Sprintf("\x1b[32m⏺\x1b[0m \x1b[1mBash\x1b[0m(go test ./... -run Test%d)", i),
				"  ⎿  \x1b[2mok   example.com/module/pkg   0.412s\x1b[0m",
				fmt.Sprintf("     \x1b[2mok   example.com/module/other %d.1s\x1b[0m", i%9))
		case 2:
			transcript = append(transcript, fmt.Sprintf("\x1b[32m⏺\x1b[0m I read the files and found %d places where the token is refreshed too", i),
				"  late; the fix moves the refresh before the expiry check and adds a test")
		case 3:
			transcript = append(transcript, fmt.Sprintf("\x1b[36m>\x1b[0m \x1b[48;5;236m[relay #%08x from alice] how is it going?\x1b[0m", i))
		}
		transcript = append(transcript, "")
		view := transcript[max(len(transcript)-(rows-5), 0):]
		b.WriteString("\x1b[?2026h")
		for y := range rows - 5 {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K", y+1)
			if y < len(view) {
				b.WriteString(view[y])
			}
		}
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K\x1b[2m%s\x1b[0m", rows-3, strings.Repeat("─", cols))
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K\x1b[1m❯\x1b[0m ", rows-2)
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K\x1b[2m%s\x1b[0m", rows-1, strings.Repeat("─", cols))
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K  \x1b[2m? for shortcuts\x1b[0m\x1b[%d;3H", rows, rows-2)
		b.WriteString("\x1b[?2026l")
		for f := range 3 {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K\x1b[35m%s\x1b[0m Working… \x1b[2m(%ds · esc to interrupt)\x1b[0m\x1b[%d;3H",
				rows-4, spin[(i+f)%len(spin)], i, rows-2)
		}
	}
	return []byte(b.String()), commands
}

// BenchmarkExtractAltScreen is BenchmarkExtract on a chat view drawn on
// the alternate screen (chatSession). Goal: no slower than the main
// screen's, at least 6 MB/s per core.
func BenchmarkExtractAltScreen(b *testing.B) {
	data, want := chatSession(1 << 20)
	benchExtract(b, data, want)
}

// TestChatSessionOnceEach checks what BenchmarkExtractAltScreen measures:
// every relay line of the chat view comes out once, cut anywhere.
func TestChatSessionOnceEach(t *testing.T) {
	t.Parallel()
	data, want := chatSession(64 << 10)
	for _, chunk := range []int{4096, 977} {
		got := strings.Count(extractAll(t, data, nil, ExtractOptions{ChunkSize: chunk}), `"kind":"relay"`)
		if got != want {
			t.Errorf("chunks of %d: %d commands, want %d", chunk, got, want)
		}
	}
}

// TestBlockWithRowsLeftOut: a block the program shows with its middle left
// out (Codex and Claude Code show a long output's first and last rows
// around "… +N lines") is not an error of the agent's: no error event,
// and the command after it is read.
func TestBlockWithRowsLeftOut(t *testing.T) {
	t.Parallel()
	raw := "• Ran cat f.txt\r\n  └ [[RELAY]]\r\n    {\r\n      \"to\": \"bob\",\r\n" +
		"    … +12 lines (^t to view transcript)\r\n    }\r\n    [[/RELAY]]\r\n    end of the output\r\n" +
		"@relay:bob after\r\n\r\n"
	got := extractAll(t, []byte(raw), nil, ExtractOptions{Kind: "codex"})
	if want := `{"kind":"relay","to":"bob","type":"message","body":"after","line":8}` + "\n"; got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

// TestCommandWithRowsLeftOut: a command wrapped over rows that the program
// shows with the rows after it left out ("… +N lines": Codex's first rows
// of a long output, Claude Code's collapsed output) was cut by the
// program, not written short by the agent: it is not read there (it is
// read where the program shows it whole, if anywhere). A command on one
// row before the elision is read.
func TestCommandWithRowsLeftOut(t *testing.T) {
	t.Parallel()
	// The first row ends where the next row's first word would not fit
	// (Codex wraps at the edge of 80 columns).
	first := "  └ @relay:bob a long command that the program wrapped over rows " + strings.Repeat("x", 10)
	raw := "• Ran cat f.txt\r\n" + first + "\r\n    continuing\r\n" +
		"    … +12 lines (^t to view transcript)\r\n    end of the output\r\n" +
		"• Ran cat g.txt\r\n  └ first\r\n    @relay:carol one row\r\n    … +3 lines (^t to view transcript)\r\n    end\r\n\r\n"
	got := extractAll(t, []byte(raw), nil, ExtractOptions{Kind: "codex"})
	if want := `{"kind":"relay","to":"carol","type":"message","body":"one row","line":7}` + "\n"; got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

// TestCommandEndedBeforeRowsLeftOut: Codex's "… +N lines" read away from
// a command wrapped over rows (numbered far above its last row: the view
// laid out anew after a resize shows the output collapsed) does not cut
// it where its last row left room for any word: the program wraps a line
// only where its next word does not fit, so the line ended there
// (codex-s100500000: a relay printed twice, read whole, then the output
// collapsed; dropped as cut, the second copy was lost). Its last row
// filled to the edge, the line may go on in rows not read yet; right
// under the command, the rows left out are where its line goes (Claude
// Code's preview cut a row mid-word, "machine sq" over "uare"): both cut.
func TestCommandEndedBeforeRowsLeftOut(t *testing.T) {
	t.Parallel()
	// Filled: the next row's first word would not have fitted.
	first := "    @relay:bob a long command that the program wrapped over rows " + strings.Repeat("x", 10)
	elision := "    … +12 lines (^t to view transcript)"
	cases := []struct {
		name      string
		last      string
		lastCols  int
		elisionAt int64
		want      string
	}{
		{"ended, elision away", "    continuing and ended", 80, 0,
			`relay bob "a long command that the program wrapped over rows ` + strings.Repeat("x", 10) + ` continuing and ended"`},
		{"filled, elision away", "    continuing " + strings.Repeat("y", 60), 80, 0, ""},
		{"ended, elision right under", "    continuing and ended", 80, 13, ""},
		// Laid out at 80 columns, its last row committed once the screen
		// grew to 120 (reviewer17's probe): no row of it came near 120.
		{"filled, committed wider", "    continuing " + strings.Repeat("y", 60), 120, 0, ""},
	}
	for _, c := range cases {
		got := readCommands("codex",
			spawner.Line{N: 10, Text: "• You ran cat f.txt", Cols: 80},
			spawner.Line{N: 11, Text: first, Cols: 80},
			spawner.Line{N: 12, Text: c.last, Cols: c.lastCols},
			spawner.Line{N: c.elisionAt, Text: elision, Cols: c.lastCols},
			spawner.Line{N: c.elisionAt + 1, Text: "    end of the output", Cols: c.lastCols},
		)
		var want []string
		if c.want != "" {
			want = []string{c.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: read %q, want %q", c.name, got, want)
		}
	}
}

// geminiBoxRow is s as a row of Gemini CLI's box of a command's output,
// 48 columns wide.
func geminiBoxRow(s string) string { return "│ " + s + strings.Repeat(" ", 44-len(s)) + " │" }

// TestLiveBoxShownAgainDone: Gemini CLI shows a command's output in a box
// live while it runs, the output's latest rows under "first N lines
// hidden", then prints the box done, its last rows again. A command read
// in the live box that the done box shows again at the same row of the
// output is one command, read where the done box shows it, in its order;
// the same text at another row is printed again; a command only the live
// box showed is read too, where it showed the most of it; all in the order
// of their rows in the output (the done box's "early one", row 6, above
// the live box's row 8).
func TestLiveBoxShownAgainDone(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 74, Text: row("... first 8 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("@relay:bob only the live box showed this")},
		{N: 77, Text: row("@relay:qa_1 can call")}, // output row 8+2
		// The view slides: a command it showed cut, then whole.
		{N: 76, Text: row("@relay:carol a long")}, // output row 8+1
		{N: 74, Text: row("... first 9 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("@relay:carol a long line")}, // output row 9+0
		{N: 72, Text: row("✓  Shell Command sh f.sh")},
		{N: 74, Text: row("... first 4 lines hidden (Ctrl+O) ...")},
		{N: 77, Text: row("@relay:qa_1 early one")}, // output row 4+2
		{N: 81, Text: row("@relay:qa_1 can call")},  // output row 4+6: the live box's
		{N: 82, Text: row("@relay:qa_1 can call")},  // output row 4+7: printed again
		{N: 83, Text: "╰" + strings.Repeat("─", 46) + "╯"},
	}
	r := newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	var got []string
	take := func(evs []parser.Event) {
		for _, ev := range evs {
			if ev.Command != nil {
				got = append(got, fmt.Sprintf("%s %s @%d", ev.Command.To, ev.Command.Body, ev.Command.Line))
			} else {
				got = append(got, ev.Err.Error())
			}
		}
	}
	for _, l := range lines {
		take(r.read(l))
	}
	take(r.flush(true))
	want := []string{"qa_1 early one @77", "bob only the live box showed this @75", "carol a long line @75", "qa_1 can call @81", "qa_1 can call @82"}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}

	// A live box the output ends in: what it showed is read at the end.
	r = newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	got = nil
	for _, l := range lines[:4] {
		take(r.read(l))
	}
	if len(got) != 0 {
		t.Errorf("read in a live box before it is done: %q", got)
	}
	take(r.flush(true))
	if want := []string{"bob only the live box showed this @75", "qa_1 can call @77"}; !slices.Equal(got, want) {
		t.Errorf("at the end of the output: commands %q, want %q", got, want)
	}
}

// TestAMalformedBlockOnlyTheLiveBoxShowedIsReported: a relay block Gemini
// CLI's live box showed, malformed, on rows of the output its done box
// no longer shows (hidden above it), is reported as an error when the box
// is done, as the done box would have reported it: the agent hears its
// block was bad.
func TestAMalformedBlockOnlyTheLiveBoxShowedIsReported(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 74, Text: row("[[RELAY]]")}, // output row 0
		{N: 75, Text: row(`{"to": "bob", "body": oops}`)},
		{N: 76, Text: row("[[/RELAY]]")},
		{N: 77, Text: row("@relay:carol fine")}, // output row 3
		{N: 72, Text: row("✓  Shell Command sh f.sh")},
		{N: 74, Text: row("... first 40 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("@relay:dave done")}, // output row 40
		{N: 76, Text: "╰" + strings.Repeat("─", 46) + "╯"},
	}
	r := newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	var got []string
	for _, l := range append(lines, spawner.Line{}) {
		var evs []parser.Event
		if l.Text == "" {
			evs = r.flush(true)
		} else {
			evs = r.read(l)
		}
		for _, ev := range evs {
			if ev.Command != nil {
				got = append(got, ev.Command.To+" "+ev.Command.Body)
			} else {
				got = append(got, "error")
			}
		}
	}
	if want := []string{"error", "carol fine", "dave done"}; !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
}

// TestALiveBoxHoldsOnlyTheOutputItsDoneBoxCanShow: a command Gemini CLI's
// live box showed goes out once the box's output has gone on further
// than its done box can show again, not when the command ends: a command
// that runs for long (or never ends) gets its relay lines out, and what
// the box holds stays bounded.
func TestALiveBoxHoldsOnlyTheOutputItsDoneBoxCanShow(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	r := newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	var got []string
	take := func(evs []parser.Event) {
		for _, ev := range evs {
			if ev.Command != nil {
				got = append(got, ev.Command.To+" "+ev.Command.Body)
			} else {
				got = append(got, "error")
			}
		}
	}
	take(r.read(spawner.Line{N: 72, Text: row("⊷  Shell Command sh f.sh")}))
	take(r.read(spawner.Line{N: 74, Text: row("@relay:bob early")})) // output row 0
	// The view slides: each output row shown under its count of rows
	// hidden, from the third (the row under the command slid by unseen:
	// whether its line ended there is not shown).
	for k := 2; k <= boxReach; k++ {
		take(r.read(spawner.Line{N: 74, Text: row(fmt.Sprintf("... first %d lines hidden (Ctrl+O) ...", k))}))
		take(r.read(spawner.Line{N: 75, Text: row(fmt.Sprintf("line %d of the output", k))}))
	}
	if len(got) != 0 {
		t.Fatalf("read while the done box may still show it: %q", got)
	}
	k := boxReach + 1
	take(r.read(spawner.Line{N: 74, Text: row(fmt.Sprintf("... first %d lines hidden (Ctrl+O) ...", k))}))
	take(r.read(spawner.Line{N: 75, Text: row("@relay:carol late")}))
	if want := []string{"bob early"}; !slices.Equal(got, want) {
		t.Fatalf("once the output went on past what the done box shows: %q, want %q", got, want)
	}
	take(r.read(spawner.Line{N: 72, Text: row("✓  Shell Command sh f.sh")}))
	take(r.read(spawner.Line{N: 74, Text: row(fmt.Sprintf("... first %d lines hidden (Ctrl+O) ...", k))}))
	take(r.read(spawner.Line{N: 75, Text: row("@relay:carol late")}))
	take(r.read(spawner.Line{N: 76, Text: "╰" + strings.Repeat("─", 46) + "╯"}))
	take(r.flush(true))
	if want := []string{"bob early", "carol late"}; !slices.Equal(got, want) {
		t.Errorf("at the end: %q, want %q", got, want)
	}
}

// TestARelayLineALiveBoxShowsWholeGoesOutAtOnce: a command running inside
// Gemini CLI prints a relay line and the next line, then works on: its
// live box shows the relay line whole (the line under it tells that its
// line ended), and a reader sees it there, so it goes out then, before
// the command ends. The done box, printed when the command ends, shows it
// again: it does not go out twice. A relay line the live box shows last,
// with no line under it yet, waits: more of it may follow.
func TestARelayLineALiveBoxShowsWholeGoesOutAtOnce(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	top := "╭" + strings.Repeat("─", 46) + "╮"
	bottom := "╰" + strings.Repeat("─", 46) + "╯"
	// box draws the box under the echo of the typed command, over the
	// one drawn before (Ink's frame: up to the box's top, each row
	// erased and drawn again), and leaves the cursor under it.
	drawn := 0
	box := func(rows ...string) string {
		var b strings.Builder
		if drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", drawn)
		}
		for _, r := range append(append([]string{top}, rows...), bottom) {
			b.WriteString("\r\x1b[2K" + r + "\r\n")
		}
		drawn = len(rows) + 2
		return b.String()
	}
	now := time.Unix(0, 0)
	var got []string
	x := newExtractor(ExtractOptions{Rows: 30, Cols: 48, Kind: "gemini"}, func(ev parser.Event) {
		if ev.Command != nil {
			got = append(got, ev.Command.To+" "+ev.Command.Body)
		} else {
			got = append(got, ev.Err.Error())
		}
	}, func() time.Time { return now }, 0)
	defer x.s.Close()
	// quiet is a pause in the output while the command works.
	quiet := func() {
		now = now.Add(time.Second)
		x.settle()
	}
	x.write([]byte(" $ sh f.sh\r\n\r\n" + box(row("⊶  Shell Command sh f.sh"), row(""))))
	quiet()
	x.write([]byte(box(row("⊷  Shell Command sh f.sh"), row(""), row("@relay:bob first"), row("working"))))
	quiet()
	if want := []string{"bob first"}; !slices.Equal(got, want) {
		t.Fatalf("while the command works, after its live box showed a relay line and the next: %q, want %q", got, want)
	}
	x.write([]byte(box(row("⊶  Shell Command sh f.sh"), row(""), row("@relay:bob first"), row("working"), row("@relay:carol last"))))
	quiet()
	if want := []string{"bob first"}; !slices.Equal(got, want) {
		t.Fatalf("a relay line the live box shows last went out while the command works: %q, want %q", got, want)
	}
	// The command ends: Gemini prints its box done, with all of its output.
	x.write([]byte(box(row("✓  Shell Command sh f.sh"), row(""), row("@relay:bob first"), row("working"), row("@relay:carol last")) + "\r\n > "))
	quiet()
	x.end()
	if want := []string{"bob first", "carol last"}; !slices.Equal(got, want) {
		t.Errorf("once the command is done: %q, want %q", got, want)
	}
}

// TestALiveBoxKeepsOnlyTheCommandsItsDoneBoxCanShowAgain: the commands a
// command's live box showed whole went out at once; the box remembers
// them, so that its done box does not send them again, only as far up as
// the done box can show: a command that runs for long (or never ends) and
// prints relay lines all along does not make the box grow.
func TestALiveBoxKeepsOnlyTheCommandsItsDoneBoxCanShowAgain(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	r := newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	sent := 0
	read := func(l spawner.Line) {
		for _, ev := range r.read(l) {
			if ev.Command == nil {
				t.Fatalf("error %v", ev.Err)
			}
			sent++
		}
	}
	read(spawner.Line{N: 72, Text: row("⊷  Shell Command sh f.sh")})
	read(spawner.Line{N: 74, Text: row("@relay:bob first")}) // output row 0
	read(spawner.Line{N: 75, Text: row("working")})
	// The view slides two rows at a time: a relay line and the next.
	const steps = 3 * boxReach
	for k := 1; k <= steps; k++ {
		read(spawner.Line{N: 74, Text: row(fmt.Sprintf("... first %d lines hidden (Ctrl+O) ...", 2*k))})
		read(spawner.Line{N: 75, Text: row(fmt.Sprintf("@relay:bob %d", k))}) // output row 2k
		read(spawner.Line{N: 76, Text: row("working")})
	}
	if sent != steps+1 {
		t.Fatalf("%d commands went out while the command worked, want %d", sent, steps+1)
	}
	if n := len(r.box.sent); n > boxReach/2+1 {
		t.Errorf("the live box remembers %d commands, more than the %d its done box can show again", n, boxReach/2+1)
	}
}

// Lines given late (spawner.Line.Late: history a taller view shows only
// now, above a paragraph read already) and that paragraph's rows again
// (Again) are read apart: a block that begins on a Late line is read
// once, whole, and a block whole among the Again rows was read already,
// as the lines read before were, and is not read again; the lines in
// order go on as if they were not there.
func TestLateLinesAreReadApart(t *testing.T) {
	body := `{"to":"bob","type":"message","body":"hi"}`
	again := `{"to":"carol","type":"message","body":"read already"}`
	lines := []spawner.Line{
		{N: 0, Text: body},
		{N: 1, Text: "[[/RELAY]]"},
		{N: 2, Text: "[[RELAY]]"},
		{N: 3, Text: again},
		{N: 4, Text: "[[/RELAY]]"},
		{N: 5, Text: "@relay:dave in order"},
		{N: 6, Text: "[[RELAY]]"},
		{N: 1, Text: "$ cat a.txt", Late: true},
		{N: 2, Text: "[[RELAY]]", Late: true},
		{N: 3, Text: body, Again: true},
		{N: 4, Text: "[[/RELAY]]", Again: true},
		{N: 5, Text: "[[RELAY]]", Again: true},
		{N: 6, Text: again, Again: true},
		{N: 7, Text: "[[/RELAY]]", Again: true},
		{N: 7, Text: `{"to":"eve","type":"message","body":"goes on"}`},
		{N: 8, Text: "[[/RELAY]]"},
		// Again with no Late line before it: nothing to go on with.
		{N: 9, Text: "@relay:frank read already", Again: true},
	}
	r := newCommandReader(parser.Options{}, screenmodel.Of("codex"))
	var got []string
	take := func(evs []parser.Event) {
		for _, ev := range evs {
			if ev.Command != nil {
				got = append(got, ev.Command.To+" "+ev.Command.Body)
			} else {
				got = append(got, ev.Err.Error())
			}
		}
	}
	for _, l := range lines {
		take(r.read(l))
	}
	take(r.flush(true))
	want := []string{"carol read already", "dave in order", "bob hi", "eve goes on"}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
}

// A view grown after a resize may show history both above and under a
// paragraph read already (Late lines around its rows given Again): a
// command that begins on one of those Again rows was read already, even
// with Late lines on both sides of it (codex-s12900028: a relay read a
// second time, cut at the row the new width wrapped anew), while one that
// begins on a Late line under it is new.
func TestAgainLinesAmidLateLinesAreReadAlready(t *testing.T) {
	lines := []spawner.Line{
		// A row filled to the edge: the command may go on under it.
		{N: 0, Text: "@relay:bob hello there x", Cols: 24},
		{N: 2, Text: "plain output", Cols: 24},
		{N: 3, Text: "$ cat a.txt", Cols: 24, Late: true},
		{N: 5, Text: "@relay:bob hello there x", Cols: 24, Again: true},
		{N: 8, Text: "$ cat b.txt", Cols: 24, Late: true},
		{N: 9, Text: "@relay:carol new history", Cols: 24, Late: true},
	}
	got := readCommands("codex", lines...)
	want := []string{`relay bob "hello there x"`, `relay carol "new history"`}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
}

// A command on one row right above the program's "… +N lines" is cut by
// the program where the row left no room for a long word: the line may go
// on in the rows left out (codex-inline s99800002's preview delivered
// "of use café cat meet might gold", cut); a row with room left ended its
// line, and is read (TestCommandWithRowsLeftOut's "one row").
func TestOneRowCommandFilledBeforeRowsLeftOut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		row, want string
	}{
		{"    @relay:bob a command on one row that the program filled to its edge " + strings.Repeat("x", 4), ""},
		{"    @relay:bob a command on one row with room left", `relay bob "a command on one row with room left"`},
	} {
		got := readCommands("codex",
			spawner.Line{N: 10, Text: "• You ran cat f.txt", Cols: 80},
			spawner.Line{N: 11, Text: c.row, Cols: 80},
			spawner.Line{N: 12, Text: "    … +12 lines (^t to view transcript)", Cols: 80},
			spawner.Line{N: 13, Text: "    end of the output", Cols: 80},
		)
		var want []string
		if c.want != "" {
			want = []string{c.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: read %q, want %q", c.row, got, want)
		}
	}
}
