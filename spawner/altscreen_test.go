package spawner

import (
	"slices"
	"strings"
	"testing"
)

// A row of the alternate screen that a resize cuts, and that the program
// does not draw again, is not new text: the relay line on it is committed
// once and whole, not a second time cut short. (A UI attaching to a swarm
// resizes its agents.) What the program then draws on the row is new.
func TestARowAResizeCutIsNotNewText(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 6, Cols: 40, Scrollback: 100})
	defer s.Close()
	_, _ = s.Write([]byte("\x1b[?1049h\x1b[H@relay:bob please review auth.go"))
	s.Resize(6, 20)
	s.Resize(6, 40)
	_, _ = s.Write([]byte("\x1b[3;1Hdrawn after the resize"))
	var got []string
	for _, l := range append(s.TakeLines(), s.Flush()...) {
		if t := strings.TrimSpace(l.Text); t != "" {
			got = append(got, t)
		}
	}
	want := []string{"@relay:bob please review auth.go", "drawn after the resize"}
	if !slices.Equal(got, want) {
		t.Errorf("committed %q, want %q", got, want)
	}
}
