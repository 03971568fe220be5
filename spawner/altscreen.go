package spawner

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"swarm/screenmodel"
)

// altView is the alternate screen and its rules: when a frame is complete
// enough to read, which rows left it, and which of a frame's rows are the
// program's text; the aligner (frames.go) finds what is new in each frame
// read. The Screen holds one and calls its entry points: enter and leave
// as the program switches screens, token and print with what the front
// parser cuts while it is on this screen, observe and flush as output
// settles or ends, resize. It commits lines through an altSink.
type altView struct {
	em         *vt.Emulator // non-nil while the program is on the alternate screen
	rows, cols int          // em's size
	layout     screenmodel.Layout
	// settle and settleFrames: how long, and for how many reads, a row
	// must stay as it is to be committed (aligner).
	settle       time.Duration
	settleFrames int
	// The committer (frames.go), made when a program first uses the
	// alternate screen and kept for the next time.
	frames    *aligner
	evicted   []frameRow // rows scrolled off the alternate screen, not read yet
	frameRows []frameRow
	previews  []previewRow // scratch: the rows that are previews
	// glimpsed: the rows a running command's preview showed (glimpses).
	glimpsed glimpses
	// spin: the rows shaped as the echo of a command at work, its mark a
	// spinner's frame (screenmodel.Layout.Spinner), as the last frame
	// showed them, by row; spinning: the echoes the last frame took for
	// one (see spinner). A row of output may start with the same
	// characters (a file printed): it is text.
	spin     map[int]spinRow
	spinning map[string]bool
	// typedOn holds the latest rows a line typed was wrapped on (not its
	// first), as the input box or an echo showed them, beside no side
	// panel: a spinner on the view's top row may be drawn in front of one
	// (see spinner).
	typedOn []string
	// cutRows are the rows, by row, as a resize found them: the terminal
	// cuts a row a narrower screen cannot hold, and what is left of it is
	// not new text. A row stays here until the program draws something
	// else on it.
	cutRows map[int]cutRow
	shown   []string // the rows as last read (text)
	// boxRows is scratch for besidePanel.
	boxRows []string
	// drawnCols holds, by row, the width of the screen the program last
	// drew the row on, when that was before the last resize (0: drawn on
	// this one): a row the terminal kept through a resize shows its side
	// panel where the old width put it.
	drawnCols []int
	syncing   bool // inside a synchronized update (mode 2026)
	// oldWidth: since the screen's width changed, the program has not
	// drawn a frame whose text reaches the new right edge and stops there
	// (atEdge, not ranPast: text ran past the edge since the last read).
	// A program that has not taken the resize in yet draws for the old
	// width, and its rows run past the edge. pastEdge holds, by row, the
	// rows such a frame drew: laid out for another width and wrapped by
	// the terminal, they are not the program's text until it draws them
	// again.
	oldWidth, ranPast, atEdge bool
	pastEdge                  []bool
	// laidFor is the width the program last laid its view out for: the
	// screen's, unless oldWidth. A program that paints its rows out to
	// the edge (screenmodel.Layout.PaintsRows) and stops short of the new
	// one is still drawing for that width.
	laidFor int
}

// altSink is what the alternate screen commits to: the Screen.
type altSink interface {
	// now is the time of the output being applied.
	now() time.Time
	// altLines commits rows of the alternate screen's document.
	altLines(rows []commitRow)
}

// enter starts the alternate screen on em, of rows×cols.
func (v *altView) enter(em *vt.Emulator, rows, cols int) {
	v.em, v.rows, v.cols = em, rows, cols
	v.shown, v.drawnCols = nil, nil
	v.oldWidth, v.ranPast, v.pastEdge, v.laidFor = false, false, nil, cols
}

// leave reads the last frame and commits all that is pending: the
// program left the alternate screen.
func (v *altView) leave(out altSink) {
	v.observe(false, out)
	v.flush(out)
	v.syncing = false
	v.em = nil
}

