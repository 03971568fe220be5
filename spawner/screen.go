package spawner

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"swarm/screenmodel"
)

// DefaultScrollback is the number of rows a screen keeps once they leave
// its top, when ScreenOptions.Scrollback or Options.Scrollback is zero.
const DefaultScrollback = 10000

// ErrClosed is returned by writes to a closed Screen.
var ErrClosed = errors.New("screen closed")

// maxLineBytes bounds one committed line. A line the terminal wrapped over
// more rows than the screen has is assembled from the rows that scroll off;
// past this size the rest is dropped (the parser refuses anything over
// 1 MiB anyway).
const maxLineBytes = 2 << 20

// Line is one committed line of output.
type Line struct {
	// N is the line's absolute number: rows scrolled off the top of the
	// screen so far plus its row. A line repainted in place keeps its
	// number, so N can repeat or go back when a program redraws lines
	// above the cursor.
	N int64
	// Text is the line as the screen shows it: no escape sequences,
	// trailing blanks trimmed, leading blanks kept, rows the terminal
	// wrapped joined, wide characters and emoji intact.
	Text string
	// Time is when the line was committed.
	Time time.Time
	// Cols is the width of the screen the line was shown on: where a
	// program that wraps its own text wrapped it depends on it.
	Cols int
	// Rows, above 1, is how many line numbers the line takes: a line a
	// narrower screen pushed off as it rewrapped it (shown at Cols, its
	// rows in the scrollback at the new width), so the line under it is
	// Rows lines further. 0 or 1: one, or as many as Text is wide at Cols.
	Rows int
	// ShownRunning says the line heads a box the program showed a
	// command's output in while the command was still at work
	// (screenmodel.Layout.ToolBoxes, with a row under the head that
	// BoxHead.Output marks), or showed at work in two writes with its
	// mark turned between them: Gemini CLI had then made the terminal it ran
	// the command in as wide as the box, so the box's rows are that
	// terminal's rows whole.
	ShownRunning bool
	// Late says the line is history shown only now, above a paragraph
	// whose later rows were read while the view cut it (the view grown,
	// or laid out anew after a resize: its first rows, a block's
	// "[[RELAY]]" among them): it comes after lines it was above. Again
	// says the line is one of that paragraph's rows read already, given
	// again right after the Late lines so that they can be read in their
	// order. A reader reads them apart from the other lines: a command
	// that begins on a Late line is new; one that begins on an Again line
	// was read already.
	Late, Again bool
	// Elided says rows the program showed right before the line were
	// left out of what was read: a running command's preview slid them
	// by faster than a reader reads (Claude Code's, see glimpses). What
	// was open there (a block, a command wrapped over rows) is the
	// program's cut, as at a row that reads "… +N lines".
	Elided bool
}

// ScreenOptions configure a Screen.
type ScreenOptions struct {
	// Rows and Cols are the screen size; 24×80 when zero.
	Rows, Cols int
	// Scrollback is the number of rows kept after they scroll off the top;
	// DefaultScrollback when zero, none when negative.
	Scrollback int
	// Replies receives the emulator's answers to terminal queries (cursor
	// position, device attributes). nil discards them. It must not block
	// for long: the screen waits for each answer to be taken.
	Replies io.Writer
	// NewlineMode makes a line feed also return the carriage, as a
	// terminal does for programs whose output the tty translates. For
	// plain text files; output read from a PTY has its carriage returns.
	NewlineMode bool
	// Settle is how long a new row of the alternate screen must keep its
	// text before it is committed (see the package documentation);
	// DefaultSettle when zero.
	Settle time.Duration
	// Clock tells the time; time.Now when nil. A replay of a recording
	// passes the recording's clock.
	Clock func() time.Time
	// SettleFrames, for output replayed without its timing, lets a new
	// row of the alternate screen count as settled once it has shown the
	// same text in this many frames in a row. Zero: only time settles.
	SettleFrames int
	// Before is the screen of the program's previous run (it was
	// restarted): its scrollback and the rows its main screen showed start
	// this screen's scrollback, followed by a line reading Separator, so
	// that what the program printed before is kept. They are history
	// only: nothing of them is committed again. Separator must hold no
	// control characters.
	Before    *Screen
	Separator string
	// Layout is what the program's kind draws where (package
	// screenmodel): the rows of its input box are what is being typed,
	// never committed. The zero Layout knows of no input box.
	Layout screenmodel.Layout
}

// Cursor is a cell position, 0-based.
type Cursor struct{ X, Y int }

// Snapshot is a copy of a screen's visible state.
type Snapshot struct {
	Rows, Cols int
	// Lines are the visible rows as plain text, trailing blanks trimmed.
	Lines []string
	// Cursor is the cursor position; CursorVisible whether the program
	// shows it.
	Cursor        Cursor
	CursorVisible bool
	// AltScreen is set while the program draws on the alternate screen.
	AltScreen bool
	// BracketedPaste is set while the program asked for bracketed paste.
	BracketedPaste bool
	// Title is the window title the program set.
	Title string
}

