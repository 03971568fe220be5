package spawner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzScreen feeds arbitrary bytes to a small screen: no panic, the
// scrollback stays within its cap, and cutting the input in two changes no
// committed line.
func FuzzScreen(f *testing.F) {
	for _, tc := range lineCases {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2), uint8(tc.rows), uint8(tc.cols))
	}
	f.Add([]byte("\x1b[1;999r\x1b[999B\r\nx\x1b[?1049h\x1b[5S\x1b[?1049l\x1b[3J"), uint16(5), uint8(3), uint8(4))
	f.Add([]byte("你好\x1b[31m世界e\u0301\x1b[6n\x1b[?47h\x1bc"), uint16(3), uint8(2), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, rows, cols uint8) {
		opts := ScreenOptions{Rows: int(rows%40) + 1, Cols: int(cols%100) + 1, Scrollback: 50}
		k := int(cut) % (len(data) + 1)
		whole := feed(t, opts, string(data), func(int) []int { return nil })
		split := feed(t, opts, string(data), func(int) []int { return []int{k} })
		if !cmp.Equal(whole, split) {
			t.Fatalf("cut at %d changes the lines:\n%s", k, cmp.Diff(whole, split))
		}
		s := NewScreen(opts)
		defer s.Close()
		_, _ = s.Write(data)
		_ = s.Render(10)
		_ = s.Snapshot()
		if n := s.ScrollbackLen(); n > 50 {
			t.Fatalf("scrollback %d rows over its cap", n)
		}
		for _, l := range s.Flush() {
			if len(l.Text) > maxLineBytes {
				t.Fatalf("line of %d bytes", len(l.Text))
			}
		}
	})
}
