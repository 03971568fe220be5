package vt

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// rowText is row y of the screen as plain text, trailing blanks trimmed.
func rowText(e *Emulator, y int) string {
	var b strings.Builder
	for x := 0; x < e.Width(); x++ {
		if c := e.CellAt(x, y); c != nil && c.Content != "" {
			b.WriteString(c.Content)
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.TrimRight(b.String(), " ")
}

func screenRows(e *Emulator) []string {
	rows := make([]string, e.Height())
	for y := range rows {
		rows[y] = rowText(e, y)
	}
	return rows
}

// Line feeds at the bottom rotate the rows' storage (patch 1): the screen
// shows the last lines in order, the scrollback the earlier ones, and no
// two rows share storage (writing one does not change another).
func TestPatchScrollRotatesRows(t *testing.T) {
	e := NewEmulator(10, 4)
	for i := range 12 {
		fmt.Fprintf(e, "line %d\r\n", i)
	}
	want := []string{"line 9", "line 10", "line 11", ""}
	if got := screenRows(e); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("screen %q, want %q", got, want)
	}
	sb := e.Scrollback()
	if sb.Len() != 9 {
		t.Fatalf("scrollback has %d lines, want 9", sb.Len())
	}
	for i, l := range sb.Lines() {
		var b strings.Builder
		for _, c := range l {
			b.WriteString(c.Content)
		}
		if got := b.String(); got != fmt.Sprintf("line %d", i) {
			t.Errorf("scrollback line %d = %q", i, got)
		}
	}
	fmt.Fprint(e, "\x1b[1;1HXX")
	if got := screenRows(e); got[0] != "XXne 9" || got[1] != "line 10" || got[3] != "" {
		t.Fatalf("after writing row 0: %q", got)
	}
}

// Deleting and inserting lines inside a scroll region (DECSTBM) moves only
// the rows of the region, and the rows brought in are blank with the
// pen's background, as the buffer's own line operations make them.
func TestPatchRegionInsertDelete(t *testing.T) {
	e := NewEmulator(6, 6)
	for i := range 6 {
		fmt.Fprintf(e, "\x1b[%d;1Hr%d", i+1, i)
	}
	fmt.Fprint(e, "\x1b[2;5r")       // region rows 2..5
	fmt.Fprint(e, "\x1b[3;1H\x1b[M") // delete row 3 (r2)
	if got, want := strings.Join(screenRows(e), "|"), "r0|r1|r3|r4||r5"; got != want {
		t.Fatalf("after DL: %q, want %q", got, want)
	}
	fmt.Fprint(e, "\x1b[44m\x1b[2;1H\x1b[2L") // insert 2 blue rows at row 2
	if got, want := strings.Join(screenRows(e), "|"), "r0|||r1|r3|r5"; got != want {
		t.Fatalf("after IL: %q, want %q", got, want)
	}
	for y := 1; y <= 2; y++ { // both rows, every cell, the first and the copied
		for x := range 6 {
			if c := e.CellAt(x, y); c == nil || c.Content != " " || c.Width != 1 || c.Style.Bg != ansi.BasicColor(4) {
				t.Fatalf("inserted row %d, cell %d is not a blue blank: %+v", y, x, c)
			}
		}
	}
	fmt.Fprint(e, "\x1b[0m\x1b[5;1H\x1b[S") // scroll the region up: r1's row leaves at its top
	if got, want := strings.Join(screenRows(e), "|"), "r0||r1|r3||r5"; got != want {
		t.Fatalf("after SU: %q, want %q", got, want)
	}
}

// A scrollback that is read and cleared after every write reuses the
// storage of the lines it held (patch 2): pushing allocates nothing once
// warm, and the lines read back are the ones pushed.
func TestPatchScrollbackReusesStorage(t *testing.T) {
	sb := NewScrollback(100)
	line := make(uv.Line, 40)
	for i := range line {
		line[i] = uv.Cell{Content: string(rune('a' + i%26)), Width: 1}
	}
	fill := func() {
		for range 10 {
			sb.Push(line)
		}
		sb.Clear()
	}
	fill()
	if allocs := testing.AllocsPerRun(20, fill); allocs != 0 {
		t.Errorf("push after clear allocated %v times per round", allocs)
	}
	line[0].Content = "Z"
	sb.Push(line)
	if got := sb.Line(0)[0].Content; got != "Z" {
		t.Errorf("reused line holds %q, want Z", got)
	}
	if len(sb.Line(0)) != 40 {
		t.Errorf("reused line has %d cells", len(sb.Line(0)))
	}
}

// Printing ASCII allocates nothing per character (patch 3).
func TestPatchASCIIPrintDoesNotAllocate(t *testing.T) {
	e := NewEmulator(80, 24)
	line := []byte("plain ascii text, no styles\r")
	_, _ = e.Write(line)
	if allocs := testing.AllocsPerRun(50, func() { _, _ = e.Write(line) }); allocs > 1 {
		t.Errorf("%v allocations per line of ASCII", allocs)
	}
}

// Auto-wrap read from its mirror (patch 4) follows DECAWM.
func TestPatchAutoWrapMirror(t *testing.T) {
	e := NewEmulator(4, 3)
	fmt.Fprint(e, "abcdef")
	if got := screenRows(e); got[0] != "abcd" || got[1] != "ef" {
		t.Fatalf("wrapping: %q", got)
	}
	fmt.Fprint(e, "\x1b[?7l\x1b[3;1Hwxyz12")
	if got := screenRows(e); got[2] != "wxy2" {
		t.Fatalf("without auto-wrap: %q", got)
	}
}

// A string longer than the 64 KiB data buffer (patch 5) is cut, and what
// follows it is printed as ever.
func TestPatchLongStringIsCut(t *testing.T) {
	e := NewEmulator(20, 2)
	fmt.Fprint(e, "\x1b]2;"+strings.Repeat("a", 100_000)+"\x07after")
	if got := rowText(e, 0); got != "after" {
		t.Fatalf("after a 100 kB title the row is %q", got)
	}
}

// A narrow character printed in place (patch 6) is what SetCell would have
// made of it: pen, link and touched lines kept; a wide character it lands
// on, a charset mapping and a pending wrap still take the general path.
func TestPatchNarrowPrintInPlace(t *testing.T) {
	e := NewEmulator(6, 3)
	e.scr.ClearTouched()
	_, _ = e.WriteString("\x1b]8;;http://x\x07\x1b[31mA\x1b[m\x1b]8;;\x07B")
	a, b := e.CellAt(0, 0), e.CellAt(1, 0)
	if a.Content != "A" || a.Style.Fg == nil || a.Link.URL != "http://x" || b.Content != "B" || b.Style.Fg != nil || b.Link.URL != "" {
		t.Fatalf("cells: %+v %+v", *a, *b)
	}
	if touched := e.Touched(); len(touched) == 0 || touched[0] == nil || len(touched) > 1 && touched[1] != nil {
		t.Fatalf("touched: %v", touched)
	}
	e.scr.ClearTouched()
	// The same character again changes nothing, and touches nothing.
	_, _ = e.WriteString("\r\x1b]8;;http://x\x07\x1b[31mA")
	if touched := e.Touched(); len(touched) > 0 && touched[0] != nil {
		t.Fatalf("rewriting a cell as it is touched its line: %+v", touched[0])
	}

	// Half of a wide character overwritten: the rest of it is blanked.
	_, _ = e.WriteString("\r\n界x\rz")
	if got := screenRows(e)[1]; got != "z x" {
		t.Fatalf("overwriting a wide character's first half: %q", got)
	}
	_, _ = e.WriteString("\r界\bz")
	if got := screenRows(e)[1]; got != " zx" {
		t.Fatalf("overwriting a wide character's second half: %q", got)
	}

	// DEC line drawing maps q to a horizontal line.
	_, _ = e.WriteString("\r\n\x1b(0q\x1b(Bq")
	if got := screenRows(e)[2]; got != "─q" {
		t.Fatalf("line drawing: %q", got)
	}

	// The last column: the next character wraps.
	_, _ = e.WriteString("\x1b[1;1H\x1b[2Jabcdefg")
	if rows := screenRows(e); rows[0] != "abcdef" || rows[1] != "g" {
		t.Fatalf("wrap: %q", rows)
	}
}

// Rows scrolled off the top go into the scrollback without a copy (patch
// 7): after a reader cleared it, the rows that scroll off next get their
// places' storage from the lines it read, and neither the screen nor the
// scrollback shows another's text.
func TestPatchScrolledRowsMoveIntoTheScrollback(t *testing.T) {
	e := NewEmulator(10, 3)
	sbText := func() []string {
		var out []string
		for _, l := range e.Scrollback().Lines() {
			var b strings.Builder
			for _, c := range l {
				b.WriteString(c.Content)
			}
			out = append(out, b.String())
		}
		return out
	}
	for round := range 4 {
		for i := range 5 {
			fmt.Fprintf(e, "r%d-%d\r\n", round, i)
		}
		got := strings.Join(sbText(), "|")
		want := "r0-0|r0-1|r0-2" // the first round scrolls three rows off
		if round > 0 {           // later ones the two left on the screen too
			p := round - 1
			want = fmt.Sprintf("r%d-3|r%d-4|r%d-0|r%d-1|r%d-2", p, p, round, round, round)
		}
		if got != want {
			t.Fatalf("round %d: scrollback %q, want %q", round, got, want)
		}
		if rows := strings.Join(screenRows(e), "|"); rows != fmt.Sprintf("r%d-3|r%d-4|", round, round) {
			t.Fatalf("round %d: screen %q", round, rows)
		}
		e.Scrollback().Clear()
	}
	// The screen's rows and the scrollback's lines are distinct storage.
	fmt.Fprint(e, "\x1b[1;1HXXXXXXXXXX\x1b[2;1HYYYYYYYYYY\x1b[3;1HZZZZZZZZZZ")
	if got := strings.Join(sbText(), "|"); got != "" {
		t.Fatalf("scrollback after Clear and no scroll: %q", got)
	}
	fmt.Fprint(e, "\r\n")
	if got := strings.Join(sbText(), "|"); got != "XXXXXXXXXX" {
		t.Fatalf("scrollback: %q", got)
	}
	if rows := strings.Join(screenRows(e), "|"); rows != "YYYYYYYYYY|ZZZZZZZZZZ|" {
		t.Fatalf("screen: %q", rows)
	}
}

// Printable ASCII skips the parser only between sequences (patch 8): a
// sequence split across writes still ends with the bytes that look like
// text, and text after it prints with its style.
func TestPatchASCIIOnlySkipsTheParserInGround(t *testing.T) {
	e := NewEmulator(10, 2)
	for _, w := range []string{"\x1b[3", "1mA", "\x1b", "[0mB", "\x1b]0;ti", "tle\x07C"} {
		_, _ = e.WriteString(w)
	}
	if got := screenRows(e)[0]; got != "ABC" {
		t.Fatalf("row: %q", got)
	}
	if a, b := e.CellAt(0, 0), e.CellAt(1, 0); a.Style.Fg == nil || b.Style.Fg != nil {
		t.Fatalf("styles: A %+v, B %+v", a.Style, b.Style)
	}
}

// Handlers found by index (patch 11) are still the last registered first,
// for plain CSI commands as for those with a prefix, which stay in the map.
func TestPatchCsiHandlersByIndex(t *testing.T) {
	e := NewEmulator(10, 2)
	var calls []string
	e.RegisterCsiHandler('m', func(ansi.Params) bool { calls = append(calls, "m"); return true })
	e.RegisterCsiHandler(ansi.Command('?', 0, 'h'), func(ansi.Params) bool { calls = append(calls, "?h"); return false })
	_, _ = e.WriteString("\x1b[31mA\x1b[?25lB\x1b[?25h\x1b[2C\x1b[1DC")
	if got := strings.Join(calls, " "); got != "m ?h" {
		t.Fatalf("handlers called: %q", got)
	}
	if e.CellAt(0, 0).Style.Fg != nil {
		t.Errorf("SGR reached the default handler though the later one took it")
	}
	if !e.isModeSet(ansi.ModeTextCursorEnable) || e.scr.cur.Hidden {
		t.Errorf("?25h did not reach the default handler after the later one declined")
	}
	if got := rowText(e, 0); got != "AB C" {
		t.Errorf("row %q: cursor moves were not handled", got)
	}
}

// A bottom margin below the screen is the screen's bottom, and a region
// then empty is ignored (patch 12's DECSTBM): line feeds at the bottom
// scroll as they would without it.
func TestPatchMarginsBelowTheScreen(t *testing.T) {
	for seq, want := range map[string][]string{
		"\x1b[30;40r": {"", "zero", "one", "two"}, // ignored: the whole screen scrolls
		"\x1b[5;40r":  {"", "zero", "one", "two"},
		"\x1b[3;40r":  {"top", "", "one", "two"}, // rows 3 and 4 scroll, row 1 stays
	} {
		e := NewEmulator(10, 4)
		_, _ = e.WriteString("top" + seq + "\x1b[4;1Hzero\r\none\r\ntwo")
		if got := screenRows(e); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: rows %q, want %q", seq, got, want)
		}
	}
}

