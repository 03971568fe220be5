package spawner

import "strings"

// A program that clears its screen often draws what it showed before
// again: Ink (Claude Code's classic interface, Gemini CLI) clears the
// screen and the scrollback and writes all its static output again when
// its live area outgrows the screen; Codex's inline mode does the same on
// resize, wrapped for the new width; Claude Code clears the visible rows
// on resize and redraws the last screenful. The replay rule: after the
// screen is cleared (ED 2, ED 0 from home, ED 3, or every row erased) and
// until output pauses, a line whose text (its key: without blanks and
// borders, so that another wrap or indent does not matter) is that of a
// line committed before is a replay and is not committed. Each committed
// line is replayed once per replay, so the same text printed again in the
// same frame is new; lines committed before the first line the replay
// repeats (less two screenfuls) are not taken. A line that repeats nothing
// is new and is committed; the replay goes on after it, with the lines
// that follow found where they are in what was committed (a program that
// writes its transcript again may show some of it anew: Codex collapses a
// long output) — but a line as common as a block's "{", "}" or
// "[[/RELAY]]" right after a new line is more of the new output, unless it
// is the line the replay expects next or the screen's width changed (the
// transcript wrapped anew): a new block's rows are not those of an old
// one, found wherever one was (Claude Code repaints its transcript with
// the latest output under it). Nor does such a line begin a replay after
// a line too long to be common that repeated nothing, under a clear that
// kept the scrollback (Codex inline erases its screen from the top as a
// running command's output fills it, and draws new rows). The
// echo of typed input (Codex turns a running command's header into "You
// ran") is not such a new line. A line the program draws where it left an
// output's rows out ("… +18 lines") is taken wherever one was committed,
// the replay staying where it is (repeatsAside): the program draws it when
// it collapses the output, often long after it.
//
// A command's output comes after its echo: once a replay has repeated
// the echo of the command typed last (its first echo, for a program that
// shows a running command's header, then "You ran": the same command;
// rows of its output that scrolled into the transcript before the program
// drew its header count as after it), a line under it that repeats only
// lines committed before that echo is new — the command printed the same
// text again (a file printed twice), which the program writes again whole
// under the echo while it shows the first print's output collapsed above
// it; and a line right after a new one under the echo, or right after the
// echo itself, however common, is more of that output, also after a
// resize (a new block's "type" row is not that of an older block shown
// collapsed above, which the replay did not take; its first rows are not
// those of an older block cut off above, which the replay passed over).
// The lines committed after the echo that the replay took before reaching it (older rows, wrapped
// anew as the second print was) are taken back: the output under the
// echo is still to come. Under an echo the replay has not seen (a new
// command), no line repeats history the replay passed (typed). Lines as common as a block's "{" are left out
// of the rule (see oldest).

// replayLines bounds the committed lines a replay is matched against: a
// replay of older lines commits them again.
const replayLines = 20000

// minReplayStart is the shortest key a replay may start with in the middle
// of a committed line or over several (a paragraph wrapped anew: joined);
// a shorter first line must repeat a whole committed line.
const minReplayStart = 16

// maxReplayTries ends a replay that has not matched in so many lines: the
// program cleared its screen and wrote something new.
const maxReplayTries = 64

// maxRewrapLines bounds the committed lines one replayed line may join.
const maxRewrapLines = 8

// minResumeKey is the shortest key that, right after a new line, takes the
// replay on to where a committed line with that key is (not the line it
// expects next): a shorter one is common to many lines.
const minResumeKey = 20