// print applies a print segment. Since a change of width, until the
// program shows it draws for the new one, it notes whether the text ran
// past the right edge (the terminal wrapped it; what that scrolled off is
// no row of the program's either) or ended on the edge.
func (v *altView) print(b []byte) {
	if !v.oldWidth {
		_, _ = v.em.Write(b)
		v.harvest(false)
		return
	}
	pos, scrolled := v.em.CursorPosition(), v.em.Scrollback().Len()
	_, _ = v.em.Write(b)
	switch {
	case v.em.CursorPosition().Y > pos.Y || v.em.Scrollback().Len() > scrolled:
		v.ranPast = true
	case pos.X+ansi.StringWidth(string(b)) == v.cols:
		v.atEdge = true
	}
	v.harvest(v.ranPast)
}

// resize resizes the alternate screen, which has just been read
// (observe): a full-screen program redraws for its size.
func (v *altView) resize(rows, cols int) {
	v.noteCutRows()
	drawn := make([]int, rows)
	for y := range rows {
		drawn[y] = v.cols // rows a taller screen adds: drawn by no one yet
		if y < len(v.drawnCols) && v.drawnCols[y] > 0 {
			drawn[y] = v.drawnCols[y]
		}
	}
	v.drawnCols = drawn
	if !v.oldWidth {
		v.laidFor = v.cols
	}
	v.oldWidth = v.oldWidth || cols != v.cols
	v.pastEdge = nil
	v.em.Resize(cols, rows)
	v.rows, v.cols = rows, cols
	v.shown = nil
	v.em.SetScrollbackSize(queueRows(rows))
}

// resized tells the aligner that the screen changed size, on either
// screen.
func (v *altView) resized() {
	if v.frames != nil {
		v.frames.resized()
	}
}

// altToken feeds a structural token to the alternate screen. A frame is
// read before a token that starts the next one (the view erased, the
// cursor sent home) and after the end of a synchronized update, the
// program's own word that a frame is complete; never in the middle of one.
//
// Programs that do not mark their frames redraw what changed from the top
// down, so the cursor going back up (to the first row the next frame
// changes) is where one frame ends: a frame is read then too. Rows that
// scroll off in between are kept until the next read.
func (v *altView) token(t *token, tb []byte, out altSink) {
	if !v.syncing && v.startsFrame(t) {
		v.observe(false, out)
	}
	y := v.em.CursorPosition().Y
	_, _ = v.em.Write(tb)
	v.harvest(t.kind == tokCSI && t.cmd == 'J')
	switch {
	case isSyncEnd(t):
		v.observe(false, out)
	case !v.syncing && v.em.CursorPosition().Y < y && onlyMoves(t):
		// The frame as it was before the move, the cursor where the
		// program left it.
		v.observeAt(false, y, out)
	case len(v.evicted) >= 2*v.rows:
		v.observe(false, out) // bound what waits: a program scrolling without pause
	}
}

// onlyMoves reports whether the token moves the cursor and changes no
// cell, so that reading the frame after it is reading it before.
func onlyMoves(t *token) bool {
	switch t.kind {
	case tokESC:
		return t.cmd == '8' // DECRC
	case tokCSI:
		if t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
			return false
		}
		switch t.cmd.Final() {
		case 'A', 'F', 'H', 'f', 'd', 'u': // CUU CPL CUP HVP VPA SCORC
			return true
		}
	}
	return false
}

// startsFrame reports whether the token erases the whole view or sends the
// cursor home.
func (v *altView) startsFrame(t *token) bool {
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return false
	}
	switch t.cmd.Final() {
	case 'J':
		switch t.param(0, 0) {
		case 2, 3:
			return true
		case 0:
			pos := v.em.CursorPosition()
			return pos.X == 0 && pos.Y == 0
		}
	case 'H', 'f':
		return t.param(0, 1) <= 1 && t.param(1, 1) <= 1
	}
	return false
}

// syncMode follows synchronized output (mode 2026) for an h or l token,
// on either screen: an update begun on the main screen may end on this
// one.
func (v *altView) syncMode(t *token) {
	for _, p := range t.params {
		if p.Param(0) == int(ansi.ModeSynchronizedOutput.Mode()) {
			v.syncing = t.cmd.Final() == 'h'
		}
	}
}

