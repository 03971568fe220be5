package spawner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Between replays an agent's screen holds its committed lines' keys, not
// the index a replay finds them by: that is made at each clear and let go
// when output pauses. Kept, it took about 90 bytes a line, 1.7 MB for a
// full replay window (replayLines), in every agent that had ever cleared
// its screen, idle or not.
func TestReplayIndexIsLetGoWhenOutputPauses(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80})
	defer s.Close()
	var data []byte
	for i := range replayLines + 500 {
		data = fmt.Appendf(data, "%06d INFO worker-%d processed batch %d\r\n", i, i%8, i)
	}
	for i := 0; i < len(data); i += 4096 {
		_, _ = s.Write(data[i:min(i+4096, len(data))])
		s.TakeLines()
	}
	s.mu.Lock()
	lines := s.lines.replay.seen.len()
	s.mu.Unlock()
	if lines < replayLines {
		t.Fatalf("the replay holds %d lines; want it full (%d)", lines, replayLines)
	}
	before := liveHeap()
	for range 3 {
		_, _ = s.Write([]byte("\x1b[H\x1b[2J\x1b[3Jsomething new\r\n"))
		s.Settle()
	}
	held := float64(liveHeap()-before) / float64(lines)
	// What stays is the keys (a string each, about 64 bytes here); the
	// index was about 90 bytes more.
	if held > 110 {
		t.Errorf("after three replays the screen holds %.0f more bytes a line (%d lines); want under 110", held, lines)
	}
	runtime.KeepAlive(data)
}

// liveHeap is the heap in use once the garbage is collected.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// A long transcript drawn again whole after the screen and the scrollback
// are cleared (as Ink draws it when its live area outgrows the screen)
// commits none of its lines again — no relay line is read twice — each
// time, the index the first replay made having been let go in between;
// the first new line after it is committed, once.
func TestLongTranscriptDrawnAgainTwiceIsNotNew(t *testing.T) {
	t.Parallel()
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80})
	defer s.Close()
	c := &committed{t: t, s: s, take: s.Settle}
	rng := rand.New(rand.NewPCG(3, 3))
	var transcript strings.Builder
	for i := range 3000 {
		transcript.WriteString(transcriptLine(rng, i) + "\r\n")
	}
	c.write(transcript.String())
	if n := len(c.got); n < 2900 {
		t.Fatalf("%d lines of the transcript committed; want about 3000", n)
	}
	for redraw := 1; redraw <= 2; redraw++ {
		c.got = nil
		c.write("\x1b[H\x1b[2J\x1b[3J\x1b[H" + transcript.String())
		if len(c.got) > 0 {
			t.Fatalf("drawn again (%d): %d lines committed again, the first %q", redraw, len(c.got), c.got[0])
		}
	}
	c.write("@relay:bob the new line\r\n")
	if diff := cmp.Diff([]string{"@relay:bob the new line"}, c.flush()); diff != "" {
		t.Errorf("committed after the transcript was drawn again (-want +got):\n%s", diff)
	}
}

// transcriptLine is a line of an agent's transcript: prose, a command and
// its output, a relay line now and then.
func transcriptLine(rng *rand.Rand, i int) string {
	words := []string{"the", "file", "test", "passes", "now", "build", "error", "in", "supervisor", "line", "fixed", "and", "then", "ran", "go", "vet", "again", "./...", "ok"}
	var b strings.Builder
	switch i % 7 {
	case 0:
		fmt.Fprintf(&b, "● Bash(go test ./pkg%d/...)", i%13)
	case 1:
		fmt.Fprintf(&b, "  ⎿  ok  \tswarm/pkg%d\t%d.%03ds", i%13, rng.IntN(9), rng.IntN(1000))
	case 5:
		fmt.Fprintf(&b, "@relay:bob step %d is done", i)
	default:
		for range 4 + rng.IntN(10) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
	}
	return b.String()
}
