package spawner

import (
	"bytes"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"swarm/screenmodel"
)

// rowState is what the screen knows about the logical line starting at a
// row of the main screen. It moves with the row when the screen scrolls or
// inserts and deletes lines.
type rowState struct {
	rec    string // the text last committed for this line
	hasRec bool
	// faint: rec is what was committed here before blank rows were
	// inserted over the blank row that showed it: the same text shown
	// here again is that line, other text replaced nothing.
	faint   bool
	pending bool   // left downwards inside the redraw zone, not committed
	ptext   string // its text when left
	// same: pending only because it was left showing rec, in a drawing
	// that may be the live area cut above (replay.drawsTail): committed
	// only if it is (commitPending).
	same    bool
	offered int // the replay (replay.epoch) whose matcher saw rec
	// ends: where each of the line's rows ends in rec, when rec was read
	// from them as the cursor left the line (zero: not known).
	ends lineEnds
}

// erasedWithRec reports whether the line, showing text now, is blank with
// its record kept: a screen never resized still has the row with that
// record, where a line that moved from it is found (moved). A line held
// back showing text and erased since keeps its record too: it is not
// committed then (commitPending); one held back blank is committed blank
// (final), which replaces its record.
func (st *rowState) erasedWithRec(text string) bool {
	return text == "" && st.hasRec && st.rec != "" && !(st.pending && st.ptext == "")
}

// lineEnds is where each row of a line of up to maxEnds rows ends in its
// text.
type lineEnds struct {
	n  uint8
	at [maxEnds]uint16
}

const maxEnds = 8

// endsOf returns rowEnds (lineBytes' last) for text, zero when they do
// not describe it whole (the line was capped, or has too many rows).
func endsOf(rowEnds []int, text string) lineEnds {
	var e lineEnds
	if len(rowEnds) == 0 || len(rowEnds) > maxEnds || rowEnds[len(rowEnds)-1] != len(text) || len(text) > 0xffff {
		return e
	}
	e.n = uint8(len(rowEnds))
	for i, at := range rowEnds {
		e.at[i] = uint16(at)
	}
	return e
}

// ghost is committed text that was replaced at its position: the same text
// turning up at another position soon after is the line moving, not a new
// line — unless a replay found that line first (foundGhost).
type ghost struct {
	text string
	at   int64 // mainLines.processed when it was replaced
	n    int64 // the line's position (Line.N) when it was replaced
	// shift and reach are set for a line that gave way to a line that
	// moved in from shift rows away (a region redrawn a row or two lower,
	// or scrolled inside a box): it moved with its region, so it may show
	// again reach rows from n+shift at most. Text the program prints anew
	// further off is not it.
	shift, reach int64
	// stays says the text that replaced it was only written on after it
	// (writtenOn): the same text elsewhere is another line, not this one
	// moved; the ghost is kept only as a piece of a paragraph drawn anew
	// (rewrapped).
	stays bool
}

// move is a line taken to have moved (or to be a paragraph drawn anew)
// from position from to position to, when mainLines.processed was at.
type move struct {
	from, to, at int64
}

// mainLines is the main screen's line committer and its rules: it follows
// what each token does to the rows and the cursor and commits a logical
// line when the cursor leaves it downwards or it scrolls off, holding back
// the lines of a redraw (the Ink redraw zone: upTo, downward), taking a
// line redrawn elsewhere or wrapped anew for the line it was (moved,
// rewrapped), and keeping what a batch of scrolls needs to come out as
// single scrolls do (checkedBatch, knownRow). The Screen holds one over its
// main emulator and calls its entry points: token with each structural
// token the front parser cuts while the main screen is in use, harvest
// after feeding it a print segment, batch before a line feed, settle as
// output settles or ends, altLines for the lines the alternate screen
// commits (numbered as the main screen's rows under it), take for what was
// committed, and cutBelow, resizedTo, recordCut and pulledBack as the
// screen changes size (with carried, flowLines, reflowed and placed for a
// reflow). The scrollback the rows that leave go to, and the clock, are the
// Screen's, reached through a lineSink.
type mainLines struct {
	em         *vt.Emulator // the main screen
	rows, cols int          // em's size
	layout     screenmodel.Layout
	replay     replay
	shadow     []rowState
	// top and bot are the scroll region of the main screen: rows [top, bot).
	top, bot int
	// zone is the highest row the cursor went back up to in its last trip
	// up; lines at or below it are held back until output settles. -1:
	// none. goingUp: that trip is still going (no downward move since).
	zone    int
	goingUp bool
	// lastZone is the zone of the trip before the one going now.
	lastZone int
	// tailBase is base as the screen was last found cleared row by row
	// (replay.beginTail); scrolling: rows are scrolling off (scrolled).
	tailBase  int64
	scrolling bool
	// syncing: inside a synchronized update (mode 2026); downLater: the
	// cursor moved down in it after its last move up (see downward).
	syncing, downLater bool
	// base counts the rows scrolled off the top.
	base int64
	// carry is the start of a wrapped line whose first rows scrolled off
	// while it continues at row top; carryState is that line's state.
	carryOn    bool
	carry      []byte
	carryN     int64
	carryState rowState
	ghosts     []ghost
	// typedFrom and typedTo are the lines of the input box when output
	// last settled (typedTo < typedFrom: none): the line typed, not yet
	// a line of the transcript (see shown).
	typedFrom, typedTo int64
	// shownN is the line of the last row of the echo of typed input
	// read last (committed, or seen by shown), shownEcho that echo
	// (Start "": none).
	shownN    int64
	shownEcho screenmodel.Echo
	// echoN is the line of the first row of that echo, seen since the
	// screen last changed size, and echoCmd what it shows after the
	// echo's start ("": none; see leftEcho).
	echoN   int64
	echoCmd string
	// unresized: the rows a screen never resized would still show that a
	// resize took off this one, while resizedQuiet.
	unresized unresized
	rewrap    rewrapState
	// lastMove is the last line taken to have moved: lines redrawn in
	// one pass keep their order, so the next cannot cross it.
	lastMove move
	// resizedQuiet: the screen was resized since the program last wrote,
	// so it shows what it showed before, laid out for the new size: a
	// screen resized and back with nothing drawn between commits as one
	// never resized. The last move is kept through a resize (its
	// positions follow its lines: placed), and the rows the resize took
	// off are read as rows still on the screen (unresized). The program's
	// next output is its drawing for the new size, a redraw of its own,
	// whose lines keep no order with that move, and the rows taken off are
	// gone (written).
	resizedQuiet bool
	// leaving is how many line numbers the line a reflow pushes off takes
	// at the new width, while it is committed (Line.Rows); 0 otherwise.
	leaving int
	// lastNew: the last line commit looked at was new output. A line
	// seen again as it was committed in this replay leaves it alone: it
	// is no other line than before (a shorter screen commits a held-back
	// line as it leaves; settling sees it again).
	lastNew   bool
	processed int64
	out       []Line
	// erasing: rows x/vt pushes into its scrollback now come from an erase
	// of the display, not from scrolling.
	erasing bool
	lineBuf []byte // scratch: a row's plain text
	rowEnds []int  // scratch: where each row's text ends (lineBytes)
	// pieces: rows a batch of scrolls is about to push off, checked to
	// show the text committed for their line: each one's length in it, or
	// -1 (checkedBatch). scrolled takes their text from there.
	pieces []int
	// riskUntil: until base reaches it, a row may show other than the
	// text committed for its line (something other than a line feed moved
	// the cursor up or changed rows; see risk).
	riskUntil int64
	boxRows   []string // scratch: the rows inputBox looks at
	ran       ranBoxes // boxes seen running a command with output (boxes.go)
	// doneBox is the line of the head row of the box of a command done
	// read last (screenmodel.Layout.ToolBoxes; -1: none): see inDoneBox.
	// doneEpoch is the replay's epoch it was read in (see newDoneBox).
	doneBox   int64
	doneEpoch int
	detached  []rowState
	olds      []bool // scratch: scrolled's rows drawn for the old width
	// previews is scratch: the main screen's rows that are previews
	// (settle).
	previews []previewRow
	// frame is what the screen showed as the synchronized update being
	// drawn began (slid); slidN is the position given to the last line
	// that slid out of the program's view.
	frame frameStart
	slidN int64
	// leftTop: the rows that left at the top of a view taller than the
	// screen (tallView) since the last blank row that left there, with
	// their positions, held until their paragraph has left whole;
	// leftLost: rows of that paragraph were let go (maxLeftTop).
	leftTop  []topRow
	leftLost bool
	// leftResized: the screen was resized since the last blank row left
	// at the top of a view taller than the screen: the program laid its
	// rows out anew, and the paragraph leaving now may have lost rows
	// unseen in that (commitLeftTop).
	leftResized bool
	// unshown: the new lines committed inside the synchronized update
	// that draws a replay at a new width, held until the update ends
	// (passed); reprint: a replay began since the last update ended, so
	// the update under way (or the next) draws it.
	unshown []unshownLine
	reprint bool
	// oldWidth: since the screen's width changed, output has not paused
	// and the program has not drawn a row out to the new right edge and
	// stopped there (atEdge, not ranPast: text ran past the edge in the
	// trip up going on). keptText: that trip moved the cursor over cells
	// that show text, keeping them (skipped). oldFrame: both, the trip is
	// a frame laid out for the old width (oldFrameFound).
	oldWidth, ranPast, atEdge, keptText, oldFrame bool
	// carryOld: a row of the carried line was drawn by such a frame.
	carryOld bool
}

// unshownLine is a line held in mainLines.unshown, with the count of long
// lines the replay had repeated as it was committed (replay.long).
type unshownLine struct {
	Line
	replayed int64
}

// maxUnshown bounds the lines held within one synchronized update: an
// update that runs on (a whole transcript and output after it in one
// frame) has its held lines decided then, as if it ended.
const maxUnshown = 4096

// frameStart is what the screen showed as a synchronized update began,
// while the redraw zone held lines: each row's text ("" for a row of a
// line the terminal wrapped) and whether its line was held back.
type frameStart struct {
	on    bool
	moved bool // rows moved or scrolled off during the update
	rows  []string
	held  []bool
	// read: the row's line was committed already with the text the row
	// shows (output settled while it showed so).
	read []bool
	now  []string // scratch: the rows as the update ends
	took []bool   // scratch: rows that took a record (slideRecords)
}

// lineSink is what the main screen's line committer hands on: the
// Screen.
type lineSink interface {
	// now is the time of the output being applied.
	now() time.Time
	// keep adds a row that left the top of the main screen to the
	// scrollback the UI shows; text is its plain text. erased: an erase
	// of the display pushed it there, it did not scroll off. st, when
	// not nil, is the state of the row's line as the row left (for the
	// row that ends the line: after it was committed), which the line
	// takes back if the row comes back (pulledBack).
	keep(l uv.Line, text string, erased bool, st *rowState)
	// clearHistory empties that scrollback (the program erased it).
	clearHistory()
}

// init starts the committer on em, of rows×cols, with the facts of the
// program's screen layout.
func (m *mainLines) init(em *vt.Emulator, rows, cols int, layout screenmodel.Layout) {
	m.em, m.rows, m.cols, m.layout = em, rows, cols, layout
	m.replay.elides = layout.Elides
	m.shadow = make([]rowState, m.rows)
	m.top, m.bot = 0, m.rows
	m.zone, m.lastZone = -1, -1
	m.typedTo = -1
	m.doneBox = -1
}

// resized keeps the states of the rows that remain, once em has the
// screen's new size.
func (m *mainLines) resized() {
	old := m.shadow
	m.shadow = make([]rowState, m.rows)
	copy(m.shadow, old)
	for i := range m.shadow {
		m.shadow[i].ends = lineEnds{} // the rows are cut or wrapped anew
	}
	m.risk()
	m.echoCmd = "" // its line is laid out anew
	m.resizedQuiet = true
	m.frame.on = false
	m.leftResized = true
	m.top, m.bot = 0, m.rows
	if m.zone >= m.rows {
		m.zone = m.rows - 1
	}
}

// wholeRegion reports whether the scroll region is the whole screen.
func (m *mainLines) wholeRegion() bool { return m.top == 0 && m.bot >= m.rows }

// oneRowRegion reports whether the scroll region is one row high.
func (m *mainLines) oneRowRegion() bool { return min(m.bot, m.rows)-m.top == 1 }