// Line is the row CellAt reads (patch 9): the same cells, not a copy, and
// nil outside the screen, on the main and on the alternate screen.
func TestPatchLineIsTheScreensRow(t *testing.T) {
	e := NewEmulator(4, 2)
	_, _ = e.WriteString("ab\r\ncd")
	for y := range 2 {
		l := e.Line(y)
		if len(l) != 4 {
			t.Fatalf("row %d: %d cells, want 4", y, len(l))
		}
		for x := range l {
			if &l[x] != e.CellAt(x, y) {
				t.Fatalf("row %d cell %d is a copy", y, x)
			}
		}
	}
	if got := e.Line(1)[1].Content; got != "d" {
		t.Fatalf("row 1 cell 1: %q", got)
	}
	if e.Line(-1) != nil || e.Line(2) != nil {
		t.Fatal("a row outside the screen")
	}
	_, _ = e.WriteString("\x1b[?1049hz")
	if got := e.Line(0)[0].Content; got != "z" {
		t.Fatalf("alternate screen row 0: %q", got)
	}
}

// blankCell (patch 7) is IsZero or Equal(&EmptyCell), read from the fields.
func TestPatchBlankCellIsTheCellComparisons(t *testing.T) {
	red := ansi.BasicColor(1)
	cells := []uv.Cell{
		{}, uv.EmptyCell, {Content: " "}, {Width: 1}, {Content: "x", Width: 1}, {Content: " ", Width: 2},
		{Content: "", Width: 1}, {Width: 0, Style: uv.Style{Attrs: 1}},
	}
	for _, base := range []uv.Cell{{}, uv.EmptyCell} {
		for _, st := range []uv.Style{{Fg: red}, {Bg: red}, {UnderlineColor: red}, {Underline: 1}, {Attrs: 1}} {
			c := base
			c.Style = st
			cells = append(cells, c)
		}
		for _, l := range []uv.Link{{URL: "u"}, {Params: "id=1"}} {
			c := base
			c.Link = l
			cells = append(cells, c)
		}
	}
	for _, c := range cells {
		if got, want := blankCell(&c), c.IsZero() || c.Equal(&uv.EmptyCell); got != want {
			t.Errorf("%+v: blankCell %v, the comparisons say %v", c, got, want)
		}
	}
}

