package supervisor

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"time"

	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
)

// toolBox follows a box a program shows a command's output in. Gemini CLI
// draws the box live while the command runs — a view of the output's
// latest rows, sliding as more comes — then prints it once more, done,
// showing the output's last rows again. A command the live box shows whole
// — its rows and the next line of the output under them, or a block up to
// its end marker, read together, row after row — goes out at once: a
// reader sees it there. The rest read in the live box is held until the
// done box is read (or the output ends): a command it shows again at the
// same row of the output (its "first N lines hidden" row and the rows
// under it tell which), or more of it, is read there, among those only the
// live box showed, in the order of their rows in the output, each where it
// showed the most of it; a command that went out already is not read
// again there. The spawner may
// take a row of the done box for new output where the live box's rows had
// slid, and a command read in the live box would be read twice, the first
// time out of order. A command a running command prints that the live box
// never showed whole is so delivered when the command ends (or when the
// output does: the program exits, its pane closes), or once the output has
// gone on further than the done box can show again (boxReach).
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
	// hiddenAt is the line of the last "first N lines hidden" row read,
	// while no other row was read on it, and hidden its N.
	hiddenAt, hidden int64
	// blankAt is the line of the blank row under the head row the box's
	// rows were last mapped by, with no count row under it (-1: none).
	blankAt int64
	// keptHidden says the box's rows were last mapped by a head row and
	// the count row under it (hiddenAt), as if that row stayed as it
	// was; a row read on it later tells it did not.
	keptHidden bool
	// newest is the lowest row of the output the live box showed a
	// command or an error on.
	newest int64
	// sent are the commands the live box showed whole, gone out already,
	// each with the row of the output it starts on, as far up as the done
	// box can show them again (boxReach).
	sent []boxEvent
	// shown is how many of the output's rows, from its first, the live
	// box showed, each read: a command under them is read in the
	// output's order if it goes out at once.
	shown int64
	// from and last are the first and the last line of the run of rows
	// read one after the other in the box since its rows were last
	// mapped to the output's (a head row, a count of rows hidden); run
	// counts those runs.
	from, last, run int64
	// span is how many lines of the screen each row of the box takes:
	// more than one where the program printed the box done for a wider
	// screen (it drew it before it knew the screen had shrunk) and the
	// terminal broke each of its rows over that many (0 is one).
	span int64
	// liveTop and liveFirst are top and first as the live box last
	// mapped its rows, kept once it is printed done; doneRead are the
	// lines read in the done box.
	liveTop, liveFirst int64
	doneRead           []int64
	// width is how wide the live box was drawn the last time its head
	// row was read: the program made the command's terminal as wide.
	width int
	// cols is the width of the screen the box's last line read was
	// shown on.
	cols int
	// unsettled says the lines read now came right after the screen
	// changed width (relayout): a box at work drawn for the new width
	// shows, for a frame or a few, the rows of the command's terminal
	// still as wide as the old box, cut to the new one (what did not fit
	// dropped) and counted as that terminal counted them, until the
	// program makes the terminal as wide as the box and its rows wrap
	// the output anew. What the live box shows then is held, never sent
	// at once, and a reading of it gives way to a later reading of the
	// box that is the command its first row showed (superseded).
	unsettled bool
	// bottomAt is the line the live box's bottom border was last read
	// on, while no other row was read there since; unseen says the box
	// was read to grow past it without that line read again (remap).
	// Readings of the live box are then held as unsettled ones are.
	bottomAt int64
	unseen   bool
	// seq counts the readings of the box.
	seq int64
	// cutAtEdge is the parser's [parser.Parser.CutAtEdge]: whether a
	// command's last row was cut at its box's edge before a word. Kept
	// from box to box.
	cutAtEdge func(c *parser.Command, word string) bool
}

// relayout is how long after the screen changes width a box at work may
// still show the rows of a terminal as wide as the old box (Gemini CLI
// 0.61.0 was seen to take 0.1 to 0.4 s to lay its terminal out anew).
const relayout = time.Second

// boxReach is how far above the newest row of a live box's output a
// command it showed may still be shown again: the done box shows at most
// a screen of the output's last rows. What the live box read further up
// goes out at once, so that a command that runs for long (or never ends)
// holds a bounded part of its output, not all of it.
const boxReach = 1000

