package vt

import (
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// printableASCII reports whether r is a character that can never join the
// grapheme cluster beside it. No ASCII character is a combining mark, a ZWJ, a
// spacing mark or a regional indicator, and CR and LF are not printable, so a
// cluster boundary between two of these is certain without asking the
// segmenter.
func printableASCII(r rune) bool {
	return r >= ansi.SP && r < ansi.DEL
}

// handlePrint handles printable characters.
//
// A character is held back rather than printed straight away, because the one
// after it may be a combining mark that belongs to the same cluster. Printing
// "e" from "e\u0301" before the mark arrives puts the base in one cell and
// leaves the mark to become a zero-width cell of its own, which the next write
// or erase then destroys.
func (e *Emulator) handlePrint(r rune) {
	// No ASCII character can extend the cluster before it: none of them is
	// Extend, ZWJ, SpacingMark, Prepend, a regional indicator, or part of an
	// Indic conjunct. So an ASCII character arriving is proof that whatever is
	// buffered is finished, and the buffer can go out.
	//
	// This is also what keeps the buffer from being re-segmented as it grows.
	// Asking where the clusters are on every character costs the length of the
	// buffer each time, which is quadratic over a long run of combining marks
	// that never resolves into more than one cluster.
	if printableASCII(r) {
		// Two printable ASCII characters in a row is the common case by a wide
		// margin, and needs no segmenting at all.
		if len(e.grapheme) == 1 && printableASCII(rune(e.grapheme[0])) {
			e.handleGrapheme(string(e.grapheme[:1]), 1) // swarm patch 3: a one-byte slice converts without allocating; string(byte) allocates
			e.grapheme = utf8.AppendRune(e.grapheme[:0], r)
			return
		}
		e.flushGrapheme()
	}

	e.grapheme = utf8.AppendRune(e.grapheme, r)
}

// printASCII prints complete one-byte characters — printable ASCII that no
// later character can join — as handleGrapheme would one at a time, up to
// where that would do more than write a narrow cell in place and move the
// cursor right (a charset mapping, a wide cell, the right edge), after
// the wrap a pending one makes, and returns how many it printed. The cursor is moved once, so its
// callback is told of one move along the row, not one per character.
//
// swarm patch 10: a line of text was a call to handleGrapheme, printNarrow and
// setCursor (with its callback) per character.
func (e *Emulator) printASCII(run []byte) int {
	awm := e.autoWrap
	if e.gsingle != 0 || e.charsets[e.gl] != nil {
		return 0
	}
	x, y := e.scr.CursorPosition()
	if e.atPhantom && awm {
		// A pending wrap: down a row first (scrolling at the bottom), as
		// handleGrapheme does, and the run goes on from its first column.
		e.index()
		x, y = 0, e.scr.cur.Y
	}
	w := e.scr.Width()
	n := e.scr.printRun(x, y, run) // up to the right edge
	if n == 0 {
		e.scr.setCursor(x, y, false) // where handleGrapheme prints it
		return 0
	}
	e.lastChar = rune(run[n-1])
	x += n - 1 // the last column written
	e.atPhantom = awm && x >= w-1
	if !e.atPhantom {
		x++
	}
	e.scr.setCursor(x, y, false)
	return n
}

// flushGrapheme flushes the current grapheme buffer, if any, and handles the
// grapheme as a single unit.
func (e *Emulator) flushGrapheme() {
	if len(e.grapheme) == 0 {
		return
	}

	// XXX: We always use [ansi.GraphemeWidth] here to report accurate widths
	// and it's up to the caller to decide how to handle Unicode vs non-Unicode
	// modes.
	method := ansi.GraphemeWidth
	graphemes := e.grapheme
	for first := true; len(graphemes) > 0; first = false {
		cluster, width := ansi.FirstGraphemeCluster(graphemes, method)
		if len(cluster) == 0 {
			break
		}
		graphemes = graphemes[len(cluster):]
		if first && width == 0 && e.joinPrevious(cluster) { // swarm patch 17
			continue
		}
		e.handleGrapheme(string(cluster), width)
	}
	e.grapheme = e.grapheme[:0] // Reset the grapheme buffer.
}

// joinPrevious adds cluster, which takes no column, to the cell before the
// cursor and reports true when the two are one grapheme cluster of that
// cell's width: a combining mark, a joiner or a variation selector that
// arrives in a later write than its base character (the end of a write
// ends the cluster being built). Written as a cluster of its own, it was
// a zero-width cell that the next character overwrote ("e", then
// "\u0301 x", showed "e x"). tmux joins such a character to the cell
// before the cursor too. Only the first cluster of a flush can join: the
// ones after it follow a cluster boundary. A join that would change the
// cell's width (a text character made an emoji by U+FE0F) is left as it
// was, and so is a mark at the start of a row.
//
// swarm patch 17.
func (e *Emulator) joinPrevious(cluster []byte) bool {
	x, y := e.scr.CursorPosition()
	line := e.scr.buf.Line(y)
	if !e.atPhantom && (x >= len(line) || line[x].Width != 0 || line[x].Content == "") {
		// The cursor is past the last character, unless a wrap is pending
		// or the last was a cluster of no width written where it is (a
		// format character such as U+2029, which nothing joins).
		x--
	}
	for x > 0 && x < len(line) && line[x].Width == 0 && line[x].Content == "" {
		x-- // the placeholder of a wide character: the character is before it
	}
	if x < 0 || x >= len(line) || line[x].Content == "" {
		return false
	}
	prev := line[x]
	joined := prev.Content + string(cluster)
	whole, width := ansi.FirstGraphemeCluster(joined, ansi.GraphemeWidth)
	if len(whole) != len(joined) || width != prev.Width {
		return false
	}
	prev.Content = joined
	e.scr.SetCell(x, y, &prev)
	return true
}

// handleGrapheme handles UTF-8 graphemes.
func (e *Emulator) handleGrapheme(content string, width int) {
	awm := e.autoWrap // swarm patch 4: isModeSet(ansi.ModeAutoWrap), without the map

	// swarm patch 6: a character of one byte and one column, with no charset
	// mapping and no pending wrap, on a narrow cell (most output) is written
	// in place, without building a cell and copying it twice.
	if width == 1 && len(content) == 1 && e.gsingle == 0 && !(e.atPhantom && awm) &&
		(content[0] < 128 && e.charsets[e.gl] == nil || content[0] >= 128 && e.charsets[e.gr] == nil) {
		x, y := e.scr.CursorPosition()
		if e.scr.printNarrow(x, y, content) {
			e.lastChar = rune(content[0])
			e.atPhantom = awm && x >= e.scr.Width()-1
			if !e.atPhantom {
				x++
			}
			e.scr.setCursor(x, y, false)
			return
		}
	}

	cell := uv.Cell{
		Content: content,
		Width:   width,
		Style:   e.scr.cursorPen(),
		Link:    e.scr.cursorLink(),
	}

	x, y := e.scr.CursorPosition()
	if e.atPhantom && awm {
		// moves cursor down similar to [Terminal.linefeed] except it doesn't
		// respects [ansi.LNM] mode.
		// This will reset the phantom state i.e. pending wrap state.
		e.index()
		_, y = e.scr.CursorPosition()
		x = 0
	}

	// A single shift applies to the next character, whatever that character
	// turns out to be. Take it now, so it cannot leak onto the one after this
	// when this is a cluster no charset has a mapping for.
	single := e.gsingle
	e.gsingle = 0

	// Handle character set mappings
	if len(content) == 1 { //nolint:nestif
		var charset CharSet
		c := content[0]
		if single > 1 && single < 4 {
			charset = e.charsets[single]
		} else if c < 128 {
			charset = e.charsets[e.gl]
		} else {
			charset = e.charsets[e.gr]
		}

		if charset != nil {
			if r, ok := charset[c]; ok {
				cell.Content = r
				cell.Width = 1
			}
		}
	}

	if cell.Width == 1 && len(content) == 1 {
		e.lastChar, _ = utf8.DecodeRuneInString(content)
	}

	e.scr.SetCell(x, y, &cell)

	// Handle phantom state at the end of the line. swarm patch 19: a
	// cluster that takes no column (U+2029) leaves the cursor where it
	// was, also in the last column, with no wrap pending: the next
	// character is written over it there as anywhere else on the row.
	// swarm patch 20: a wide character whose second column is the last
	// makes a wrap pending too, the cursor on that column; without it the
	// next character was written on that column, blanking the wide one.
	w := e.scr.Width()
	e.atPhantom = awm && cell.Width > 0 && x+cell.Width >= w
	if e.atPhantom {
		x = w - 1
	} else {
		x += cell.Width
	}

	// NOTE: We don't reset the phantom state here, we handle it up above.
	e.scr.setCursor(x, y, false)
}
