package spawner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The screen's side of the alternate-screen rule (frames.go): when a frame
// is complete enough to read, and which rows left it.

// altToken feeds a structural token to the alternate screen. A frame is
// read before a token that starts the next one (the view erased, the
// cursor sent home) and after the end of a synchronized update, the
// program's own word that a frame is complete; never in the middle of one.
//
// Programs that do not mark their frames redraw what changed from the top
// down, so the cursor going back up (to the first row the next frame
// changes) is where one frame ends: a frame is read then too. Rows that
// scroll off in between are kept until the next read.
func (s *Screen) altToken(tb []byte) {
	if !s.syncing && s.startsFrame() {
		s.observeAlt(false)
	}
	y := s.alt.CursorPosition().Y
	_, _ = s.alt.Write(tb)
	s.harvestAlt(s.tok.kind == tokCSI && s.tok.cmd == 'J')
	switch {
	case s.isSyncEnd():
		s.observeAlt(false)
	case !s.syncing && s.alt.CursorPosition().Y < y && s.onlyMoves():
		// The frame as it was before the move, the cursor where the
		// program left it.
		s.observeAltAt(false, y)
	case len(s.evicted) >= 2*s.rows:
		s.observeAlt(false) // bound what waits: a program scrolling without pause
	}
}

// onlyMoves reports whether the token moves the cursor and changes no
// cell, so that reading the frame after it is reading it before.
func (s *Screen) onlyMoves() bool {
	t := &s.tok
	switch t.kind {
	case tokESC:
		return t.cmd == '8' // DECRC
	case tokCSI:
		if t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
			return false
		}
		switch t.cmd.Final() {
		case 'A', 'F', 'H', 'f', 'd', 'u': // CUU CPL CUP HVP VPA SCORC
			return true
		}
	}
	return false
}

// startsFrame reports whether the token erases the whole view or sends the
// cursor home.
func (s *Screen) startsFrame() bool {
	t := &s.tok
	if t.kind != tokCSI || t.cmd.Prefix() != 0 || t.cmd.Intermediate() != 0 {
		return false
	}
	switch t.cmd.Final() {
	case 'J':
		switch t.param(0, 0) {
		case 2, 3:
			return true
		case 0:
			pos := s.alt.CursorPosition()
			return pos.X == 0 && pos.Y == 0
		}
	case 'H', 'f':
		return t.param(0, 1) <= 1 && t.param(1, 1) <= 1
	}
	return false
}

// syncMode follows synchronized output (mode 2026) for an h or l token.
func (s *Screen) syncMode() {
	t := &s.tok
	for _, p := range t.params {
		if p.Param(0) == int(ansi.ModeSynchronizedOutput.Mode()) {
			s.syncing = t.cmd.Final() == 'h'
		}
	}
}

func (s *Screen) isSyncEnd() bool {
	t := &s.tok
	if t.kind != tokCSI || t.cmd.Prefix() != '?' || t.cmd.Final() != 'l' {
		return false
	}
	for _, p := range t.params {
		if p.Param(0) == int(ansi.ModeSynchronizedOutput.Mode()) {
			return true
		}
	}
	return false
}

// harvestAlt collects the rows the alternate screen scrolled off since the
// last call; the rows an erase pushed out are not kept (they were read
// before it).
func (s *Screen) harvestAlt(erased bool) {
	sb := s.alt.Scrollback()
	if sb.Len() == 0 {
		return
	}
	if !erased {
		for _, l := range sb.Lines() {
			text := strings.TrimRight(string(appendText(nil, l, s.cols)), " ")
			if r, ok := newFrameRow(0, text, true); ok {
				r.markTurn(s.layout.EchoStart(text))
				s.evicted = append(s.evicted, r)
			}
		}
		if n := len(s.evicted) - maxEvicted; n > 0 {
			s.evicted = append(s.evicted[:0], s.evicted[n:]...)
		}
	}
	sb.Clear()
}

// maxEvicted bounds the rows kept between two reads of the alternate
// screen. Text that wraps and scrolls with no control character at all
// can push any number of rows out before a frame is read; past this many,
// the oldest are forgotten.
const maxEvicted = 10000

// observeAlt reads the alternate screen's frame and commits what the
// aligner finds new and settled; quiet: output has been quiet for the
// settle time.
func (s *Screen) observeAlt(quiet bool) {
	if s.alt != nil {
		s.observeAltAt(quiet, s.alt.CursorPosition().Y)
	}
}