// syncToggle reports whether t starts (on) or ends a synchronized update.
func syncToggle(t *token) (on, ok bool) {
	if t.kind != tokCSI || t.cmd.Prefix() != '?' || (t.cmd.Final() != 'h' && t.cmd.Final() != 'l') {
		return false, false
	}
	for _, p := range t.params {
		if p.Param(0) == int(ansi.ModeSynchronizedOutput.Mode()) {
			return t.cmd.Final() == 'h', true
		}
	}
	return false, false
}

func isSyncEnd(t *token) bool {
	if t.kind != tokCSI || t.cmd.Prefix() != '?' || t.cmd.Final() != 'l' {
		return false
	}
	for _, p := range t.params {
		if p.Param(0) == int(ansi.ModeSynchronizedOutput.Mode()) {
			return true
		}
	}
	return false
}

// harvest collects the rows the alternate screen scrolled off since the
// last call; the rows an erase pushed out are not kept (they were read
// before it).
func (v *altView) harvest(erased bool) {
	sb := v.em.Scrollback()
	if sb.Len() == 0 {
		return
	}
	if !erased {
		for _, l := range sb.Lines() {
			text := strings.TrimRight(string(appendText(nil, l, v.cols)), " ")
			if r, ok := newFrameRow(0, text, true); ok {
				r.markTurn(v.layout.EchoStart(text))
				v.evicted = append(v.evicted, r)
			}
		}
		if n := len(v.evicted) - maxEvicted; n > 0 {
			v.evicted = append(v.evicted[:0], v.evicted[n:]...)
		}
	}
	sb.Clear()
}

// maxEvicted bounds the rows kept between two reads of the alternate
// screen. Text that wraps and scrolls with no control character at all
// can push any number of rows out before a frame is read; past this many,
// the oldest are forgotten.
const maxEvicted = 10000

// observe reads the alternate screen's frame and commits what the
// aligner finds new and settled; quiet: output has been quiet for the
// settle time.
func (v *altView) observe(quiet bool, out altSink) {
	if v.em != nil {
		v.observeAt(quiet, v.em.CursorPosition().Y, out)
	}
}

