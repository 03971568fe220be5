package spawner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reprint is a transcript committed at 60 columns (history) and written
// again for 100 columns after a resize (again), as Codex 0.171.0 (inline)
// does: it clears the screen and the scrollback and writes the whole
// transcript, showing a long output's first rows, "… +N lines", and as
// many of its last rows as fit — wider, more of them, so again shows a
// row ("@relay:bob a row the old width did not show") and a count no
// screen showed before, amid history.
func reprint() (history, again string) {
	history = "• You ran cat f01.txt\r\n  └ first row of the file one\r\n    … +40 lines (^t to view transcript)\r\n" +
		"    the tail row forty one of the file\r\n    end of the output, 43 lines\r\n\r\n" +
		"• You ran cat f02.txt\r\n  └ alpha bravo charlie delta echo foxtrot golf\r\n    hotel india juliett kilo lima mike november\r\n" +
		"    end of the output, 2 lines\r\n\r\n"
	again = "\x1b[r\x1b[H\x1b[2J\x1b[3J\x1b[H" +
		"• You ran cat f01.txt\r\n  └ first row of the file one\r\n    … +39 lines (^t to view transcript)\r\n" +
		"    @relay:bob a row the old width did not show\r\n" +
		"    the tail row forty one of the file\r\n    end of the output, 43 lines\r\n\r\n" +
		"• You ran cat f02.txt\r\n  └ alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november\r\n" +
		"    end of the output, 2 lines\r\n\r\n"
	return history, again
}

// reprintShown is what again shows that history did not.
var reprintShown = []string{"    … +39 lines (^t to view transcript)", "    @relay:bob a row the old width did not show"}

// reprinted commits history on a screen rows high, 60 wide, resizes it to
// 100 columns and returns it with the lines committed so far forgotten.
func reprinted(t *testing.T, rows int) (*Screen, *committed) {
	t.Helper()
	history, _ := reprint()
	s := NewScreen(ScreenOptions{Rows: rows, Cols: 60})
	t.Cleanup(func() { s.Close() })
	cm := &committed{t: t, s: s, take: s.TakeLines}
	cm.write(history)
	cm.add(s.Settle())
	cm.got = nil
	s.Resize(rows, 100)
	return s, cm
}

// newRows returns n rows of new output ("    new row k").
func newRows(n int) (string, []string) {
	var b strings.Builder
	var rows []string
	for k := range n {
		fmt.Fprintf(&b, "    new row %d\r\n", k)
		rows = append(rows, fmt.Sprintf("    new row %d", k))
	}
	return b.String(), rows
}

// TestReplayShowsRowsInPassing: a transcript written again for a new
// width, in one synchronized update, may show rows that no screen showed
// before amid history; those that scroll off before the update ends,
// with older lines written again after them, were shown only in passing
// and no reader read them (issue 29: codex-inline-s1200034 read "wonder
// 1,234.56" from its reprint at 178 columns). Rows the update leaves on
// the screen were shown; written outside an update, each row was on the
// screen; new output at the end of the transcript is new, whatever
// scrolls it off.
func TestReplayShowsRowsInPassing(t *testing.T) {
	t.Parallel()
	_, again := reprint()
	news, newRowsWant := newRows(12)
	for _, c := range []struct {
		name string
		rows int
		more string // written after the transcript, in the same update
		want []string
		// plain: the transcript written outside a synchronized update
		plain bool
	}{
		{"scrolled by", 8, "", nil, false},
		{"scrolled by, no synchronized update", 8, "", reprintShown, true},
		{"stays on the screen", 14, "", reprintShown, false},
		{"new output under it", 8, "• You ran cat f03.txt\r\n  └ @relay:bob the newest output\r\n" + news,
			append([]string{"• You ran cat f03.txt", "  └ @relay:bob the newest output"}, newRowsWant...), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, cm := reprinted(t, c.rows)
			if c.plain {
				cm.write(again + c.more)
			} else {
				cm.write("\x1b[?2026h" + again + c.more + "\x1b[?2026l")
			}
			cm.add(s.Settle())
			if diff := cmp.Diff(c.want, cm.got); diff != "" {
				t.Errorf("written again: (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReprintShownRowScrolledOffLater: a row the reprint's update leaves
// on the screen is shown; output that goes on (a busy program's spinner:
// output never pauses) and scrolls it off later does not make it shown
// only in passing.
func TestReprintShownRowScrolledOffLater(t *testing.T) {
	t.Parallel()
	_, again := reprint()
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprint("synchronized ", sync), func(t *testing.T) {
			t.Parallel()
			s, cm := reprinted(t, 14)
			if sync {
				cm.write("\x1b[?2026h" + again + "\x1b[?2026l")
			} else {
				cm.write(again)
			}
			// the program keeps working: a spinner row redrawn in place
			for k := range 20 {
				cm.write(fmt.Sprintf("\x1b[?2026h\r• Working (%ds • esc to interrupt)\x1b[K\x1b[?2026l", k))
			}
			news, _ := newRows(16)
			cm.write("\r\x1b[K" + news)
			cm.add(s.Settle())
			for _, want := range reprintShown {
				if !slices.Contains(cm.got, want) {
					t.Errorf("row shown on the screen for 20 frames, then scrolled off: %q not committed; got %q", want, cm.got)
				}
			}
		})
	}
}

// TestReprintNewOutputNotHeld: new output after a reprint at a new width
// is handed on as it comes, not held until output pauses: a busy program
// never pauses (Codex inline animates every ~33 ms while it works).
func TestReprintNewOutputNotHeld(t *testing.T) {
	t.Parallel()
	_, again := reprint()
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprint("synchronized ", sync), func(t *testing.T) {
			t.Parallel()
			_, cm := reprinted(t, 14)
			if sync {
				cm.write("\x1b[?2026h" + again + "\x1b[?2026l")
			} else {
				cm.write(again)
			}
			cm.got = nil
			news, want := newRows(30)
			if sync {
				// frames of new output, as a program at work draws them
				for _, row := range strings.SplitAfter(news, "\r\n") {
					cm.write("\x1b[?2026h" + row + "\x1b[?2026l")
				}
			} else {
				cm.write(news)
			}
			// The reprint's rows the new ones scroll off, then the new rows
			// that scrolled off or that the cursor left, at least.
			want = append(slices.Clone(reprintShown), want...)
			if len(cm.got) < len(reprintShown)+16 || !slices.Equal(cm.got, want[:len(cm.got)]) {
				t.Errorf("30 new rows after the reprint: handed on before output paused %q, want the first of %q", cm.got, want)
			}
		})
	}
}

// TestReprintHeldLinesBounded: lines held in a synchronized update that
// does not end (a transcript written again and a long stream after it,
// all in one update) stay bounded, and are handed on meanwhile.
func TestReprintHeldLinesBounded(t *testing.T) {
	t.Parallel()
	_, again := reprint()
	s, cm := reprinted(t, 14)
	cm.write("\x1b[?2026h" + again)
	held := 0
	for k := range 50000 {
		cm.write(fmt.Sprintf("    streaming log line number %d of a long build\r\n", k))
		held = max(held, len(s.lines.unshown))
		cm.got = cm.got[:0]
	}
	if held > maxUnshown {
		t.Errorf("held %d lines in an update that never ended, want at most %d", held, maxUnshown)
	}
	if held == 0 {
		t.Errorf("no line held in a synchronized update of a reprint: the bound is not tested")
	}
}