// cutBelow commits the lines on the rows a screen rows tall no longer
// has: their lines leave for good, so they are committed as lines that
// scroll off are. A line committed before the cut that starts there, erased
// or still showing its text, is a row a screen never resized would still
// have (unresized). It returns the first row of a line that starts above
// the cut and goes on below it, committed whole too (-1: none), which
// recordCut records with what is left of it.
func (m *mainLines) cutBelow(rows int, out lineSink) (straddles int) {
	straddles = -1
	for r := rows; r < m.rows; {
		start, end := m.span(r)
		st := m.state(start)
		text := m.lineText(start, end)
		// A screen never resized reads a row by the record of its line:
		// only one committed before the cut has it (not one committed
		// now, as it is cut, nor one held back but erased since). One
		// written on since (more text after what was committed) still
		// has it until its line is committed, after the lines above it:
		// read by a line above as a piece of a paragraph drawn anew
		// (rewrapped), it is not its new text, committed now as it is cut.
		if start >= rows && (st.erasedWithRec(text) || !st.pending && st.hasRec && st.rec != "" && writtenOn(text, st.rec)) {
			m.unresized.add(m.lineN(start), st.rec, text != "")
		}
		if st.pending {
			m.commitPending(start, end, st, noRedraw, out)
		} else if text != "" {
			m.commit(st, text, m.lineN(start), lineEnds{}, noRedraw, out)
		} else if start >= rows && st.hasRec && st.rec != "" {
			st.rec, st.hasRec, st.faint = "", false, false // it left, erased
		}
		if start < rows {
			straddles = start
		}
		r = end + 1
	}
	return straddles
}

// cutRows commits, before a resize that is not reflowed, the lines on the
// rows a screen rows high keeps that the resize breaks. At a new width
// (cols differs from the screen's) the emulator cuts or pads each row
// where it is, so a line wrapped over several rows falls apart into rows,
// and at a narrower one a row loses its end. A line carried at the top of
// a scroll region loses its start, which left the region for good (a
// region keeps no scrollback), when the resize ends the region. What is
// lost leaves for good, so such a line is committed whole as it was, as a
// line cut at the bottom is (cutBelow). It returns the rows of the lines
// committed, for recordCut to record what each shows then.
//
// When rows under the cut show text, a line above it that shows other
// text than was committed for it is committed too, before them: a screen
// never resized commits from the top down, and a line's commit reads the
// records above it (a line that moved leaves one behind: moved). Left
// with its old record, the line above would be taken for the place a cut
// line moved from ("status" printed twice, the first then written over:
// the second was taken for the first, moved down, and lost).
func (m *mainLines) cutRows(rows, cols int, out lineSink) []bool {
	broken := make([]bool, m.rows)
	textBelow := false
	for y := rows; y < m.rows && !textBelow; y++ {
		textBelow = rowEnd(m.em.Line(y), m.cols) > 0
	}
	released := m.heldZone()
	for r := 0; r < min(rows, m.rows); {
		start, end := m.span(r)
		st := m.state(start)
		cut := cols != m.cols && (end > start || rowEnd(m.em.Line(start), m.cols) > cols)
		broke := cut || start == m.top && m.top > 0 && m.carryOn
		stale := textBelow && !st.pending && st.hasRec && st.rec != "" && !m.lineShows(start, end, st.rec)
		if broke || stale {
			if st.pending {
				m.commitPending(start, end, st, released, out)
			} else if text := m.lineText(start, end); text != "" {
				m.commit(st, text, m.lineN(start), lineEnds{}, released, out)
			}
		}
		for y := start; y <= end && broke && st.hasRec; y++ {
			broken[y] = true
		}
		r = end + 1
	}
	return broken
}

// endRegionCarry ends the carry of a line carried at the top of a scroll
// region, which a resize that is not reflowed ends (a reflow is refused
// with such a line): the line is what its rows show now, with its state
// (committed whole before the resize: cutRows; recordCut records what is
// left of it).
func (m *mainLines) endRegionCarry() {
	if !m.carryOn || m.top == 0 {
		return
	}
	if m.top < len(m.shadow) {
		m.shadow[m.top] = m.carryState
		m.shadow[m.top].ends = lineEnds{}
	}
	m.dropCarry()
}

// resizedTo follows em, resized to rows×cols: the rows it pushed off go
// the way of rows that scroll off, and the states of the rows that remain
// are kept.
func (m *mainLines) resizedTo(rows, cols int, out lineSink) {
	m.rows, m.cols = rows, cols
	m.harvest(out)
	m.resized()
}

// recordCut records, after a resize that did not reflow, what is left on
// the screen of lines committed whole before: the line cut at the bottom
// (straddles, from cutBelow) and, when the width changed, the lines the
// emulator broke (broken: their rows, from cutRows), each piece of them
// the line it is now. Otherwise they would be committed again cut short (a
// relay line would be sent twice, or a piece of it). A line the new width
// cut short still shows whole on a screen never resized: what it showed
// is kept as such a row (unresized), for a line drawn above it to go on
// into (a paragraph drawn anew, rewrapped), as it would on that screen.
func (m *mainLines) recordCut(straddles int, broken []bool) {
	if straddles >= 0 {
		start, end := m.span(straddles)
		st := m.state(start)
		st.rec, st.hasRec, st.faint = m.lineText(start, end), true, false
	}
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		for y := start; y <= end && y < len(broken); y++ {
			if broken[y] {
				st := m.state(start)
				text := m.lineText(start, end)
				if st.hasRec && st.rec != "" && st.rec != text {
					m.unresized.add(m.lineN(start), st.rec, true)
				}
				st.rec, st.hasRec, st.faint = text, true, false
				break
			}
		}
		r = end + 1
	}
}

// pulledBack follows k rows brought back from the scrollback to the top
// of the screen (Screen.pullBack), which moved everything else down by k.
// Lines that left whole take back the states they left with (left, the
// rows' states from lineSink.keep, the last of them the newest row's;
// fewer than k when the first rows' are not known), so that they go on as
// on a screen never resized; one whose state is not known is recorded as
// committed with the text it shows. A line that had only begun to leave
// takes its state back from the carry. kept, when not nil, is the text of
// the top line's first keptRows rows, which stay in the scrollback: that
// line is carried again. A line that had left is not the program's
// output now: a replay going on has seen it (rowState.offered), as on a
// screen never resized it would not see it in the scrollback (a replay
// took a line that left before the clear, back on the screen, for the
// first of the replayed lines, and a new line after it for a piece of
// the next: FuzzReflow).
func (m *mainLines) pulledBack(k int, kept []byte, keptRows int, left []leftRow) {
	// The blank rows the lines brought back push off the bottom: one
	// erased, its record kept, is still a row of a screen never resized
	// (unresized), where a line that moved from it is found. Dropped, the
	// record was lost, and that line drawn again, after a taller screen,
	// was committed again (FuzzReflow 4ef7ea96: a relay read twice).
	for r := max(m.rows-k, 0); r < m.rows; {
		start, end := m.span(r)
		if st := m.state(start); start == r && st.erasedWithRec(m.lineText(start, end)) {
			m.unresized.add(m.lineN(start), st.rec, false)
		}
		r = end + 1
	}
	m.shiftDown(0, m.rows, k)
	m.base -= int64(k)
	carried, carryState, carryN, carry := m.carryOn, m.carryState, m.carryN, m.carry
	m.dropCarry()
	// leftAt is the state row r's line had as row r left.
	leftAt := func(r int) (rowState, bool) {
		if i := r - (k - len(left)); i >= 0 && i < len(left) && left[i].known {
			return left[i].st, true
		}
		return rowState{}, false
	}
	if kept != nil {
		defer func() {
			if _, end := m.span(0); end >= k && carried {
				// The line whose start had left: fewer of its rows
				// are left, its state is the same, and its start is
				// what it was without the rows that came back. The
				// scrollback may have lost the first rows of a line
				// longer than it (kept starts at its oldest row): a
				// screen never resized still counts them in the line,
				// which it committed whole.
				start := kept
				if pulled := m.lineBytes(0, k-1); len(pulled) <= len(carry) && string(carry[len(carry)-len(pulled):]) == string(pulled) {
					start = carry[:len(carry)-len(pulled)]
				}
				m.carryOn, m.carryN, m.carryState, m.carry = true, carryN, carryState, append(m.carry[:0], start...)
				return
			}
			// A line that left whole, committed then: its rows that
			// stay in the scrollback go before the rest of its text, and
			// it is recorded with the text it shows now so carried, as
			// a screen never resized reads it (blanks at its end, where
			// no row that came back has text, are not text: lineBytes).
			m.carryOn, m.carryN, m.carry = true, m.base-int64(keptRows), append(m.carry[:0], kept...)
			_, end := m.span(0)
			st := m.shadow[0]
			st.rec = m.lineText(0, end)
			m.carryState = st
		}()
	}
	for r := 0; r < k; {
		start, end := m.span(r)
		if end >= k && carried {
			// The line whose start had left goes on below: it is whole on
			// the screen again, with the state it had.
			m.shadow[start] = carryState
			m.shadow[start].ends = lineEnds{}
			break
		}
		st := &m.shadow[start]
		// A line whose first rows stay in the scrollback (kept) is
		// recorded with its text: the rows around it may not be the
		// line that left (an erase of the display left its rows there).
		if end < k && (kept == nil || start > 0) {
			if was, ok := leftAt(end); ok {
				// Its last row left last: the line's state then.
				*st = was
				st.ends, st.offered = lineEnds{}, m.replay.epoch
				r = end + 1
				continue
			}
		}
		st.rec, st.hasRec, st.ends, st.faint = m.lineText(start, end), true, lineEnds{}, false
		st.offered = m.replay.epoch
		r = end + 1
	}
}

// widthChanged tells the replay rule that the program will redraw for a
// new width, and notes that it has not yet (oldWidth). Only for a program
// that draws its whole frame again once it takes the resize in
// (screenmodel.Layout.RedrawsAfterResize): the lines a frame drawn for
// the old width holds are let go counting on that (oldFrameFound); one
// that draws only the cells that changed and never again would lose them.
func (m *mainLines) widthChanged() {
	m.replay.widthChanged()
	m.oldWidth, m.ranPast, m.atEdge, m.keptText, m.oldFrame = m.layout.RedrawsAfterResize(), false, false, false, false
}

// printed notes, while oldWidth, how a print segment ended: its text ran
// past the right edge (the terminal wrapped it), or ended on the edge.
func (m *mainLines) printed(ranPast, atEdge bool) {
	m.ranPast = m.ranPast || ranPast
	m.atEdge = m.atEdge || atEdge
	m.oldFrameFound()
}

// skipped notes, while watchesMoves, that the cursor moved right on row y
// from column x0 to x1: over cells that show text, it kept them.
func (m *mainLines) skipped(y, x0, x1 int) {
	if m.keptText || x1 <= x0 || y < 0 || y >= m.rows {
		return
	}
	line := m.em.Line(y)
	for x := x0; x < min(x1, len(line)); x++ {
		if c := line[x].Content; c != "" && c != " " {
			m.keptText = true
			m.oldFrameFound()
			return
		}
	}
}

// oldFrameFound checks whether the trip up going on, since a change of
// width, is a frame laid out for the old width by a program that draws
// only the cells that changed since its last frame (Claude Code inline,
// before it takes the resize in): its text runs past the new edge, and it
// moves the cursor over the cells it keeps. The terminal laid the rows
// out anew under them, and the cells kept are no longer those the program
// drew there: the rows read as neither frame, a reader sees garbled rows.
// They are not the program's text: the lines the trip holds are let go,
// uncommitted, and so are those it goes on to draw, as they are left and
// as they scroll off (drawnOld); the program draws them again once it
// takes the resize in (Claude Code erases the screen and draws its
// transcript anew). A program that writes whole rows (Ink: Gemini CLI)
// keeps no cells: its rows, wrapped by the terminal, are its text; one
// that keeps cells and has taken the resize in (Codex inline) draws
// nothing past the edge.
func (m *mainLines) oldFrameFound() {
	if m.oldFrame || !m.ranPast || !m.keptText || m.zone < 0 {
		return
	}
	m.oldFrame = true
	for r := m.zone; r < m.rows; r++ {
		st := m.state(r)
		st.pending, st.ptext, st.same = false, "", false
	}
}

// frameEnds ends the trip up going on for oldWidth: one that drew a row
// out to the new edge, none past it, was drawn for the new width.
func (m *mainLines) frameEnds() {
	m.oldWidth = m.oldWidth && (m.ranPast || !m.atEdge)
	m.ranPast, m.atEdge, m.keptText, m.oldFrame = false, false, false, false
}

// drawnOld reports whether row y, about to scroll off, was drawn by a
// frame laid out for the old width (oldFrameFound): its line is not
// committed as it leaves either.
func (m *mainLines) drawnOld(y int) bool { return m.oldFrame && m.zone >= 0 && y >= m.zone }

