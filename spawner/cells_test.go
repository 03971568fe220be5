package spawner

import (
	"image/color"
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
