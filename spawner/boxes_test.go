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

// TestCountRowIsItsBoxs: each box Gemini CLI shows at work counts the
// output's rows it slid out of view up from one ("… first 2 lines
// hidden"), so a box at work shows the same count row as the box above it
// did a moment before, when it ran. That row is this box's, committed
// where it shows, not the other box's row moved down: the reader maps the
// box's rows to the output's by it, and without it counted them from the
// count before — a relay the box showed was read again at another row of
// the output (holdout-20261128s gemini-s14700002).
func TestCountRowIsItsBoxs(t *testing.T) {
	t.Parallel()
	top, bottom, blank, row := boxTop, boxBottom, boxBlank, boxRow
	head := func(mark, file string) string { return boxRow(mark + "  Shell Command sh " + file) }
	// frame erases the live area of rows rows, the cursor on its last,
	// and draws rows in its place, as Ink does.
	frame := func(rows int, draw ...string) string {
		return strings.Repeat("\x1b[2K\x1b[1A", rows-1) + "\x1b[2K\x1b[G" + strings.Join(draw, "\r\n")
	}
	count := row("... first 2 lines hidden ...")
	s := NewScreen(ScreenOptions{Rows: 30, Cols: 40, Layout: screenmodel.Of("gemini")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	c.write(" $ sh f.sh\r\n\r\n" + strings.Join([]string{top, head("⊶", "f.sh"), blank,
		row("a1"), row("a2"), row("a3"), bottom, "", "  footer"}, "\r\n"))
	c.write(frame(9, top, head("⊷", "f.sh"), blank, count, row("a3"), row("a4"), bottom, "", "  footer"))
	c.write(frame(9, top, head("⊶", "f.sh"), blank, row("... first 3 lines hidden ..."), row("a4"), row("a5"), bottom, "", "  footer"))
	c.write(frame(9, top, head("✓", "f.sh"), blank, row("... first 1 line hidden ..."), row("a2"), row("a3"), row("a4"), row("a5"), bottom) +
		"\r\n\r\n" + fillerLines(35) + "\r\n $ sh g.sh\r\n\r\n" + strings.Join([]string{top, head("⊶", "g.sh"), blank,
		row("b1"), row("b2"), row("b3"), bottom, "", "  footer"}, "\r\n"))
	before := len(c.got)
	c.write(frame(9, top, head("⊷", "g.sh"), blank, count, row("b3"), row("b4"), bottom, "", "  footer"))
	if got := c.flush()[before:]; !slices.Contains(got, count) {
		t.Errorf("the count row %q of the box at work not committed; committed:\n%s", count, strings.Join(got, "\n"))
	}
}

// TestDoneBoxAfterAClearIsNoReplay: resized, Gemini CLI clears the screen
// and its scrollback and writes its transcript again, the box at work in
// it — all of it lines committed before, none committed again (the
// replay rule) — then prints the box done, showing more of the output's
// first rows than the box at work did, each row lower than that box
// showed it. Its rows say what rows committed before said, but the box is
// printed for the first time: they are committed as its rows, not taken
// for more of the transcript written again (a block the box at work never
// showed whole in one drawing was read nowhere: holdout-20261128s
// gemini-s14700020). A done box written again with the transcript, its
// head row repeating one, is not read again, even where its head row
// leaves the screen's top and its rows are all the screen shows above.
func TestDoneBoxAfterAClearIsNoReplay(t *testing.T) {
	t.Parallel()
	top, bottom, blank, row, head := boxTop, boxBottom, boxBlank, boxRow, boxHead
	frame := func(rows int, draw ...string) string {
		return strings.Repeat("\x1b[2K\x1b[1A", rows-1) + "\x1b[2K\x1b[G" + strings.Join(draw, "\r\n")
	}
	relay := row("@relay:bob hello from the box")
	atWork := []string{top, head("⊶"), blank, row("... first 3 lines hidden ..."), row("line four of it"), relay, row("line six of it"), bottom, "", "  footer"}
	done := []string{top, head("✓"), blank, row("... first 2 lines hidden ..."), row("line three of it"), row("line four of it"), relay, row("line six of it"), bottom, "", "  footer"}
	count := func(got []string) int { return strings.Count(strings.Join(got, "\n"), relay) }

	s := NewScreen(ScreenOptions{Rows: 30, Cols: 40, Layout: screenmodel.Of("gemini")})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.TakeLines}
	c.write(" $ sh f.sh\r\n\r\n" + strings.Join(atWork, "\r\n"))
	c.write("\x1b[H\x1b[2J\x1b[3J $ sh f.sh\r\n\r\n" + strings.Join(atWork, "\r\n"))
	c.write(frame(len(atWork), done...))
	if got := c.flush(); count(got) != 2 {
		t.Errorf("printed done after the transcript written again: the relay's row committed %d times, want 2 (at work, done); committed:\n%s", count(got), strings.Join(got, "\n"))
	}

	// On a screen shorter than the transcript: written again, the done
	// box's head row leaves the top, its rows under it.
	short := NewScreen(ScreenOptions{Rows: 10, Cols: 40, Layout: screenmodel.Of("gemini")})
	defer short.Close()
	c = &committed{t: t, s: short, take: short.TakeLines}
	transcript := " $ sh f.sh\r\n\r\n" + strings.Join(done, "\r\n")
	c.write(transcript)
	c.write("\x1b[H\x1b[2J\x1b[3J" + transcript)
	if got := c.flush(); count(got) != 1 {
		t.Errorf("a done box written again with the transcript: the relay's row committed %d times, want 1; committed:\n%s", count(got), strings.Join(got, "\n"))
	}
}