// take returns the lines committed since the last call, in order.
func (m *mainLines) take() []Line {
	out := m.out
	if len(out) == 0 {
		return nil
	}
	// The next batch is likely as long as this one: one allocation for it
	// rather than a slice grown from nothing every time.
	m.out = make([]Line, 0, len(out))
	return out
}

// altLines commits rows of the alternate screen's document as lines, at
// the positions of the main screen's rows under it.
func (m *mainLines) altLines(rows []commitRow, now time.Time) {
	for _, c := range rows {
		cols := m.cols
		if c.cols > 0 {
			cols = c.cols
		}
		m.out = append(m.out, Line{N: m.base + int64(c.y), Text: c.text, Time: now, Cols: cols, Late: c.late, Again: c.again, Elided: c.elided})
	}
}

// carried returns the text of the line whose first rows scrolled off
// while it goes on at the top row (valid until the committer changes),
// whether there is one (on), and whether that row is the top of the
// screen rather than of a scroll region (atTop).
func (m *mainLines) carried() (text []byte, on, atTop bool) {
	return m.carry, m.carryOn, m.top == 0
}

// flowLines takes the screen apart into its logical lines, each with its
// state, for a reflow (screenFlow).
func (m *mainLines) flowLines() []flowLine {
	pos := m.em.CursorPosition()
	var lines []flowLine
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		l := flowLine{st: *m.state(start), cursor: -1, start: start}
		off := 0 // columns before this row in the line
		for y := start; y <= end; y++ {
			limit := m.cols
			if y < end {
				if _, pad := wrapOf(m.em.CellAt(m.cols-1, y)); pad {
					limit--
				}
			}
			if y == pos.Y {
				l.cursor = off + pos.X
				if m.em.PendingWrap() {
					l.cursor++ // after the row's last character, waiting to wrap
				}
				l.rowStart = y == end && pos.X == 0 && !m.em.PendingWrap()
			}
			l.cells = appendCells(l.cells, m.em.Line(y), limit)
			off += limit
		}
		l.trim()
		l.zone = m.zone >= start && m.zone <= end
		lines = append(lines, l)
		r = end + 1
	}
	return lines
}

// reflowed follows a reflow of the screen to width cols (f, planned from
// flowLines; em not resized yet). The line carried at the top is whole on
// the screen again when f took its rows back; blank lines that give way
// are dropped, and the lines that leave at the top are committed as
// lines that scroll off are, their rows at the new width going to out's
// scrollback (the first rows of a line that leaves only in part start a
// carried line). The lines that stay take their states along in f.
func (m *mainLines) reflowed(f *screenFlow, cols int, out lineSink) {
	lines, p := f.lines, f.plan
	f.base, f.processed = m.base, m.processed
	if f.back > 0 {
		// The line is whole on the screen again, with the state it had.
		m.base -= int64(f.back)
		m.shadow[lines[0].start] = m.carryState
		m.dropCarry()
	}
	for i := len(lines) - 1; i >= p.keep; i-- {
		st, n := m.state(lines[i].start), m.base+int64(lines[i].start)
		if st.erasedWithRec("") {
			// Erased: a screen never resized still has the row.
			m.unresized.add(n, st.rec, false)
			st.rec, st.hasRec, st.faint = "", false, false
			continue
		}
		m.final(st, "", n, noRedraw, out) // a held-back blank line
	}
	// The lines that leave at the top go into the scrollback, committed
	// as lines that scroll off are.
	n := m.base
	// (The states are the screen's own: committing one line can change
	// another's record, as when lines scroll off, and, a line of a redraw
	// found moved up, the rows under it (crossed), as when output
	// settles.)
	released := m.heldZone()
	if len(m.leftTop) > 0 && !m.carryOn {
		starts, texts := make([]int, p.drop), make([]string, p.drop)
		for i, l := range lines[:p.drop] {
			starts[i], texts[i] = l.start, string(capLine(appendCellsText(nil, l.cells)))
		}
		m.leftWhole(starts, texts, out)
	}
	for i, l := range lines[:p.drop] {
		text := string(capLine(appendCellsText(nil, l.cells)))
		st, ln := m.state(l.start), n
		carried := i == 0 && m.carryOn // its start left already
		if !carried && st.erasedWithRec(text) {
			// Erased: a screen never resized still has the row.
			m.unresized.add(ln, st.rec, false)
			st.rec, st.hasRec, st.faint = "", false, false
		}
		if carried {
			text = string(capLine(appendCellsText(append([]byte(nil), m.carry...), l.cells)))
			ln = m.carryN
		}
		m.leaving = int(n-ln) + l.rows // numbered at the new width, shown at the old
		m.final(st, text, ln, released, out)
		m.leaving = 0
		if carried {
			m.dropCarry()
		}
		n += int64(l.rows)
	}
	for i := p.drop; i < p.keep; i++ {
		lines[i].st = *m.state(lines[i].start)
	}
	keep := func(row uv.Line) {
		m.lineBuf = appendText(m.lineBuf[:0], row, cols)
		out.keep(row, string(m.lineBuf), false, nil)
	}
	for _, l := range lines[:p.drop] {
		for _, row := range l.rowsAt(cols) {
			keep(row)
		}
		m.base += int64(l.rows)
	}
	if p.split > 0 {
		l := lines[p.drop]
		if !m.carryOn {
			m.carryOn, m.carryN, m.carryState, m.carry = true, n, l.st, m.carry[:0]
		}
		for _, row := range l.rowsAt(cols)[:p.split] {
			m.carry = capLine(appendText(m.carry, row, cols))
			keep(row)
		}
		m.base += int64(p.split)
	}
}

// written notes that the program wrote (resizedQuiet, replay.written).
func (m *mainLines) written() {
	m.replay.written()
	if m.resizedQuiet {
		m.lastMove, m.resizedQuiet = move{}, false
		// The rows the resize took off are gone now; one erased is a line
		// that left erased, as one that scrolls off erased is (final):
		// its text turning up elsewhere soon is the line moving.
		for _, r := range m.unresized.rows {
			if !r.shows {
				m.addGhost(ghost{text: r.rec, at: m.processed, n: r.n})
			}
		}
		m.unresized.forget()
	}
}

// placed gives the lines that stay after a reflow (f, reflowed) their
// states at the rows they start on now, once em has the new size
// (resizedTo), and the last move the positions of its lines; oldRows is
// the height before.
func (m *mainLines) placed(f *screenFlow, oldRows int) {
	clear(m.shadow)
	m.zone = -1
	for _, l := range f.lines[f.plan.drop:f.plan.keep] {
		m.shadow[l.at] = l.st
		if l.zone {
			m.zone = l.at
		}
	}
	// The last move's positions follow their lines, so that the order it
	// keeps (inOrder) is kept as on a screen never resized — unless it was
	// found as its line left in the reflow, at the positions after it.
	if m.lastMove.at != 0 && m.lastMove.at <= f.processed {
		from, ok := f.position(m.lastMove.from, m.base, oldRows, m.rows)
		to, ok2 := f.position(m.lastMove.to, m.base, oldRows, m.rows)
		if ok && ok2 {
			m.lastMove.from, m.lastMove.to = from, to
		} else {
			m.lastMove = move{}
		}
	}
}

// state returns the state of the logical line starting at row r.
func (m *mainLines) state(r int) *rowState {
	if r == m.top && m.carryOn {
		return &m.carryState
	}
	return &m.shadow[r]
}

func (m *mainLines) wrappedRow(y int) bool {
	w, _ := wrapOf(m.em.CellAt(m.cols-1, y))
	return w
}

// span returns the rows of the logical line containing row r.
func (m *mainLines) span(r int) (start, end int) {
	start, end = r, r
	for start > 0 && m.wrappedRow(start-1) {
		start--
	}
	for end < m.rows-1 && m.wrappedRow(end) {
		end++
	}
	return start, end
}

// lineText returns the text of the logical line on rows [start, end].
func (m *mainLines) lineText(start, end int) string {
	return string(m.lineBytes(start, end))
}

// lineShows reports whether the logical line on rows [start, end] shows
// text.
func (m *mainLines) lineShows(start, end int, text string) bool {
	return string(m.lineBytes(start, end)) == text // compared, not copied
}

// lineBytes is lineText in the scratch buffer, valid until its next use;
// rowEnds has where each row's text ends in it, before the cap.
func (m *mainLines) lineBytes(start, end int) []byte {
	b := m.lineBuf[:0]
	if start == m.top && m.carryOn {
		b = append(b, m.carry...)
	}
	m.rowEnds = m.rowEnds[:0]
	for y := start; y <= end; y++ {
		b = appendText(b, m.em.Line(y), m.cols)
		m.rowEnds = append(m.rowEnds, len(b))
	}
	if !m.wrappedRow(end) {
		// The line ends here: blanks at the end of a row it wrapped from
		// are its end too when nothing but blanks followed them (blanks
		// before the cursor a reflow kept, which a CR LF then ended), as
		// the same line drawn on one row shows.
		n := len(b)
		for n > 0 && b[n-1] == ' ' {
			n--
		}
		b = b[:n]
		for i, e := range m.rowEnds {
			m.rowEnds[i] = min(e, n)
		}
	}
	b = capLine(b)
	m.lineBuf = b
	return b
}