type replay struct {
	// seen holds the lines committed whose key is not blank, oldest
	// first, packed (blocks.go). Their keys are worked out when a replay
	// first needs them, as most lines are never matched against (a log
	// scrolling by clears no screen): lines holds those of all but the
	// newest fresh.
	seen  packedRing
	fresh int

	epoch  int // counts the replays begun
	active bool
	began  bool // a line matched
	tries  int  // lines looked for before one matched
	rows   int  // the screen's height: how far before the first match lines may be
	lines  []string
	used   []bool
	first  int // index of the first line matched
	pos    int // the line after the last one matched…
	off    int // …or the part of it a rewrapped line took
	// The lines with a key, oldest first: head[key] is the first,
	// next[i] the one after line i (-1: none). Made at each clear and let
	// go when output pauses, as they hold ~50 bytes a line (of up to
	// replayLines) and are made anew whole by the next clear anyway;
	// lines keeps the keys between replays.
	head map[string]int32
	next []int32
	// resized says the screen's width changed since output last paused:
	// the program may draw its transcript again wrapped for the new
	// width, a paragraph's rows in rows of another length, so a line the
	// replay did not expect is looked for after its position too, over
	// several committed lines.
	resized bool
	// redrawn says lines came since then: the pause after them ends what
	// the resize allows. newWidth says the width changed and the program
	// has not written since: lines committed until it does (held back
	// before the resize, committed as output settles) were drawn for the
	// old width, no redraw; the resize allows nothing for them.
	redrawn, newWidth bool
	// missed says the last line looked for was new: it repeated nothing.
	missed bool
	// kept says the clear that began this replay kept the scrollback
	// (beginKept); wiped, that the scrollback was erased since output
	// last paused (beginWiped). newLong counts the lines as long as
	// minResumeKey that repeated nothing before the replay began, not
	// echoes of typed input; longMissed says the last line looked for
	// was one.
	kept, wiped bool
	newLong     int
	longMissed  bool

	// recorded counts the lines recorded (with a key) so far; echoAt is
	// the count before the first echo of the command typed last, whose
	// text after the echo's start is echoCmd (echoAt < 0: none);
	// echoRuns says that echo heads a command the program runs. fromAt
	// is the count before the first line under it: echoAt, or the line
	// after the echo of the line typed, when the command's header came
	// only after output (see record).
	recorded, echoAt, fromAt int
	echoCmd                  string
	echoRuns                 bool
	// echo is echoAt as an index of lines in this replay (-1: none, or
	// no longer among the lines kept), from fromAt; floor is where a
	// replay that reached the echo takes lines from (see the package's
	// replay rule), under says it did.
	echo, from, floor int
	under             bool
	// tail says this replay may be the last rows of the program's
	// transcript drawn from the screen's top (see beginTail), until its
	// first line is looked for; live says it is, under the echo of the
	// command typed last: it takes no line before the floor.
	tail, live bool
	// sized says the screen changed size since the last replay began: the
	// program draws its transcript again for the new size.
	sized bool
	// long counts the lines replays repeated whose key is as long as
	// minResumeKey: text too rare to be a new line's by chance
	// (mainLines.passed).
	long int64
	// past: the replay met the echo of typed input that repeats nothing
	// (a command new to it); the lines before past are the history it
	// passed, which no line under that echo repeats.
	past int

	// elides says whether a line is one the program draws where it left
	// rows out ("… +N lines": screenmodel.Layout.Elides); elided[i] says
	// lines[i] is one, worked out as a replay begins. hidden says the
	// line taken last went on into the rows such a line stood for
	// (acrossElided): the next may hold the rest of them, then the lines
	// committed after it.
	elides func(text string) bool
	elided []bool
	hidden bool
}

// record adds a committed line; cmd is the command a line echoing typed
// input shows after the echo's start ("" for any other line), runs says
// that line heads a command the program runs (screenmodel.Echo.Runs).
func (r *replay) record(text, cmd string, runs bool) {
	r.redrawn = r.resized
	if !hasKey(text) {
		return
	}
	// The same command echoed again (under another start: the header of
	// a command the program showed running, now done; or committed again,
	// moved) keeps its first echo, which its output follows.
	if cmd != "" && cmd != r.echoCmd {
		// A command's header first shown after the echo of the line
		// typed, not right under it, came after rows of its output: they
		// scrolled into the transcript while it ran, before the program
		// drew the header ("• You ran" once done, the "• Running" row
		// never read). Those rows are that command's output, under its
		// header where the program writes its transcript again: a replay
		// that reached the header takes them, as it takes the rows
		// committed after it, and does not read them again. Under the
		// header of another command, rows are that one's output.
		from := r.recorded
		if runs && r.echoAt >= 0 && !r.echoRuns {
			from = r.echoAt + 1
		}
		r.echoAt, r.fromAt, r.echoCmd, r.echoRuns = r.recorded, from, cmd, runs
	}
	r.recorded++
	r.fresh = min(r.fresh+1, replayLines)
	r.seen.pushString(text)
	if r.seen.len() > replayLines {
		r.seen.dropOldest()
	}
}

