package tui

import (
	"image/color"
	"strings"
	"swarm/textsafe"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// resetStyle ends any SGR style and hyperlink (OSC 8) a cut line may
// have left open, so that one pane's colours and links never bleed into
// the next.
const resetStyle = "\x1b[m\x1b]8;;\x1b\\"

// fit cuts or pads s (which may hold SGR sequences) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "")
		sw = ansi.StringWidth(s)
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		s += resetStyle
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitPlain is fit for text known to hold no escape sequences, ending with
// an ellipsis when it is cut.
func fitPlain(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// frame is a border drawn around a box.
type frame struct {
	border lipgloss.Border
	color  color.Color
	bold   bool
}

var (
	frameNormal   = lipgloss.RoundedBorder()
	frameAttached = lipgloss.ThickBorder()
	frameDialog   = lipgloss.DoubleBorder()
)

// box draws lines inside a border of w×h cells with title on the top edge
// (left) and note (right). Lines are cut or padded to the inside width;
// missing lines are blank.
func box(w, h int, f frame, title, note string, lines []string) []string {
	if w < 2 || h < 2 {
		return blankLines(w, h)
	}
	st := lipgloss.NewStyle().Foreground(f.color)
	tst := st.Bold(f.bold)
	b := f.border
	iw := w - 2
	// A title is one line whatever it names (an exit reason may hold
	// several).
	title, note = plainLine(title), plainLine(note)

	// Top edge: ╭─ title ───── note ─╮
	top := b.TopLeft + b.Top
	avail := iw - 1
	var t, n string
	if note != "" && avail > 8 {
		// The note (scroll position, a hint) wins over the end of the
		// title, which keeps at least a few cells for the name.
		n = " " + ansi.Truncate(note, max(avail-10, 4), "…") + " "
		avail -= ansi.StringWidth(n) + 1
	}
	if title != "" && avail > 2 {
		t = " " + ansi.Truncate(title, avail-2, "…") + " "
	}
	fill := iw - 1 - ansi.StringWidth(t) - ansi.StringWidth(n)
	if n != "" {
		fill--
	}
	var sb strings.Builder
	sb.WriteString(st.Render(top))
	if t != "" {
		sb.WriteString(tst.Render(t))
	}
	sb.WriteString(st.Render(strings.Repeat(b.Top, max(fill, 0))))
	if n != "" {
		sb.WriteString(tst.Render(n))
		sb.WriteString(st.Render(b.Top))
	}
	sb.WriteString(st.Render(b.TopRight))

	out := make([]string, 0, h)
	out = append(out, sb.String())
	left, right := st.Render(b.Left), st.Render(b.Right)
	for i := range h - 2 {
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		out = append(out, left+fit(line, iw)+right)
	}
	out = append(out, st.Render(b.BottomLeft+strings.Repeat(b.Bottom, iw)+b.BottomRight))
	return out
}

// blankLines returns h lines of w spaces.
func blankLines(w, h int) []string {
	out := make([]string, max(h, 0))
	blank := strings.Repeat(" ", max(w, 0))
	for i := range out {
		out[i] = blank
	}
	return out
}

// overlay draws top over base with its top left corner at (x, y): each
// line of top replaces exactly the cells it covers (see splice).
func overlay(base, top []string, x, y int) {
	for i, t := range top {
		row := y + i
		if row < 0 || row >= len(base) {
			continue
		}
		base[row] = splice(base[row], t, x)
	}
}

// splice returns b with t drawn over it from cell x. The cells of b left
// and right of t keep their content and styles and their columns; a wide
// rune that t's edge cuts in half becomes a blank cell, so that nothing
// right of t moves. t's styles end with it.
func splice(b, t string, x int) string {
	tw, bw := ansi.StringWidth(t), ansi.StringWidth(b)
	var sb strings.Builder
	left := ansi.Truncate(b, x, "")
	sb.WriteString(left)
	sb.WriteString(resetStyle)
	if lw := ansi.StringWidth(left); lw < x {
		sb.WriteString(strings.Repeat(" ", x-lw))
	}
	sb.WriteString(t)
	sb.WriteString(resetStyle)
	if end := x + tw; end < bw {
		want := bw - end
		right := ansi.TruncateLeft(b, end, "")
		// TruncateLeft keeps a wide rune that starts before end: skip it.
		for k := 1; ansi.StringWidth(right) > want; k++ {
			right = ansi.TruncateLeft(b, end+k, "")
		}
		sb.WriteString(strings.Repeat(" ", want-ansi.StringWidth(right)))
		sb.WriteString(right)
	}
	return sb.String()
}

// wrapPlain wraps text to lines of at most w cells.
func wrapPlain(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		wrapped := ansi.Wrap(para, w, " ")
		out = append(out, strings.Split(wrapped, "\n")...)
	}
	return out
}

// plainLine is s as one line of plain text for the status line: escape
// sequences and control characters gone, runs of white space one space.
// An error from git or an agent may hold several lines, tabs or colours.
func plainLine(s string) string {
	return textsafe.Words(ansi.Strip(s))
}