func capLine(b []byte) []byte {
	if len(b) <= maxLineBytes {
		return b
	}
	n := maxLineBytes
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

func (m *mainLines) lineN(start int) int64 {
	if start == m.top && m.carryOn {
		return m.carryN
	}
	return m.base + int64(start)
}

// commit commits text as the line of st, unless that is what it shows
// already or the text is a committed line that moved here; ends is where
// its rows end in text, when known; released is the top row of the redraw
// whose held lines are being committed (noRedraw: none; see crossed).
func (m *mainLines) commit(st *rowState, text string, n int64, ends lineEnds, released int, out lineSink) {
	st.pending, st.ptext, st.same = false, "", false
	st.ends = ends
	// The replay matcher sees every line, also those committed already —
	// once: the same line seen again in the same replay (left by a line
	// feed, then scrolled off) is not another line of it. Nor is it
	// another line processed: how often a line is offered depends on how
	// the screen went (a line scrolls off, or a shorter screen commits it
	// as it leaves and then scrolls it off), and the ages counted in lines
	// processed (ghosts, moves, a paragraph's pieces) must not.
	if st.hasRec && st.rec == text && st.offered == m.replay.epoch {
		return
	}
	m.processed++
	if m.layout.HasStatus() && m.layout.Status(text) {
		// The program's status row, not output: seen, not committed.
		st.rec, st.hasRec, st.faint = text, true, false
		return
	}
	if running, ok := m.layout.PreviewMarker(text); ok && running {
		// The count under a running command's latest rows: they were a
		// preview, not output (see previewRows).
		st.rec, st.hasRec, st.faint = text, true, false
		m.retractPreview(n)
		return
	}
	m.knowTail()
	var replayed bool
	switch {
	case m.newDoneBox(text, n):
		// Printed for the first time: it repeats no line.
	case m.layout.Elides(text):
		replayed = m.replay.repeatsAside(text)
	default:
		replayed = m.replay.repeats(text)
	}
	if m.replay.missed {
		if _, echo := m.layout.EchoStart(text); echo {
			m.replay.typed()
		}
	}
	// A drawing under the latest command's echo (the live area cut above,
	// on rows erased one by one, or the transcript drawn again with that
	// echo in view) draws that command's output: a row that repeats
	// nothing since the echo is its output where the output goes on under
	// it, not an older line that stayed at its row, moved there or was
	// wrapped anew (a file printed again over rows of an older block: its
	// "[[RELAY]]" where that block's was, or lower; its rows where an
	// older print's were replaced). Rows under the last new one are the
	// program's own (rules, the input box), drawn again.
	drawnNew := !replayed && m.replay.drawnUnderEcho(text) && m.outputRow(text) && m.newRowBelow(n)
	if st.hasRec && st.rec == text && !drawnNew {
		st.offered, st.faint = m.replay.epoch, false
		m.lastNew = false
		m.shown(text, n, replayed)
		return
	}
	if st.faint {
		// Another text where blank rows were inserted: nothing of the
		// line committed here was replaced.
		st.rec, st.hasRec, st.faint = "", false, false
	}
	// A row of a box printed done is the row that box shows there, and a
	// box's count of rows hidden is that box's.
	fresh := m.inDoneBox(text, n) || m.countRow(text)
	if text != "" && !fresh && !drawnNew {
		if from, ok := m.moved(st, text, n, released); ok {
			if st.hasRec && st.rec != "" {
				// The line recorded here gave way to the one that moved
				// in: a region redrawn a row lower moves each line into
				// the place of the next, and one scrolled inside a box
				// hides a line that shows again a frame later.
				m.addGhost(ghost{text: st.rec, at: m.processed, n: n, shift: n - from, reach: 1 + max(from-n, n-from), stays: writtenOn(text, st.rec)})
			}
			st.rec, st.hasRec, st.offered, st.faint = text, true, m.replay.epoch, false
			m.lastNew = false
			m.shown(text, n, replayed)
			return
		}
	}
	replaced := st.hasRec && st.rec != ""
	if replaced {
		m.addGhost(ghost{text: st.rec, at: m.processed, n: n, stays: writtenOn(text, st.rec)})
	}
	st.rec, st.hasRec, st.offered, st.faint = text, true, m.replay.epoch, false
	if replayed {
		m.foundGhost(text)
	}
	if replayed || replaced && !fresh && !drawnNew && m.rewrapped(st, text, n) {
		m.lastNew = false
		if !replayed {
			m.shown(text, n, false)
		}
		return
	}
	m.lastNew = true
	cmd := ""
	e, echo := m.layout.EchoStart(text)
	if echo {
		cmd = strings.TrimSpace(text[len(e.Start):])
	} else if m.shownEcho.Start != "" && n == m.shownN+1 && m.shownEcho.Continues(text) {
		m.shownN = n
	}
	m.replay.record(text, cmd, e.Runs)
	l := Line{N: n, Text: text, Time: out.now(), Cols: m.cols, Rows: m.leaving, ShownRunning: m.ranShown(text)}
	switch {
	case m.syncing && m.reprint && m.replay.active && m.replay.resized, len(m.unshown) > 0:
		// Lines after one held wait with it: lines keep their order.
		m.unshown = append(m.unshown, unshownLine{l, m.replay.long})
		if len(m.unshown) > maxUnshown {
			m.passed()
		}
	default:
		m.out = append(m.out, l)
	}
	if _, running, ok := m.layout.ToolBox(text); ok {
		m.doneBox, m.doneEpoch = -1, m.replay.epoch
		if !running {
			m.doneBox = n
		}
	}
	if echo {
		m.shownN, m.shownEcho = n, e
		m.echoN, m.echoCmd = n, cmd
		m.echoRowsUnder(text, n)
	}
}

// outputRow reports whether text may be a row of a command's output: it
// has a key (a rule or a blank row has none), and it is not the echo of a
// line typed nor the input box's prompt.
func (m *mainLines) outputRow(text string) bool {
	if !hasKey(text) {
		return false
	}
	_, echo := m.layout.EchoStart(text)
	return !echo
}

// newRowBelow reports whether a row of output (outputRow) under line n's
// rows is held back with text other than what was committed for it (see
// commit).
func (m *mainLines) newRowBelow(n int64) bool {
	r := n - m.base
	if r < 0 || r >= int64(m.rows) {
		return false
	}
	_, end := m.span(int(r))
	for y := end + 1; y < m.rows; {
		start, end := m.span(y)
		y = end + 1
		if st := m.state(start); st.pending && !st.same && m.outputRow(m.lineText(start, end)) {
			return true
		}
	}
	return false
}

// knowTail tells a replay begun by beginTail, still to be told, what the
// drawing shows, once its first line is committed (replay.tailShows).
func (m *mainLines) knowTail() {
	if m.replay.tailUnknown() {
		// Rows that scrolled since the drawing began leave it unknown.
		m.replay.tailShows(m.scrolling || m.base != m.tailBase || m.showsEcho())
	}
}

// echoRowsUnder records for the replay, after the echo of typed input
// just read at n, the lines right under it that continue it and commit
// nothing, seen already: the program drew them with the echo in one
// frame, the same text the input box showed there typed, and they were
// left while the echo's first row, new text, was held back. They are
// rows of the transcript as the echo is (see shown).
func (m *mainLines) echoRowsUnder(text string, n int64) {
	r := n - m.base
	if r < 0 || r >= int64(m.rows) {
		return
	}
	start, end := m.span(int(r))
	if m.lineN(start) != n || !m.lineShows(start, end, text) {
		return
	}
	for end+1 < m.rows {
		start, end = m.span(end + 1)
		st := m.state(start)
		if st.pending || !st.hasRec || !m.lineShows(start, end, st.rec) || !m.shownEcho.Continues(st.rec) {
			return
		}
		m.shownN = m.lineN(start)
		if !m.replay.knows(st.rec) {
			m.replay.record(st.rec, "", false)
		}
	}
}

// shown notes a line at n that commits nothing (the same text again,
// moved, or drawn anew): the echo of typed input that no line recorded
// lately shows, out of the input box, is the line typed, now a line of
// the transcript — Claude Code moves it out of its box, or draws it over
// the box's top rule, as the command starts — and the replay records it,
// as it would have had the line been committed: a transcript written
// again shows it, and the command's output under it is new (the
// package's replay rule). The rows that continue the echo right under
// it go with it, wherever the box was. A line the replay just repeated
// (replayed) is an older line of the transcript drawn again, though at a
// new width its text is none recorded (an echo Claude Code wrapped
// itself, joined on a wider screen): not the line typed last.
func (m *mainLines) shown(text string, n int64, replayed bool) {
	if e, ok := m.layout.EchoStart(text); ok {
		if n >= m.typedFrom && n <= m.typedTo {
			return
		}
		cmd := strings.TrimSpace(text[len(e.Start):])
		m.shownN, m.shownEcho = n, e
		m.echoN, m.echoCmd = n, cmd
		if !replayed && !m.replay.knows(text) {
			m.replay.record(text, cmd, e.Runs)
		}
		return
	}
	if m.shownEcho.Start == "" || n != m.shownN+1 || !m.shownEcho.Continues(text) {
		return
	}
	m.shownN = n
	if !replayed && !m.replay.knows(text) {
		m.replay.record(text, "", false)
	}
}

// writtenOn reports whether a line that shows now was, committed as was,
// only written on where it stands (was is the start of now): a reader
// still sees it there, so the same text elsewhere is not that line moved
// (moved: neither a ghost's nor a row's record).
func writtenOn(now, was string) bool { return strings.HasPrefix(now, was) }

// near reports whether the line replaced may show again at position n:
// anywhere, unless it gave way to a line that moved in (reach).
func (g ghost) near(n int64) bool {
	at := g.pos()
	return g.reach == 0 || max(at-n, n-at) <= g.reach
}

// pos is where the line replaced would show now: where it was, moved as
// far as the line that took its place.
func (g ghost) pos() int64 { return g.n + g.shift }

// addGhost records g, text committed for a line, as replaced now.
func (m *mainLines) addGhost(g ghost) {
	m.ghosts = append(m.ghosts, g)
	if len(m.ghosts) > 2*m.rows {
		m.ghosts = m.ghosts[1:]
	}
}

// foundGhost forgets the newest ghost of text, a line the program drew
// again as history (replay.repeats): the line that gave way where it was
// is the one the replay found, shown where the redraw put it. It does not
// move again from where it was: the same text showing there later is
// other output (Claude Code redraws its view for a new width, each line
// some rows from where the old width put it, then prints a block whose
// "to" row lands where an older block's stood before the redraw; taken
// for that row moved back, it is not read, and the block is missing
// "to").
func (m *mainLines) foundGhost(text string) {
	for i := len(m.ghosts) - 1; i >= 0; i-- {
		if m.ghosts[i].text == text {
			m.ghosts = append(m.ghosts[:i], m.ghosts[i+1:]...)
			return
		}
	}
}

// passed hands on the lines held while a replay at a new width was drawn
// in a synchronized update, once the update ends (or output paused, or
// the screen changed size), but those it showed only in passing: a new
// line that left the screen (its first row at least) before the update
// ended, with history after it — long lines (replay.long) the replay
// repeated after it, or first on the screen a line it will repeat
// (historyNext). A
// program that writes its transcript again for a new width writes it
// from its start, and new output comes at its end: a new line amid
// history is history laid out anew (Codex inline shows a long output's
// last rows, as many as fit at the new width), and one that scrolled by
// within a frame was never on the screen for a reader. What the frame
// left on the screen was shown, whatever scrolls it off later; new
// output after the history, whatever scrolls it off, is new. Lines are
// held only inside an update: outside one each write may be on the
// screen, and a busy program never pauses (Codex animates every ~33 ms).
func (m *mainLines) passed() {
	history := -1 // whether the screen shows history next (historyNext), once known
	for _, l := range m.unshown {
		amid := l.replayed != m.replay.long
		if !amid && l.N < m.base {
			if history < 0 {
				history = 0
				if m.historyNext() {
					history = 1
				}
			}
			amid = history == 1
		}
		if l.N >= m.base || !amid {
			m.out = append(m.out, l.Line)
		}
	}
	m.unshown = m.unshown[:0]
}

// historyNext reports whether the first line on the screen whose key is
// as long as minResumeKey, not yet looked at by the replay, is one the
// replay will repeat: rows the program drew last in the frame are held
// back in the redraw zone until output settles, and their lines are
// looked at then, after the frame they were drawn in ended.
func (m *mainLines) historyNext() bool {
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		text := m.lineText(start, end)
		if key := RowKey(text); len(key) >= minResumeKey {
			st := m.state(start)
			if st.hasRec && st.rec == text && st.offered == m.replay.epoch {
				return false // looked at, and not repeated (passed)
			}
			return m.replay.wouldRepeat(key)
		}
	}
	return false
}

// retractPreview takes back the lines of the preview that the line at
// position n closes, committed before its marker was drawn but not taken
// yet, and forgets them: the output printed whole later holds their text
// as new lines, not as these moved.
func (m *mainLines) retractPreview(n int64) {
	y := int(n - m.base)
	if y <= 0 || y >= m.rows {
		return
	}
	top, _, ok := m.layout.Preview(m.mainRows(), y)
	if !ok || top >= y {
		return
	}
	lo := m.base + int64(top)
	var taken []string
	m.out = slices.DeleteFunc(m.out, func(l Line) bool {
		if l.N >= lo && l.N < n {
			taken = append(taken, l.Text)
			return true
		}
		return false
	})
	m.unshown = slices.DeleteFunc(m.unshown, func(l unshownLine) bool {
		if l.N >= lo && l.N < n {
			taken = append(taken, l.Text)
			return true
		}
		return false
	})
	// Nor did the program print them: a screen it draws again shows them
	// where it prints the output whole, new lines there (replay).
	m.replay.forget(taken)
	for r := top; r < y; r++ {
		st := m.state(r)
		st.rec, st.hasRec, st.pending, st.ptext, st.same = "", false, false, "", false
	}
}

// minRewrap is the shortest text (without blanks) taken for a piece of a
// paragraph wrapped anew: shorter pieces occur anywhere.
const minRewrap = 12

// rewrapped reports whether text, replacing a committed line in place, is
// a piece of the paragraph that was there, wrapped or indented anew (as
// Claude Code redraws a tool's output once it is done): its text without
// blanks and borders starts where one of the lines just replaced (the
// newest ghosts, this one's last) or of those still below it starts
// (rows a resize took off under the screen among them, last: unresized),
// or goes on where the piece before it ended. Text found in the middle of
// a line that was there is not that line redrawn: it is new text drawn
// where another line held the same words (Gemini CLI draws a command's
// output where the command was typed a moment before).
func (m *mainLines) rewrapped(st *rowState, text string, n int64) bool {
	key := RowKey(text)
	if len(key) < minRewrap {
		return false
	}
	if next := m.rewrap.next; next != "" && m.processed-m.rewrap.at <= maxRewrapGap && strings.HasPrefix(next, key) {
		m.rewrap.next, m.rewrap.at = next[len(key):], m.processed
		return true
	}
	pieces := m.rewrap.pieces[:0]
	recent := m.ghosts[max(0, len(m.ghosts)-m.rows):]
	for _, g := range recent {
		if g.near(n) {
			pieces = append(pieces, g)
		}
	}
	// A line that is leaving the top (scrolled: st is its own) has every
	// row on the screen below it; one whose first rows left (carried) has
	// the rows under the rest of it, which goes on at row top.
	carried := st == &m.carryState
	below := !carried && !m.onScreen(st)
	for r := range m.shadow {
		if &m.shadow[r] == st || carried && r == m.top {
			below = true
			continue
		}
		if below && m.shadow[r].hasRec {
			if start, _ := m.span(r); start != r {
				// A stale record: the row became part of a wrapped line
				// (a reflow keeps no such record).
				continue
			}
			pieces = append(pieces, ghost{text: m.shadow[r].rec, n: m.lineN(r)})
		}
	}
	// Then the rows a resize took off under the screen: on a screen
	// never resized they would still be below it.
	pieces = m.unresized.appendBelow(pieces, n)
	var b strings.Builder
	starts, from := m.rewrap.starts[:0], m.rewrap.from[:0]
	for _, p := range pieces {
		starts = append(starts, b.Len())
		from = append(from, p.pos())
		b.WriteString(RowKey(p.text))
	}
	m.rewrap.pieces, m.rewrap.starts, m.rewrap.from = pieces, starts, from
	stream := b.String()
	for k, at := range starts {
		// A piece with no key (a rule) holds none of the text: the piece
		// that does is the first one after it with a key, and it is that
		// piece's place a turn is counted from (pastTurns).
		held := k
		for held+1 < len(starts) && starts[held+1] == at {
			held++
		}
		// A line written on where it stands still shows its text there:
		// a row elsewhere starting with that text is another line, not
		// the paragraph's start drawn anew (a paragraph's start is on
		// the screen once). Its own row, written on, may be.
		if p := pieces[k]; p.stays && p.pos() != n {
			continue
		}
		if strings.HasPrefix(stream[at:], key) && m.inOrder(from[k], n) && !m.pastTurns(from[held], n) && !m.leftEcho(pieces[held].text, from[held], n) {
			m.rewrap.next, m.rewrap.at = stream[at+len(key):], m.processed
			m.moveTo(from[k], n)
			return true
		}
	}
	return false
}