// Screen is a VT screen: it applies a program's output and turns it into
// committed lines (see the package documentation). It is safe for
// concurrent use.
type Screen struct {
	mu     sync.Mutex
	rows   int
	cols   int
	closed bool

	main *vt.Emulator
	// alt is the alternate screen (altscreen.go); alt.em is non-nil while
	// the program is on it.
	alt altView
	// altPipe and mainPipe close the emulators' reply pipes, ending their
	// copy goroutines.
	mainPipe, altPipe io.Closer
	replies           io.Writer
	wg                sync.WaitGroup

	feeder
	// deferred: a size to apply once the emulator is quiet (rows, cols).
	deferred *[2]int
	// cutLines: the last resize changed the width without reflowing the
	// screen (see reflow): rows were cut.
	cutLines bool
	// printMode: the emulator is being fed a print segment.
	printMode bool
	// lines commits the main screen's lines (lines.go).
	lines mainLines

	hist history
	// pullable counts the newest rows of hist that a taller screen may
	// take back (pullBack): rows that scrolled off or that a resize moved
	// there, not those of an erased display (a clear is not undone).
	pullable int
	// left: the states of the lines of the newest rows of hist as those
	// rows left the screen (keep), newest last, no more than pullable:
	// a line pullBack brings back is as it was, not read anew from its
	// rows (an erased row must still hold what was committed there).
	left []leftRow
	// own counts the newest rows of hist that this run of the program
	// wrote: those above them are a previous run's (ScreenOptions.Before)
	// and the separator, which show what was typed into that run, not
	// into this one (Contains).
	own            int
	rowBuf         []byte     // scratch: a row with its styles
	runBuf         []styleRun // scratch: a row's style runs
	title          string
	bracketedPaste bool
	// Each screen has its own cursor visibility, as in x/vt: vim hides
	// the cursor on the alternate screen and the shell's comes back.
	mainHidden, altHidden bool
	awm                   bool // auto-wrap, of the main screen
	bgSet                 bool // the pen has a background colour (see scroll.go)
	noBatch               bool // scroll line by line (tests compare the two)
	lnm                   bool // line feeds return the carriage

	clock     func() time.Time
	writing   bool      // in Write, whose reading of the clock is writeTime
	writeTime time.Time // zero until read

	// Containment (contain.go): contain is set for a Process's screen; a
	// panic of the model makes it plain (an emulator alone, no lines) for
	// good, fault the panic, told once to onFault.
	contain, plain bool
	fault          *Fault
	onFault        func(Fault)
}

// NewScreen returns a screen with no process behind it, for replaying
// recorded output, tests and benchmarks. Close it when done.
func NewScreen(opts ScreenOptions) *Screen {
	if opts.Rows <= 0 {
		opts.Rows = 24
	}
	if opts.Cols <= 0 {
		opts.Cols = 80
	}
	if opts.Scrollback == 0 {
		opts.Scrollback = DefaultScrollback
	}
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	s := &Screen{
		rows:    opts.Rows,
		cols:    opts.Cols,
		replies: opts.Replies,
		awm:     true,
		hist:    history{max: opts.Scrollback},
		clock:   opts.Clock,
		alt:     altView{layout: opts.Layout, settle: opts.Settle, settleFrames: opts.SettleFrames},
	}
	if s.replies == nil {
		s.replies = io.Discard
	}
	if opts.Before != nil && opts.Before != s {
		s.inherit(opts.Before, opts.Separator)
	}
	s.main, s.mainPipe = s.newEmulator(true)
	s.feeder.init()
	s.lines.init(s.main, s.rows, s.cols, opts.Layout)
	if opts.NewlineMode {
		s.lnm = true
		_, _ = s.main.WriteString("\x1b[20h")
	}
	return s
}

// inherit starts the scrollback with old's: its own scrollback, then the
// rows its main screen shows down to the last one written, then sep (dim).
func (s *Screen) inherit(old *Screen, sep string) {
	old.mu.Lock()
	defer old.leave()
	old.applyHeld()
	s.hist.pal = old.hist.pal.clone() // the rows' runs number styles as old's
	for i := range old.hist.len() {
		s.hist.push(*old.hist.at(i))
	}
	last := -1
	for y := range old.rows {
		if rowEnd(old.main.Line(y), old.cols) > 0 {
			last = y
		}
	}
	for y := 0; y <= last; y++ {
		row := old.main.Line(y)
		s.hist.push(s.histRow(row, string(appendText(nil, row, old.cols)), old.cols, &s.hist.pal))
	}
	if sep != "" {
		// The caller's text, shown as written: it must hold no controls.
		s.hist.push(histLine{text: sep, styled: "\x1b[2m" + sep + ansi.ResetStyle, cols: uint16(s.cols), end: uint16(min(ansi.StringWidth(sep), s.cols))})
	}
}