// screenState is everything a write can change that the patches' fuzz
// targets compare: cells, changed rows, cursor, modes, margins.
func screenState(e *Emulator) string {
	var b strings.Builder
	for y := range e.Height() {
		for x := range e.Width() {
			c := e.CellAt(x, y)
			fmt.Fprintf(&b, "%q/%d/%v/%v|", c.Content, c.Width, c.Style, c.Link)
		}
		b.WriteByte('\n')
	}
	for y, l := range e.Touched() { // what changed, for whoever draws damage
		if l != nil {
			fmt.Fprintf(&b, "touched %d: %d-%d\n", y, l.FirstCell, l.LastCell)
		}
	}
	fmt.Fprintf(&b, "pen %v, margins %v, modes %v, ", e.scr.cur.Pen, e.scr.scroll, e.modes)
	return fmt.Sprintf("%s cursor %v", b.String(), e.CursorPosition())
}

// A run of printable ASCII printed as a run (patch 10) leaves the screen,
// the cursor and the pending wrap as printing it a character at a time
// does: the same output, written with every run cut into one-character
// writes, gives the same cells, and so does a character written after.
func FuzzPatchASCIIRuns(f *testing.F) {
	for _, s := range []string{
		"hello world, a line longer than the screen is wide\r\nnext",
		"\x1b[31mred\x1b[0m plain \x1b[44mblue bg\x1b[0m",
		"abcdefghij\x1b[?7lKLMNOP\x1b[?7hqrstuvwxyz",
		"ab你cd\x1b[1;2Hxyz\x1b[1;1H12345",
		"e\u0301 a\u0300bc\x1b(0lqqk\x1b(Babc\x1bNxyz",
		"\x1b]8;;http://x\x07link text\x1b]8;;\x07 after\x1b[3;5Hmid\x1b[1;9Hedge!",
		"0123456789\r\n\x1b[2;9Hwrap here and on",
		"abc\x1b[3bdef\x1b[2;1Hxy\x1b[20b",
	} {
		f.Add(s)
	}
	printable := func(c byte) bool { return c >= ' ' && c < 0x7f }
	f.Fuzz(func(t *testing.T, out string) {
		digits := 0
		for i := range len(out) {
			if digits = (digits + 1) * b2i(out[i] >= '0' && out[i] <= '9'); digits > 4 {
				return // a count x/vt would loop over (swarm bounds them)
			}
		}
		whole, cut, probe := NewEmulator(10, 4), NewEmulator(10, 4), NewEmulator(10, 4)
		for _, e := range []*Emulator{whole, cut, probe} {
			done := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, e); close(done) }() // replies to queries
			defer func() { e.Close(); <-done }()
		}
		_, _ = whole.WriteString(out)
		// Cut between two characters printed as text (the probe's parser
		// is in the ground state after the first): elsewhere the end of a
		// write flushes a character held back, which a run never does.
		start := 0
		for i := 1; i <= len(out); i++ {
			_, _ = probe.WriteString(out[i-1 : i])
			if i == len(out) || printable(out[i-1]) && printable(out[i]) && probe.parser.State() == parser.GroundState {
				_, _ = cut.WriteString(out[start:i])
				start = i
			}
		}
		for _, more := range []string{"", "\x18Z"} { // CAN ends any sequence left open
			_, _ = whole.WriteString(more)
			_, _ = cut.WriteString(more)
			if a, b := screenState(whole), screenState(cut); a != b {
				t.Fatalf("after %q%q, written whole:\n%s\nin one-character runs:\n%s", out, more, a, b)
			}
		}
	})
}

