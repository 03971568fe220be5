package spawner

import (
	"hash/maphash"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"swarm/screenmodel"
)

// The alternate screen is not a stream of lines: a full-screen chat view
// (Claude Code, Codex, opencode) repaints the whole view on every frame,
// scrolls by redrawing, collapses and expands items, redraws everything on
// resize and when the user scrolls back. The frame aligner reads it as a
// view of a document the program keeps, its transcript, and commits each
// row of that document once. The rule is in the package documentation; the
// terms used here:
//
//   - a frame is the screen's rows at an observation, plus the rows that
//     scrolled off its top since the last one (they were shown);
//   - the document is the aligner's copy of the program's transcript: the
//     rows it has seen, committed or pending, in the program's order;
//   - a row's key is its text without blanks and box-drawing characters,
//     so that a gutter, a border, an indent or a different wrap does not
//     make it another row. Rows with an empty key (blank, rules, borders)
//     take no part.

// maxDocRows bounds the document: the oldest committed rows are forgotten
// beyond it. A view scrolled back further than that shows rows the aligner
// no longer knows, which are committed again.
const maxDocRows = 20000

// maxCandidates bounds how many earlier rows with the same key a frame row
// is compared with (the newest ones), and, apart, how many of the rows the
// last frame showed: that frame may hold thousands of rows alike, scrolled
// off its top in one write, and the alignment's work grows with the square
// of the pairs.
const maxCandidates = 32

// maxPairs bounds the pairs of one alignment, and maxLookback the pairs
// before one that bestChain weighs as the one before it in the chain:
// its work grows with their product. A frame of thousands of rows alike
// (scrolled off its top in one write, up to maxEvicted) made pairs by the
// ten thousand, maxCandidates each, and an alignment took seconds (703
// rows of "+" on a screen one column wide: 2.8 s), ten thousand rows
// hours. Frames of up to maxPairs/(2*maxCandidates) rows are aligned as
// before: a bigger one gets fewer candidates a row.
const (
	maxPairs    = 8192
	maxLookback = 4096
)

// shownWeight is what a frame row matching a document row the last frame
// showed counts in the alignment, against 2 for any other.
const shownWeight = 6

// rewrapWindow is how many document rows beyond the aligned ones a frame's
// first and last rows are compared with as rewrapped text.
const rewrapWindow = 3

var keySeed = maphash.MakeSeed()

// frameRow is one non-blank row of a frame.
type frameRow struct {
	y    int    // screen row; rows that scrolled off are numbered above 0
	text string // as shown, trailing blanks trimmed
	// cols is the width of the screen the program laid the row out for
	// (another than this one's, on a row a resize kept as it was).
	cols int
	key  string
	hash uint64
	gone bool // scrolled off: it cannot change any more
	// turn: the row starts the echo of a line typed into the program
	// (screenmodel.Layout.EchoStart): a new turn of the transcript.
	// typed is where the line typed starts in text.
	turn  bool
	typed int
	// typedKey is where the line typed starts in key.
	typedKey int32
	// typedOn: the row continues the echo of a line typed shown right
	// above it (screenmodel.Echo.Continues); notTyped: by its look (its
	// indent, a mark) it continues no echo at all (output).
	typedOn, notTyped bool
	// preview: the row is in a preview of an output done (its first
	// rows, cut at the edge): never read as text, nor does it change the
	// text a row showed (screenmodel.Layout.Preview).
	preview bool
	// cut: what a resize left of a row the program drew (a narrower
	// screen keeps its first columns), key the row's as drawn: the row is
	// still there, with the text it showed, but what is left of it is
	// not read (it does not change that text; alone, it is never read).
	cut bool
	// under: on the hint under an output shown collapsed
	// (screenmodel.Layout.Collapsed), a hash of the keys of the rows above
	// it from the last one of some length, its anchor: which output it is
	// under. anchored: that row is in the frame; without it the rows
	// above the hint do not tell which output it is under. anchor: that
	// row's index in the frame.
	under    uint64
	anchored bool
	anchor   int
	// expand: the row is that hint.
	expand bool
	// own: the program's own row around its transcript (its input box,
	// the footer under it, an answer's footer): aligned as any row, for
	// where it is tells where the transcript ends, but never read.
	own bool
}

// markTurn marks the row as the start of an echo, as EchoStart found it.
func (r *frameRow) markTurn(e screenmodel.Echo, ok bool) {
	r.turn = ok
	if ok {
		r.typed = len(e.Start)
		r.typedKey = int32(len(RowKey(r.text[:r.typed])))
	}
}

// RowKey returns text without blanks and box-drawing and block
// characters: what stays the same when a program wraps, indents or frames
// the text anew. The alternate screen's rows are compared by it.
func RowKey(text string) string {
	// This runs for every row committed. Rows are mostly ASCII, so the
	// text is copied in runs between the characters dropped, and only
	// what is not ASCII is decoded.
	var b strings.Builder
	run := 0 // start of the run of kept characters not yet copied
	for i := 0; i < len(text); {
		n := keyUnit(text[i:])
		if n > 0 {
			i += n
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[run:i])
		i -= n
		run = i
	}
	if run == 0 {
		return text // nothing dropped
	}
	b.WriteString(text[run:])
	return b.String()
}

// hasKeyOf reports whether RowKey(text) is at least n bytes long.
func hasKeyOf(text string, n int) bool {
	k := 0
	for i := 0; i < len(text) && k < n; {
		u := keyUnit(text[i:])
		if u > 0 {
			k += u
			i += u
			continue
		}
		i -= u
	}
	return k >= n
}

// hasKey reports whether RowKey(text) is not blank, without building it.
func hasKey(text string) bool {
	for i := 0; i < len(text); {
		n := keyUnit(text[i:])
		if n > 0 {
			return true
		}
		i -= n
	}
	return false
}

// keyUnit returns the length of the character s starts with, negated when
// RowKey drops it. An invalid byte is kept as it is: keys are compared only
// with keys.
func keyUnit(s string) int {
	if c := s[0]; c < utf8.RuneSelf {
		if asciiSpace[c] {
			return -1
		}
		return 1
	}
	r, n := utf8.DecodeRuneInString(s)
	if dropFromKey(r) {
		return -n
	}
	return n
}

// asciiSpace holds the ASCII characters unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func dropFromKey(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x2500 && r <= 0x259f
}

func newFrameRow(y int, text string, gone bool) (frameRow, bool) {
	key := RowKey(text)
	if key == "" {
		return frameRow{}, false
	}
	return frameRow{y: y, text: text, key: key, hash: maphash.String(keySeed, key), gone: gone}, true
}

// docRow is one row of the document.
type docRow struct {
	key  string
	hash uint64
	// text is the row as last shown, while it is pending; cols the
	// width it was laid out for (frameRow.cols).
	text string
	cols int
	// pending: seen, not committed yet, because it may still change.
	pending bool
	// turn: the row starts the echo of typed input (frameRow.turn);
	// typedOn: it was shown continuing one (frameRow.typedOn).
	turn, typedOn bool
	// preview: the row was only shown in a preview (frameRow.preview):
	// it is dropped, not committed, unless shown whole.
	preview bool
	// cut: committed as the first row the view showed of its paragraph,
	// at the view's top (there in place, or as it left the view from
	// there): the rows above it were out of view.
	cut bool
	// left: cut as it left the view from its top, unsettled: what shows
	// above it later is its history only under its own paragraph (gap).
	left bool
	// own: shown as the program's own row (frameRow.own): never committed.
	own bool
	// laidOut: put in the document from a view scrolled back (or one
	// that shows history so: insert), matching nothing: history laid out
	// anew, whose place among the rows read is a guess. A view at the bottom aligns with the rows read
	// there rather than with these (bestChain).
	laidOut bool
	// under: the hint under an output shown collapsed was last read under
	// these rows (frameRow.under), anchored on a row of some length
	// (frameRow.anchored).
	under    uint64
	anchored bool
	// typed: on a row that starts a turn, where the line typed starts in
	// key.
	typed int32
	// changed is when a pending row's text last changed.
	changed time.Time
	// same counts the frames in a row that showed it unchanged.
	same int
	// shown is the observation that last showed the row, y where it was
	// last seen as itself, at where it showed then, wrapped anew or not,
	// and end the row its text ends on there (at, but for a row whose
	// text a wrap anew spreads over several).
	shown      uint64
	y, at, end int
	pos        int // index in aligner.doc
	// first is the observation that first showed the row.
	first uint64
	// line is the screen row the row was committed as, once lined
	// (keepBreaks).
	line  int
	lined bool
	// gap is how many rows under the document row right above it the
	// row showed in observation gapAt, the last that showed both
	// (keepBreaks; 0: none did).
	gap   int
	gapAt uint64
}

// unread reports whether d is a pending row never shown whole (under a
// spinner drawn over it, cut by a resize, in a preview: frameRow.preview):
// no reader has read its text, so a row shown whole later is not it shown
// again with another wrap (opencode's row under the spinner on the view's
// top row, shown whole once the command is done, is new then, and the
// paragraph under it, read from the view's top, keeps its first rows,
// shown later above it, as history).
func (d *docRow) unread() bool { return d.pending && d.preview }

// commitRow is a row the aligner commits: y as in frameRow.
type commitRow struct {
	y    int
	text string
	cols int     // the width the row was laid out for; 0: the screen's
	row  *docRow // for committing in the document's order
	// late and again: see Line.Late and Line.Again.
	late, again bool
	// elided: see Line.Elided.
	elided bool
}

// aligner is the alternate screen's committer.
type aligner struct {
	doc   []*docRow
	index map[uint64][]*docRow
	obs   uint64
	// resizedAt is the last observation before the screen last changed
	// size: rows shown until then were laid out for another size.
	resizedAt uint64
	// redrawn: a frame has changed since the screen last changed size.
	redrawn bool
	// leftover: the frame being read is what the terminal kept of the
	// view through a resize, the program having drawn no row of it since
	// (set by the alternate screen before each observation);
	// lastLeftover: the last frame was.
	leftover, lastLeftover bool
	// relaying: the screen changed size and output has not settled since
	// the program drew for it (drawn): it may still be laying its text out
	// anew, a frame at a time.
	relaying, drawn bool
	// rewrapShown: the frame showed document rows laid out anew, in
	// other rows than the document's (rewrapped); lastRewrapShown: the
	// last frame did.
	rewrapShown, lastRewrapShown bool
	settle                       time.Duration
	frames                       int  // frames in a row that settle a row too; 0: only time does
	back                         bool // the frame being read is scrolled back (observe)
	// backAbove: the frame's rows above this one are history the view
	// shows scrolled back, an older turn's echo among them (olderTurn);
	// headAt: the first row a gap reads as history late (changed).
	backAbove, headAt int
	// working: the program shows its status row at work on a turn
	// (screenmodel.Layout.Status), set by the alternate screen before
	// each observation. on: the view moved on past all the last frame
	// showed (movedOn).
	working, on bool
	// boxTop: the frame's first row of the program's input box
	// (screenmodel.Layout.BoxAndUnder), where the transcript's view ends;
	// -1 where the frame shows no such box. Set by the alternate screen
	// before each observation.
	boxTop int
	// past: the echo of the latest turn the view moved past
	// (movedPastEcho), as align found it; nil when it did not.
	past *docRow
	// viewStayed: the view stayed where the last frame showed it
	// (longRowStayed).
	viewStayed bool

	// The last frame and the document rows it showed; echo, the echo of
	// the latest turn the last frame showed (echoLastShown).
	last      []frameRow
	lastMatch []*docRow
	echo      *docRow
	// bottom, bottomMatch: the last frame before the view was scrolled
	// back, and the document rows it showed (none after a resize: the
	// view is laid out anew); shownAgain: the last frame, back at the
	// bottom, showed that frame again (see observe).
	bottom      []frameRow
	bottomMatch []*docRow
	shownAgain  bool

	// scratch, reused across observations
	pairs []pair
	// excluded: pairs align found no support for, left out of its next
	// choice of chain; chain: the indices of the chosen pairs.
	excluded []bool
	chain    []int
	moves    []int // how far the rows aligned with support moved (align)
	turns    []int // frame rows that start a turn, before each row
	// docTurns: document rows that start a turn, before each position;
	// nil until needed after the document last changed (turnsChanged).
	docTurns, docTurnsBuf []int
	// docTurnRows: the positions of the document rows that start a turn,
	// in order, built with docTurns; lastTurn[i]: the frame's last row
	// before row i that starts a turn (a.turns counts it), -1 if none.
	docTurnRows, lastTurn []int
	// nextTurn[i]: the frame's first row under row i that starts a turn,
	// -1 if none (overItsTurn).
	nextTurn []int
	score    []int
	prev     []int
	matched  []*docRow
	inserts  []insertion
	out      []commitRow
}

type pair struct {
	i int // frame row
	d *docRow
}

// insertion puts rows into the document before position at.
type insertion struct {
	at   int
	seq  int // order among insertions at the same position
	rows []*docRow
}

func newAligner(settle time.Duration, frames int) *aligner {
	return &aligner{index: map[uint64][]*docRow{}, settle: settle, frames: frames, boxTop: -1}
}

// resized notes that the screen changed size after the last observation.
func (a *aligner) resized() {
	a.resizedAt, a.redrawn = a.obs, false
	a.relaying, a.drawn = true, false
	a.bottom, a.bottomMatch = a.bottom[:0], a.bottomMatch[:0]
}