// onScreen reports whether st is the state of a row on the screen.
func (m *mainLines) onScreen(st *rowState) bool {
	for r := range m.shadow {
		if &m.shadow[r] == st {
			return true
		}
	}
	return false
}

// inOrder reports whether a line at position from may have moved to
// position to: lines that move in one redraw keep their order, so a line
// does not cross the line that moved last, a moment ago (Claude Code
// collapses an output and draws the next one below: a "{" of the new
// block is not the old block's "{", which was above the rows that just
// moved up past it).
func (m *mainLines) inOrder(from, to int64) bool {
	last := m.lastMove
	if from == to || last.at == 0 || m.processed-last.at > int64(m.rows) {
		return true
	}
	return sign(from-last.from) == sign(to-last.to)
}

// moveTo records that a line moved from position from to position to.
func (m *mainLines) moveTo(from, to int64) {
	if from == to {
		return // shown again where it was: no order to keep
	}
	m.lastMove = move{from: from, to: to, at: m.processed}
}

// shortened commits, before a shorter screen pushes its top k rows into
// the scrollback (Screen.resize), the lines wholly on them as a reflow
// commits the lines that leave at the top: with the held lines of a
// redraw among them released, so that one found moved up takes the rows
// of that redraw under it for new (crossed), as when output settles on a
// screen never resized. Scrolled off, a line is committed with the rows
// under it moved up already, where crossed cannot tell them. A line
// erased, its record kept, is still a row of a screen never resized
// (unresized), which a line moving from there is found at, however short
// (moved), not a ghost.
func (m *mainLines) shortened(k int, out lineSink) {
	released := m.heldZone()
	if len(m.leftTop) > 0 && !m.carryOn {
		var starts []int
		var texts []string
		for r := 0; r < k; {
			start, end := m.span(r)
			if end >= k {
				break
			}
			starts, texts = append(starts, start), append(texts, m.lineText(start, end))
			r = end + 1
		}
		m.leftWhole(starts, texts, out)
	}
	for r := 0; r < k; {
		start, end := m.span(r)
		if end >= k {
			return // it goes on under the rows that leave: carried
		}
		st, text := m.state(start), m.lineText(start, end)
		if st.erasedWithRec(text) {
			m.unresized.add(m.lineN(start), st.rec, false)
			st.rec, st.hasRec, st.faint = "", false, false // it left, erased
		} else {
			m.final(st, text, m.lineN(start), released, out)
		}
		r = end + 1
	}
}

// noRedraw, as the top row of the redraw whose held lines a commit
// releases, says it releases none (crossed).
const noRedraw = -1

// crossed: a line of the redraw whose lines are being committed, text,
// moved up from position from to position to. Lines keep their order, so
// a row of that redraw under it, above where it was, that shows what was
// committed for its position is not that line shown again: that line was
// above the one that moved, and is above it now (or no longer shown). It
// is the redraw's own row, which happens to read as the row drawn there
// before — a program that draws only the cells that changed leaves such a
// row alone (Claude Code collapses an older output and draws the next
// one's block where the older block's "[[RELAY]]" and "{" were). It is
// held back as a new line, committed with the rows around it — unless it
// shows the moved line's text, or the moved line's text was committed for
// another line too and a line with its text was between it and where the
// moved line was: that line may be the one that moved into it (the same
// relay printed twice, both moved up a row, the second left alone; the
// move found may be the second one's, over the first). A move found for
// text committed for that one line only is that line's own, and the lines
// that were above it are above it still: an older block's rows lower down
// (the collapsed output held several blocks) did not move into this row.
// released is the top row of that redraw (noRedraw: the line is not one
// of a redraw).
func (m *mainLines) crossed(from, to int64, text string, released int) {
	if released < 0 || from <= to {
		return
	}
	// sure: the move found is the moved line's own.
	sure := !m.recordOf(text)
	for r := released; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		n, st := m.lineN(start), m.state(start)
		// A row held only as the live area cut above may be (same) shows
		// its record as any row left so does.
		if n <= to || n >= from || st.pending && !st.same || !st.hasRec {
			continue
		}
		shown := m.lineText(start, end)
		if shown != st.rec || shown == text || !sure && m.recordBetween(r, from, shown) {
			continue
		}
		st.rec, st.hasRec = "", false
		st.pending, st.ptext, st.same = true, shown, false
	}
}

// recordOf reports whether a row of the screen, or a line replaced lately,
// had text committed for it.
func (m *mainLines) recordOf(text string) bool {
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		if st := m.state(start); st.hasRec && st.rec == text {
			return true
		}
	}
	for _, g := range m.ghosts {
		if g.text == text {
			return true
		}
	}
	return false
}

// recordBetween reports whether a line from row y on, above position
// from, had text committed for it.
func (m *mainLines) recordBetween(y int, from int64, text string) bool {
	for r := y; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		if m.lineN(start) >= from {
			break
		}
		if st := m.state(start); st.hasRec && st.rec == text {
			return true
		}
	}
	return false
}

func sign(x int64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// maxRewrapGap is how many lines later the next piece of a paragraph drawn
// anew may come: the pieces of one redraw come one after the other.
const maxRewrapGap = 2

// rewrapState is where the last piece of a paragraph drawn anew ended.
type rewrapState struct {
	next   string  // the paragraph's text (keys) after that piece
	at     int64   // mainLines.processed when it was taken
	pieces []ghost // scratch: the lines searched, in that order
	starts []int   // scratch: where each line starts in the text searched
	from   []int64 // scratch: each of those lines' position
}

// moved reports whether text is a committed line that left its position in
// the current redraw: a ghost replaced within the last two screenfuls of
// lines (near where it would show now; not one written on where it
// stands), or a line whose position no longer shows it, not even written
// on (a row a resize took off among them: unresized); from is where it
// was. The old position
// gives up its record.
func (m *mainLines) moved(self *rowState, text string, n int64, released int) (from int64, ok bool) {
	horizon := int64(2 * m.rows)
	for len(m.ghosts) > 0 && m.processed-m.ghosts[0].at > horizon {
		m.ghosts = m.ghosts[1:]
	}
	// Text as short as "}" or "[[/RELAY]]" occurs anywhere: right after a
	// new line it is more of the new output, not a line that replaced text
	// moments ago.
	short := m.lastNew && !hasKeyOf(text, minRewrap)
	for i := len(m.ghosts) - 1; i >= 0; i-- {
		g := m.ghosts[i]
		if g.text == text && !g.stays && !short && g.near(n) && m.inOrder(g.pos(), n) && !m.pastTurns(g.pos(), n) && !m.leftEcho(text, g.pos(), n) {
			m.ghosts = append(m.ghosts[:i], m.ghosts[i+1:]...)
			m.moveTo(g.pos(), n)
			return g.n, true
		}
	}
	for r := 0; r < m.rows; r++ {
		st := m.state(r)
		if st == self || !st.hasRec || st.rec != text {
			continue
		}
		start, end := m.span(r)
		if start != r {
			// A stale record: the row became part of a wrapped line.
			st.rec, st.hasRec = "", false
			continue
		}
		if from := m.lineN(r); !writtenOn(m.lineText(start, end), text) && m.inOrder(from, n) && !m.leftEcho(text, from, n) {
			st.rec, st.hasRec = "", false
			m.moveTo(from, n)
			m.crossed(from, n, text, released)
			return from, true
		}
	}
	// The rows a resize took off are rows of the screen too (unresized),
	// and a line that moved from one crossed the rows between as from a
	// row on the screen.
	if from, ok := m.unresized.erasedFrom(text, n, func(from, to int64) bool { return m.inOrder(from, to) && !m.leftEcho(text, from, to) }); ok {
		m.moveTo(from, n)
		m.crossed(from, n, text, released)
		return from, true
	}
	return 0, false
}

// pastTurns reports whether a line at position from would have moved down
// to position to past two turns: the screen shows two echoes of lines
// typed between them. A transcript grows at its end, and what shows under
// a turn is its output; only the echo of the command whose output the line
// is, printed late over the line's place, pushes it down past one (Claude
// Code inline printed a file again after a resize: its block's "to" and
// "type" rows were taken for those of a block it had collapsed above them,
// past the echoes of the two commands typed since, and the block was read
// without them).
func (m *mainLines) pastTurns(from, to int64) bool {
	if to <= from+2 {
		return false
	}
	echoes := 0
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		if n := m.lineN(start); n <= from || n >= to {
			continue
		}
		text := m.lineText(start, end)
		if e, ok := m.layout.EchoStart(text); ok && strings.TrimSpace(text[len(e.Start):]) != "" {
			if echoes++; echoes == 2 {
				return true
			}
		}
	}
	return false
}

// leftEcho reports whether text, a line committed before the echo of the
// command typed last, at position from above that echo, would have moved
// down to position to while the echo left the screen: its line is on the
// screen, and no row shows it. Lines keep their order as a program draws
// them again, and a transcript grows at its end: lines drawn lower would
// have pushed the echo under them lower too. The echo is gone because the
// program draws the live area under it cut above, from the screen's top
// (Claude Code inline, once a command's output makes that area taller
// than the screen, draws its last rows over the rows there, writing only
// the cells that differ): the rows under the echo's place are that
// command's output, though a file printed again shows the rows an older
// print showed a few rows higher (they were taken for those rows moved
// down past the echo's place, and a relay printed again was not read).
// A line of that output, committed since the echo, does move down as the
// area shrinks (its last rows drawn from the top again).
func (m *mainLines) leftEcho(text string, from, to int64) bool {
	if m.echoCmd == "" || to <= from || from >= m.echoN || m.echoN < m.base || m.echoN >= m.base+int64(m.rows) {
		return false
	}
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		row := m.lineText(start, end)
		if e, ok := m.layout.EchoStart(row); ok {
			cmd := strings.TrimSpace(row[len(e.Start):])
			if cmd != "" && (strings.HasPrefix(cmd, m.echoCmd) || strings.HasPrefix(m.echoCmd, cmd)) {
				return false
			}
		}
	}
	return !m.replay.sinceEcho(text)
}

// countRow reports whether text is the row of a box of a command's output
// that says how many of the output's first rows it does not show
// (Layout.HiddenAbove). It is never a line moved, nor a piece of one
// wrapped anew: each box at work counts up through the same rows ("…
// first 2 lines hidden"), and the same text replaced a moment ago in the
// box above is that box's, not this one's. Taken for it, the row is not
// committed, and the reader, who maps the box's rows to the output's by
// it, counts them from the count before: a command the box showed went
// out again, read at another row (holdout-20261128s gemini-s14700002).
// Committed again where the box was only drawn lower, it says where the
// box's rows are now.
func (m *mainLines) countRow(text string) bool {
	_, ok := m.layout.HiddenAbove(text)
	return ok
}

// newDoneBox reports whether text, a line at n, is a row of a box of a
// command done (inDoneBox) whose head row was read since the program last
// cleared the screen: the box printed done for the first time. It
// repeats no line of the transcript written again after that clear
// (replay), though its rows say what rows read before said — the box at
// work's, at another width: Gemini CLI, resized, writes its transcript
// again and the box at work in it, then prints the box done, and a block
// the box at work never showed whole in one drawing was read nowhere
// (holdout-20261128s gemini-s14700020). A done box the program writes
// again with the transcript has its head row repeat one, not read anew.
func (m *mainLines) newDoneBox(text string, n int64) bool {
	return m.doneEpoch == m.replay.epoch && m.inDoneBox(text, n)
}

