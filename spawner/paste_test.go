package spawner

import "testing"

func TestPasteBytes(t *testing.T) {
	for in, want := range map[string]string{
		"hello\nworld":         "\x1b[200~hello\nworld\x1b[201~",
		"a\x1b[201~b":          "\x1b[200~ab\x1b[201~",
		"x\x1b[20\x1b[201~1~y": "\x1b[200~xy\x1b[201~", // removing one marker must not leave another
	} {
		if got := string(PasteBytes(in)); got != want {
			t.Errorf("PasteBytes(%q) = %q, want %q", in, got, want)
		}
	}
}