// newEmulator makes an emulator of the current size whose replies are
// copied to s.replies until its pipe is closed. x/vt's own scrollback only
// carries rows from the emulator to the screen, so it is kept small; main
// says whether the screen tracks its cursor.
func (s *Screen) newEmulator(main bool) (*vt.Emulator, io.Closer) {
	e := vt.NewEmulator(s.cols, s.rows)
	e.SetScrollbackSize(queueRows(s.rows))
	e.SetCallbacks(s.callbacks(main))
	// Closing the write end of the reply pipe ends the copy without
	// Emulator.Close, whose flag Read checks unlocked.
	pipe, _ := e.InputPipe().(io.Closer)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_, _ = io.Copy(s.replies, e)
	}()
	return e, pipe
}

// callbacks are what an emulator tells the screen; main says whether it
// is the main screen's, whose cursor the line tracking follows (not once
// the screen is plain: contain.go).
func (s *Screen) callbacks(main bool) vt.Callbacks {
	cb := vt.Callbacks{
		Title: func(t string) { s.title = t },
		CursorVisibility: func(visible bool) {
			if main {
				s.mainHidden = !visible
			} else {
				s.altHidden = !visible
			}
		},
		EnableMode:  func(m ansi.Mode) { s.mode(m, true, main) },
		DisableMode: func(m ansi.Mode) { s.mode(m, false, main) },
	}
	if main && !s.plain {
		cb.CursorPosition = s.cursorMoved
	}
	return cb
}

// queueRows is the size of x/vt's scrollback: large enough for every row
// one emulator write can push out (a print segment is at most maxSegment
// bytes, a sequence pushes at most a screenful).
func queueRows(rows int) int { return maxSegment + 2*rows + 16 }

func (s *Screen) cursorHidden() bool {
	if s.alt.em != nil {
		return s.altHidden
	}
	return s.mainHidden
}

func (s *Screen) mode(m ansi.Mode, on, main bool) {
	switch m {
	case ansi.ModeBracketedPaste:
		s.bracketedPaste = on
	case ansi.ModeAutoWrap:
		if main {
			s.awm = on
		}
	}
}

// Write feeds program output to the screen. Chunk boundaries may fall
// anywhere, inside an escape sequence or a character, without changing the
// result. A trailing incomplete character cluster is held back until more
// output comes or the screen is read.
func (s *Screen) Write(p []byte) (n int, err error) {
	s.mu.Lock()
	defer s.leave()
	if s.closed {
		return 0, ErrClosed
	}
	n = len(p) // taken, also by a model that panics on it (contain.go)
	if s.plain {
		s.writePlain(p)
		return n, nil
	}
	if f := FaultForTest.Load(); f != nil && s.contain {
		(*f)(p)
	}
	s.writing = true
	if len(p) > 0 {
		s.lines.written()
	}
	s.feed(p, s)
	if s.alt.em == nil {
		s.lines.watchBoxes()
	}
	s.writing, s.writeTime = false, time.Time{}
	if s.deferred != nil && s.quiet() {
		d := *s.deferred
		s.deferred = nil
		s.resize(d[0], d[1])
	}
	return n, nil
}

// SendKey encodes a key press the way the program asked for it (cursor
// keys in normal or application mode, keypad mode, alt as ESC prefix) and
// sends the bytes to Replies, which for a Process is its PTY writer.
func (s *Screen) SendKey(k uv.KeyPressEvent) {
	s.mu.Lock()
	defer s.leave()
	if s.closed {
		return
	}
	if t, ok := typedText(k); ok {
		s.active().SendText(t)
		return
	}
	s.active().SendKey(k)
}

// typedText returns what a key types when that is text. x/vt encodes a
// key from its code and modifiers alone and sends nothing for a printable
// key with Shift or Caps Lock, and a terminal reports "A" as shift+a: such
// keys are sent as the text they type (after ESC with Alt, as x/vt does).
// Keys with Ctrl, Meta, Super or Hyper, and keys that type nothing, are
// left to x/vt.
func typedText(k uv.KeyPressEvent) (string, bool) {
	mod := k.Mod &^ (uv.ModCapsLock | uv.ModNumLock | uv.ModScrollLock)
	if mod&^(uv.ModShift|uv.ModAlt) != 0 {
		return "", false
	}
	text := k.Text
	if text == "" && mod&uv.ModShift != 0 && k.Code < uv.KeyExtended && unicode.IsPrint(k.Code) {
		text = string(unicode.ToUpper(k.Code))
		if k.ShiftedCode != 0 {
			text = string(k.ShiftedCode)
		}
	}
	if text == "" || (k.Mod == 0 && k.Code != uv.KeyExtended) {
		return "", false // x/vt sends a plain key's code
	}
	if mod&uv.ModAlt != 0 {
		text = "\x1b" + text
	}
	return text, true
}

