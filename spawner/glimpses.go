package spawner

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// glimpses follows what a running command's preview shows
// (screenmodel.Layout.Preview: Claude Code's latest rows of an output,
// above "… +N lines (4s)"). The preview is no part of the frame the
// aligner reads: the output is read where the program shows it whole once
// the command is done. But a long output is shown whole with the view at
// its end, or collapsed to its first rows: a row in its middle that the
// preview showed for the settle time, as it slid by, the program shows
// nowhere else, and a reader saw it there. So the preview's rows are
// stitched into the output they slide through, each with how long it
// showed; once the command is done (no preview runs, the view not scrolled
// back), the rows shown for the settle time that the view does not show
// whole are committed, in the output's order, before the frame's own rows.
type glimpses struct {
	rows []glimpse // the output as the preview showed it, in its order
	last int       // how many rows the last frame's preview showed: the tail of rows
	// read is when the last frame was read. A frame is read once it is
	// complete, often as the next one starts, so the frame a read shows
	// has shown since about the read before: a row's time on the screen
	// runs from the read before the first that shows it to the read
	// before the first that does not.
	read time.Time
}

// tick records a frame read at now and returns when the one before was.
func (g *glimpses) tick(now time.Time) time.Time {
	prev := g.read
	if prev.IsZero() {
		prev = now
	}
	g.read = now
	return prev
}

// glimpse is a row of an output as a running command's preview showed it.
type glimpse struct {
	text string // as shown, the mark of an output's first row blanked
	key  string // RowKey of text
	cols int    // the width it was laid out for
	// wrapAt: where the program wraps its text on that width
	// (screenmodel.Layout.WrapAt; 0: not known).
	wrapAt int
	y      int // the screen row it last showed on
	// first is when it first showed, gone when it no longer did (zero
	// while shown: see glimpses.read); frames counts the frames that
	// showed it.
	first, gone time.Time
	frames      int
	// apart: not shown right under the row before it (the output went on
	// by more than the preview holds between two frames).
	apart bool
	// grown: replaced in place by a longer text that starts with it (a
	// line still being written): not a row of its own.
	grown bool
}

// observe records the rows a frame's running preview shows, in order
// (text with the first row's mark blanked), on screen rows ys, each laid
// out for cols[i] columns and wrapped at wrapAt[i]; since is when the
// frame started to show (the read before). A row the terminal kept
// through a resize, not drawn again, is laid out for the old width: its
// line goes on in the row under it where that width wrapped it.
func (g *glimpses) observe(texts []string, ys, cols, wrapAt []int, since time.Time) {
	n := len(g.rows)
	prev := g.rows[n-g.last:]
	keys := make([]string, len(texts))
	for i, t := range texts {
		keys[i] = RowKey(t)
	}
	// The preview slides: the rows it showed last move up, and new ones
	// come in under them. The longest tail of the last preview that heads
	// this one is where it went on.
	k, replaced := overlap(prev, keys)
	left := prev[:len(prev)-k]
	if replaced {
		left = prev[:len(prev)-k-1]
		old := &g.rows[n-1]
		old.gone = since
		old.grown = strings.HasPrefix(keys[k], old.key)
	}
	for i := range left {
		left[i].gone = since
	}
	for i := range k {
		r := &g.rows[n-k+i]
		if replaced {
			r = &g.rows[n-1-k+i]
		}
		r.text, r.y, r.cols, r.wrapAt = texts[i], ys[i], cols[i], wrapAt[i]
		r.frames++
	}
	for i := k; i < len(texts); i++ {
		g.rows = append(g.rows, glimpse{text: texts[i], key: keys[i], cols: cols[i], wrapAt: wrapAt[i], y: ys[i], first: since, frames: 1, apart: i == 0 && k == 0 && !replaced && n > 0})
	}
	g.last = len(texts)
	if len(g.rows) > maxGlimpses+maxGlimpses/4 {
		// A little at a time would move every row on each frame.
		g.rows = slices.Delete(g.rows, 0, min(len(g.rows)-maxGlimpses, len(g.rows)-g.last))
		g.rows[0].apart = true
	}
}

// maxGlimpses bounds the rows of one output kept as its preview slid by: a
// command that prints for hours slides more rows by than are worth
// keeping, and its oldest are forgotten unread, as a scrollback forgets
// its oldest rows.
const maxGlimpses = DefaultScrollback

// overlap returns how many rows at the end of prev head keys, the longest
// such run; replaced: none do, but do once prev's last row is left out
// (a row rewritten in place, such as a progress count), and keys[k] is
// what replaced it.
func overlap(prev []glimpse, keys []string) (k int, replaced bool) {
	if k = tailHeads(prev, keys); k > 0 || len(prev) == 0 {
		return k, false
	}
	if k = tailHeads(prev[:len(prev)-1], keys); k > 0 && k < len(keys) {
		return k, true
	}
	return 0, false
}

