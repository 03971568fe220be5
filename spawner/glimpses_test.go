package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestARowOnlyARunningCommandsPreviewShowedIsRead: Claude Code shows a
// running command's latest rows above "… +N lines (2s)". Once the command
// is done it shows the output collapsed to its first rows, or whole with
// the view at its end: a row from the middle that the preview showed as it
// slid by shows nowhere else, and a reader saw it there. It is read once,
// in the output's order; rows the view shows whole are read there, once;
// a row the preview showed for less than the settle time is not read.
func TestARowOnlyARunningCommandsPreviewShowedIsRead(t *testing.T) {
	t.Parallel()
	frame := func(rows ...string) string {
		var b strings.Builder
		for y, row := range rows {
			fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[K", y+1, row)
		}
		b.WriteString("\r\n\x1b[J")
		return b.String()
	}
	running := [][]string{
		{"! sh f1.sh", "  ⎿  line one", "     line two", "     @relay:bob seen only here", "     line four", "     … +1 line (1s)"},
		{"! sh f1.sh", "  ⎿  line two", "     @relay:bob seen only here", "     line four", "     line five", "     … +2 lines (1s)"},
		{"! sh f1.sh", "  ⎿  @relay:alice too brief", "     line six", "     line seven", "     line eight", "     … +5 lines (2s)"},
		{"! sh f1.sh", "  ⎿  line nine", "     line ten", "     line eleven", "     line twelve", "     … +10 lines (3s)"},
	}
	settled := []time.Duration{time.Second, time.Second, 100 * time.Millisecond, time.Second}
	for _, tc := range []struct {
		name string
		done []string
		want []string
	}{
		{"collapsed", []string{"! sh f1.sh", "  ⎿  line one", "     … +11 lines (ctrl+o to expand)"},
			[]string{"line one", "line two", "@relay:bob seen only here", "line four", "line five", "line nine", "line ten", "line eleven", "line twelve"}},
		{"whole, the view at its end", []string{"     line ten", "     line eleven", "     line twelve"},
			[]string{"line one", "line two", "@relay:bob seen only here", "line four", "line five", "line nine", "line ten", "line eleven", "line twelve"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newKindRun(t, "claude", 24, 60)
			r.write("\x1b[?1049h\x1b[?25l")
			for i, rows := range running {
				r.write(frame(rows...) + "\x1b[24;1H")
				r.pause(settled[i])
			}
			r.write(frame(tc.done...) + "\x1b[24;1H")
			r.pause(time.Second)
			r.flush()
			var got []string
			for _, l := range r.lines {
				if l = strings.TrimLeft(l, " ⎿\u00a0"); strings.HasPrefix(l, "line ") || strings.HasPrefix(l, "@relay:") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("committed:\n%s\nwant:\n%s\nall lines:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), strings.Join(r.lines, "\n"))
			}
		})
	}
}