// forget takes back the lines recorded last, texts (oldest first), that
// the committer took back (a preview: mainLines.retractPreview), as far
// as they are the newest lines recorded since the last replay began.
func (r *replay) forget(texts []string) {
	for i := len(texts) - 1; i >= 0; i-- {
		if !hasKey(texts[i]) {
			continue
		}
		n := r.seen.len()
		if r.fresh == 0 || n == 0 || string(r.seen.at(n-1)) != texts[i] {
			// Older lines are not the newest recorded: stop taking back,
			// but still check the echo below (it may be among those taken).
			break
		}
		r.seen.truncate(1)
		r.recorded--
		r.fresh--
	}
	if r.echoAt >= r.recorded {
		// The echo itself was taken back: no line recorded is the echo of
		// the command typed last (the next one recorded would be taken
		// for it), until the program shows one again.
		r.echoAt, r.echoCmd, r.echoRuns = -1, "", false
	}
}

// knownScreens is how many screenfuls of the lines recorded last knows
// looks through: an echo the program shows again while its command runs
// (moved, redrawn) is at most a few screens up, and further up the same
// text is an older command's echo. A screenful is at least a terminal's
// usual 24 rows: the height is known here only once a replay began.
const knownScreens = 4

// knows reports whether text is among the lines recorded last
// (knownScreens screenfuls of them).
func (r *replay) knows(text string) bool {
	n := r.seen.len()
	for i := n - 1; i >= max(n-knownScreens*max(r.rows, 24), 0); i-- {
		if string(r.seen.at(i)) == text {
			return true
		}
	}
	return false
}

// sinceEcho reports whether text is among the lines recorded since the
// echo of the command typed last (knownScreens screenfuls of them at
// most): a line of that command's output.
func (r *replay) sinceEcho(text string) bool {
	if r.echoCmd == "" {
		return false
	}
	n := r.seen.len()
	lo := max(r.echoAt-(r.recorded-n)+1, n-knownScreens*max(r.rows, 24), 0)
	for i := n - 1; i >= lo; i-- {
		if string(r.seen.at(i)) == text {
			return true
		}
	}
	return false
}

// begin starts matching: the screen, rows high, was cleared.
func (r *replay) begin(rows int) {
	r.active, r.began, r.tail, r.live, r.sized = false, false, false, false, false
	r.epoch++
	n := r.seen.len()
	if n == 0 {
		return
	}
	r.active, r.began, r.tries, r.rows, r.missed = true, false, 0, rows, false
	r.kept, r.newLong, r.longMissed = false, 0, false
	keyed := min(max(n-r.fresh, 0), len(r.lines)) // lines whose keys lines ends with
	r.lines = append(r.lines[:0], r.lines[len(r.lines)-keyed:]...)
	for i := keyed; i < n; i++ {
		r.lines = append(r.lines, RowKey(string(r.seen.at(i))))
	}
	r.fresh = 0
	r.elided = r.elided[:0]
	for i, k := range r.lines {
		r.elided = append(r.elided, strings.HasPrefix(k, "…") && r.elides != nil && r.elides(string(r.seen.at(i))))
	}
	r.hidden = false
	r.used = make([]bool, len(r.lines))
	r.head, r.next = make(map[string]int32, len(r.lines)), make([]int32, len(r.lines))
	for i := len(r.lines) - 1; i >= 0; i-- {
		k := r.lines[i]
		if j, ok := r.head[k]; ok {
			r.next[i] = j
		} else {
			r.next[i] = -1
		}
		r.head[k] = int32(i)
	}
	r.pos, r.off = 0, 0
	r.echo, r.from, r.floor, r.under, r.past = -1, 0, 0, false, 0
	if r.echoCmd != "" {
		if i := r.echoAt - (r.recorded - n); i >= 0 {
			r.echo, r.from = i, max(r.fromAt-(r.recorded-n), 0)
		}
	}
}

