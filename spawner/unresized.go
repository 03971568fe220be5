package spawner

import (
	"cmp"
	"slices"
)

// unresized is what a screen never resized would still show that a resize
// took off this one: the rows under the cursor a shorter screen cut or a
// reflow gave up, and the blank rows a reflow sent off the top, each with
// the text committed for its line. The program has drawn nothing since
// (mainLines.resizedQuiet), so on a screen of the old size those rows
// would still be there, and the line committer reads them as it reads the
// screen's own rows: a row that no longer shows its text is where a line
// moved from (mainLines.moved), and the rows under a line are where a
// paragraph drawn anew may go on (mainLines.rewrapped). Once the program
// writes, it draws for the size it has, and the rows are gone: one erased
// is then a line that left erased, whose record stays a while as a ghost
// (mainLines.written), as that of a line that scrolls off erased does.
type unresized struct {
	rows []unresizedRow // in the order they were taken off
}

// unresizedRow is one row a resize took off the screen.
type unresizedRow struct {
	n   int64  // its position (Line.N)
	rec string // the text committed for its line
	// shows: the row still showed rec; else it was blank, its text erased.
	shows bool
}

// maxUnresized bounds the rows kept: resizes come one after another while
// a window is dragged, each taking off at most a screenful, and a row taken
// off again at the same position replaces the one kept.
const maxUnresized = 512

// add keeps a row taken off at position n, its line's record rec.
func (u *unresized) add(n int64, rec string, shows bool) {
	u.rows = slices.DeleteFunc(u.rows, func(r unresizedRow) bool { return r.n == n })
	if len(u.rows) == maxUnresized {
		u.rows = u.rows[1:]
	}
	u.rows = append(u.rows, unresizedRow{n: n, rec: rec, shows: shows})
}

// forget drops every row: the program drew for the size it has.
func (u *unresized) forget() { u.rows = u.rows[:0] }

// erasedFrom returns the position of a row, blank, whose record is text
// and that may have moved to position to (inOrder), and forgets it: the
// line left it, as it leaves a row of the screen.
func (u *unresized) erasedFrom(text string, to int64, inOrder func(from, to int64) bool) (int64, bool) {
	for i, r := range u.rows {
		if !r.shows && r.rec == text && inOrder(r.n, to) {
			u.rows = slices.Delete(u.rows, i, i+1)
			return r.n, true
		}
	}
	return 0, false
}

// appendBelow appends to pieces, in the order they stood, the rows below
// position n, as pieces of text a paragraph drawn anew may go on into.
func (u *unresized) appendBelow(pieces []ghost, n int64) []ghost {
	mark := len(pieces)
	for _, r := range u.rows {
		if r.n > n {
			pieces = append(pieces, ghost{text: r.rec, n: r.n})
		}
	}
	slices.SortStableFunc(pieces[mark:], func(a, b ghost) int { return cmp.Compare(a.n, b.n) })
	return pieces
}