// inDoneBox reports whether text, a line at n, is a row of the box of a
// command done whose head row was read last, the screen showing that
// head row and box rows down to n. The program prints that box afresh
// in the place of the box at work (Gemini CLI: the output's first rows
// the box at work had slid out of view shown again, "… first N lines
// hidden" counting fewer): a row of it is the row the box shows there,
// not a row of the box at work moved down, though that box showed the
// same text a row or a few higher a moment before. Which row of the
// output each one is, the reader tells by the box's hidden count.
func (m *mainLines) inDoneBox(text string, n int64) bool {
	if m.doneBox < 0 || n <= m.doneBox || !m.layout.HasToolBoxes() {
		return false
	}
	if inside, _ := screenmodel.BoxRow(text); !inside {
		return false
	}
	head, row := m.doneBox-m.base, n-m.base
	if row < 0 || row >= int64(m.rows) {
		return false
	}
	// The head row may have scrolled off the top, the box's rows going on
	// from there.
	if head >= 0 {
		if _, running, ok := m.layout.ToolBox(m.lineText(m.span(int(head)))); !ok || running {
			return false
		}
	}
	for r := int(max(head+1, 0)); r < int(row); r++ {
		if inside, _ := screenmodel.BoxRow(m.lineText(m.span(r))); !inside {
			return false
		}
	}
	return true
}

// cursorAfter handles the cursor's move from row r0 (where the row it was
// on is after the token; -1 when that row is gone) to row y1; lf says the
// token was a line feed.
func (m *mainLines) cursorAfter(r0, y1 int, lf bool, out lineSink) {
	if r0 < 0 || r0 >= m.rows {
		return
	}
	start, end := m.span(r0)
	switch {
	case y1 < r0:
		m.upTo(y1)
	case y1 > r0:
		m.downward(out)
		if y1 > end {
			m.leave(start, end, lf, out)
		}
	}
}

// leave: the cursor left the line on rows [start, end] downwards. A blank
// line counts only when a line feed left it: a cursor jump from an empty
// row is not output.
func (m *mainLines) leave(start, end int, lf bool, out lineSink) {
	text := m.lineText(start, end)
	if text == "" && !lf {
		return
	}
	st := m.state(start)
	if m.zone >= 0 && end >= m.zone {
		if m.oldFrame {
			st.pending, st.ptext, st.same = false, "", false // drawn for the old width
			return
		}
		same := st.hasRec && st.rec == text
		if same && !m.replay.drawsTail() {
			st.pending, st.ptext, st.same = false, "", false
			return
		}
		st.pending, st.ptext, st.same = true, text, same
		return
	}
	m.commit(st, text, m.lineN(start), endsOf(m.rowEnds, text), noRedraw, out)
}

// upTo: the cursor went up to row y. A trip up (Ink erasing its frame line
// by line) may take several moves; the zone starts at the first and ends
// at the highest row reached.
func (m *mainLines) upTo(y int) {
	if !m.goingUp {
		m.lastZone = m.zone
		m.frameEnds()
	}
	if !m.goingUp || y < m.zone {
		m.zone = y
	}
	m.goingUp, m.downLater = true, false
}

// synced follows the start (on) and the end of a synchronized update: a
// move down the update made after its last move up ends the trip up at
// the update's end, holding back what it held (see downward).
func (m *mainLines) synced(on bool) {
	m.syncing = on
	if !on {
		m.frame.on = false
		m.passed() // the frame is drawn: what it left on the screen was shown
		m.reprint = false
	}
	if !on && m.downLater {
		m.downLater, m.goingUp = false, false
	}
}

// frameBegins notes what the screen shows as a synchronized update
// begins, for slid: also while no line is held back (output settled
// between two frames), so that the records of lines read go along with
// them.
func (m *mainLines) frameBegins() {
	f := &m.frame
	f.on, f.moved = false, false
	if !m.layout.HasElision() {
		return
	}
	f.on = true
	f.rows, f.held, f.read = m.frameRows(f.rows[:0]), f.held[:0], f.read[:0]
	for y := range m.rows {
		st := &m.shadow[y]
		f.held = append(f.held, f.rows[y] != "" && st.pending)
		f.read = append(f.read, f.rows[y] != "" && st.hasRec && st.rec == f.rows[y])
	}
}

// frameRows appends the text of each row to rows: "" for a row of a line
// the terminal wrapped over rows.
func (m *mainLines) frameRows(rows []string) []string {
	for y := range m.rows {
		if m.wrappedRow(y) || y > 0 && m.wrappedRow(y-1) || y == m.top && m.carryOn {
			rows = append(rows, "")
			continue
		}
		m.lineBuf = appendText(m.lineBuf[:0], m.em.Line(y), m.cols)
		rows = append(rows, strings.TrimRight(string(m.lineBuf), " "))
	}
	return rows
}

// minSlide is how many rows with text must have moved up by the same
// number of rows for a frame to be taken as the view slid.
const minSlide = 2

// slid commits, as a synchronized update ends, the lines that it slid out
// of the program's view of a running command's output. Codex inline shows
// a long output's first rows, "… +N lines", then its latest rows, and
// draws each frame by writing only the cells that changed: as output
// comes, the latest rows move up by redrawing, and those that reach the
// "… +N lines" row leave the view. Its finished output leaves them out
// too (only the first and the last rows again): a reader saw them scroll
// by, and they are the program's output. The rows whose text moved up by
// the same number of rows (at least minSlide of them) under a row that
// elides (screenmodel.Layout.Elides) tell such a slide; the lines that
// were held back on the rows above those rows' new places, and that the
// frame does not show there still, are committed, in their order, numbered on from the last line
// that slid out so that a command wrapped over rows reads as one. A frame
// that also moved rows (an insertion, a scroll, an erase of the display)
// is no such slide.
func (m *mainLines) slid(out lineSink) {
	f := &m.frame
	if !f.on || f.moved || len(f.rows) != m.rows {
		// Scrolled, erased or laid out anew: the program prints the
		// output whole after such a frame (tallView).
		m.leftTop, m.leftLost = m.leftTop[:0], false
		return
	}
	before := f.rows
	now := m.frameRows(f.now[:0])
	f.now = now
	a := 0
	for a < m.rows && now[a] == before[a] {
		a++
	}
	if a == m.rows {
		return
	}
	e := max(a-1, 0)
	for e < m.rows && !m.layout.Elides(now[e]) {
		e++
	}
	from := e // the first row that may have slid out
	tall := e == m.rows
	if tall {
		if !m.tallView(before, now) {
			return
		}
		e, from = 0, 1
	} else {
		m.leftTop, m.leftLost = m.leftTop[:0], false
	}
	best, most := m.shift(e+1, m.rows, 1)
	if most < minSlide {
		return
	}
	q := e + 1
	for now[q] == "" || now[q] != before[q+best] {
		q++
	}
	// Rows above the elision moved too when the output is taller than the
	// view (the program shows its bottom rows): the view slid as a whole,
	// its top row and the command's first rows went up out of it, and they
	// show again when the program prints the output whole. They did not
	// slide out under the elision.
	head, _ := m.shift(0, e, 0)
	// The output's first rows, above the elision, come before the rows
	// that slid out under it: they stay as they are and are committed now.
	for r := 0; r < e; {
		start, end := m.span(r)
		if st := m.state(start); st.pending && end < e {
			m.commitPending(start, end, st, noRedraw, out)
		}
		r = end + 1
	}
	for y := max(a, from+head); y < q+best; y++ {
		text := before[y]
		if text == "" {
			// A blank row slid out between two rows of text: a reader
			// sees two paragraphs, so the row under it takes a number
			// past it and does not go on the line above.
			m.slidN = max(m.base+int64(y), m.slidN+1)
			m.commitLeftTop(out)
			continue
		}
		if !f.held[y] || m.layout.Elides(text) || y < q && now[y] == text {
			continue
		}
		if f.read[y] {
			// Committed as output settled, while it showed here: read
			// once, it leaves now.
			continue
		}
		n := max(m.base+int64(y), m.slidN+1)
		m.slidN = n
		if tall {
			m.leftTop = append(m.leftTop, topRow{text, n})
			if len(m.leftTop) > maxLeftTop {
				m.leftTop, m.leftLost = m.leftTop[:0], true
			}
			continue
		}
		var st rowState
		m.commit(&st, text, n, lineEnds{}, noRedraw, out)
	}
	// The two moves share shadow, and that is right: the first clears the
	// records of rows (up to e-1+head) whose lines moved over the elision,
	// the second takes records from rows e+1+best and lower, so they meet
	// only when head ≥ best+2. A real slide never gives that: the lines
	// over the elision come before the ones under it, so they moved up at
	// most one row further (head ≤ best+1). Only text repeated on two
	// rows misleads the shifts so; the row under the elision then takes a
	// cleared record, not that of the line shown over the elision: its
	// line reads as not read and is committed when it slides out.
	m.slideRecords(0, e, head)
	m.slideRecords(e+1, m.rows, best)
}

// A topRow is a row that left at the top of a view taller than the
// screen, its text and the position it takes.
type topRow struct {
	text string
	n    int64
}

// maxLeftTop bounds the rows of one paragraph held as they leave at the
// top of a view taller than the screen (a long output with no blank
// line): past it they are let go, and the paragraph is not read there.
const maxLeftTop = 256

// commitLeftTop commits the rows held in leftTop, in order, as a blank row
// under them leaves at the top of a view taller than the screen: their
// paragraph has left whole. A paragraph that has not (its first rows
// gone, the rest still shown) is shown whole only where the program
// prints the output whole (tallView): read in part as it left, a line
// over two rows, or a block, would be read cut short, and then again
// whole. One whose rows were let go is not read there at all, nor one
// leaving while the screen was resized: laid out anew at the new width,
// rows of it went unseen, and the rest read cut short (a relay read as
// its first rows only).
func (m *mainLines) commitLeftTop(out lineSink) {
	if !m.leftLost && !m.leftResized {
		for _, r := range m.leftTop {
			var st rowState
			m.commit(&st, r.text, r.n, lineEnds{}, noRedraw, out)
		}
	}
	m.leftTop, m.leftLost, m.leftResized = m.leftTop[:0], false, false
}

// leftWhole commits the paragraph held in leftTop when the lines a
// resize takes off the top of the screen (texts, from the top row down,
// starting on rows starts) hold the rest of it and the blank row under
// that: the view's blank top row, the rows that go on from the rows held,
// then a blank row. Those rows leave as they were shown, at the old
// width, whole: the paragraph left whole, seen row by row, as it does
// when that blank row slides out. Its rest is committed with the rows
// held, numbered on from them so that a command wrapped over the rows
// reads as one, and recorded where it leaves from, so that the resize
// does not commit it again. Where the rest stays on the screen, the
// program lays it out anew for the new width and rows of it go unseen:
// the paragraph is left to where the output is printed whole
// (leftResized).
func (m *mainLines) leftWhole(starts []int, texts []string, out lineSink) {
	if len(texts) < 2 || texts[0] != "" {
		return
	}
	end := slices.Index(texts[1:], "") + 1
	if end == 0 || m.leftResized || m.leftLost {
		return
	}
	for i := 1; i < end; i++ {
		m.slidN++
		m.leftTop = append(m.leftTop, topRow{texts[i], m.slidN})
		st := m.state(starts[i])
		st.rec, st.hasRec, st.offered, st.faint = texts[i], true, m.replay.epoch, false
	}
	m.commitLeftTop(out)
}

// tallView reports whether the frame from before to now is one of a
// running command's view taller than the screen, showing its bottom rows
// under the live area's blank top row, with no row that elides in view:
// the rows that leave at the top are gone from the screen. Codex inline
// prints such an output whole after clearing the screen and the
// scrollback, the transcript again (the replay rule): rows read as they
// left show there again in their order and are taken as read; those its
// middle leaves out ("… +N lines", above the screen while they showed)
// were shown only here.
func (m *mainLines) tallView(before, now []string) bool {
	if before[0] != "" || now[0] != "" {
		return false
	}
	for y := range m.rows {
		if m.layout.Elides(before[y]) || m.layout.Elides(now[y]) {
			return false
		}
	}
	return true
}

// shift returns by how many rows (from least up) the frame moved the rows
// with text from row from to row to up, most of them: the rows that show
// now what the row that many rows lower showed as the frame began (rows
// that show what they showed count only for a shift of none), and how
// many rows moved so.
func (m *mainLines) shift(from, to, least int) (k, n int) {
	f := &m.frame
	for s := least; from+s < m.rows; s++ {
		c := 0
		for y := from; y < to && y+s < m.rows; y++ {
			if f.now[y] != "" && f.now[y] == f.rows[y+s] && (s == 0 || f.now[y] != f.rows[y]) {
				c++
			}
		}
		if c > n {
			k, n = s, c
		}
	}
	return k, n
}