// observe aligns a frame with the document and returns the rows it
// commits, in the document's order. quiet says the program has written
// nothing for the settle time: every row shown has kept its text. busy
// says the program is at work and will give the rows its status row takes
// back to its view when done (screenmodel.Layout.GrowsWhenDone). back says
// the view is scrolled back (the program shows its hint to go back to the
// bottom, screenmodel.Layout.Overlay or Hint): what it shows is history, and new
// output goes on under it, out of view.
func (a *aligner) observe(rows []frameRow, now time.Time, quiet, busy, back bool) []commitRow {
	if len(rows) == 0 && len(a.last) > 0 {
		// An erased view, read as the program starts drawing it anew
		// (Claude Code erases its view after a resize), shows nothing and
		// says nothing: the next frame is aligned with the last one that
		// showed rows, not with none (then it shows none of the rows the
		// last frame showed, and its text wrapped anew is taken for new).
		return nil
	}
	wasBack := a.back
	if back && !wasBack {
		a.bottom = append(a.bottom[:0], a.last...)
		a.bottomMatch = append(a.bottomMatch[:0], a.lastMatch...)
	}
	a.back = back
	a.backAbove = 0
	a.obs++
	a.lastRewrapShown, a.rewrapShown = a.rewrapShown, false
	a.out = a.out[:0]
	// turns[i]: how many of the frame's rows before row i start a turn.
	a.turns = slices.Grow(a.turns[:0], len(rows)+1)[:len(rows)+1]
	a.turns[0] = 0
	history, looked := 0, false // a.scrolledBack, once a row starts a turn
	a.lastTurn = slices.Grow(a.lastTurn[:0], len(rows))[:len(rows)]
	for i, r := range rows {
		a.turns[i+1] = a.turns[i]
		a.lastTurn[i] = -1
		if i > 0 {
			a.lastTurn[i] = a.lastTurn[i-1]
			if a.turns[i] > a.turns[i-1] {
				a.lastTurn[i] = i - 1
			}
		}
		if r.turn && !looked {
			history, looked = a.scrolledBack(rows), true
			if i < history && a.olderTurn(r) {
				a.backAbove = history
			}
		}
		if r.turn && i < a.backAbove && !a.olderTurn(r) {
			// The latest turn's rows: a view grown taller shows them,
			// maybe for the first time (rules for them below).
			a.backAbove = i
		}
		if r.turn && i >= history && !a.replaces(r) {
			a.turns[i+1]++
		}
	}
	a.nextTurn = slices.Grow(a.nextTurn[:0], len(rows))[:len(rows)]
	for i, next := len(rows)-1, -1; i >= 0; i-- {
		a.nextTurn[i] = next
		if rows[i].turn {
			next = i
		}
	}
	a.moves = a.moves[:0]
	a.echo = a.echoLastShown()
	a.on = a.movedOn(rows)
	a.viewStayed = a.longRowStayed(rows)
	a.past = nil
	chain, ok := a.unchanged(rows, a.last, a.lastMatch, false)
	again := false
	if !ok && !back && (wasBack || a.shownAgain) {
		// Back at the bottom, the view shows what it showed before it
		// was scrolled back: the same rows, read already, not new ones
		// (Codex's transcript paged back and forth after a resize: the
		// history it laid out anew, scrolled back, holds rows alike the
		// bottom's, which the rows under them would go after as new).
		chain, ok = a.unchanged(rows, a.bottom, a.bottomMatch, true)
		again = ok
	}
	a.shownAgain = again
	if !ok {
		chain = a.align(rows)
	}
	if !a.redrawn {
		// The rows as the last size laid them out, until the program
		// draws for the new one.
		a.resizedAt, a.redrawn = a.obs, !ok
	}
	a.matched = a.matched[:0]
	a.matched = slices.Grow(a.matched, len(rows))[:len(rows)]
	clear(a.matched)
	for _, p := range chain {
		a.matched[p.i] = p.d
	}
	a.inserts = a.inserts[:0]

	// The gaps between aligned rows, from the top.
	lo, iStart := -1, 0
	if len(chain) == 0 {
		lo = a.unanchoredStart()
	}
	for k := 0; k <= len(chain); k++ {
		iEnd, hi := len(rows), -1
		if k < len(chain) {
			iEnd, hi = chain[k].i, chain[k].d.pos
		}
		a.gap(rows, iStart, iEnd, lo, hi, k == 0, k == len(chain), len(chain) == 0, now)
		if k < len(chain) {
			a.seen(chain[k].d, rows[chain[k].i], now)
			lo, iStart = hi, iEnd+1
		}
	}
	a.apply()
	a.commitStable(rows, now, quiet, busy)
	a.inOrder()
	// What the gaps committed and what settled go out together in the
	// document's order: a row a wrap anew took the place of goes out with
	// the text it showed last, its neighbours that kept theirs as they
	// settle, in one frame (opencode wraps a block's body rows anew and
	// leaves its "[[RELAY]]" row as it was).
	slices.SortStableFunc(a.out, func(x, y commitRow) int { return x.row.pos - y.row.pos })
	a.keepBreaks()
	a.gaps()
	a.trim()
	if quiet {
		a.relaying = a.relaying && !a.drawn
	} else if !a.leftover {
		// What the terminal kept of the view through the resize is not
		// the program drawing for the new size (it may move its cursor
		// first, drawing no row): its output settling then ends nothing.
		a.drawn = true
	}
	a.last = append(a.last[:0], rows...)
	a.lastMatch = append(a.lastMatch[:0], a.matched...)
	a.lastLeftover = a.leftover
	return a.out
}

// unchanged is the alignment when most of the frame is as an earlier one,
// last with the document rows it showed, lastMatch (a spinner turned, a
// line was typed): the rows that did not change show the document rows
// they showed then. again: the frame is the view shown again, back at the
// bottom (see observe). false: align anew.
func (a *aligner) unchanged(rows, last []frameRow, lastMatch []*docRow, again bool) ([]pair, bool) {
	if len(rows) != len(last) {
		return nil, false
	}
	var chain []pair
	same := 0
	for i, r := range rows {
		l := last[i]
		if r.gone || r.y != l.y {
			return nil, false
		}
		if r.text != l.text {
			continue
		}
		d := lastMatch[i]
		if d == nil && again {
			// Shown then as text wrapped anew, matched to no row of its
			// own: the same row still, which the gap around it finds
			// again where it found it then.
			same++
			continue
		}
		if d == nil || d.pos >= len(a.doc) || a.doc[d.pos] != d {
			return nil, false
		}
		if len(chain) > 0 && chain[len(chain)-1].d.pos >= d.pos {
			return nil, false
		}
		chain = append(chain, pair{i, d})
		same++
	}
	return chain, 2*same >= len(rows)
}

// align returns the longest chain of frame rows that equal document rows
// in the same order, preferring rows that stay together and, among equals,
// the newest. A row matched alone, away from its neighbours, or with only
// short neighbours, is only taken when the last frame showed it too: text
// printed again is new output.
func (a *aligner) align(rows []frameRow) []pair {
	a.pairs = a.pairs[:0]
	echo, turn := a.lastTurnShown(rows)
	past := a.movedPastEcho(rows)
	a.past = past
	// noEcho: the frame shows no echo of a line typed (an empty prompt
	// echoes nothing).
	noEcho := past != nil && !slices.ContainsFunc(rows, func(r frameRow) bool { return r.turn && int(typedKeyAt(r)) < len(r.key) })
	perRow := min(maxCandidates, max(1, maxPairs/(2*len(rows))))
	for i, r := range rows {
		cands := a.index[r.hash]
		n, shown := 0, 0
		for j := len(cands) - 1; j >= 0; j-- {
			d := cands[j]
			if d.key != r.key {
				continue
			}
			if d.typedOn && r.notTyped {
				// A row of output is no row of a line typed, though it
				// holds its text (a command that prints what it was
				// given, its output under its echo): keys leave out the
				// indent that tells them apart.
				continue
			}
			if a.aboveThePast(d) || past != nil && d.pos < past.pos && r.y < d.at && noEcho || a.downPastEcho(rows, r.y, d) {
				// Above the turn the view moved on past: shown last
				// frame, it may stay where it was (the program took the
				// echo away, or drew it anew as another), but not move
				// up with the view in a frame that shows no echo at all:
				// the view would show the echo under it too, or have
				// taken it out of view above it (a new block's
				// "[[RELAY]]", "{" rows alike an older block's); nor
				// down (downPastEcho).
				continue
			}
			if a.on && d.shown != a.obs-1 {
				continue // older than the output the view moved on to
			}
			if turn != nil && (i == echo && d != turn || i > echo && d.pos < turn.pos) {
				continue // above the turn typed last, or another echo of it
			}
			last := d.shown == a.obs-1
			if n < perRow || last && shown < perRow {
				a.pairs = append(a.pairs, pair{i, d})
				n++
				if last {
					shown++
				}
			}
		}
	}
	if len(a.pairs) == 0 {
		return nil
	}
	slices.SortFunc(a.pairs, func(x, y pair) int {
		if x.i != y.i {
			return x.i - y.i
		}
		return x.d.pos - y.d.pos
	})
	a.excluded = slices.Grow(a.excluded[:0], len(a.pairs))[:len(a.pairs)]
	clear(a.excluded)
	// A chain whose rows cannot all be taken (short rows of an older
	// block, matched alone) may have outweighed one whose rows can: the
	// chain is chosen again without them, and the one that keeps the most
	// rows stands.
	var best []pair
	var moves []int
	for round := 0; ; round++ {
		kept, dropped := a.supportedRuns(rows, a.bestChain(rows), round > 0)
		if round == 0 || len(kept) > len(best) {
			best, moves = kept, append(moves[:0], a.moves...)
		}
		if !dropped || round == maxRealign {
			break
		}
	}
	a.moves = append(a.moves[:0], moves...)
	return best
}

// maxRealign is how many times align chooses its chain again without the
// rows it could not take.
const maxRealign = 2

// bestChain returns the longest chain of a.pairs (their indices), not
// excluded, in the same order in the frame and the document, preferring
// rows that stay together and, among equals, the newest.
func (a *aligner) bestChain(rows []frameRow) []int {
	n := len(a.pairs)
	a.score = slices.Grow(a.score[:0], n)[:n]
	a.prev = slices.Grow(a.prev[:0], n)[:n]
	best := -1
	for k, pk := range a.pairs {
		if a.excluded[k] || a.overItsTurn(rows, pk) {
			a.score[k], a.prev[k] = minScore, -1
			continue
		}
		// A row the last frame showed weighs more: what was on the screen
		// a moment ago is still there (a long output printed again below
		// is new, not the old one scrolled into view). Not when that frame
		// was what a resize left: the program lays its view out anew, and
		// what the terminal kept of the old one says nothing of where.
		w := 2
		if pk.d.shown == a.obs-1 && !a.lastLeftover {
			w = shownWeight
		}
		if pk.d.laidOut && !a.back {
			// History a view scrolled back laid out anew, placed where
			// the aligner guessed: back at the bottom, the view's rows
			// read there outweigh it, or the rows under it, put after
			// it, would be new (Codex after a resize narrower, the view
			// paged back and forth: its last lines read again).
			w = 1
		}
		if (a.leftover || a.viewStayed) && pk.d.shown == a.obs-1 && pk.d.at == rows[pk.i].y {
			// What a resize left of the view stays where it was, and so
			// does a view that stayed where it was (viewStayed): of rows
			// alike, the one the last frame showed there, not the newest
			// ("⎿  Interrupted" under each turn's output, the latest one
			// covered by a menu drawn over the transcript's last rows).
			w++
		}
		a.score[k], a.prev[k] = w, -1
		if a.underNewTurn(rows, -1, pk) {
			a.score[k] = minScore
		}
		for j := k - 1; j >= max(0, k-maxLookback); j-- {
			pj := a.pairs[j]
			if pj.i >= pk.i || pj.d.pos >= pk.d.pos || a.score[j] == minScore {
				continue
			}
			s := a.score[j] + w
			if pj.i+1 == pk.i && pj.d.pos+1 == pk.d.pos {
				s++ // neighbours on screen and in the document
			}
			if s > a.score[k] && !a.underNewTurn(rows, j, pk) {
				a.score[k], a.prev[k] = s, j
			}
		}
		if a.score[k] == minScore {
			continue
		}
		if best < 0 || a.score[k] > a.score[best] ||
			a.score[k] == a.score[best] && pk.d.pos > a.pairs[best].d.pos {
			best = k
		}
	}
	a.chain = a.chain[:0]
	for k := best; k >= 0; k = a.prev[k] {
		if a.score[k] == minScore {
			break
		}
		a.chain = append(a.chain, k)
	}
	slices.Reverse(a.chain)
	return a.chain
}

// supportedRuns returns the pairs of the chain (indices in a.pairs) that
// stand as aligned rows, and marks the others excluded (a.excluded).
// again: the chain was chosen again without rows that could not be taken.
func (a *aligner) supportedRuns(rows []frameRow, at []int, again bool) (kept []pair, dropped bool) {
	chain := make([]pair, len(at))
	for k, x := range at {
		chain[k] = a.pairs[x]
	}
	a.moves = a.moves[:0]
	// Drop matches without support: a row matched alone, and a run of
	// neighbours that holds only short rows ("{", "}", "[[RELAY]]": a
	// block printed again holds them too), unless the rows are pending or
	// the last frame showed them (a short one where it showed it, with the
	// rows of its run, or moved as far as rows with support moved: stayed);
	// and a run the last frame did not show inside a paragraph of new
	// text.
	for k := 0; k < len(chain); {
		j := runEnd(chain, k)
		if s, e := a.standing(rows, chain, k, j); supported(chain[s:e]) {
			run := chain[s:e]
			for _, p := range run {
				if p.d.shown == a.obs-1 {
					a.moves = append(a.moves, rows[p.i].y-p.d.at)
				}
			}
		}
		k = j
	}
	kept = make([]pair, 0, len(chain))
	for k := 0; k < len(chain); {
		j := runEnd(chain, k)
		if s, e := a.standing(rows, chain, k, j); s > k || e < j {
			for n := k; n < j; n++ {
				if n < s || n >= e {
					a.excluded[at[n]], dropped = true, true
				}
			}
			if s == e {
				k = j
				continue
			}
			k, j = s, e
		}
		run := chain[k:j]
		drop := a.leftBehindEcho(rows, run)
		if !drop {
			recent := false
			for _, p := range run {
				recent = recent || a.shownLast(p.d)
			}
			drop = !recent && !a.relaying && a.amidNewText(rows, chain, k, j)
		}
		// Chosen again, a row stands only in a run that stands on its own:
		// a row alone, or short rows that moved together (the "[[RELAY]]"
		// and "{" of any block do), are no support — but a long row the
		// last frame showed, while the program lays its view out anew
		// after a resize, is: its neighbours, wrapped anew, match nothing
		// (Claude Code shows its latest turn again so, under older
		// outputs collapsed whose first rows, "[[RELAY]]", "{", the last
		// frames took for an older block's; dropped, its rows were new,
		// and its relay was read twice). Only a row whose copy is not in
		// doubt: its text no other document row's, or shown once in this
		// frame and by one document row in the last (aloneAlike). A row
		// that reads the same under every output (opencode's "Click to
		// expand" hint, or any alike), shown twice, taken for another
		// output's, made the rows above it new; dropped where the copy
		// was plain (opencode's "▣ Build · …" status row, one in view,
		// five in the document), its neighbours were new: a relay block
		// read twice either way.
		alone, together := !supported(run), a.movedTogether(rows, run)
		for n, p := range run {
			long := len(p.d.key) >= minRewrap && !a.movedDownAlone(rows, rows[p.i], p.d)
			shown := p.d.shown == a.obs-1
			if !drop && (!alone || p.d.pending || shown && !again && (long || together || a.stayed(rows, rows[p.i], p.d)) ||
				shown && again && long && a.relaying && (len(a.index[p.d.hash]) == 1 || a.aloneAlike(rows, p))) {
				kept = append(kept, p)
			} else {
				a.excluded[at[k+n]], dropped = true, true
			}
		}
		k = j
	}
	return kept, dropped
}

