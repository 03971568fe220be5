package screenmodel

import "testing"

func TestWrapAt(t *testing.T) {
	for _, c := range []struct {
		kind       string
		cols, want int
	}{
		{"claude", 80, 79}, // a word that would end in the last column goes to the next row
		{"codex", 80, 80},
		{"", 80, 0},      // a program of no known kind: not known
		{"vim", 80, 0},   // a kind with no layout facts
		{"claude", 1, 1}, // never below one column
	} {
		if got := Of(c.kind).WrapAt(c.cols); got != c.want {
			t.Errorf("Of(%q).WrapAt(%d) = %d, want %d", c.kind, c.cols, got, c.want)
		}
	}
	if l := Of("claude"); l.Kind != "claude" || l.Version == "" {
		t.Errorf("Of(claude) = %+v: want its kind and the version its facts were seen in", l)
	}
}