// TakeLines returns the lines committed since the last call, in order.
func (s *Screen) TakeLines() []Line {
	s.mu.Lock()
	defer s.leave()
	return s.take()
}

func (s *Screen) take() []Line {
	if s.plain {
		return nil // no line is read after a panic (contain.go)
	}
	return s.lines.take()
}

// Settle commits the lines held back because the program was redrawing
// around them (see the package documentation) and returns every line
// committed since the last TakeLines. Call it once output has been quiet
// for a while.
func (s *Screen) Settle() []Line {
	s.mu.Lock()
	defer s.leave()
	if s.plain {
		return nil
	}
	s.applyHeld()
	s.lines.settle(false, s)
	s.alt.observe(true, s)
	// Output paused: the rings' open blocks give back their room.
	s.hist.rows.idle()
	s.lines.replay.seen.idle()
	return s.take()
}

// Flush ends the stream: it commits everything still uncommitted (held
// back lines, the cursor line and any other non-blank line not committed
// with its current text) and returns every line committed since the last
// TakeLines.
func (s *Screen) Flush() []Line {
	s.mu.Lock()
	defer s.leave()
	if s.plain {
		return nil
	}
	s.applyHeld()
	s.lines.settle(true, s)
	s.alt.observe(false, s)
	s.alt.flush(s)
	return s.take()
}

// Resize changes the screen size. Rows and columns below 1 count as 1.
// When the screen gets shorter than the cursor's row, rows leave at the
// top into the scrollback, as on a terminal; when it gets taller, rows
// come back from the scrollback (pullBack); a new width reflows the lines
// (reflow.go). A closed screen (its program has exited) is resized too:
// a UI goes on showing it.
func (s *Screen) Resize(rows, cols int) {
	rows, cols = max(rows, 1), max(cols, 1)
	s.mu.Lock()
	defer s.leave()
	if s.plain {
		s.resizePlain(rows, cols)
		return
	}
	s.applyHeld()
	if s.closed && !s.quiet() {
		return // the program ended in the middle of a sequence: no write ends it
	}
	if !s.quiet() {
		// The program is in the middle of a sequence or a character: the
		// screen cannot rearrange itself under it. The next write that
		// ends between sequences applies the size.
		s.deferred = &[2]int{rows, cols}
		return
	}
	s.deferred = nil
	s.resize(rows, cols)
}

func (s *Screen) resize(rows, cols int) {
	if rows == s.rows && cols == s.cols {
		return
	}
	s.lines.passed() // the frame drawn for the old size was shown
	s.lines.replay.sizeChanged()
	s.alt.observe(false, s) // the frame drawn for the old size
	s.alt.resized()
	s.cutLines = false
	if cols != s.cols {
		// After what the resize itself commits: the program's redraw
		// comes next.
		defer s.lines.widthChanged()
		oldRows := s.rows
		s.reflowHistory(cols)
		if freed, ok := s.reflow(rows, cols); ok {
			if s.alt.em != nil {
				s.alt.resize(rows, cols)
			}
			// As in tmux, the rows a taller screen adds and the rows its
			// lines free at the new width come back from the scrollback.
			s.pullBack(max(rows-oldRows, 0) + freed)
			return
		}
		s.cutLines = true
	}
	if pos := s.main.CursorPosition(); rows < s.rows && pos.Y >= rows && s.lines.wholeRegion() {
		// As a terminal does when it gets shorter: the rows above go into
		// the scrollback, so the cursor's row and what is above it stay
		// in view rather than being cut off at the bottom.
		s.lines.shortened(pos.Y-rows+1, s)
		waiting := s.main.PendingWrap()
		k := strconv.Itoa(pos.Y - rows + 1)
		_, _ = s.main.Write([]byte("\x1b[" + k + "S"))
		s.lines.harvest(s)
		_, _ = s.main.Write([]byte("\x1b[" + k + "A"))
		if waiting {
			// The move up ended the cursor's wait to wrap after text that
			// fills its row: the next character went over the last one.
			s.pendWrap(rows - 1)
		}
	}
	// Rows under a shorter screen are cut: their lines leave for good,
	// so they are committed as lines that scroll off are. A line that
	// starts above the cut is committed whole too, and recorded below with
	// what is left of it, so that it is not committed again cut short.
	// The lines the new width breaks above them are committed first: a
	// screen never resized commits from the top down, and a line's
	// commit reads the lines below it (a paragraph drawn anew,
	// mainLines.rewrapped).
	broken := s.lines.cutRows(rows, cols, s)
	straddles := s.lines.cutBelow(rows, s)
	s.lines.endRegionCarry()
	oldRows, oldCols := s.rows, s.cols
	s.rows, s.cols = rows, cols
	s.main.Resize(cols, rows)
	if straddles >= 0 {
		// The line cut at the bottom ends on the last row now: its rows
		// under it are gone, and a screen grown again shows blank rows
		// there, no part of it (the line it is, and its text, end there:
		// trailing blanks and all, as recordCut records it).
		if c := s.main.CellAt(cols-1, rows-1); c != nil {
			clearWrap(c)
		}
	}
	s.main.SetScrollbackSize(queueRows(rows))
	if s.alt.em != nil {
		s.alt.resize(rows, cols)
	}
	s.lines.resizedTo(rows, cols, s)
	s.lines.recordCut(straddles, broken)
	if rows > oldRows && cols == oldCols {
		s.pullBack(rows - oldRows)
	}
}