// observeAltAt is observeAlt with the cursor on row cursor: the rows of the
// program's input box around it are what is being typed, not part of the
// frame.
func (s *Screen) observeAltAt(quiet bool, cursor int) {
	if s.alt == nil {
		return
	}
	if s.frames == nil {
		s.frames = newAligner(s.settle, s.settleFrames)
	}
	rows := s.frameRows[:0]
	for i, r := range s.evicted {
		r.y = i - len(s.evicted)
		rows = append(rows, r)
	}
	s.evicted = s.evicted[:0]
	shown := s.altText()
	top, bottom, box := s.layout.InputBox(shown, cursor)
	textCols := s.layout.TextColumns(s.cols)
	previews := s.previewRows(shown)
	for y, text := range shown {
		if box && y >= top && y <= bottom || s.layout.Status(text) || previews != nil && previews[y] == previewRunning {
			continue // typed input, the program's status row, or a running command's latest rows
		}
		if textCols < s.cols && ansi.StringWidth(text) > textCols {
			// A side panel beside the program's text is not its output.
			text = strings.TrimRight(ansi.Truncate(text, textCols, ""), " ")
		}
		text, covered := s.layout.Overlay(text)
		r, ok := newFrameRow(y, text, false)
		if c, was := s.cutRows[y]; was {
			if c.left == "" && ok && len(r.key) < len(c.drawn) && strings.HasPrefix(c.drawn, r.key) {
				c.left = r.key // the first look after the resize
				s.cutRows[y] = c
			}
			if c.left != "" && ok && r.key == c.left {
				continue // what the resize left of the row: not new
			}
			delete(s.cutRows, y) // drawn anew
		}
		if ok {
			r.markTurn(s.layout.EchoStart(text))
			// A row partly covered by a hint is not whole either.
			r.preview = previews != nil && previews[y] == previewDone || covered
			rows = append(rows, r)
		}
	}
	s.frameRows = rows
	s.altLines(s.frames.observe(rows, s.now(), quiet))
}

// previewRows returns, for each of the shown rows, whether it is part of
// a preview of a tool's output (screenmodel.Layout.Preview), nil when the
// program shows no previews. While the command runs, the preview is its
// latest rows sliding as more comes: not the transcript, which holds the
// output where the program shows it whole. Once it is done, the preview
// is its first rows cut at the edge: what the frame aligner may align
// with rows it read whole, never text to read.
func (s *Screen) previewRows(shown []string) []previewRow {
	if !s.layout.HasPreviews() {
		return nil
	}
	s.previews = slices.Grow(s.previews[:0], len(shown))[:len(shown)]
	clear(s.previews)
	for y := len(shown) - 1; y >= 0; y-- {
		if top, running, ok := s.layout.Preview(shown, y); ok {
			p := previewDone
			if running {
				p = previewRunning
			}
			for ; y >= top; y-- {
				s.previews[y] = p
			}
			y++
		}
	}
	return s.previews
}

// previewRow is what a row of the alternate screen is to previewRows.
type previewRow uint8

const (
	notPreview previewRow = iota
	previewDone
	previewRunning
)

// noteCutRows records the alternate screen's rows before a resize, which
// may cut them (see Screen.cutRows); observeAlt has just read them.
func (s *Screen) noteCutRows() {
	if s.cutRows == nil {
		s.cutRows = map[int]cutRow{}
	}
	for y, c := range s.cutRows {
		c.left = "" // a resize again: what it leaves is seen anew
		s.cutRows[y] = c
	}
	for _, r := range s.frameRows {
		if _, kept := s.cutRows[r.y]; r.y >= 0 && !kept {
			s.cutRows[r.y] = cutRow{drawn: r.key}
		}
	}
}

// cutRow is a row of the alternate screen a resize may have cut: its key
// as the program drew it, and as the resize left it ("" until seen).
type cutRow struct{ drawn, left string }

// flushAlt commits every row of the alternate screen's document still
// pending: the program left the alternate screen, or the output ended.
func (s *Screen) flushAlt() {
	if s.frames != nil {
		s.altLines(s.frames.flush())
	}
}

func (s *Screen) altLines(rows []commitRow) {
	now := s.now()
	for _, c := range rows {
		s.out = append(s.out, Line{N: s.base + int64(c.y), Text: c.text, Time: now, Cols: s.cols})
	}
}

// altText returns the alternate screen's rows as text. Rows are read again
// only when the emulator marked them touched since the last read: a
// spinner turning redraws one row, and the frame is read on each turn.
func (s *Screen) altText() []string {
	touched := s.alt.Touched()
	if len(s.altRows) != s.rows {
		s.altRows = make([]string, s.rows)
		touched = nil // read every row
	}
	var b []byte
	for y := range s.rows {
		if touched == nil || y < len(touched) && touched[y] != nil {
			b = appendText(b[:0], s.alt.Line(y), s.cols)
			s.altRows[y] = strings.TrimRight(string(b), " ")
		}
		if y < len(touched) {
			touched[y] = nil
		}
	}
	if checkAltRows {
		for y := range s.rows {
			b = appendText(b[:0], s.alt.Line(y), s.cols)
			if got := strings.TrimRight(string(b), " "); got != s.altRows[y] {
				panic(fmt.Sprintf("alternate screen row %d read as %q, shows %q", y, s.altRows[y], got))
			}
		}
	}
	return s.altRows
}

// checkAltRows makes altText check its rows against the screen (tests).
var checkAltRows bool