// standing returns the part [s, e) of the run chain[k:j] of aligned rows
// that may stand as the document's rows: the rest are another paragraph's,
// alike the document's rows. From a row of a paragraph whose first row the
// view showed as it left the view's top (strays: the rows above it were
// out of view), where the frame's paragraph does not go on as the document
// does, the rows are another paragraph's: every block to one recipient has
// its "to" and "type" rows, and rows like them over another body are a new
// block's, drawn under the old one or after it, not the old one scrolled
// back into view. So are short rows ("}", "[[/RELAY]]") that start the run
// right under a row of new text where the document holds other text, read
// already, above them: a new block's end under its body. A run at the
// view's top whose rows under it moved apart (overOther) stands not at all.
func (a *aligner) standing(rows []frameRow, chain []pair, k, j int) (s, e int) {
	if a.overOther(rows, chain[k].i, chain[k].d, chain[j-1].d) {
		return k, k
	}
	s, e = k, j
	for n := k; n < j; n++ {
		if p := chain[n]; a.strays(rows, p.i, p.d) {
			e = n
			break
		}
	}
	// The short rows at the run's start, under new text: taken apart when
	// a blank row parts them from the first long row of the run (only rows
	// of another paragraph stand for them), or when the frame shows the
	// document row above them elsewhere, with a row of their text right
	// under it (the document's rows are there).
	short := k
	for short < e && len(chain[short].d.key) < minRewrap && !chain[short].d.pending {
		short++
	}
	i := chain[k].i
	if short == k || short == e || i == 0 || rows[i-1].y != rows[i].y-1 || !a.newOver(rows[i-1], chain[k].d) {
		return s, e
	}
	if rows[chain[short].i].y != rows[chain[short-1].i].y+1 || a.shownAbove(rows, chain, chain[k].d) {
		s = short
	}
	return s, e
}

// overOther reports whether frame rows from i on, the frame's first rows
// (nothing above them in view), showing document rows first to last that
// the last frame showed one under the other, moved away from the rows
// under them: the two document rows right under last, long and read,
// shown right under it then, where the last frame showed them moved as
// far, show long text the document holds nowhere, not theirs changed in
// place. A view that moves moves a paragraph's rows
// with the rows under them; rows alike the document's over new text are
// another paragraph's (a block to the same recipient printed again: its
// "to" and "type" rows over another body, its first rows above the view's
// top), not the old one's moved. Two rows, for the one row under a
// command's echo (Claude Code's "Running…") gives way to its output. Not
// while the program lays its view out anew after a resize.
func (a *aligner) overOther(rows []frameRow, i int, first, last *docRow) bool {
	if i != 0 || a.relaying || a.lastLeftover || first.shown != a.obs-1 || last.pos+2 >= len(a.doc) {
		return false
	}
	move := rows[i].y - first.at
	if move == 0 || last.at-first.at != last.pos-first.pos {
		return false
	}
	for _, under := range a.doc[last.pos+1 : last.pos+3] {
		if under.pending || under.own || len(under.key) < minRewrap || under.shown != a.obs-1 || under.at-last.at != under.pos-last.pos {
			return false
		}
		n, found := slices.BinarySearchFunc(rows, under.at+move, byY)
		if !found || len(rows[n].key) < minRewrap || inPlace(under.key, rows[n].key) || a.holds(rows[n]) {
			return false
		}
	}
	return true
}

// strays reports whether frame row i, showing the text of document row d
// from its start, shows another paragraph than d's (see standing): d, or
// a row above it in its paragraph, shown right above it as the document
// has it, is the first its paragraph showed as it left the view's top,
// and the frame's paragraph from there does not go on as the document
// does.
func (a *aligner) strays(rows []frameRow, i int, d *docRow) bool {
	for p := d.pos; ; i, p = i-1, p-1 {
		if a.doc[p].left {
			return !a.goesOn(rows, i, p)
		}
		if i == 0 || p == 0 || rows[i-1].y != rows[i].y-1 || rows[i-1].key != a.doc[p-1].key {
			return false
		}
	}
}

// shownAbove reports whether the chain shows the document row above d
// with a frame row of d's text right under it.
func (a *aligner) shownAbove(rows []frameRow, chain []pair, d *docRow) bool {
	for _, p := range chain {
		if p.d.pos == d.pos-1 {
			n := p.i + 1
			return n < len(rows) && rows[n].y == rows[p.i].y+1 && rows[n].key == d.key
		}
	}
	return false
}

// straysIn reports whether frame rows [i, end), matched as the text of
// the document rows from rowsOf[k] on (stream offsets p to stop) wrapped
// anew, show a row of it from its start in another paragraph than its
// (strays).
func (a *aligner) straysIn(rows []frameRow, i, end, p, stop int, rowsOf []*docRow, starts []int, k int) bool {
	off := p // where row n starts in the stream
	for n := i; n < end; n++ {
		for ; k < len(starts) && starts[k] <= off && starts[k] < stop; k++ {
			if starts[k] == off && a.strays(rows, n, rowsOf[k]) {
				return true
			}
		}
		off += len(rows[n].key)
	}
	return false
}

// newOver reports whether frame row r, right above a row showing document
// row d, is new text where the document holds another row, read already,
// above d: text the document holds nowhere, nor the row above d wrapped
// anew or changed in place (see standing).
func (a *aligner) newOver(r frameRow, d *docRow) bool {
	if d.pos == 0 {
		return false
	}
	above := a.doc[d.pos-1]
	return !r.turn && !r.own && !above.pending && above.key != r.key && !inPlace(above.key, r.key) &&
		!a.holds(r) && !a.rewrapNext(r.key, d.pos, -1)
}

// runEnd returns where the run of the chain that starts at k ends: rows
// that are neighbours on the screen and in the document.
func runEnd(chain []pair, k int) int {
	j := k + 1
	for j < len(chain) && chain[j].i == chain[j-1].i+1 && chain[j].d.pos == chain[j-1].d.pos+1 {
		j++
	}
	return j
}

// supported reports whether a run of aligned rows stands on its own: more
// than one row, not all of them short.
func supported(run []pair) bool {
	if len(run) < 2 {
		return false
	}
	for _, p := range run {
		if len(p.d.key) >= minRewrap {
			return true
		}
	}
	return false
}

// movedTogether reports whether the run holds more than one row and the
// last frame showed each of them, as far from where it shows now, and the
// document rows right above and right under it, where the last frame
// showed them, moved as far too, or out of the frame: a view that moves
// moves a block's rows with those around them, and short rows ("}",
// "[[/RELAY]]") that moved while the rows next to them show other text
// there are a new block's, drawn where the view moved the old one's.
func (a *aligner) movedTogether(rows []frameRow, run []pair) bool {
	if len(run) < 2 {
		return false
	}
	move := rows[run[0].i].y - run[0].d.at
	for _, p := range run {
		if p.d.shown != a.obs-1 || rows[p.i].y-p.d.at != move {
			return false
		}
	}
	return a.besideMoved(rows, run[0].d.pos, run[len(run)-1].d.pos, move, false)
}

// besideMoved reports whether the document rows right above position
// first and right under position last, where the last frame showed them,
// show moved by move too (changed in place counts where inPlace says so:
// a short row between rows that stay, their progress or spinner turning),
// or out of the frame (or no longer shown): rows between other text where
// those showed (a new output's "}" and "[[/RELAY]]") are that text's, not
// old rows there.
func (a *aligner) besideMoved(rows []frameRow, first, last, move int, inPlaceToo bool) bool {
	for _, pos := range []int{first - 1, last + 1} {
		if pos < 0 || pos >= len(a.doc) {
			continue
		}
		d := a.doc[pos]
		y := d.at + move
		if d.shown != a.obs-1 || y < rows[0].y || y > rows[len(rows)-1].y {
			continue
		}
		if end := rows[len(rows)-1]; pos == last+1 && move != 0 && end.y == d.at && end.key == d.key {
			// The row under them still shows on the frame's last row, where
			// it showed: a bar the program keeps under its view, not part of
			// what the view scrolled (a program of no known layout, whose bar
			// is read as the transcript's row under what it first showed).
			continue
		}
		if n, found := slices.BinarySearchFunc(rows, y, byY); found && rows[n].key != d.key && !(inPlaceToo && inPlace(d.key, rows[n].key)) {
			return false
		}
	}
	return true
}

// stayed reports whether frame row r shows document row d, which the last
// frame showed, where that frame showed it, or moved as far as rows of
// the frame aligned with support (a.moves): a view that scrolls moves its
// rows together. A short row the last frame showed, now alone in another
// place among new rows (the "[[/RELAY]]" or "progress 0%" of a new output
// where an old output's was a moment ago), is new text like them, not the
// old row moved.
//
// Where the last frame showed it, a short row stays only in a view that
// stayed (viewStayed): when no long row shows where it showed, the view
// moved on, and the "[[/RELAY]]" of a new output drawn on the row where an
// old output's showed is new like the rows around it. Nor does it stay
// where other text shows in place of the rows right above and under it
// then (besideMoved): a long row that stayed (a notice under the
// transcript) keeps the view's bottom, not the rows above it, which a new
// output scrolled up and took the place of.
func (a *aligner) stayed(rows []frameRow, r frameRow, d *docRow) bool {
	move := r.y - d.at
	return move == 0 && a.viewStayed && a.besideMoved(rows, d.pos, d.pos, 0, true) || slices.Contains(a.moves, move)
}

// movedWithTheView reports whether the last frame showed frame row r's
// text as far from where r shows it as rows of the frame aligned with
// support moved (a.moves): the same row, moved with the view. stayed
// measures a move from where the last frame showed a document row's
// start, which for a short row of a paragraph laid out anew for a new
// size (its last words, a row no document row holds alone) is another
// row of the frame: such a row left alone at the view's top as the view
// scrolls is still that paragraph's, not new text (issue 29: Codex's
// "river note", read again inside the block under it).
func (a *aligner) movedWithTheView(r frameRow) bool {
	for _, m := range a.moves {
		if n, ok := slices.BinarySearchFunc(a.last, r.y-m, byY); ok && a.last[n].key == r.key {
			return true
		}
	}
	return false
}

// movedDownAlone reports whether frame row r, the hint under an output
// shown collapsed (frameRow.expand: opencode's "Click to expand", the same
// under every such output), shows document row d, which the last frame
// showed, further down than it showed it, not as far as rows aligned with
// support moved (a.moves), while the program is not laying its view out
// anew for a new size (relaying), and the row the last frame showed right
// above it did not move as far with it: that place shows other text. A
// view scrolled back moves its rows down together; otherwise its text
// moves up as output comes under it. A hint that moved down on its own is
// a new output's, and taken for the old one it puts the new output's rows
// above the turns under the old one. Only the hint: any other row is
// pushed down alone by the paragraph above it growing, in a view not yet
// full that the program draws from its top (a relay line read twice so).
func (a *aligner) movedDownAlone(rows []frameRow, r frameRow, d *docRow) bool {
	move := r.y - d.at
	if !r.expand || d.shown != a.obs-1 || move <= 0 || a.relaying || slices.Contains(a.moves, move) {
		return false
	}
	n, _ := slices.BinarySearchFunc(a.last, d.at, byY)
	if n == 0 {
		return false // the last frame's top row: nothing above it to tell
	}
	above := a.last[n-1]
	k, found := slices.BinarySearchFunc(rows, above.y+move, byY)
	return !found || rows[k].key != above.key && !inPlace(above.key, rows[k].key)
}

// longRowStayed reports whether the view stayed where it was: the frame
// shows a row of minRewrap characters or more where the last frame showed
// it, with its text, or every such row it shows where the last frame
// showed another has that text changed in place (inPlace: progress rows,
// text streaming in); or a long row shows a piece of the last frame's text
// that was no whole row of it (relaid: the paragraph there wrapped anew at
// another width, as Claude Code draws a done output collapsed, whatever
// replaced the rows around it); or the last frame showed no long row (then
// nothing tells that the view moved). Long rows replaced by unrelated
// text, none kept, tell a view that moved on. A row that shows another
// row's whole text moved with the view, so it is not relaid.
func (a *aligner) longRowStayed(rows []frameRow) bool {
	if !slices.ContainsFunc(a.last, func(l frameRow) bool { return len(l.key) >= minRewrap }) {
		return true
	}
	changed, replaced := false, false
	// lastText: the last frame's keys run together, made only when a long
	// row is neither kept nor changed in place. Keys hold no blanks, so a
	// row wrapped anew, anywhere in a word, is a piece of it.
	var lastText strings.Builder
	relaid := func(key string) bool {
		if lastText.Len() == 0 {
			for _, l := range a.last {
				lastText.WriteString(l.key)
			}
		}
		return strings.Contains(lastText.String(), key) &&
			!slices.ContainsFunc(a.last, func(l frameRow) bool { return l.key == key })
	}
	i := 0
	for _, r := range rows {
		if len(r.key) < minRewrap {
			continue
		}
		for i < len(a.last) && a.last[i].y < r.y {
			i++
		}
		if i == len(a.last) || a.last[i].y != r.y || len(a.last[i].key) < minRewrap {
			continue
		}
		switch was := a.last[i].key; {
		case was == r.key, relaid(r.key):
			return true
		case inPlace(was, r.key):
			changed = true
		default:
			replaced = true
		}
	}
	return changed && !replaced
}

// inPlace reports whether a row's text was changed in place rather than
// replaced by another row's: the two keys keep their start and their end
// alike, together over minRewrap characters and half the shorter one at
// least ("downloading: 10% done" then "20% done", a row that grows as
// text streams in, a spinner's frame before a task's name).
func inPlace(was, now string) bool {
	short := min(len(was), len(now))
	n := 0
	for n < short && was[n] == now[n] {
		n++
	}
	m := 0
	for n+m < short && was[len(was)-1-m] == now[len(now)-1-m] {
		m++
	}
	return n+m >= minRewrap && 2*(n+m) >= short
}

// amidNewText reports whether the run chain[k:j] of rows matched with
// document rows lies inside a paragraph of the frame (rows with no blank
// between them) between new text: going up and going down from the run,
// past rows matched with document rows no screen showed a moment ago,
// the paragraph goes on with a row whose text the document holds nowhere,
// nor is it the document's rows next to the run wrapped anew (a resize). A
// paragraph is drawn whole, so a piece of it that looks like older rows
// (a block's "{", "to", "type" rows, those of the block before) is part of
// the new text around it, not older rows come back into view between new
// ones.
func (a *aligner) amidNewText(rows []frameRow, chain []pair, k, j int) bool {
	// at returns the chain's pair at frame row i; matched false when row
	// i matched nothing.
	at := func(i int) (p pair, matched bool) {
		n, found := slices.BinarySearchFunc(chain, i, func(p pair, i int) int { return p.i - i })
		if !found {
			return pair{}, false
		}
		return chain[n], true
	}
	newNext := func(from pair, dir int) bool {
		for i := from.i + dir; i >= 0 && i < len(rows) && rows[i].y == rows[i-dir].y+dir; i += dir {
			p, matched := at(i)
			if q := from.d.pos + dir; !matched && q >= 0 && q < len(a.doc) && a.doc[q].key == rows[i].key {
				// The next document row's text, not taken: it says
				// nothing either way.
				p, matched = pair{i, a.doc[q]}, true
			}
			if !matched {
				return !a.holds(rows[i]) && !a.rewrapNext(rows[i].key, from.d.pos, dir)
			}
			if a.shownLast(p.d) {
				return false
			}
			from = p
		}
		return false
	}
	return newNext(chain[k], -1) && newNext(chain[j-1], 1)
}

// holds reports whether the document holds a row with r's text.
func (a *aligner) holds(r frameRow) bool {
	for _, d := range a.index[r.hash] {
		if d.key == r.key {
			return true
		}
	}
	return false
}