// A CSI sequence read by plainCsi (patch 12) does what the parser makes of
// it: the same output gives the same screen written whole, and with every
// such sequence cut after its "ESC [", which leaves it to the parser.
func FuzzPatchPlainCsi(f *testing.F) {
	for _, s := range []string{
		"\x1b[31mred\x1b[0m \x1b[1;4;38;5;200mpink\x1b[m \x1b[;1mbold\x1b[48;2;1;2;3mrgb",
		"abc\x1b[2;3Hxy\x1b[Kz\x1b[1J\x1b[2;3r\x1b[5;1Hin\x1b[2S\x1b[r\x1b[2Sup",
		"\x1b[0000000001mten digits\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17m",
		"é\x1b[33mx\x1b[?25l\x1b[>1m\x1b[1:2m\x1b[1 q\x1b[2@\x1b[3P\x1b[4X",
	} {
		f.Add(s)
	}
	plain := regexp.MustCompile("\x1b\\[[0-9;]*[@-~]")
	f.Fuzz(func(t *testing.T, out string) {
		digits := 0
		for i := range len(out) {
			if digits = (digits + 1) * b2i(out[i] >= '0' && out[i] <= '9'); digits > 4 {
				return // a count x/vt would loop over (swarm bounds them)
			}
		}
		whole, cut := NewEmulator(10, 4), NewEmulator(10, 4)
		for _, e := range []*Emulator{whole, cut} {
			done := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, e); close(done) }() // replies to queries
			defer func() { e.Close(); <-done }()
		}
		_, _ = whole.WriteString(out)
		start := 0
		for _, m := range plain.FindAllStringIndex(out, -1) {
			_, _ = cut.WriteString(out[start : m[0]+2])
			start = m[0] + 2
		}
		_, _ = cut.WriteString(out[start:])
		for _, more := range []string{"", "\x18Z"} {
			_, _ = whole.WriteString(more)
			_, _ = cut.WriteString(more)
			if a, b := screenState(whole), screenState(cut); a != b {
				t.Fatalf("after %q%q, written whole:\n%s\nwith the sequences cut:\n%s", out, more, a, b)
			}
		}
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ScanPlainCsi (patch 12) reads what a parser in the ground state reads:
// where it takes a sequence, the parser fed the same bytes completes the
// same command with the same parameters, at the same byte, and does
// nothing else.
func FuzzScanPlainCsi(f *testing.F) {
	for _, s := range []string{
		"\x1b[31m", "\x1b[m", "\x1b[;m", "\x1b[1;;4;38;5;200mx", "\x1b[0000000001m", "\x1b[123456789H",
		"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15m", "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16m",
		"\x1b[?25l", "\x1b[1:2m", "\x1b[1 q", "\x1b[2\x0aJ", "\x1b[12", "\x1b[>c",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cmd, params, n := ScanPlainCsi(b, nil)
		if n == 0 {
			return
		}
		type seen struct {
			cmd    ansi.Cmd
			params []ansi.Param
			at     int
		}
		var got []seen
		other := 0
		at := 0
		p := ansi.NewParser()
		p.SetHandler(ansi.Handler{
			HandleCsi: func(c ansi.Cmd, ps ansi.Params) { got = append(got, seen{c, append([]ansi.Param(nil), ps...), at}) },
			Print:     func(rune) { other++ },
			Execute:   func(byte) { other++ },
			HandleEsc: func(ansi.Cmd) { other++ },
		})
		for at = range n {
			p.Advance(b[at])
		}
		want := seen{cmd, append([]ansi.Param(nil), params...), n - 1}
		if other != 0 || len(got) != 1 || !reflect.DeepEqual(got[0], want) || p.State() != parser.GroundState {
			t.Fatalf("%q: ScanPlainCsi read %+v; the parser %+v (and %d other actions)", b[:n], want, got, other)
		}
	})
}

