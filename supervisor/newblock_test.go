package supervisor

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
)

// A block to bob streamed through a short alternate-screen view, its "to"
// row read as it left the view's top; then, after a resize, the program
// draws a new block to bob, its "to" and "type" rows those of the old
// block, under new output or under the old block shown whole. End to end
// (screen, then the command reader) the new block is delivered once, and
// the old one once its head shows (issue 29, the reviewer's repro: the new
// relay was lost, "unterminated relay block").
func TestANewBlockAlikeOneCutAtTheTopIsDelivered(t *testing.T) {
	const bar = "the program's own bar at the bottom"
	oldBlock := []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`,
		`      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}
	newBlock := []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`,
		`      "body": "second"`, "    }", "    [[/RELAY]]"}
	for _, tc := range []struct {
		name string
		// streamed: the new block streams through the short view before
		// the resize; withOld: the frame after it shows the old block too.
		streamed, withOld bool
		want              string
	}{
		{"under new output", false, false, "bob second"},
		{"under the old block", false, true, "bob alpha bravo charlie delta|bob second"},
		// The old block's head shows only after the new block was read:
		// it is delivered then.
		{"read before the resize", true, true, "bob second|bob alpha bravo charlie delta"},
	} {
		now := time.Unix(1e9, 0)
		s := spawner.NewScreen(spawner.ScreenOptions{Rows: 5, Cols: 50, Clock: func() time.Time { return now }, Layout: screenmodel.Of("")})
		var lines []spawner.Line
		take := func(ls []spawner.Line) { lines = append(lines, ls...) }
		draw := func(n int, rows []string) {
			var b strings.Builder
			for y := range n {
				row := ""
				if y < len(rows) {
					row = rows[y]
				}
				fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", n+1, bar)
			s.Write([]byte(b.String()))
			take(s.TakeLines())
		}
		pause := func(d time.Duration) { now = now.Add(d); take(s.Settle()) }
		s.Write([]byte("\x1b[?1049h\x1b[?25l"))
		draw(4, oldBlock[2:6])
		draw(4, oldBlock[3:7])
		pause(time.Second)
		if tc.streamed {
			for i := 0; i+4 <= len(newBlock); i++ {
				draw(4, newBlock[i:i+4])
				pause(300 * time.Millisecond)
			}
			pause(time.Second)
		}
		s.Resize(17, 100)
		var rows []string
		if tc.withOld {
			rows = append(append(rows, oldBlock...), "", "• Ran cat f02.txt")
		} else {
			for _, w := range []string{"one", "two", "three", "four", "five", "six"} {
				rows = append(rows, "    a line of the output printed since, number "+w)
			}
		}
		s.Write([]byte("\x1b[2J"))
		draw(16, append(rows, newBlock...))
		pause(time.Second)
		take(s.Flush())
		s.Close()
		r := newCommandReader(parser.Options{}, screenmodel.Of(""))
		var got []string
		add := func(evs []parser.Event) {
			for _, ev := range evs {
				if ev.Command != nil {
					got = append(got, ev.Command.To+" "+ev.Command.Body)
				} else {
					got = append(got, "error: "+ev.Err.Error())
				}
			}
		}
		var fed []string
		for _, l := range lines {
			fed = append(fed, fmt.Sprintf("late %t again %t: %s", l.Late, l.Again, l.Text))
			add(r.read(l))
		}
		add(r.flush(true))
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%s: commands %q, want %q; lines:\n%s", tc.name, got, tc.want, strings.Join(fed, "\n"))
		}
	}
}