// beginKept starts matching a screen, rows high, that the program cleared
// keeping its scrollback (no ED 3): it draws its view anew, not its whole
// transcript again, and after rows that repeat nothing, its rows are more
// of what it draws new (Codex inline erases the screen from its top as a
// running command's output fills it). A program that erased its
// scrollback too writes all of its transcript again, whose first rows may
// be drawn anew (a banner with a count, a row laid out for a new width)
// over rows that repeat, short ones too.
func (r *replay) beginKept(rows int) {
	r.begin(rows)
	r.kept = !r.wiped
}

// beginWiped starts matching a screen, rows high, that the program
// cleared with its scrollback (ED 3, a reset): until output pauses, a
// clear of the screen alone is part of that (Ink writes ED 2 and ED 3
// together).
func (r *replay) beginWiped(rows int) {
	r.begin(rows)
	r.wiped = true
}

// beginTail starts matching a screen, rows high, whose rows the program
// erased one by one before drawing from its top: Claude Code does so when
// its live area (the command typed last, its output, the status and
// input box under it) grows taller than the screen, or when it draws its
// transcript again, drawing the last rows of it that fit — the rows above
// are cut off. Unless the screen changed size since the last replay
// began (the transcript laid out anew), a drawing that fits the screen
// and does not show the echo of the command typed last is all under that
// echo: it repeats no line committed before it (a file printed again
// shows the first print's text under its own echo, cut off above). The
// committer tells once it has the drawing (tailShows): one that shows
// the echo of any line typed is taken as before, the transcript drawn
// again. The rows erased, the scrollback is kept (beginKept); Codex
// inline erases the screen so too as a running command's output fills
// it.
func (r *replay) beginTail(rows int) {
	sized := r.sized
	r.beginKept(rows)
	r.tail = !sized && r.active && r.echo >= 0
}

// tailUnknown reports whether a replay begun by beginTail is still to be
// told what its drawing shows (tailShows): before its first line.
func (r *replay) tailUnknown() bool { return r.tail && !r.began }

// tailShows says whether the drawing a replay begun by beginTail made
// shows the echo of a line typed (see beginTail).
func (r *replay) tailShows(shows bool) {
	r.tail = false
	if !shows {
		r.live, r.floor, r.under = true, r.from, true
	}
}

// drawsTail reports whether the replay under way may be, or is, the
// live area of the command typed last cut above (beginTail): its rows
// are drawn anew, whatever a row showed there before.
func (r *replay) drawsTail() bool { return r.active && (r.tail || r.live) }

// liveTail reports whether the replay under way is that live area
// (tailShows): a row it draws that repeats no line committed since the
// echo of the command typed last is that command's output, new, also
// where the same text was committed before at the same row.
func (r *replay) liveTail() bool { return r.active && r.live }

// drawnUnderEcho reports whether text, a row this replay did not repeat,
// is drawn under the echo of the command typed last as that command's
// output: in the live area cut above (liveTail), or under that echo
// repeated, at the width the transcript was committed at, where text
// repeats no line committed since the echo. A transcript is drawn again
// in its order, and under that echo comes only that command's output: a
// file printed again there shows an older print's rows, which are not
// those rows moved down past the echo, nor shown again (Claude Code
// inline clears its screen and draws the transcript's tail, the echo in
// view). After a change of width the rows are laid out anew, text that
// repeats no line as it was committed.
func (r *replay) drawnUnderEcho(text string) bool {
	if !r.active || !r.under {
		return false
	}
	return r.live || !r.resized && !r.newWidth && !r.sinceEcho(text)
}

