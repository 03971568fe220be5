package vt

import (
	"image/color"
	"io"
	"sync/atomic"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/ultraviolet/screen"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// Logger represents a logger interface.
type Logger interface {
	Printf(format string, v ...any)
}

// Emulator represents a virtual terminal emulator.
type Emulator struct {
	handlers

	// The terminal's indexed 256 colors.
	colors [256]color.Color

	// Both main and alt screens and a pointer to the currently active screen.
	scrs [2]Screen
	scr  *Screen

	// Character sets
	charsets [4]CharSet

	// log is the logger to use.
	logger Logger

	// terminal default colors.
	defaultFg, defaultBg, defaultCur color.Color
	fgColor, bgColor, curColor       color.Color

	// Terminal modes.
	modes ansi.Modes
	// autoWrap mirrors modes[ansi.ModeAutoWrap], read for every printed
	// character (swarm patch 4: the map lookup of an interface key was 8 %
	// of the time spent on plain output).
	autoWrap bool

	// The last written character.
	lastChar rune // either ansi.Rune or ansi.Grapheme
	// The bytes of a grapheme cluster still being composed. Bytes rather than
	// runes, so the segmenter can read the buffer without a conversion on
	// every character.
	grapheme []byte

	// swarm patch 12: csiParams holds the parameters of a CSI sequence read
	// by plainCsi.
	csiParams ansi.Params

	// The ANSI parser to use.
	parser *ansi.Parser
	cb     Callbacks

	// The terminal's icon name and title.
	iconName, title string
	// The current reported working directory. This is not validated.
	cwd string

	// tabstop is the list of tab stops.
	tabstops *uv.TabStops

	// I/O pipes.
	pr *io.PipeReader
	pw *io.PipeWriter

	// The GL and GR character set identifiers.
	gl, gr  int
	gsingle int // temporarily select GL or GR

	// Indicates if the terminal is closed. swarm patch 16: atomic, as
	// Close and Write may run beside the goroutine reading the replies.
	closed atomic.Bool

	// parseAll: every byte goes through the parser, as upstream, past
	// swarm's fast paths (Write); tests compare the two.
	// (swarm patch 8, 10, 12 and 13)
	parseAll bool

	// atPhantom indicates if the cursor is out of bounds.
	// When true, and a character is written, the cursor is moved to the next line.
	atPhantom bool
}

var _ Terminal = (*Emulator)(nil)

// NewEmulator creates a new virtual terminal emulator.
func NewEmulator(w, h int) *Emulator {
	t := new(Emulator)
	t.scrs[0] = *NewScreen(w, h)
	// swarm patch 15: the alternate screen's cells are allocated when a
	// program first switches to it (altScreen): most never do, and its
	// cells were half of an idle emulator's memory.
	t.scr = &t.scrs[0]
	t.scrs[0].cb = &t.cb
	t.scrs[1].cb = &t.cb
	t.parser = ansi.NewParser()
	t.parser.SetParamsSize(parser.MaxParamsSize)
	// swarm patch 5: 64 KiB, not 4 MiB, allocated (and zeroed, so resident)
	// for every emulator. A longer string (an OSC 52 clipboard of a big
	// file, a sixel image) is cut, which swarm, which shows neither, does
	// not mind.
	t.parser.SetDataSize(64 * 1024)
	t.parser.SetHandler(ansi.Handler{
		Print:     t.handlePrint,
		Execute:   t.handleControl,
		HandleCsi: t.handleCsi,
		HandleEsc: t.handleEsc,
		HandleDcs: t.handleDcs,
		HandleOsc: t.handleOsc,
		HandleApc: t.handleApc,
		HandlePm:  t.handlePm,
		HandleSos: t.handleSos,
	})
	t.pr, t.pw = io.Pipe()
	t.resetModes()
	t.tabstops = uv.DefaultTabStops(w)
	t.registerDefaultHandlers()

	// Default colors
	t.defaultFg = color.White
	t.defaultBg = color.Black
	t.defaultCur = color.White

	return t
}

// SetLogger sets the terminal's logger.
func (e *Emulator) SetLogger(l Logger) {
	e.logger = l
}

// SetCallbacks sets the terminal's callbacks.
func (e *Emulator) SetCallbacks(cb Callbacks) {
	e.cb = cb
	e.scrs[0].cb = &e.cb
	e.scrs[1].cb = &e.cb
}

// Touched returns the touched lines in the current screen buffer.
func (e *Emulator) Touched() []*uv.LineData {
	return e.scr.Touched()
}

// String returns a string representation of the underlying screen buffer.
func (e *Emulator) String() string {
	s := e.scr.buf.String()
	return uv.TrimSpace(s)
}

// Render renders a snapshot of the terminal screen as a string with styles and
// links encoded as ANSI escape codes.
func (e *Emulator) Render() string {
	return e.scr.buf.Render()
}

var _ uv.Screen = (*Emulator)(nil)

// Bounds returns the bounds of the terminal.
func (e *Emulator) Bounds() uv.Rectangle {
	return e.scr.Bounds()
}

// CellAt returns the current focused screen cell at the given x, y position.
// It returns nil if the cell is out of bounds.
func (e *Emulator) CellAt(x, y int) *uv.Cell {
	return e.scr.CellAt(x, y)
}

// Line returns row y of the current focused screen, nil if y is out of
// bounds. It is the screen's own storage, not a copy: it is valid until the
// next write or resize, and must not be changed (swarm patch 9).
func (e *Emulator) Line(y int) uv.Line {
	return e.scr.buf.Line(y)
}

// SetCell sets the current focused screen cell at the given x, y position.
func (e *Emulator) SetCell(x, y int, c *uv.Cell) {
	e.scr.SetCell(x, y, c)
}

// WidthMethod returns the width method used by the terminal.
func (e *Emulator) WidthMethod() uv.WidthMethod {
	if e.isModeSet(ansi.ModeUnicodeCore) {
		return ansi.GraphemeWidth
	}
	return ansi.WcWidth
}

// Draw implements the [uv.Drawable] interface.
//
// It paints the entire visible screen, not just the lines that changed
// since the last write: most hosts (including Bubble Tea) rebuild the frame
// every render pass and diff it themselves, so an incremental paint here
// would make content vanish between writes.
func (e *Emulator) Draw(scr uv.Screen, area uv.Rectangle) {
	bg := uv.EmptyCell
	bg.Style.Bg = e.BackgroundColor()
	screen.FillArea(scr, &bg, area)
	for y := 0; y < e.Height(); y++ {
		for x := 0; x < e.Width(); {
			w := 1
			cell := e.CellAt(x, y)
			if cell != nil {
				cell = cell.Clone()
				if cell.Width > 1 {
					w = cell.Width
				}
				if cell.Style.Bg == nil && e.bgColor != nil {
					cell.Style.Bg = e.bgColor
				}
				if cell.Style.Fg == nil && e.fgColor != nil {
					cell.Style.Fg = e.fgColor
				}
				scr.SetCell(x+area.Min.X, y+area.Min.Y, cell)
			}
			x += w
		}
	}
}

// Height returns the height of the terminal.
func (e *Emulator) Height() int {
	return e.scr.Height()
}

// Width returns the width of the terminal.
func (e *Emulator) Width() int {
	return e.scr.Width()
}

// CursorPosition returns the terminal's cursor position.
func (e *Emulator) CursorPosition() uv.Position {
	x, y := e.scr.CursorPosition()
	return uv.Pos(x, y)
}

// CursorHidden reports whether the cursor is currently hidden. Full-screen
// TUIs hide the cursor constantly, and a host that renders the cursor on
// top of this emulator must respect that or it will show a phantom cursor.
func (e *Emulator) CursorHidden() bool {
	return e.scr.cur.Hidden
}

// CursorStyle returns the current cursor style and whether it is blinking.
func (e *Emulator) CursorStyle() (style CursorStyle, blink bool) {
	return e.scr.cur.Style, !e.scr.cur.Steady
}

// PendingWrap reports whether the cursor waits to wrap: a character was
// printed in the last column, and the next one goes to the next row
// (swarm patch 14).
func (e *Emulator) PendingWrap() bool { return e.atPhantom }

// Resize resizes the terminal.
func (e *Emulator) Resize(width int, height int) {
	x, y := e.scr.CursorPosition()
	if e.atPhantom {
		if x < width-1 {
			e.atPhantom = false
			x++
		}
	}
	// swarm patch 21: a cursor still in the last column keeps its pending
	// wrap (setCursor below ends it): the next character goes to the next
	// row, as it would have without the resize.
	pending := e.atPhantom && x == width-1

	if y < 0 {
		y = 0
	}
	if y >= height {
		y = height - 1
	}
	if x < 0 {
		x = 0
	}
	if x >= width {
		x = width - 1
	}

	e.scrs[0].Resize(width, height)
	if e.scrs[1].buf != nil { // swarm patch 15
		e.scrs[1].Resize(width, height)
	}
	e.tabstops = uv.DefaultTabStops(width)

	e.setCursor(x, y)
	e.atPhantom = pending // swarm patch 21

	if e.isModeSet(ansi.ModeInBandResize) {
		_, _ = io.WriteString(e.pw, ansi.InBandResize(e.Height(), e.Width(), 0, 0))
	}
}

// Read reads data from the terminal input buffer.
func (e *Emulator) Read(p []byte) (n int, err error) {
	if e.closed.Load() { // swarm patch 16
		return 0, io.EOF
	}

	return e.pr.Read(p) //nolint:wrapcheck
}

// Close closes the terminal.
func (e *Emulator) Close() error {
	if !e.closed.CompareAndSwap(false, true) { // swarm patch 16
		return nil
	}

	return e.pw.CloseWithError(io.EOF) //nolint:wrapcheck
}

// Write writes data to the terminal output buffer.
func (e *Emulator) Write(p []byte) (n int, err error) {
	if e.closed.Load() { // swarm patch 16
		return 0, io.ErrClosedPipe
	}

	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= ansi.SP && c < ansi.DEL && e.parser.State() == parser.GroundState && !e.parseAll {
			// swarm patch 8 and 10: printable ASCII in the ground state is printed
			// and leaves the parser where it is: skip its tables. A run of
			// it is printed as a run: each character but the last is
			// complete once the next arrives. The last is complete too
			// when a control or a plain CSI sequence follows (their
			// handlers flush the cluster) or the write ends (the buffer is
			// flushed then); it is held back, as handlePrint holds it,
			// when a byte of a multi-byte character follows, which may be
			// a combining mark, or another escape, which that byte may cut
			// short.
			e.handlePrint(rune(c))
			j := i + 1
			for j < len(p) && p[j] >= ansi.SP && p[j] < ansi.DEL {
				j++
			}
			end := j
			var csi ansi.Cmd // a plain CSI sequence that ends the run
			csiLen := 0
			if j < len(p) && p[j] == ansi.ESC {
				csi, e.csiParams, csiLen = ScanPlainCsi(p[j:], e.csiParams[:0])
			}
			if j < len(p) && (p[j] >= 0x80 || p[j] == ansi.ESC && csiLen == 0) {
				end = j - 1
			}
			if end > i {
				e.grapheme = e.grapheme[:0] // p[i], printed with the run
				for run := p[i:end]; len(run) > 0; {
					k := e.printASCII(run)
					if k == 0 {
						e.handleGrapheme(string(run[:1]), 1)
						k = 1
					}
					run = run[k:]
				}
				if end < j {
					e.grapheme = append(e.grapheme, p[j-1])
				}
				i = j - 1
			}
			if csiLen > 0 {
				e.handleCsi(csi, e.csiParams)
				i = j + csiLen - 1
			}
		} else if n := e.plainCsi(p[i:]); n > 0 { // swarm patch 12
			i += n - 1
		} else if groundControl(c) && e.parser.State() == parser.GroundState && !e.parseAll {
			// swarm patch 13: a control character in the ground state is
			// executed and leaves the parser where it is, as printable
			// ASCII is printed: skip its tables (two per log line).
			e.handleControl(c)
		} else {
			if c == ansi.ESC {
				// swarm patch 25: an escape ends the cluster being built,
				// as the end of a write does. Its handler flushes only at
				// its end, and a UTF-8 byte that cuts the escape short
				// printed into the cluster from before it, so the cells
				// depended on whether a write ended at the ESC.
				e.flushGrapheme()
			}
			e.parser.Advance(c)
		}
		// Flush the last cluster once the whole slice is written. Every
		// sequence handler flushes on its own way in, so a cluster only has to
		// survive until either the next printable character extends it or the
		// write ends.
		if len(e.grapheme) > 0 && i == len(p)-1 {
			e.flushGrapheme()
		}
	}
	return len(p), nil
}

