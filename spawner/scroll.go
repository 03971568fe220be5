package spawner

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// Scrolling is most of what emulating a busy program costs: x/vt moves
// every cell of the screen up one row for each line feed at the bottom.
// When a line feed at the bottom is followed, in the same write, by more
// plain lines that will scroll too, the screen scrolls once for all of
// them (SU k) and moves the cursor back up to where the next line starts;
// the line feeds that follow then only move the cursor down. The screen,
// its scrollback and the committed lines come out as with k single
// scrolls; only the work is shared.
//
// The lines after the first must be plain so that the rows they take are
// known: printable ASCII (wrapping where the terminal wraps it), carriage
// returns and SGR that sets no background (rows blanked by a scroll take
// the background in force, so a batch must not change it). A line the
// write leaves unfinished counts the rows it has wrapped over. The rows a
// batch pushes off at once must each show the text committed for its line
// (checkedBatch), which decides, line by line, whether a line that turns up
// lower down moved there; the text is then taken from there as they go.

// sgrState follows what an SGR sequence does to the main screen's
// background, so that a batch only runs on the default background. A
// restored cursor brings back a pen the screen does not follow: after one,
// the background counts as set until an SGR resets it (penRestored).
func (s *Screen) sgrState() {
	if s.alt.em != nil {
		return // the main screen's pen is not affected
	}
	params := s.tok.params
	if len(params) == 0 {
		s.bgSet = false
		return
	}
	for i := 0; i < len(params); i++ {
		switch p := params[i].Param(0); {
		case p == 0 || p == 49:
			s.bgSet = false
		case p >= 40 && p <= 47, p >= 100 && p <= 107:
			s.bgSet = true
		case p == 38 || p == 48 || p == 58:
			if p == 48 {
				s.bgSet = true
			}
			i += extendedColorParams(params, i)
		}
	}
}

// extendedColorParams returns how many parameters after params[i] (38, 48
// or 58) belong to its colour: colon sub-parameters, or 5;n / 2;r;g;b.
func extendedColorParams(params []ansi.Param, i int) int {
	if params[i].HasMore() {
		n := 0
		for j := i; j < len(params) && params[j].HasMore(); j++ {
			n++
		}
		return n
	}
	if i+1 < len(params) {
		switch params[i+1].Param(0) {
		case 5:
			return 2
		case 2:
			return 4
		}
	}
	return 0
}

// scrollBatch returns how many rows, this line feed's included, the main
// screen can scroll at once: ahead is the rest of the write after the line
// feed. 1 means no batch.
func (s *Screen) scrollBatch(ahead []byte) int {
	if s.alt.em != nil || s.lnm || s.bgSet || !s.lines.wholeRegion() || s.rows < 3 || s.noBatch {
		return 1
	}
	// A line feed can come in the middle of an escape sequence (C0 controls
	// are executed there); what follows it then is not text.
	if s.front.State() != parser.GroundState {
		return 1
	}
	return s.lines.batch(ahead, s.awm)
}

// batch is scrollBatch's answer as far as the main screen's lines decide
// it: a batch starts at the bottom row, and not in the middle of a
// redraw. awm: auto-wrap is on.
func (m *mainLines) batch(ahead []byte, awm bool) int {
	// While the cursor is still going up, a redraw is starting: keep it
	// line by line.
	if m.goingUp {
		return 1
	}
	pos := m.em.CursorPosition()
	if pos.Y != m.rows-1 {
		return 1
	}
	return m.checkedBatch(1 + rowsAhead(ahead, pos.X, m.cols, m.rows-2, awm))
}

// checkedBatch limits a batch of n rows to what scrolls off as line by
// line. A line committed while the batch's rows go by is checked against
// the lines still on the screen (moved): one whose committed text another
// row shows no longer has moved (it was erased there and written again
// lower down). Line by line, the rows that scroll off one by one are still
// there to be checked; in a batch they are gone at once. The answer is the
// same while each of those lines shows the text committed for it (or none
// was), and when the batch does not end inside a wrapped line.
//
// The rows checked are noted in pieces, so that their text is not read
// again as they scroll off.
func (m *mainLines) checkedBatch(n int) int {
	m.pieces = m.pieces[:0]
	for range n {
		m.pieces = append(m.pieces, -1)
	}
	// Unless something other than line feeds went by since every row on
	// the screen came in, each shows its line's text as it was committed.
	safe := m.base >= m.riskUntil
	k := 1
	for r := 1; r < n; r++ {
		if st := &m.shadow[r]; st.rec != "" && !m.wrappedRow(r-1) {
			start, end := m.span(r)
			ends := st.ends
			if !safe || int(ends.n) != end-start+1 || int(ends.at[max(ends.n, 1)-1]) != len(st.rec) {
				if !m.lineShows(start, end, st.rec) {
					break
				}
				ends = endsOf(m.rowEnds, st.rec)
			}
			prev := 0
			for i, e := range ends.at[:min(int(ends.n), n-start)] {
				m.pieces[start+i], prev = int(e)-prev, int(e)
			}
		}
		if !m.wrappedRow(r) {
			k = r + 1
		}
	}
	m.pieces = m.pieces[:k]
	return k
}