// observeAt is observe with the cursor on row cursor: the rows of the
// program's input box around it are what is being typed, not part of the
// frame.
func (v *altView) observeAt(quiet bool, cursor int, out altSink) {
	if v.em == nil {
		return
	}
	if v.frames == nil {
		v.frames = newAligner(v.settle, v.settleFrames)
	}
	rows := v.frameRows[:0]
	for i, r := range v.evicted {
		r.y = i - len(v.evicted)
		rows = append(rows, r)
	}
	v.evicted = v.evicted[:0]
	shown := v.text()
	boxRows := v.besidePanel(shown)
	top, bottom, box := v.layout.InputBox(boxRows, cursor)
	if box {
		for y := top + 1; y <= bottom; y++ {
			v.typedOnRow(boxRows[y])
		}
	}
	menuFrom, menuTo, menu := v.layout.Menu(boxRows) // a command being typed
	ownFrom, boxed := v.layout.BoxAndUnder(boxRows, cursor)
	previews := previewRows(v.layout, shown, v.previews)
	v.previews = previews
	busy, back, working := false, false, false
	var typed screenmodel.Echo
	waiting := false // in a line typed while the program works
	above := -1      // the last row of some length read, in rows
	spin, spinning := make(map[int]spinRow), make(map[string]bool)
	defer func() { v.spin, v.spinning = spin, spinning }()
	var echo screenmodel.Echo // the echo of a line typed over the row read, while inEcho; echoY: its last row
	inEcho, echoY := false, -1
	var running []string // a running command's preview, its rows
	// runningAt, runningCols, runningWrap: the screen row of each, the
	// width it was laid out for and where that width wraps it.
	var runningAt, runningCols, runningWrap []int
	for y := range shown {
		// The echo of a command at work, its mark a spinner, is the echo.
		// On the view's top row the spinner may be drawn over another row
		// (the echo above the view): a row hidden in part, read only
		// where it shows whole (spunTop).
		text, spunTop := v.spinner(y, shown, spin, spinning)
		status := v.layout.Status(text)
		busy = busy || status && v.layout.GrowsWhenDone()
		working = working || status
		if waiting && typed.Continues(text) {
			continue
		}
		typed, waiting = v.layout.PendingStart(text)
		hint := v.layout.Hint(text)
		back = back || hint // a hint under the view: scrolled back
		if previews != nil && previews[y] == previewRunning && !waiting && !(box && y >= top && y <= bottom) {
			if _, marker := v.layout.PreviewMarker(text); !marker {
				running = append(running, v.layout.OutputRow(text))
				runningAt = append(runningAt, y)
				runningCols = append(runningCols, v.drawnWidth(y))
				runningWrap = append(runningWrap, v.layout.WrapAt(v.drawnWidth(y)))
			}
		}
		if waiting || box && y >= top && y <= bottom || menu && y >= menuFrom && y <= menuTo || status || hint || previews != nil && previews[y] == previewRunning {
			continue // typed input, the program's status row or hints, or a running command's latest rows
		}
		if y < len(v.pastEdge) && v.pastEdge[y] {
			continue // drawn for the old width
		}
		if textCols := v.textColumns(y); textCols < v.cols && ansi.StringWidth(text) > textCols {
			// A side panel beside the program's text is not its output.
			text = strings.TrimRight(ansi.Truncate(text, textCols, ""), " ")
		}
		text, covered := v.layout.Overlay(text)
		back = back || covered
		r, ok := newFrameRow(y, text, false)
		r.cols = v.drawnWidth(y)
		if _, was := v.cutRows[y]; was && y < len(v.drawnCols) && v.drawnCols[y] == 0 {
			delete(v.cutRows, y) // the program drew it again since the resize
		}
		if c, was := v.cutRows[y]; was {
			if c.left == "" && ok && len(r.key) < len(c.drawn) && strings.HasPrefix(c.drawn, r.key) {
				c.left = r.key // the first look after the resize
				v.cutRows[y] = c
			}
			if c.left != "" && ok && r.key == c.left {
				// What the resize left of the row: not new, and not read,
				// but the row the program drew is still there: a row above
				// it, drawn the same at either width, is not left behind.
				r.key, r.hash, r.cut = c.drawn, maphash.String(keySeed, c.drawn), true
				rows = append(rows, r)
				continue
			}
			delete(v.cutRows, y) // drawn anew
		}
		if ok {
			r.own = boxed && y >= ownFrom || v.layout.AnswerFooter(text)
			if !spunTop {
				r.markTurn(v.layout.EchoStart(text))
			}
			// Rows of a line typed, wrapped under its echo, are typed
			// input; a row that by its look continues no echo is output.
			r.typedOn = inEcho && y == echoY+1 && echo.Continues(text)
			r.notTyped = !v.layout.ContinuesAnEcho(text)
			switch {
			case r.turn:
				echo, _ = v.layout.EchoStart(text)
				inEcho, echoY = true, y
			case r.typedOn:
				echoY = y
				v.typedOnRow(text)
			default:
				inEcho = false
			}
			// A row partly covered by a hint is not whole either.
			r.preview = previews != nil && previews[y] == previewDone || covered || spunTop
			if v.layout.CutsRows() {
				// Which output a hint under one shown collapsed is under.
				r.expand = v.layout.Collapsed(text)
				if r.expand && above >= 0 {
					var h maphash.Hash
					h.SetSeed(keySeed)
					for _, a := range rows[min(above, len(rows)):] {
						h.WriteString(a.key)
						h.WriteByte('\n')
					}
					r.under, r.anchored, r.anchor = h.Sum64(), true, above
				}
				if hasKeyOf(r.text, minRewrap) {
					above = len(rows)
				}
			}
			rows = append(rows, r)
		}
	}
	if back {
		rows = v.unpinned(rows)
	}
	v.frameRows = rows
	v.frames.leftover = v.leftover()
	v.frames.working = working
	v.frames.boxTop = -1
	if boxed {
		v.frames.boxTop = ownFrom
	}
	since := v.glimpsed.tick(out.now())
	switch {
	case len(running) > 0:
		v.glimpsed.observe(running, runningAt, runningCols, runningWrap, since)
	case len(v.glimpsed.rows) > 0 && !back && !v.frames.leftover:
		// The command is done: what its preview showed that the view
		// does not show whole is read where the preview showed it. An
		// erased view says nothing of it, nor does what the terminal kept
		// of the view through a resize (a shorter screen cuts the
		// preview off, the command still at work): the program shows the
		// output, or its preview, once it draws for the new size.
		view, any := make([]string, len(shown)), false
		for y, text := range shown {
			if previews[y] == notPreview {
				view[y] = RowKey(v.layout.OutputRow(text))
				any = any || view[y] != ""
			}
		}
		if any {
			read := v.glimpsed.done(view, since, v.settle, v.settleFrames)
			out.altLines(read)
			out.altLines(v.frames.observe(rows, out.now(), quiet, busy, back))
			v.frames.adopt(read)
			return
		}
	}
	out.altLines(v.frames.observe(rows, out.now(), quiet, busy, back))
}