// pullBack brings up to n rows back from the scrollback to the top of a
// screen that got taller, or whose lines take fewer rows at a new width,
// as tmux does: what a shorter screen pushed out comes back into view, and
// the pane is not left blank under its text.
// Everything on the screen moves down by the rows that come back, the
// cursor too; only blank rows under the cursor and the text make room.
// Rows come back from the start of a line and only if they have the
// current width. Lines that left whole were committed then and are
// recorded as such; a line that had only begun to leave takes its state
// back from the carry.
func (s *Screen) pullBack(n int) {
	if s.alt.em != nil || !s.lines.wholeRegion() {
		return
	}
	total := s.hist.len()
	n = min(n, s.blankBottom(), s.pullable, total)
	k, whole := 0, 0
	for i := 1; i <= min(n, total); i++ {
		if int(s.hist.at(total-i).cols) != s.cols {
			break
		}
		k = i
		if s.hist.startsLine(total - i) {
			whole = i // the rows from here down are whole lines
		}
	}
	// As in tmux, the first row that comes back may be in the middle of a
	// line: the rows of its start stay in the scrollback, carried (kept),
	// as when a line's first rows scroll off. A start that cannot be
	// carried (rows of another width, too many) keeps its line whole in
	// the scrollback.
	var kept []byte // nil: the first row is a line's first
	keptRows := 0
	if k > whole {
		first := total - k
		j := first - 1
		for j >= 0 && s.hist.at(j).wrapped && int(s.hist.at(j).cols) == s.cols && first-j <= maxReflowRows {
			j--
		}
		if !s.hist.startsLine(j + 1) {
			// Its start is further up, or was dropped at the cap: the
			// line's text is not all here to be carried.
			k = whole
		} else {
			kept, keptRows = []byte{}, first-j-1
			for i := j + 1; i < first; i++ {
				kept = capLine(append(kept, s.hist.at(i).text...))
			}
		}
	}
	if k == 0 {
		return
	}
	// The rows are kept rendered: a scratch emulator turns them back into
	// cells, so the program's pen and saved cursor are left alone. Text
	// does not always give back the cells it came from (a modifier printed
	// alone after a blank joins it): then nothing comes back.
	scratch := vt.NewEmulator(s.cols, k)
	defer scratch.Close()
	for i := range k {
		h := s.hist.at(total - k + i)
		row := string(s.hist.appendStyled(nil, h))
		_, _ = scratch.Write([]byte("\x1b[" + strconv.Itoa(i+1) + ";1H" + row + "\x1b[0m"))
		cells := scratch.Line(i)
		text := strings.TrimRight(string(appendText(nil, cells, s.cols)), " ")
		if rowEnd(cells, s.cols) != int(h.end) || text != strings.TrimRight(h.text, " ") {
			return
		}
	}
	back := s.hist.popNewest(k)
	s.pullable -= k
	s.own = max(s.own-k, 0)
	states := s.left[max(len(s.left)-k, 0):]
	if _, carried, _ := s.lines.carried(); back[k-1].wrapped && !carried && len(states) > 0 {
		// The newest row's line went on into rows that are gone (see
		// below): it is the text it shows, not the line that left.
		states = append(states[:len(states)-1:len(states)-1], leftRow{})
	}
	s.dropLeft(k)
	pos := s.main.CursorPosition()
	waiting := s.main.PendingWrap()
	// The newest row goes on into the top row only while that row is the
	// rest of its line (carried): after a reset or an erase the top row
	// starts a line of its own, whatever the scrollback's row says.
	_, carried, _ := s.lines.carried()
	_, _ = s.main.Write([]byte("\x1b[" + strconv.Itoa(k) + "T")) // rows down, k blank rows on top
	for i, h := range back {
		for x := 0; x < s.cols; {
			c := scratch.CellAt(x, i)
			if c == nil || (c.Width == 0 && c.Content == "") { // a wide character's second cell
				x++
				continue
			}
			s.main.SetCell(x, i, c)
			x += max(c.Width, 1)
		}
		if h.wrapped && (i < k-1 || carried) {
			if c := s.main.CellAt(s.cols-1, i); c != nil {
				setWrap(c, h.pad)
			}
		}
	}
	s.lines.pulledBack(k, kept, keptRows, states)
	if waiting { // after a character in the last column, waiting to wrap
		s.pendWrap(pos.Y + k)
		return
	}
	_, _ = s.main.Write([]byte("\x1b[" + strconv.Itoa(pos.Y+k+1) + ";" + strconv.Itoa(pos.X+1) + "H")) // the cursor stays on its line
}

