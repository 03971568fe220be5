package spawner

import (
	"image/color"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// x/vt keeps no record of which rows the terminal wrapped. The screen marks
// the last cell of such a row by prefixing its hyperlink parameters: the mark
// then moves with the cell when the emulator scrolls or inserts lines, goes
// into the scrollback with it, and disappears when the program overwrites or
// erases that cell, which is exactly the lifetime of a wrap. A program cannot
// forge the mark: the parser drops NUL bytes from OSC strings.
const (
	markPrefix = "\x00swarm-"
	// markWrap: the row continues on the next row.
	markWrap = markPrefix + "w:"
	// markPad: the row continues on the next row, and its last cell is
	// padding left where a wide character did not fit.
	markPad = markPrefix + "p:"
)

// wrapOf reports whether c carries a wrap mark, and whether it is padding.
func wrapOf(c *uv.Cell) (wrapped, pad bool) {
	if c == nil || !strings.HasPrefix(c.Link.Params, markPrefix) {
		return false, false
	}
	// The marks differ in the byte after the prefix: one comparison.
	p := c.Link.Params
	return true, len(p) > len(markPrefix) && p[len(markPrefix)] == markPad[len(markPrefix)]
}

// setWrap marks c as the last cell of a wrapped row, keeping any hyperlink
// it has.
func setWrap(c *uv.Cell, pad bool) {
	params := c.Link.Params
	if strings.HasPrefix(params, markPrefix) {
		params = params[len(markWrap):]
	}
	if pad {
		c.Link.Params = markPad + params
	} else {
		c.Link.Params = markWrap + params
	}
}

// clearWrap takes the wrap mark off c, keeping any hyperlink it has.
func clearWrap(c *uv.Cell) { c.Link = realLink(c) }

// realLink returns c's hyperlink without a wrap mark.
func realLink(c *uv.Cell) uv.Link {
	l := c.Link
	if l.Params == "" { // most cells: no copy of a mark checked
		return l
	}
	if strings.HasPrefix(l.Params, markPrefix) {
		l.Params = l.Params[len(markWrap):]
	}
	return l
}

// plain reports whether c has neither a style nor a hyperlink (a wrap
// mark aside): it is written as its text alone. Every row harvested asks
// this of its cells, so it compares fields, not whole structs.
func plain(c *uv.Cell) bool {
	return zeroStyle(&c.Style) && c.Link.URL == "" && (c.Link.Params == "" || realLink(c).Params == "")
}

// blankText says whether a cell's content shows as a blank: " " or none.
func blankText(content string) bool {
	return len(content) == 0 || len(content) == 1 && content[0] == ' '
}

// noLink is l.IsZero() without a comparison call per string.
func noLink(l *uv.Link) bool { return len(l.URL) == 0 && len(l.Params) == 0 }

// zeroStyle is st.IsZero() from the fields, without a call per colour.
func zeroStyle(st *uv.Style) bool {
	return st.Fg == nil && st.Bg == nil && st.UnderlineColor == nil && st.Underline == 0 && st.Attrs == 0
}

// lineWrap reports whether a scrollback line (trailing blanks trimmed by
// x/vt) is a wrapped row of a screen width wide.
func lineWrap(l uv.Line, width int) (wrapped, pad bool) {
	if len(l) != width || width == 0 {
		return false, false
	}
	return wrapOf(&l[width-1])
}

// appendText appends the plain text of one row of width cells: wide
// characters once, blank cells as spaces, the padding cell of a pad-wrapped
// row left out. Trailing blanks are trimmed unless the row is wrapped, where
// they are part of the line.
func appendText(b []byte, row uv.Line, width int) []byte {
	start := len(b)
	wrapped, pad := false, false
	if width > 0 && width <= len(row) {
		wrapped, pad = wrapOf(&row[width-1])
	}
	end := min(width, len(row))
	if pad {
		end--
	}
	cells := row[:end]
	for i := range cells {
		c := &cells[i]
		switch len(c.Content) {
		case 1:
			b = append(b, c.Content[0]) // most cells: no copy call per byte
		case 0:
			if c.Width != 0 { // else the second column of a wide character
				b = append(b, ' ')
			}
		default:
			b = append(b, c.Content...)
		}
	}
	if !wrapped {
		n := len(b)
		for n > start && b[n-1] == ' ' {
			n--
		}
		b = b[:n]
	}
	return b
}

// appendRow appends one row of cells as text with SGR styles and
// hyperlinks (those links.go lets through), trailing blanks trimmed and the style reset at the end. It
// follows ultraviolet's line renderer, minus the wrap marks. Styles are
// compared with ==, not Style.Equal, which converts every colour to RGBA:
// the colours x/vt sets are comparable values (ansi.BasicColor,
// ansi.IndexedColor, color.RGBA), and two spellings of one colour only
// cost a redundant SGR.
func appendRow(b []byte, row uv.Line, width int) []byte {
	var pen uv.Style
	var link uv.Link
	var checked uv.Link // the last link linkShown judged (links.go), and how
	shown := false
	penZero := true // pen == uv.Style{}: one comparison per cell, not three
	pending := 0
	for x := range min(width, len(row)) {
		c := &row[x]
		if c.Content == "" && c.Width == 0 {
			continue
		}
		cl := realLink(c)
		if !noLink(&cl) {
			if cl != checked {
				checked, shown = cl, linkShown(cl)
			}
			if !shown {
				cl = uv.Link{}
			}
		}
		samePen := sameStyle(&c.Style, &pen)
		styleZero := samePen && penZero || !samePen && zeroStyle(&c.Style)
		if blankText(c.Content) && styleZero && noLink(&cl) {
			if !penZero {
				b = append(b, ansi.ResetStyle...)
				pen, penZero = uv.Style{}, true
			}
			if !noLink(&link) {
				b = append(b, ansi.ResetHyperlink()...)
				link = uv.Link{}
			}
			pending++
			continue
		}
		for ; pending > 0; pending-- {
			b = append(b, ' ')
		}
		if !samePen {
			if styleZero {
				b = append(b, ansi.ResetStyle...)
			} else {
				b = append(b, c.Style.Diff(&pen)...)
			}
			pen, penZero = c.Style, styleZero
		}
		if cl.URL != link.URL || cl.Params != link.Params {
			if !noLink(&link) {
				b = append(b, ansi.ResetHyperlink()...)
			}
			if !noLink(&cl) {
				b = append(b, ansi.SetHyperlink(cl.URL, cl.Params)...)
			}
			link = cl
		}
		if c.Content == "" {
			b = append(b, ' ')
		} else {
			b = append(b, c.Content...)
		}
	}
	if !noLink(&link) {
		b = append(b, ansi.ResetHyperlink()...)
	}
	if !penZero {
		b = append(b, ansi.ResetStyle...)
	}
	return b
}

// rowEnd returns where the content of one row of width cells ends: one
// past its last cell that is not a plain blank.
func rowEnd(row uv.Line, width int) int {
	for x := min(width, len(row)) - 1; x >= 0; x-- {
		c := &row[x]
		if !blankText(c.Content) || !plain(c) {
			return x + max(c.Width, 1)
		}
	}
	return 0
}

// sameStyle is a == b, with the colours x/vt sets compared by their types
// inline: the compiler's comparison calls the runtime for each colour, and
// every cell of every row that scrolls off is compared with the one before.
func sameStyle(a, b *uv.Style) bool {
	return a.Attrs == b.Attrs && a.Underline == b.Underline &&
		sameColor(a.Fg, b.Fg) && sameColor(a.Bg, b.Bg) && sameColor(a.UnderlineColor, b.UnderlineColor)
}

func sameColor(a, b color.Color) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case ansi.BasicColor:
		b, ok := b.(ansi.BasicColor)
		return ok && a == b
	case ansi.IndexedColor:
		b, ok := b.(ansi.IndexedColor)
		return ok && a == b
	}
	return a == b
}