// sizeChanged notes that the screen changed size.
func (r *replay) sizeChanged() { r.sized = true }

// end stops matching: output paused.
func (r *replay) end() {
	r.active, r.began, r.wiped = false, false, false
	r.used, r.head, r.next = nil, nil, nil
	if r.redrawn {
		r.resized, r.redrawn = false, false
	}
}

// widthChanged notes that the screen's width changed: what the program
// writes next may be drawn for the new width (written).
func (r *replay) widthChanged() { r.newWidth = true }

// written notes that the program wrote: after a change of width, it may
// be drawing its transcript again for the new one (resized).
func (r *replay) written() {
	if r.newWidth {
		r.resized, r.redrawn, r.newWidth = true, false, false
	}
}

// repeats reports whether text, about to be committed, is a replayed line.
// Blank lines are replayed when a replay has begun.
func (r *replay) repeats(text string) bool {
	r.redrawn = r.resized
	if !r.active {
		return false
	}
	key := RowKey(text)
	if key == "" {
		return r.began
	}
	ok := r.repeatsKey(key)
	if ok && len(key) >= minResumeKey {
		r.long++
	}
	return ok
}

// repeatsAside is repeats for a line the program draws where it left an
// output's rows out ("… +18 lines"): one committed with that text is taken
// wherever it is, and the replay stays where it was. The program draws it
// when it collapses an output, which may be long after the output was
// committed (Claude Code collapses a command's output once the next one
// runs): where it was committed says nothing of where the transcript,
// written again, goes on, and a replay taken far ahead by it took the
// lines after it ("Interrupted", under every command) from a later
// command's and read all between again.
func (r *replay) repeatsAside(text string) bool {
	key := RowKey(text)
	if !r.active || !r.began || key == "" {
		return r.repeats(text)
	}
	i, ok := r.exact(key, 0)
	if !ok {
		return r.repeats(text)
	}
	r.redrawn = r.resized
	r.used[i] = true // not taken: the position stays
	return true
}

// repeatsKey is repeats for a line with a key.
func (r *replay) repeatsKey(key string) bool {
	if !r.began {
		if r.tries++; r.tries > maxReplayTries {
			r.end()
			return false
		}
		// Under a clear that kept the scrollback, after a line too long
		// to be common that repeated nothing (new output), a line as
		// common as a block's "[[RELAY]]" or "{" is more of it: no
		// replay begins on it (beginKept).
		r.longMissed = false
		if r.kept && r.newLong > 0 && len(key) < minResumeKey {
			return false
		}
		if i, ok := r.exact(key, r.floor); ok {
			r.began, r.first = true, i
			r.take(i)
			r.reached()
			return true
		}
		if i, off, ok := r.within(key, r.floor); ok {
			r.began, r.first, r.pos, r.off = true, i, i, off
			if !r.rewrap(key) {
				return false
			}
			r.reached()
			return true
		}
		if i, ok := r.joined(key, r.floor); ok {
			r.began, r.first = true, i
			r.reached()
			return true
		}
		if r.longMissed = len(key) >= minResumeKey; r.longMissed {
			r.newLong++
		}
		return false
	}
	ok := r.goesOn(key)
	r.missed = !ok
	if ok {
		r.reached()
	}
	return ok
}

// reached notes a line matched: once the replay repeated the echo of the
// command typed last, it takes no line committed before it (oldest).
func (r *replay) reached() {
	if r.echo >= 0 && !r.under && r.used[r.echo] {
		r.floor, r.under = r.from, true
		// Lines after the echo taken before it were the command's output
		// taken for older rows written again (the same text, printed
		// earlier): the output, under its echo, is still to come.
		for i := r.pos; i < len(r.used); i++ {
			r.used[i] = false
		}
	}
}

