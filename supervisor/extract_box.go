package supervisor

import "swarm/parser"

// toolBox follows a box a program shows a command's output in. Gemini CLI
// draws the box live while the command runs — a view of the output's
// latest rows, sliding as more comes — then prints it once more, done,
// showing the output's last rows again. What is read in the live box is
// held until the done box is read (or the output ends): a command it
// shows again at the same row of the output (its "first N lines hidden"
// row and the rows under it tell which) is read there, in its order,
// after those only the live box showed. The spawner may take a row of
// the done box for new output where the live box's rows had slid, and a
// command read in the live box would be read twice, the first time out
// of order. A command a running command prints is so delivered when the
// command ends.
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
}

// boxEvent is an event read in a box, and the row of the command's output
// it starts on (0 the first).
type boxEvent struct {
	ev  parser.Event
	row int64
}

// commandSays is what a command says: all of it but where it was read.
type commandSays struct {
	kind                                               parser.Kind
	to, typ, body, data, topic, correlation, inReplyTo string
}

func saysOf(c *parser.Command) commandSays {
	return commandSays{c.Kind, c.To, c.Type, c.Body, string(c.Data), c.Topic, c.CorrelationID, c.InReplyTo}
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
		} else {
			b.again = append(b.again, e)
		}
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
// only the live box showed (its errors too, where no done box followed),
// then what the done box showed.
func (b *toolBox) release() []parser.Event {
	type shownAt struct {
		says commandSays
		row  int64
	}
	var out []parser.Event
	shown := make(map[shownAt]bool)
	for _, e := range b.again {
		if e.ev.Command != nil {
			shown[shownAt{saysOf(e.ev.Command), e.row}] = true
		}
	}
	for _, e := range b.seen {
		switch {
		case e.ev.Command != nil && shown[shownAt{saysOf(e.ev.Command), e.row}]:
			// shown again by the done box, where it is read
		case e.ev.Command == nil && b.done:
			// rows of the live box cut by its sliding: read whole in the
			// done box, if anywhere
		default:
			out = append(out, e.ev)
		}
	}
	for _, e := range b.again {
		out = append(out, e.ev)
	}
	*b = toolBox{seen: b.seen[:0], again: b.again[:0]}
	return out
}