// slideRecords moves the records of the lines the frame slid up by k rows
// (rows from to to) along with them: a row that shows the text committed
// for its line before the slide shows it k rows higher now, where a later
// frame finds it read (frameStart.read) when it slides out. A row one
// left keeps no record when it shows other text now.
func (m *mainLines) slideRecords(from, to, k int) {
	if k == 0 {
		return
	}
	f := &m.frame
	took := f.took[:0]
	for y := range m.rows {
		took = append(took, y >= from && y < to && y+k < m.rows && f.now[y] != "" && f.now[y] == f.rows[y+k] && f.read[y+k])
	}
	f.took = took
	for y := from; y < to && y+k < m.rows; y++ {
		if took[y] {
			dst, src := &m.shadow[y], &m.shadow[y+k]
			dst.rec, dst.hasRec, dst.offered, dst.faint = src.rec, true, src.offered, false
		}
	}
	for y := from; y < to && y+k < m.rows; y++ {
		if took[y] && !took[y+k] && f.now[y+k] != f.rows[y+k] {
			m.shadow[y+k].rec, m.shadow[y+k].hasRec = "", false
		}
	}
}

// downward: the cursor moved down, ending a trip up. Lines held back above
// the zone are out of the redraw now and are committed.
//
// Not inside a synchronized update: a program that draws its frames so
// draws only the cells that changed, from the top down (ratatui: Codex
// inline), so a frame that starts below a line says nothing about it: it
// is still the program's live area, as it was (the latest rows of a
// running command, which the program prints whole once it is done). Lines
// held back stay so until output settles, they scroll off, or they are
// erased. Nor does the update's first move down end its trip up: Codex
// erases the ends of rows that got shorter from the top down, then draws
// the rows that changed from the top down.
func (m *mainLines) downward(out lineSink) {
	if !m.goingUp {
		return
	}
	if m.syncing {
		m.downLater = true
		return
	}
	m.goingUp = false
	// Their redraw began where the trip before this one went up to.
	for r := 0; r < m.zone; {
		start, end := m.span(r)
		if st := m.state(start); st.pending && end < m.zone {
			m.commitPending(start, end, st, m.lastZone, out)
		}
		r = end + 1
	}
}

// heldZone returns the top row of the redraws whose lines are held back
// (the trip up going now, and the one before it when no move down
// released it since), -1 when there is none: what settle commits, and
// a reflow too, of the lines that leave.
func (m *mainLines) heldZone() int {
	if m.zone >= 0 && m.lastZone >= 0 {
		return min(m.zone, m.lastZone)
	}
	return m.zone
}

// commitPending commits a held-back line with the text it shows now,
// unless it was erased since; released is as for commit.
func (m *mainLines) commitPending(start, end int, st *rowState, released int, out lineSink) {
	text := m.lineText(start, end)
	if text == "" && st.ptext != "" {
		st.pending, st.ptext, st.same = false, "", false
		return
	}
	if st.same {
		m.knowTail()
		if !m.replay.liveTail() && st.rec == text {
			// The drawing is no live area: the row shows what was
			// committed for it, as any row left so (leave).
			st.pending, st.ptext, st.same = false, "", false
			return
		}
	}
	m.commit(st, text, m.lineN(start), lineEnds{}, released, out)
}

// settle commits the held-back lines and, when final, every other line
// whose text is not committed, and closes the redraw zone; output settling
// (not final) also ends a replay. The lines of the program's input box,
// where the cursor rests now, are what is being typed: they are not
// committed.
func (m *mainLines) settle(final bool, out lineSink) {
	top, bottom, box := m.inputBox(m.em.CursorPosition().Y)
	m.typedFrom, m.typedTo = 0, -1
	if box {
		m.typedFrom, m.typedTo = m.base+int64(top), m.base+int64(bottom)
	}
	var previews []previewRow
	if m.layout.HasPreviews() {
		if !m.layout.HasInputBox() {
			m.mainRows()
		}
		previews = previewRows(m.layout, m.boxRows, m.previews)
		m.previews = previews
	}
	released := m.heldZone()
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		st := m.state(start)
		switch {
		case box && end >= top && start <= bottom:
			// Taken as seen, so that the cursor leaving it later, or the
			// box moving down a row, commits nothing either.
			st.pending, st.ptext, st.same = false, "", false
			st.rec, st.hasRec = m.lineText(start, end), true
		case previews != nil && previews[start] == previewRunning && !final:
			// A running command's latest rows: its output is read where
			// the program prints it whole (see previewRows).
			st.pending, st.ptext, st.same = false, "", false
		case st.pending:
			m.commitPending(start, end, st, released, out)
		case final:
			if text := m.lineText(start, end); text != "" {
				m.commit(st, text, m.lineN(start), lineEnds{}, released, out)
			}
		}
		r = end + 1
	}
	m.zone, m.lastZone, m.goingUp = -1, -1, false
	// Output paused: a program that has not taken a resize in yet draws
	// its next frame at once.
	m.frameEnds()
	m.oldWidth = false
	m.passed() // output paused: what is on the screen was shown
	if !final {
		m.replay.end()
	}
}

// harvest collects the rows x/vt pushed into its scrollback and returns how
// many scrolled off (rather than being erased).
func (m *mainLines) harvest(out lineSink) int {
	sb := m.em.Scrollback()
	n := sb.Len()
	if n == 0 {
		return 0
	}
	if m.erasing {
		for _, l := range sb.Lines() {
			m.lineBuf = appendText(m.lineBuf[:0], l, m.cols)
			out.keep(l, string(m.lineBuf), true, nil)
		}
		n = 0
	} else {
		m.scrolled(sb.Lines(), out)
	}
	sb.Clear()
	return n
}

// keep adds a row to the scrollback the UI shows; text is its plain text
// (appendText of the row), which the caller has at hand (lineSink).
func (s *Screen) keep(l uv.Line, text string, erased bool, st *rowState) {
	if s.hist.max <= 0 {
		return
	}
	s.hist.push(s.histRow(l, text, s.cols, &s.hist.pal))
	s.own = min(s.own+1, s.hist.len())
	if erased {
		s.pullable = 0
		s.left = s.left[:0]
		return
	}
	s.pullable = min(s.pullable+1, s.hist.len())
	r := leftRow{}
	if st != nil {
		r = leftRow{st: *st, known: true}
	}
	s.left = append(s.left, r)
	if n := min(s.pullable, maxLeftRows); len(s.left) > n {
		s.left = append(s.left[:0], s.left[len(s.left)-n:]...)
	}
}

// leftRow is the state of a row's line as the row left the top of the
// main screen (lineSink.keep); known is false when it was not kept.
type leftRow struct {
	st    rowState
	known bool
}

// maxLeftRows is how many rows' states Screen.left keeps: the rows a
// taller screen takes back are at most a screenful, and older ones come
// back with states read from their text.
const maxLeftRows = 256

// dropLeft forgets the states of the newest n rows of the scrollback,
// which are no longer the rows that left (taken back, or rewrapped).
func (s *Screen) dropLeft(n int) {
	s.left = s.left[:max(len(s.left)-n, 0)]
}

// clearHistory empties the scrollback the UI shows (lineSink).
func (s *Screen) clearHistory() {
	s.hist.clear()
	s.own = 0
	s.left = s.left[:0]
}

// histRow is a row of cols cells as the scrollback keeps it, its styles
// numbered in pal (rowPacker).
func (s *Screen) histRow(l uv.Line, text string, cols int, pal *palette) histLine {
	wrapped, pad := lineWrap(l, cols)
	h := histLine{text: text, wrapped: wrapped, pad: pad,
		cols: uint16(cols), end: uint16(rowEnd(l, cols))}
	runs, shown, ok := rowStyles(s.runBuf[:0], l, cols, pal)
	s.runBuf = runs
	switch {
	case !ok:
		s.rowBuf = appendRow(s.rowBuf[:0], l, cols)
		h.styled = string(s.rowBuf)
	case len(runs) > 0:
		h.runs, h.shown = runs, uint32(shown) // packed as it is pushed
	}
	return h
}

// scrolled handles rows that scrolled off the top of the region: each is
// the end of its logical line (committed now if it has not been with this
// text) or, when wrapped, the start of one that goes on below.
func (m *mainLines) scrolled(lines []uv.Line, out lineSink) {
	m.scrolling = true
	defer func() { m.scrolling = false }()
	top, bot := m.top, min(m.bot, m.rows)
	h := max(bot-top, 0)
	k := len(lines)
	det := m.detached[:0]
	old := m.olds[:0]
	for j := range k {
		if j < h {
			det = append(det, m.shadow[top+j])
			old = append(old, m.drawnOld(top+j))
		} else {
			det = append(det, rowState{})
			old = append(old, m.oldFrame)
		}
	}
	m.olds = old
	m.detached = det
	m.shiftUp(top, bot, min(k, h))
	// The rows under them are k rows up already: base counts all k gone
	// before any of them is committed, so that a row still on the screen
	// has its own position (lineN) while they are — the line scrolling off
	// may have moved from there (moved) — and theirs are counted here.
	first := m.base + int64(top)
	m.base += int64(k)
	for j, l := range lines {
		n := first + int64(j)
		wrapped, _ := lineWrap(l, m.cols)
		st := det[j]
		if m.carryOn {
			st = m.carryState
		}
		// The row's text, kept in the scrollback: most often a piece of
		// the text committed for its line already, shared rather than
		// copied (the line is whole on the screen when it ends, and
		// scrolls off after). A batch checked it already.
		from := 0
		if m.carryOn {
			from = len(m.carry)
		}
		var row string
		if j < len(m.pieces) && m.pieces[j] >= 0 {
			row = st.rec[from : from+m.pieces[j]]
		} else if w, ok := m.knownRow(&st, from, n-int64(top)); ok {
			row = st.rec[from : from+w]
		} else {
			m.lineBuf = appendText(m.lineBuf[:0], l, m.cols)
			row = sharedText(st, from, m.lineBuf)
		}
		switch {
		case wrapped:
			if !m.carryOn {
				m.carryOn, m.carryN, m.carry = true, n, m.carry[:0]
			}
			m.carryState = st
			m.carry = capLine(append(m.carry, row...))
			m.carryOld = m.carryOld || old[j]
		case m.carryOn:
			m.carry = capLine(append(m.carry, row...))
			// The line ends here: blanks at the end of the rows it wrapped
			// from, with nothing but blanks after them, are its end too,
			// as on the screen (lineBytes).
			text, n, drawnOld := sharedText(st, 0, bytes.TrimRight(m.carry, " ")), m.carryN, m.carryOld || old[j]
			m.dropCarry()
			if !drawnOld {
				m.final(&st, text, n, noRedraw, out)
			}
		case !old[j]:
			m.final(&st, row, n, noRedraw, out)
		}
		if m.carryOn {
			out.keep(l, row, false, &m.carryState)
		} else {
			out.keep(l, row, false, &st)
		}
	}
}

// knownRow returns the length of the row of st's line whose text starts
// at byte from of it, when the row shows what was committed for it: while
// only line feeds have gone by since every row on the screen came in (see
// risk: base was gone when the row scrolled off), and where its rows
// ended is known.
func (m *mainLines) knownRow(st *rowState, from int, gone int64) (int, bool) {
	e := &st.ends
	if gone < m.riskUntil || !st.hasRec || e.n == 0 || int(e.at[e.n-1]) != len(st.rec) {
		return 0, false
	}
	prev := 0
	for _, end := range e.at[:e.n] {
		if prev == from {
			return int(end) - prev, true
		}
		prev = int(end)
	}
	return 0, false
}

// sharedText returns text as a string: the piece of the text committed for
// st at byte from when that is what it is, else a copy.
func sharedText(st rowState, from int, text []byte) string {
	if st.hasRec && from+len(text) <= len(st.rec) && st.rec[from:from+len(text)] == string(text) {
		return st.rec[from : from+len(text)]
	}
	return string(text)
}

// final commits a line that left the screen, unless it is blank and was
// never written as a blank line. A blank line whose committed text was
// erased leaves that text as a ghost: if it turns up elsewhere soon, the
// line moved (as when a line is replaced in place), whether the erased
// row is still on the screen or has left it (a shorter screen pushes it
// off before a line held back below it is committed).
func (m *mainLines) final(st *rowState, text string, n int64, released int, out lineSink) {
	if text == "" && !(st.pending && st.ptext == "") {
		if st.hasRec && st.rec != "" {
			m.addGhost(ghost{text: st.rec, at: m.processed, n: n})
			st.rec, st.hasRec, st.faint = "", false, false
		}
		return
	}
	m.commit(st, text, n, lineEnds{}, released, out)
}