// styleRun says that from byte off of a row's text on, its cells have the
// style numbered style in the scrollback's palette.
type styleRun struct{ off, style uint32 }

// palette numbers the styles of the scrollback's rows, so that a row keeps
// the runs of its styles (a few bytes each) rather than SGR text made as it
// scrolled off: most rows are never shown again, and rendering every one
// cost a quarter of the CPU of a busy pane. Style 0 is the zero style.
type palette struct {
	styles []uv.Style
	ids    map[uv.Style]uint32
	// recent are the styles numbered most recently, tried before the map
	// (whose hash of three colour interfaces costs more): a log line's
	// handful of styles repeats line after line.
	recent [8]uint32
	next   int // the slot of recent to replace
}

// maxStyles bounds a palette (to about 400 KB with its map): a program
// that paints in thousands of colours gets its rows rendered as they
// scroll off instead.
const maxStyles = 4096

// id returns st's number, false when the palette is full.
func (p *palette) id(st *uv.Style) (uint32, bool) {
	for _, id := range p.recent {
		if id != 0 && sameStyle(&p.styles[id], st) {
			return id, true
		}
	}
	if p.ids == nil {
		p.styles = append(p.styles, uv.Style{})
		p.ids = map[uv.Style]uint32{{}: 0}
	}
	id, ok := p.ids[*st]
	if !ok {
		if len(p.styles) >= maxStyles {
			return 0, false
		}
		id = uint32(len(p.styles))
		p.styles = append(p.styles, *st)
		p.ids[*st] = id
	}
	p.recent[p.next] = id
	p.next = (p.next + 1) % len(p.recent)
	return id, true
}

