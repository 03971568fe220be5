package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestARowOnlyARunningCommandsPreviewShowedIsRead: Claude Code shows a
// running command's latest rows above "… +N lines (2s)". Once the command
// is done it shows the output collapsed to its first rows, or whole with
// the view at its end: a row from the middle that the preview showed as it
// slid by shows nowhere else, and a reader saw it there. It is read once,
// in the output's order; rows the view shows whole are read there, once;
// a row the preview showed for less than the settle time is not read.
func TestARowOnlyARunningCommandsPreviewShowedIsRead(t *testing.T) {
	t.Parallel()
	running := [][]string{
		{"! sh f1.sh", "  ⎿  line one", "     line two", "     @relay:bob seen only here", "     line four", "     … +1 line (1s)"},
		{"! sh f1.sh", "  ⎿  line two", "     @relay:bob seen only here", "     line four", "     line five", "     … +2 lines (1s)"},
		{"! sh f1.sh", "  ⎿  @relay:alice too brief", "     line six", "     line seven", "     line eight", "     … +5 lines (2s)"},
		{"! sh f1.sh", "  ⎿  line nine", "     line ten", "     line eleven", "     line twelve", "     … +10 lines (3s)"},
	}
	settled := []time.Duration{time.Second, time.Second, 100 * time.Millisecond, time.Second}
	for _, tc := range []struct {
		name string
		done []string
		want []string
	}{
		{"collapsed", []string{"! sh f1.sh", "  ⎿  line one", "     … +11 lines (ctrl+o to expand)"},
			[]string{"line one", "line two", "@relay:bob seen only here", "line four", "line five", "line nine", "line ten", "line eleven", "line twelve"}},
		{"whole, the view at its end", []string{"     line ten", "     line eleven", "     line twelve"},
			[]string{"line one", "line two", "@relay:bob seen only here", "line four", "line five", "line nine", "line ten", "line eleven", "line twelve"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newKindRun(t, "claude", 24, 60)
			r.write("\x1b[?1049h\x1b[?25l")
			for i, rows := range running {
				r.write(previewFrame(rows...) + "\x1b[24;1H")
				r.pause(settled[i])
			}
			r.write(previewFrame(tc.done...) + "\x1b[24;1H")
			r.pause(time.Second)
			r.flush()
			var got []string
			for _, l := range r.lines {
				if l = strings.TrimLeft(l, " ⎿\u00a0"); strings.HasPrefix(l, "line ") || strings.HasPrefix(l, "@relay:") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("committed:\n%s\nwant:\n%s\nall lines:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), strings.Join(r.lines, "\n"))
			}
		})
	}
}

// previewFrame draws rows from the top of the screen, and erases the rest.
func previewFrame(rows ...string) string {
	var b strings.Builder
	for y, row := range rows {
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
	}
	b.WriteString("\r\n\x1b[J")
	return b.String()
}

// slidBy is a running command's preview sliding past a relay line, shown
// for the settle time.
var slidBy = [][]string{
	{"! sh f1.sh", "  ⎿  line one", "     line two", "     @relay:bob seen only here", "     line four", "     … +1 line (1s)"},
	{"! sh f1.sh", "  ⎿  line two", "     @relay:bob seen only here", "     line four", "     line five", "     … +2 lines (1s)"},
	{"! sh f1.sh", "  ⎿  line six", "     line seven", "     line eight", "     line nine", "     … +6 lines (2s)"},
}

// wholeOutput is the output slidBy showed, whole, under its echo.
var wholeOutput = []string{"! sh f1.sh", "  ⎿  line one", "     line two", "     @relay:bob seen only here", "     line four",
	"     line five", "     line six", "     line seven", "     line eight", "     line nine"}

// TestAGlimpsedRowShownWholeLaterIsReadOnce: the relay line read from a
// running command's preview, the output shown whole with the view at its
// end once done, is not read again when the screen grows and the view
// shows the whole output: a reader saw one command.
func TestAGlimpsedRowShownWholeLaterIsReadOnce(t *testing.T) {
	t.Parallel()
	r := newKindRun(t, "claude", 8, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	slideThePreview(r, 8)
	r.write(previewFrame("     line seven", "     line eight", "     line nine") + "\x1b[8;1H")
	r.pause(time.Second)
	r.s.Resize(24, 60)
	r.take(r.s.TakeLines())
	r.write(previewFrame(wholeOutput...) + "\x1b[24;1H")
	r.pause(time.Second)
	r.flush()
	if n := r.count("@relay:bob seen only here"); n != 1 {
		t.Errorf("the relay line committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAGlimpsedRowExpandedLaterIsReadOnce: the same output shown
// collapsed once done, then expanded (ctrl+o): the relay line read from
// the preview is not read again.
func TestAGlimpsedRowExpandedLaterIsReadOnce(t *testing.T) {
	t.Parallel()
	r := newKindRun(t, "claude", 24, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	slideThePreview(r, 24)
	r.write(previewFrame("! sh f1.sh", "  ⎿  line one", "     … +8 lines (ctrl+o to expand)") + "\x1b[24;1H")
	r.pause(time.Second)
	r.write(previewFrame(wholeOutput...) + "\x1b[24;1H")
	r.pause(time.Second)
	r.flush()
	if n := r.count("@relay:bob seen only here"); n != 1 {
		t.Errorf("the relay line committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestRowsAPreviewSlidByUnreadCutWhatWasOpen: a running command's
// preview slides through a block, its first rows shown for the settle
// time, its end too briefly for a reader. The rows read from the preview
// keep the gap: the row read right after rows that slid by unread says so
// (Line.Elided), and a block open there is the program's cut, never read
// whole (issue 29: claude-s13500018, "unterminated relay block" where the
// preview slid a block's "[[/RELAY]]" by). The rows read are read, once
// each, in the output's order; no other row says it.
func TestRowsAPreviewSlidByUnreadCutWhatWasOpen(t *testing.T) {
	t.Parallel()
	r := newKindRun(t, "claude", 24, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	for _, f := range []struct {
		rows  []string
		shown time.Duration
	}{
		{[]string{"! sh f1.sh", "  ⎿  line one", "     [[RELAY]]", "     {", `       "to": "bob",`, "     … +1 line (1s)"}, time.Second},
		{[]string{"! sh f1.sh", `  ⎿    "type": "message",`, `       "body": "hi"`, "     }", "     [[/RELAY]]", "     … +5 lines (1s)"}, 100 * time.Millisecond},
		{[]string{"! sh f1.sh", "  ⎿  line eight", "     line nine", "     line ten", "     line eleven", "     … +9 lines (2s)"}, time.Second},
	} {
		r.write(previewFrame(f.rows...) + "\x1b[24;1H")
		r.pause(f.shown)
	}
	r.write(previewFrame("! sh f1.sh", "  ⎿  line one", "     … +10 lines (ctrl+o to expand)") + "\x1b[24;1H")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "line one", "[[RELAY]]", `"to": "bob"`, "line eight", "line eleven")
	r.wantNever(t, "slid by unread", `"type"`, "[[/RELAY]]")
	if want := []string{"     line eight"}; !slices.Equal(r.elided, want) {
		t.Errorf("lines read right after rows left out: %q, want %q; lines:\n%s", r.elided, want, strings.Join(r.lines, "\n"))
	}
}

// slideThePreview draws slidBy's frames a second apart, the cursor left
// on the screen's last row (bottom), as Claude Code leaves it.
func slideThePreview(r *altRun, bottom int) {
	for _, rows := range slidBy {
		r.write(previewFrame(rows...) + fmt.Sprintf("\x1b[%d;1H", bottom))
		r.pause(time.Second)
	}
}

// TestAPreviewSlidingForHoursKeepsABoundedOutput: a command that prints
// for hours slides every row through its preview; what is kept of them
// to read once it is done stays bounded, as a scrollback does.
func TestAPreviewSlidingForHoursKeepsABoundedOutput(t *testing.T) {
	t.Parallel()
	var g glimpses
	now := time.Unix(1e9, 0)
	rows := []string{"     row 0", "     row 1", "     row 2", "     row 3", "     row 4"}
	for i := 5; i < 3*maxGlimpses; i++ {
		rows = append(rows[1:], fmt.Sprintf("     row %d", i))
		now = now.Add(time.Second)
		g.observe(rows, []int{1, 2, 3, 4, 5}, []int{80, 80, 80, 80, 80}, []int{75, 75, 75, 75, 75}, g.tick(now))
		if len(g.rows) > maxGlimpses+maxGlimpses/4+1 {
			t.Fatalf("after %d rows slid by, %d are kept; want at most %d", i+1, len(g.rows), maxGlimpses+maxGlimpses/4+1)
		}
	}
	read := g.done(nil, g.tick(now.Add(time.Second)), time.Millisecond, 0)
	if len(read) < maxGlimpses || read[len(read)-1].text != rows[len(rows)-1] {
		t.Errorf("read %d rows, the last %q; want at least %d, the last %q", len(read), read[len(read)-1].text, maxGlimpses, rows[len(rows)-1])
	}
}

// TestAResizeIsNoEndOfTheCommandAPreviewShows: a running command's preview
// slides past a block; the screen, made shorter, cuts the preview off (what
// the terminal kept shows the transcript above it, an older block's
// "type" row among it), and the program, drawing for the new size, shows
// the output whole once done. The resize did not end the command: the
// block is read in its order where the program shows it, not a part of
// its rows from the preview at the resize (those not in the older block)
// and the rest later (issue 29: Claude Code at 64×43 made 79×26,
// claude-s6900030 "malformed relay block").
func TestAResizeIsNoEndOfTheCommandAPreviewShows(t *testing.T) {
	t.Parallel()
	transcript := []string{"! cat old.txt", `  ⎿  {"to":"qa_1",`, `       "type": "message",`, `       "body": "the older block"}`,
		"  ⎿  Interrupted · What should Claude do instead?", "", "! sh f1.sh"}
	block := []string{"[[RELAY]]", "{", `  "to": "alice",`, `  "type": "message",`, `  "body": "the block the preview showed"`, "}", "[[/RELAY]]"}
	r := newKindRun(t, "claude", 20, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	for i := range 5 {
		preview := slices.Clone(transcript)
		for k, row := range block[i : i+3] {
			mark := "     "
			if k == 0 {
				mark = "  ⎿  "
			}
			preview = append(preview, mark+row)
		}
		preview = append(preview, fmt.Sprintf("     … +%d lines (%ds)", i+1, i+1))
		r.write(previewFrame(preview...) + "\x1b[20;1H")
		r.pause(time.Second)
	}
	r.s.Resize(12, 70)
	r.take(r.s.TakeLines())
	done := []string{"! sh f1.sh"}
	for k, row := range block {
		mark := "     "
		if k == 0 {
			mark = "  ⎿  "
		}
		done = append(done, mark+row)
	}
	r.write(previewFrame(done...) + "\x1b[12;1H")
	r.pause(time.Second)
	r.flush()
	// The older block's "type" row, then the block, each row once.
	want := []string{`"type": "message",`}
	for _, row := range block {
		want = append(want, strings.TrimLeft(row, " "))
	}
	var got []string
	for _, l := range r.lines {
		if l = strings.TrimLeft(l, " ⎿\u00a0"); slices.Contains(want, l) {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("committed:\n%s\nwant:\n%s\nall lines:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(r.lines, "\n"))
	}
}

// TestAPreviewLeavesOutBlankLines: Claude Code's preview of a running
// command leaves out the output's blank lines, so a line that ends near
// the edge shows right above the line printed after a blank one, as if
// wrapped into it. Shown whole once done, the blank row between them says
// they are two lines: the preview's join is not read as one line.
func TestAPreviewLeavesOutBlankLines(t *testing.T) {
	t.Parallel()
	r := newKindRun(t, "claude", 24, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	for _, rows := range [][]string{
		{"! sh f1.sh", "  ⎿  line one", "     @relay:bob collect is top history his for study fish", "     machine", "     … +1 line (1s)"},
		{"! sh f1.sh", "  ⎿  @relay:bob collect is top history his for study fish", "     machine", "     line four", "     … +2 lines (1s)"},
	} {
		r.write(previewFrame(rows...) + "\x1b[24;1H")
		r.pause(time.Second)
	}
	r.write(previewFrame("! sh f1.sh", "  ⎿  line one", "     @relay:bob collect is top history his for study fish", "", "     machine", "     line four") + "\x1b[24;1H")
	r.pause(time.Second)
	r.flush()
	var relays []string
	for _, l := range r.lines {
		if strings.Contains(l, "@relay:") {
			relays = append(relays, strings.TrimLeft(l, " ⎿"))
		}
	}
	if want := []string{"@relay:bob collect is top history his for study fish"}; !slices.Equal(relays, want) {
		t.Errorf("relay lines committed %q, want %q:\n%s", relays, want, strings.Join(r.lines, "\n"))
	}
}

// TestAPreviewRowTheTerminalKeptThroughAResizeWrapsAtTheOldWidth: a
// running command's preview shows a relay line wrapped over two rows;
// the screen grows wider, and the terminal keeps those rows until the
// program draws again, its preview then showing the line on one row, and
// once done the output whole. The rows kept are laid out for the old
// width: the line goes on in the row under the first, and the view shows
// it whole. Taken for rows of the new width, each a line of its own that
// the view does not show whole, they were read once the command was done,
// the relay cut short at the old row's end (claude-s11100014, a garbled
// body; issue 29).
func TestAPreviewRowTheTerminalKeptThroughAResizeWrapsAtTheOldWidth(t *testing.T) {
	t.Parallel()
	const relay = "@relay:bob a line that the program wraps at forty columns"
	narrow := wrapHanging("     ", relay, 40)
	if len(narrow) != 2 {
		t.Fatalf("the relay line takes %d rows at forty columns, want 2", len(narrow))
	}
	r := newKindRun(t, "claude", 12, 40)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(previewFrame(slices.Concat([]string{"! sh f1.sh", "  ⎿  line one"}, narrow, []string{"     … +1 line (1s)"})...) + "\x1b[12;1H")
	r.pause(time.Second)
	r.s.Resize(12, 80)
	r.take(r.s.TakeLines())
	// The program sends its cursor home before it draws for the new
	// width: a frame of what the terminal kept.
	r.write("\x1b[H")
	r.write(previewFrame("! sh f1.sh", "  ⎿  line one", "     "+relay, "     line three", "     … +2 lines (2s)") + "\x1b[12;1H")
	r.pause(time.Second)
	r.write(previewFrame("! sh f1.sh", "  ⎿  line one", "     "+relay, "     line three", "     line four") + "\x1b[12;1H")
	r.pause(time.Second)
	r.flush()
	if n := r.count("@relay:bob"); n != 1 || r.count(relay) != 1 {
		t.Errorf("the relay line committed %d times, %d of them whole; want once, whole:\n%s", n, r.count(relay), strings.Join(r.lines, "\n"))
	}
}