// boxEvent is an event read in a box, and the row of the command's output
// it starts on (0 the first); seq orders the readings of a box, run is
// the run of rows it was read in (toolBox.run), and unsettled says it was
// read in the live box right after the screen changed width
// (toolBox.unsettled).
type boxEvent struct {
	ev            parser.Event
	row, seq, run int64
	unsettled     bool
	// overdrawn says the line its first row was read on (a command's)
	// was drawn anew since: the screen no longer shows that reading.
	overdrawn bool
	// cols is the width of the screen it was read on: the box's rows
	// count the output as a terminal as wide as the box counts it.
	cols int
}

// take holds events read in the box, or returns them where no box is
// followed; by is the line that completed them.
func (b *toolBox) take(evs []parser.Event, by spawner.Line) []parser.Event {
	if !b.live && !b.done {
		return evs
	}
	var out []parser.Event
	for _, ev := range evs {
		var line int64
		if ev.Command != nil {
			line = ev.Command.Line
		} else if ev.Err != nil {
			line = ev.Err.Line
		}
		b.seq++
		e := boxEvent{ev: ev, row: b.first + b.rows(line-b.top), seq: b.seq, run: b.run, unsettled: b.live && (b.unsettled || b.unseen), cols: b.cols}
		if c := ev.Command; c != nil {
			// The line that ended it may have started another run.
			if end := line + int64(strings.Count(c.Source, "\n")); end < b.from || end > b.last {
				e.run--
			}
		}
		if c := ev.Command; c != nil && line == by.N {
			// Read from an earlier drawing of the line that ends it (the
			// parser held it until then), or from that line itself.
			row, _, _ := strings.Cut(c.Source, "\n")
			e.overdrawn = row != by.Text
		}
		switch {
		case b.wasSent(e):
			// the live box showed it whole before: it went out then
		case b.live && !e.unsettled && e.row <= b.shown && b.whole(ev, by) && !b.holdsAbove(e.row):
			b.send(e)
			out = append(out, ev)
		case b.live:
			b.seen = append(b.seen, e)
			b.newest = max(b.newest, e.row)
		default:
			b.again = append(b.again, e)
		}
	}
	if b.live {
		return appendEvents(out, b.pick(func(e boxEvent) bool { return e.row < b.newest-boxReach }))
	}
	return out
}

// follow notes line l, read in the box, as a row of the run of rows read
// one after the other (whole tells a command the run holds whole); mapped
// says l maps the box's rows to the output's anew, which starts a run.
// The commands held whose first row was read on l are overdrawn.
func (b *toolBox) follow(l spawner.Line, mapped bool) {
	if mapped || l.N != b.last+1 {
		b.from = l.N
		b.run++
	}
	for i := range b.seen {
		if c := b.seen[i].ev.Command; c != nil && c.Line == l.N {
			b.seen[i].overdrawn = true
		}
	}
	b.last = l.N
	if l.Cols > 0 {
		b.cols = l.Cols
	}
	if b.done {
		b.doneRead = append(b.doneRead, l.N)
	}
}

// whole reports whether the live box showed the command ev, completed by
// the line by, whole: its rows read one after the other with no new
// mapping of the box's rows between, and then, for a command inside the
// box's borders, the next line of the output, a row of text under its last
// row (the command's line ended: what a reader sees in a box that slides
// as more comes); a block, up to its end marker. A command cut where the
// box's view ends, or read from rows of frames the box slid between, is
// not.
func (b *toolBox) whole(ev parser.Event, by spawner.Line) bool {
	c := ev.Command
	if c == nil || c.Line < b.from || by.N != b.last {
		return false
	}
	if c.FromBlock {
		return true // closed by its end marker, on by
	}
	_, text := screenmodel.BoxRow(by.Text)
	return text && by.N == c.Line+int64(strings.Count(c.Source, "\n"))+1
}

// send notes a command the live box showed whole as gone out, and
// forgets those the done box can no longer show again (boxReach). Its
// readings are held no longer: the done box does not read it again
// (sent), and what the box holds stays what it has not sent — a reading
// held cut would otherwise go out once its record here is forgotten.
func (b *toolBox) send(e boxEvent) {
	b.newest = max(b.newest, e.row)
	b.sent = slices.DeleteFunc(b.sent, func(d boxEvent) bool { return d.row < b.newest-boxReach })
	b.sent = append(b.sent, e)
	b.seen = slices.DeleteFunc(b.seen, func(d boxEvent) bool { return d.ev.Command != nil && sameStart(e, d) })
}

