package spawner

import (
	"image/color"
	"slices"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// The field-by-field comparisons appendRow makes per cell say what the
// struct comparisons say, for every kind of colour x/vt sets.
func TestCellComparisonsAreTheStructComparisons(t *testing.T) {
	colors := []color.Color{nil, ansi.BasicColor(1), ansi.BasicColor(2), ansi.IndexedColor(1), ansi.IndexedColor(200),
		color.RGBA{1, 2, 3, 255}, color.RGBA{1, 2, 4, 255}, ansi.RGBColor{R: 1, G: 2, B: 3}}
	var styles []uv.Style
	for _, c := range colors {
		styles = append(styles, uv.Style{Fg: c}, uv.Style{Bg: c}, uv.Style{UnderlineColor: c})
	}
	styles = append(styles, uv.Style{Attrs: 1}, uv.Style{Underline: 1}, uv.Style{Fg: ansi.BasicColor(1), Attrs: 1})
	for _, a := range styles {
		if zeroStyle(&a) != a.IsZero() {
			t.Errorf("zeroStyle(%+v) = %v", a, zeroStyle(&a))
		}
		for _, b := range styles {
			if sameStyle(&a, &b) != (a == b) {
				t.Errorf("sameStyle(%+v, %+v) = %v", a, b, sameStyle(&a, &b))
			}
		}
	}
	for _, l := range []uv.Link{{}, {URL: "u"}, {Params: "id=1"}, {URL: "u", Params: "id=1"}} {
		if noLink(&l) != l.IsZero() {
			t.Errorf("noLink(%+v) = %v", l, noLink(&l))
		}
	}
	for _, s := range []string{"", " ", "  ", "x", "\u00a0"} {
		if blankText(s) != (s == "" || s == " ") {
			t.Errorf("blankText(%q) = %v", s, blankText(s))
		}
	}
}

// FuzzStyleRuns: a row kept as style runs over its text renders as
// appendRow rendered its cells, and a row with no runs has only plain
// cells.
func FuzzStyleRuns(f *testing.F) {
	for _, s := range []string{
		"\x1b[1;32mINFO\x1b[0m build \x1b[33mpkg\x1b[0m done",
		"\x1b[41m red to the edge of the row and on\x1b[0m",
		"a\x1b[7m \x1b[0m \x1b[7m \x1b[0mb   ",
		"\x1b[44m   \x1b[0m",
		"0123456789a你好",
		"\x1b[31m0123456789a你\x1b[0m",
		"\x1b]8;;http://x\x07link\x1b]8;;\x07 after",
		"\x1b[38;2;1;2;3mrgb\x1b[48;5;200mindexed\x1b[4:3mcurly\x1b[58;5;9mcolour",
		"x\x1b[2K\x1b[1;5H\x1b[1mbold\r\n\x1b[32m👍🏽 é\x1b[0m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		const cols = 12
		s := NewScreen(ScreenOptions{Rows: 4, Cols: cols})
		defer s.Close()
		_, _ = s.Write([]byte(out))
		s.mu.Lock()
		defer s.mu.Unlock()
		for y := range 4 {
			row := s.main.Line(y)
			text := string(appendText(nil, row, cols))
			var pal palette
			runs, shown, ok := rowStyles(nil, row, cols, &pal)
			switch {
			case !ok:
				linked := slices.ContainsFunc(row, func(c uv.Cell) bool { return !noLink(new(realLink(&c))) })
				if _, pad := lineWrap(row, cols); !linked && !(pad && !plain(&row[cols-1])) {
					t.Fatalf("row %d: no runs for %q, though it has no link and no styled padding", y, text)
				}
			case len(runs) == 0:
				for x := range row {
					if x < cols && !plain(&row[x]) {
						t.Fatalf("row %d: no runs, but cell %d is styled: %+v", y, x, row[x])
					}
				}
			default:
				if got, want := string(appendRuns(nil, text, shown, runs, &pal)), string(appendRow(nil, row, cols)); got != want {
					t.Fatalf("row %d: runs %+v over %q (%d shown) give\n%q, appendRow gives\n%q", y, runs, text, shown, got, want)
				}
			}
		}
	})
}

// A program that paints in more colours than the palette holds gets its
// rows rendered as they scroll off, styles and all.
func TestAFullPaletteRendersRowsAtOnce(t *testing.T) {
	var pal palette
	for i := 0; len(pal.styles) < maxStyles; i++ {
		if _, ok := pal.id(&uv.Style{Fg: color.RGBA{uint8(i), uint8(i >> 8), 0, 255}}); !ok {
			t.Fatalf("palette full at %d styles", len(pal.styles))
		}
	}
	s := NewScreen(ScreenOptions{Rows: 2, Cols: 20})
	defer s.Close()
	s.hist.pal = pal
	_, _ = s.Write([]byte("\x1b[38;2;0;0;0mknown\x1b[0m\r\n\x1b[38;2;9;9;9mnew\x1b[0m\r\n\r\n\r\n"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hist.len() != 3 {
		t.Fatalf("%d rows of scrollback, want 3", s.hist.len())
	}
	known, fresh := s.hist.at(0), s.hist.at(1)
	if known.runs == nil || known.styled != "" {
		t.Errorf("a row in a known colour: runs %v, styled %q", known.runs, known.styled)
	}
	if fresh.runs != nil || fresh.styled != "\x1b[38;2;9;9;9mnew\x1b[m" {
		t.Errorf("a row in a colour past the palette: runs %v, styled %q", fresh.runs, fresh.styled)
	}
	if got := string(s.hist.appendStyled(nil, known)); got != "\x1b[38;2;0;0;0mknown\x1b[m" {
		t.Errorf("the known row renders as %q", got)
	}
}
