package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"swarm/supervisor"
)

// pane is the UI state of one agent's terminal pane: its rendered rows
// (kept until the agent's screen changes, the pane is resized or
// scrolled), its scroll position and search, and the size last pushed to
// the agent's terminal.
type pane struct {
	name string

	// Render cache.
	lines      []string // rows fitted to w cells
	w, h       int
	dirty      bool
	cursor     *cursorPos // where the agent's cursor is, when shown
	withCursor bool       // the cache was made with the cursor
	version    int        // counts renders, for the box cache

	// Scrollback. While scrolling, top is the index of the pane's top
	// row, numbered as Backend.Search numbers rows (scrollback rows
	// first, then the visible ones), so the view stays put while new
	// output arrives.
	scrolling bool
	top       int
	sbLen     int // scrollback length at the last render

	// Search.
	query string
	hits  []int
	hit   int // index into hits of the current match

	// The boxed pane as last drawn, and what it was drawn from.
	box    []string
	boxKey boxKey

	// Size last pushed to the agent's terminal (0 when none yet).
	rows, cols int
}

type cursorPos struct{ x, y int }

// boxKey is what a pane's box depends on besides its rows.
type boxKey struct {
	f           frame
	title, note string
	w, h        int
	version     int
}

// offset is how many rows the pane is scrolled back.
func (p *pane) offset() int {
	if !p.scrolling {
		return 0
	}
	return min(max(p.sbLen-p.top, 0), p.sbLen)
}

// invalidate drops the render cache.
func (p *pane) invalidate() { p.dirty = true }

// scrollTo moves the top row (clamped), entering scroll mode.
func (p *pane) scrollTo(top int) {
	p.scrolling = true
	p.top = min(max(top, 0), p.sbLen)
	p.dirty = true
}

// stopScrolling returns to the live screen and forgets the search.
func (p *pane) stopScrolling() {
	p.scrolling = false
	p.query, p.hits, p.hit = "", nil, 0
	p.dirty = true
}

// content returns the pane's rows for an inside of w×h cells, rendering
// them again only when the cache is stale. withCursor also records the
// agent's cursor (for the attached pane).
func (p *pane) content(b Backend, w, h int, withCursor bool) []string {
	if !p.dirty && p.w == w && p.h == h && p.withCursor == withCursor {
		return p.lines
	}
	p.w, p.h, p.dirty, p.withCursor = w, h, false, withCursor
	p.version++
	p.sbLen = b.ScrollbackLen(p.name)
	if p.scrolling {
		p.top = min(max(p.top, 0), p.sbLen)
	}
	off := p.offset()
	s, err := b.Render(p.name, off)
	if err != nil {
		p.lines = placeholder(w, h, "no screen yet")
		p.cursor = nil
		return p.lines
	}
	rows := strings.Split(s, "\n")
	cur := -1
	if p.scrolling && len(p.hits) > 0 {
		cur = p.hits[p.hit] - (p.sbLen - off)
	}
	lines := make([]string, 0, h)
	for i := range h {
		row := ""
		if i < len(rows) {
			row = rows[i]
		}
		if i == cur {
			lines = append(lines, styleSelRow.Render(fitPlain(ansi.Strip(row), w)))
			continue
		}
		lines = append(lines, fit(row, w))
	}
	p.lines = lines
	p.cursor = nil
	if withCursor && off == 0 {
		if snap, err := b.Snapshot(p.name); err == nil && snap.CursorVisible &&
			snap.Cursor.X < w && snap.Cursor.Y < h {
			p.cursor = &cursorPos{snap.Cursor.X, snap.Cursor.Y}
		}
	}
	return p.lines
}

// placeholder centres a note in an empty pane.
func placeholder(w, h int, note string) []string {
	lines := blankLines(w, h)
	if h > 0 {
		lines[h/2] = styleDim.Render(fitPlain(strings.Repeat(" ", max((w-len(note))/2, 0))+note, w))
	}
	return lines
}

// paneTitle is the text on a pane's top edge.
func paneTitle(a supervisor.AgentInfo, selected bool) string {
	t := a.Name + " · " + a.State.String()
	if a.State == supervisor.StateRunning {
		t += " · " + a.Level.String()
	} else if a.Reason != "" {
		t += ": " + a.Reason
	}
	if selected {
		t = "▶ " + t
	}
	return t
}

// paneNote is the text on the right of a pane's top edge: scroll and
// search position.
func (p *pane) note() string {
	if !p.scrolling {
		return ""
	}
	switch {
	case p.query == "":
		return fmt.Sprintf("SCROLL ↑%d", p.offset())
	case len(p.hits) == 0:
		return fmt.Sprintf("↑%d no match", p.offset())
	}
	return fmt.Sprintf("↑%d %d/%d", p.offset(), p.hit+1, len(p.hits))
}