// rewrapNext reports whether key is a piece of the text of the document
// rows next to position pos, going in direction dir (-1 up, 1 down), as it
// shows wrapped anew: their joined keys start (going down) or end (going
// up) with it, or it with them and the rest of it is the next row's text
// (Claude Code's "⎿  [[RELAY]]", an output's first row under its mark, is
// no older block's "[[RELAY]]" wrapped anew with a row above it: nothing
// above ends with that mark).
func (a *aligner) rewrapNext(key string, pos, dir int) bool {
	var joined string
	for n, p := 0, pos+dir; n < rewrapWindow && p >= 0 && p < len(a.doc); n, p = n+1, p+dir {
		if dir < 0 {
			joined = a.doc[p].key + joined
		} else {
			joined += a.doc[p].key
		}
		if dir > 0 && strings.HasPrefix(joined, key) || dir < 0 && strings.HasSuffix(joined, key) {
			return true
		}
		if dir > 0 && strings.HasPrefix(key, joined) || dir < 0 && strings.HasSuffix(key, joined) {
			// key holds those rows' text and more: the rest must be the
			// next row's, wrapped into it too (none: it may be out of
			// the document).
			rest, q := key[len(joined):], p+dir
			if dir < 0 {
				rest = key[:len(key)-len(joined)]
			}
			if q < 0 || q >= len(a.doc) || dir > 0 && strings.HasPrefix(a.doc[q].key, rest[:min(len(rest), len(a.doc[q].key))]) ||
				dir < 0 && strings.HasSuffix(a.doc[q].key, rest[max(0, len(rest)-len(a.doc[q].key)):]) {
				return true
			}
		}
	}
	return false
}

// lastTurnShown finds the echo of the latest turn the last frame showed,
// when this frame shows it again: the frame row showing it and its
// document row. The transcript grows under the turn typed last, so every
// row under that echo is after it in the document, however like older
// rows it looks (an older output collapsed above moves the new output up
// beside the rows of the one before: a block's "{", "type", "}" rows, or
// a block to the same agent, are not those). turn is nil when there is no
// such echo, or when the line was typed twice (which echo is which, the
// alignment says).
func (a *aligner) lastTurnShown(rows []frameRow) (echo int, turn *docRow) {
	for _, d := range a.lastMatch {
		if d != nil && d.turn && d.shown == a.obs-1 && (turn == nil || d.pos > turn.pos) {
			turn = d
		}
	}
	if turn == nil {
		return -1, nil
	}
	for _, d := range a.index[turn.hash] {
		if d != turn && d.turn && d.key == turn.key {
			return -1, nil
		}
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].turn && (rows[i].key == turn.key || a.echoesAgain(rows[i], turn)) {
			return i, turn
		}
	}
	return -1, nil
}

// echoesAgain reports whether echo row r shows the line typed of the echo
// of turn drawn as another echo of the same line (Codex's "• Running cat
// f" done: "• You ran cat f"), a line echoed only once before: the same
// turn, the rows under it its output. Without it, a file printed again
// under the new echo, its rows alike the earlier print's, took the place
// of that print's rows moved down, as a view scrolled back shows them
// (issue 29: Codex's file printed twice, its second print not read).
func (a *aligner) echoesAgain(r frameRow, turn *docRow) bool {
	typed := r.key[typedKeyAt(r):]
	if len(typed) < minTyped || typed != a.typedOf(turn) {
		return false
	}
	for _, d := range a.index[r.hash] {
		if d.turn && d.key == r.key {
			return false // echoed so before: which echo is which, the alignment says
		}
	}
	return true
}

// scrolledBack returns the frame row from which the frame shows the last
// frame's rows again, all moved down by the same number of rows: the
// view scrolled back (PageUp) or grew taller above what it showed. The
// rows above it are history the view shows now, not a new turn: a
// transcript grows at its end, under the rows shown already, and a new
// turn moves them up. An echo there is the echo of a line typed before
// the rows under it. 0 when the frame is no such view.
func (a *aligner) scrolledBack(rows []frameRow) int {
	if len(a.last) < minScrolled || len(rows) < minScrolled {
		return 0
	}
	// From the last frame's first row shown whole (frameRow.preview: not
	// in a preview, under a hint or a spinner): a spinner alone on the
	// view's top row (opencode's, its echo above the view) is gone once
	// the view moves, and says nothing of where it went.
	first := 0
	for first < len(a.last)-1 && a.last[first].preview {
		first++
	}
	last := a.last[first:]
	top, bottom := last[0], rows[len(rows)-1].y
	if a.boxTop >= 0 {
		// A row moved down as far as the input box (opencode's) is
		// behind it: the view of the transcript ends above the box, and
		// a page back takes the rows it moves there out of view.
		bottom = min(bottom, a.boxTop-1)
	}
	for _, r := range rows {
		if r.y == top.y && r.key == top.key {
			return 0 // the view stayed: rows shown below it are new
		}
	}
	for k, r := range rows {
		shift := r.y - top.y
		if r.key != top.key || shift <= 0 {
			continue
		}
		// The last frame's rows that still fit in the view must show
		// where the shift puts them, most of them with their text (a
		// resize may have wrapped a row anew). Both are in screen order.
		same, fit, i := 0, 0, k
		for _, l := range last {
			y := l.y + shift
			if y > bottom {
				break
			}
			fit++
			for i < len(rows) && rows[i].y < y {
				i++
			}
			if i < len(rows) && rows[i].y == y && rows[i].key == l.key {
				same++
			}
		}
		if same >= minScrolled && 2*same > fit && a.movedUp(rows, last) <= same {
			return k
		}
	}
	return 0
}

// movedUp returns how many of the last frame's rows (last) the frame
// shows again moved up together, all by the shift that puts the last
// frame's row showing the frame's first row's text there, the most of
// them: a view that moved up with new output under it (a file printed
// again, its last rows alike the rows of its first print the last frame
// showed at its top) shows those, and more of them than it shows moved
// down: it did not scroll back.
func (a *aligner) movedUp(rows, last []frameRow) int {
	best := 0
	for _, l := range last {
		shift := rows[0].y - l.y
		if l.key != rows[0].key || shift >= 0 {
			continue
		}
		same, i := 0, 0
		for _, m := range last {
			y := m.y + shift
			if y < rows[0].y {
				continue
			}
			for i < len(rows) && rows[i].y < y {
				i++
			}
			if i < len(rows) && rows[i].y == y && rows[i].key == m.key {
				same++
			}
		}
		best = max(best, same)
	}
	return best
}

// minScrolled is how many rows of the last frame a view moved down must
// show again.
const minScrolled = 3

// echoLastShown returns the echo of the latest turn the last frame
// showed, when that frame was laid out for this screen's size: nil if it
// showed none.
func (a *aligner) echoLastShown() *docRow {
	if a.obs-1 <= a.resizedAt || a.relaying {
		return nil
	}
	var turn *docRow
	for _, d := range a.lastMatch {
		if d != nil && d.turn && d.shown == a.obs-1 && (turn == nil || d.pos > turn.pos) {
			turn = d
		}
	}
	return turn
}

// leftBehindEcho reports whether the run of aligned rows moved without
// the echo of the latest turn (movedWithoutEcho).
func (a *aligner) leftBehindEcho(rows []frameRow, run []pair) bool {
	first, last := run[0], run[len(run)-1]
	return a.movedWithoutEcho(rows, rows[first.i].y, first.d, last.d)
}

// movedWithoutEcho reports whether showing the document rows first to
// last from screen row y down would move them down from where the last
// frame showed them, above the echo of the latest turn (a.echo), while the
// frame shows that echo nowhere and, of the rows the last frame showed
// between them and it, more than one and more than show as far down show
// other text there (not text that stayed there whatever the view shows: a
// footer, the effort row). A view scrolled back moves its rows together,
// and an output collapsed above the echo leaves the echo where it was; but
// a transcript grows at its end, under the latest turn, so rows like the
// ones above its echo, lower down with the echo gone and the rows between
// not moved along, are new ones: a new output's "{", "to", "type", "}"
// rows where an older block's showed a moment ago, the view having moved
// on past the echo.
func (a *aligner) movedWithoutEcho(rows []frameRow, y int, first, last *docRow) bool {
	e := a.echo
	move := y - first.at
	if e == nil || first.shown != a.obs-1 || last.shown != a.obs-1 || last.pos >= e.pos || move <= 0 {
		return false
	}
	for _, r := range rows {
		if r.turn && r.key == e.key {
			return false
		}
	}
	moved, stayed := a.movedAlong(rows, move, func(l frameRow) bool { return l.y > last.at && l.y <= e.at })
	if n, found := slices.BinarySearchFunc(rows, e.at+move, byY); found && !rows[n].own && !a.lastShowed(rows[n]) {
		// Where the echo would have moved to, the frame shows text the
		// last one did not show there (a view scrolled keeps the
		// program's rows under the transcript where they were): the
		// echo did not move along. Nor did the rows between it and the
		// run that the frame leaves blank where they would have moved
		// to: the view moved on past the echo.
		stayed++
		for _, l := range a.last {
			if len(l.key) >= minRewrap && l.y > last.at && l.y < e.at {
				if _, found := slices.BinarySearchFunc(rows, l.y+move, byY); !found {
					stayed++
				}
			}
		}
	}
	return stayed > max(moved, 1)
}

// lastShowed reports whether the last frame showed r's text on r's row.
func (a *aligner) lastShowed(r frameRow) bool {
	m, found := slices.BinarySearchFunc(a.last, r.y, byY)
	return found && a.last[m].key == r.key
}

// movedAlong counts, of the long rows the last frame showed that in
// accepts (those around the rows a rule would move), the ones this frame
// shows move rows lower with their text (moved) and the ones it shows
// other text at there (other) — not text that stays put whatever the view
// shows (a footer, the effort row: the last frame showed it there too).
// Short rows ("}", "[[/RELAY]]") are those of any block and count for
// neither.
func (a *aligner) movedAlong(rows []frameRow, move int, in func(frameRow) bool) (moved, other int) {
	for _, l := range a.last {
		if len(l.key) < minRewrap || !in(l) {
			continue
		}
		n, found := slices.BinarySearchFunc(rows, l.y+move, byY)
		if !found {
			continue
		}
		if rows[n].key == l.key {
			moved++
		} else if m, was := slices.BinarySearchFunc(a.last, l.y+move, byY); !was || a.last[m].key != rows[n].key {
			other++
		}
	}
	return moved, other
}

// downPastEcho reports whether document row d, above the echo the view
// moved past (a.past) and shown by the last frame, would show on screen
// row y, lower than the last frame showed it, while more of the long rows
// the last frame showed around it show other text as far down than show
// there moved along (not text that stays whatever the view shows: a
// footer). A view that follows an output down moves what it showed up,
// and one scrolled back moves its rows down together; a row like it lower
// down alone is a new output's (opencode's "Click to expand" under every
// output shown collapsed: the next output's, lower than the last one's,
// the view having moved on to that output). Not while the program lays
// its view out anew after a resize.
func (a *aligner) downPastEcho(rows []frameRow, y int, d *docRow) bool {
	if a.past == nil || a.relaying || d.pos >= a.past.pos || d.shown != a.obs-1 || y <= d.at {
		return false
	}
	moved, other := a.movedAlong(rows, y-d.at, func(l frameRow) bool { return l.y != d.at })
	return other > moved
}

// aboveThePast reports whether document row d, which the last frame did
// not show, is above the echo the view moved past (a.past, movedPastEcho):
// no such row comes back into view under it, as one row of a pair nor as
// history far above laid out anew (rewrappedAbove); the rows under that
// turn are its output (issue 29: Codex's file printed again, its rows
// taken for the first print's, not read).
func (a *aligner) aboveThePast(d *docRow) bool {
	return a.past != nil && d.pos < a.past.pos && d.shown != a.obs-1
}

// movedPastEcho returns the echo of the latest turn the last frame showed,
// the rows under it its own, when this frame, the view neither scrolled
// back nor laid out anew, shows it nowhere: the view followed the turn's
// output down past it. A row the last frame did not show is then no
// document row above that echo come back into view: a transcript grows
// at its end, and the rows below the turn are its output (a file printed
// again shows the rows of its first print). Rows the last frame showed
// move as the view does (the program took the echo away, and the view
// moved down). But a view that follows an output down moves the rows it
// showed up: the last frame's rows all shown again lower down
// (scrolledBack) say the view went back, with no hint (opencode), to older
// turns above that echo. nil otherwise.
func (a *aligner) movedPastEcho(rows []frameRow) *docRow {
	e := a.echo
	if e == nil || a.back {
		return nil
	}
	for _, r := range rows {
		if r.turn && r.key == e.key {
			return nil
		}
	}
	for i, d := range a.lastMatch {
		if d != nil && a.last[i].y > e.at && d.pos < e.pos {
			return nil // the last frame showed older rows under it
		}
	}
	if a.scrolledBack(rows) > 0 {
		return nil // history: older turns, maybe laid out anew since read
	}
	return e
}

// movedOn reports whether the view, the program at work on a turn (its
// status row shows: a.working), neither scrolled back nor laid out anew,
// showing no echo, shows none of the transcript rows the last frame
// showed: the view moved on past all it showed, to the turn's output. A
// program takes its view back a part of it at a time (a page is half a
// view), and a transcript grows at its end: a row the last frame did not
// show is then no document row come back into view but new (a file
// printed again, its echo above the view, shows the rows of its first
// print).
func (a *aligner) movedOn(rows []frameRow) bool {
	if !a.working || a.back || a.relaying || a.obs-1 <= a.resizedAt {
		return false
	}
	for _, r := range rows {
		if r.turn {
			// An echo shows: rows under it are its turn's output, and
			// rows above it older ones (underNewTurn), come back into
			// view when an output under them shrank (drawn collapsed).
			return false
		}
	}
	shown := false
	for i, d := range a.lastMatch {
		if d == nil || a.last[i].own {
			continue
		}
		shown = true
		for _, r := range rows {
			if !r.own && r.hash == a.last[i].hash && r.key == a.last[i].key {
				return false
			}
		}
	}
	return shown
}

// minScore marks a pair no chain may hold.
const minScore = -1

// underNewTurn reports whether matching frame row pk.i with document row
// pk.d, after pair j of a.pairs (-1: as the chain's first), would put the
// start of a new turn above it: between the two the frame shows more rows
// that start the echo of typed input than the document holds there (the
// document row not laid out anew: laidOutAnew; the view not scrolled
// back). A transcript
// grows at its end, under the turn typed last; rows under a new turn are
// that turn's output, however like the rows they resemble above it (a
// file printed again, a block whose rows are those of the one before),
// wherever they show (an older output collapsed above moves them up). An
// echo that takes the place of the row showing the line it echoes is not
// a new turn (replaces). A view scrolled back shows history, where no turn
// is new: an echo the document lacks there is that of a turn whose first
// rows a short view had cut, and the rows under it are its output, read
// already in part (Codex paged back to a command whose output a view of a
// few rows had shown only the end of: taken for a new turn, the rows under
// its echo matched nothing read, the row above it, "Worked for" as under
// every turn of that minute, went to the bottom's own, and the command's
// first rows were put after the bottom's; a view grown taller later, showing
// it all, sent the turn before it again).
func (a *aligner) underNewTurn(rows []frameRow, j int, pk pair) bool {
	d := pk.d
	if a.laidOutAnew(d) || a.back {
		return false
	}
	from, lo := 0, max(0, d.pos-2*pk.i-8)
	if j >= 0 {
		from, lo = a.pairs[j].i+1, a.pairs[j].d.pos+1
	}
	shown := a.turns[pk.i] - a.turns[from]
	if shown == 0 {
		return false
	}
	held := a.turnsBefore(d.pos) - a.turnsBefore(lo)
	if shown > held {
		return true
	}
	// As many echoes, but the nearest one above the row is of another line
	// than the one the document has above it: the row is under a new turn
	// (a file's block under its echo is not a block of the file printed
	// under the turn before, though their first rows are alike).
	t := a.lastTurn[pk.i]
	return held > 0 && t >= 0 && !sameTyped(rows[t].key[typedKeyAt(rows[t]):], a.typedOf(a.doc[a.docTurnRows[a.docTurns[d.pos]-1]]))
}