// erasesRow reports whether the token, with the cursor at column x,
// erases the cursor's row whole and leaves its rows in place: EL 2, or EL
// or ED 0 from its first column (ED 0 erases the rows under it too; a
// program clears its view so, from the top left, and draws anew: the
// first row it draws is no more of the line that went on from the
// scrollback). ED 2 ends the carry itself (rowOp).
func erasesRow(t *token, x int) bool {
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return false
	}
	p := t.param(0, 0)
	switch t.cmd.Final() {
	case 'K':
		return p == 2 || p == 0 && x == 0
	case 'J':
		return p == 0 && x == 0
	}
	return false
}

// carryErased ends the line carried at the top when the program erased
// that row whole: the row no longer goes on with the line, whose start a
// reader still sees above it in the scrollback, and what the program
// writes there next is a line of its own, not more of that one (Claude
// Code, after a resize, erases its rows from the top down and draws its
// transcript again: its banner was read as the end of a relay line cut
// where the new width wrapped it). What is left of the line is committed
// as it shows, unless it is the start of what was committed for it: a
// line cut short is not a new line.
func (m *mainLines) carryErased(out lineSink) {
	text := string(bytes.TrimRight(m.carry, " "))
	st, n, drawnOld := m.carryState, m.carryN, m.carryOld
	m.dropCarry()
	if m.top < len(m.shadow) {
		m.shadow[m.top] = rowState{}
		// The top row showed the rest of the line committed whole: it
		// keeps that rest as its record, so the program drawing its view
		// again after the clear, the same rest on the same row, repaints
		// it and writes no new line.
		if st.hasRec && !st.pending && text != "" && strings.HasPrefix(st.rec, text) {
			if rest := strings.TrimLeft(st.rec[len(text):], " "); rest != "" {
				m.shadow[m.top] = rowState{rec: rest, hasRec: true}
			}
		}
	}
	if !drawnOld && (st.pending || !st.hasRec || !strings.HasPrefix(st.rec, text)) {
		m.final(&st, text, n, noRedraw, out)
	}
}

func (m *mainLines) dropCarry() {
	m.carryOn, m.carryOld = false, false
	m.carry = m.carry[:0]
	m.carryState = rowState{}
}

func (m *mainLines) clearPending() {
	for i := range m.shadow {
		m.shadow[i].pending, m.shadow[i].ptext, m.shadow[i].same = false, "", false
	}
}

// shiftUp moves rows [a+n, b) up to a; rows [a, a+n) are gone.
func (m *mainLines) shiftUp(a, b, n int) {
	if n <= 0 || a >= b {
		return
	}
	copy(m.shadow[a:b], m.shadow[a+n:b])
	clear(m.shadow[b-n : b])
	if m.zone >= a && m.zone < b {
		m.zone = max(a, m.zone-n)
	}
}

// shiftDown moves rows [a, b-n) down by n; rows pushed past b are gone.
func (m *mainLines) shiftDown(a, b, n int) {
	if n <= 0 || a >= b {
		return
	}
	copy(m.shadow[a+n:b], m.shadow[a:b-n])
	clear(m.shadow[a : a+n])
	if m.zone >= a && m.zone < b {
		m.zone = min(b-1, m.zone+n)
	}
}

// blankRows reports whether rows [a, b) show nothing.
func (m *mainLines) blankRows(a, b int) bool {
	for y := a; y < b; y++ {
		for x := range m.cols {
			if c := m.em.CellAt(x, y); c != nil && !plainBlank(c) {
				return false
			}
		}
	}
	return true
}

type opKind uint8

const (
	opNone    opKind = iota
	opDown           // rows [a, b) move down by n
	opUpDrop         // rows [a, a+n) deleted, [a+n, b) move up
	opErase          // the display is erased (x/vt pushes it to its scrollback)
	opErase3         // display and scrollback erased
	opReset          // full reset
	opMargins        // scroll region becomes [a, b)
)

// rowOp is how a structural token moves rows without scrolling them off
// (scrolling off is seen in x/vt's scrollback). It mirrors x/vt.
type rowOp struct {
	kind    opKind
	a, b, n int
}

func (m *mainLines) rowOp(t *token, y int) rowOp {
	top, bot := m.top, min(m.bot, m.rows)
	switch t.kind {
	case tokControl:
		if t.ctrl == 0x8d && y == top { // RI
			return rowOp{kind: opDown, a: top, b: bot, n: 1}
		}
	case tokESC:
		switch t.cmd {
		case 'M':
			if y == top {
				return rowOp{kind: opDown, a: top, b: bot, n: 1}
			}
		case 'c':
			return rowOp{kind: opReset}
		}
	case tokCSI:
		if t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
			return rowOp{}
		}
		switch t.cmd.Final() {
		case 'T': // SD
			if n := t.param(0, 1); n > 0 && bot > top {
				return rowOp{kind: opDown, a: top, b: bot, n: min(n, bot-top)}
			}
		case 'L': // IL
			if n := t.param(0, 1); n > 0 && y >= top && y < bot {
				return rowOp{kind: opDown, a: y, b: bot, n: min(n, bot-y)}
			}
		case 'M': // DL; at the top of the region x/vt pushes the rows out
			if n := t.param(0, 1); n > 0 && y > top && y < bot {
				return rowOp{kind: opUpDrop, a: y, b: bot, n: min(n, bot-y)}
			}
		case 'J':
			switch t.param(0, 0) {
			case 2:
				return rowOp{kind: opErase}
			case 3:
				return rowOp{kind: opErase3}
			}
		case 'r': // DECSTBM, as x/vt validates it once clampMargins has
			// brought its bottom onto the screen
			a := max(t.param(0, 1), 1)
			b := t.param(1, m.rows)
			if b < 1 || b > m.rows {
				b = m.rows
			}
			if a < b {
				return rowOp{kind: opMargins, a: a - 1, b: b}
			}
		}
	}
	return rowOp{}
}

// token feeds a structural token to the main emulator and follows what it
// did to the rows and the cursor: t is the token the front parser
// completed, tb what the emulator is fed for it (a batch of line feeds:
// batchedLineFeed).
func (m *mainLines) token(t *token, tb []byte, out lineSink) {
	if on, ok := syncToggle(t); ok {
		_, _ = m.em.Write(tb)
		if on {
			m.frameBegins()
		} else {
			m.slid(out)
		}
		m.synced(on)
		return
	}
	pos := m.em.CursorPosition()
	top, bot := m.top, min(m.bot, m.rows)
	op := m.rowOp(t, pos.Y)
	m.erasing = op.kind == opErase
	erasesCarry := m.carryOn && pos.Y == m.top && erasesRow(t, pos.X)
	_, _ = m.em.Write(tb)
	if m.watchesMoves() && movesRight(t) {
		if now := m.em.CursorPosition(); now.Y == pos.Y {
			m.skipped(pos.Y, pos.X, now.X)
		}
	}
	if erasesCarry {
		m.carryErased(out)
	}
	pushed := m.harvest(out)
	m.erasing = false
	r0 := pos.Y
	if pushed > 0 && r0 >= top && r0 < bot {
		r0 -= min(pushed, bot-top)
		if r0 < top {
			r0 = -1
		}
	}
	if op.kind != opNone && op.kind != opMargins {
		// Rows moved or went: the positions of the last move are stale.
		m.lastMove = move{}
	}
	if op.kind != opNone || pushed > 0 {
		m.frame.moved = true
	}
	switch op.kind {
	case opDown:
		// Blank rows inserted into rows that show nothing move nothing:
		// what is written there next is drawn where the lines committed
		// at those positions were.
		if !m.blankRows(op.a+op.n, op.b) {
			m.shiftDown(op.a, op.b, op.n)
		} else {
			for y := op.a; y < op.b; y++ {
				st := &m.shadow[y]
				st.pending, st.ptext, st.same, st.faint = false, "", false, st.hasRec
			}
		}
		if op.a == m.top {
			m.dropCarry()
		}
		if r0 >= op.a && r0 < op.b {
			if r0 += op.n; r0 >= op.b {
				r0 = -1
			}
		}
	case opUpDrop:
		m.shiftUp(op.a, op.b, op.n)
		switch {
		case r0 >= op.a && r0 < op.a+op.n:
			r0 = -1
		case r0 >= op.a+op.n && r0 < op.b:
			r0 -= op.n
		}
	case opErase, opErase3, opReset:
		m.clearPending()
		m.dropCarry()
		if op.kind == opErase3 {
			out.clearHistory()
		}
		if op.kind == opErase {
			m.replay.beginKept(m.rows)
		} else {
			m.replay.beginWiped(m.rows)
		}
		m.reprint = true
		if op.kind == opReset {
			// A full reset: what the rows showed is gone, and what was
			// committed at their positions tells nothing about what comes
			// (the replay rule still knows it).
			clear(m.shadow)
			m.top, m.bot = 0, m.rows
		}
		r0 = -1
	case opMargins:
		m.top, m.bot = op.a, op.b
	}
	if !lineFeed(t) {
		m.risk()
	}
	if op.kind == opNone {
		switch m.clearedView(t, pos) {
		case clearedHome:
			m.replay.beginKept(m.rows)
			m.reprint = true
		case clearedRows:
			m.replay.beginTail(m.rows)
			m.tailBase = m.base
			m.reprint = true
		}
	}
	m.cursorAfter(r0, m.em.CursorPosition().Y, lineFeed(t), out)
	m.pieces = m.pieces[:0]
}

// watchesMoves reports whether a move of the cursor to the right is to
// be followed (skipped): in a trip up since a change of width, until it
// is found to keep text.
func (m *mainLines) watchesMoves() bool { return m.oldWidth && m.zone >= 0 && !m.keptText }

// movesRight reports whether t may move the cursor right on its row: CUF,
// CHA, HPA, CUP.
func movesRight(t *token) bool {
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return false
	}
	switch t.cmd.Final() {
	case 'C', 'G', '`', 'H', 'f', 'a':
		return true
	}
	return false
}

// How a token cleared the screen without ED 2 (clearedView).
type cleared int

const (
	notCleared  cleared = iota
	clearedHome         // erased from the home position (ED 0)
	clearedRows         // came home to a screen whose rows were all erased one by one
)

// clearedView reports whether and how the token cleared the screen
// without ED 2: erased it from the home position (ED 0), or came home to
// a screen whose rows were all erased one by one (as Claude Code does on
// resize, and when its live area grows taller than the screen).
func (m *mainLines) clearedView(t *token, before uv.Position) cleared {
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return notCleared
	}
	switch t.cmd.Final() {
	case 'J':
		if t.param(0, 0) == 0 && before.X == 0 && before.Y == 0 {
			return clearedHome
		}
	case 'H', 'f':
		if t.param(0, 1) > 1 || t.param(1, 1) > 1 {
			return notCleared
		}
		var b []byte
		for y := range m.rows {
			if b = appendText(b[:0], m.em.Line(y), m.cols); len(strings.TrimSpace(string(b))) > 0 {
				return notCleared
			}
		}
		return clearedRows
	}
	return notCleared
}

// showsEcho reports whether a row of the screen shows the echo of a line
// typed (an input box's empty prompt is none).
func (m *mainLines) showsEcho() bool {
	for r := 0; r < m.rows; {
		start, end := m.span(r)
		r = end + 1
		text := m.lineText(start, end)
		if e, ok := m.layout.EchoStart(text); ok && strings.TrimSpace(text[len(e.Start):]) != "" {
			return true
		}
	}
	return false
}

// risk notes that a row may now show other than the text committed for its
// line, until every row on the screen has scrolled off. Only line feeds
// (and printing on the cursor's row, whose line is not committed yet)
// leave committed rows as they are.
func (m *mainLines) risk() { m.riskUntil = m.base + int64(m.rows) }

// lineFeed reports whether the token is a line feed: LF, VT, FF, IND.
func lineFeed(t *token) bool {
	switch t.kind {
	case tokControl:
		return t.ctrl == '\n' || t.ctrl == '\v' || t.ctrl == '\f' || t.ctrl == 0x84
	case tokESC:
		return t.cmd == 'D'
	}
	return false
}

// inputBox returns the rows that are the program's input box
// (screenmodel.Layout.InputBox), with the cursor on row cursor.
func (m *mainLines) inputBox(cursor int) (top, bottom int, ok bool) {
	if !m.layout.HasInputBox() {
		return 0, 0, false
	}
	return m.layout.InputBox(m.mainRows(), cursor)
}

// mainRows returns the rows as text, in the scratch boxRows.
func (m *mainLines) mainRows() []string {
	rows := m.boxRows[:0]
	var b []byte
	for y := range m.rows {
		b = appendText(b[:0], m.em.Line(y), m.cols)
		rows = append(rows, string(b))
	}
	m.boxRows = rows
	return rows
}