// typed notes that the line just looked for, which repeated nothing, is
// the echo of typed input, not new output (see the package's replay rule).
// A transcript is written again in its order, and a command's output
// comes under its echo: what is under an echo the replay has not seen is
// new, or lines committed after those it passed (output committed while
// the command ran, under a header the program changed since) — never a
// line of the history above, however common its text ("{", "[[RELAY]]":
// a new block's rows are not an old block's). After a resize too, when
// such rows are otherwise looked for wherever they are.
func (r *replay) typed() {
	r.missed = false
	if !r.began && r.longMissed {
		r.newLong--
	}
	r.longMissed = false
	r.past = max(r.past, r.pos)
}

// goesOn reports whether key, looked for once the replay has begun, goes
// on with it.
func (r *replay) goesOn(key string) bool {
	// Right after a new line, a common line goes on only where expected.
	common := r.missed && !r.resized && len(key) < minResumeKey
	lo := r.oldest(key)
	if r.echo >= 0 && r.under && (r.missed || r.pos == r.echo+1 && r.off == 0) {
		// Under the echo of the command typed last, a line right after a
		// new one, or right after the echo itself (the last line taken),
		// is that command's output too, also after a resize: no line
		// committed before the echo (a new block's "type" row is not an
		// older block's, shown collapsed above; its "[[RELAY]]" and "{"
		// are not those of an older block the drawing cut off above).
		// Rows of its output read before its header (record) are under
		// it too, but a line as common as "[[RELAY]]" after a new one
		// is more of the new lines, not one of those rows: a block the
		// program left out while the command ran and shows now is not
		// one read then.
		lo = max(lo, r.floor)
		if len(key) < minResumeKey {
			lo = max(lo, r.echo)
		}
	}
	if r.off == 0 {
		if i, ok := r.exact(key, lo); ok && (!common || i == r.pos) {
			r.take(i)
			return true
		}
	}
	if r.hidden {
		r.hidden = false
		if r.pos >= lo && r.afterElided(key) {
			return true
		}
	}
	// The line after the last one matched is taken only where key may
	// be taken from: a short row under the latest echo may have matched
	// an older output's.
	if r.pos >= lo && (r.rewrap(key) || r.acrossElided(key)) {
		return true
	}
	if common {
		return false
	}
	if r.rewrapAhead(key, lo) {
		return true
	}
	// The program drew something new in between (Codex shows a long
	// output collapsed when it writes its transcript again): the replay
	// goes on where this line is found, wrapped anew.
	if i, off, ok := r.within(key, lo); ok {
		pos, o := r.pos, r.off
		if r.pos, r.off = i, off; r.rewrap(key) {
			return true
		}
		r.pos, r.off = pos, o
	}
	// The transcript's order is not the order its lines were committed
	// in (Codex puts a finished command's header above the output it
	// committed while the command ran): the line may be one committed
	// a screenful or less before the last one matched, wrapped anew.
	// After a change of width, as far back as the replay may take lines
	// at all (oldest): a redraw at a width in between may have committed
	// an output's first rows anew, laid out for that width, far after the
	// lines under them (Claude Code inline shows an output collapsed, its
	// first rows wrapped for each new width), and the replay, gone on from
	// those rows, finds the lines under them only a long way back.
	back := max(lo, r.pos-r.rows)
	if r.resized {
		back = lo
	}
	return r.resume(key, back)
}

// oldest is the first committed line the replay may take once begun: two
// screenfuls of lines before the first one it repeated. One screenful is
// what the screen shows, but a program may draw its outputs collapsed (a
// screenful of rows holds more lines than that) and begin with a notice
// committed again since the lines under it (drawn at another width by a
// redraw in between: Claude Code inline).
//
// Once the replay reached the echo of the command typed last, a line with
// a key as long as minResumeKey is taken only from the lines committed
// since (the floor); a shorter one, common to many lines (a block's "{"),
// may still be an older one's: what follows a new line is not (goesOn),
// and a block's rows the program wrote again in transcript order may have
// been matched to older rows when first shown.
func (r *replay) oldest(key string) int {
	if len(key) >= minResumeKey || r.live {
		return max(r.first-2*r.rows, 0, r.floor, r.past)
	}
	return max(r.first-2*r.rows, 0, r.past)
}

