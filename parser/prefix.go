package parser

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Markers a line is tested for once its prefix is removed.
const (
	relayMarker    = "@relay:"
	thinkingMarker = "@thinking:"
	blockOpen      = "[[RELAY]]"
	blockClose     = "[[/RELAY]]"
)

// glyphClass tells how a prefix glyph affects a command after it.
type glyphClass uint8

const (
	notGlyph glyphClass = iota
	// bullet: prompts, list bullets and result markers; a command after one
	// may continue on rows with its hanging indent.
	bullet
	// border: a box's vertical edge; its twin may close the line.
	border
)

// classify returns the class of the glyph r.
func classify(r rune) glyphClass {
	switch r {
	case '>', '$', '-', '*',
		'⏺', '●', '⎿', // Claude Code: assistant bullet (macOS / Linux), tool result
		'•', '›', '└', '▌', '▎', // Codex: bullet, prompt, exec output, composer bars
		'✦',                // Gemini CLI
		'❯',                // shell prompts (starship, pure)
		'◦', '▪', '‣', '⁃': // list bullets
		return bullet
	case '│', '┃', '║':
		return border
	}
	return notGlyph
}

// blankAt returns the byte length of the blank starting at s[i], or 0.
func blankAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	switch s[i] {
	case ' ', '\t':
		return 1
	case 0xc2:
		if i+1 < len(s) && s[i+1] == 0xa0 {
			return 2
		}
	}
	return 0
}

// prefix describes what stripPrefix removed from the start of a line.
type prefix struct {
	cols      int        // width in characters (the hanging indent of what follows)
	glyph     glyphClass // class of the last glyph removed, notGlyph if none
	border    rune       // the first glyph when it was a box border, else 0
	borderCol int        // the border's column
}

// stripPrefix removes leading blanks and prompt, bullet and border glyphs
// (each followed by a blank) from s. It returns the rest and the byte length
// of what was removed.
func stripPrefix(s string) (rest string, n int, p prefix) {
	i := 0
	for i < len(s) {
		if w := blankAt(s, i); w > 0 {
			i += w
			p.cols++
			continue
		}
		var r rune
		var w int
		if c := s[i]; c < utf8.RuneSelf {
			r, w = rune(c), 1
		} else {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		class := classify(r)
		if class == notGlyph || blankAt(s, i+w) == 0 {
			break
		}
		if class == border && p.glyph == notGlyph {
			p.border, p.borderCol = r, p.cols
		}
		p.glyph = class
		i += w
		p.cols++
	}
	return s[i:], i, p
}

// trimBorder removes the closing twin of a line's opening box border, and
// the blanks before it, from the end of rest.
func trimBorder(rest string, p prefix) string {
	if p.border == 0 {
		return rest
	}
	t := strings.TrimRight(rest, " \t\u00a0")
	if b, w := utf8.DecodeLastRuneInString(t); b == p.border {
		return strings.TrimRight(t[:len(t)-w], " \t\u00a0")
	}
	return rest
}

// leadingBlanks returns the number of blank characters at the start of s and
// their byte length.
func leadingBlanks(s string) (cols, n int) {
	for n < len(s) {
		w := blankAt(s, n)
		if w == 0 {
			break
		}
		n += w
		cols++
	}
	return cols, n
}

// startsWithGlyph reports whether s starts with a prefix glyph followed by a
// blank: a bullet of its own.
func startsWithGlyph(s string) bool {
	if s == "" {
		return false
	}
	r, w := utf8.DecodeRuneInString(s)
	return classify(r) != notGlyph && blankAt(s, w) > 0
}

// clean returns s without terminal escape sequences and control characters
// (tabs are kept). Committed lines normally have none, so the common case
// only scans s.
func clean(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 {
			return cleanSlow(s)
		}
	}
	return s
}

func cleanSlow(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi.Strip(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// box is the box a line is drawn in: its left border and that border's
// column, and the column of its right border, -1 when it has none (a
// gutter, as opencode draws down the left of its transcript).
type box struct {
	border rune
	col    int
	right  int
	edge   bool // the command is right inside the border, under no bullet
}

// gutter reports whether the box is only a left border.
func (b box) gutter() bool { return b.right < 0 }

// boxOf returns the box a command line is drawn in, when it starts with a
// box border.
func boxOf(line string, p prefix) (box, bool) {
	if p.border == 0 {
		return box{}, false
	}
	b := box{border: p.border, col: p.borderCol, right: -1, edge: p.glyph == border}
	t := strings.TrimRight(line, " \t\u00a0")
	if last, w := utf8.DecodeLastRuneInString(t); last == p.border && len(t)-w > 0 {
		b.right = ansi.StringWidth(t[:len(t)-w])
	}
	return b, true
}

// closedBy reports whether line is the box's bottom border: a corner in
// the column of its left border, then a horizontal rule.
func (b box) closedBy(line string) bool {
	if b.border == 0 || b.gutter() {
		return false
	}
	cols, k := leadingBlanks(line)
	if cols != b.col {
		return false
	}
	corner, w := utf8.DecodeRuneInString(line[k:])
	rule, _ := utf8.DecodeRuneInString(line[k+w:])
	return strings.ContainsRune("╰└╚┗", corner) && strings.ContainsRune("─═━", rule)
}

// inner returns what a row of the box shows inside its borders, when the
// row has them where the box has them.
func (b box) inner(line string) (string, bool) {
	if b.border == 0 {
		return "", false
	}
	cols, k := leadingBlanks(line)
	if cols != b.col {
		return "", false
	}
	first, w := utf8.DecodeRuneInString(line[k:])
	if first != b.border {
		return "", false
	}
	t := strings.TrimRight(line, " \t\u00a0")
	if b.gutter() {
		return t[k+w:], true
	}
	last, lw := utf8.DecodeLastRuneInString(t)
	if last != b.border || len(t)-lw < k+w || ansi.StringWidth(t[:len(t)-lw]) != b.right {
		return "", false
	}
	return t[k+w : len(t)-lw], true
}

// textEnd returns the column where the text inside the box ends on a row.
func (b box) textEnd(line string) int {
	in, ok := b.inner(line)
	if !ok {
		return 0
	}
	return b.col + 1 + ansi.StringWidth(strings.TrimRight(in, " \t\u00a0"))
}

// filled reports whether a row of the box whose text ended at column end
// filled it, line being the next row: its text reached the box's last
// column (the one before the blank at the right border), the next row
// starting right inside the border or a blank further (the blank where a
// terminal as wide as the box wrapped it); or it ended a column short,
// the next row starting right inside the border (the blank at the wrap
// fell in the last column, or a word ended there).
func (b box) filled(end int, line string) bool {
	in, ok := b.inner(line)
	if !ok {
		return false
	}
	lead, _ := leadingBlanks(in)
	return end == b.right-1 && (lead == 1 || lead == 2) || end == b.right-2 && lead == 1
}

// brokeAtEdge reports whether a terminal as wide as the box broke a word
// between the box's row src ends with, whose text ended at column end, and
// line: the row reached the box's last column and the next row's text
// starts right inside the border, no blank at the wrap on either side —
// except in a row with a wide character, which a lossy box (Gemini CLI's)
// draws wider than its terminal counts it (followed by a blank): the box
// may have cut such a row at a blank, dropping what did not fit.
func (b box) brokeAtEdge(src []byte, end int, line string) bool {
	in, ok := b.inner(line)
	if !ok || end != b.right-1 {
		return false
	}
	if lead, _ := leadingBlanks(in); lead != 1 {
		return false
	}
	prev, ok := b.inner(lastRow(src))
	return ok && !holdsWide(prev)
}
