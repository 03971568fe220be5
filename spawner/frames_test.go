package spawner

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"swarm/screenmodel"
)

// chatView draws a transcript on the alternate screen the way full-screen
// agent CLIs do: paragraphs word-wrapped under a bullet with a hanging
// indent, a blank row between them, the newest at the bottom of a
// viewport, an input box and a footer under it; every frame is redrawn
// row by row inside a synchronized update, or only its changed rows.
type chatView struct {
	rows, cols int
	paras      []string
	back       int    // rows the user scrolled the viewport back
	spinner    string // a status row under the transcript, "" for none
	input      string
	collapsed  map[int]bool
	diff       bool // draw only the rows that changed, without synchronized update
	last       []string
}

func (c *chatView) viewport() int { return c.rows - 4 }

// lines returns every transcript row at the current width.
func (c *chatView) lines() []string {
	var out []string
	for i, p := range c.paras {
		if i > 0 {
			out = append(out, "")
		}
		if c.collapsed[i] {
			out = append(out, "⏺ … +"+strconv.Itoa(len(p))+" characters (ctrl+o to expand)")
			continue
		}
		out = append(out, wrapHanging("⏺ ", p, c.cols-1)...)
	}
	return out
}

// wrapHanging word-wraps text to width under a bullet, later rows indented
// as wide as the bullet.
func wrapHanging(bullet, text string, width int) []string {
	indent := strings.Repeat(" ", len([]rune(bullet)))
	var out []string
	row := bullet
	n := len([]rune(bullet))
	for _, w := range strings.Fields(text) {
		wl := len([]rune(w))
		if n > len([]rune(bullet)) && n+1+wl > width {
			out = append(out, row)
			row, n = indent, len([]rune(indent))
		}
		if n > len([]rune(indent)) {
			row += " "
			n++
		}
		row += w
		n += wl
	}
	return append(out, row)
}

func (c *chatView) frame() []string {
	all := c.lines()
	h := c.viewport()
	end := max(len(all)-c.back, 0)
	start := max(end-h, 0)
	view := make([]string, c.rows)
	copy(view, all[start:end])
	view[h] = c.spinner
	view[h+1] = "> " + c.input
	view[h+2] = "? for shortcuts"
	return view
}

// draw returns the bytes of the next frame.
func (c *chatView) draw() string {
	view := c.frame()
	var b strings.Builder
	if !c.diff {
		b.WriteString("\x1b[?2026h")
	}
	for y, row := range view {
		if c.diff && y < len(c.last) && c.last[y] == row {
			continue
		}
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", y+1, row)
	}
	if !c.diff {
		b.WriteString("\x1b[?2026l")
	}
	c.last = view
	return b.String()
}

func (c *chatView) resize(rows, cols int) {
	c.rows, c.cols = rows, cols
	c.last = nil // a program redraws everything for its new size
}

// altRun feeds frames to a screen and collects the committed lines; every
// frame is followed by the given pause on the screen's clock.
// drawRows draws rows on the screen's first n rows, each row erased to its
// end (rows past the given ones blank), as a program draws its view.
func drawRows(n int, rows []string) string {
	var b strings.Builder
	for y := range n {
		row := ""
		if y < len(rows) {
			row = rows[y]
		}
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
	}
	return b.String()
}

type altRun struct {
	t     *testing.T
	s     *Screen
	now   time.Time
	lines []string
	late  []Line
	all   []Line // every line committed, as committed
	// elided: the lines read right after rows the program showed that
	// were left out (Line.Elided).
	elided []string
}

// newAltRun is a run on the alternate screen, its cursor hidden, of a
// program of no known kind.
func newAltRun(t *testing.T, rows, cols int) *altRun {
	r := newKindRun(t, "", rows, cols)
	r.write("\x1b[?1049h\x1b[?25l")
	return r
}

// newKindRun is a run laid out as a program of kind draws its screen
// (screenmodel.Of), before anything is written: the test enters the
// alternate screen and shows or hides the cursor as that program does.
func newKindRun(t *testing.T, kind string, rows, cols int) *altRun {
	r := &altRun{t: t, now: time.Unix(1e9, 0)}
	r.s = NewScreen(ScreenOptions{Rows: rows, Cols: cols, Clock: func() time.Time { return r.now }, Layout: screenmodel.Of(kind)})
	t.Cleanup(func() { r.s.Close() })
	return r
}

func (r *altRun) write(b string) {
	if _, err := r.s.Write([]byte(b)); err != nil {
		r.t.Fatal(err)
	}
	r.take(r.s.TakeLines())
}

// take adds the lines committed to lines, and those read apart (Late,
// Again: history shown only now, and its paragraph's rows again) to late.
func (r *altRun) take(ls []Line) {
	r.all = append(r.all, ls...)
	for _, l := range ls {
		if l.Elided {
			r.elided = append(r.elided, l.Text)
		}
		if l.Late || l.Again {
			r.late = append(r.late, l)
			continue
		}
		r.lines = append(r.lines, l.Text)
	}
}

// pause lets time pass with no output, as the process's settle timer sees it.
func (r *altRun) pause(d time.Duration) {
	r.now = r.now.Add(d)
	r.take(r.s.Settle())
}

func (r *altRun) flush() { r.take(r.s.Flush()) }

// count returns how many committed lines contain s.
func (r *altRun) count(s string) int {
	n := 0
	for _, l := range r.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

func (r *altRun) wantOnce(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if n := r.count(id); n != 1 {
			t.Errorf("%q committed %d times, want once; lines:\n%s", id, n, strings.Join(r.lines, "\n"))
		}
	}
}

// wantNever checks that no committed line contains any of ids; where
// says where the test drew them.
func (r *altRun) wantNever(t *testing.T, where string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if n := r.count(id); n != 0 {
			t.Errorf("%q, %s, committed %d times, want never:\n%s", id, where, n, strings.Join(r.lines, "\n"))
		}
	}
}

func relayPara(id string, words int) string {
	var b strings.Builder
	b.WriteString("@relay:bob " + id)
	for i := range words {
		fmt.Fprintf(&b, " w%03d", i)
	}
	return b.String()
}

func TestAltScreenChatView(t *testing.T) {
	for _, diff := range []bool{false, true} {
		t.Run(fmt.Sprintf("diff=%v", diff), func(t *testing.T) {
			c := &chatView{rows: 24, cols: 80, diff: diff, collapsed: map[int]bool{}}
			r := newAltRun(t, 24, 80)
			step := func() {
				r.write(c.draw())
				r.pause(300 * time.Millisecond)
			}
			step()
			var ids []string
			for i := range 30 {
				id := fmt.Sprintf("<m%02d>", i)
				ids = append(ids, id)
				if i%3 == 0 {
					c.paras = append(c.paras, relayPara(id, 40)) // wraps over several rows
				} else {
					c.paras = append(c.paras, "@relay:bob "+id+" short")
				}
				c.paras = append(c.paras, fmt.Sprintf("filler paragraph %d that is not a command", i))
				step()
			}
			r.wantOnce(t, ids...)

			// The user scrolls back a page at a time to the top and down
			// again: every row shown is old.
			for c.back = 0; c.back < len(c.lines()); c.back += 10 {
				step()
			}
			for ; c.back >= 0; c.back -= 7 {
				step()
			}
			c.back = 0
			step()
			r.wantOnce(t, ids...)

			// An item collapses and expands again.
			c.collapsed[len(c.paras)-2] = true
			step()
			delete(c.collapsed, len(c.paras)-2)
			step()
			r.wantOnce(t, ids...)

			// A narrower window: every long paragraph is wrapped anew.
			c.resize(24, 61)
			r.s.Resize(24, 61)
			step()
			c.resize(30, 100)
			r.s.Resize(30, 100)
			step()
			r.wantOnce(t, ids...)

			// The same text printed again is a new occurrence.
			c.paras = append(c.paras, "@relay:bob <m01> short", "@relay:bob <m01> short")
			step()
			if n := r.count("<m01>"); n != 3 {
				t.Errorf("<m01> committed %d times, want 3:\n%s", n, strings.Join(r.lines, "\n"))
			}
			r.flush()
		})
	}
}

func TestAltScreenStreamingAndSpinner(t *testing.T) {
	c := &chatView{rows: 24, cols: 80, collapsed: map[int]bool{}}
	r := newAltRun(t, 24, 80)
	spin := []string{"⠋", "⠙", "⠹", "⠸"}
	frame := 0
	// Text streams in word by word, a frame every 50 ms, with a spinner
	// under it: nothing is committed until the paragraph stops changing.
	msg := relayPara("<streamed>", 30)
	words := strings.Fields(msg)
	c.paras = append(c.paras, "")
	for i := 1; i <= len(words); i++ {
		c.paras[len(c.paras)-1] = strings.Join(words[:i], " ")
		c.spinner = spin[frame%len(spin)] + " Thinking… (" + strconv.Itoa(frame/20) + "s)"
		frame++
		r.write(c.draw())
		r.now = r.now.Add(50 * time.Millisecond)
	}
	if n := r.count("@relay:"); n != 0 {
		t.Fatalf("a streaming paragraph was committed before it settled:\n%s", strings.Join(r.lines, "\n"))
	}
	// The spinner keeps turning while the text stays: the text settles.
	for range 10 {
		c.spinner = spin[frame%len(spin)] + " Thinking…"
		frame++
		r.write(c.draw())
		r.now = r.now.Add(50 * time.Millisecond)
	}
	r.wantOnce(t, "<streamed>")
	found := false
	for _, l := range r.lines {
		if strings.HasPrefix(l, "⏺ @relay:bob <streamed> w000") {
			found = true
		}
	}
	if !found {
		t.Errorf("the paragraph's first row is missing: %q", r.lines)
	}
	c.spinner = ""
	r.write(c.draw())
	r.flush()
	r.wantOnce(t, "<streamed>")
}

func TestAltScreenRowsScrolledOffBetweenFrames(t *testing.T) {
	// A program that scrolls its view with line feeds and never pauses:
	// rows that leave before any frame is read are still committed once.
	r := newAltRun(t, 6, 40)
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, "\r\n@relay:bob line <%02d>", i)
	}
	r.write(b.String())
	r.flush()
	for i := range 50 {
		r.wantOnce(t, fmt.Sprintf("<%02d>", i))
	}
}

func TestAltScreenFullScreenProgramRepaints(t *testing.T) {
	// vim-like: the whole screen repainted, scrolled by redraw and
	// repainted again: each row once.
	r := newAltRun(t, 10, 40)
	file := make([]string, 30)
	for i := range file {
		file[i] = fmt.Sprintf("line %02d of the file", i)
	}
	draw := func(top int) {
		var b strings.Builder
		b.WriteString("\x1b[H\x1b[2J")
		for y := range 9 {
			fmt.Fprintf(&b, "\x1b[%d;1H%s", y+1, file[top+y])
		}
		fmt.Fprintf(&b, "\x1b[10;1H\"file\" 30L")
		r.write(b.String())
	}
	for range 3 {
		for top := 0; top <= 21; top += 3 {
			draw(top)
			r.pause(time.Second)
		}
	}
	r.flush()
	for i := range file {
		r.wantOnce(t, fmt.Sprintf("line %02d ", i))
	}
}

// FuzzAltScreen plays arbitrary output on the alternate screen, with
// chat-view frames as seeds: no panic, the document stays bounded, and the
// committed lines do not depend on where the output is cut into writes.
func FuzzAltScreen(f *testing.F) {
	c := &chatView{rows: 8, cols: 30, collapsed: map[int]bool{}}
	var seed strings.Builder
	for i := range 6 {
		c.paras = append(c.paras, relayPara(fmt.Sprintf("<%d>", i), 6))
		seed.WriteString(c.draw())
	}
	c.back = 4
	seed.WriteString(c.draw())
	f.Add([]byte(seed.String()), uint16(seed.Len()/2), uint8(8), uint8(30))
	c.diff, c.back = true, 0
	f.Add([]byte(c.draw()+"\r\n\r\nx\x1b[2J\x1b[H@relay:a b\x1b[?2026h\x1b[5S\x1b[?2026l"), uint16(7), uint8(4), uint8(12))
	f.Add([]byte("\x1b[2;5r\x1b[5;1H\r\n1\r\n2\r\n3\x1b[?1049l\x1b[?1049h\x1b[H\x1b[J"), uint16(3), uint8(6), uint8(10))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, rows, cols uint8) {
		opts := ScreenOptions{Rows: int(rows%30) + 1, Cols: int(cols%100) + 1, Scrollback: 20, Clock: stillClock}
		in := "\x1b[?1049h" + string(data)
		k := int(cut) % (len(in) + 1)
		whole := feed(t, opts, in, func(int) []int { return nil })
		split := feed(t, opts, in, func(int) []int { return []int{k} })
		if strings.Join(whole, "\n") != strings.Join(split, "\n") {
			t.Fatalf("cut at %d changes the lines:\nwhole:\n%s\nsplit:\n%s", k, strings.Join(whole, "\n"), strings.Join(split, "\n"))
		}
		s := NewScreen(opts)
		defer s.Close()
		_, _ = s.Write([]byte(in))
		if s.alt.frames != nil && len(s.alt.frames.doc) > maxDocRows {
			t.Fatalf("document of %d rows", len(s.alt.frames.doc))
		}
		if len(s.alt.evicted) > maxEvicted {
			t.Fatalf("%d rows wait to be read", len(s.alt.evicted))
		}
	})
}

// A frame of rows alike by the thousand (printed in one write on the
// alternate screen, scrolled off its top) is aligned with a bounded number
// of pairs, fewer candidates a row: the alignment's work grows with their
// square, and 703 rows of "+" on a screen one column wide took seconds.
func TestAFrameOfManyRowsAlikeIsAlignedWithBoundedPairs(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 2, Cols: 1, Scrollback: 20})
	defer s.Close()
	_, _ = s.Write([]byte("\x1b[?1049h" + strings.Repeat("+", 600) + "\v"))
	_, _ = s.Write([]byte(strings.Repeat("+", 700) + "\v"))
	// The frame's 703 rows (the 700 that scrolled off and the screen's),
	// one candidate a row at least.
	if n := len(s.alt.frames.pairs); n > maxPairs || n < 703 {
		t.Fatalf("%d pairs aligned, want at most %d, one a row at least (703)", n, maxPairs)
	}
}

func TestMain(m *testing.M) {
	checkAltRows = true // every read of the alternate screen is checked
	os.Exit(m.Run())
}