// rowsAhead counts how many rows the plain lines in b advance the cursor
// — one per line feed and, with auto-wrap, one per wrap — up to limit;
// col is the cursor column, cols the width. A line that b does not finish
// counts its wraps when b ends in plain text (a long line in a narrow
// pane wraps over rows that would each scroll on their own), but not a
// wrap made by b's last character, which the screen holds back until more
// output comes; a line cut by anything else does not count.
func rowsAhead(b []byte, col, cols, limit int, autowrap bool) int {
	if cols < 1 {
		return 0
	}
	done, line := 0, 0 // rows advanced by finished lines; by the current one
	lastWrap := -1     // where the current line last wrapped
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\n':
			if done+line+1 > limit {
				return done
			}
			done, line = done+line+1, 0
			// A line feed ends a pending wrap: the cursor stays in the
			// last column and the next character goes there.
			col = min(col, cols-1)
		case c == '\r':
			col = 0
		case c >= 0x20 && c < 0x7f:
			// A run of n printable characters, counted at once.
			j := i + 1
			for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
				j++
			}
			n := j - i
			i = j - 1
			// The terminal wraps to the next row before a character that
			// would go past the last column (col == cols: the wrap is
			// pending); without auto-wrap it overwrites the last column.
			w := 0
			if autowrap {
				w = (col + n - 1) / cols
			}
			if w == 0 {
				col = min(col+n, cols)
				continue
			}
			line += w
			if done+line > limit {
				return done // this line cannot count, finished or not
			}
			lastWrap = i + 1 - n + w*cols - col // the character that wrapped last
			col += n - w*cols
		case c == 0x1b:
			end, ok := plainSGR(b, i)
			if !ok {
				return done
			}
			i = end
		default:
			return done
		}
	}
	if lastWrap >= 0 && lastWrap == len(b)-1 {
		line--
	}
	if done+line > limit {
		return done
	}
	return done + line
}

// plainSGR checks the sequence at b[i] (ESC) is a complete SGR that sets
// no background, and returns the index of its final byte. Each parameter
// is judged as it ends; after 38 or 58 (a foreground or underline colour),
// 5;n and 2;r;g;b belong to that colour.
func plainSGR(b []byte, i int) (int, bool) {
	j := i + 1
	if j >= len(b) || b[j] != '[' {
		return 0, false
	}
	cur, have, some := 0, false, false // the parameter being read; any before it
	ext, skip := false, 0              // the last was 38/58; colour parameters left
	for j++; j < len(b); j++ {
		c := b[j]
		if c >= '0' && c <= '9' {
			cur, have = min(cur*10+int(c-'0'), 1<<16), true
			continue
		}
		if c != ';' && c != 'm' {
			return 0, false // colons, private markers, other finals: not plain
		}
		if c == ';' || have || some { // "CSI m" has no parameter
			switch {
			case skip > 0:
				skip--
			case ext && cur == 5:
				ext, skip = false, 1
			case ext && cur == 2:
				ext, skip = false, 3
			case cur == 48, cur >= 40 && cur <= 47, cur >= 100 && cur <= 107:
				return 0, false
			default:
				ext = cur == 38 || cur == 58
			}
		}
		if c == 'm' {
			return j, true
		}
		cur, have, some = 0, false, true
	}
	return 0, false // cut by the end of the write
}

// batchedLineFeed is what the emulator gets instead of a line feed that
// starts a batch of k: scroll k rows up, then back up to the row after the
// line just ended.
func batchedLineFeed(k int) []byte {
	return []byte("\x1b[" + strconv.Itoa(k) + "S\x1b[" + strconv.Itoa(k-1) + "A")
}

// penRestored notes that the main screen's pen may have changed to one the
// screen did not see set (a restored cursor): no batch until an SGR sets
// the background again.
func (s *Screen) penRestored() {
	if s.alt.em == nil {
		s.bgSet = true
	}
}