// swarm's fast paths in Write (printable runs, plain CSI sequences,
// control characters: patches 10, 12 and 13) do what the parser does
// with every byte, as upstream.
func FuzzPatchFastPaths(f *testing.F) {
	for _, s := range []string{
		"\x1b[2m000001\x1b[0m \x1b[32mINFO\x1b[0m \x1b[36mworker-1\x1b[0m processed batch 1 in 7 ms\r\n",
		"a\tb\x08c\x07d\x0be\x0cf\x0e\x0fg\x7fh\x18i\x1aj\x1b[1;2Hk\x1b[?25l\x1b]0;t\x07l",
		"hello world, a line longer than the screen is wide\r\nnext\r\n\r\n\r\n\r\nmore",
		"ab你cd\x1b[1;2Hxyz\x1b[1;1H12345e\u0301 a\u0300bc\x1b(0lqqk\x1b(Babc",
		"\x1b[2;3r\x1b[3;1Habc\ndef\nghi\x1b[r\x1bMx\x1bDy\x1bEz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		digits := 0
		for i := range len(out) {
			if digits = (digits + 1) * b2i(out[i] >= '0' && out[i] <= '9'); digits > 4 {
				return // a count x/vt would loop over (swarm bounds them)
			}
		}
		fast, slow := NewEmulator(10, 4), NewEmulator(10, 4)
		slow.parseAll = true
		for _, e := range []*Emulator{fast, slow} {
			done := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, e); close(done) }() // replies to queries
			defer func() { e.Close(); <-done }()
		}
		_, _ = fast.WriteString(out)
		_, _ = slow.WriteString(out)
		if a, b := screenState(slow), screenState(fast); a != b {
			t.Fatalf("after %q, through the parser:\n%s\nwith the fast paths:\n%s", out, a, b)
		}
	})
}

