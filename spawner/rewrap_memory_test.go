package spawner

import (
	"runtime"
	"testing"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
)

// A width change rewraps the whole scrollback, one line at a time, without
// a copy of every row as cells: a client attaching at its own size rewraps
// every agent's scrollback at once, and such copies (80 cells of 112 bytes
// a row, 90 MB for one full scrollback) once doubled a hundred-agent
// server's memory while it attached.
func TestRewrapDoesNotCopyEveryRowAsCells(t *testing.T) {
	const cols = 80
	s := NewScreen(ScreenOptions{Rows: 24, Cols: cols})
	defer s.Close()
	data := logLines(4 << 20)
	for i := 0; i < len(data); i += 4096 {
		_, _ = s.Write(data[i:min(i+4096, len(data))])
		s.TakeLines()
	}
	s.mu.Lock()
	rows := s.hist.len()
	s.mu.Unlock()
	if rows < DefaultScrollback {
		t.Fatalf("the scrollback holds %d rows; want it full (%d)", rows, DefaultScrollback)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.Resize(48, 2*cols)
	runtime.ReadMemStats(&after)
	perRow := float64(after.TotalAlloc-before.TotalAlloc) / float64(rows)
	rowAsCells := float64(cols * unsafe.Sizeof(uv.Cell{}))
	if perRow > rowAsCells/4 {
		t.Errorf("rewrapping %d rows allocated %.0f bytes a row; want under a quarter of a row as cells (%.0f)", rows, perRow, rowAsCells/4)
	}
}