// blankBottom counts the blank rows at the bottom of the main screen
// under the cursor's row.
func (s *Screen) blankBottom() int {
	cy := s.main.CursorPosition().Y
	n := 0
	for y := s.rows - 1; y > cy; y-- {
		for x := range s.cols {
			if c := s.main.CellAt(x, y); c != nil && !plainBlank(c) {
				return n
			}
		}
		n++
	}
	return n
}

// now is the time on the screen's clock. The bytes of one write arrived
// together: what it commits is stamped with one reading of the clock,
// not one per line.
func (s *Screen) now() time.Time {
	if !s.writing {
		return s.clock()
	}
	if s.writeTime.IsZero() {
		s.writeTime = s.clock()
	}
	return s.writeTime
}

// Size returns the screen's rows and columns.
func (s *Screen) Size() (rows, cols int) {
	s.mu.Lock()
	defer s.leave()
	return s.rows, s.cols
}

// active is the emulator the program currently draws on.
func (s *Screen) active() *vt.Emulator {
	if s.alt.em != nil {
		return s.alt.em
	}
	return s.main
}

// Snapshot returns a copy of the visible state.
func (s *Screen) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	e := s.active()
	pos := e.CursorPosition()
	snap := Snapshot{
		Rows: s.rows, Cols: s.cols,
		Lines:          make([]string, s.rows),
		Cursor:         Cursor{X: pos.X, Y: pos.Y},
		CursorVisible:  !s.cursorHidden(),
		AltScreen:      s.onAlt(),
		BracketedPaste: s.bracketedPaste,
		Title:          s.title,
	}
	var b []byte
	for y := range s.rows {
		b = appendText(b[:0], e.Line(y), s.cols)
		snap.Lines[y] = strings.TrimRight(string(b), " ")
	}
	return snap
}

// BracketedPaste reports whether the program asked for bracketed paste:
// how text is pasted into it.
func (s *Screen) BracketedPaste() bool {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	return s.bracketedPaste
}

// Render returns the visible screen, or the view scrolled back by
// scrollOffset rows into the scrollback, as rows of text with SGR styles
// and hyperlinks, joined by newlines, trailing blanks trimmed. The
// alternate screen has no scrollback: the offset is ignored there.
func (s *Screen) Render(scrollOffset int) string {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	return s.render(scrollOffset)
}

// View is what a pane shows of a screen, read at one moment: the rows and
// what they were rendered with.
type View struct {
	// Rows are the rows as Render renders them, joined by newlines.
	Rows string
	// Scrollback is ScrollbackLen; Offset how many rows back into it the
	// view is scrolled (0 on the alternate screen, which shows none of
	// it). The view's top row is row Scrollback-Offset in Render numbering.
	Scrollback, Offset int
	// Cursor is where the cursor is on the screen; CursorVisible whether
	// the program shows it.
	Cursor        Cursor
	CursorVisible bool
}

// View renders the screen with row top (Render numbering) at the top of
// the view, or the live screen when top < 0: a scrolled view stays on the
// same rows while the scrollback grows.
func (s *Screen) View(top int) View {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	v := View{Scrollback: s.hist.len(), CursorVisible: !s.cursorHidden()}
	if top >= 0 {
		v.Offset = min(max(v.Scrollback-top, 0), v.Scrollback)
	}
	if s.onAlt() {
		v.Offset = 0
	}
	pos := s.active().CursorPosition()
	v.Cursor = Cursor{X: pos.X, Y: pos.Y}
	v.Rows = s.render(v.Offset)
	return v
}

// render is Render with s.mu held.
func (s *Screen) render(scrollOffset int) string {
	e := s.active()
	n := s.hist.len()
	if s.onAlt() {
		n = 0
	}
	off := min(max(scrollOffset, 0), n)
	var sb strings.Builder
	for i := range s.rows {
		if i > 0 {
			sb.WriteByte('\n')
		}
		idx := n - off + i
		if idx < n {
			s.rowBuf = s.hist.appendStyled(s.rowBuf[:0], s.hist.at(idx))
			sb.Write(s.rowBuf)
			continue
		}
		s.rowBuf = appendRow(s.rowBuf[:0], e.Line(idx-n), s.cols)
		sb.Write(s.rowBuf)
	}
	return sb.String()
}