// overItsTurn reports whether the document row of pk is under the echo
// of a turn that the frame shows under the row: a view shows its
// transcript in order, so a row above an echo is no row of that turn's
// output, nor of a later one. The echo is the document's only echo of its
// line, the one the last frame showed (a line typed again echoes anew,
// under the old output), and the row was last shown before that echo
// first showed: it went under the echo only because the turn's rows went
// in above it. opencode shows an output collapsed at one width and whole
// at a wider one; the collapsed rows are kept, and the turns read after
// the resize go in above them. Laid out narrow again, the view shows them
// collapsed again above those turns' echoes: taken for the kept rows,
// they would leave every later turn's row unaligned, and the later turn's
// text, wrapped anew, would be read again. Not a row whose own turn (its
// echo, shown above it) is in the document under that echo too, above
// the row: an earlier layout put the whole turn there, and its rows are
// its own (taken out, f03's rows were read again under f04's echo).
func (a *aligner) overItsTurn(rows []frameRow, pk pair) bool {
	t := a.nextTurn[pk.i]
	if t < 0 {
		return false
	}
	var echo *docRow
	for _, d := range a.index[rows[t].hash] {
		if d.turn && d.key == rows[t].key {
			if echo != nil {
				return false // typed twice: which echo is which, the alignment says
			}
			echo = d
		}
	}
	if echo == nil || echo.shown != a.obs-1 || echo.pos >= pk.d.pos || pk.d.shown >= echo.first {
		return false
	}
	// The row's own turn, shown above it, under that echo in the document
	// too: the document put the whole turn there (laid out at another
	// width), and its rows are its own, not rows of the later turn.
	own := pk.i
	if !rows[own].turn {
		own = a.lastTurn[pk.i]
	}
	if own >= 0 {
		for _, d := range a.index[rows[own].hash] {
			if d.turn && d.key == rows[own].key && d.pos > echo.pos && d.pos <= pk.d.pos {
				return false
			}
		}
	}
	return true
}

// turnsChanged forgets the counts of turns in the document: rows were
// put in or taken out, or a row became or stopped being a turn's echo.
// The counts outlive a frame the document did not change in (a frame
// unchanged aligns without align), so every change must say so here.
func (a *aligner) turnsChanged() { a.docTurns = nil }

// turnsBefore returns how many rows of the document before position pos
// start a turn. The counts are made when first needed after the document
// last changed.
func (a *aligner) turnsBefore(pos int) int {
	if a.docTurns == nil {
		a.docTurns = slices.Grow(a.docTurnsBuf[:0], len(a.doc)+1)[:len(a.doc)+1]
		a.docTurns[0] = 0
		a.docTurnRows = a.docTurnRows[:0]
		for p, dd := range a.doc {
			a.docTurns[p+1] = a.docTurns[p]
			if dd.turn {
				a.docTurns[p+1]++
				a.docTurnRows = append(a.docTurnRows, p)
			}
		}
		a.docTurnsBuf = a.docTurns
	}
	return a.docTurns[pos]
}

// laidOutAnew reports whether document row d, not shown since the screen
// last changed size, may show now under echoes the document does not hold
// above it: while the program lays its view out anew for the new size
// (until its output settles), the view shows its history again, with the
// echoes of turns whose output the view had cut. Once it is done, rows
// under a new turn are that turn's output (a file printed again long after
// a resize).
func (a *aligner) laidOutAnew(d *docRow) bool { return d.shown <= a.resizedAt && a.relaying }

// typedKeyAt returns where the line typed starts in the key of r, a row
// that starts a turn.
func typedKeyAt(r frameRow) int32 { return min(r.typedKey, int32(len(r.key))) }

// typedOf returns the key of the line typed that document row d, which
// starts a turn, echoes.
func (a *aligner) typedOf(d *docRow) string { return d.key[min(int(d.typed), len(d.key)):] }

// sameTyped reports whether two echoes' first rows may show the same line
// typed: one's text is the start of the other's (the echo wrapped at
// another width, or cut), or either is too short to tell.
func sameTyped(x, y string) bool {
	if len(x) < minTyped || len(y) < minTyped {
		return true
	}
	return strings.HasPrefix(x, y) || strings.HasPrefix(y, x)
}

// replaces reports whether echo row r stands for a row the last frame
// showed: a row that is not an echo, whose text ends with the line r shows
// typed. A program shows the line it runs, then the echo of it in the
// same place (opencode's spinner before "sh f" becomes "$"; Codex's
// "• Running sh f", its echo too, becomes "• You ran sh f"): the row changed, it is
// not a new turn above the rows below it. So it is, too, when the
// document holds such a row and no echo of the line yet: the view moved
// on while the line ran (its output taller than the view), and shows the
// echo when scrolled back to it.
func (a *aligner) replaces(r frameRow) bool {
	typed := RowKey(r.text[r.typed:])
	if len(typed) < minTyped {
		return false
	}
	ran := func(key string, turn bool) bool {
		return !turn && len(key) > len(typed) && strings.HasSuffix(key, typed)
	}
	for _, l := range a.last {
		if ran(l.key, l.turn) {
			return true
		}
	}
	for _, d := range a.index[r.hash] {
		if d.turn && d.key == r.key {
			return false // echoed before: a line typed again is a new turn
		}
	}
	for _, d := range a.doc {
		if ran(d.key, d.turn) {
			return true
		}
	}
	return false
}

// minTyped is the shortest line typed that replaces looks for.
const minTyped = 3

// unanchoredStart is where a frame that matches nothing is taken to
// continue the document: after the rows the last frame showed, or at its
// end.
func (a *aligner) unanchoredStart() int {
	last := -1
	for _, d := range a.doc {
		if d.shown == a.obs-1 {
			last = d.pos
		}
	}
	if last < 0 {
		return len(a.doc) - 1
	}
	return last
}

// firstShownLast returns the position of the first document row the last
// frame showed, or from if none is before it.
func (a *aligner) firstShownLast(from int) int {
	for _, d := range a.doc[:min(from, len(a.doc))] {
		if d.shown == a.obs-1 {
			return d.pos
		}
	}
	return from
}

// gap handles the frame rows [iStart, iEnd) that matched nothing, lying
// between document positions lo and hi (exclusive; -1 for none: the top or
// the bottom of the frame).
func (a *aligner) gap(rows []frameRow, iStart, iEnd, lo, hi int, top, bottom, unanchored bool, now time.Time) {
	// The document rows of the gap.
	from, to := lo+1, hi
	if hi < 0 {
		to = min(len(a.doc), from+rewrapWindow*max(iEnd-iStart, 8))
		if n := a.turns[iEnd] - a.turns[iStart]; n > 0 && from < len(a.doc) && !a.back {
			// The rows below show n turns: the document's rows for them
			// go on to the n-th turn below and its rows, however many
			// rows the view shows of the outputs between (an output
			// collapsed shows a few rows of many), as above. Not in a
			// view scrolled back: its rows are history near the rows
			// aligned, and a row every turn ends with (Claude Code's
			// "⎿  Interrupted …") taken from turns further down put the
			// history under it after them, read again as new once the
			// view was no longer scrolled back.
			if t := a.turnsBefore(from) + n - 1; t < len(a.docTurnRows) {
				to = max(to, min(a.docTurnRows[t]+rewrapWindow*max(iEnd-iStart, 8), len(a.doc), from+maxTurnsBack))
			}
		}
	}
	if lo < 0 && !unanchored {
		from = max(0, hi-rewrapWindow*max(iEnd-iStart, 8))
		if n := a.turns[iEnd] - a.turns[iStart]; n > 0 {
			// The rows above show n turns: the document's rows for them
			// go back to the n-th turn above, however many rows the view
			// shows of the outputs between (an output collapsed shows a
			// few rows of many).
			if t := a.turnsBefore(hi) - n; t >= 0 {
				from = max(min(from, a.docTurnRows[t]), hi-maxTurnsBack)
			}
		}
	}
	from, to = max(from, 0), min(to, len(a.doc))
	if iStart >= iEnd && !hasPending(a.doc, from, to) {
		return
	}
	// Text shown again with another wrap splits the gap further. A frame
	// that aligns with nothing while the program lays its text out anew
	// may show the rows the last frame showed wrapped anew and scrolled
	// (none of its rows as the last frame showed it): their text is
	// looked for from the first of them, and rows above it go before it.
	// So may one whose first rows are as the last frame showed them, in
	// place, when that frame showed text laid out anew (long after the
	// resize): the rows laid out anew are never the document's own, only
	// its text wrapped anew, and a frame that adds output under them may
	// keep no other row to align with.
	wrapFrom := from
	if unanchored && (a.relaying || a.lastRewrapShown && a.topAsLast(rows)) {
		wrapFrom = a.firstShownLast(from)
	} else if unanchored && a.lastRewrapShown && a.scrolledBack(rows) > 0 {
		// So may a view paged back after the program laid its text out
		// anew: the last frame showed text laid out anew and this one
		// shows that frame's rows moved down, with history above them,
		// laid out anew too, that matches no row as the document holds
		// it. Its text is looked for above the rows the last frame
		// showed, as far back as the frame could show: history, not a
		// new turn's rows read again.
		wrapFrom = max(0, a.firstShownLast(from)-rewrapWindow*max(iEnd-iStart, 8))
	}
	matches := a.rewrapped(rows, iStart, iEnd, wrapFrom, to, top, bottom)
	i0, d0 := iStart, from
	if len(matches) > 0 {
		d0 = min(d0, matches[0].d0)
	}
	if lo < 0 && !unanchored && !a.on {
		end := iEnd
		if len(matches) > 0 {
			end = matches[0].i0
		}
		below := hi
		if len(matches) > 0 {
			below = matches[0].d0
		}
		i0 = a.rewrappedAbove(rows, iStart, end, from, below)
	}
	for k := 0; k <= len(matches); k++ {
		i1, d1 := iEnd, to
		if k < len(matches) {
			i1, d1 = matches[k].i0, matches[k].d0
		}
		first, last := k == 0, k == len(matches)
		// Rows above everything aligned pair from the bottom up.
		fromEnd := top && first && !(bottom && last) && !unanchored
		head := i1
		// The document row the frame shows right under these rows: the
		// first of the next run wrapped anew, or the aligned row.
		under := hi
		if !last {
			under = matches[k].d0
		} else if bottom {
			under = -1
		}
		if under >= 0 && i1 > i0 && rows[i1-1].y == rows[i1].y-1 && (a.doc[under].cut && (!a.doc[under].left || a.goesOn(rows, i1, under)) || a.endsCut(rows, i0, i1, d0, under)) {
			// New rows right above a row read already at the top of the
			// view, in its paragraph: the paragraph's first rows, which
			// the view cut then and shows only now (scrolled back, grown,
			// or laid out anew for a new size). They are history, read as
			// such, not new output: its later rows went out already. So
			// are rows laid out anew that end with the rows read from the
			// top of the view down to the aligned row (wider, they hold
			// them with their first part, which the view had cut, the row
			// read at the top split between two of them maybe). A row
			// read as it left the view's top takes them only where the
			// frame's paragraph from it on goes on as the document does:
			// rows alike an older block's ("to", "type") over another
			// body are a new block's, not that one's.
			for head = i1 - 1; head > i0 && rows[head-1].y == rows[head].y-1; head-- {
			}
		}
		a.changed(rows, i0, i1, d0, d1, fromEnd, now, head)
		if k < len(matches) {
			i0, d0 = matches[k].i1, matches[k].d1
		}
	}
}

// topAsLast reports whether the frame's first rows (minScrolled of them)
// are those the last frame showed first, on the same rows with the same
// text.
func (a *aligner) topAsLast(rows []frameRow) bool {
	if len(rows) < minScrolled || len(a.last) < minScrolled {
		return false
	}
	for i, r := range rows[:minScrolled] {
		if l := a.last[i]; r.y != l.y || r.key != l.key {
			return false
		}
	}
	return true
}

// goesOn reports whether the frame's paragraph from row i on (the rows
// that follow it with no blank row between, not the program's own) holds,
// joined, what the document holds from row p on, as far as either goes:
// the same text, however wrapped (see gap). A pending document row may
// have changed since: what shows in its place says nothing. Rows the last
// frame no longer showed are skipped (goneBetween), and a row the program
// cut short with "…" is the frame's row that starts with its text.
func (a *aligner) goesOn(rows []frameRow, i, p int) bool {
	k, at := i, 0 // the frame row, and how much of its key is matched
	for d := p; d < len(a.doc); d++ {
		key := a.doc[d].key
		for off := 0; off < len(key); {
			if k == len(rows) || k > i && (rows[k].y != rows[k-1].y+1 || rows[k].own) {
				// The paragraph ended: all of it matched — unless it ran
				// to the view's bottom edge while the document goes on
				// with other rows of the transcript: the view cut it
				// there, and rows alike a block's "to" and "type" say
				// nothing of the body under them (a new block streams
				// through a short view, a blank row and the program's bar
				// under it). The program's own rows (its input box, read
				// under the transcript) are no more of it.
				return off > 0 || a.doc[d].own || !a.cutAtBottom(rows, k) || k < len(rows) && rows[k].key == key
			}
			fk := rows[k].key
			m := min(len(key)-off, len(fk)-at)
			if key[off:off+m] != fk[at:at+m] {
				if e := a.goneBetween(d); off == 0 && at == 0 && d > p && e > d {
					d, key = e, a.doc[e].key
					continue
				}
				if off == 0 && at == 0 && len(key) > minRewrapOpen && cutShort(key, fk) {
					// The row as a narrower view cut it to fit ("…"),
					// shown whole on a wider one: the frame's row is it.
					off, k = len(key), k+1
					continue
				}
				return a.doc[d].pending
			}
			off, at = off+m, at+m
			if at == len(fk) {
				k, at = k+1, 0
			}
		}
	}
	return true // the document ended: the rest is new, under it
}

// goneBetween returns the document row the last frame showed right under
// the row above d, where d and the rows after it up to that one (at most
// maxGone) were not shown by it: rows the program took out of its view
// between two rows that stay (Claude Code's "✻ Can't reach the API
// server…" retry row and "⎿  Tip:" drawn where a command's output then
// went, read as they stood and left inside the output), which a paragraph
// shown again skips as the last frame did. -1 if there is none.
func (a *aligner) goneBetween(d int) int {
	above := a.doc[d-1]
	if above.shown != a.obs-1 {
		return -1
	}
	for e := d; e < min(len(a.doc), d+maxGone+1); e++ {
		if r := a.doc[e]; r.shown == a.obs-1 {
			if e == d || r.at != above.at+1 {
				return -1
			}
			return e
		}
	}
	return -1
}