// besidePanel returns the rows as the program's text shows them, a side
// panel beside it left out (screenmodel.Layout.TextColumns): the input box
// is the rows around the cursor that show text, and the panel shows text
// beside every row of the transcript (the session's title, its context, its
// cost), none of them the box's. shown itself when no row has a panel.
func (v *altView) besidePanel(shown []string) []string {
	out, copied := shown, false
	for y, text := range shown {
		c := v.textColumns(y)
		if c >= v.cols || len(text) <= c || ansi.StringWidth(text) <= c {
			continue // no panel on the row, or nothing in it
		}
		if !copied {
			v.boxRows = append(v.boxRows[:0], shown...)
			out, copied = v.boxRows, true
		}
		out[y] = v.beside(shown, y)
	}
	return out
}

// spinRow is a row shaped as a spinning echo: as shown, and as its echo;
// over: the spinner is drawn in front of under, a row a line typed was
// wrapped on (see spinner).
type spinRow struct {
	shown, echo string
	over        bool
	under       string
}

// spinner returns row y of shown as the echo of a command at work when it
// is one (screenmodel.Layout.Spinner), else as shown. A row of output
// may start with a spinner's characters too (a file printed, a tool's
// log): the row is the echo only where it heads its box (the program
// draws the echo first in the box, under a row of the bare gutter, the
// output under it; the box is not that of the rows above), where its
// mark turned since the last frame with the rest of the row the same, or
// where its echo was spinning in the frames before; near the view's top,
// where the rows above are out of view, it is taken for the echo.
// hidden says the row may be another row the spinner is drawn over: on
// the view's top row the program draws it over whatever row shows there
// while the echo is above the view (see observeAt) — unless the gutter's
// bare row is under it, as the program draws it under the echo: the view
// starts with the echo then (it moved on to a command's output as the
// command started). It records the row in spin, and a spinning echo in
// spinning, for the next frame.
func (v *altView) spinner(y int, shown []string, spin map[int]spinRow, spinning map[string]bool) (row string, hidden bool) {
	row = shown[y]
	echo, ok := v.layout.Spinner(row)
	if !ok {
		if under, over := v.layout.SpinnerOver(row); over && y == 0 {
			// The spinner on the view's top row in front of a row's
			// text (its echo above the view): that row, its first cell
			// hidden.
			return under, true
		}
		// The spinner alone on the view's top row, over a blank row of
		// the transcript (its echo above the view): no text to read.
		return row, y == 0 && v.layout.BareSpinner(row)
	}
	last, was := v.spin[y]
	if y == 0 && was && last.over && last.echo == echo {
		spin[y] = last
		return last.under, true
	}
	if under, over := v.spunOverTop(y, shown); over {
		// The program drew the spinner in front of a row the command at
		// work was typed on, its echo's first row above the view: that
		// row, moved aside, not a new echo (whose rows under it would be
		// a new turn's, read again).
		spin[y] = spinRow{shown: row, echo: echo, over: true, under: under}
		return under, true
	}
	spin[y] = spinRow{shown: row, echo: echo}
	turned := was && last.echo == echo && last.shown != row
	gutter := strings.TrimRight(row[:commonPrefix(row, echo)], " ")
	text := func(i int) string { return v.beside(shown, i) }
	inBox := func(i int) bool { return i >= 0 && strings.HasPrefix(text(i), gutter) }
	heads := y < 2 || !inBox(y-1) || text(y-1) == gutter && !inBox(y-2)
	if !heads && !turned && !v.spinning[echo] {
		return row, false
	}
	spinning[echo] = true
	return echo, y == 0 && (len(shown) < 2 || text(1) != gutter)
}