// TestPendingWrap: patch 14 reports the cursor waiting to wrap after a
// character printed in the last column, until it wraps or moves.
func TestPendingWrap(t *testing.T) {
	e := NewEmulator(5, 3)
	for _, step := range []struct {
		write string
		want  bool
	}{
		{"abcd", false}, {"e", true}, {"\x1b[31m", true}, {"f", false},
		{"ghij", true}, {"\r", false}, {"\x1b[1;5Hx", true}, {"\x1b[1;1H", false},
	} {
		_, _ = e.WriteString(step.write)
		if got := e.PendingWrap(); got != step.want {
			t.Errorf("after %q: PendingWrap %v, want %v", step.write, got, step.want)
		}
	}
}

// TestRestoringTheCursorEndsAPendingWrap: patch 24 — the cursor restored
// after text printed out to the last column is at the saved position, and
// the next character is printed there, not on the next row.
func TestRestoringTheCursorEndsAPendingWrap(t *testing.T) {
	for _, restore := range []string{"\x1b8", "\x1b[?1048l"} {
		e := NewEmulator(20, 3)
		save := "\x1b7"
		if restore != "\x1b8" {
			save = "\x1b[?1048h"
		}
		_, _ = e.WriteString(save + "\x1b[1;15Habcdef")
		_, _ = e.WriteString(restore)
		if e.PendingWrap() {
			t.Errorf("%q: the cursor waits to wrap after the restore", restore)
		}
		_, _ = e.WriteString("X")
		if c := e.CellAt(0, 0); c == nil || c.Content != "X" {
			t.Errorf("%q: X not at the saved position: row 0 %q, row 1 %q", restore, e.Line(0).String(), e.Line(1).String())
		}
	}
}

// The alternate screen's cells are allocated when a program first switches
// to it (patch 15): an emulator that never does holds one screen's cells,
// and one that does behaves as with both made at the start — at the size
// of the latest resize, cleared on entry, the main screen kept meanwhile.
func TestPatchAltScreenMadeOnUse(t *testing.T) {
	cells := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	const w, h = 160, 48
	screen := uint64(w * h * int(unsafe.Sizeof(uv.Cell{})))
	// One screen's cells and the rest of an emulator come to about 1.25
	// screens, varying by a few KB with the runtime (the race detector's
	// own); the alternate screen made at once would be 2.25: the bound
	// sits between.
	var e *Emulator
	if got := cells(func() { e = NewEmulator(w, h) }); got > screen*3/2 {
		t.Errorf("a new emulator allocates %d bytes; one screen's cells are %d", got, screen)
	}
	e.Resize(20, 4)
	if e.scrs[1].buf != nil {
		t.Fatal("a resize made the alternate screen")
	}
	fmt.Fprint(e, "main\r\n\x1b[?1049h")
	if !e.IsAltScreen() || e.Width() != 20 || e.Height() != 4 {
		t.Fatalf("alt %v, %d×%d after entering the alternate screen", e.IsAltScreen(), e.Width(), e.Height())
	}
	if got := screenRows(e); strings.Join(got, "|") != "|||" {
		t.Errorf("the alternate screen starts with %q", got)
	}
	fmt.Fprint(e, "alt")
	e.Resize(30, 5)
	fmt.Fprint(e, "\x1b[5;1Hbottom")
	if got := screenRows(e); strings.Join(got, "|") != "alt||||bottom" {
		t.Errorf("the alternate screen after a resize: %q", got)
	}
	fmt.Fprint(e, "\x1b[?1049l")
	if got := screenRows(e); e.IsAltScreen() || got[0] != "main" || len(got) != 5 {
		t.Errorf("back on the main screen (alt %v): %q", e.IsAltScreen(), got)
	}
	fmt.Fprint(e, "\x1bc") // a full reset reaches both screens
	fmt.Fprint(e, "\x1b[?1049h")
	if got := screenRows(e); strings.Join(got, "") != "" {
		t.Errorf("the alternate screen after a reset: %q", got)
	}
}

