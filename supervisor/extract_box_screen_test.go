package supervisor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
)

// geminiScreen draws Gemini CLI's live area through a screen as Ink does
// (erase the last frame's rows, write the new ones) and reads the lines
// the screen commits: the box rules as they meet the spawner's.
type geminiScreen struct {
	s     *spawner.Screen
	now   time.Time
	prev  int // rows the last frame drew, erased before the next
	lines []spawner.Line
}

func newGeminiScreen(t *testing.T, rows, cols int) *geminiScreen {
	g := &geminiScreen{now: time.Unix(1e9, 0)}
	g.s = spawner.NewScreen(spawner.ScreenOptions{Rows: rows, Cols: cols, Clock: func() time.Time { return g.now }, Layout: screenmodel.Of("gemini")})
	t.Cleanup(func() { g.s.Close() })
	return g
}

func (g *geminiScreen) write(s string) {
	g.s.Write([]byte(s))
	g.lines = append(g.lines, g.s.TakeLines()...)
}

func (g *geminiScreen) frame(rows ...string) {
	var b strings.Builder
	for i := range g.prev {
		b.WriteString("\x1b[2K")
		if i < g.prev-1 {
			b.WriteString("\x1b[1A")
		}
	}
	b.WriteString("\x1b[G" + strings.Join(rows, "\r\n") + "\r\n")
	g.prev = len(rows) + 1
	g.write(b.String())
}

func (g *geminiScreen) pause(d time.Duration) {
	g.now = g.now.Add(d)
	g.lines = append(g.lines, g.s.Settle()...)
}

// end types at the prompt under the last frame, waits, and returns the
// commands read.
func (g *geminiScreen) end() []string {
	g.prev = 0
	g.write("> ")
	g.pause(2 * time.Second)
	g.lines = append(g.lines, g.s.Flush()...)
	r := newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	var got []string
	take := func(evs []parser.Event) {
		for _, ev := range evs {
			if ev.Command != nil {
				got = append(got, fmt.Sprintf("%s %q", ev.Command.To, ev.Command.Body))
			}
		}
	}
	for _, l := range g.lines {
		take(r.read(l))
	}
	take(r.flush(true))
	return got
}

// TestABoxAtWorkDrawnLowerIsNotReadAgain: a line printed above the box at
// work draws the whole box one or two rows lower, its head row too, a
// relay it showed whole in it. Its rows moved with the box and are not
// new: committed as rows of the box, counted from its head row where it
// was last committed, the relay was read at the next row of the output
// and went out twice.
func TestABoxAtWorkDrawnLowerIsNotReadAgain(t *testing.T) {
	t.Parallel()
	const cols = 50
	row := boxRowOf(48)
	for _, shift := range []int{1, 2} {
		box := func(head string, more ...string) []string {
			rows := []string{row(head + "  Shell Command sh f.sh"), row(""), row("progress 10%"), row("@relay:bob hello there"), row("progress 20%")}
			for _, m := range more {
				rows = append(rows, row(m))
			}
			return append(rows, boxBottom(48))
		}
		above := slices.Repeat([]string{"warning line"}, shift)
		g := newGeminiScreen(t, 20, cols)
		g.write("> run it\r\n\r\n")
		g.frame(box("⊷")...)
		g.pause(300 * time.Millisecond)
		g.frame(append(slices.Clone(above), box("⊷")...)...)
		g.pause(300 * time.Millisecond)
		g.frame(append(slices.Clone(above), box("⊶", "progress 30%")...)...)
		g.pause(300 * time.Millisecond)
		g.frame(append(slices.Clone(above), box("✓", "progress 30%", "end")...)...)
		if got := g.end(); len(got) != 1 || got[0] != `bob "hello there"` {
			t.Errorf("%d rows lower: commands %q, want [bob \"hello there\"]", shift, got)
		}
	}
}

// TestABoxAtWorkDrawnHigherIsNotReadAgain: a line above the box at work
// goes, and the whole box is drawn a line higher, its head row as it was
// (the spinner at the same mark): the spawner takes the head row, the
// blank row and the output's first row for rows moved up and commits none
// of them again, only the rows under them that changed — a relay, read
// whole, counted from the head row's old line one row too high in the
// output. The done box, drawn where the box stands, hides no more of the
// output's rows than the box at work did and commits its head on its
// line but not the relay's row, the same text: a reader sees one relay.
// Its rows' mapping differs from the box at work's only by where the
// head row was taken to be, not by rows the box slid past, and the relay
// the box at work read there is no line printed again (stayedAgain): it
// went out twice.
func TestABoxAtWorkDrawnHigherIsNotReadAgain(t *testing.T) {
	t.Parallel()
	row := boxRowOf(48)
	g := newGeminiScreen(t, 20, 50)
	g.write("> run it\r\n\r\n")
	g.frame("warning line", row("⊷  Shell Command sh f.sh"), row(""), row("progress 10%"), boxBottom(48))
	g.pause(300 * time.Millisecond)
	g.frame(row("⊷  Shell Command sh f.sh"), row(""), row("progress 10%"), row("@relay:bob hello there"), row("progress 20%"), boxBottom(48))
	g.pause(300 * time.Millisecond)
	g.frame(row("✓  Shell Command sh f.sh"), row(""), row("progress 10%"), row("@relay:bob hello there"), row("progress 20%"), row("end"), boxBottom(48))
	if got := g.end(); len(got) != 1 || got[0] != `bob "hello there"` {
		t.Errorf("commands %q, want [bob \"hello there\"]", got)
	}
}

// TestARowWithRoomForTheNextWordEndsItsLineInANarrowBox: a relay row in
// Gemini CLI's done box followed by a row whose first word would have fit
// in the room the relay row left, with more than the four columns a
// Gemini box leaves where it cut a word at a wrap (parser's lossySlack),
// is a line of its own at every width, as a reader sees it: how near the
// box's edge the row ends counts only against that word, not the box's
// width. (With four columns or fewer to spare the row is read joined:
// there a reader cannot tell an agent's next line from the end of a word
// the box cut, which Gemini's recordings join using all four columns.)
func TestARowWithRoomForTheNextWordEndsItsLineInANarrowBox(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{30, 50, 80} {
		row := boxRowOf(cols - 2)
		for _, next := range []string{"ok then", "progress"} {
			word, _, _ := strings.Cut(next, " ")
			for spare := 4; spare <= 6; spare++ {
				// The relay row's text, padded to leave room for word and
				// a blank before it, and spare columns more; the box's
				// text is six columns narrower than the screen.
				relay := "@relay:carol hi"
				pad := cols - 6 - len(relay) - (1 + len(word) + spare)
				if pad < 0 {
					continue
				}
				switch {
				case pad == 1:
					relay += "!"
				case pad > 1:
					relay += " " + strings.Repeat("x", pad-1)
				}
				g := newGeminiScreen(t, 20, cols)
				g.write("> run it\r\n\r\n")
				g.frame(row("⊷  Shell sh f.sh"), row(""), row(relay), row(next), boxBottom(cols-2))
				g.pause(300 * time.Millisecond)
				g.frame(row("✓  Shell sh f.sh"), row(""), row(relay), row(next), row("end"), boxBottom(cols-2))
				want := fmt.Sprintf("carol %q", relay[len("@relay:carol "):])
				if got := g.end(); len(got) != 1 || got[0] != want {
					t.Errorf("%d columns, %q after a row leaving %d columns more than it needs: commands %q, want [%s]", cols, next, spare, got, want)
				}
			}
		}
	}
}
