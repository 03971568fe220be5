package spawner

import (
	"fmt"
	"runtime"
	"strings"
	"swarm/internal/testrun"
	"testing"
	"time"
)

func benchScreen(b *testing.B, data []byte, chunk int) {
	benchScreenSized(b, data, chunk, 24, 80)
}

// benchScreenSized is benchScreen on a screen of rows × cols.
func benchScreenSized(b *testing.B, data []byte, chunk, rows, cols int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	lines := 0
	for b.Loop() {
		s := NewScreen(ScreenOptions{Rows: rows, Cols: cols})
		for i := 0; i < len(data); i += chunk {
			_, _ = s.Write(data[i:min(i+chunk, len(data))])
			lines += len(s.TakeLines())
		}
		lines += len(s.Flush())
		_ = s.Close()
	}
	if lines == 0 {
		b.Fatal("no lines")
	}
}

// BenchmarkScreen is the screen alone over ANSI-heavy output in 4 KiB
// chunks (a PTY read is at most this size with most programs).
func BenchmarkScreen(b *testing.B) { benchScreen(b, testrun.AgentOutput(1<<20), 4096) }

// BenchmarkScreenPlain is the screen over uncoloured 80-column lines.
func BenchmarkScreenPlain(b *testing.B) {
	line := strings.Repeat("plain text ", 7) + "end\r\n"
	benchScreen(b, []byte(strings.Repeat(line, (1<<20)/len(line))), 4096)
}

// logLines returns about size bytes of coloured log lines, about 100 bytes
// each with 6 SGR sequences: the one-pane load measured beside tmux in
// BENCHMARKS.md (scripts/bench-tmux).
func logLines(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\x1b[2m%06d\x1b[0m \x1b[32mINFO\x1b[0m \x1b[36mworker-%d\x1b[0m processed batch %d in %d ms, queue depth %d, ok\r\n",
			i, i%8, i, i*7%1000, i%97)
	}
	return []byte(b.String())
}

// BenchmarkScreenLogLines is the screen alone over coloured log lines, as
// fast as they come, in 4 KiB chunks.
func BenchmarkScreenLogLines(b *testing.B) { benchScreen(b, logLines(1<<20), 4096) }

// BenchmarkScreenLogLinesWide: the same lines in a 160×48 pane (the size
// of the tmux comparison), where they do not fill their rows.
func BenchmarkScreenLogLinesWide(b *testing.B) { benchScreenSized(b, logLines(1<<20), 4096, 48, 160) }

// BenchmarkScreenLogLinesNarrow: the same lines in a 38×10 pane (one of
// 16 in a 160×48 UI), where each takes three rows.
func BenchmarkScreenLogLinesNarrow(b *testing.B) { benchScreenSized(b, logLines(1<<20), 4096, 10, 38) }

// BenchmarkScreenMemory measures the heap held by one screen whose
// scrollback is full: 10,000 rows of 100 columns with colours. Reported
// as MB-inuse (HeapInuse after minus before, with the screen alive).
func BenchmarkScreenMemory(b *testing.B) {
	var data strings.Builder
	for i := range 10_100 {
		fmt.Fprintf(&data, "\x1b[32m%05d\x1b[0m %s \x1b[1mbold\x1b[0m %s\r\n", i, strings.Repeat("x", 40), strings.Repeat("y", 40))
	}
	in := []byte(data.String())
	var ms runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapInuse
		s := NewScreen(ScreenOptions{Rows: 50, Cols: 100})
		for i := 0; i < len(in); i += 4096 {
			_, _ = s.Write(in[i:min(i+4096, len(in))])
			s.TakeLines()
		}
		if n := s.ScrollbackLen(); n != DefaultScrollback {
			b.Fatalf("scrollback %d rows", n)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse-before)/(1<<20), "MB-inuse")
		runtime.KeepAlive(s)
		_ = s.Close()
	}
}

// BenchmarkProcessMemory measures the heap held by one running process
// (PTY, goroutines, writer, screen) once its scrollback is full: the
// program prints 10,100 coloured 100-column lines and waits. Reported as
// MB-inuse, HeapInuse with the process alive minus before it started.
func BenchmarkProcessMemory(b *testing.B) {
	script := `awk 'BEGIN { x = sprintf("%40s", ""); gsub(/ /, "x", x); for (i = 0; i < 10100; i++) printf "\033[32m%05d\033[0m %s \033[1mbold\033[0m %s\n", i, x, x }'; read wait`
	var ms runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapInuse
		p, err := Start(Options{Argv: []string{"sh", "-c", script}, Rows: 50, Cols: 100})
		if err != nil {
			b.Fatal(err)
		}
		testrun.Within(b, testrun.Patience, "a full scrollback", func() bool {
			return p.Screen().ScrollbackLen() >= DefaultScrollback && p.Screen().Contains("10099")
		})
		runtime.GC()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse-before)/(1<<20), "MB-inuse")
		if err := p.Stop(time.Second); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReflowHistory: a full 10,000-row scrollback of coloured
// 100-column lines, made narrower (38 columns) and wider (80) again, as
// when a UI attaches to a busy agent and leaves.
func BenchmarkReflowHistory(b *testing.B) {
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80, Scrollback: DefaultScrollback})
	defer s.Close()
	_, _ = s.Write(logLines(1 << 20))
	if s.ScrollbackLen() < DefaultScrollback {
		b.Fatalf("scrollback %d rows", s.ScrollbackLen())
	}
	b.ResetTimer()
	for b.Loop() {
		s.Resize(24, 38)
		s.Resize(24, 80)
	}
}

// BenchmarkRowCost: what a row of scrollback costs, for coloured log lines
// (logLines) in an 80-column pane at the default scrollback, and a line
// the replay keeps (the last 20,000 committed): the bytes of their packed
// rings per row and per line, and the heap the screen holds per row of
// its scrollback.
func BenchmarkRowCost(b *testing.B) {
	data := logLines(4 << 20)
	var ms runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapInuse
		s := NewScreen(ScreenOptions{Rows: 24, Cols: 80})
		for i := 0; i < len(data); i += 4096 {
			_, _ = s.Write(data[i:min(i+4096, len(data))])
			s.TakeLines()
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		s.mu.Lock()
		rows, lines := s.hist.len(), s.lines.replay.seen.len()
		b.ReportMetric(float64(s.hist.rows.bytes())/float64(rows), "B/scrollback-row")
		b.ReportMetric(float64(s.lines.replay.seen.bytes())/float64(lines), "B/replay-line")
		b.ReportMetric(float64(ms.HeapInuse-before)/(1<<20), "MB-inuse")
		s.mu.Unlock()
		_ = s.Close()
	}
}