// groundControl reports whether the parser, in the ground state, executes
// c and stays there: the C0 controls but ESC, and DEL (swarm patch 13).
func groundControl(c byte) bool {
	return c < ansi.SP && c != ansi.ESC || c == ansi.DEL
}

// maxPlainCsi bounds the parameters ScanPlainCsi reads: a sequence with
// more is left to the parser.
const maxPlainCsi = 16

// plainCsi handles a complete plain CSI sequence at the start of b (see
// ScanPlainCsi) as the parser would, and returns its length; 0 for
// anything else, which the parser reads byte by byte as before.
//
// swarm patch 12: the parser's state machine takes a table lookup and an
// action per byte; a coloured log line is mostly such sequences.
func (e *Emulator) plainCsi(b []byte) int {
	if e.parser.State() != parser.GroundState || e.parseAll {
		return 0
	}
	cmd, params, n := ScanPlainCsi(b, e.csiParams[:0])
	if n == 0 {
		return 0
	}
	e.csiParams = params
	e.handleCsi(cmd, params)
	return n
}

// ScanPlainCsi reads a complete CSI sequence at the start of b whose
// parameters are decimal numbers separated by ';' and that has no prefix
// or intermediate byte (an SGR, a cursor move, an erase: nearly all of
// them). It returns the command and the parameters an ansi.Parser in the
// ground state would have collected (appended to params), and the
// sequence's length; n is 0 for anything else (a prefix, ':', a control
// inside, a sequence cut by the end of b, more than 15 parameters or 9
// digits), which a parser has to read.
//
// swarm patch 12: exported so that a program running a parser of its own in
// front of the emulator reads these sequences with the same rule.
func ScanPlainCsi(b []byte, params ansi.Params) (cmd ansi.Cmd, _ ansi.Params, n int) {
	if len(b) < 3 || b[0] != ansi.ESC || b[1] != '[' {
		return 0, params, 0
	}
	v, digits := parser.MissingParam, 0
	for j := 2; j < len(b); j++ {
		switch c := b[j]; {
		case c >= '0' && c <= '9':
			if digits++; digits > 9 {
				return 0, params, 0 // the parser's arithmetic, not worth copying
			}
			if v == parser.MissingParam {
				v = 0
			}
			v = v*10 + int(c-'0')
		case c == ';':
			if len(params) == maxPlainCsi-1 {
				return 0, params, 0
			}
			params = append(params, ansi.Param(v))
			v, digits = parser.MissingParam, 0
		case c >= '@' && c <= '~':
			if j > 2 { // "CSI m" has no parameter; "CSI ; m" has two
				params = append(params, ansi.Param(v))
			}
			return ansi.Cmd(c), params, j + 1
		default:
			return 0, params, 0 // a prefix, an intermediate, ':', a control, a cut
		}
	}
	return 0, params, 0
}