// A character that takes no column, arriving in a later write than the
// character it belongs to, joins the cell before the cursor (patch 17), as
// it joins when both come in one write; the cursor stays where it was.
func TestPatchMarkInALaterWriteJoinsTheCellBefore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   []string // the row's first cells
		cursor int
	}{
		{"combining mark", []string{"ab e", "\u0301 x"}, []string{"a", "b", " ", "e\u0301", " ", "x"}, 6},
		{"two marks", []string{"e", "\u0301", "\u0323x"}, []string{"e\u0301\u0323", "x"}, 2},
		{"mark on a wide character", []string{"世", "\u0301x"}, []string{"世\u0301", "", "x"}, 3},
		{"joiner", []string{"👨", "\u200d"}, []string{"👨\u200d", ""}, 2},
		{"mark after the last column", []string{"abcdefgh", "\u0301"}, []string{"a", "b", "c", "d", "e", "f", "g", "h\u0301"}, 7},
		{"mark after the cursor moved back", []string{"ab\x1b[D", "\u0301"}, []string{"a\u0301", "b"}, 1},
		// What upstream does with these is kept: no cell before the
		// cursor, and a join that would make the cell wider.
		{"mark at the start of a row", []string{"e\r", "\u0301x"}, []string{"x"}, 1},
		{"emoji presentation selector", []string{"☺", "\ufe0fx"}, []string{"☺", "x"}, 2},
		// A format character of no width, written where the cursor is,
		// comes between: nothing joins it, in one write or two.
		{"joiner after a paragraph separator", []string{"👨\u2029", "\u200dx"}, []string{"👨", "", "x"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(8, 2)
			for _, w := range tc.writes {
				_, _ = e.WriteString(w)
			}
			for x, want := range tc.want {
				if c := e.CellAt(x, 0); c == nil || c.Content != want {
					t.Errorf("cell %d: %v, want %q", x, c, want)
				}
			}
			if x, y := e.scr.CursorPosition(); x != tc.cursor || y != 0 {
				t.Errorf("cursor at %d,%d, want %d,0", x, y, tc.cursor)
			}
		})
	}
}

// A wide character written one column before another wide character
// covers that one's first column: the whole of the other is blanked
// (patch 18), as when it covers its second column, not its placeholder
// left behind as a cell of no width.
func TestPatchWideCharacterCoveringAnotherBlanksIt(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"its first column", "ab你xy\r\x1b[C好", []string{"a", "好", "", " ", "x", "y"}},
		{"its second column", "ab你xy\r\x1b[3C好", []string{"a", "b", " ", "好", "", "y"}},
		{"the same columns", "ab你xy\r\x1b[2C好", []string{"a", "b", "好", "", "x", "y"}},
		{"two pairs of regional indicators", "🇫🇫🇫🇫\r\x1b[C你", []string{" ", "你", "", " "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(8, 2)
			_, _ = e.WriteString(tc.in + "\r") // the CR ends the last cluster
			for x, want := range tc.want {
				if c := e.CellAt(x, 0); c == nil || c.Content != want {
					t.Errorf("cell %d: %v, want %q", x, c, want)
				}
			}
		})
	}
}

// A cluster that takes no column, written in the last column, leaves the
// cursor there with no wrap pending (patch 19): the next character is
// written over it, as in the middle of the row, not on the next row.
func TestPatchNoColumnClusterInTheLastColumnWrapsNothing(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		row0     string
		row1     string
	}{
		{"in the middle of the row", "abc\u2029d", "abcd", ""},
		{"in the last column", "abcdefg\u2029h", "abcdefgh", ""},
		{"then a line that wraps", "abcdefg\u2029hij", "abcdefgh", "ij"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(8, 2)
			_, _ = e.WriteString(tc.in + "\r") // the CR ends the last cluster
			if got := screenRows(e); got[0] != tc.row0 || got[1] != tc.row1 {
				t.Errorf("rows %q, want %q, %q", got, tc.row0, tc.row1)
			}
		})
	}
}

// A wide character whose second column is the last makes a wrap pending
// (patch 20), as a narrow character in the last column does: the next
// character goes to the next row, whatever comes between, and the wide
// character stays.
func TestPatchWideCharacterEndingInTheLastColumnWrapsNext(t *testing.T) {
	for _, tc := range []struct {
		name       string
		writes     []string
		row0, row1 string
	}{
		{"a character", []string{"abcdef你x"}, "abcdef你", "x"},
		{"the cursor hidden first", []string{"abcdef你\x1b[?25lx"}, "abcdef你", "x"},
		{"a bell first", []string{"abcdef你\ax"}, "abcdef你", "x"},
		{"a cluster of no column", []string{"abcdef你\u2029"}, "abcdef你", "\u2029"},
		{"a mark in a later write joins it", []string{"abcdef你", "\u0301"}, "abcdef你\u0301", ""},
		{"a carriage return ends the wait", []string{"abcdef你\rx"}, "xbcdef你", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(8, 2)
			for _, w := range tc.writes {
				_, _ = e.WriteString(w + "\x1b[m") // a sequence ends the last cluster
			}
			if got := screenRows(e); got[0] != tc.row0 || got[1] != tc.row1 {
				t.Errorf("rows %q, want %q, %q", got, tc.row0, tc.row1)
			}
		})
	}
	e := NewEmulator(8, 2)
	_, _ = e.WriteString("abcdef你\x1b[m")
	if x, y := e.scr.CursorPosition(); !e.PendingWrap() || x != 7 || y != 0 {
		t.Errorf("cursor at %d,%d, pending wrap %v; want 7,0 with a wrap pending", x, y, e.PendingWrap())
	}
}