// tailHeads returns the length of the longest tail of prev whose keys
// head keys.
func tailHeads(prev []glimpse, keys []string) int {
	for k := min(len(prev), len(keys)); k > 0; k-- {
		tail, same := prev[len(prev)-k:], true
		for i := range tail {
			if tail[i].key != keys[i] {
				same = false
				break
			}
		}
		if same {
			return k
		}
	}
	return 0
}

// done ends the output the preview showed: it returns its rows shown for
// the settle time (or settleFrames frames) of the lines the view does not
// show whole now, in order, numbered so that rows shown one under the
// other follow each other, and forgets them. view holds the keys of the
// rows the view shows whole. A line is the rows the program wrapped it
// into (a row goes on in the next one where it left no room for that
// row's first word); the view shows it whole where rows of the view,
// one under the other, join to its text (it may be wrapped anew). A line
// shorter than minRewrap ("{", "[[/RELAY]]": every block has them) is
// shown only where the lines of some length next to it are too: the same
// short text shows under many outputs. since is when the view showed
// first (rows still in the preview showed until then).
func (g *glimpses) done(view []string, since time.Time, settle time.Duration, settleFrames int) []commitRow {
	type line struct {
		from, to int // its rows
		shown    bool
		short    bool
	}
	var lines []line
	for i := 0; i < len(g.rows); {
		j, key := i+1, g.rows[i].key
		for j < len(g.rows) && g.rows[j-1].wraps(&g.rows[j]) {
			key += g.rows[j].key
			j++
		}
		lines = append(lines, line{from: i, to: j, shown: inView(view, key), short: len(key) < minRewrap})
		i = j
	}
	for k := range lines {
		if !lines[k].short || !lines[k].shown {
			continue
		}
		// The nearest lines of some length above and below, in the rows
		// shown one under the other.
		for up := k - 1; up >= 0 && !g.rows[lines[up+1].from].apart; up-- {
			if !lines[up].short {
				lines[k].shown = lines[up].shown
				break
			}
		}
		for down := k + 1; lines[k].shown && down < len(lines) && !g.rows[lines[down].from].apart; down++ {
			if !lines[down].short {
				lines[k].shown = lines[down].shown
				break
			}
		}
	}
	var out []commitRow
	// unread: rows before this one slid by unread (shown for less than
	// the settle time, or never: the output went on by more than the
	// preview holds between two frames). Rows the view shows whole are
	// read there, and a row that grew is read as the row it grew into.
	y, follows, unread := 0, false, false
	for _, l := range lines {
		for i := l.from; i < l.to; i++ {
			r := &g.rows[i]
			if r.gone.IsZero() {
				r.gone = since
			}
			seen := r.gone.Sub(r.first) >= settle || settleFrames > 0 && r.frames >= settleFrames
			unread = unread || r.apart && i > 0
			if l.shown || !seen || r.grown {
				unread = unread || !l.shown && !seen && !r.grown
				follows = false
				continue
			}
			switch {
			case follows && !r.apart:
				y++
			case len(out) > 0:
				y = max(r.y, y+2) // not the row under the last one read
			default:
				y = r.y
			}
			out = append(out, commitRow{y: y, text: r.text, cols: r.cols, elided: unread})
			follows, unread = true, false
		}
	}
	g.rows, g.last = g.rows[:0], 0
	return out
}

// inView reports whether rows of view, one under the other, join to key;
// blank rows between them too: the preview leaves out an output's blank
// lines (Claude Code's), so rows it showed one under the other, the first
// leaving no room for the next one's first word, may be two lines with a
// blank one between, as the view shows them.
func inView(view []string, key string) bool {
	for s := range view {
		if view[s] == "" {
			continue
		}
		rest := key
		for k := s; k < len(view) && strings.HasPrefix(rest, view[k]); k++ {
			if rest = rest[len(view[k]):]; rest == "" {
				return true
			}
		}
	}
	return false
}

// wraps reports whether the line of row r goes on in next, the row
// shown under it: r left no room for next's first word.
func (r *glimpse) wraps(next *glimpse) bool {
	if next.apart || next.grown || r.grown || r.wrapAt == 0 {
		return false
	}
	rest := strings.TrimLeft(next.text, " ")
	if rest == "" {
		return false
	}
	word, _, _ := strings.Cut(rest, " ")
	return ansi.StringWidth(strings.TrimRight(r.text, " "))+1+ansi.StringWidth(word) > r.wrapAt
}
