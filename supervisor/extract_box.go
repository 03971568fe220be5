package supervisor

import (
	"bytes"
	"slices"
	"strings"

	"swarm/parser"
)

// toolBox follows a box a program shows a command's output in. Gemini CLI
// draws the box live while the command runs — a view of the output's
// latest rows, sliding as more comes — then prints it once more, done,
// showing the output's last rows again. What is read in the live box is
// held until the done box is read (or the output ends): a command it
// shows again at the same row of the output (its "first N lines hidden"
// row and the rows under it tell which), or more of it, is read there, in
// its order, after those only the live box showed, each where it showed
// the most of it. The spawner may take a row of the done box for new
// output where the live box's rows had slid, and a command read in the
// live box would be read twice, the first time out of order. A command a
// running command prints is so delivered when the command ends (or when
// the output does: the program exits, its pane closes), or once the
// output has gone on further than the done box can show again (boxReach).
type toolBox struct {
	title string
	// live: the lines read are in the box at work; done: in the box
	// printed done after it.
	live, done bool
	// seen and again are the events read in the live box and in the done
	// box, held, each with the row of the output it starts on.
	seen, again []boxEvent
	// top is the line of the box's first row of output shown, first the
	// output's row it shows (what its "first N lines hidden" row says).
	top, first int64
	// newest is the lowest row of the output the live box showed a
	// command or an error on.
	newest int64
}

// boxReach is how far above the newest row of a live box's output a
// command it showed may still be shown again: the done box shows at most
// a screen of the output's last rows. What the live box read further up
// goes out at once, so that a command that runs for long (or never ends)
// holds a bounded part of its output, not all of it.
const boxReach = 1000

// boxEvent is an event read in a box, and the row of the command's output
// it starts on (0 the first).
type boxEvent struct {
	ev  parser.Event
	row int64
}

// take holds events read in the box, or returns them where no box is
// followed.
func (b *toolBox) take(evs []parser.Event) []parser.Event {
	if !b.live && !b.done {
		return evs
	}
	for _, ev := range evs {
		var line int64
		if ev.Command != nil {
			line = ev.Command.Line
		} else if ev.Err != nil {
			line = ev.Err.Line
		}
		e := boxEvent{ev: ev, row: b.first + line - b.top}
		if b.live {
			b.seen = append(b.seen, e)
			b.newest = max(b.newest, e.row)
		} else {
			b.again = append(b.again, e)
		}
	}
	if b.live {
		return b.pick(func(e boxEvent) bool { return e.row < b.newest-boxReach })
	}
	return nil
}

// row follows a row of the box, numbered n: a head row's output starts two
// rows under it (a blank row between), and a row that says how many of
// the output's first rows are hidden has the next one under it.
func (b *toolBox) row(n int64, head bool, hidden int, isHidden bool) {
	switch {
	case head:
		b.top, b.first = n+2, 0
	case isHidden:
		b.top, b.first = n+1, int64(hidden)
	}
}

// head follows a head row of the program's boxes, at work or done, and
// returns what it ends.
func (b *toolBox) head(title string, running bool) []parser.Event {
	if running && b.live && b.title == title {
		return nil // its spinner turning
	}
	if !running && b.live && b.title == title {
		b.live, b.done = false, true
		return nil
	}
	out := b.release()
	b.title, b.live = title, running
	return out
}

// release returns what the box held, and forgets the box: the commands
// only the live box showed, and its errors on rows the done box does not
// show (all of them where no done box followed), then what the done box
// showed.
func (b *toolBox) release() []parser.Event {
	out := b.pick(func(boxEvent) bool { return true })
	for _, e := range b.again {
		out = append(out, e.ev)
	}
	clear(b.again) // the events are the caller's now
	*b = toolBox{seen: b.seen[:0], again: b.again[:0]}
	return out
}

// pick returns, in their order, what the live box read on the rows sel
// chooses, and holds the rest: the commands no other reading of their row
// showed whole, and its errors on rows the done box does not show (all of
// them where no done box followed).
func (b *toolBox) pick(sel func(boxEvent) bool) []parser.Event {
	if !slices.ContainsFunc(b.seen, sel) {
		return nil
	}
	atRow := make(map[int64][]int) // the live box's commands by their row
	for i, e := range b.seen {
		if e.ev.Command != nil {
			atRow[e.row] = append(atRow[e.row], i)
		}
	}
	againAtRow := make(map[int64][]int, len(b.again))
	for i, e := range b.again {
		if e.ev.Command != nil {
			againAtRow[e.row] = append(againAtRow[e.row], i)
		}
	}
	var out []parser.Event
	for i, e := range b.seen {
		switch {
		case !sel(e):
		case e.ev.Command == nil:
			if !b.done || e.row < b.first {
				out = append(out, e.ev)
			}
			// else rows of the live box cut by its sliding: read whole in
			// the done box, if anywhere
		case b.shownWhole(i, atRow[e.row], againAtRow[e.row]):
		default:
			out = append(out, e.ev)
		}
	}
	held := b.seen[:0]
	for _, e := range b.seen {
		if !sel(e) {
			held = append(held, e)
		}
	}
	clear(b.seen[len(held):]) // the events picked are the caller's now
	b.seen = held
	return out
}

// shownWhole reports whether the command read i-th in the live box starts
// at the row of the output another command read in the box starts at
// (live and again: the indexes of the live box's and the done box's
// commands on its row), that says as much or more, the rest of the body
// after it: the same command, which the live box cut (rows under it not
// shown yet, or slid away) or showed twice — read once, where the done
// box shows it, else the first time the live box showed the most of it.
func (b *toolBox) shownWhole(i int, live, again []int) bool {
	c := b.seen[i]
	for _, j := range again {
		if d := b.again[j]; sameStart(c, d) && strings.HasPrefix(d.ev.Command.Body, c.ev.Command.Body) {
			return true
		}
	}
	for _, j := range live {
		if d := b.seen[j]; j != i && sameStart(c, d) && strings.HasPrefix(d.ev.Command.Body, c.ev.Command.Body) &&
			(len(d.ev.Command.Body) > len(c.ev.Command.Body) || j < i) {
			return true
		}
	}
	return false
}

// sameStart reports whether two commands read in a box start at the same
// row of the output and say the same but for their bodies.
func sameStart(c, d boxEvent) bool {
	if c.row != d.row || d.ev.Command == nil {
		return false
	}
	x, y := c.ev.Command, d.ev.Command
	return x.Kind == y.Kind && x.To == y.To && x.Type == y.Type && bytes.Equal(x.Data, y.Data) &&
		x.Topic == y.Topic && x.CorrelationID == y.CorrelationID && x.InReplyTo == y.InReplyTo
}