// holdsAbove reports whether the live box holds an event read on a row of
// the output above row: a command under it goes out after it, in the
// output's order.
func (b *toolBox) holdsAbove(row int64) bool {
	for _, e := range b.seen {
		if e.row < row && !b.wasSent(e) {
			return true
		}
	}
	return false
}

// wasSent reports whether e is a command the live box showed whole before
// (sent), at the same row of the output: the same command, gone out.
func (b *toolBox) wasSent(e boxEvent) bool {
	if e.ev.Command == nil {
		return false
	}
	for _, d := range b.sent {
		if sameStart(e, d) {
			return true
		}
	}
	return false
}

// remap maps the box's rows anew where row n, read now, shows the mapping
// was wrong: output where the mapping has a count of rows hidden, or the
// blank row under the head. It comes before what row n completes is
// placed (take): a command on row n alone ends on it (its line had room
// left), and placed by the old mapping it went out at another row of the
// output, after the commands under it and besides the live box's
// reading of it (fresh gemini-s102200012).
//
// A row of the live box's output read under the line its bottom border
// was last read on, that line not read again, says the box grew over
// lines the screen did not commit anew (it took them for rows moved:
// text it showed before, as when a command prints what the last one
// did): what they show, a count of rows hidden among them, is unknown,
// and the rows read under them may be other rows of the output than the
// head row maps them to. What the box shows from then on is held and
// gives way to a later reading of the same command (unsettled), until a
// count of rows hidden maps the rows again; placed by the head row, a
// command went out besides the done box's reading of it, at another row
// (holdout-20261128q gemini-s13500022).
func (b *toolBox) remap(n int64, text string, head, isHidden bool) {
	switch {
	case n == b.bottomAt:
		b.bottomAt = 0 // read again
	case b.live && !head && !isHidden && b.bottomAt >= b.top && n > b.bottomAt:
		if inside, _ := screenmodel.BoxRow(text); inside {
			b.unseen = true
		}
	}
	if b.live && strings.HasPrefix(strings.TrimLeft(text, " "), "╰") {
		b.bottomAt = n
	}
	if isHidden {
		b.unseen = false
	}
	if n == b.hiddenAt && !isHidden {
		b.hiddenAt = -1 // another row on it
		if b.keptHidden && !head {
			// The head row above was mapped as if the count of rows
			// hidden under it stayed, but the box drawn anew shows a
			// row of its output there: none hidden, the output starts
			// on this row.
			b.top, b.first = n, 0
		}
	}
	if n == b.blankAt && b.live && !head && !isHidden {
		if inside, shows := screenmodel.BoxRow(text); inside && shows {
			// Text where the head row's mapping has the blank row under
			// it: the box at work was drawn higher (the screen scrolled,
			// a line above it went), and its head row and blank row, the
			// same text a line up, were taken for rows moved and not
			// committed at their new lines. The box never shows text
			// under its head row: the output starts on this row. Counted
			// from the old head row, each row read was one too high in
			// the output, and a command the done box (its head committed
			// where it stands) reads on the same line went out twice.
			b.top, b.first, b.blankAt = n, 0, -1
			b.from, b.run = n, b.run+1
		}
	}
}

// row follows a row of the box, numbered n, and returns the commands it
// shows went out whole: a head row's output starts two rows under it (a
// blank row between), unless the row there still shows how many of the
// output's first rows are hidden (no other row read on it since: a row
// that stayed as it was is not committed again, though the head row
// above it changed; a row of output read on it after all says none are
// hidden, remap), and a row that says so has the next one under it. A
// row of the live box's output that comes right after the rows it showed
// so far (from the output's first) adds to them; a row of text is the
// next line of the output after a command the live box showed right above
// it, which its line so ended.
func (b *toolBox) row(n int64, text string, head bool, hidden int, isHidden bool) []parser.Event {
	switch {
	case head && b.hiddenAt == n+2*b.lines():
		b.top, b.first = n+3*b.lines(), b.hidden
		b.keptHidden, b.blankAt = true, -1
	case head:
		b.top, b.first = n+2*b.lines(), 0
		b.keptHidden, b.blankAt = false, n+b.lines()
	case isHidden:
		b.top, b.first = n+b.lines(), int64(hidden)
		b.keptHidden, b.blankAt = false, -1
		b.hiddenAt, b.hidden = n, int64(hidden)
	case b.live && n >= b.top:
		inside, shows := screenmodel.BoxRow(text)
		if !inside {
			return nil
		}
		at := b.first + n - b.top
		if at == b.shown {
			b.shown++
		}
		if shows {
			return b.ended(at)
		}
	}
	return nil
}