// beside returns row y of shown without the side panel beside the
// program's text, if it shows one.
func (v *altView) beside(shown []string, y int) string {
	if c := v.textColumns(y); c < v.cols {
		return strings.TrimRight(ansi.Truncate(shown[y], c, ""), " ")
	}
	return shown[y]
}

// typedOnRow remembers row as one a line typed was wrapped on (typedOn).
func (v *altView) typedOnRow(row string) {
	if slices.Contains(v.typedOn, row) {
		return
	}
	if len(v.typedOn) == maxTypedOn {
		v.typedOn = append(v.typedOn[:0], v.typedOn[1:]...)
	}
	v.typedOn = append(v.typedOn, row)
}

// maxTypedOn bounds typedOn: the rows of the last few lines typed.
const maxTypedOn = 32

// spunOverTop is spunOver for row y of shown, on the view's top row
// only: the program draws the spinner there.
func (v *altView) spunOverTop(y int, shown []string) (under string, ok bool) {
	if y != 0 {
		return "", false
	}
	return v.spunOver(v.beside(shown, 0))
}

// spunOver returns the row a line typed was wrapped on (typedOn) that
// row, shaped as a spinning echo, shows moved aside behind the spinner,
// if it shows one: its text after the mark and a blank, the same or cut
// at the edge.
func (v *altView) spunOver(row string) (under string, ok bool) {
	echo, ok := v.layout.Spinner(row)
	if !ok {
		return "", false
	}
	e, ok := v.layout.EchoStart(echo)
	rest := strings.TrimPrefix(echo, e.Start)
	if !ok || rest == "" {
		return "", false
	}
	for _, t := range v.typedOn {
		if on, cont := strings.CutPrefix(t, e.Cont); cont && strings.HasPrefix(on, rest) {
			return t, true
		}
	}
	return "", false
}

// commonPrefix returns the length in bytes of the longest prefix a and b
// share, whole runes.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) {
		ra, w := utf8.DecodeRuneInString(a[n:])
		rb, _ := utf8.DecodeRuneInString(b[n:])
		if ra != rb {
			break
		}
		n += w
	}
	return n
}

// unpinned returns the rows of a view scrolled back without the row the
// program pins over its top (screenmodel.Layout.Pinned): an echo there
// counted as a turn would make the rows under it a new turn's output, read
// again where the view, back at the bottom, shows them under their own.
func (v *altView) unpinned(rows []frameRow) []frameRow {
	for i, r := range rows {
		if r.y < 0 {
			continue // scrolled off before the frame was read
		}
		if r.y == 0 && v.layout.Pinned(r.text) {
			return slices.Delete(rows, i, i+1)
		}
		break
	}
	return rows
}

// leftover reports whether the screen shows what the terminal kept of the
// view through a resize: the program has drawn no row since.
func (v *altView) leftover() bool {
	for _, c := range v.drawnCols {
		if c == 0 {
			return false
		}
	}
	return len(v.drawnCols) > 0
}

// textColumns returns how many columns of row y hold the program's text,
// as it laid the row out: for the width of the screen it drew the row on.
func (v *altView) textColumns(y int) int { return v.layout.TextColumns(v.drawnWidth(y)) }

// drawnWidth returns the width of the screen the program drew row y on.
func (v *altView) drawnWidth(y int) int {
	if y < len(v.drawnCols) && v.drawnCols[y] > 0 {
		return v.drawnCols[y]
	}
	return v.cols
}