// ScrollbackLen returns the number of rows in the scrollback.
func (s *Screen) ScrollbackLen() int {
	s.mu.Lock()
	defer s.leave()
	return s.hist.len()
}

// Text returns rows from through to (inclusive, in the numbering Render
// uses: scrollback rows first) as plain text, one line a line: rows the
// terminal wrapped are joined, trailing blanks trimmed. For copying.
func (s *Screen) Text(from, to int) string {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	n := s.hist.len()
	from, to = max(from, 0), min(to, n+s.rows-1)
	e := s.active()
	var out, line strings.Builder
	for r := from; r <= to; r++ {
		text, wrapped, pad, cols := s.textRow(e, n, r)
		line.WriteString(text)
		if wrapped && r < to {
			// Blanks at the edge of a wrapped row are the line's spaces.
			line.WriteString(strings.Repeat(" ", max(cols-b2i(pad)-ansi.StringWidth(text), 0)))
			continue
		}
		out.WriteString(strings.TrimRight(line.String(), " "))
		line.Reset()
		if r < to {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// textRow is row r (Render numbering; n rows of scrollback, then e's) as
// plain text, with whether the terminal wrapped it (and left a padding
// cell) and the width it has. s.mu is held.
func (s *Screen) textRow(e *vt.Emulator, n, r int) (text string, wrapped, pad bool, cols int) {
	if r < n {
		h := s.hist.at(r)
		return h.text, h.wrapped, h.pad, int(h.cols)
	}
	row := e.Line(r - n)
	wrapped, pad = lineWrap(row, s.cols)
	return string(appendText(nil, row, s.cols)), wrapped, pad, s.cols
}

// Match is one occurrence of a search in a screen's rows.
type Match struct {
	// Row is the row it starts on, in the numbering Render uses (scrollback
	// rows first, 0 the oldest; visible row y is ScrollbackLen()+y).
	Row int
	// Spans are the cells it covers, one per row: a match in a line the
	// terminal wrapped goes on over the next rows.
	Spans []Span
}

// Span is the cells [From, To) of one row.
type Span struct{ Row, From, To int }

// Find returns every occurrence of query in the scrollback and the visible
// rows, ignoring case, oldest first. Rows the terminal wrapped are searched
// as the one line they are, so a match may cross from one row to the next.
func (s *Screen) Find(query string) []Match {
	q := strings.ToLower(query)
	if q == "" {
		return nil
	}
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	var (
		out  []Match
		line lineIndex
	)
	n := s.hist.len()
	e := s.active()
	for r := range n + s.rows {
		text, wrapped, pad, cols := s.textRow(e, n, r)
		line.add(r, text)
		if wrapped {
			// The row is full to its edge: what looks like trailing blanks
			// are spaces of the line (a padding cell is not).
			line.padTo(r, cols-b2i(pad))
			continue
		}
		out = line.find(q, out)
		line.reset()
	}
	return line.find(q, out)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lineIndex is a line of rows being searched: its text lowercased, and for
// each grapheme where it is (row and cell).
type lineIndex struct {
	text  strings.Builder
	at    []graphemeAt // per grapheme, in text order
	width int          // cells so far on the current row
}

// graphemeAt is where a grapheme of a lineIndex is: its byte offset in the
// text, and its row, cell and width on the screen.
type graphemeAt struct{ off, row, col, width int }

func (l *lineIndex) reset() { l.text.Reset(); l.at = l.at[:0]; l.width = 0 }

// add appends a row's text.
func (l *lineIndex) add(row int, text string) {
	l.width = 0
	for len(text) > 0 {
		cluster, w := ansi.FirstGraphemeCluster(text, ansi.GraphemeWidth)
		if cluster == "" {
			break
		}
		text = text[len(cluster):]
		l.at = append(l.at, graphemeAt{off: l.text.Len(), row: row, col: l.width, width: w})
		l.text.WriteString(strings.ToLower(cluster))
		l.width += w
	}
}

// padTo adds the blanks that take the current row to cols cells.
func (l *lineIndex) padTo(row, cols int) {
	for ; l.width < cols; l.width++ {
		l.at = append(l.at, graphemeAt{off: l.text.Len(), row: row, col: l.width, width: 1})
		l.text.WriteByte(' ')
	}
}

// find appends the matches of q in the line.
func (l *lineIndex) find(q string, out []Match) []Match {
	text := l.text.String()
	for start := 0; start < len(text); {
		i := strings.Index(text[start:], q)
		if i < 0 {
			break
		}
		from, to := start+i, start+i+len(q)
		start = to
		// The graphemes the match covers: a lowercased letter may change
		// length, so the match is taken to whole graphemes.
		first, _ := slices.BinarySearchFunc(l.at, from, func(c graphemeAt, off int) int { return c.off - off })
		if first == len(l.at) || l.at[first].off > from {
			first--
		}
		last, _ := slices.BinarySearchFunc(l.at, to, func(c graphemeAt, off int) int { return c.off - off })
		var m Match
		for _, c := range l.at[first:last] {
			if k := len(m.Spans) - 1; k >= 0 && m.Spans[k].Row == c.row {
				m.Spans[k].To = c.col + c.width
				continue
			}
			m.Spans = append(m.Spans, Span{Row: c.row, From: c.col, To: c.col + c.width})
		}
		if len(m.Spans) > 0 {
			m.Row = m.Spans[0].Row
			out = append(out, m)
		}
	}
	return out
}

// Contains reports whether text shows on the visible screen or in the last
// screenful of scrollback, rows the terminal wrapped joined: what this run
// of the program shows. A previous run's rows kept above it (Before) are
// left out: a message typed into this run must not be taken for shown by
// its echo in the run before, typed into that one.
func (s *Screen) Contains(text string) bool {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	var b []byte
	n := s.hist.len()
	for i := max(0, n-s.rows, n-s.own); i < n; i++ {
		h := s.hist.at(i)
		b = append(b, h.text...)
		if !h.wrapped {
			if strings.Contains(string(b), text) {
				return true
			}
			b = b[:0]
		}
	}
	e := s.active()
	for y := range s.rows {
		b = appendText(b, e.Line(y), s.cols)
		if wrapped, _ := wrapOf(e.CellAt(s.cols-1, y)); !wrapped || y == s.rows-1 {
			if strings.Contains(string(b), text) {
				return true
			}
			b = b[:0]
		}
	}
	return false
}

// CursorLine returns the line the cursor is on: its row and the rows the
// terminal wrapped it over, joined. A program reading lines, or a shell's
// line editor, shows the line being typed there.
func (s *Screen) CursorLine() string {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	e := s.active()
	y := e.CursorPosition().Y
	start, end := y, y
	if s.alt.em == nil && !s.plain {
		start, end = s.lines.span(y)
	}
	var b []byte
	for r := start; r <= end; r++ {
		b = appendText(b, e.Line(r), s.cols)
	}
	return strings.TrimRight(string(b), " ")
}

// CursorBlock returns the rows around the cursor that show text, joined
// with newlines: the cursor's row and the rows above and below it up to a
// row with no text (blank, or only borders and rules). When the cursor's
// own row has no text, it is on an empty line of the input under the
// lines typed so far, and the block runs up to them. An agent CLI keeps
// the cursor in its input box, so this is what the box holds.
func (s *Screen) CursorBlock() string {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	e := s.active()
	y := e.CursorPosition().Y
	row := func(r int) string {
		return strings.TrimRight(string(appendText(nil, e.Line(r), s.cols)), " ")
	}
	top, bot := y, y
	for top > 0 && RowKey(row(top)) == "" {
		top--
	}
	for top > 0 && RowKey(row(top-1)) != "" {
		top--
	}
	for bot < s.rows-1 && RowKey(row(bot+1)) != "" {
		bot++
	}
	rows := make([]string, 0, bot-top+1)
	for r := top; r <= bot; r++ {
		rows = append(rows, row(r))
	}
	return strings.Join(rows, "\n")
}

// BeforeCursor returns what the rows of CursorBlock show before the
// cursor: the rows above the cursor's and the cursor's row up to it. In an
// input box that is the prompt and what has been typed so far; a
// placeholder drawn after the cursor is not in it.
func (s *Screen) BeforeCursor() string {
	s.mu.Lock()
	defer s.leave()
	s.applyHeld()
	e := s.active()
	pos := e.CursorPosition()
	row := func(r, upto int) string {
		return strings.TrimRight(string(appendText(nil, e.Line(r), upto)), " ")
	}
	top := pos.Y
	for top > 0 && RowKey(row(top, s.cols)) == "" {
		top--
	}
	for top > 0 && RowKey(row(top-1, s.cols)) != "" {
		top--
	}
	rows := make([]string, 0, pos.Y-top+1)
	for r := top; r < pos.Y; r++ {
		rows = append(rows, row(r, s.cols))
	}
	rows = append(rows, row(pos.Y, min(pos.X, s.cols)))
	return strings.Join(rows, "\n")
}

// Close stops the screen's goroutines. Later writes fail with ErrClosed;
// the screen can still be read.
func (s *Screen) Close() error {
	func() {
		s.mu.Lock()
		defer s.leave()
		if !s.closed {
			s.closed = true
			s.applyHeld()
		}
	}()
	s.mu.Lock()
	pipes := []io.Closer{s.mainPipe, s.altPipe} // a panic above may have replaced them
	s.mu.Unlock()
	for _, p := range pipes {
		if p != nil {
			_ = p.Close()
		}
	}
	s.wg.Wait()
	return nil
}