// clone returns a palette that numbers p's styles as p does.
func (p *palette) clone() palette {
	c := palette{styles: append([]uv.Style(nil), p.styles...), recent: p.recent, next: p.next}
	if p.ids != nil {
		c.ids = make(map[uv.Style]uint32, len(p.ids))
		for st, id := range p.ids {
			c.ids[st] = id
		}
	}
	return c
}

// rowStyles appends to runs where the style of one row of width cells
// changes, as offsets into its text (appendText's bytes before trailing
// blanks are trimmed), and returns how many bytes of that text its styled
// form shows: up to its last cell that is not a plain blank. ok is false
// for a row that runs cannot describe — one with a hyperlink, a styled
// padding cell, or more styles than the palette takes — which is rendered
// at once (appendRow) instead.
func rowStyles(runs []styleRun, row uv.Line, width int, pal *palette) (_ []styleRun, shown int, ok bool) {
	end := min(width, len(row))
	if wrapped, pad := wrapOf(lastCell(row, width)); wrapped && pad {
		if !plain(&row[end-1]) {
			return runs, 0, false
		}
		end--
	}
	var pen *uv.Style // nil: the zero style
	off := 0
	cells := row[:end]
	for i := range cells {
		c := &cells[i]
		n := len(c.Content)
		if n == 0 {
			if c.Width == 0 {
				continue // the second column of a wide character
			}
			n = 1
		}
		if len(c.Link.URL)|len(c.Link.Params) != 0 && (c.Link.URL != "" || realLink(c).Params != "") {
			return runs, 0, false
		}
		zero := zeroStyle(&c.Style)
		if !zero || !blankText(c.Content) {
			shown = off + n
		}
		switch {
		case zero && pen == nil:
		case zero:
			runs, pen = append(runs, styleRun{off: uint32(off)}), nil
		case pen == nil || !sameStyle(&c.Style, pen):
			id, ok := pal.id(&c.Style)
			if !ok {
				return runs, 0, false
			}
			runs, pen = append(runs, styleRun{off: uint32(off), style: id}), &c.Style
		}
		off += n
	}
	return runs, shown, true
}

// lastCell returns the cell at the right edge of a row width cells wide,
// nil if it has none.
func lastCell(row uv.Line, width int) *uv.Cell {
	if width <= 0 || width > len(row) {
		return nil
	}
	return &row[width-1]
}

// appendRuns appends a row kept as text and style runs with its SGR
// styles, as appendRow gave them for its cells: text is the row's text
// (trailing blanks trimmed or not), shown how many bytes of it, padded
// with blanks, the styled form shows.
func appendRuns(b []byte, text string, shown int, runs []styleRun, pal *palette) []byte {
	var pen uv.Style
	penZero := true
	from, style := 0, uint32(0)
	for i := 0; i <= len(runs) && from < shown; i++ {
		to := shown
		if i < len(runs) {
			to = min(int(runs[i].off), shown)
		}
		if from < to {
			switch {
			case style == 0 && !penZero:
				b = append(b, ansi.ResetStyle...)
				pen, penZero = uv.Style{}, true
			case style != 0:
				st := &pal.styles[style]
				b = append(b, st.Diff(&pen)...)
				pen, penZero = *st, false
			}
			b = append(b, text[min(from, len(text)):min(to, len(text))]...)
			for range to - max(from, len(text)) {
				b = append(b, ' ')
			}
		}
		if i < len(runs) {
			from, style = int(runs[i].off), runs[i].style
		}
	}
	if !penZero {
		b = append(b, ansi.ResetStyle...)
	}
	return b
}