// maxTurnsBack bounds how far above the aligned rows gap looks for the
// turns the rows above them show.
const maxTurnsBack = 256

// maxGone is how many document rows goneBetween looks past.
const maxGone = 4

// cutAtBottom reports whether frame rows from k on, under a paragraph,
// are only the view's edge: none, the program's own rows, or a row on the
// frame's last row where the last frame showed it (a bar it keeps there).
// A view scrolled back (back) shows history that goes on under it: its
// bottom edge cuts nothing new. Nor does a paragraph with more than one
// blank row under it: a view's edge leaves at most a row of margin above
// what the program draws under it, and blank rows there are room the
// paragraph did not fill (opencode's transcript with rows to spare above
// its input box), not rows the view cut.
func (a *aligner) cutAtBottom(rows []frameRow, k int) bool {
	if a.back || k > 0 && k < len(rows) && rows[k].y > rows[k-1].y+2 {
		return false
	}
	for n := k; n < len(rows); n++ {
		r := rows[n]
		if r.own {
			continue
		}
		if n < len(rows)-1 || len(a.last) == 0 {
			return false
		}
		if l := a.last[len(a.last)-1]; l.y != r.y || l.key != r.key {
			return false
		}
	}
	return true
}

// endsCut reports whether the new rows [i0, i1) right above document row
// under, joined from the bottom up as far as they run on with no row
// between, end with the joined keys of the document rows from one read at
// the top of the view (cut) down to under, at or after from, and hold
// more: that row's paragraph laid out anew, its first part with it (see
// gap), where the new width may split the row read at the top between
// two rows. The rows joined are at least minRewrapOpen long: shorter text
// ends too much.
func (a *aligner) endsCut(rows []frameRow, i0, i1, from, under int) bool {
	// The new rows right above, as far up as they run on: what they hold,
	// joined, bounds the rows read that they may hold.
	top, room := i1-1, len(rows[i1-1].key)
	for top > i0 && rows[top-1].y == rows[top].y-1 {
		top--
		room += len(rows[top].key)
	}
	n, c := 0, under-1
	for ; c >= from; c-- {
		d := a.doc[c]
		n += len(d.key)
		if d.key == "" || d.pending || n >= room {
			return false
		}
		if d.cut {
			break
		}
	}
	if c < from || n < minRewrapOpen {
		return false
	}
	joined := make([]byte, 0, room)
	for k := top; k < i1; k++ {
		joined = append(joined, rows[k].key...)
	}
	end := len(joined)
	for d := under - 1; d >= c; d-- {
		key := a.doc[d].key
		if string(joined[end-len(key):end]) != key {
			return false
		}
		end -= len(key)
	}
	return true
}

// changed handles frame rows [i0, i1) that are new or changed in place,
// between the document rows [d0, d1). The pending rows there are the rows
// the frame shows changed, paired in order: from the bottom when the rows
// are above everything the frame aligned (fromEnd: pending rows left over
// scrolled off above them). Pending rows left over are no longer shown:
// they scrolled off, or the program hid them (a tool's output collapsed
// once it is done): what they showed last is committed. Above everything
// aligned, a pending row with more turns under it in the document, down to
// d1, than the frame rows show is none of theirs, and is left as it is: a
// transcript grows under its latest turn, and rows a view that followed an
// output down shows above the rows it aligned, under no echo, are that
// turn's output, not rows of an older one changed (the first rows of an
// output shown collapsed, never committed, stay pending in the document).
func (a *aligner) changed(rows []frameRow, i0, i1, d0, d1 int, fromEnd bool, now time.Time, head int) {
	shownTurns := 0
	for _, r := range rows[i0:i1] {
		if r.turn {
			shownTurns++
		}
	}
	var pend []*docRow
	turns := 0 // the document's turns under d, down to d1
	for p := d1 - 1; p >= d0; p-- {
		d := a.doc[p]
		if d.pending && d.shown != a.obs && (!fromEnd || turns <= shownTurns) {
			pend = append(pend, d)
		}
		if d.turn {
			turns++
		}
	}
	slices.Reverse(pend)
	n := min(i1-i0, len(pend))
	// The rows paired: frame rows [pi, pi+n) with pend[pk:pk+n].
	pi, pk := i0, 0
	if fromEnd {
		pi, pk = i1-n, len(pend)-n
	}
	for j := range n {
		d, r := pend[pk+j], rows[pi+j]
		a.retext(d, r, now)
		a.seen(d, r, now)
		a.matched[pi+j] = d
	}
	// New rows before the paired ones go before them, rows after after.
	before := d0
	if fromEnd {
		before = d1
	}
	if n > 0 {
		before = pend[pk].pos
	}
	after := d0
	if n > 0 {
		after = pend[pk+n-1].pos + 1
	} else if a.hiddenAbove(rows, i0, i1, d0, d1) {
		// An output collapsed to its first rows hides the rest: its hint
		// under them, new, goes after the rows hidden (and the next turn
		// under the hint with it), as the view shows them once it expands
		// the output again; a transcript grows at its end.
		after = d1
	}
	a.headAt = head
	a.insert(rows, i0, pi, before, now)
	a.insert(rows, pi+n, i1, after, now)
	if head < i1 && a.lateRows(rows, max(head, i0), i1, pi, n) {
		// History (see gap), read now before the rows of its paragraph
		// read already, which go out again after it (Line.Late).
		for k := i1; k < len(rows) && rows[k].y == rows[k-1].y+1; k++ {
			d := a.matched[k]
			if d == nil || d.pending || d.preview || d.own {
				break
			}
			a.out = append(a.out, commitRow{y: rows[k].y, text: rows[k].text, cols: rows[k].cols, row: d, again: true})
		}
	}
	for j, d := range pend {
		if j < pk || j >= pk+n {
			// Read as it leaves the view, from the view's top row, it is
			// the first row the view showed of its paragraph, as one
			// read there in place is (commitStable): rows shown later
			// right above it are its history (see gap).
			if d.y == 0 && !d.cut {
				d.cut, d.left = true, true
			}
			a.commit(d, d.y)
		}
	}
}

// lateRows commits frame rows [from, i1), new rows of history (see gap)
// not paired with pending rows [pi, pi+n), at once as Line.Late, and
// reports whether it committed any.
func (a *aligner) lateRows(rows []frameRow, from, i1, pi, n int) bool {
	some := false
	for i := from; i < i1; i++ {
		d := a.matched[i]
		if (i >= pi && i < pi+n) || d == nil || !d.pending {
			continue
		}
		some = a.commitLate(d, rows[i].y) || some
	}
	return some
}

// insert puts frame rows [i0, i1) into the document, before position at,
// as new pending rows; rows that scrolled off are committed at once.
func (a *aligner) insert(rows []frameRow, i0, i1, at int, now time.Time) {
	if i0 >= i1 {
		return
	}
	fresh := make([]*docRow, 0, i1-i0)
	for i := i0; i < i1; i++ {
		r := rows[i]
		d := &docRow{key: r.key, hash: r.hash, text: r.text, cols: r.cols, pending: true, turn: r.turn, typedOn: r.typedOn, preview: r.preview || r.cut, own: r.own, under: r.under, anchored: r.anchored, changed: now, shown: a.obs, first: a.obs, y: r.y, at: r.y, end: r.y}
		if r.turn {
			d.typed = typedKeyAt(r)
		}
		if a.back || i < a.backAbove && i < a.headAt {
			// Scrolled back, a row that matches nothing is history laid
			// out anew (the screen changed size since it was read): read
			// already, not new output, which goes on under the view. A
			// program that shows no hint then shows it so too: the last
			// frame's rows all moved down, an older turn's echo above
			// them (a transcript grows at its end; rows right above a
			// paragraph cut at the view's top, its first rows, are read
			// late: gap).
			d.pending, d.text, d.laidOut = false, "", true
		}
		a.matched[i] = d
		fresh = append(fresh, d)
		if r.gone {
			a.commit(d, r.y)
		}
	}
	a.inserts = append(a.inserts, insertion{at: at, seq: len(a.inserts), rows: fresh})
}

func hasPending(doc []*docRow, from, to int) bool {
	for _, d := range doc[from:to] {
		if d.pending {
			return true
		}
	}
	return false
}

// rowShowing returns the row of run, rows of text wrapped anew, that
// shows the byte at off of their joined keys: where a document row that
// starts there shows.
func rowShowing(run []frameRow, off int) int {
	for _, r := range run[:len(run)-1] {
		if off < len(r.key) {
			return r.y
		}
		off -= len(r.key)
	}
	return run[len(run)-1].y
}

// minRewrapOpen is the shortest run of text taken for the start of a
// paragraph without its end (a paragraph collapsed, or cut short by the
// view): shorter text is a prefix of too much.
const minRewrapOpen = 24

// cutShort reports whether key, the key of the row under a run of rows
// that ends inside a document row, is that row's text going on (rest),
// cut short with "…" (a paragraph collapsed: opencode cuts its last row
// so). A paragraph that goes on with other text is other text: a block
// printed again whose first rows, pretty-printed, join as the start of an
// older one's compact object is not that block.
func cutShort(key, rest string) bool {
	key = strings.TrimSuffix(key, "…")
	return key != "" && strings.HasPrefix(rest, key)
}

// rewrap is a run of frame rows [i0, i1) showing the text of document
// rows [d0, d1) with another wrap.
type rewrap struct{ i0, i1, d0, d1 int }

// rewrapped matches the frame rows [iStart, iEnd) against the document
// rows [from, to) as text: runs of adjacent rows whose keys, joined, are
// the joined keys of whole document rows are the same text wrapped or
// indented anew. The first and last rows of the frame may show part of a
// row, and a long enough run may end inside one (a paragraph shown
// collapsed) where its paragraph ends or goes on with that row's text cut
// short (cutShort), the row cut short then of the run. A pending row
// shown again so is done: it is committed as it was first shown, often
// whole — but not a pending row never shown whole (unread): the text
// shown whole now is no row seen before. The matches come in order.
func (a *aligner) rewrapped(rows []frameRow, iStart, iEnd, from, to int, top, bottom bool) []rewrap {
	var stream strings.Builder
	var starts []int // where each document row starts in stream
	var rowsOf []*docRow
	for _, d := range a.doc[from:to] {
		starts = append(starts, stream.Len())
		rowsOf = append(rowsOf, d)
		stream.WriteString(d.key)
	}
	s := stream.String()
	if s == "" {
		return nil
	}
	isStart := func(off int) bool { _, ok := slices.BinarySearch(starts, off); return ok }
	isEnd := func(off int) bool { return off == len(s) || isStart(off) }
	var out []rewrap
	off := 0 // matches go in order
	for i := iStart; i < iEnd; {
		// The run of adjacent rows from i.
		j := i + 1
		for j < iEnd && rows[j].y == rows[j-1].y+1 {
			j++
		}
		took := 0
		elsewhere := false // the text row i starts shows further down (shownFurtherOn)
		// other: the rows from i on, the frame's first, are another
		// paragraph's than document rows alike them (overOther): taking
		// no other document rows, none of that paragraph's rows is taken
		// for the document's text.
		other := false
		for end := j; end > i && took == 0; end-- {
			var joined strings.Builder
			for _, r := range rows[i:end] {
				joined.WriteString(r.key)
			}
			want := joined.String()
			openStart := top && i == iStart && iStart == 0
			openEnd := bottom && end == iEnd && end == len(rows)
			for o := off; o <= len(s)-len(want); {
				p := strings.Index(s[o:], want)
				if p < 0 {
					break
				}
				p += o
				k, _ := slices.BinarySearch(starts, p+1)
				k--
				if i == 0 && a.overOther(rows, i, rowsOf[k], rowsOf[lastRowOf(starts, p+len(want))]) {
					other = true
					o = p + 1
					continue
				}
				// A row as long as minRewrap is taken for the document's
				// on its text alone, but not the hint under an output
				// shown collapsed (frameRow.expand), the same under every
				// such output: alone it tells no output from another.
				// Taken for an older output's, the rows of a new output
				// taller than the view (its echo above the view's top)
				// went in above the turns after that output, and those
				// turns' rows, paged back to, were read again.
				if !(a.on && rowsOf[k].shown != a.obs-1) && !rowsOf[k].unread() && (openStart || isStart(p)) && (openEnd || isEnd(p+len(want)) || len(want) >= minRewrapOpen && (end == j || cutShort(rows[end].key, s[p+len(want):]))) &&
					(len(want) >= minRewrap && !(end == i+1 && rows[i].expand) || rows[i].turn || rowsOf[k].pending ||
						rowsOf[k].shown == a.obs-1 && (a.stayed(rows, rows[i], rowsOf[k]) || end == i+1 && a.movedWithTheView(rows[i]))) &&
					!(end == i+1 && p == starts[k] && isEnd(p+len(want)) && a.movedDownAlone(rows, rows[i], rowsOf[k])) &&
					!a.newTurnBefore(rows, iStart, i, rowsOf[:k], rowsOf[k]) &&
					!(p == starts[k] && a.shortRowsMovedAlone(rows, i, end, rowsOf[k:])) &&
					!a.straysIn(rows, i, end, p, p+len(want), rowsOf, starts, k) &&
					!a.movedWithoutEcho(rows, rows[i].y, rowsOf[k], rowsOf[lastRowOf(starts, p+len(want))]) &&
					!a.downPastEcho(rows, rowShowing(rows[i:end], starts[k]-p), rowsOf[k]) &&
					!(!bottom && (end == i+1 || !a.relaying) && a.hidesTurns(rows, end, iEnd, rowsOf[lastRowOf(starts, p+len(want))], to)) &&
					!(!bottom && a.splitsTurn(rows, end, iEnd, rowsOf[lastRowOf(starts, p+len(want))].pos, to)) &&
					!a.rewrapAmidNewText(rows, iStart, iEnd, i, end, rowsOf, starts, k, p+len(want)) {
					if a.shownFurtherOn(rows, i, end, iEnd, s[p:], isEnd, p, rowsOf[0].pos, rowsOf[k].pos) {
						elsewhere = true
						o = p + 1
						continue
					}
					took = end - i
					m := rewrap{i0: i, i1: end, d0: rowsOf[k].pos}
					if !openEnd && !isEnd(p+len(want)) && end < j && cutShort(rows[end].key, s[p+len(want):]) {
						// The row cut short is the rest of the row shown
						// collapsed, not a row of its own: taken for new,
						// it would go in amid the document row's text.
						took, m.i1 = took+1, end+1
					}
					if rowsOf[k].pending {
						a.commitAbove(rows, i, rowsOf[k].pos)
					}
					for ; k < len(starts) && starts[k] < p+len(want); k++ {
						rowsOf[k].shown = a.obs
						rowsOf[k].at = rowShowing(rows[i:end], starts[k]-p)
						rowsOf[k].end = rowShowing(rows[i:end], starts[k]-p+len(rowsOf[k].key)-1)
						a.commit(rowsOf[k], rowsOf[k].y)
						m.d1 = rowsOf[k].pos + 1
					}
					a.rewrapShown = a.rewrapShown || m.d1-m.d0 != m.i1-m.i0
					out = append(out, m)
					off = p + len(want)
					break
				}
				o = p + 1
			}
		}
		if took == 0 && other {
			i = j
			continue
		}
		if took == 0 {
			if k := decorated(rowsOf, rows[i].key, off, starts); k >= 0 && !elsewhere {
				d := rowsOf[k]
				d.shown, d.at, d.end = a.obs, rows[i].y, rows[i].y
				out = append(out, rewrap{i0: i, i1: i + 1, d0: d.pos, d1: d.pos + 1})
				off = starts[k] + len(d.key)
			}
			i++
			continue
		}
		i += took
	}
	return out
}