// TestAltScreenOutputPrintedAgain: a long output printed again, below a
// shorter showing of the first one (collapsed to its first rows, as Claude
// Code shows an older command's output), is new: the rows the last frame
// showed stay where they were, rather than the old output's hidden rows
// being taken to scroll into view.
func TestAltScreenOutputPrintedAgain(t *testing.T) {
	c := &chatView{rows: 40, cols: 80, collapsed: map[int]bool{}}
	r := newAltRun(t, 40, 80)
	out := func(tag string) string {
		return strings.Repeat("filler "+tag+" ", 9) + relayPara("<again>", 8) + strings.Repeat(" more "+tag, 12)
	}
	c.paras = []string{"$ cat f02.txt", out("x"), "$ sh f03.sh", "running a long script"}
	r.write(c.draw())
	r.pause(time.Second)
	// The first output collapses once the command is done; later the
	// same file is printed again.
	c.collapsed[1] = true
	r.write(c.draw())
	r.pause(time.Second)
	c.paras = append(c.paras, "$ cat f04.txt", out("x"))
	r.write(c.draw())
	r.pause(time.Second)
	r.write(c.draw())
	r.pause(time.Second)
	if n := r.count("<again>"); n != 2 {
		t.Errorf("<again> committed %d times, want twice (printed twice):\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenRowsUnderANewTurn: rows under the echo of a line typed
// anew are that turn's output, however like rows above it they are (issue
// 29, causes 2 and 8). Claude Code collapses an older output to its first
// rows and "… +N lines" and shows the next command's output below its
// echo: a file printed again, or a block whose "{", "type", "}" and
// [[/RELAY]] rows are those of the block before, is new there, not the
// old rows moved down.
func TestAltScreenRowsUnderANewTurn(t *testing.T) {
	t.Parallel()
	// A frame is drawn over the last one, each row cleared after its
	// text, as the chat views draw.
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J")
		return b.String()
	}
	block := func(to, body string) []string {
		return []string{"  ⎿  [[RELAY]]", "     {", `       "to": "` + to + `",`, `       "type": "message",`,
			`       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	// more is a block that follows another in the same output.
	more := func(rows []string) []string {
		rows[0] = "     " + strings.TrimPrefix(rows[0], "  ⎿  ")
		return rows
	}
	for _, tc := range []struct {
		name        string
		first, then []string
		kind        string         // "claude" unless set
		want        map[string]int // committed lines holding each, how many
	}{{
		name:  "a file printed again",
		first: []string{"! cat f1.txt", "  ⎿  @relay:bob hot vary clothe consider", "     an ordinary line of output"},
		then: []string{"! cat f1.txt", "  ⎿  … +2 lines (ctrl+o to expand)", "", "! cat f2.txt", "  ⎿  done", "",
			"! cat f1.txt", "  ⎿  @relay:bob hot vary clothe consider", "     an ordinary line of output"},
		want: map[string]int{"@relay:bob hot vary": 2, "an ordinary line": 2},
	}, {
		name:  "a block like the one before",
		first: append([]string{"! cat f1.txt"}, block("alice", "first one")...),
		then: append([]string{"! cat f1.txt", "  ⎿  [[RELAY]]", "     {", "     … +6 lines (ctrl+o to expand)", "",
			"! cat f2.txt"}, block("bob", "second one")...),
		want: map[string]int{"[[RELAY]]": 2, "{": 2, `"type"`: 2, `"second one"`: 1, "}": 2, "[[/RELAY]]": 2},
	}, {
		// An older output collapsed above moves everything up: the new
		// block shows higher than the old one did.
		name: "a block like the one before, shown higher",
		first: append([]string{"! sh f0.sh", "  ⎿  one", "     two", "     three", "     four", "     five", "     six",
			"     seven", "     eight", "", "! cat f1.txt"}, block("alice", "first one")...),
		then: append([]string{"! sh f0.sh", "  ⎿  one", "     … +7 lines (ctrl+o to expand)", "",
			"! cat f1.txt", "  ⎿  [[RELAY]]", "     {", "     … +5 lines (ctrl+o to expand)", "",
			"! cat f2.txt"}, block("bob", "second one")...),
		want: map[string]int{"[[RELAY]]": 2, "{": 2, `"type"`: 2, `"second one"`: 1, "}": 2, "[[/RELAY]]": 2},
	}, {
		// The echo of the command typed last shows already (running) when
		// its output comes and the older one collapses above: the new
		// block shows where the old one's rows were.
		name: "blocks under the echo shown before them",
		first: slices.Concat([]string{"! cat f1.txt"}, block("alice", "first one"), more(block("qa_1", "second one")),
			[]string{"     end of the output", "  ⎿  Interrupted", "", "! cat f2.txt", "  ⎿  Running…"}),
		then: slices.Concat([]string{`       "to": "alice",`, "     … +12 lines (ctrl+o to expand)", "  ⎿  Interrupted", "",
			"! cat f2.txt"}, block("bob", "third one"), more(block("qa_1", "fourth one")), []string{"     end of the output"}),
		want: map[string]int{"[[RELAY]]": 4, "{": 4, `"type"`: 4, `"third one"`: 1, `"fourth one"`: 1, "}": 4, "[[/RELAY]]": 4},
	}, {
		// Codex shows the command it runs, then the echo of it in the same
		// row: the rows below are not under a new turn.
		name:  "a header that becomes the echo",
		first: []string{"• Running cat f1.txt", "  └ @relay:bob hot vary clothe consider", "    an ordinary line of output"},
		then:  []string{"• You ran cat f1.txt", "  └ @relay:bob hot vary clothe consider", "    an ordinary line of output"},
		kind:  "codex",
		want:  map[string]int{"@relay:bob hot vary": 1, "an ordinary line": 1},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newKindRun(t, cmp.Or(tc.kind, "claude"), 24, 80)
			r.write("\x1b[?1049h\x1b[?25l")
			r.write(frame(tc.first...) + "\x1b[24;1H")
			r.pause(time.Second)
			r.write(frame(tc.then...) + "\x1b[24;1H")
			r.pause(time.Second)
			r.flush()
			for s, n := range tc.want {
				if got := r.count(s); got != n {
					t.Errorf("%q committed %d times, want %d:\n%s", s, got, n, strings.Join(r.lines, "\n"))
				}
			}
		})
	}
}

// TestAltScreenBlockAmidNewOutput: Claude Code follows a long output
// down, so the echo of the command typed last scrolls off and the view
// shows only the new output; a block in it whose "[[RELAY]]", "{", "to"
// and "type" rows are those of an older block (off the screen, not shown a
// moment ago) is new text, drawn between new rows of the same paragraph,
// not the old block come back into view (issue 29).
func TestAltScreenBlockAmidNewOutput(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J\x1b[12;1H")
		return b.String()
	}
	block := func(body string) []string {
		return []string{"     [[RELAY]]", "     {", `       "to": "bob",`, `       "type": "message",`,
			`       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	r := &altRun{t: t, now: time.Unix(1e9, 0)}
	r.s = NewScreen(ScreenOptions{Rows: 12, Cols: 80, Clock: func() time.Time { return r.now }})
	t.Cleanup(func() { r.s.Close() })
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(slices.Concat([]string{"! cat f1.txt", "  ⎿  the first output starts here"}, block("first one"),
		[]string{"     end of the first output"})...))
	r.pause(time.Second)
	r.write(frame("     end of the first output", "", "! cat f2.txt", "  ⎿  Running…"))
	r.pause(time.Second)
	r.write(frame(slices.Concat([]string{"     progress 80%", "     progress 90%", "     done with the second output now"},
		block("second one"), []string{"     end of the second output"})...))
	r.pause(time.Second)
	r.flush()
	for s, n := range map[string]int{"[[RELAY]]": 2, "{": 2, `"to": "bob"`: 2, `"type"`: 2, `"second one"`: 1} {
		if got := r.count(s); got != n {
			t.Errorf("%q committed %d times, want %d:\n%s", s, got, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenOutputCutByTheTopOfTheView: while Claude Code works, its
// status row and a hint take rows under the transcript, whose view follows
// the newest output: an output taller than the view shows without its
// first rows. Done, it gives those rows back and the view shows the output
// from its first row. The rows the top of the view cut wait for that, so
// that a relay line whose first row was above the view is read whole and
// in its order (issue 29).
func TestAltScreenOutputCutByTheTopOfTheView(t *testing.T) {
	t.Parallel()
	const rule = "────────────────────────────────────────"
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", len(rows)-2) // in the input box
		return b.String()
	}
	relay := []string{"  ⎿  @relay:bob the first row of a long line that the program",
		"     wrapped over three rows of its view, the second one here",
		"     and the last one", "     an ordinary line under it"}
	r := newKindRun(t, "claude", 10, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	// At work: room for three rows of the transcript.
	r.write(frame(slices.Concat(relay[1:], []string{"", "✶ Working… (esc to interrupt)", "  ⎿  Tip: a hint", rule, "❯ ", rule, "  ? for shortcuts"})...))
	r.pause(time.Second)
	// Done: the view shows the output whole.
	r.write(frame(slices.Concat(relay, []string{rule, "❯ ", rule, "  ? for shortcuts"})...))
	r.pause(time.Second)
	r.flush()
	first, rest := -1, -1
	for i, l := range r.lines {
		if strings.Contains(l, "@relay:bob") && first < 0 {
			first = i
		}
		if strings.Contains(l, "the second one here") && rest < 0 {
			rest = i
		}
	}
	if first < 0 || rest < 0 || first > rest || r.count("the second one here") != 1 {
		t.Errorf("the relay line's rows are not committed once each in order:\n%s", strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenFileShownAgainFromTheTopOfTheView: a file printed a second
// time, its first row above the view's top while Claude Code works, shows
// that row once the program is done and gives the view its rows back. The
// row is the first row of the output under it (no blank row between), not
// the first print's row, whose turn lies above the second's: it is read
// again, before the rows under it (issue 29).
func TestAltScreenFileShownAgainFromTheTopOfTheView(t *testing.T) {
	t.Parallel()
	const rule = "────────────────────────────────────────"
	frame := func(rows ...string) string {
		var b strings.Builder
		for y := range 13 {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", len(rows)-2) // in the input box
		return b.String()
	}
	const first = "  ⎿  @relay:bob the first row of a file printed twice"
	transcript := []string{"! cat f1.txt", first, "     the second row of that file"}
	for i := range 30 {
		transcript = append(transcript, fmt.Sprintf("     an ordinary line of output, number %02d", i))
	}
	transcript = append(transcript, "  ⎿  Interrupted", "", "! cat f2.txt")
	box := []string{rule, "❯ ", rule, "  ? for shortcuts"}
	r := newKindRun(t, "claude", 13, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	// The first print, the view following it down, then the second's echo.
	for top := 0; top+9 <= len(transcript); top += 4 {
		r.write(frame(slices.Concat(transcript[top:top+9], box)...))
		r.pause(time.Second)
	}
	r.write(frame(slices.Concat(transcript[len(transcript)-9:], box)...))
	r.pause(time.Second)
	second := []string{first, "     the second row of that file", "     and a third row, printed only the second time"}
	for i := range 5 {
		second = append(second, fmt.Sprintf("     a new line of the second print, number %d", i))
	}
	// At work: the status row and a hint take two rows, the view follows
	// the output's end; its first row and the echo are above the view.
	r.write(frame(slices.Concat(second[1:], []string{"✶ Working… (esc to interrupt)", "  ⎿  Tip: a hint"}, box)...))
	r.pause(time.Second)
	// Done: the view shows the output from its first row.
	r.write(frame(slices.Concat(second, []string{"  ⎿  Interrupted"}, box)...))
	r.pause(time.Second)
	r.flush()
	var at []int
	third := -1
	for i, l := range r.lines {
		if strings.Contains(l, "@relay:bob the first row") {
			at = append(at, i)
		}
		if strings.Contains(l, "and a third row") {
			third = i
		}
	}
	if len(at) != 2 || third < 0 || at[1] > third {
		t.Errorf("the file's first row committed at %v, its third row at %d: want twice, the second time before the third row:\n%s", at, third, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenBlockToTheSameRecipientAtTheViewsTop: a second file holds
// a block to the same recipient as the first file's; the view, at work,
// moves on to the second output and shows it from the block's "to" and
// "type" rows, its "[[RELAY]]" and "{" above the view's top. The rows
// that were under the first block's "type" row, moved as far, would show
// new text: those two rows are the new block's, not the old one's moved
// (a reader sees the new body right under them), nor the old ones wrapped
// anew above a row aligned further down (the line both files hold), and
// the block is read whole (claude-s8700030; issue 29).
func TestAltScreenBlockToTheSameRecipientAtTheViewsTop(t *testing.T) {
	t.Parallel()
	const rule = "────────────────────────────────────────"
	const height = 32
	frame := func(rows ...string) string {
		var b strings.Builder
		for y := range height {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", len(rows)-1) // in the input box
		return b.String()
	}
	block := func(to, topic, body1 string, body ...string) []string {
		rows := []string{"     [[RELAY]]", "     {", `       "to": "` + to + `",`, `       "type": "message",`, `       "body": "` + body1}
		for _, b := range body {
			rows = append(rows, "     "+b)
		}
		rows[len(rows)-1] += `",`
		return append(rows, `       "topic": "`+topic+`"`, "     }", "     [[/RELAY]]")
	}
	first := slices.Concat([]string{"! cat f1.txt", "  ⎿  a line before the first block"},
		block("bob", "t1", "the first block's body runs on over", "two rows of the first file"),
		[]string{"     a line both files hold"},
		block("carol", "t2", "a block to carol after it, its body", "also over two rows of that file"),
		[]string{"     end of the first output", "  ⎿  Interrupted", "", "! cat f2.txt", "  ⎿  Running…"})
	// The second file's block to bob has a longer body, and a new line
	// under it: rows under its first rows move less than those.
	second := slices.Concat([]string{"  ⎿  a line before the second block"},
		block("bob", "t3", "another body, the second file's own", "text over three rows", "and not two"),
		[]string{"     a line only the second file holds", "     a line both files hold", "     end of the second output"})
	box := []string{rule, "❯ ", rule}
	r := newKindRun(t, "claude", height, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	// The first file, the second's echo under it, read.
	r.write(frame(slices.Concat(first, box)...))
	r.pause(time.Second)
	// At work: the view moved on to the second output's end, its first
	// rows (down to bob's block's "{") above the view's top.
	r.write(frame(slices.Concat(second[3:], []string{"", "✶ Working… (esc to interrupt)", ""}, box)...))
	r.pause(time.Second)
	// Done: the view shows the second output from its first row.
	r.write(frame(slices.Concat(second, []string{"  ⎿  Interrupted", ""}, box)...))
	r.pause(time.Second)
	r.flush()
	for want, n := range map[string]int{`"to": "bob",`: 2, `"type": "message",`: 3, "[[RELAY]]": 3, "{": 3, "}": 3, "[[/RELAY]]": 3} {
		if got := r.count(want); got != n {
			t.Errorf("%q committed %d times, want %d (once for each block):\n%s", want, got, n, strings.Join(r.lines, "\n"))
		}
	}
	// The second file's first block in order: its rows from "[[RELAY]]"
	// to its body.
	at := slices.IndexFunc(r.lines, func(l string) bool { return strings.Contains(l, "another body") })
	if at < 5 || !strings.Contains(r.lines[at-5], "a line before the second block") ||
		!strings.Contains(r.lines[at-1], `"type"`) || !strings.Contains(r.lines[at-2], `"to"`) ||
		!strings.Contains(r.lines[at-3], "{") || !strings.Contains(r.lines[at-4], "[[RELAY]]") {
		t.Errorf("the second file's first block is not read whole, in order:\n%s", strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenMenuOverTheTranscript: a "/" typed in Claude Code's box
// opens the menu of its commands right above the box, over the
// transcript's last rows: the menu is what is being typed, and the rows it
// covers are hidden, not gone. The relay line's first row, shown above the
// menu, is no line of its own, and a row alike under each turn ("⎿
// Interrupted"), shown where the last frame showed it, is that row, not
// the latest turn's one the menu covers (issue 29).
func TestAltScreenMenuOverTheTranscript(t *testing.T) {
	t.Parallel()
	rule := strings.Repeat("─", 64)
	frame := func(box []string, rows ...string) string {
		var b strings.Builder
		rows = append(rows, box...)
		for y := range 14 {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", len(rows)-2) // in the input box
		return b.String()
	}
	box := []string{rule, "❯ ", rule, "  ? for shortcuts"}
	const interrupted = "  ⎿  Interrupted · What should Claude do instead?"
	first := []string{"! cat f1.txt", "  ⎿  the first row of the first output", "     … +2 lines (ctrl+o to expand)", interrupted, ""}
	r := newKindRun(t, "claude", 14, 100)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(box, "! cat f1.txt", "  ⎿  the first row of the first output", "     the second row of the first output",
		"     the third row of the first output", interrupted, "", "! : f2; printf '%s\\n' '@relay:bob answer nothing part hear chair talk make climb fell key'", "  ⎿  Running…"))
	r.pause(time.Second)
	// Done: the first output collapsed, the second shown whole.
	r.write(frame(box, slices.Concat(first, []string{"! : f2; printf '%s\\n' '@relay:bob answer nothing part hear chair talk make climb fell key'",
		"  ⎿  @relay:bob answer nothing part hear chair talk make climb fell key", interrupted})...))
	r.pause(time.Second)
	// Narrower: the program lays the transcript out anew.
	r.s.Resize(14, 64)
	r.take(r.s.TakeLines())
	done := slices.Concat(first, []string{"! : f2; printf '%s\\n' '@relay:bob answer nothing part hear",
		"  chair talk make climb fell key'", "  ⎿  @relay:bob answer nothing part hear chair talk make climb", "     fell key", interrupted})
	r.write(frame(box, done...))
	r.pause(time.Second)
	// "/ex" typed: the menu covers the transcript's last two rows.
	r.write(frame([]string{"  ❯ /exit                   Exit the CLI", "    /context                Show what fills the context", rule, "❯ /ex", rule, "  ? for shortcuts"}, done[:len(done)-2]...))
	r.pause(time.Second)
	r.flush()
	var relays []string
	for _, l := range r.lines {
		if l = strings.TrimLeft(l, " ⎿"); strings.HasPrefix(l, "@relay:") {
			relays = append(relays, l)
		}
	}
	if want := []string{"@relay:bob answer nothing part hear chair talk make climb fell key"}; !slices.Equal(relays, want) {
		t.Errorf("relay lines committed %q, want %q:\n%s", relays, want, strings.Join(r.lines, "\n"))
	}
	r.wantNever(t, "in the menu", "/context")
}

// TestAltScreenErasedViewSaysNothing: a program resized (Claude Code)
// erases its view and draws it anew for the new width, its rows wrapped
// anew and the view scrolled. The erased view read in between shows no
// row: it is no frame to align the new one with (the row under the relay
// line, shown alone, is where the last frame that showed rows showed
// it), and the relay line wrapped anew is not read again (issue 29;
// claude-s8100030).
func TestAltScreenErasedViewSaysNothing(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y := range 8 {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		return b.String()
	}
	const under = "  ⎿  Interrupted · What should Claude do instead?"
	r := newAltRun(t, 8, 100)
	r.write(frame("! sh f1.sh", "  ⎿  @relay:bob the first row of a long relay line that the program wraps at the edge of its view,",
		"     a hundred columns wide, and more", under))
	r.pause(time.Second)
	r.s.Resize(8, 70)
	r.take(r.s.TakeLines())
	r.write("\x1b[2J\x1b[H")
	r.write(frame("  ⎿  @relay:bob the first row of a long relay line that the program",
		"     wraps at the edge of its view, a hundred columns wide, and more", under))
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "@relay:bob the first row")
}

// TestAltScreenOutputHoldingTheLineTyped: a command that prints what it
// was given shows rows whose text, without their indent, is that of the
// rows of its echo, wrapped alike. The output's rows are output, not the
// echo's rows shown again, though the program wrapped the echo's last
// rows anew since (issue 29; claude-s8100026, gemini-s8100022).
func TestAltScreenOutputHoldingTheLineTyped(t *testing.T) {
	t.Parallel()
	rule := strings.Repeat("─", 60)
	frame := func(rows ...string) string {
		var b strings.Builder
		rows = append(rows, rule, "❯ ", rule, "  ? for shortcuts")
		for y := range 14 {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", len(rows)-2) // in the input box
		return b.String()
	}
	r := newKindRun(t, "claude", 14, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame("! printf '%s\\n' 'one two three four five six seven eight nine",
		"  listen white flat tail think rock sail either",
		"  age six strong they game love them every'", "  ⎿  Running…"))
	r.pause(time.Second)
	// Done: the echo's last rows wrapped anew, the output under it.
	r.write(frame("! printf '%s\\n' 'one two three four five six seven eight nine",
		"  listen white flat tail think rock sail either age six",
		"  strong they game love them every'",
		"  ⎿  one two three four five six seven eight nine",
		"     listen white flat tail think rock sail either",
		"     age six strong they game love them every",
		"  ⎿  Interrupted · What should Claude do instead?"))
	r.pause(time.Second)
	r.flush()
	for _, want := range []string{"     listen white flat tail think rock sail either", "     age six strong they game love them every"} {
		if n := slices.Index(r.lines, want); n < 0 {
			t.Errorf("the output's row %q is not committed:\n%s", want, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenScrolledBackAfterAResize: scrolled back (Claude Code
// shows its hint to jump to the bottom), the view shows history; after a
// resize, the program lays that history out for the new width, and rows
// that match none read before are that history wrapped anew, not new
// output, which goes on under the view (issue 29).
func TestAltScreenScrolledBackAfterAResize(t *testing.T) {
	t.Parallel()
	const rule = "────────────────────────────────────────"
	frame := func(rows ...string) string {
		var b strings.Builder
		b.WriteString("\x1b[H\x1b[2J")
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", len(rows)-2) // in the input box
		return b.String()
	}
	box := []string{rule, "❯ ", rule, "  ? for shortcuts"}
	r := newKindRun(t, "claude", 12, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(slices.Concat([]string{"! cat f1.txt",
		"  ⎿  @relay:bob a long line of output that the program wraps at the edge of",
		"     its view, eighty columns wide, and goes on here to the end"}, box)...))
	r.pause(time.Second)
	r.s.Resize(12, 50)
	r.take(r.s.TakeLines())
	r.write(frame(slices.Concat([]string{"! cat f2.txt", "  ⎿  the next output"}, box)...))
	r.pause(time.Second)
	// Scrolled back: the line as laid out for fifty columns, its first
	// row above the view.
	r.write(frame(slices.Concat([]string{
		"     program wraps at the edge of its view, eighty",
		"     columns wide, and goes on here to the end",
		"", "! cat f2.txt Jump to bottom (ctrl+End) ↓"}, box)...))
	r.pause(time.Second)
	r.flush()
	if n := r.count("goes on here"); n != 1 {
		t.Errorf("the line's last row committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenPreviews: Claude Code shows a running command's latest
// output rows above "… +N lines (1s)", and an older output its first rows,
// cut at the edge, above "… +N lines (ctrl+o to expand)" (issue 29, cause
// 4). Neither is new text: the output is read where the program shows it
// whole, in its order, once; a row cut at the edge is not a shorter line.
func TestAltScreenPreviews(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J")
		return b.String()
	}
	r := newKindRun(t, "claude", 24, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	steps := [][]string{
		// The command runs: its latest rows slide.
		{"! sh f1.sh", "  ⎿  @relay:bob second line", "     @relay:bob third line", "     … +1 line (1s)"},
		{"! sh f1.sh", "  ⎿  @relay:bob third line", "     @relay:bob fourth line", "     … +2 lines (2s)"},
		// Done: the output whole.
		{"! sh f1.sh", "  ⎿  @relay:bob first line", "     @relay:bob second line", "     @relay:bob third line",
			"     @relay:bob fourth line"},
		// Collapsed under the next command, whose output is collapsed at
		// once: its row cut at the edge was never shown whole.
		{"! sh f1.sh", "  ⎿  @relay:bob first line", "     … +3 lines (ctrl+o to expand)", "", "! sh f2.sh",
			"  ⎿  @relay:alice a line longer than the screen is wide, cut at the e", "     … +4 lines (ctrl+o to expand)"},
	}
	for _, rows := range steps {
		r.write(frame(rows...) + "\x1b[24;1H")
		r.pause(time.Second)
	}
	r.flush()
	var got []string
	for _, l := range r.lines {
		if strings.Contains(l, "@relay:") {
			got = append(got, strings.TrimLeft(l, " ⎿"))
		}
	}
	want := []string{"@relay:bob first line", "@relay:bob second line", "@relay:bob third line", "@relay:bob fourth line"}
	if !slices.Equal(got, want) {
		t.Errorf("committed relay lines:\n%s\nwant:\n%s\nall lines:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenOverlay: scrolled back, Claude Code draws "Jump to bottom
// (ctrl+End) ↓" over the right end of the last transcript row shown, or
// over the middle of a row the view moved under it. The hint is not the
// row's text, and the row it covers is not whole: the row is read as the
// program shows it uncovered, once.
func TestAltScreenOverlay(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J")
		return b.String()
	}
	r := newKindRun(t, "claude", 24, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	long := "  ⎿  @relay:bob a line that reaches the end of the row"
	for _, rows := range [][]string{
		{"! cat f1.txt", "  ⎿  first row", long},
		// Scrolled back one row: the hint covers the end of the last.
		{"earlier text", "! cat f1.txt", "  ⎿  first row", long[:len(long)-28] + " Jump to bottom (ctrl+End) ↓"},
		{"! cat f1.txt", "  ⎿  first row", long},
		// Scrolled back again, the hint left where it was drawn while
		// the rows under it moved: it covers the middle of a row.
		{"earlier text", "! cat f1.txt", long[:len(long)-40] + " Jump to bottom (ctrl+End) ↓ " + long[len(long)-11:], ""},
		{"! cat f1.txt", "  ⎿  first row", long},
	} {
		r.write(frame(rows...) + "\x1b[24;1H")
		r.pause(time.Second)
	}
	r.flush()
	for _, l := range r.lines {
		if strings.Contains(l, "Jump to bottom") || strings.Contains(l, "@relay:") && !strings.HasSuffix(l, "of the row") {
			t.Errorf("committed %q; all lines:\n%s", l, strings.Join(r.lines, "\n"))
		}
	}
	if n := r.count("@relay:bob"); n != 1 {
		t.Errorf("the relay row committed %d times, want 1:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenShortRowsOfANewBlock: a new block's "[[RELAY]]" and
// "[[/RELAY]]" rows, shown where the view shows none of an older block's
// rows, are new rows, not the older block's shown again with another
// wrap: text that short is in every block, and is an older row only where
// the last frame showed that row (issue 29: opencode's view, scrolled to a
// new block under a resize, lost its first and last rows and the block
// was read unterminated).
func TestAltScreenShortRowsOfANewBlock(t *testing.T) {
	t.Parallel()
	frame := func(top []string, bottom string) string {
		var b strings.Builder
		b.WriteString(drawRows(9, top))
		fmt.Fprintf(&b, "\x1b[10;1H%s\x1b[K", bottom)
		return b.String()
	}
	const bar = "the program's own bar at the bottom"
	r := newAltRun(t, 10, 60)
	for _, top := range [][]string{
		{"[[RELAY]]", `{"to":"bob","body":"the first block"}`, "[[/RELAY]]", "some output after it"},
		{"more output, one row", "more output, the next row", "and the last row of it"},
		{"[[RELAY]]", `{"to":"bob","body":"the second block"}`, "[[/RELAY]]"},
	} {
		r.write(frame(top, bar))
		r.pause(time.Second)
	}
	r.flush()
	for _, row := range []string{"[[RELAY]]", "[[/RELAY]]"} {
		if n := r.count(row); n != 2 {
			t.Errorf("%q committed %d times, want twice (two blocks):\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenRedrawAfterAResize: what the terminal kept of the view
// through a resize is no frame the program drew for the new size, so the
// rows it showed count no more than others when the program's redraw is
// aligned: a row shown twice in the transcript ("end of the output" under
// two outputs) is, under the redraw's last output, the newer one, and the
// rows above it, wrapped anew, are that output's, not new text (issue 29:
// opencode's view redrawn for a smaller screen was read again).
func TestAltScreenRedrawAfterAResize(t *testing.T) {
	t.Parallel()
	frame := func(rows int, top []string, bottom string) string {
		var b strings.Builder
		for y := range rows - 1 {
			row := ""
			if y < len(top) {
				row = top[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", rows, bottom)
		return b.String()
	}
	const (
		end  = "end of the output, 2 lines"
		last = "the last row of the second output is long enough"
		bar  = "the program's own bar"
	)
	r := newAltRun(t, 12, 60)
	r.write(frame(12, []string{end, "$ cat f2.txt", relayPara("<second>", 6), "more of the second output, one",
		"more of the second output, two", last, end}, bar))
	r.pause(time.Second)
	r.s.Resize(5, 40)
	r.take(r.s.TakeLines())
	r.write(frame(5, []string{last[:36], last[37:], end}, bar))
	r.pause(time.Second)
	r.flush()
	if n := r.count("the last row of the second output"); n != 1 {
		t.Errorf("the output's last row committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenScrolledBackHint: the row Codex draws under its view while
// the view is scrolled back ("↓ Back to bottom · esc") is the program's
// own, not text: it is not committed, and it anchors no alignment (issue
// 29: matched among the rows of an output, it put the rows it showed,
// wrapped anew after a resize, after it and read them again).
func TestAltScreenScrolledBackHint(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		b.WriteString(drawRows(9, rows))
		b.WriteString("\x1b[10;1H› \x1b[K\x1b[10;3H")
		return b.String()
	}
	r := newKindRun(t, "codex", 12, 60)
	r.write("\x1b[?1049h")
	bottom := []string{"• You ran cat f1.txt", "  └ first line of the output", "    @relay:bob the command in it", "    last line of the output"}
	for _, rows := range [][]string{
		bottom,
		{"some earlier text", bottom[0], bottom[1], bottom[2], "", "", "", "                  ↓ Back to bottom · esc"},
		bottom,
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("Back to bottom"); n != 0 {
		t.Errorf("the hint committed %d times, want never:\n%s", n, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "@relay:bob the command in it")
}

// TestAltScreenHistoryWrappedAnewAboveACollapsedOutput: after a resize a
// chat view lays its whole transcript out anew for the new size: an
// earlier turn's paragraph shows again with another wrap, above an output
// the program has collapsed since to one row ("… +30 lines"), whose rows
// the document still holds between the two. The paragraph is old, read
// once, however many rows lie between (issue 29: Claude Code's first turn
// read again under a taller, narrower screen).
func TestAltScreenHistoryWrappedAnewAboveACollapsedOutput(t *testing.T) {
	t.Parallel()
	para := "  " + relayPara("<first>", 14)
	var long []string
	for i := range 30 {
		long = append(long, fmt.Sprintf("  row %02d of a long output that scrolls through", i))
	}
	r := newAltRun(t, 10, 60)
	r.write(drawRows(10, slices.Concat([]string{"$ cat f1.txt"}, wrapHanging("  ", para, 59), []string{"  end of the first output"})))
	r.pause(time.Second)
	// The second output scrolls through the view: its first row and the
	// line typed above it scroll off before a frame shows them.
	for top := 2; top+10 <= len(long); top += 7 {
		r.write(drawRows(10, long[top:top+10]))
		r.pause(time.Second)
	}
	r.write(drawRows(10, slices.Concat(long[24:], []string{"$ cat f3.txt", "  the third output"})))
	r.pause(time.Second)
	r.s.Resize(16, 45)
	r.take(r.s.TakeLines())
	r.write(drawRows(16, slices.Concat([]string{"$ cat f1.txt"}, wrapHanging("  ", para, 44),
		[]string{"  end of the first output", "$ cat f2.txt", "  … +30 lines", "$ cat f3.txt", "  the third output"})))
	r.pause(time.Second)
	r.flush()
	if n := r.count("<first>"); n != 1 {
		t.Errorf("the first output's paragraph committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenShortRowShownElsewhere: a short row the last frame showed
// ("[[/RELAY]]", "progress 0%"), shown again in another place among rows
// that are all new, is new text like them, not the old row moved: a view
// that scrolls moves its rows together. Taken for the old row, the new
// block lost its first and last rows, and the new output was put into the
// transcript above the old output's rows, which a view scrolled back
// later showed as new (issue 29: Codex read an output again when scrolled
// back to it).
func TestAltScreenShortRowShownElsewhere(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		b.WriteString(drawRows(9, rows))
		b.WriteString("\x1b[10;1Hthe program's own bar at the bottom\x1b[K")
		return b.String()
	}
	first := []string{"[[RELAY]]", `{"to":"bob","body":"the first block"}`, "[[/RELAY]]", "end of the first output"}
	second := []string{"the second output starts here", "and goes on for a while", "[[RELAY]]",
		`{"to":"bob","body":"the second block"}`, "[[/RELAY]]", "end of the second output"}
	r := newAltRun(t, 10, 60)
	for _, rows := range [][]string{
		first,
		second,
		second[1:], // scrolled by a row: its rows move together
		slices.Concat(first, second[:2]),
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	for _, row := range []string{"[[RELAY]]", "[[/RELAY]]"} {
		if n := r.count(row); n != 2 {
			t.Errorf("%q committed %d times, want twice (two blocks):\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
	r.wantOnce(t, "the first block", "end of the first output", "the second block", "end of the second output")
}

// TestAltScreenNewBlockLikeAnOlderOne: a new output fills the view, and
// its block to the same agent holds rows the older block had ("[[RELAY]]",
// "{", "to", "type"), its last row the older output's last row. Between
// the new rows around them, or under new rows at the end of the paragraph,
// drawn in one paragraph, those rows are the new output's, not the older
// one's shown again: the new block is read whole (issue 29: Claude Code's
// view showed a new output at once, and its block was read without its
// first rows, placed among the older output's rows).
func TestAltScreenNewBlockLikeAnOlderOne(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	block := func(body string) []string {
		return []string{"     [[RELAY]]", "     {", `       "to": "alice",`, `       "type": "message",`,
			`       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	const end = "     end of the output, 9 lines"
	r := newAltRun(t, 12, 60)
	for _, rows := range [][]string{
		slices.Concat([]string{"$ cat f1.txt", "  ⎿  the first output"}, block("the first block"), []string{end}),
		{"$ cat f2.txt", "  ⎿  Running…"},
		slices.Concat([]string{"     a row of the second output"}, block("the second block"), []string{"     its last row", end}),
	} {
		r.write(drawRows(11, rows) + "\x1b[12;1H" + bar + "\x1b[K")
		r.pause(time.Second)
	}
	r.flush()
	for _, row := range append(block(""), end) {
		if strings.Contains(row, "body") {
			continue
		}
		if n := r.count(strings.TrimSpace(row)); n != 2 {
			t.Errorf("%q committed %d times, want twice (once an output):\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenEchoOfALineRunOutOfView: Codex shows "• Running sh f1.sh"
// while a command runs and "• You ran sh f1.sh" in its place once it is
// done. An output taller than the view pushed the header off before the
// command was done, so the echo is first seen when the view is scrolled
// back to it: it is the header changed, not a new turn above the rows
// under it, which are the output read already (issue 29: Codex read a
// long output again when scrolled back to its top).
func TestAltScreenEchoOfALineRunOutOfView(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		b.WriteString(drawRows(9, rows)) // the last row blank, over the composer
		b.WriteString("\x1b[10;1H› \x1b[K\x1b[10;3H")
		return b.String()
	}
	r := newKindRun(t, "codex", 12, 60)
	r.write("\x1b[?1049h")
	out := []string{"  └ line 01 of the output, long enough"}
	for i := 2; i <= 12; i++ {
		out = append(out, fmt.Sprintf("    line %02d of the output, long enough", i))
	}
	out[4] = "    @relay:bob the command in the output"
	for _, rows := range [][]string{
		slices.Concat([]string{"• Running sh f1.sh"}, out[:4]),
		out[3:11],
		slices.Concat(out[6:], []string{"", "─ Worked for 1s"}),
		slices.Concat([]string{"• You ran sh f1.sh"}, out[:5], []string{"", "                  ↓ Back to bottom · esc"}),
		slices.Concat(out[6:], []string{"", "─ Worked for 1s"}),
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "line 01 of", "line 04 of", "line 06 of", "@relay:bob the command in the output")
}

// codexFrame draws rows over Codex's composer ("› ", the cursor in it) and
// its footer under it, on a screen of 12 rows.
func codexFrame(rows ...string) string {
	var b strings.Builder
	b.WriteString(drawRows(9, rows)) // the last row blank, over the composer
	b.WriteString("\x1b[10;1H› \x1b[K\x1b[11;1H\x1b[K\x1b[12;1H  gpt default · /tmp/work\x1b[K\x1b[10;3H")
	return b.String()
}

func newCodexRun(t *testing.T) *altRun {
	r := newKindRun(t, "codex", 12, 60)
	r.write("\x1b[?1049h")
	return r
}

// TestAltScreenFooterUnderTheComposer: what Codex shows under its
// composer (the model, the directory) is its own, never its transcript:
// it is not read as output (issue 29).
func TestAltScreenFooterUnderTheComposer(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	for _, rows := range [][]string{
		{"• You ran cat f1.txt", "  └ the first row of the file"},
		{"• You ran cat f1.txt", "  └ the first row of the file", "", "• You ran cat f2.txt", "  └ the second file's only row"},
	} {
		r.write(codexFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("gpt default"); n != 0 {
		t.Errorf("the footer committed %d times, want never:\n%s", n, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, "the first row of the file", "the second file's only row")
}

// TestAltScreenFirstRowsOfAnOutputReadFromItsMiddle: an output taller
// than the view shows its last rows, read once they settle; scrolled
// back, the view then shows its first rows above them. Those rows are
// history the view cut, not new output: read then, a block's first rows
// would go out after its last ones, a block without its end (issue 29:
// Claude Code's view scrolled back, or grown after a resize, over an
// output whose top it had cut; "unterminated relay block").
func TestAltScreenFirstRowsOfAnOutputReadFromItsMiddle(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	output := []string{"     [[RELAY]]", "     {", `       "to": "bob",`, `       "type": "message",`,
		`       "body": "the block's body, long enough"`, `       "topic": "t1"`, "     }", "     [[/RELAY]]", "     end of the output, 8 lines"}
	r := newAltRun(t, 6, 60)
	for _, rows := range [][]string{output[4:], output[:5]} {
		r.write(drawRows(5, rows) + "\x1b[6;1H" + bar + "\x1b[K")
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("the block's body"); n != 1 {
		t.Errorf("the body row committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
	for _, row := range output[:4] {
		if n := r.count(strings.TrimSpace(row)); n != 0 {
			t.Errorf("%q, above the rows read, committed %d times, want never:\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenFirstRowsOfAnOutputShownAfterAResize: an output taller
// than the view shows its last rows, read once they settle; after a
// resize the program lays the whole output out anew for the new size,
// the rows read before wrapped another way. The rows above them are
// history the view cut, as when it is scrolled back: read then, a block's
// first rows would go out after its last ones (issue 29: Codex's view
// made taller and wider after a file was printed; "unterminated relay
// block").
func TestAltScreenFirstRowsOfAnOutputShownAfterAResize(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	const last = "    the output's last line, long enough to wrap"
	r := newAltRun(t, 6, 40)
	r.write(drawRows(5, []string{"    [[/RELAY]]", last[:39], "    " + last[40:], "    end of the output, 10 lines"}) + "\x1b[6;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(12, 60)
	r.take(r.s.TakeLines())
	output := []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`,
		`      "body": "the block's body, long enough"`, `      "topic": "t1"`, "    }", "    [[/RELAY]]", last, "    end of the output, 10 lines"}
	r.write(drawRows(11, output) + "\x1b[12;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	if n := r.count("the output's last line"); n != 1 {
		t.Errorf("the output's last line committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
	for _, row := range output[:7] {
		if n := r.count(strings.TrimSpace(row)); n != 0 {
			t.Errorf("%q, above the rows read, committed %d times, want never:\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenBlockWrappedAnewUnderALikeOne: a paragraph that starts
// as an older one's text and goes on with other text is other text, not
// the older one shown collapsed: a block printed pretty, its first rows
// ("[[RELAY]]", "{", "to", "type") joining as the start of a compact block
// read before, is not that block, which a view laid out anew for a new
// size shows under it with another wrap (issue 29: taken for it, the
// compact block's rows were read again, a block without its start).
func TestAltScreenBlockWrappedAnewUnderALikeOne(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	compact := `    {"to":"bob","type":"message","body":"the second block's body"}`
	r := newAltRun(t, 6, 40)
	r.write(drawRows(5, []string{"    [[RELAY]]", compact[:39], "    " + compact[39:], "    [[/RELAY]]"}) + "\x1b[6;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(13, 70)
	r.take(r.s.TakeLines())
	r.write(drawRows(12, []string{"• You ran cat f1.txt", "    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`,
		`      "body": "the first block's body"`, "    }", "    [[/RELAY]]", "", "    [[RELAY]]", compact, "    [[/RELAY]]"}) + "\x1b[13;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	for _, body := range []string{"the first block's body", "the second block's body"} {
		if n := r.count(body); n != 1 {
			t.Errorf("%q committed %d times, want once:\n%s", body, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenChainOfRowsThatCannotBeTaken: the alignment's longest
// chain may hold rows it then cannot take: the short rows of a new block
// ("[[RELAY]]", "{", "type", "}", "[[/RELAY]]") matched with an older
// block's a row lower than the last frame showed them, the echo of the
// latest turn gone and the rows between changed (a transcript grows at
// its end). Without them the chain is chosen again: the rows the view
// scrolled up, the line after the older block among them, are old, not
// new output (issue 29: Codex's view moved on to a file printed under the
// latest turn, the line above it read a second time).
func TestAltScreenChainOfRowsThatCannotBeTaken(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		return drawRows(26, rows) + "\x1b[27;1H› \x1b[K\x1b[28;1H\x1b[K\x1b[29;1H  gpt default · /tmp/work\x1b[K\x1b[27;3H"
	}
	const line = "    @relay:bob the line after the first block"
	block := func(to, body string) []string {
		return []string{"    [[RELAY]]", "    {", `      "to": "` + to + `",`, `      "type": "message",`,
			`      "body": "` + body + `"`, "    }", "    [[/RELAY]]"}
	}
	r := newKindRun(t, "codex", 29, 70)
	r.write("\x1b[?1049h")
	for _, rows := range [][]string{
		slices.Concat([]string{"• You ran cat f1.txt", "  └ the first row of the first file, long enough",
			"    the second row of the first file, long enough", "    the third row of the first file, long enough",
			"    the fourth row of the first file, long enough", "    the fifth row of the first file, long enough",
			"    the sixth row of the first file, long enough"},
			block("bob", "the first block's body, long enough"),
			[]string{line, "    end of the output, 12 lines", "", "─ Worked for 1s", "", "• Running cat f2.txt"}),
		slices.Concat([]string{line, "    end of the output, 12 lines", "", "─ Worked for 1s", "", "• You ran cat f2.txt",
			"  └ the first row of the second file, long enough", "    the second row of the second file, long enough"},
			block("alice", "the second block's body, long enough"),
			[]string{"    end of the output, 10 lines", "", "─ Worked for 2s"}),
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "the line after the first block", "the first block's body", "the second block's body")
}

// TestAltScreenBlockUnderTheEchoOfAnotherLine: rows under the echo of a
// line typed are that line's output: a block whose first rows are those
// of a block printed under the echo of another line, shown a moment ago
// where this one shows, is new, though the frame shows as many echoes
// above it as the document holds above the older block (issue 29:
// Codex's view moved on to the next file, its block's "[[RELAY]]", "{",
// "to", "type" rows taken for the older block's; the block was read
// without its start).
func TestAltScreenBlockUnderTheEchoOfAnotherLine(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	block := func(body string) []string {
		return []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`, `      "body": "` + body + `"`}
	}
	for _, rows := range [][]string{
		slices.Concat([]string{"• You ran cat f1.txt"}, block("the first block's body"), []string{"", "• Running cat f2.txt"}),
		slices.Concat([]string{"• You ran cat f2.txt"}, block("the second block's body")),
	} {
		r.write(codexFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("[[RELAY]]"); n != 2 {
		t.Errorf("[[RELAY]] committed %d times, want twice (a block under each echo):\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenRunningHeaderIsATurn: Codex shows the command it runs as
// "• Running cat f2.txt" (then "• You ran cat f2.txt" in its place): the
// echo of a line typed, a new turn. A file printed again under it is new
// output, not the rows of the same file printed before, though the view
// shows both (issue 29: a file printed a second time was not read).
func TestAltScreenRunningHeaderIsATurn(t *testing.T) {
	t.Parallel()
	r := newCodexRun(t)
	file := []string{"  └ the first row of the file, long enough", "    the second row of the file, long enough",
		"    @relay:bob the line in the file", "    the fourth row of the file, long enough", "    the last row of the file, long enough"}
	for _, rows := range [][]string{
		slices.Concat([]string{"• Running cat f1.txt"}, file),
		slices.Concat([]string{"• You ran cat f1.txt"}, file, []string{"", "─ Worked for 1s"}),
		{"─ Worked for 1s", "", "• Running cat f2.txt"},
		slices.Concat([]string{"─ Worked for 1s", "", "• Running cat f2.txt"}, file),
		slices.Concat([]string{"─ Worked for 1s", "", "• You ran cat f2.txt"}, file),
	} {
		r.write(codexFrame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	if n := r.count("@relay:bob the line in the file"); n != 2 {
		t.Errorf("the relay line committed %d times, want twice (the file printed twice):\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenNewBlockPastTheLatestEcho: Claude Code's view shows the
// echo of the latest command under an older output's block, then moves on
// with the new output past the echo, whose block's "{", "to", "type", "}"
// rows land a row lower than the older block's were. The echo is gone and
// the rows that were between those rows and it show other text: the rows
// are the new block's, not the older ones moved down (a view moves down
// only with the echo, scrolled back), and the new block is read whole
// (issue 29: Claude Code put a new output among the older one's rows, and
// read it again when scrolled back).
func TestAltScreenNewBlockPastTheLatestEcho(t *testing.T) {
	t.Parallel()
	block := func(body, topic string) []string {
		return []string{"     {", `       "to": "alice",`, `       "type": "message",`,
			`       "body": "` + body + `",`, `       "topic": "` + topic + `"`, "     }", "     [[/RELAY]]"}
	}
	frame := func(rows ...string) string {
		var b strings.Builder
		b.WriteString(drawRows(13, rows))
		b.WriteString("\x1b[14;1H                          ◐ medium · /effort\x1b[K")
		b.WriteString("\x1b[15;1H" + strings.Repeat("─", 60) + "\x1b[16;1H❯\u00a0\x1b[K\x1b[17;1H" + strings.Repeat("─", 60))
		b.WriteString("\x1b[18;1H  ? for shortcuts\x1b[K\x1b[16;3H")
		return b.String()
	}
	r := newKindRun(t, "claude", 18, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	second := slices.Concat([]string{"     a row of the second output, long enough", "     [[RELAY]]"},
		block("the second block, long enough", "t2"), []string{"     the last row of the second output", "     end of the output, 12 lines"})
	for _, rows := range [][]string{
		slices.Concat([]string{"  ⎿  [[RELAY]]"}, block("the first block, long enough", "t1"),
			[]string{"     a row under the first block", "     end of the output, 9 lines",
				"  ⎿  Interrupted · What should Claude do instead?", "", "! cat f2.txt"}),
		append(second, "✽ Swooping…"),
		append(second, "  ⎿  Interrupted · What should Claude do instead?"),
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	for _, row := range block("", "") {
		if strings.Contains(row, "body") || strings.Contains(row, "topic") {
			continue
		}
		if n := r.count(strings.TrimSpace(row)); n != 2 {
			t.Errorf("%q committed %d times, want twice (once a block):\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// Rows a frame drawn for a new width wraps anew go out with the text they
// showed last, the rows around them that kept their text as they settle,
// in the same frame: all of them in the document's order (issue 29:
// opencode, after a resize, wrapped a block's body rows anew and left its
// "[[RELAY]]" row as it was; the body went out before "[[RELAY]]", a
// block with no JSON in it).
func TestRowsWrappedAnewGoOutInOrderWithTheirNeighbours(t *testing.T) {
	r := newAltRun(t, 10, 40)
	block := []string{"the title row", "", "[[RELAY]]", `{"to":"bob","type":"message",`, `"body":"one two three four five six`,
		`seven eight nine ten"}`, "[[/RELAY]]", "end of the output"}
	r.write(drawRows(10, block))
	r.s.Resize(10, 70)
	r.take(r.s.TakeLines())
	r.write(drawRows(10, []string{"the title row", "", "[[RELAY]]", `{"to":"bob","type":"message","body":"one two three four five six`,
		`seven eight nine ten"}`, "[[/RELAY]]", "end of the output"}))
	r.pause(time.Second)
	r.flush()
	var order []string
	for _, l := range r.lines {
		if strings.Contains(l, "RELAY") || strings.Contains(l, "body") {
			order = append(order, l)
		}
	}
	if len(order) < 3 || order[0] != "[[RELAY]]" || order[len(order)-1] != "[[/RELAY]]" {
		t.Errorf("the block went out as %q, want [[RELAY]] first and [[/RELAY]] last; lines:\n%s", order, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenRowCutByAResizeKeepsItsPlace: a command's output is on the
// view, not read yet, when the screen gets narrower: the terminal cuts
// its long last row, and the program then lays the output out anew, that
// row wrapped over two rows, the short rows above it as they were. The
// rows are read in the output's order: the cut row is still the program's
// row (not one it hid, read at once), and the row shown wrapped anew,
// done, takes the rows above it along (issue 29: Claude Code's last row of
// an output, cut by a resize, was read before the rows above it).
func TestAltScreenRowCutByAResizeKeepsItsPlace(t *testing.T) {
	t.Parallel()
	const long = "     @relay:bob the last row of the output, long enough to be cut"
	frame := func(rows, cols int, transcript ...string) string {
		var b strings.Builder
		b.WriteString(drawRows(rows-4, transcript))
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[%d;1H❯\u00a0\x1b[K\x1b[%d;1H%s", rows-3, strings.Repeat("─", cols), rows-2, rows-1, strings.Repeat("─", cols))
		fmt.Fprintf(&b, "\x1b[%d;1H  ? for shortcuts\x1b[K\x1b[%d;3H", rows, rows-2)
		return b.String()
	}
	r := newKindRun(t, "claude", 14, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(14, 80, "! sh f1.sh", "  ⎿  @relay:qa_1 the first row", "     @relay:alice the second row", long))
	r.s.Resize(14, 40)
	r.take(r.s.TakeLines())
	r.write(frame(14, 40, "! sh f1.sh", "  ⎿  @relay:qa_1 the first row", "     @relay:alice the second row", long[:38], "     "+long[38:]))
	r.pause(time.Second)
	r.flush()
	order := []string{"@relay:qa_1", "@relay:alice", "@relay:bob"}
	at := 0
	for _, l := range r.lines {
		if at < len(order) && strings.Contains(l, order[at]) {
			at++
		}
	}
	if at < len(order) {
		t.Errorf("the output's rows not committed in their order %q:\n%s", order, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, order...)
}

// TestAltScreenRowsUnderAParagraphTheTopCutWaitWithIt: while Claude Code
// is at work, an output taller than its view shows its last rows, the
// top of the view cutting a paragraph whose first rows it shows once it
// is done; that paragraph waits. The output's later paragraphs, under a
// blank row, wait with it: the output is read in its order (issue 29: an
// output's last paragraph was read before the paragraph above it).
func TestAltScreenRowsUnderAParagraphTheTopCutWaitWithIt(t *testing.T) {
	t.Parallel()
	frame := func(footer string, transcript ...string) string {
		var b strings.Builder
		b.WriteString(drawRows(10, transcript))
		fmt.Fprintf(&b, "\x1b[11;1H%s\x1b[12;1H❯\u00a0\x1b[K\x1b[13;1H%s", strings.Repeat("─", 60), strings.Repeat("─", 60))
		fmt.Fprintf(&b, "\x1b[14;1H%s\x1b[K\x1b[12;3H", footer)
		return b.String()
	}
	r := newKindRun(t, "claude", 14, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	const (
		one   = "     the first paragraph, its first row, long enough"
		two   = "     the first paragraph, its second row, long enough"
		three = "     the first paragraph, its third row, long enough"
		last  = "     @relay:bob the output's last paragraph"
		end   = "     end of the output, 6 lines"
	)
	r.write(frame("  ⏸ manual mode on · esc to interrupt", two, three, "", last, end))
	r.pause(time.Second)
	r.write(frame("  ⏸ manual mode on · ? for shortcuts", "! sh f1.sh", "  ⎿"+one[4:], two, three, "", last, end,
		"  ⎿  Interrupted · What should Claude do instead?"))
	r.pause(time.Second)
	r.flush()
	order := []string{"its first row", "its second row", "its third row", "@relay:bob the output's last paragraph", "end of the output"}
	at := 0
	for _, l := range r.lines {
		if at < len(order) && strings.Contains(l, order[at]) {
			at++
		}
	}
	if at < len(order) {
		t.Errorf("the output's rows not committed in their order %q:\n%s", order, strings.Join(r.lines, "\n"))
	}
	r.wantOnce(t, order...)
}

// TestAltScreenPinnedMessageIsNoNewTurn: scrolled back, Claude Code pins
// the message the rows shown answer ("❯ [Request interrupted by user]")
// over the view's top row. The pin is the program's own row, not an echo
// of a line typed above the rows under it: those are the rows read
// already, and back at the bottom the rows under them are too (issue 29:
// a file's rows read again after the view was scrolled back and forth).
func TestAltScreenPinnedMessageIsNoNewTurn(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J")
		return b.String()
	}
	// A file longer than the view, which follows it as it is printed.
	transcript := []string{"! cat f1.txt"}
	for i := range 24 {
		row := fmt.Sprintf("     row %d of the file, long enough to read", i+1)
		if i%8 == 7 {
			row = fmt.Sprintf("     @relay:bob command %d in the file", i+1)
		}
		transcript = append(transcript, row)
	}
	transcript = append(transcript, "  ⎿  Interrupted · What should Claude do instead?")
	const view = 8
	footer := []string{"", "  ? for shortcuts"} // hidden while scrolled back
	r := newKindRun(t, "claude", 24, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	for top := 0; top+view <= len(transcript); top += view / 2 {
		r.write(frame(slices.Concat(transcript[top:top+view], footer)...) + "\x1b[24;1H")
		r.pause(time.Second)
	}
	bottom := slices.Concat(transcript[len(transcript)-view:], footer)
	r.write(frame(bottom...) + "\x1b[24;1H")
	r.pause(time.Second)
	// Scrolled back: the rows moved down, then the pin over the top row
	// and the hint over the last, the rows in between left as they were.
	back := transcript[len(transcript)-view-3 : len(transcript)-3]
	r.write(frame(slices.Concat(back, footer)...) + "\x1b[24;1H")
	pinned := slices.Clone(back)
	pinned[0] = "❯ [Request interrupted by user]"
	pinned[len(back)-1] += " Jump to bottom (ctrl+End) ↓"
	r.write(frame(pinned...) + "\x1b[24;1H")
	r.pause(time.Second)
	r.write(frame(bottom...) + "\x1b[24;1H")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "command 8 in", "command 16 in", "command 24 in", "row 23 of", "Interrupted")
}

// TestAltScreenAFilePrintedAgainPastItsEcho: the view shows the echo of
// the command typed last at the bottom of the transcript, then follows its
// output down past it. The rows it shows then are that output, though the
// document holds rows with their text above the echo (a file printed
// again): a transcript grows at its end, and rows no screen showed a
// moment ago do not come back into view above a turn the view moved on
// past (issue 29: the second print of a file was taken for the first).
func TestAltScreenAFilePrintedAgainPastItsEcho(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J")
		return b.String()
	}
	file := []string{"  ⎿  @relay:bob the command in the file"}
	for i := range 7 {
		file = append(file, fmt.Sprintf("     row %d of the file, long enough to read", i+2))
	}
	var other []string
	for i := range 8 {
		other = append(other, fmt.Sprintf("     row %d of another output, which differs", i+1))
	}
	const view = 8
	r := newKindRun(t, "claude", 24, 80)
	var transcript []string
	show := func(rows ...string) {
		transcript = append(transcript, rows...)
		r.write(frame(transcript[max(0, len(transcript)-view):]...) + "\x1b[24;1H")
		r.pause(time.Second)
	}
	r.write("\x1b[?1049h\x1b[?25l")
	show(slices.Concat([]string{"! cat f1.txt"}, file)...)
	show(slices.Concat([]string{"", "! sh f2.sh"}, other)...)
	show("", "! cat f1.txt", "  ⎿  Running…")
	transcript = transcript[:len(transcript)-1]
	show(file...)
	r.flush()
	if n := r.count("@relay:bob the command in the file"); n != 2 {
		t.Errorf("the file's relay line committed %d times, want twice (printed twice):\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenScrolledBackPastTheLatestEcho: Codex's view scrolled back
// (its hint under the view says so) shows history above the echo of the
// latest turn, which went off the bottom: those rows are old, read before,
// not a new output the view followed down past the echo (issue 29).
func TestAltScreenScrolledBackPastTheLatestEcho(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		return drawRows(9, rows) + "\x1b[10;1H› \x1b[K\x1b[10;3H"
	}
	first := []string{"• You ran cat f1.txt", "  └ @relay:bob the command in the first output"}
	for i := range 6 {
		first = append(first, fmt.Sprintf("    row %d of the first output, long enough", i+2))
	}
	second := []string{"", "• You ran cat f2.txt", "  └ row 1 of the second output, which differs", "    row 2 of the second output, which differs"}
	r := newKindRun(t, "codex", 12, 60)
	r.write("\x1b[?1049h")
	for _, rows := range [][]string{
		first,
		slices.Concat(first[4:], second),
		// Scrolled back a page: the start of the first output again, the
		// latest echo under the view.
		slices.Concat(first[:4], []string{"", "", "", "                  ↓ Back to bottom · esc"}),
		slices.Concat(first[4:], second),
	} {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "@relay:bob the command in the first output", "row 3 of the first output", "row 1 of the second output")
}

// TestAltScreenRowsAboveTheViewsAnchorAreTheLatestTurns: Claude Code's view
// follows a long output down past its echo, the rows under the output (a
// notice the program keeps there) where they were. The output's rows, above
// every row aligned, are the latest turn's: not the rows, changed, of an
// older output's first rows shown collapsed (never read, so still pending
// in the document), two turns up. Placed there, the output was read again
// when a taller view showed it whole under its echo (issue 29:
// claude-s6300002, whose file f04.txt's relay lines were read twice).
func TestAltScreenRowsAboveTheViewsAnchorAreTheLatestTurns(t *testing.T) {
	t.Parallel()
	const notice = "  Switched to Manual because your organization's settings didn't load"
	interrupted := "  ⎿  Interrupted · What should Claude do instead?"
	first := []string{"! cat f1.txt", "  ⎿  the first file's first row, long enough to read",
		"     the first file's second row, cut at the edge of", "     … +10 lines (ctrl+o to expand)", interrupted, ""}
	second := []string{"! cat f2.txt", "  ⎿  the second file's only row, long enough too", interrupted, ""}
	third := []string{"  ⎿  the third file's first row, which is long"}
	for i := range 4 {
		third = append(third, fmt.Sprintf("     row %d of the third file, long enough to read", i+2))
	}
	third = append(third, "     @relay:bob the command in the third file", "     end of the output, 7 lines")
	r := newKindRun(t, "claude", 24, 80)
	rule := strings.Repeat("─", 80)
	show := func(view []string) {
		r.write(drawRows(21, view) + "\x1b[22;1H" + rule + "\r\n❯ \x1b[K\r\n" + rule + "\x1b[23;3H")
		r.pause(time.Second)
	}
	r.write("\x1b[?1049h\x1b[?25l")
	transcript := slices.Concat(first, second)
	show(slices.Concat(transcript, []string{notice}))
	show(slices.Concat(transcript, []string{"! cat f3.txt", "  ⎿  Running…", notice}))
	// The view follows the output down: its echo and first rows are
	// above it.
	show(slices.Concat(third[len(third)-5:], []string{notice}))
	// Done: the view shows it all, the output whole under its echo.
	show(slices.Concat(transcript, []string{"! cat f3.txt"}, third, []string{interrupted, notice}))
	r.flush()
	r.wantOnce(t, "@relay:bob the command in the third file", "row 4 of the third file", "the second file's only row")
}

// TestAltScreenARowLaidOutAnewHoldingTheRowsReadFromTheTop: an output
// taller than the view shows its last rows, read once they settle, the
// top row the middle of a line wrapped over rows; wider after a resize,
// the view shows that line on one row, its first part (cut then) with the
// rows read, and the rows above it. That row and those above it in its
// paragraph are history the view cut, not new output: read now, a block's
// first rows would go out after its last ones (issue 29: Codex 0.171.0 on
// a 53×15 screen, grown to 175 columns; "unterminated relay block").
func TestAltScreenARowLaidOutAnewHoldingTheRowsReadFromTheTop(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	r := newAltRun(t, 5, 50)
	r.write(drawRows(4, []string{`    body of the block, long enough to wrap"}`, "    [[/RELAY]]", "    end of the output, 4 lines"}) +
		"\x1b[5;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(5, 100)
	r.write(drawRows(4, []string{"    [[RELAY]]", `    {"to":"bob","type":"message","body":"the body of the block, long enough to wrap"}`,
		"    [[/RELAY]]", "    end of the output, 4 lines"}) + "\x1b[5;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "body of the block", "[[/RELAY]]")
	if n := r.count("[[RELAY]]"); n != 0 {
		t.Errorf("the block's first row, above the rows read, committed %d times, want never:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// A row read at the top of the view, whose paragraph a wider screen lays
// out anew so that its text is split between two rows (the first holding
// what the view had cut above it): the rows above the aligned row, joined,
// hold the rows read at their end. They are the paragraph's history with
// the rows above them, not new output under its end (Codex 0.171.0 at
// 70x17 grown to 168x18: a block's "[[RELAY]]" and first rows read after
// its "[[/RELAY]]", an unterminated block).
func TestAltScreenRowsLaidOutAnewHoldingTheRowsReadFromTheTop(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	r := newAltRun(t, 5, 50)
	r.write(drawRows(4, []string{
		"    india juliett kilo lima mike november oscar",
		`    papa quebec romeo sierra tango","topic":"t1"}`,
		"    [[/RELAY]]",
		"    end of the output, 6 lines"}) + "\x1b[5;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(6, 100)
	r.write(drawRows(5, []string{
		"    [[RELAY]]",
		`    {"to":"bob","type":"message","body":"alpha bravo charlie delta echo foxtrot golf hotel india`,
		`    juliett kilo lima mike november oscar papa quebec romeo sierra tango","topic":"t1"}`,
		"    [[/RELAY]]",
		"    end of the output, 6 lines"}) + "\x1b[6;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "juliett kilo", "[[/RELAY]]")
	r.wantNever(t, "above the rows read", "[[RELAY]]", "alpha bravo")
}

// A row read as it leaves the view from its top row (the view following an
// output down, frame by frame, the rows above it gone between two frames)
// is the first row the view showed of its paragraph, as one read there in
// place is: rows shown right above it later (a taller screen laid out
// anew) are its history, not new output after the rows read under it
// (Codex 0.171.0 at 53x15 grown to 184x53: a block's "[[RELAY]]" and "{"
// read after its "[[/RELAY]]", an unterminated block).
func TestAltScreenRowsAboveARowReadAsItLeftTheTopAreHistory(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	r := newAltRun(t, 5, 50)
	r.write(drawRows(4, []string{`      "to": "bob",`, `      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }"}) +
		"\x1b[5;1H" + bar + "\x1b[K")
	r.write(drawRows(4, []string{`      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}) +
		"\x1b[5;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(9, 100)
	r.write(drawRows(8, []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`,
		`      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}) + "\x1b[9;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, `"to": "bob"`, `"type"`, "alpha bravo", "[[/RELAY]]")
	r.wantNever(t, "above the row read as it left the top", "[[RELAY]]", "{")
}

// TestAltScreenARowLikeTheTopRowAboveItIsNotIt: the view showed a block
// from its "type" row down, its first rows cut; taller after a resize, it
// shows the block whole and an older block above it, whose "type" row
// reads as the one read at the top (the program cleared the view before
// it drew it: nothing of the last frame stayed). That row is the older block's: the
// text read goes on, as the document does, under the other "type" row.
// Both blocks are history the view cut (read then, a block would have
// its first rows without its end), not new output (issue 29: Claude Code
// at 199×15 grown to 152×29, claude-s6300014 "unterminated relay block").
func TestAltScreenARowLikeTheTopRowAboveItIsNotIt(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	r := newAltRun(t, 6, 80)
	r.write(drawRows(5, []string{`      "type": "message",`, `      "body": "the body of the second block, long enough to wrap"`,
		"    [[/RELAY]]", "    end of the output, 12 lines"}) + "\x1b[6;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(17, 40)
	r.write("\x1b[2J")
	r.write("\x1b[H" + drawRows(16, []string{"    [[RELAY]]", "    {", `      "to": "alice",`, `      "type": "message",`,
		`      "body": "the first block's body"`, "    }", "    [[/RELAY]]", "    [[RELAY]]", "    {", `      "to": "bob",`,
		`      "type": "message",`, `      "body": "the body of the second`, `    block, long enough to wrap"`,
		"    [[/RELAY]]", "    end of the output, 12 lines"}) + "\x1b[17;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "the body of the second block", "[[/RELAY]]")
	r.wantNever(t, "above the rows read", "[[RELAY]]", `"to"`, "the first block's body")
}

// TestAltScreenALinePrintedTwiceLaidOutAnewIsReadOnce: an output prints
// the same long line twice; the view showed the second whole and the
// first's last rows at its top. Wider after a resize, it shows both whole,
// and the text read matches either: the second is the line read (the
// first ends with the rows read at the top, its history), not new output
// read again (issue 29: Claude Code at 115×15 grown to 192×21,
// claude-s6300034, a relay line read three times).
func TestAltScreenALinePrintedTwiceLaidOutAnewIsReadOnce(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	const line = "@relay:bob the same line printed twice, long enough to wrap at forty columns and more"
	wrapped := func(cols int) []string {
		var out []string
		for s := line; s != ""; {
			n := min(len(s), cols-5)
			out = append(out, "    "+s[:n])
			s = s[n:]
		}
		return out
	}
	narrow := wrapped(40)
	r := newAltRun(t, 7, 40)
	r.write(drawRows(6, append(append(narrow[1:], narrow...), "    end of the output, 9 lines")) + "\x1b[7;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(7, 80)
	wide := wrapped(80)
	r.write(drawRows(6, append(append(slices.Clone(wide), wide...), "    end of the output, 9 lines")) + "\x1b[7;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	if n := r.count("@relay:bob"); n != 1 {
		t.Errorf("the line read at the smaller size committed %d times, want once:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenANewBlocksShortRowsWhereAnOldOnesShowedAreNew: a view
// anchored at its bottom, a notice under the transcript: a new output
// scrolls the old one up and out, and its block's "[[RELAY]]" and
// "[[/RELAY]]" land on the rows where the old block's showed. The notice
// stayed, but the rows that were right above and under those short rows
// show other text now: they are the new block's, read with it (issue 29:
// Claude Code, claude-s6900022, a block read without its "[[/RELAY]]").
func TestAltScreenANewBlocksShortRowsWhereAnOldOnesShowedAreNew(t *testing.T) {
	t.Parallel()
	const notice = "     Switched to Manual because the settings did not load"
	r := newAltRun(t, 8, 70)
	r.write(drawRows(8, []string{"     a line the old output printed first", "     and a second line of the old output",
		"     [[RELAY]]", `     {"to":"bob","type":"message","body":"the old block"}`,
		"     [[/RELAY]]", "     end of the output, 3 lines", notice}))
	r.pause(time.Second)
	r.write(drawRows(8, []string{"     something else entirely, printed now", "     more of the new output on this row",
		"     [[RELAY]]", `     {"to":"alice","type":"message","body":"the new block"}`,
		"     [[/RELAY]]", "     end of the output, 12 lines", notice}))
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "the old block", "the new block", notice)
	for _, s := range []string{"[[RELAY]]", "[[/RELAY]]"} {
		if n := r.count(s); n != 2 {
			t.Errorf("%q committed %d times, want twice (each block's):\n%s", s, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenAParagraphNotSettledHoldsTheOnesUnderIt: a frame shows
// two paragraphs of an output; the first changes (the program, done,
// shows one more of its rows) while the second has shown as it is for the
// settle time. The second waits for the first: an output is read in its
// order (issue 29: Claude Code, claude-s6900020, two relay lines read
// before the rows above them).
func TestAltScreenAParagraphNotSettledHoldsTheOnesUnderIt(t *testing.T) {
	t.Parallel()
	r := newAltRun(t, 8, 60)
	first := []string{"    the first paragraph's first row", "    and its second row, 10% of it", "",
		"    @relay:bob the second paragraph", "    and its last row"}
	changed := slices.Clone(first)
	changed[1] = "    and its second row, 20% of it"
	// Each frame is read as the next one starts: the first one at 1/5 of
	// the settle time, the change at 2/5, and at 6/5 the second paragraph
	// has shown as it is for the settle time, the first not.
	for _, f := range []struct {
		rows  []string
		after time.Duration
	}{{first, DefaultSettle / 5}, {changed, DefaultSettle / 5}, {changed, 4 * DefaultSettle / 5}, {changed, 0}} {
		r.write(drawRows(7, f.rows))
		r.now = r.now.Add(f.after)
	}
	r.pause(time.Second)
	r.flush()
	want := []string{"the first paragraph's first row", "and its second row, 20% of it", "@relay:bob the second paragraph", "and its last row"}
	var got []string
	for _, l := range r.lines {
		if l = strings.TrimSpace(l); l != "" {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("committed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A view too short for a block shows its last rows, read as they settle,
// the block's "[[RELAY]]" cut off above; a taller view then shows the
// block whole. A reader sees the block printed by the agent, once: its
// first rows, history the view shows only now, are not dropped but given
// as Late lines, followed by the rows of their paragraph read already,
// again (Again), so that the block can be read in its order apart from
// the lines read before (the supervisor's reader); the lines read in
// order are as before: the block's first rows are not read after its end.
func TestAltScreenABlockWholeOnlyInATallerViewIsGivenLate(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	body := `    {"to":"bob","type":"message","body":"hi"}`
	r := newAltRun(t, 5, 60)
	r.write(drawRows(4, []string{body, "    [[/RELAY]]", "    end of the output"}) + "\x1b[5;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(10, 60)
	r.write(drawRows(9, []string{"    $ cat a.txt", "    [[RELAY]]", body, "    [[/RELAY]]", "    end of the output"}) + "\x1b[10;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "[[/RELAY]]", body)
	if n := r.count("[[RELAY]]"); n != 0 {
		t.Errorf("the block's first row read in order, after its end, %d times:\n%s", n, strings.Join(r.lines, "\n"))
	}
	var late []string
	for _, l := range r.late {
		late = append(late, fmt.Sprintf("%v %v %s", l.Late, l.Again, l.Text))
	}
	want := []string{"true false     $ cat a.txt", "true false     [[RELAY]]", "false true " + body, "false true     [[/RELAY]]", "false true     end of the output"}
	if !slices.Equal(late, want) {
		t.Errorf("lines read apart:\n%s\nwant\n%s", strings.Join(late, "\n"), strings.Join(want, "\n"))
	}
}

// As TestAltScreenRowsAboveARowReadAsItLeftTheTopAreHistory, but the taller
// view shows, under output printed since, a new block whose "to" and
// "type" rows are the old block's, over another body: its rows above
// them are new output, read (the reviewer's repro of a0bd792).
func TestAltScreenANewBlockAlikeTheOneReadAtTheTopIsRead(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	r := newAltRun(t, 5, 50)
	r.write(drawRows(4, []string{`      "to": "bob",`, `      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }"}) +
		"\x1b[5;1H" + bar + "\x1b[K")
	r.write(drawRows(4, []string{`      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}) +
		"\x1b[5;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.s.Resize(17, 100)
	var rows []string
	for _, w := range []string{"one", "two", "three", "four", "five", "six"} {
		rows = append(rows, "    a line of the output printed since, number "+w)
	}
	rows = append(rows, "    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`, `      "body": "second"`, "    }", "    [[/RELAY]]")
	r.write("\x1b[2J" + drawRows(16, rows) + "\x1b[17;1H" + bar + "\x1b[K")
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "[[RELAY]]", "second", "number six")
}

// TestAltScreenANewBlockAlikeTheOneCutAtTheTopIsNew: a short view streamed
// a block to bob, its "to" row read as it left the view's top; a new block
// to bob is drawn under it and streams through the view, a frame at a
// time. Its "to" and "type" rows read as the old block's, but the rows
// under them in the frame (the program's bar, then another body) are not
// the old block's: they are the new block's, read whole and in its order
// (issue 29, the reviewer's repro: the relay was lost, "unterminated
// relay block"). With a blank row between the view and the bar, the
// frame that shows the new block's "[[RELAY]]" to "type" shows nothing
// under them: the view's edge cuts them, and they are no more the old
// block's than they are a new one's; new output is what a view at the
// bottom shows.
func TestAltScreenANewBlockAlikeTheOneCutAtTheTopIsNew(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	for _, blank := range []int{0, 1} {
		r := newAltRun(t, 5+blank, 50)
		frame := func(rows ...string) {
			r.write(drawRows(4+blank, rows) + fmt.Sprintf("\x1b[%d;1H", 5+blank) + bar + "\x1b[K")
		}
		frame(`      "to": "bob",`, `      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }")
		frame(`      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]")
		r.pause(time.Second)
		block := []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`, `      "body": "second"`, "    }", "    [[/RELAY]]"}
		for i := 0; i+4 <= len(block); i++ {
			frame(block[i : i+4]...)
			r.pause(100 * time.Millisecond)
		}
		r.pause(time.Second)
		r.flush()
		want := append([]string{`      "to": "bob",`, `      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}, block...)
		if got := slices.DeleteFunc(slices.Clone(r.lines), func(l string) bool { return l == bar }); !slices.Equal(got, want) {
			t.Errorf("%d blank rows over the bar: lines\n%s\nwant (the bar aside)\n%s", blank, strings.Join(r.lines, "\n"), strings.Join(want, "\n"))
		}
		if len(r.late) > 0 {
			t.Errorf("%d blank rows over the bar: lines given late: %v", blank, r.late)
		}
	}
}

// TestAltScreenPagedBackAfterAResize: Codex, its screen made narrower,
// lays its transcript out anew for the new width; paged back, the view
// shows history wrapped anew, whose rows match none read and go into the
// document as history; back at the bottom, the view shows what it showed
// before it was paged back. A reader sees the same lines again, not new
// ones: rows alike in that history ("that wraps at the edge…", under each
// paragraph) are not the bottom's, which would put the rows under them,
// the relay lines, after them as new (issue 29: fresh codex-s9300006 and
// codex-s9300008 sent two relay lines twice).
func TestAltScreenPagedBackAfterAResize(t *testing.T) {
	t.Parallel()
	var paras []string
	for i := range 8 {
		paras = append(paras, fmt.Sprintf("history %02d: some words of an earlier output that wraps at the edge of the view once or twice", i))
	}
	paras = append(paras, "@relay:bob the first command", "@relay:alice the second command")
	const rows, h = 14, 10 // the screen, and the view above the input box
	frame := func(cols, back int) string {
		var all []string
		for i, p := range paras {
			bullet := "    "
			if i == 0 {
				bullet = "  └ "
			}
			all = append(all, wrapHanging(bullet, p, cols-1)...)
		}
		end := max(len(all)-back, 0)
		view := slices.Clone(all[max(end-h, 0):end])
		if back > 0 {
			// Codex's hint on the view's last row.
			for len(view) < h {
				view = append(view, "")
			}
			view = append(view[:h-1], "                  ↓ Back to bottom · esc")
		}
		return drawRows(h, view) + fmt.Sprintf("\x1b[%d;1H› \x1b[K\x1b[%d;3H", h+2, h+2)
	}
	r := newKindRun(t, "codex", rows, 100)
	r.write("\x1b[?1049h")
	r.write(frame(100, 0))
	r.pause(time.Second)
	r.s.Resize(rows, 50)
	r.take(r.s.TakeLines())
	// Three pages back and forth.
	for _, back := range []int{0, h, 2 * h, 3 * h, 2 * h, h, 0} {
		r.write(frame(50, back))
		r.pause(time.Second)
	}
	r.flush()
	r.wantOnce(t, "@relay:bob the first command", "@relay:alice the second command")
}

// TestAltScreenTheSameBlockTwiceThroughAShortView: a program of no known
// layout prints the same block twice in one output (a line, a blank or
// both between), streamed through a view shorter than the block, over a
// bar it keeps on the screen's last row. The same text on a new line is
// a new message: a reader sees both blocks go by, each row once, while
// the bar stays. The bar, read as the transcript's row under the first
// frame's rows, does not move with them: it is no sign that the rows
// moving up are another block's (issue 29, the reviewer's repro: the
// second relay was lost, garbage read in its place).
func TestAltScreenTheSameBlockTwiceThroughAShortView(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	block := []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}
	for _, view := range []int{4, 6, 8} {
		for _, gap := range [][]string{{"    a line between"}, {""}, {"    a line between", ""}} {
			doc := slices.Concat([]string{"    a line before the block"}, block, gap, block)
			r := newAltRun(t, view+1, 50)
			for i := 0; i+view <= len(doc); i++ {
				r.write(drawRows(view, doc[i:i+view]) + fmt.Sprintf("\x1b[%d;1H", view+1) + bar + "\x1b[K")
				r.pause(100 * time.Millisecond)
			}
			r.pause(time.Second)
			r.flush()
			got := slices.DeleteFunc(slices.Clone(r.lines), func(l string) bool { return l == bar })
			want := slices.DeleteFunc(slices.Clone(doc), func(l string) bool { return l == "" })
			if !slices.Equal(got, want) || len(r.late) > 0 {
				t.Errorf("view %d, gap %q: lines\n%s\nwant (the bar aside)\n%s\nlate %v", view, gap, strings.Join(got, "\n"), strings.Join(want, "\n"), r.late)
			}
		}
	}
}

// TestAltScreenAlignmentWorkIsBounded: thousands of rows alike scrolled
// off the view by one run of text (no control character: one frame) are
// all rows the last frame showed; the next frame's rows are compared with
// a bounded number of them, not all: the alignment's work grows with the
// square of the pairs (a fuzzed input of invalid bytes on a one-column
// screen took seconds a frame).
func TestAltScreenAlignmentWorkIsBounded(t *testing.T) {
	t.Parallel()
	const rows = 12
	r := newAltRun(t, rows, 1)
	r.write(strings.Repeat("x", 3000))
	r.write("\x1b[Hx")
	if a := r.s.alt.frames; a == nil || len(a.pairs) == 0 || len(a.pairs) > 2*maxCandidates*rows {
		n := -1
		if a != nil {
			n = len(a.pairs)
		}
		t.Errorf("the frame's rows paired with %d rows, want some and at most %d", n, 2*maxCandidates*rows)
	}
}

// TestATextWrappedAnewIsMadeOfTheRowsNextToIt: a frame row is the
// document rows next to it wrapped anew only where all of its text is
// theirs: "⎿  [[RELAY]]", an output's first row under Claude Code's mark,
// ends with an older block's "[[RELAY]]" but nothing above that row ends
// with the mark (fresh claude-s97300020: a new block's "{", "to", "type"
// rows were taken for that older block's, its "[[RELAY]]" row was read
// alone later, and the reader got an unterminated block; issue 29).
func TestATextWrappedAnewIsMadeOfTheRowsNextToIt(t *testing.T) {
	t.Parallel()
	a := newAligner(time.Second, 0)
	for i, k := range []string{"gasamenoughsentence", "[[RELAY]]", "{", "onetwo", "three", "four"} {
		a.doc = append(a.doc, &docRow{key: k, pos: i})
	}
	for _, tc := range []struct {
		key      string
		pos, dir int
		want     bool
		whatItIs string
	}{
		{"⎿[[RELAY]]", 2, -1, false, "an output's first row over a row that ends otherwise"},
		{"[[RELAY]]", 2, -1, true, "the row above, as it was"},
		{"twothree", 5, -1, true, "the two rows above wrapped anew"},
		{"enoughsentence[[RELAY]]", 2, -1, true, "the two rows above wrapped anew, the first in part"},
		{"onetwothreefourfive", 2, 1, true, "the rows under, wrapped anew, going on past the document's end"},
		{"threeXfour", 3, 1, false, "the row under and text that is none of the next one's"},
	} {
		if got := a.rewrapNext(tc.key, tc.pos, tc.dir); got != tc.want {
			t.Errorf("%q next to position %d (%+d), %s: rewrapped %v, want %v", tc.key, tc.pos, tc.dir, tc.whatItIs, got, tc.want)
		}
	}
}

// TestAltScreenTailOfAParagraphLaidOutAnewAtTheViewsTop: after a resize
// Codex lays a paragraph read before out anew for the new width, its last
// row now only its last words ("river note"), which no row read before
// holds alone. Scrolled on until that row is the view's top, the row is
// where the last frame showed it, moved as far as the view: the same
// paragraph's, not new text (issue 29: read again, it went into the block
// that streamed in under it, "malformed relay block").
func TestAltScreenTailOfAParagraphLaidOutAnewAtTheViewsTop(t *testing.T) {
	t.Parallel()
	para := "@relay:* the paragraph a view laid out anew for a wider screen ends with w00 w01 w02 w03 w04 w05 w06 w07 w08 w09 w10 w11 w12 river note"
	head := []string{"• You ran sh f04.sh", "  └ fill"}
	tail := []string{"    @relay:bob took year", "", "  Worked for 1s"}
	r := newCodexRun(t)
	r.write(codexFrame(slices.Concat(head, wrapHanging("    ", para, 59), tail)...))
	r.pause(time.Second)
	r.s.Resize(12, 70)
	r.take(r.s.TakeLines())
	wider := wrapHanging("    ", para, 69)
	if last := strings.TrimSpace(wider[len(wider)-1]); last != "river note" {
		t.Fatalf("the paragraph laid out anew ends with %q, want the row \"river note\" alone", last)
	}
	r.write(codexFrame(slices.Concat(head, wider, tail)...))
	r.pause(time.Second)
	r.write(codexFrame(slices.Concat(wider[len(wider)-1:], tail, []string{"", "• Running sh f05.sh", "  └ out", "    [[RELAY]]", "    {"})...))
	r.pause(time.Second)
	r.flush()
	r.wantOnce(t, "river note", "@relay:bob took year", "[[RELAY]]")
}

// TestAltScreenFilePrintedAgainUnderItsEchoDone: Codex prints a file a
// second time: its view first shows the end of the first print with
// "• Running cat f2.txt" under it, then "• You ran cat f2.txt" at the top
// over the second print, whose rows are the first print's, four rows
// lower than the last frame showed them, as a view scrolled back would
// show them. The echo is the latest turn's ("Running" done), and the rows
// under it are its output, read again (issue 29: the second print was not
// read at all).
func TestAltScreenFilePrintedAgainUnderItsEchoDone(t *testing.T) {
	t.Parallel()
	r := newKindRun(t, "codex", 14, 81)
	r.write("\x1b[?1049h")
	frame := func(rows ...string) string {
		return drawRows(11, rows) + "\x1b[12;1H› \x1b[K\x1b[13;1H\x1b[K\x1b[14;1H  gpt default · /tmp/work\x1b[K\x1b[12;3H"
	}
	file := []string{"  └ [[RELAY]]", `    {"to":"qa_1","type":"message","body":"ride \"q\" except stretch their`, `    rule --flag","topic":"t10"}`,
		"    [[/RELAY]]", "    @relay:alice right tree wood rest", "    end of the output, 5 lines", "", "  Worked for <1s"}
	r.write(frame(slices.Concat([]string{"", "• You ran cat f1.txt"}, file)...))
	r.pause(time.Second)
	r.write(frame(slices.Concat(file[2:], []string{"", "• Running cat f2.txt", "", "• Working (0s • esc to interrupt)"})...))
	r.pause(250 * time.Millisecond)
	r.write(frame(slices.Concat([]string{"", "• You ran cat f2.txt"}, file)...))
	r.pause(time.Second)
	r.flush()
	for _, row := range []string{"[[RELAY]]", `"body":"ride`, "rule --flag", "[[/RELAY]]", "@relay:alice right tree wood rest", "end of the output"} {
		if n := r.count(row); n != 2 {
			t.Errorf("%q committed %d times, want twice (the file printed twice):\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenFilePrintedAgainPastItsRunningEcho: Codex prints a file a
// second time while its view follows the output down: the frame before
// shows "• Running cat f7.txt" under the last output, the next only the
// new output, the first print's rows (the echo gone above the view's
// top). The view moved past the latest turn's echo: the rows under it are
// its output, however like the first print they are, not that print, far
// above, come back into view as history laid out anew (issue 29: the
// second print, a thinking line in it, was not read).
func TestAltScreenFilePrintedAgainPastItsRunningEcho(t *testing.T) {
	t.Parallel()
	r := newKindRun(t, "codex", 16, 76)
	r.write("\x1b[?1049h")
	frame := func(rows ...string) string {
		return drawRows(11, rows) + "\x1b[13;1H› \x1b[K\x1b[14;1H\x1b[K\x1b[16;1H  gpt default · /tmp/work\x1b[K\x1b[13;3H"
	}
	file := []string{"  └ 'single'", "    metal ago half grand boat test seem", "    @thinking:* kind near is vu size finish several",
		"    five hope gone right who they tall", "", "", "        better --flag", "    end of the output, 8 lines"}
	other := []string{"  └ @relay:* quite opposite repeat set vu single allow him food", "    want hurry enough hand never fight down seem ask might time",
		"    ran would port k:v enough region problem vu k:v beauty", "    spring state #hash region between every require off city plant",
		"    pound danger word change did meat quart pass best order wide general", "    heavy against deal century verb meat house invent watch", "", "    end of the output, 8 lines"}
	frames := [][]string{slices.Concat([]string{"• You ran cat f2.txt"}, file, []string{"", "  Worked for <1s"})}
	for f := 3; f <= 5; f++ {
		// Outputs in between: the first print lies far above in the
		// document, as history the view could show laid out anew.
		rows := []string{fmt.Sprintf("• You ran cat f%d.txt", f)}
		for i := range 9 {
			rows = append(rows, fmt.Sprintf("    row %d of file %d, long enough to be a row of its own", i, f))
		}
		frames = append(frames, rows)
	}
	frames = append(frames, slices.Concat([]string{"• You ran cat f6.txt"}, other, []string{"", "  Worked for <1s"}))
	for _, rows := range frames {
		r.write(frame(rows...))
		r.pause(time.Second)
	}
	r.write(frame(slices.Concat(other[4:], []string{"", "  Worked for <1s", "", "• Running cat f7.txt", "", "• Working (0s • esc to interrupt)"})...))
	r.pause(20 * time.Millisecond)
	r.write(frame(slices.Concat(file, []string{"", "• Working (0s • esc to interrupt)"})...))
	r.pause(time.Second)
	r.write(frame(slices.Concat([]string{"• You ran cat f7.txt"}, file, []string{"", "  Worked for <1s"})...))
	r.pause(time.Second)
	r.flush()
	for _, row := range []string{"'single'", "metal ago half", "@thinking:* kind near", "five hope gone", "better --flag"} {
		if n := r.count(row); n != 2 {
			t.Errorf("%q committed %d times, want twice (the file printed twice):\n%s", row, n, strings.Join(r.lines, "\n"))
		}
	}
}

// TestAltScreenAParagraphShownAgainPastRowsTheViewTookOut: a short view
// streams a block under a command's echo, over a status row and a notice
// the program keeps under the transcript; the status row, read as it
// stood, goes away, and the block's first row leaves the view's top as
// the output goes on. Taller after a resize, the view shows the output
// whole, right over the notice: the status row is no longer there. The
// rows from the one read as it left the top go on as the document does
// past the status row (the last frame showed the output's end right over
// the notice too), and past the notice that the narrow view cut short
// with "…" and the wider one shows whole: the same output, its first rows
// history, not a new one read again (issue 29: Claude Code's "✻ Can't
// reach the API server" retry row under a command's output, read twice
// after a resize: claude-s13500000 "@relay:alice hour" from 175×15 to
// 158×19, and fresh claude-s102300002 with its "Switched to Manual …
// didn't loa…" notice from 71×15 to 107×26).
func TestAltScreenAParagraphShownAgainPastRowsTheViewTookOut(t *testing.T) {
	t.Parallel()
	const bar = "the program's own bar at the bottom"
	const echo = "> cat a.txt"
	const status = "✻ retrying in 3s, the status row of the program"
	const notice = "    a notice the program keeps under the transcript, whole"
	const end = "    end of the output, 9 lines"
	block := []string{"    [[RELAY]]", "    {", `      "to": "bob",`, `      "type": "message",`, `      "body": "alpha bravo charlie delta"`, "    }", "    [[/RELAY]]"}
	relay := "    @relay:alice hour and a few words"
	for _, narrow := range []string{notice, "    a notice the program keeps under the transcr…"} {
		r := newAltRun(t, 9, 60)
		frame := func(rows ...string) { r.write(drawRows(8, rows) + "\x1b[9;1H" + bar + "\x1b[K") }
		frame(echo, status, narrow)
		r.pause(time.Second)
		frame(echo, block[0], block[1], status, narrow)
		frame(slices.Concat(block[:6], []string{status, narrow})...)
		frame(slices.Concat(block, []string{narrow})...)
		frame(slices.Concat(block[1:], []string{relay, narrow})...)
		frame(slices.Concat(block[2:], []string{relay, end, narrow})...)
		r.pause(time.Second)
		r.s.Resize(13, 80)
		r.write("\x1b[2J" + drawRows(12, slices.Concat([]string{echo}, block, []string{relay, end, notice})) + "\x1b[13;1H" + bar + "\x1b[K")
		r.pause(time.Second)
		r.flush()
		r.wantOnce(t, "@relay:alice hour", `"to": "bob"`, "alpha bravo", "[[/RELAY]]", "end of the output")
	}
}

// TestAltScreenLatestTurnWrappedAnewUnderACollapsedOutput: as
// TestAltScreenHistoryWrappedAnewAboveACollapsedOutput, under the rows
// aligned. A narrower view shows the latest turn laid out anew under an
// output now collapsed to one row, whose rows the document holds by the
// dozen: the turn's text is the document's, further down than the view
// shows rows, and is not read again (claude-s14700002: a relay read twice
// after a resize narrower).
func TestAltScreenLatestTurnWrappedAnewUnderACollapsedOutput(t *testing.T) {
	t.Parallel()
	frame := func(height, width int, rows ...string) string {
		rule := strings.Repeat("─", width)
		rows = slices.Concat(rows, []string{rule, "❯ ", rule, "  ? for shortcuts"})
		var b strings.Builder
		for y := range height {
			row := ""
			if k := y - (height - len(rows)); k >= 0 {
				row = rows[k]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", height-2) // in the input box
		return b.String()
	}
	echo := "! printf '%s\\n' '@relay:bob <third> " + strings.Repeat("w ", 12) + "end'"
	para := relayPara("<third>", 14)
	var long []string
	for i := range 30 {
		long = append(long, fmt.Sprintf("     row %02d of a long output that scrolls through", i))
	}
	long[0] = "  ⎿  " + long[0][5:]
	r := newKindRun(t, "claude", 14, 100)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(14, 100, "! cat f1.txt", "  ⎿  the first output", "", "! cat f2.txt", long[0]))
	r.pause(time.Second)
	for top := 1; top+10 <= len(long); top += 7 {
		r.write(frame(14, 100, long[top:top+10]...))
		r.pause(time.Second)
	}
	r.write(frame(14, 100, slices.Concat(long[25:], []string{"", echo}, wrapHanging("  ⎿  ", para, 99))...))
	r.pause(time.Second)
	r.s.Resize(20, 45)
	r.take(r.s.TakeLines())
	r.write(frame(20, 45, slices.Concat([]string{"! cat f1.txt", "  ⎿  the first output", "", "! cat f2.txt", "  ⎿  … +30 lines", ""},
		wrapHanging("", echo, 44), wrapHanging("  ⎿  ", para, 44))...))
	r.pause(time.Second)
	r.flush()
	if n := r.count("<third>"); n != 2 {
		t.Errorf("the latest turn's line typed and paragraph committed %d times, want once each:\n%s", n, strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenRowRightAboveTheAlignedOnesIsOfItsTurn: Claude Code at
// work shows a block from its second row, its first ("⎿  [[RELAY]]", in
// place of "⎿  Running…") above the view's top; the next frame moves the
// view down a row and shows it. That row is right above the block's rows
// read, one paragraph with them: the new output's, not the older block's
// alike it, a turn further up, though the view left blank the row where
// it had shown the echo between them (claude-s14700000: the block's first
// row taken for the older one's, the block lost).
func TestAltScreenRowRightAboveTheAlignedOnesIsOfItsTurn(t *testing.T) {
	t.Parallel()
	rule := strings.Repeat("─", 80)
	frame := func(rows ...string) string {
		rows = slices.Concat(rows, []string{rule, "❯ ", rule, "  ? for shortcuts"})
		var b strings.Builder
		for y := range 16 {
			row := ""
			if y < len(rows) {
				row = rows[y]
			}
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		fmt.Fprintf(&b, "\x1b[%d;3H", 14) // in the input box
		return b.String()
	}
	block := func(to, body string) []string {
		return []string{"  ⎿  [[RELAY]]", "     {", `       "to": "` + to + `",`, `       "type": "message",`, `       "body": "` + body + `"`, "     }", "     [[/RELAY]]"}
	}
	r := newKindRun(t, "claude", 16, 80)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(slices.Concat([]string{"! cat f1.txt"}, block("bob", "the first block"), []string{"", "! cat f2.txt", "  ⎿  Running…"})...))
	r.pause(time.Second)
	second := slices.Concat(block("alice", "the second block"), []string{"     end of the output"})
	// At work: the output from its second row, the spinner under it; the
	// row where the view showed the echo is left blank.
	r.write(frame(slices.Concat(second[1:], []string{"", "", "✶ Herding…", ""})...))
	r.write(frame(slices.Concat(second, []string{"", "", ""})...))
	r.pause(time.Second)
	r.flush()
	if n := r.count("[[RELAY]]"); n != 2 {
		t.Errorf("the blocks' first rows committed %d times, want twice:\n%s", n, strings.Join(r.lines, "\n"))
	}
	first := slices.IndexFunc(r.lines, func(l string) bool { return strings.Contains(l, "[[RELAY]]") })
	last := slices.IndexFunc(r.lines, func(l string) bool { return strings.Contains(l, "the second block") })
	if first < 0 || last < 0 || !slices.ContainsFunc(r.lines[first+1:last], func(l string) bool { return strings.Contains(l, "[[RELAY]]") }) {
		t.Errorf("the second block's first row is not committed in order, above its body:\n%s", strings.Join(r.lines, "\n"))
	}
}

// TestAltScreenRowsWrappedAnewAroundOneReadAsItselfFollowEachOther: a
// long line's rows pending under a running command, then laid out anew
// for a wider screen, where its last row happens to hold the same text as
// before: that row is matched as itself, the rows above it as the same
// text wrapped anew. Committed together, they number one under the other,
// as the paragraph they are: numbered as the older frame showed the ones
// and the new frame the other, the line broke before its last row
// (reviewer17's fresh claude-s103800004: a relay cut before "point
// opposite up race").
func TestAltScreenRowsWrappedAnewAroundOneReadAsItselfFollowEachOther(t *testing.T) {
	t.Parallel()
	frame := func(height, width int, footer string, rows ...string) string {
		rule := strings.Repeat("─", width)
		rows = slices.Concat(rows, []string{rule, "❯ ", rule, footer})
		return drawRows(height, rows) + fmt.Sprintf("\x1b[%d;3H", len(rows)-2) // in the input box
	}
	// Wrapped at 59 columns, the line is 5 rows; at 114, 3, the last
	// holding the same four words.
	words := []string{"@relay:bob"}
	for i := range 45 {
		words = append(words, fmt.Sprintf("w%03d", i))
	}
	line := strings.Join(words, " ")
	narrow := wrapHanging("     ", line, 59)
	wide := wrapHanging("     ", line, 114)
	if len(narrow) != 5 || len(wide) != 3 || narrow[4] != wide[2] {
		t.Fatalf("the line's rows: %q at 60, %q at 115", narrow, wide)
	}
	r := newKindRun(t, "claude", 20, 60)
	r.write("\x1b[?1049h\x1b[?25l")
	r.write(frame(20, 60, "  ? for shortcuts", "! cat f.txt", "  ⎿  Running…"))
	r.pause(time.Second)
	// At work: the output whole, not yet settled, when the screen widens.
	r.write(frame(20, 60, "  esc to interrupt", slices.Concat([]string{"! cat f.txt", "  ⎿  the first line of the output"}, narrow, []string{"     end of the output", "", "✶ Herding…"})...))
	r.pause(100 * time.Millisecond)
	r.s.Resize(20, 115)
	r.take(r.s.TakeLines())
	r.write(frame(20, 115, "  esc to interrupt", slices.Concat([]string{"! cat f.txt", "  ⎿  the first line of the output"}, wide, []string{"     end of the output", "", "✶ Herding…"})...))
	r.pause(time.Second)
	r.flush()
	var rows []Line
	for _, l := range r.all {
		if strings.Contains(l.Text, " w0") {
			rows = append(rows, l)
		}
	}
	var texts, numbered []string
	for k, l := range rows {
		texts = append(texts, strings.TrimSpace(l.Text))
		numbered = append(numbered, fmt.Sprintf("%d %s", l.N, l.Text))
		if k > 0 && l.N != rows[k-1].N+1 {
			t.Errorf("the line's rows do not follow each other:\n%s", strings.Join(numbered, "\n"))
		}
	}
	if got := strings.Join(texts, " "); got != line {
		t.Errorf("the line's rows committed: %q, want %q", got, line)
	}
}

// TestAltScreenAFilePrintedAgainIsNoViewScrolledBack: opencode runs a file
// printed before (f02's rows again, under f04's echo) while the view shows
// the end of f02's output at its top and f03's under it. The new frame
// shows f02's last rows again at the bottom, lower than the last frame
// showed them, as a view scrolled back would; but it shows f03's rows
// moved up, more of them than it shows moved down: the view followed the
// new output up, it did not scroll back, and the echo of f04 is a new
// turn whose rows are its output (fresh opencode-s105400020, seed 1054:
// the file printed again read as f02's rows, its four relay lines lost).
func TestAltScreenAFilePrintedAgainIsNoViewScrolledBack(t *testing.T) {
	t.Parallel()
	const view = 26
	frame := func(rows []string) string {
		return drawRows(view, rows) + "\x1b[28;1H  ┃\x1b[K\x1b[29;1H  ╹▀▀▀▀▀▀\x1b[K\x1b[28;6H"
	}
	// f02: 16 rows, its last 5 at the top of the view after f03; f03: 18
	// rows, its last 7 at the top of the view after f04.
	f02 := []string{"  ┃  @relay:bob notice paper"}
	for i := range 10 {
		f02 = append(f02, fmt.Sprintf("  ┃  row %d of the second file, long enough to read", i+2))
	}
	f02 = append(f02, "  ┃  travel lay here practice visit", "  ┃  watch", "  ┃  @relay:bob l…", "  ┃", "  ┃  Click to expand")
	var f03 []string
	for i := range 16 {
		f03 = append(f03, fmt.Sprintf("  ┃  row %d of the third file, which differs", i+1))
	}
	f03 = append(f03, "  ┃", "  ┃  Click to expand")
	r := newKindRun(t, "opencode", 30, 80)
	r.write("\x1b[?1049h")
	var transcript []string
	show := func(echo string, rows []string) {
		transcript = append(transcript, "", "  ┃  $ "+echo, "  ┃")
		transcript = append(transcript, rows...)
		r.write(frame(transcript[max(0, len(transcript)-view):]))
		r.pause(time.Second)
	}
	show("cat f02.txt", f02)
	show("cat f03.txt", f03)
	show("cat f04.txt", f02)
	r.flush()
	if n := r.count("@relay:bob notice paper"); n != 2 {
		t.Errorf("the file's relay line committed %d times, want twice (printed twice):\n%s", n, strings.Join(r.lines, "\n"))
	}
}