// resume looks for key, wrapped anew, in the unused committed lines from
// lo up to the replay's position (and, after a resize, after it, first):
// from a point in one of them (at least minReplayStart of key there) on
// over the lines after it. It takes what it finds.
func (r *replay) resume(key string, lo int) bool {
	if len(key) < minReplayStart {
		return false
	}
	head := key[:minReplayStart]
	try := func(i int) bool {
		l := r.lines[i]
		for p := 0; p < len(l); {
			k := strings.Index(l[p:], head)
			if k < 0 {
				return false
			}
			p += k
			if strings.HasPrefix(key, l[p:]) || strings.HasPrefix(l[p:], key) {
				pos, off := r.pos, r.off
				if r.pos, r.off = i, p; r.rewrap(key) {
					return true
				}
				r.pos, r.off = pos, off
			}
			p++
		}
		return false
	}
	if r.resized {
		for i := max(r.pos, lo); i < len(r.lines); i++ {
			if !r.used[i] && try(i) {
				return true
			}
		}
	}
	for i := lo; i < min(r.pos, len(r.lines)); i++ {
		if !r.used[i] && try(i) {
			return true
		}
	}
	return false
}

// rewrapAhead takes key when it is, wrapped anew, the text of unused
// committed lines that begin after the replay's position, at lo or later
// (oldest: none before the echo of the command typed last): as exact skips
// lines the program does not write again (a notice shown for a moment),
// so does a paragraph drawn at another width than its lines were
// committed at — at any time, not only while a resize allows it (Claude
// Code repaints its transcript at the new width whenever a command ends).
// The key must begin where a committed line begins: text found in the
// middle of one is left to within and resume.
func (r *replay) rewrapAhead(key string, lo int) bool {
	if len(key) < minReplayStart {
		return false
	}
	for i := max(r.pos+1, lo); i < len(r.lines); i++ {
		l := r.lines[i]
		if r.used[i] || l == "" || !strings.HasPrefix(key, l) && !strings.HasPrefix(l, key) {
			continue
		}
		pos, off := r.pos, r.off
		if r.pos, r.off = i, 0; r.rewrap(key) {
			return true
		}
		r.pos, r.off = pos, off
	}
	return false
}

// wouldRepeat reports whether a line with key, looked for now, would go
// on with the replay as a line of history, taken whole, found inside a
// committed line or starting one (wrapped anew): it takes nothing.
func (r *replay) wouldRepeat(key string) bool {
	if !r.active || !r.began {
		return false
	}
	lo := r.oldest(key)
	if _, ok := r.exact(key, lo); ok {
		return true
	}
	if len(key) < minReplayStart {
		return false
	}
	for i := max(lo, 0); i < len(r.lines); i++ {
		l := r.lines[i]
		if !r.used[i] && l != "" && (strings.Contains(l, key) || strings.HasPrefix(key, l)) {
			return true
		}
	}
	return false
}

// joined takes key, as the first line of a replay, when it is the text
// of committed lines from lo on wrapped anew into one longer line: the
// whole of one, and the lines after it (a screen made wider joins a
// paragraph's rows, and the first line a program writes again for it
// may be such a paragraph). It returns the first line taken.
func (r *replay) joined(key string, lo int) (int, bool) {
	if len(key) < minReplayStart {
		return 0, false
	}
	for i := lo; i < len(r.lines); i++ {
		l := r.lines[i]
		if r.used[i] || l == "" || len(l) >= len(key) || !strings.HasPrefix(key, l) {
			continue
		}
		if r.pos, r.off = i, 0; r.rewrap(key) {
			return i, true
		}
	}
	r.pos, r.off = 0, 0
	return 0, false
}