// previewRows returns, for each of the shown rows, whether it is part of
// a preview of a tool's output (screenmodel.Layout.Preview), nil when the
// program shows no previews. While the command runs, the preview is its
// latest rows sliding as more comes: not the transcript, which holds the
// output where the program shows it whole. Once it is done, the preview
// is its first rows cut at the edge: what the frame aligner may align
// with rows it read whole, never text to read.
// buf is scratch space for the answer, which reuses it.
func previewRows(l screenmodel.Layout, shown []string, buf []previewRow) []previewRow {
	if !l.HasPreviews() {
		return nil
	}
	previews := slices.Grow(buf[:0], len(shown))[:len(shown)]
	clear(previews)
	for y := len(shown) - 1; y >= 0; y-- {
		if top, running, ok := l.Preview(shown, y); ok {
			p := previewDone
			if running {
				p = previewRunning
			}
			for ; y >= top; y-- {
				previews[y] = p
			}
			y++
		}
	}
	return previews
}

// previewRow is what a row of the alternate screen is to previewRows.
type previewRow uint8

const (
	notPreview previewRow = iota
	previewDone
	previewRunning
)

// noteCutRows records the alternate screen's rows before a resize, which
// may cut them (see altView.cutRows); observe has just read them.
func (v *altView) noteCutRows() {
	if v.cutRows == nil {
		v.cutRows = map[int]cutRow{}
	}
	for y, c := range v.cutRows {
		c.left = "" // a resize again: what it leaves is seen anew
		v.cutRows[y] = c
	}
	for _, r := range v.frameRows {
		if _, kept := v.cutRows[r.y]; r.y >= 0 && !kept {
			v.cutRows[r.y] = cutRow{drawn: r.key}
		}
	}
}

// cutRow is a row of the alternate screen a resize may have cut: its key
// as the program drew it, and as the resize left it ("" until seen).
type cutRow struct{ drawn, left string }

// flush commits every row of the alternate screen's document still
// pending: the program left the alternate screen, or the output ended.
func (v *altView) flush(out altSink) {
	out.altLines(v.glimpsed.done(nil, out.now(), v.settle, v.settleFrames)) // shown until the end
	if v.frames != nil {
		out.altLines(v.frames.flush())
	}
}

// altLines commits rows of the alternate screen's document as lines.
func (s *Screen) altLines(rows []commitRow) { s.lines.altLines(rows, s.now()) }

// text returns the alternate screen's rows as text. Rows are read again
// only when the emulator marked them touched since the last read: a
// spinner turning redraws one row, and the frame is read on each turn.
func (v *altView) text() []string {
	touched := v.em.Touched()
	pastEdge := v.ranPast && v.oldWidth
	short := v.oldWidth && !v.ranPast && !v.atEdge && v.layout.PaintsRows()
	v.oldWidth = v.oldWidth && (v.ranPast || !v.atEdge)
	v.atEdge = false
	v.ranPast = false
	if pastEdge && len(v.pastEdge) != v.rows {
		v.pastEdge = make([]bool, v.rows)
	}
	for y, t := range touched {
		if t != nil && y < len(v.drawnCols) {
			v.drawnCols[y] = 0 // drawn on this screen
			if short {
				v.drawnCols[y] = v.laidFor // drawn for the old width
			}
		}
		if t != nil && y < len(v.pastEdge) {
			v.pastEdge[y] = pastEdge
		}
	}
	if len(v.shown) != v.rows {
		v.shown = make([]string, v.rows)
		touched = nil // read every row
	}
	var b []byte
	for y := range v.rows {
		if touched == nil || y < len(touched) && touched[y] != nil {
			b = appendText(b[:0], v.em.Line(y), v.cols)
			v.shown[y] = strings.TrimRight(string(b), " ")
		}
		if y < len(touched) {
			touched[y] = nil
		}
	}
	if checkAltRows {
		for y := range v.rows {
			b = appendText(b[:0], v.em.Line(y), v.cols)
			if got := strings.TrimRight(string(b), " "); got != v.shown[y] {
				panic(fmt.Sprintf("alternate screen row %d read as %q, shows %q", y, v.shown[y], got))
			}
		}
	}
	return v.shown
}

// checkAltRows makes altView.text check its rows against the screen (tests).
var checkAltRows bool