// A resize that leaves the cursor in the last column keeps its pending
// wrap (patch 21): the next character goes to the next row, as without
// the resize. A wider screen has room for it on the row.
func TestPatchResizeKeepsAPendingWrapInTheLastColumn(t *testing.T) {
	for _, tc := range []struct {
		name          string
		width, height int
		row0, row1    string
	}{
		{"taller", 8, 4, "abcdefgh", "x"},
		{"shorter: the row scrolls up", 8, 1, "x", ""},
		{"wider", 10, 2, "abcdefghx", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(8, 2)
			_, _ = e.WriteString("abcdefgh")
			e.Resize(tc.width, tc.height)
			if want := tc.width == 8; e.PendingWrap() != want {
				t.Errorf("pending wrap %v after the resize, want %v", e.PendingWrap(), want)
			}
			_, _ = e.WriteString("x")
			if got := screenRows(e); got[0] != tc.row0 || tc.height > 1 && got[1] != tc.row1 {
				t.Errorf("rows %q, want %q, %q", got, tc.row0, tc.row1)
			}
		})
	}
}

// The storage of rows a scrollback let go in Clear serves every emulator
// of the process (patch 22): the rows another emulator scrolls off next
// get their places' storage from those rows, not new storage, and no
// scrollback holds rows after Clear. The spares kept are bounded.
func TestPatchSpareRowsAreSharedBetweenEmulators(t *testing.T) {
	a, b := NewEmulator(80, 24), NewEmulator(80, 24)
	text := strings.Repeat("a line of output\r\n", 40) // 17 rows scroll off
	_, _ = a.WriteString(text)
	given := map[*uv.Cell]bool{}
	for _, l := range a.Scrollback().Lines() {
		given[unsafe.SliceData(l)] = true
	}
	if len(given) != 17 {
		t.Fatalf("a scrolled off %d rows, want 17", len(given))
	}
	a.Scrollback().Clear()
	if sb := a.Scrollback(); len(sb.spares) != 0 || slices.ContainsFunc(sb.lines[:cap(sb.lines)], func(l uv.Line) bool { return l != nil }) {
		t.Fatal("a's scrollback holds rows after Clear")
	}
	_, _ = b.WriteString(text)
	reused := 0
	for y := range 24 {
		if given[unsafe.SliceData(b.Line(y))] {
			reused++
		}
	}
	// b's 17 rows that scrolled off were replaced by a's: the 16 rows
	// under its first line of text and the blank row under the last.
	if reused != 17 {
		t.Errorf("%d of b's rows are storage a let go, want 17", reused)
	}
	if got := strings.Join(screenRows(b)[:2], "|"); got != "a line of output|a line of output" {
		t.Errorf("b's screen: %q", got)
	}
	b.Scrollback().Clear()

	// A burst: 600 rows let go at once; spareRows keeps maxSpareCells.
	c := NewEmulator(80, 24)
	c.SetScrollbackSize(1000)
	_, _ = c.WriteString(strings.Repeat("x\r\n", 600))
	c.Scrollback().Clear()
	spareRows.mu.Lock()
	cells, rows := spareRows.cells, len(spareRows.rows)
	spareRows.mu.Unlock()
	if cells > maxSpareCells || rows != maxSpareCells/80 {
		t.Errorf("spareRows holds %d rows, %d cells; want %d rows, at most %d cells", rows, cells, maxSpareCells/80, maxSpareCells)
	}
}

// A new scrollback makes no list of lines ahead of them (patch 23): an
// idle emulator (a shell at its prompt) held 24 KB of it.
func TestPatchScrollbackGrowsAsUsed(t *testing.T) {
	var sb *Scrollback
	if allocs := testing.AllocsPerRun(10, func() { sb = NewScrollback(10000) }); allocs != 1 {
		t.Errorf("NewScrollback made %v allocations, want 1 (itself)", allocs)
	}
	line := uv.Line{{Content: "a", Width: 1}}
	for range 3 {
		sb.Push(line)
	}
	if sb.Len() != 3 || sb.Line(2)[0].Content != "a" {
		t.Fatalf("%d lines after three pushes", sb.Len())
	}
}

// An escape sequence ends the cluster being built (patch 25), wherever
// the writes are cut: a character that a UTF-8 byte cutting the escape
// short prints after it starts a cluster of its own, as it does when the
// write ends at the ESC (the end of a write ends a cluster). A Prepend
// character (U+0600) before the escape joined the character after it in
// one write, and was a cell of no width, written over, in two.
func TestPatchEscapeEndsTheCluster(t *testing.T) {
	cells := func(writes ...string) []string {
		e := NewEmulator(8, 1)
		for _, w := range writes {
			_, _ = e.WriteString(w)
		}
		var out []string
		for x := range 4 {
			out = append(out, fmt.Sprintf("%q/%d", e.CellAt(x, 0).Content, e.CellAt(x, 0).Width))
		}
		return out
	}
	for _, in := range []string{"a\u0600\x1bé b", "\u0600\x1b\xd8\x1c\x1a", "🇫\x1b🇷x", "e\x1b\u0301x"} {
		whole := cells(in)
		for k := 1; k < len(in); k++ {
			if split := cells(in[:k], in[k:]); !slices.Equal(whole, split) {
				t.Errorf("%q: cut at %d gives %v, whole %v", in, k, split, whole)
			}
		}
	}
}