// WriteString writes a string to the terminal output buffer.
func (e *Emulator) WriteString(s string) (n int, err error) {
	return e.Write([]byte(s))
}

// InputPipe returns the terminal's input pipe.
// This can be used to send input to the terminal.
func (e *Emulator) InputPipe() io.Writer {
	return e.pw
}

// Paste pastes text into the terminal.
// If bracketed paste mode is enabled, the text is bracketed with the
// appropriate escape sequences.
func (e *Emulator) Paste(text string) {
	if e.isModeSet(ansi.ModeBracketedPaste) {
		_, _ = io.WriteString(e.pw, ansi.BracketedPasteStart)
		defer io.WriteString(e.pw, ansi.BracketedPasteEnd) //nolint:errcheck
	}

	_, _ = io.WriteString(e.pw, text)
}

// SendText sends arbitrary text to the terminal.
func (e *Emulator) SendText(text string) {
	_, _ = io.WriteString(e.pw, text)
}

// SendKeys sends multiple keys to the terminal.
func (e *Emulator) SendKeys(keys ...uv.KeyEvent) {
	for _, k := range keys {
		e.SendKey(k)
	}
}

// ForegroundColor returns the terminal's foreground color. This returns nil if
// the foreground color is not set which means the outer terminal color is
// used.
func (e *Emulator) ForegroundColor() color.Color {
	if e.fgColor == nil {
		return e.defaultFg
	}
	return e.fgColor
}