// shownFurtherOn reports whether the text rest (the document's from
// stream offset p, row pos, on), which frame rows [i, end) show the start
// of, shows again further down the gap, up to iEnd, and goes on there with
// more of it, to the end of a document row: the same text shown twice is
// the document's where it goes on as the document does; the other is
// other text alike (a block's "type" row of another block above it, the
// view laid out anew for a new size). Shown as far, the later is taken
// when rows [i, end) end with the document rows right above row pos, from
// one read at the top of the view (endsCut, from from on): they are that
// paragraph's history laid out anew, which a line printed twice ends alike.
func (a *aligner) shownFurtherOn(rows []frameRow, i, end, iEnd int, rest string, isEnd func(int) bool, p, from, pos int) bool {
	n := 0
	for _, r := range rows[i:end] {
		n += len(r.key)
	}
	for i2 := end; i2 < iEnd; i2++ {
		m := 0
		for e := i2; e < iEnd && (e == i2 || rows[e].y == rows[e-1].y+1); e++ {
			if !strings.HasPrefix(rest[m:], rows[e].key) {
				break
			}
			m += len(rows[e].key)
		}
		if m > n && isEnd(p+m) || m == n && a.endsCut(rows, i, end, from, pos) {
			return true
		}
	}
	return false
}

// shortRowsMovedAlone reports whether frame rows [i, end) are short rows
// ("progress 30%", "}", "[[/RELAY]]") that show the document rows from
// docs[0] on one for one, none of them pending, that would not stand as
// aligned rows (supportedRuns): rows the last frame did not show, or
// showed elsewhere, moved without the rows around them (movedTogether)
// and not as far as the view moved (stayed). Their joined text, long as
// it is, is not their text shown again either: the rows of a new output
// like an older one's ("progress 0%" … "progress 90%"), drawn where the
// view showed the older one a moment ago (opencode's view moving on from
// one command's output to the next), are new like the rows around them.
// Not while the program lays its text out anew after a resize.
func (a *aligner) shortRowsMovedAlone(rows []frameRow, i, end int, docs []*docRow) bool {
	if a.relaying || end-i < 2 || len(docs) < end-i {
		return false
	}
	for n, r := range rows[i:end] {
		if d := docs[n]; r.key != d.key || len(r.key) >= minRewrap || d.pending {
			return false
		}
	}
	if docs[0].shown == a.obs-1 && a.stayed(rows, rows[i], docs[0]) {
		return false
	}
	run := make([]pair, 0, end-i)
	for n := range end - i {
		run = append(run, pair{i + n, docs[n]})
	}
	// The short rows around the run that show moved as far with it are
	// of its run: the rows that tell whether it moved with the view are
	// the first others around them.
	move := rows[i].y - docs[0].at
	grow := func(d *docRow) (pair, bool) {
		if d.shown != a.obs-1 || len(d.key) >= minRewrap || d.pending {
			return pair{}, false
		}
		n, found := slices.BinarySearchFunc(rows, d.at+move, byY)
		return pair{n, d}, found && rows[n].key == d.key
	}
	for pos := run[0].d.pos - 1; pos >= 0; pos-- {
		p, ok := grow(a.doc[pos])
		if !ok {
			break
		}
		run = slices.Insert(run, 0, p)
	}
	for pos := run[len(run)-1].d.pos + 1; pos < len(a.doc); pos++ {
		p, ok := grow(a.doc[pos])
		if !ok {
			break
		}
		run = append(run, p)
	}
	return !a.movedTogether(rows, run)
}

// commitAbove commits the pending document rows before position pos that
// the frame rows right above frame row i show (no blank row between): a
// paragraph is read in its order, and a row of it shown again with
// another wrap, done, is committed at once (rewrapped), while the rows
// above it that the new layout left as they were would wait to settle and
// come after it (Claude Code laying a command's output out anew after a
// resize: its long last row wrapped anew, the short ones above it not).
func (a *aligner) commitAbove(rows []frameRow, i, pos int) {
	top := i
	for top > 0 && rows[top-1].y == rows[top].y-1 {
		d := a.matched[top-1]
		if d == nil || !d.pending || d.pos >= pos {
			break
		}
		top--
	}
	for k := top; k < i; k++ {
		if !rows[k].preview {
			a.commit(a.matched[k], rows[k].y)
		}
	}
}

// byY orders frame rows by screen row, for a binary search.
func byY(r frameRow, y int) int { return r.y - y }

// lastRowOf returns the index of the last document row of a rewrapped
// stream whose text starts before end (starts: where each row starts).
func lastRowOf(starts []int, end int) int {
	k, _ := slices.BinarySearch(starts, end)
	return max(k-1, 0)
}

// maxRewrapAbove is how many document rows before a gap's rows
// rewrappedAbove looks through.
const maxRewrapAbove = 4096

// rewrappedAbove matches the run of adjacent frame rows from iStart (up to
// iEnd), above everything the frame aligned, with document rows further
// back than the gap's, before position to: rows whose keys, joined, are
// the joined keys of whole document rows (the first may show the end of
// one) are that text wrapped anew, older than the rows aligned under it,
// however many rows the document holds between (an output the program
// has collapsed since: a view laid out anew for a new size shows the
// history above it again, with another wrap). The nearest such text is
// taken, long enough not to be common text, and not text whose rows run
// into row iEnd (document row below) with a turn between them in the
// document (splitsTurn). It returns the first frame row not matched.
func (a *aligner) rewrappedAbove(rows []frameRow, iStart, iEnd, to, below int) int {
	if iStart >= iEnd {
		return iStart
	}
	j := iStart + 1
	for j < iEnd && rows[j].y == rows[j-1].y+1 {
		j++
	}
	first := rows[iStart].key
	for k := to - 1; k >= max(0, to-maxRewrapAbove); k-- {
		if a.aboveThePast(a.doc[k]) {
			continue
		}
		key, off := a.doc[k].key, 0
		if !strings.HasPrefix(key, first) && !strings.HasPrefix(first, key) {
			if iStart != 0 || !strings.HasSuffix(key, first) {
				continue
			}
			off = len(key) - len(first) // the top row shows a row's end
		}
		n, last := a.rewrapRun(rows[iStart:j], k, off, to)
		if n == 0 || a.splitsTurn(rows, iStart+n, iEnd, last, below) {
			continue
		}
		for _, d := range a.doc[k : last+1] {
			d.shown = a.obs
			a.commit(d, d.y)
		}
		return iStart + n
	}
	return iStart
}

// splitsTurn reports whether frame rows up to i, matched with document
// rows up to last, end right above row iEnd of the frame (no blank row
// between: one paragraph), matched with document row below, and the
// document holds the start of a turn between last and below: a paragraph
// is one turn's output, or the echo heading it, not rows of two turns
// (a file printed again shows its first row, above the view's top while
// the program was at work, once it is done: that row's text is the first
// print's too, whose turn lies above the one printing it again).
func (a *aligner) splitsTurn(rows []frameRow, i, iEnd, last, below int) bool {
	if below < 0 || i != iEnd || iEnd >= len(rows) || rows[iEnd].y != rows[iEnd-1].y+1 {
		return false
	}
	return a.turnsBefore(below) > a.turnsBefore(last+1)
}

// rewrapRun returns how many of rows, from the first, are the document's
// text from byte off of row k on, wrapped anew: the longest run whose keys,
// joined, end where a document row before position to ends, and hold
// minRewrapOpen bytes at least; last is that document row.
func (a *aligner) rewrapRun(rows []frameRow, k, off, to int) (n, last int) {
	cur, joined := a.doc[k].key[off:], 0
	for i, r := range rows {
		key := r.key
		for len(key) > 0 {
			if cur == "" {
				if k++; k >= to {
					return n, last
				}
				cur = a.doc[k].key
			}
			m := min(len(key), len(cur))
			if key[:m] != cur[:m] {
				return n, last
			}
			key, cur = key[m:], cur[m:]
		}
		joined += len(r.key)
		if cur == "" && joined >= minRewrapOpen {
			n, last = i+1, k
		}
	}
	return n, last
}

// rewrapAmidNewText reports whether frame rows [i, end) of the gap
// [iStart, iEnd), matched as the text of the document rows from rowsOf[k]
// to the one holding stream offset stop wrapped anew, lie in a paragraph
// of new text, as amidNewText tells of aligned rows: none of those
// document rows is pending or was shown by the last frame, and going up
// and going down the paragraph from the run, past rows that show the
// document's next rows, one way reaches new text and the other new text
// too or the paragraph's end (a blank row), never an older row. A program
// draws a new paragraph whole: a run of its rows that joins as older
// text ("[[RELAY]]", "{", "to", "type" of a block to the same agent, an
// output's "end of the output, 16 lines") is part of it. Not while the
// program lays its text out anew after a resize.
func (a *aligner) rewrapAmidNewText(rows []frameRow, iStart, iEnd, i, end int, rowsOf []*docRow, starts []int, k, stop int) bool {
	if a.relaying || rows[i].turn {
		return false // an echo is the line typed, shown before it ran
	}
	first, last := rowsOf[k], rowsOf[k]
	for ; k < len(starts) && starts[k] < stop; k++ {
		if a.shownLast(rowsOf[k]) {
			return false
		}
		last = rowsOf[k]
	}
	const (
		older = iota
		newer
		paragraphEnd
	)
	from := func(r, q, dir int) int {
		for ; ; r, q = r+dir, q+dir {
			if r < 0 || r >= len(rows) {
				return older // the view cuts the paragraph: what it hides may be older
			}
			if rows[r].y != rows[r-dir].y+dir {
				return paragraphEnd
			}
			if r < iStart || r >= iEnd {
				return older // aligned
			}
			if q >= 0 && q < len(a.doc) && a.doc[q].key == rows[r].key {
				continue // the document's next row: says nothing either way
			}
			if a.holds(rows[r]) || a.rewrapNext(rows[r].key, q-dir, dir) {
				return older
			}
			return newer
		}
	}
	up, down := from(i-1, first.pos-1, -1), from(end, last.pos+1, 1)
	return up == newer && down != older || up == paragraphEnd && down == newer
}

// shownLast reports whether the last frame showed document row d, or it
// is pending: text too short to tell one row from another ("{", "}",
// "[[RELAY]]": every block has them) is that row only then.
func (a *aligner) shownLast(d *docRow) bool { return d.pending || d.shown == a.obs-1 }

// hidesTurns reports whether the document holds, under document row d
// down to position to (the row aligned under the frame's rows i to iEnd),
// more echoes of typed input (not empty prompts) than those rows show: a
// view shows the echo of every turn between two rows it shows (an output
// collapsed hides rows of output, not echoes). A row alone taken for d
// so, while the program lays its view out anew after a resize (when rows
// amid new text are not told apart: rewrapAmidNewText), is another row
// alike it: a new block's "type" row, drawn with the rest of its block
// after a resize, is not an older block's two turns back. Outside a
// relayout so is any run of rows: a view that jumped from the turns above
// to the tail of a long new output shows its block's "{", "to", "type"
// rows right over the program's live rows, not an older block's. There an
// echo counts only where the view now shows other text (a row it left
// blank may be the echo erased: Claude Code clears its view row by row as
// it quits), only if no frame row shows it in another form (echoShown),
// and only under a row that is not the program's own: an answer's footer,
// alike under every answer, may be aligned with another answer's.
func (a *aligner) hidesTurns(rows []frameRow, i, iEnd int, d *docRow, to int) bool {
	if to <= d.pos || to > len(a.doc) || to < len(a.doc) && a.doc[to].own && !a.relaying {
		return false
	}
	shown := 0
	for _, r := range rows[i:iEnd] {
		if r.turn {
			shown++
		}
	}
	held := 0
	for _, dd := range a.doc[d.pos+1 : to] {
		if _, drawn := slices.BinarySearchFunc(rows, dd.at, byY); dd.turn && int(dd.typed) < len(dd.key) && (drawn || a.relaying) && !a.echoShown(rows, dd) { // an empty prompt is no turn
			held++
		}
	}
	return held > shown
}

// echoShown reports whether a frame row starts the echo of the line typed
// that document row d starts the echo of: the program drew it again
// elsewhere, with another head (Codex's "• Running cat f.txt", "• You ran
// cat f.txt" once the command is done, left in the document too).
func (a *aligner) echoShown(rows []frameRow, d *docRow) bool {
	typed := a.typedOf(d)
	for _, r := range rows {
		if r.turn && r.key[min(int(r.typedKey), len(r.key)):] == typed {
			return true
		}
	}
	return false
}

// newTurnBefore reports whether frame row i1 showing document row d
// would put a new turn above it (see underNewTurn): the frame rows
// [i0, i1) hold more rows that start the echo of typed input than the
// document rows held.
func (a *aligner) newTurnBefore(rows []frameRow, i0, i1 int, held []*docRow, d *docRow) bool {
	shown := a.turns[i1] - a.turns[i0]
	if shown == 0 || a.laidOutAnew(d) {
		return false
	}
	for _, d := range held {
		if d.turn {
			shown--
		}
	}
	return shown > 0
}

// minDecorated is the shortest row taken as shown again with something
// drawn after it.
const minDecorated = 12

// decorated returns the index in rows of the first committed row from
// stream offset off on whose text key starts, with more after it: the row
// shown again with something drawn after it (Claude Code writes "Jump to
// bottom" there while the transcript is scrolled back); -1 if none. A
// pending row that grows is text streaming in, not this; nor is a row
// that goes on with the next row's text, which the document holds cut
// short with "…" (an output shown collapsed): laid out wider, the row
// shows that text whole, never shown so before (new).

func decorated(rows []*docRow, key string, off int, starts []int) int {
	for k, d := range rows {
		if !d.pending && starts[k] >= off && len(d.key) >= minDecorated && len(key) > len(d.key) && strings.HasPrefix(key, d.key) &&
			!(k+1 < len(rows) && strings.HasSuffix(rows[k+1].key, "…") && cutShort(rows[k+1].key, key[len(d.key):])) {
			return k
		}
	}
	return -1
}

// retext gives a pending row the text now shown in its place.
func (a *aligner) retext(d *docRow, r frameRow, now time.Time) {
	if d.key == r.key && d.text == r.text || r.preview && !d.preview || r.cut {
		return
	}
	if d.hash != r.hash {
		a.unindex(d)
		d.key, d.hash = r.key, r.hash
		a.index[d.hash] = append(a.index[d.hash], d)
	}
	if d.turn != r.turn {
		a.turnsChanged()
	}
	d.text, d.cols, d.changed, d.same, d.turn = r.text, r.cols, now, 0, r.turn
	if r.turn {
		d.typed = typedKeyAt(r)
	}
	a.relink(d)
}

