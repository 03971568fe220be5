package spawner

import "encoding/binary"

// histLine is one row that left the top of the screen, kept for the UI's
// scrollback: its text, and, if styled, its styles as runs over its text
// (see palette), or, when runs cannot describe it, the row rendered. The
// history keeps it packed (see history); this is a row read back.
type histLine struct {
	text    string     // plain
	runs    []styleRun // where its styles change; nil for a plain row
	shown   uint32     // how many bytes of text the styled form shows (rowStyles)
	styled  string     // with SGR styles, for a row runs cannot describe
	wrapped bool       // the row continues on the next one
	pad     bool       // wrapped, and its last cell is padding
	cols    uint16     // the screen width it left
	end     uint16     // where its content ends (rowEnd)
}

// history is the scrollback: at most max rows, oldest first, each packed
// as one record of a packedRing. A row of a coloured log line takes about
// its text, a few bytes per style run and a few more, before the block it
// is in is compressed.
type history struct {
	rows packedRing
	max  int
	pal  palette // the styles of the rows' runs
	rec  []byte  // scratch: a row being packed
	// wrapped: the newest row goes on into the next one pushed, which is
	// marked histCont so that it still says so once the rows before it
	// are dropped at the cap (startsLine).
	wrapped bool
}

// A row's record: a byte of flags; cols, end and the text's length as
// uvarints; the text; with runs, shown, their number, and each run's
// offset (from the one before) and style; with a styled form, its length
// and bytes.
const (
	histWrapped = 1 << iota
	histPad
	histRuns
	histStyled
	histCont // the row goes on a line from the row pushed before it
)

func (h *history) len() int { return h.rows.len() }

func (h *history) push(l histLine) {
	if h.max <= 0 {
		return
	}
	flags := byte(0)
	if l.wrapped {
		flags |= histWrapped
	}
	if l.pad {
		flags |= histPad
	}
	if l.runs != nil {
		flags |= histRuns
	}
	if l.styled != "" {
		flags |= histStyled
	}
	if h.wrapped {
		flags |= histCont
	}
	h.wrapped = l.wrapped
	b := append(h.rec[:0], flags)
	b = binary.AppendUvarint(b, uint64(l.cols))
	b = binary.AppendUvarint(b, uint64(l.end))
	b = binary.AppendUvarint(b, uint64(len(l.text)))
	b = append(b, l.text...)
	if l.runs != nil {
		b = binary.AppendUvarint(b, uint64(l.shown))
		b = binary.AppendUvarint(b, uint64(len(l.runs)))
		off := uint32(0)
		for _, r := range l.runs {
			b = binary.AppendUvarint(b, uint64(r.off-off))
			b = binary.AppendUvarint(b, uint64(r.style))
			off = r.off
		}
	}
	if l.styled != "" {
		b = binary.AppendUvarint(b, uint64(len(l.styled)))
		b = append(b, l.styled...)
	}
	h.rec = b
	h.rows.push(b)
	for h.rows.len() > h.max {
		h.rows.dropOldest()
	}
}

// startsLine reports whether row i starts a line. The oldest row may go
// on a line whose first rows were dropped at the cap: a screen that takes
// rows back must not take it for the line's start (its text is the
// committer's, carried or recorded whole).
func (h *history) startsLine(i int) bool {
	if i == 0 {
		return h.rows.at(0)[0]&histCont == 0
	}
	return !h.at(i - 1).wrapped
}

// at returns row i, 0 being the oldest: a copy, which the caller may keep.
func (h *history) at(i int) *histLine {
	b := h.rows.at(i)
	l := &histLine{wrapped: b[0]&histWrapped != 0, pad: b[0]&histPad != 0}
	flags := b[0]
	b = b[1:]
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		b = b[n:]
		return v
	}
	l.cols, l.end = uint16(next()), uint16(next())
	n := next()
	l.text, b = string(b[:n]), b[n:]
	if flags&histRuns != 0 {
		l.shown = uint32(next())
		l.runs = make([]styleRun, next())
		off := uint32(0)
		for k := range l.runs {
			off += uint32(next())
			l.runs[k] = styleRun{off: off, style: uint32(next())}
		}
	}
	if flags&histStyled != 0 {
		n := next()
		l.styled = string(b[:n])
	}
	return l
}

// appendStyled appends l, a row of h, with its SGR styles: the text alone
// for a plain row.
func (h *history) appendStyled(b []byte, l *histLine) []byte {
	switch {
	case l.runs != nil:
		return appendRuns(b, l.text, int(l.shown), l.runs, &h.pal)
	case l.styled != "":
		return append(b, l.styled...)
	}
	return append(b, l.text...)
}

// clear forgets the rows; the palette stays, for rows pushed again.
func (h *history) clear() { h.rows.clear(); h.wrapped = false }

// popNewest removes the newest n rows and returns them, oldest first.
func (h *history) popNewest(n int) []histLine {
	n = min(n, h.len())
	if n == 0 {
		return nil
	}
	out := make([]histLine, n)
	for i := range out {
		out[i] = *h.at(h.len() - n + i)
	}
	h.truncate(n)
	return out
}

// truncate drops the newest n rows.
func (h *history) truncate(n int) {
	h.rows.truncate(n)
	h.wrapped = h.len() > 0 && h.at(h.len()-1).wrapped
}