// SetForegroundColor sets the terminal's foreground color.
func (e *Emulator) SetForegroundColor(c color.Color) {
	if c == nil {
		c = e.defaultFg
	}
	e.fgColor = c
	if e.cb.ForegroundColor != nil {
		e.cb.ForegroundColor(c)
	}
}

// SetDefaultForegroundColor sets the terminal's default foreground color.
func (e *Emulator) SetDefaultForegroundColor(c color.Color) {
	if c == nil {
		c = color.White
	}
	e.defaultFg = c
}

// BackgroundColor returns the terminal's background color. This returns nil if
// the background color is not set which means the outer terminal color is
// used.
func (e *Emulator) BackgroundColor() color.Color {
	if e.bgColor == nil {
		return e.defaultBg
	}
	return e.bgColor
}

// SetBackgroundColor sets the terminal's background color.
func (e *Emulator) SetBackgroundColor(c color.Color) {
	if c == nil {
		c = e.defaultBg
	}
	e.bgColor = c
	if e.cb.BackgroundColor != nil {
		e.cb.BackgroundColor(c)
	}
}

// SetDefaultBackgroundColor sets the terminal's default background color.
func (e *Emulator) SetDefaultBackgroundColor(c color.Color) {
	if c == nil {
		c = color.Black
	}
	e.defaultBg = c
}

