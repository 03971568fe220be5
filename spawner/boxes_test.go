package spawner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"swarm/screenmodel"
)

// A Gemini CLI box 38 columns wide, as the tests here draw it: its rules,
// a blank row, a row of output, and the head row of "sh f.sh" with its mark.
const (
	boxTop    = "╭────────────────────────────────────╮"
	boxBottom = "╰────────────────────────────────────╯"
	boxBlank  = "│                                    │"
)

func boxRow(s string) string     { return "│ " + s + strings.Repeat(" ", 34-len(s)) + " │" }
func boxHead(mark string) string { return boxRow(mark + "  Shell Command sh f.sh") }

// TestBoxShownRunning: Gemini CLI draws a command's box live while the
// command runs (its head row's spinner), then prints it once more, done
// (✓), when the command ends. The head row of the done box says whether
// the box showed output while the command was still at work — only then
// had Gemini made the command's terminal as wide as the box — and only
// once: the next box with the same title that ran quietly says not.
func TestBoxShownRunning(t *testing.T) {
	t.Parallel()
	top, bottom, blank, row, head := boxTop, boxBottom, boxBlank, boxRow, boxHead
	// live draws the running box under the prompt's echo and leaves the
	// cursor on its last row; done erases it and prints the done box.
	live := func(out string) string {
		return strings.Join([]string{top, head("⊶"), blank, row(out), bottom}, "\r\n")
	}
	done := strings.Repeat("\x1b[2K\x1b[1A", 4) + "\x1b[2K\r" +
		strings.Join([]string{top, head("✓"), blank, row("@relay:bob hi"), bottom}, "\r\n") + "\r\n\r\n > \x1b[1A"
	s := NewScreen(ScreenOptions{Rows: 40, Cols: 40, Layout: screenmodel.Of("gemini")})
	defer s.Close()
	// The same command twice: first with output shown while it ran, then
	// with nothing shown until it was done.
	for _, w := range []string{" $ sh f.sh\r\n\r\n" + live("@relay:bob hi"), done, "\r\n $ sh f.sh\r\n\r\n" + live(""), done} {
		if _, err := s.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	var heads []bool
	for _, l := range s.Flush() {
		if l.Text == head("✓") {
			heads = append(heads, l.ShownRunning)
		}
	}
	if want := []bool{true, false}; !slices.Equal(heads, want) {
		t.Errorf("the done boxes' head rows committed with ShownRunning %v, want %v", heads, want)
	}
}

// TestBoxWhoseMarkTurnedRan: a box Gemini CLI showed at work with nothing
// under its head row yet, whose spinner then turned, had its command still
// at work a frame after the box showed it: Gemini had made the command's
// terminal as wide as the box, and the done box's head row says so. A box
// whose mark never turned (a quick command, done before the next frame)
// says not, though the box before it with the same title turned its own.
func TestBoxWhoseMarkTurnedRan(t *testing.T) {
	t.Parallel()
	top, bottom, blank, row, head := boxTop, boxBottom, boxBlank, boxRow, boxHead
	live := " $ sh f.sh\r\n\r\n" + strings.Join([]string{top, head("⊶"), blank, blank, bottom}, "\r\n")
	turn := "\x1b[3A\r" + head("⊷") + "\x1b[3B"
	done := strings.Repeat("\x1b[2K\x1b[1A", 4) + "\x1b[2K\r" +
		strings.Join([]string{top, head("✓"), blank, row("@relay:bob hi"), bottom}, "\r\n") + "\r\n\r\n"
	now := time.Unix(0, 0)
	s := NewScreen(ScreenOptions{Rows: 40, Cols: 40, Layout: screenmodel.Of("gemini"), Clock: func() time.Time { return now }})
	defer s.Close()
	var heads []bool
	read := func(lines []Line) {
		for _, l := range lines {
			if l.Text == head("✓") {
				heads = append(heads, l.ShownRunning)
			}
		}
	}
	// Each command's done box is read before the next command runs, as
	// Gemini waits for the next one to be typed.
	for _, w := range []string{live, turn, done, live, done} {
		if _, err := s.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
		read(s.TakeLines())
		now = now.Add(time.Second)
		read(s.Settle())
	}
	read(s.Flush())
	if want := []bool{true, false}; !slices.Equal(heads, want) {
		t.Errorf("the done boxes' head rows committed with ShownRunning %v, want %v", heads, want)
	}
}

// TestDoneBoxRowsAreItsOwn: Gemini CLI's box at work shows the latest
// rows of a command's output, sliding up under "… first N lines hidden"
// as more comes; done, it prints the box again in its place, from fewer
// rows hidden: each row there shows a row of the output a row or more
// lower than the box at work showed it a moment before. Such a row is
// the done box's own, committed as its row, not the row of the box at
// work moved down (the block read there lacked its "body" row: malformed).
func TestDoneBoxRowsAreItsOwn(t *testing.T) {
	t.Parallel()
	top, bottom, row, head := boxTop, boxBottom, boxRow, boxHead
	// frame erases the live area of rows rows, the cursor on its last,
	// and draws rows in its place, as Ink does.
	frame := func(rows int, draw ...string) string {
		return strings.Repeat("\x1b[2K\x1b[1A", rows-1) + "\x1b[2K\x1b[G" + strings.Join(draw, "\r\n")
	}
	const body = `  "body": "hello there",`
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 40, Layout: screenmodel.Of("gemini")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write(" $ sh f.sh\r\n\r\n" + strings.Join([]string{top, head("⊶"), row("... first 5 lines hidden ..."),
		row("{"), row(`  "to": "bob",`), row(body), bottom, "", "  footer"}, "\r\n"))
	c.write(frame(9, top, head("⊷"), row("... first 6 lines hidden ..."),
		row(`  "to": "bob",`), row(body), row(`  "topic": "t1"`), bottom, "", "  footer"))
	before := len(c.got)
	c.write(frame(9, top, head("✓"), row("... first 5 lines hidden ..."), row("{"), row(`  "to": "bob",`), row(body),
		row(`  "topic": "t1"`), row("}"), row("[[/RELAY]]"), bottom, "", "  footer"))
	if got := c.flush()[before:]; !slices.Contains(got, row(body)) {
		t.Errorf("the done box's row %q not committed; committed:\n%s", row(body), strings.Join(got, "\n"))
	}
}