// exact returns the first unused line from lo on whose key is key,
// preferring those after the last match.
func (r *replay) exact(key string, lo int) (int, bool) {
	best := -1
	j, ok := r.head[key]
	if !ok {
		return -1, false
	}
	for ; j >= 0; j = r.next[j] {
		i := int(j)
		if i < lo || r.used[i] {
			continue
		}
		if i >= r.pos {
			return i, true
		}
		if best < 0 {
			best = i
		}
	}
	return best, best >= 0
}

func (r *replay) take(i int) {
	r.used[i] = true
	r.pos, r.off = i+1, 0
}

// within finds key inside an unused committed line from lo on (a paragraph rewrapped, cut at
// the top of the screen): the line and the offset where key starts.
func (r *replay) within(key string, lo int) (int, int, bool) {
	if len(key) < minReplayStart {
		return 0, 0, false
	}
	for i := lo; i < len(r.lines); i++ {
		if p := strings.Index(r.lines[i], key); p >= 0 && !r.used[i] {
			return i, p, true
		}
	}
	return 0, 0, false
}

// acrossElided takes key when it goes on from the committed lines at
// pos/off, whole ones, at least minReplayStart of it, up to a line the
// program drew where it left rows out ("… +N lines"): the program shows
// those rows now (Codex inline writes its transcript again for a new
// size, a long output shown whole that it showed with its middle left
// out), and the rest of key is the first of them. The line after the
// elided one may go on after more of them (afterElided). Matched so
// where the replay is, the paragraph is not taken for a later print of
// the same text (a relay printed twice: the second print's rows, found
// further on, would leave the second paragraph written again as new,
// and its rows under the elided line as old: a cut body read).
func (r *replay) acrossElided(key string) bool {
	i, off, rest := r.pos, r.off, key
	for n := 0; rest != "" && i < len(r.lines) && n < maxRewrapLines; n++ {
		if r.used[i] {
			return false
		}
		if r.elided[i] && off == 0 && len(key)-len(rest) >= minReplayStart {
			for k := r.pos; k <= i; k++ {
				r.used[k] = true
			}
			r.pos, r.off, r.hidden = i+1, 0, true
			return true
		}
		l := r.lines[i][off:]
		if !strings.HasPrefix(rest, l) {
			return false
		}
		rest = rest[len(l):]
		i, off = i+1, 0
	}
	return false
}

// afterElided takes key, right after a line taken across an elided one
// (acrossElided), when it is more of the rows left out, then, wrapped
// anew, the committed lines after the elided one: its end is theirs,
// from the start of the first of them on (at least minReplayStart of it,
// or all of it).
func (r *replay) afterElided(key string) bool {
	if r.pos >= len(r.lines) || r.used[r.pos] {
		return false
	}
	l := r.lines[r.pos]
	head := l[:min(len(l), minReplayStart)]
	if head == "" {
		return false
	}
	for p := 1; p < len(key); p++ {
		k := strings.Index(key[p:], head)
		if k < 0 {
			return false
		}
		p += k
		rest := key[p:]
		if len(rest) < len(head) {
			return false
		}
		if strings.HasPrefix(rest, l) || strings.HasPrefix(l, rest) {
			if r.rewrap(rest) {
				return true
			}
		}
	}
	return false
}

// rewrap takes key from the committed lines at pos/off when it is their
// text wrapped anew: it starts where the last match ended and may run
// over several lines.
func (r *replay) rewrap(key string) bool {
	i, off := r.pos, r.off
	rest := key
	for n := 0; rest != "" && i < len(r.lines) && n < maxRewrapLines; n++ {
		if r.used[i] {
			return false
		}
		l := r.lines[i][off:]
		switch {
		case strings.HasPrefix(rest, l):
			rest = rest[len(l):]
			i, off = i+1, 0
		case strings.HasPrefix(l, rest):
			off += len(rest)
			rest = ""
		default:
			return false
		}
	}
	if rest != "" {
		return false
	}
	for k := r.pos; k < i; k++ {
		r.used[k] = true
	}
	r.pos, r.off = i, off
	return true
}