// seen records that row d is shown as r.
func (a *aligner) seen(d *docRow, r frameRow, now time.Time) {
	d.shown, d.y, d.at, d.end = a.obs, r.y, r.y, r.y
	d.typedOn = d.typedOn || r.typedOn
	d.own = d.own || r.own
	if r.anchored {
		if d.anchored && r.under != d.under && !d.pending && !d.own && !r.preview {
			// The hint reads the same under every output shown collapsed:
			// under other rows than when read, it says so of another
			// output, and is read again (the rows keep their place in the
			// document).
			a.out = append(a.out, commitRow{y: r.y, text: r.text, cols: r.cols, row: d})
		} else if !d.pending && !d.own && !r.preview && a.newAbove(r, d, now) {
			// Rows of the output it is under that show only now (a view
			// too short for them, grown) are read after the hint: it is
			// read again under them, as they settle, so that what they
			// open is known to be cut by the program.
			d.pending, d.text, d.cols, d.changed, d.same = true, r.text, r.cols, now, 0
		}
		d.under, d.anchored = r.under, true
	}
	// Without its anchor in view (scrolled off the view's top, the hint
	// moving up to it) the rows above the hint are fewer, not other: the
	// same hint, not read again, for read again it lands in the middle of
	// what prints under it.
	if r.turn {
		d.turn, d.typed = true, typedKeyAt(r)
	}
	if r.preview && !d.preview || r.cut {
		return // a preview, or what a resize left, does not change what the row showed
	}
	d.preview = r.preview
	if d.pending {
		if d.text != r.text {
			d.text, d.cols, d.changed, d.same = r.text, r.cols, now, 0
		} else {
			d.same++
		}
		if r.gone {
			a.commit(d, r.y)
		}
	}
}

// newAbove reports whether a row between hint row r's anchor and r (its
// document row d) is new in this frame, or changed in it: not read yet.
func (a *aligner) newAbove(r frameRow, d *docRow, now time.Time) bool {
	for k := r.anchor; k < len(a.matched) && a.matched[k] != d; k++ {
		if m := a.matched[k]; m != nil && m.pending && m.changed.Equal(now) {
			return true
		}
	}
	return false
}

// relink keeps the index order by position after a row changed key.
func (a *aligner) relink(d *docRow) {
	l := a.index[d.hash]
	slices.SortFunc(l, func(x, y *docRow) int { return x.pos - y.pos })
}

func (a *aligner) unindex(d *docRow) {
	l := a.index[d.hash]
	if i := slices.Index(l, d); i >= 0 {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(a.index, d.hash)
	} else {
		a.index[d.hash] = l
	}
}

// commit commits a pending row of the document.
func (a *aligner) commit(d *docRow, y int) {
	if !d.pending {
		return
	}
	d.pending = false
	if d.preview || d.own {
		d.text = ""
		return // never shown whole, or the program's own: not read
	}
	a.out = append(a.out, commitRow{y: y, text: d.text, cols: d.cols, row: d})
	d.text = ""
}

// commitLate commits a pending row of the document as Line.Late: history
// shown only now, read apart from the lines in order. It reports whether
// the row was given (not a preview's, nor the program's own).
func (a *aligner) commitLate(d *docRow, y int) bool {
	n := len(a.out)
	a.commit(d, y)
	if len(a.out) == n {
		return false
	}
	a.out[n].late = true
	return true
}

// adopt puts rows read elsewhere into the document, read already, where
// the latest output goes on: the rows a running command's preview showed
// (glimpses), read once it was done, belong to the output under the
// document's last turn, before the first row of it the frame just aligned
// shows whole (the output's end, with the view at its end) or after the
// rows its collapsed view shows: a view that shows the output whole later
// (expanded, or grown) aligns with them, and reads them no more. Rows the
// view shows at its top may match older rows of the same text: the last
// turn, not the view, says where the output is.
func (a *aligner) adopt(read []commitRow) {
	if len(read) == 0 {
		return
	}
	at := len(a.doc)
	for p := len(a.doc) - 1; p >= 0; p-- {
		if !a.doc[p].turn {
			continue
		}
		for p++; p < len(a.doc); p++ {
			if d := a.doc[p]; d.shown == a.obs && !d.preview && !d.turn {
				at = p
				break
			}
		}
		break
	}
	fresh := make([]*docRow, 0, len(read))
	for _, c := range read {
		key := RowKey(c.text)
		if key == "" {
			continue
		}
		fresh = append(fresh, &docRow{key: key, hash: maphash.String(keySeed, key), cols: c.cols, y: c.y, at: c.y, end: c.y})
	}
	a.inserts = append(a.inserts[:0], insertion{at: at, rows: fresh})
	a.apply()
	a.inserts = a.inserts[:0]
}

// apply makes the gaps' insertions in the document.
func (a *aligner) apply() {
	if len(a.inserts) == 0 {
		return
	}
	first := len(a.doc)
	for _, in := range a.inserts {
		first = min(first, in.at)
	}
	slices.SortStableFunc(a.inserts, func(x, y insertion) int {
		if x.at != y.at {
			return x.at - y.at
		}
		return x.seq - y.seq
	})
	tail := slices.Clone(a.doc[first:])
	doc := a.doc[:first]
	k := 0
	for p := first; p <= len(a.doc); p++ {
		for k < len(a.inserts) && a.inserts[k].at == p {
			for _, d := range a.inserts[k].rows {
				d.pos = len(doc)
				doc = append(doc, d)
				a.index[d.hash] = append(a.index[d.hash], d)
			}
			k++
		}
		if p == len(a.doc) {
			break
		}
		d := tail[p-first]
		d.pos = len(doc)
		doc = append(doc, d)
	}
	a.doc = doc
	a.turnsChanged()
	// The index lists stay ordered by position: rows moved together.
	for _, in := range a.inserts {
		for _, d := range in.rows {
			a.relink(d)
		}
	}
}

// trim forgets the oldest committed rows beyond maxDocRows.
func (a *aligner) trim() {
	if len(a.doc) <= maxDocRows {
		return
	}
	cut := len(a.doc) - maxDocRows*9/10
	keep := a.doc[:0]
	for i, d := range a.doc {
		if i < cut && !d.pending {
			a.unindex(d)
			continue
		}
		d.pos = len(keep)
		keep = append(keep, d)
	}
	clear(a.doc[len(keep):])
	a.doc = keep
	a.turnsChanged()
}

// commitStable commits the pending rows this frame shows that have kept
// their text for the settle time, a paragraph (rows with no blank row
// between them) at a time, so that text still streaming into its last row
// holds back the rows above it too.
func (a *aligner) commitStable(rows []frameRow, now time.Time, quiet, busy bool) {
	// waiting: a paragraph above waits (see below), and so do the ones
	// under it, down to the next turn: an output is read in its order.
	waiting := false
	history := a.historyAbove(rows)
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].y == rows[j-1].y+1 {
			j++
		}
		if i < history {
			// History shown for the first time above a turn read
			// already (the view grown, or laid out anew), while that
			// turn's output may still be going on: read in order now, it
			// would land amid that output (an older echo and block inside
			// a block still printing), and read later, when it may have
			// left the view, out of its order. It is given at once as
			// Line.Late, read apart (a block whole only there is read
			// once, one cut short not at all); rows shown before wait
			// their turn as any.
			for k := i; k < min(j, history); k++ {
				if d := a.matched[k]; d != nil && d.pending && d.first == a.obs {
					a.commitLate(d, rows[k].y)
				}
			}
		}
		waiting = waiting && !rows[i].turn
		if waiting && !busy {
			i = j
			continue
		}
		if busy && (rows[i].y == 0 || waiting) {
			waiting = true
			// The paragraph the top of the view cuts, while the program
			// is at work: its first rows may be above (an output taller
			// than the view), shown once the program is done and the
			// view has room. Its rows wait, unless they leave the view
			// first; so do the paragraphs under it (the rest of that
			// output, under a blank row), down to the echo of a new turn.
			i = j
			continue
		}
		stable, any := true, false
		for k := i; k < j; k++ {
			if d := a.matched[k]; d != nil && d.pending && !rows[k].preview {
				any = true
				if !quiet && now.Sub(d.changed) < a.settle && (a.frames == 0 || d.same < a.frames) {
					stable = false
				}
			}
		}
		if any && !stable {
			// A paragraph not settled yet holds the ones under it, down
			// to the echo of a new turn: an output is read in its order
			// (Claude Code, done, shows the first row of an output the
			// view cut a moment after the rows under it).
			waiting = true
		}
		if any && stable {
			for k := i; k < j; k++ {
				if d := a.matched[k]; d != nil && !rows[k].preview {
					d.cut = d.cut || k == i && rows[k].y == 0 && d.pending
					a.commit(d, rows[k].y)
				}
			}
		}
		i = j
	}
}

// inOrder commits, with the rows a frame laid out anew after a resize
// commits, the pending rows of the same turn right above the first of them
// in the document, as the frame shows them: a reader reads a row after the
// rows above it. Such a frame commits a row before it settles where the
// row is wrapped anew (it goes out with the text it showed); the rows above it,
// shown longer and unchanged, would go out after it as they settle, and be
// read after it (Codex resized while a block's last rows settled: the
// output's next rows, wrapped anew, were read inside the block). Rows of a
// paragraph the view's top cuts may wait for its first rows (commitStable;
// Claude Code shows them a moment later), and rows not under a row read
// already may have rows above them not shown yet: then none goes out
// early.
func (a *aligner) inOrder() {
	if !a.relaying {
		return
	}
	first := -1
	for _, c := range a.out {
		if !c.late && !c.again && (first < 0 || c.row.pos < first) {
			first = c.row.pos
		}
	}
	p := first - 1
	for ; p >= 0; p-- {
		d := a.doc[p]
		if !d.pending || d.turn || d.shown != a.obs || d.preview {
			break
		}
		if d.y == 0 {
			return // cut by the view's top: waits for its first rows
		}
	}
	if p < 0 || a.doc[p].pending || p == first-1 {
		// Not under a row read already: what is above them may not be
		// shown yet (or is the program's own, or another turn).
		return
	}
	for q := p + 1; q < first; q++ {
		d := a.doc[q]
		a.commit(d, d.y)
	}
}

// historyAbove returns how many of the frame's first rows lie above the
// last row that starts the echo of a line typed (not an empty prompt),
// read already, while that turn's output may still be going on: the
// program is at work (its status row shows), or rows under it are
// pending. Rows first shown there are history (commitStable).
func (a *aligner) historyAbove(rows []frameRow) int {
	pending := false
	for k := len(rows) - 1; k >= 0; k-- {
		d := a.matched[k]
		if d == nil {
			continue
		}
		if rows[k].turn && int(typedKeyAt(rows[k])) < len(rows[k].key) && !d.pending {
			if a.working || pending {
				return k
			}
			return 0
		}
		pending = pending || d.pending && !rows[k].preview
	}
	return 0
}

// flush commits every pending row, in the document's order.
func (a *aligner) flush() []commitRow {
	a.out = a.out[:0]
	for _, d := range a.doc {
		a.commit(d, d.y)
	}
	a.keepBreaks()
	return a.out
}

// keepBreaks gives each row committed, in the document's order, the row
// that keeps, against the line the document row right above it was
// committed as, the blank rows (or none) the frame that showed both last
// showed between them: a reader joins a paragraph's rows and breaks it at
// a blank row, and a view that scrolled between two commits (a paragraph
// read as it settled, the next one as it left the view) would have the
// rows of two paragraphs follow each other, or one paragraph's rows part.
// The frame that showed both last may be older than the last one that
// showed the row: rows read as they leave the view's top, one frame after
// the other while the view follows an output up a row at a time, all
// leave from row 0, and numbered so a wrapped line's rows would read as
// one row drawn over and over, the line cut at its first row.
// A row with no such row above keeps the row it shows.
func (a *aligner) keepBreaks() {
	for k := range a.out {
		c := &a.out[k]
		d := c.row
		if c.late || c.again || d.pos == 0 {
			d.line, d.lined = c.y, true
			continue
		}
		p := a.doc[d.pos-1]
		switch {
		case !p.lined || c.y != d.y:
		case p.shown == d.shown && p.end < d.at:
			// Where the frame showed them, wrapped anew or not: a row
			// read where the view laid it out anew keeps the y it was
			// read at as itself (an older frame's), while the rows the
			// frame laid out anew around it are a paragraph with it.
			c.y = p.line + d.at - p.end
		case p.shown == d.shown && p.end == d.at:
			c.y = p.line + 1 // one row of a wider screen holds the ends of both
		case d.gapAt == p.shown && d.gap > 0:
			c.y = p.line + d.gap
		}
		d.line, d.lined = c.y, true
	}
}

// gaps notes, for each row the frame shows under the document row right
// above it, shown too, how many rows under it it shows (docRow.gap): once
// that row is out of view, the frame that showed both last is this one.
func (a *aligner) gaps() {
	for _, d := range a.matched {
		if d == nil || d.pos == 0 || d.pos >= len(a.doc) || a.doc[d.pos] != d || d.shown != a.obs {
			continue
		}
		if p := a.doc[d.pos-1]; p.shown == a.obs && p.y < d.y {
			d.gap, d.gapAt = d.y-p.y, a.obs
		}
	}
}

// hiddenAbove reports whether the document rows [d0, d1) were all read
// and the frame shows none of them, while it shows row d1 right under
// the gap [i0, i1), and among the gap's rows the hint under an output
// shown collapsed (frameRow.expand): the rows the view hides are that
// output's.
func (a *aligner) hiddenAbove(rows []frameRow, i0, i1, d0, d1 int) bool {
	if d1 <= d0 || d1 >= len(a.doc) || i1 >= len(rows) || a.matched[i1] != a.doc[d1] {
		return false
	}
	if !slices.ContainsFunc(rows[i0:i1], func(r frameRow) bool { return r.expand }) {
		return false
	}
	for _, d := range a.doc[d0:d1] {
		if d.pending || d.shown == a.obs {
			return false
		}
	}
	return true
}

// olderTurn reports whether r, a row that starts a turn, echoes a line
// typed whose echo the document holds read already, with a later turn
// under it: an older turn's, which a view shows only scrolled back.
func (a *aligner) olderTurn(r frameRow) bool {
	for _, d := range a.index[r.hash] {
		if !d.turn || d.pending || d.key != r.key {
			continue
		}
		for _, e := range a.doc[d.pos+1:] {
			if e.turn && !e.pending {
				return true
			}
		}
	}
	return false
}

// aloneAlike reports whether the frame shows the text of pair p's row once
// and the last frame showed one document row of that text: which copy the
// row is, is then not in doubt.
func (a *aligner) aloneAlike(rows []frameRow, p pair) bool {
	n := 0
	for _, r := range rows {
		if r.hash == rows[p.i].hash && r.key == rows[p.i].key {
			n++
		}
	}
	last := 0
	for _, d := range a.index[p.d.hash] {
		if d.key == p.d.key && d.shown == a.obs-1 {
			last++
		}
	}
	return n == 1 && last == 1
}