// CursorColor returns the terminal's cursor color. This returns nil if the
// cursor color is not set which means the outer terminal color is used.
func (e *Emulator) CursorColor() color.Color {
	if e.curColor == nil {
		return e.defaultCur
	}
	return e.curColor
}

// SetCursorColor sets the terminal's cursor color.
func (e *Emulator) SetCursorColor(c color.Color) {
	if c == nil {
		c = e.defaultCur
	}
	e.curColor = c
	if e.cb.CursorColor != nil {
		e.cb.CursorColor(c)
	}
}

// SetDefaultCursorColor sets the terminal's default cursor color.
func (e *Emulator) SetDefaultCursorColor(c color.Color) {
	if c == nil {
		c = color.White
	}
	e.defaultCur = c
}

// IndexedColor returns a terminal's indexed color. An indexed color is a color
// between 0 and 255.
func (e *Emulator) IndexedColor(i int) color.Color {
	if i < 0 || i > 255 {
		return nil
	}

	c := e.colors[i]
	if c == nil {
		// Return the default color.
		return ansi.IndexedColor(i)
	}

	return c
}

// SetIndexedColor sets a terminal's indexed color.
// The index must be between 0 and 255.
func (e *Emulator) SetIndexedColor(i int, c color.Color) {
	if i < 0 || i > 255 {
		return
	}

	e.colors[i] = c
}

// resetTabStops resets the terminal tab stops to the default set.
func (e *Emulator) resetTabStops() {
	e.tabstops = uv.DefaultTabStops(e.Width())
}

func (e *Emulator) logf(format string, v ...any) {
	if e.logger != nil {
		e.logger.Printf(format, v...)
	}
}

// Scrollback returns the scrollback buffer for the main screen.
// Returns nil if the terminal is in alternate screen mode, as the alternate
// screen typically doesn't use scrollback.
func (e *Emulator) Scrollback() *Scrollback {
	// Return main screen's scrollback only
	return e.scrs[0].Scrollback()
}

// ScrollbackLen returns the number of lines in the scrollback buffer.
func (e *Emulator) ScrollbackLen() int {
	sb := e.Scrollback()
	if sb == nil {
		return 0
	}
	return sb.Len()
}

// ScrollbackCellAt returns the cell at the given position in the scrollback buffer.
// x is the column, y is the line index (0 = oldest line in scrollback).
// Returns nil if position is out of bounds.
func (e *Emulator) ScrollbackCellAt(x, y int) *uv.Cell {
	sb := e.Scrollback()
	if sb == nil {
		return nil
	}
	return sb.CellAt(x, y)
}

// SetScrollbackSize sets the maximum number of lines in the scrollback buffer.
func (e *Emulator) SetScrollbackSize(maxLines int) {
	e.scrs[0].SetScrollbackSize(maxLines)
}

// ClearScrollback clears the scrollback buffer.
func (e *Emulator) ClearScrollback() {
	sb := e.Scrollback()
	if sb != nil {
		sb.Clear()
	}
}

// altScreen returns the alternate screen, made the first time it is
// needed at the main screen's size (swarm patch 15).
func (e *Emulator) altScreen() *Screen {
	if e.scrs[1].buf == nil {
		e.scrs[1] = *NewScreen(e.scrs[0].Width(), e.scrs[0].Height())
		e.scrs[1].cb = &e.cb
	}
	return &e.scrs[1]
}

// IsAltScreen returns whether the terminal is in alternate screen mode.
func (e *Emulator) IsAltScreen() bool {
	return e.scr == &e.scrs[1]
}