// ended returns the command the live box holds whose rows end right above
// the output's row at, a line of text: it went out whole, if the rows
// above it were all shown and read (in the output's order). Of the
// readings of one command, the one that says the most goes out.
func (b *toolBox) ended(at int64) []parser.Event {
	best := -1
	for i, e := range b.seen {
		c := e.ev.Command
		if c == nil || c.FromBlock || e.row+int64(strings.Count(c.Source, "\n"))+1 != at {
			continue
		}
		if best < 0 || strings.HasPrefix(c.Body, b.seen[best].ev.Command.Body) && len(c.Body) > len(b.seen[best].ev.Command.Body) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	e := b.seen[best]
	if e.unsettled || e.row > b.shown || b.wasSent(e) || b.holdsAbove(e.row) {
		return nil
	}
	for _, d := range b.seen {
		if d.ev.Command != nil && sameStart(e, d) && !strings.HasPrefix(e.ev.Command.Body, d.ev.Command.Body) {
			return nil // two readings of its row that disagree
		}
	}
	b.send(e)
	return []parser.Event{e.ev}
}

// head follows a head row of the program's boxes, at work or done, and
// returns what it ends; span is how many lines of the screen each of the
// box's rows takes (toolBox.span), width how wide the box is drawn.
func (b *toolBox) head(title string, running bool, span int64, width int) []parser.Event {
	unsettled := b.unsettled
	if b.live && b.title == "" {
		b.title = title // the box whose rows were read first (adopt)
	}
	if running && b.live && b.title == title {
		b.width = width // its spinner turning, or the box drawn anew
		return nil
	}
	if !running && b.live && b.title == title {
		b.live, b.done, b.span = false, true, span
		b.liveTop, b.liveFirst, b.doneRead = b.top, b.first, b.doneRead[:0]
		return nil
	}
	out := b.release()
	b.title, b.live, b.span, b.unsettled = title, running, span, unsettled
	if running {
		b.width = width
	}
	return out
}

// drawnAsAtWork reports whether the box headed title, drawn width wide,
// is as wide as the live box followed last showed it (true where no live
// box of that title was followed): the program made the terminal the
// command ran in as wide as the box at work, and a box printed done for a
// screen that shrank or grew since shows that terminal's rows cut to its
// width, or short of it, not whole.
func (b *toolBox) drawnAsAtWork(title string, width int) bool {
	return !b.live || b.title != title || b.width == width
}

// adopt follows, as a box at work, the box whose row was read with no box
// followed, right after the screen changed width (unsettled): the program
// draws its box at work anew for the new width, and its rows may be read
// before its head row is. What it shows is held (unsettled) as in a box
// whose head was read, its rows counted from n, the first read; its head
// row, read later, names it and maps its rows anew.
func (b *toolBox) adopt(n int64) {
	if !b.live && !b.done && b.unsettled {
		b.live, b.title, b.top, b.first, b.blankAt = true, "", n, 0, -1
	}
}

// lines returns how many lines of the screen each row of the box takes.
func (b *toolBox) lines() int64 { return max(b.span, 1) }

// rows returns how many rows of the box n lines of the screen from its
// first row of output down are (n may be negative: rows above it).
func (b *toolBox) rows(n int64) int64 {
	k := b.lines()
	if n < 0 {
		return -((-n + k - 1) / k)
	}
	return n / k
}

// release returns what the box held, and forgets the box: the commands
// only the live box showed, its errors on rows the done box does not show
// (all of them where no done box followed), and what the done box showed,
// in the order of their rows in the output, as a reader reads the box top
// down. A row the done box shows as the live box last did is not
// committed again, and the command on it is read only in the live box,
// though the done box shows it among the others (at another row of the
// output where the done box maps its rows otherwise: stayedAgain); the
// live box's readings first where two start on one row.
func (b *toolBox) release() []parser.Event {
	b.again = append(b.again, b.stayedAgain()...)
	b.again = slices.DeleteFunc(b.again, b.cutAgain)
	earlier := func(e boxEvent) bool { return e.cols != b.cols }
	var read []boxEvent
	if slices.ContainsFunc(b.seen, earlier) || slices.ContainsFunc(b.again, earlier) || slices.ContainsFunc(b.sent, earlier) {
		read = slices.DeleteFunc(slices.Concat(b.seen, b.again, b.sent), func(e boxEvent) bool { return !earlier(e) })
	}
	held := append(b.pick(func(boxEvent) bool { return true }), b.again...)
	slices.SortStableFunc(held, func(x, y boxEvent) int { return cmp.Compare(x.row, y.row) })
	if slices.ContainsFunc(held, earlier) || slices.ContainsFunc(b.sent, earlier) {
		held = placeByContent(held, read, b.sent, b.cols, b.cutAtEdge)
	}
	out := appendEvents(nil, held)
	clear(b.again) // the events are the caller's now
	clear(b.sent)
	*b = toolBox{seen: b.seen[:0], again: b.again[:0], sent: b.sent[:0], doneRead: b.doneRead[:0], cutAtEdge: b.cutAtEdge}
	return out
}

// stayedAgain returns the commands the done box shows on lines it drew as
// the live box last did (not committed again, not read in it) where its
// rows map to other rows of the output: the done box shows more of the
// output's first rows hidden than the live box last did (the output went
// on after its last frame), and a line that shows the same text as the
// live box showed there shows it at a row further down, a line printed
// again (the same command twice in a row: the second copy drawn where the
// first was). Each is a command the live box read (held or gone out),
// whose rows its last mapping put on those lines, every one of them under
// the done box's rows read and above its last; none is read at its row.
// A reading whose first row's line the live box drew anew since
// (overdrawn) is not one: that line no longer shows it, and the done box
// leaves there what the live box drew last (the reading was of the old
// terminal's rows right after a resize, cut, and its body went out
// besides the line laid out anew: fresh gemini-s92900026). A done box
// that hides no more of the output's rows than the live box last did maps
// its rows otherwise only where the head row the live box was mapped by
// was no longer where the box stood (drawn higher, its rows taken for
// rows moved up and not committed again): its lines not committed again
// show what the live box showed under them, not the same text again
// further down the output, and a command the live box read there would
// go out twice.
func (b *toolBox) stayedAgain() []boxEvent {
	shift := (b.first - b.top) - (b.liveFirst - b.liveTop)
	if !b.done || shift <= 0 || b.first <= b.liveFirst || b.lines() != 1 || len(b.doneRead) == 0 {
		return nil
	}
	bottom := slices.Max(b.doneRead)
	var out []boxEvent
	add := func(e boxEvent) {
		c := e.ev.Command
		if c == nil || e.overdrawn {
			return
		}
		at := b.liveTop + e.row - b.liveFirst // where the live box last showed it
		rows := int64(strings.Count(c.Source, "\n"))
		if at < b.liveTop || at < b.top || at+rows >= bottom {
			return
		}
		for n := at; n <= at+rows; n++ {
			if slices.Contains(b.doneRead, n) {
				return // drawn anew there
			}
		}
		d := boxEvent{row: e.row + shift, cols: b.cols}
		again := *c
		again.Line = at
		d.ev.Command = &again
		for _, held := range [][]boxEvent{b.seen, b.again, b.sent, out} {
			if slices.ContainsFunc(held, func(x boxEvent) bool { return sameStart(d, x) }) {
				return // read at that row
			}
		}
		b.seq++
		d.seq = b.seq
		out = append(out, d)
	}
	for _, e := range b.seen {
		add(e)
	}
	for _, e := range b.sent {
		add(e)
	}
	return out
}

// placeByContent returns held, what the box read and holds in the order
// of its rows, with the readings made on a screen of another width than
// cols, the last one's, placed among those by what they say (read: all
// the box read at other widths, held, gone out (sent) or neither): the
// program made the command's terminal as wide
// as its box, the box's rows count the output anew at each width (a line
// one wraps over two rows takes one at another), and rows counted at two
// widths say nothing of each other's order. A reader places what the box
// showed at an earlier width by the lines around it: a command the box
// shows at the last width too (sameCommand; cut tells a row cut at the
// box's edge) is read there once, as the reading that says more says it
// — not at all where the live box showed it whole at the earlier width
// and it went out then (sent: its row, counted at that width, is not the
// row the last width counts, and the box would read it again); one it
// does not show goes out after the last such command above it, or first.
// Each reading at the last width stands for one earlier reading at most,
// the first after the one the reading above it stood for: the same line
// printed again further down, after the resize, is another line.
func placeByContent(held, read, sent []boxEvent, cols int, cut func(*parser.Command, string) bool) []boxEvent {
	base := slices.DeleteFunc(slices.Clone(held), func(e boxEvent) bool { return e.cols != cols })
	slices.SortStableFunc(read, func(x, y boxEvent) int { return cmp.Compare(x.row, y.row) })
	after := make([][]boxEvent, len(base)+1) // after[j+1]: after base[j]
	gone := make([]bool, len(base))          // base[j] is a command sent at an earlier width
	anchor := -1
	for _, e := range read {
		j := -1
		if c := e.ev.Command; c != nil {
			j = slices.IndexFunc(base[anchor+1:], func(d boxEvent) bool {
				return d.ev.Command != nil && sameCommand(c, d.ev.Command, cut)
			})
		}
		kept := slices.ContainsFunc(held, func(d boxEvent) bool { return d.seq == e.seq })
		if j < 0 {
			if kept {
				after[anchor+1] = append(after[anchor+1], e)
			}
			continue
		}
		j += anchor + 1
		if d := base[j].ev.Command; kept && len(e.ev.Command.Body) > len(d.Body) {
			base[j] = e // the box showed it whole at the earlier width, cut at this one
		}
		gone[j] = gone[j] || slices.ContainsFunc(sent, func(d boxEvent) bool { return d.seq == e.seq })
		anchor = j
	}
	out := append(make([]boxEvent, 0, len(held)), after[0]...)
	for j, d := range base {
		if !gone[j] {
			out = append(out, d)
		}
		out = append(out, after[j+1]...)
	}
	return out
}

// sameCommand reports whether x and y, commands a box showed at two
// widths, are one command: they say the same, or one says less, its words
// the other's first ones (the last perhaps cut short), and its last row
// was cut at its box's edge (cut) before what the other goes on with. One
// whose row had room for that ended its line there: another command that
// only starts as the other does, and a reader read both.
func sameCommand(x, y *parser.Command, cut func(*parser.Command, string) bool) bool {
	if !sameFields(x, y) {
		return false
	}
	xs, ys := strings.Fields(x.Body), strings.Fields(y.Body)
	if slices.Equal(xs, ys) {
		return true
	}
	if next, ok := goesOn(xs, ys); ok {
		return cut(x, next)
	}
	if next, ok := goesOn(ys, xs); ok {
		return cut(y, next)
	}
	return false
}

// goesOn returns what long, a command's body's words, says after short's
// words, when long starts with them (the last perhaps cut short in
// short), and says more: the rest of a word short cut, or its next word.
func goesOn(short, long []string) (string, bool) {
	n := len(short)
	if n == 0 || len(long) < n || !slices.Equal(long[:n-1], short[:n-1]) || !strings.HasPrefix(long[n-1], short[n-1]) {
		return "", false
	}
	if rest := long[n-1][len(short[n-1]):]; rest != "" {
		return rest, true
	}
	if len(long) == n {
		return "", false
	}
	return long[n], true
}

// cutAgain reports whether e, a command the done box shows, is one the
// live box showed at the same row of the output with more of its words
// (holds): the done box, drawn narrower than the terminal the command ran
// in, dropped what did not fit its rows. A reader who saw both reads the
// fuller one; it alone goes out.
func (b *toolBox) cutAgain(e boxEvent) bool {
	if e.ev.Command == nil {
		return false
	}
	for _, d := range b.seen {
		if sameStart(e, d) && len(d.ev.Command.Body) > len(e.ev.Command.Body) && holds(d.ev.Command.Body, e.ev.Command.Body) {
			return true
		}
	}
	return false
}

// appendEvents appends the events of es to out.
func appendEvents(out []parser.Event, es []boxEvent) []parser.Event {
	for _, e := range es {
		out = append(out, e.ev)
	}
	return out
}

// pick returns, in their order, what the live box read on the rows sel
// chooses, and holds the rest: the commands no other reading of their row
// showed whole, and its errors on rows the done box does not show (all of
// them where no done box followed).
func (b *toolBox) pick(sel func(boxEvent) bool) []boxEvent {
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
	var out []boxEvent
	gaveTo := make(map[int64]int64) // a later reading's seq: the earlier one's that gave way to it
	for i, e := range b.seen {
		switch {
		case !sel(e):
		case b.wasSent(e):
			// shown whole before, gone out then
		case e.ev.Command == nil:
			if !b.done || e.row < b.first {
				out = append(out, e)
			}
			// else rows of the live box cut by its sliding: read whole in
			// the done box, if anywhere
		case b.shownWhole(i, atRow[e.row], againAtRow[e.row], gaveTo):
		case b.superseded(e, gaveTo) || e.unsettled && b.cutAndDrawnAnew(e):
		default:
			out = append(out, e)
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
// commands on its row), that says as much or more (holds): the same
// command, which the live box cut (rows under it not shown yet, or slid
// away), showed through a box of another width, or showed twice — read
// once, where the done box shows it, else the first time the live box
// showed the most of it. A reading that gave way to this one (gaveTo, see
// superseded) is not another showing of it.
func (b *toolBox) shownWhole(i int, live, again []int, gaveTo map[int64]int64) bool {
	c := b.seen[i]
	for _, j := range again {
		if d := b.again[j]; sameStart(c, d) && holds(d.ev.Command.Body, c.ev.Command.Body) {
			return true
		}
	}
	for _, j := range live {
		if gave, ok := gaveTo[c.seq]; ok && gave == b.seen[j].seq {
			continue
		}
		if d := b.seen[j]; j != i && sameStart(c, d) && holds(d.ev.Command.Body, c.ev.Command.Body) &&
			(len(d.ev.Command.Body) > len(c.ev.Command.Body) || j < i) {
			return true
		}
	}
	return false
}

// superseded reports whether e, a command the live box showed right after
// the screen changed width (toolBox.unsettled), gives way to a reading of
// the box made later — in the live box, the done box, or gone out — that
// is the command its first row showed (sameCommand), read in another run
// of rows (a later frame: rows of one run, read one after the other, are
// lines a reader sees one under the other), once the line that row was
// read on was drawn anew (overdrawn): while the screen still shows it
// there, a reader reads it, and a reading of the same text on another
// row is another line (one printed twice): the box showed, that
// first frame or few, the rows of a terminal as wide as the old box cut
// to the new one, and the row under it was another line's, or the next
// part of the line after what was dropped; then the line laid out anew,
// counted from another row. Only its first row says what e is: a later
// reading that says the same, or goes on with what that row, cut at the
// box's edge, had no room for, is the same command, as the box showed it
// once settled. One that only starts alike, where the row had room left,
// is another message, and e goes out too. So too for a command the live
// box held (not shown whole: its rows ran down to the box's border) and
// that a reading made on a screen of another width (a resize since)
// supersedes: the box drawn anew for the new width lays the line out
// anew, and the held reading is of the old box's rows, each cut where
// that box ended, the rest of the terminal's row dropped — a body no
// reader saw whole, whose rows say nothing of the new ones' order.
// A later reading stands for one earlier reading only (gaveTo: the
// readings, by seq, one already gave way to), the earliest it follows: a
// line printed twice shows twice in each frame, and two readings of one
// frame that gave way to one reading of the next would lose a copy a
// reader saw.
func (b *toolBox) superseded(e boxEvent, gaveTo map[int64]int64) bool {
	if !e.overdrawn {
		return false
	}
	first := firstRow(e.ev.Command)
	if first.Body == "" {
		return false
	}
	next := int64(-1)
	for _, held := range [][]boxEvent{b.seen, b.again, b.sent} {
		for _, d := range held {
			if _, taken := gaveTo[d.seq]; !taken && d.seq > e.seq && d.run != e.run && (next < 0 || d.seq < next) &&
				(e.unsettled || d.cols != e.cols) && d.ev.Command != nil && sameCommand(first, d.ev.Command, b.cutAtEdge) {
				next = d.seq
			}
		}
	}
	if next < 0 && e.unsettled {
		next = b.shownBefore(e, first, gaveTo)
	}
	if next < 0 {
		return false
	}
	gaveTo[next] = e.seq
	return true
}

// shownBefore returns the seq of the reading, made before e on a screen
// of another width (the screen's width before it changed, e read right
// after: unsettled), of the command e's first row showed: its first row
// says the same, or less, cut at its box's edge before what e's first row
// goes on with (sameCommand) — -1 if none. No later reading shows the
// command e is (the live box slid it out of its view as it laid the line
// out anew); the relayout frame showed the line as no frame before or
// after did, and a reader who read it before the resize reads it there
// once. Both went out, a line read twice (holdout-20261128r
// gemini-s14100000). The latest such reading that no other stands for
// and that gave way to none (superseded): one of the two goes out.
func (b *toolBox) shownBefore(e boxEvent, first *parser.Command, gaveTo map[int64]int64) int64 {
	if _, stands := gaveTo[e.seq]; stands {
		return -1 // an earlier reading gave way to e: e goes out for it
	}
	prev := int64(-1)
	for _, held := range [][]boxEvent{b.seen, b.sent} {
		for _, d := range held {
			if _, taken := gaveTo[d.seq]; !taken && d.seq < e.seq && d.seq > prev && d.run != e.run && d.cols != e.cols &&
				!gaveWay(d, gaveTo) && d.ev.Command != nil && sameCommand(firstRow(d.ev.Command), first, b.cutAtEdge) {
				prev = d.seq
			}
		}
	}
	return prev
}

// gaveWay reports whether d gave way to a later reading (superseded).
func gaveWay(d boxEvent, gaveTo map[int64]int64) bool {
	for _, seq := range gaveTo {
		if seq == d.seq {
			return true
		}
	}
	return false
}

// cutAndDrawnAnew reports whether e, a command the live box showed right
// after the screen changed width (toolBox.unsettled), started on a row
// the box's edge cut (its text reaches the box's last column, and the
// parser finds no room left on it for one more character: a row the box
// wrapped by words a few columns short of the edge is laid out for the
// new width, read whole) and the
// line that row was read on was drawn anew since (overdrawn): the row was
// the old terminal's, cut, and whatever the reading joined under it was
// another line's, or nothing of it. The screen laid the line out anew
// elsewhere, and where that row showed the same text as the cut one the
// spawner took it for the cut row moved and committed no reading of it
// (a reading it did commit supersedes e). A reader reads the line whole
// from the later drawing or not at all, never the cut body: e is not read.
func (b *toolBox) cutAndDrawnAnew(e boxEvent) bool {
	if !e.overdrawn {
		return false
	}
	first := firstRow(e.ev.Command)
	return reachesBoxEdge(first.Source) && b.cutAtEdge(first, "x")
}

// reachesBoxEdge reports whether row, a row of a box with its right
// border, shows text up to the box's last column: one blank between its
// last character and the border, the box's own padding.
func reachesBoxEdge(row string) bool {
	inner, ok := strings.CutSuffix(strings.TrimRight(row, " "), "│")
	return ok && strings.HasSuffix(inner, " ") && !strings.HasSuffix(inner, "  ")
}

// firstRow returns c as the row it starts on showed it: its source that
// row, its body the words after its marker there.
func firstRow(c *parser.Command) *parser.Command {
	row, _, _ := strings.Cut(c.Source, "\n")
	words := strings.Fields(row)
	for i, w := range words {
		if strings.HasPrefix(w, "@relay:") || strings.HasPrefix(w, "@thinking:") {
			words = words[i+1:]
			break
		}
	}
	f := *c
	f.Source, f.Body = row, strings.Join(slices.DeleteFunc(words, func(w string) bool { return w == "│" }), " ")
	return &f
}

// holds reports whether body, a reading of a command on a row of a box's
// output, says all that other, a reading of the same row, says: other is
// body cut short, or body with words left out. A box drops what does not
// fit it where it wraps a row of its terminal, and a box of another width
// (the screen resized while the command ran) wraps elsewhere and drops
// other text: a word one reading shows at a wrap, another may have lost.
func holds(body, other string) bool {
	if strings.HasPrefix(body, other) {
		return true
	}
	words := strings.Fields(body)
	for _, w := range strings.Fields(other) {
		k := slices.Index(words, w)
		if k < 0 {
			return false
		}
		words = words[k+1:]
	}
	return true
}

// sameStart reports whether two commands read in a box start at the same
// row of the output and say the same but for their bodies.
func sameStart(c, d boxEvent) bool {
	return c.row == d.row && d.ev.Command != nil && sameFields(c.ev.Command, d.ev.Command)
}

// sameFields reports whether two commands say the same but for their
// bodies.
func sameFields(x, y *parser.Command) bool {
	return x.Kind == y.Kind && x.To == y.To && x.Type == y.Type && bytes.Equal(x.Data, y.Data) &&
		x.Topic == y.Topic && x.CorrelationID == y.CorrelationID && x.InReplyTo == y.InReplyTo
}
