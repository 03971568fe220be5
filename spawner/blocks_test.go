package spawner

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzPackedRing: a packed ring reads back what a plain slice of the same
// records holds, through pushes, drops from the front, cuts from the end,
// clears and pauses (idle), records long and short, compressible or not.
func FuzzPackedRing(f *testing.F) {
	f.Add(uint64(1), uint16(3000))
	f.Add(uint64(2), uint16(40))
	f.Add(uint64(3), uint16(9000))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		var r packedRing
		var want [][]byte
		for step := range int(steps) {
			switch op := rng.IntN(100); {
			case op < 80:
				rec := record(rng, step)
				r.push(rec)
				want = append(want, rec)
			case op < 90 && len(want) > 0:
				k := rng.IntN(min(len(want), 300)) + 1
				for range k {
					r.dropOldest()
				}
				want = want[k:]
			case op < 97 && len(want) > 0:
				k := rng.IntN(min(len(want), 300)) + 1
				r.truncate(k)
				want = want[:len(want)-k]
			case op < 98:
				r.clear()
				want = nil
			case op < 99:
				r.idle()
			default: // reads at random, then in order
				for range 20 {
					if len(want) > 0 {
						i := rng.IntN(len(want))
						if got := r.at(i); !bytes.Equal(got, want[i]) {
							t.Fatalf("step %d: record %d of %d is %q, want %q", step, i, len(want), got, want[i])
						}
					}
				}
			}
			if r.len() != len(want) {
				t.Fatalf("step %d: %d records, want %d", step, r.len(), len(want))
			}
		}
		for i := range want {
			if got := r.at(i); !bytes.Equal(got, want[i]) {
				t.Fatalf("record %d of %d is %q, want %q", i, len(want), got, want[i])
			}
		}
	})
}

// record is a record of the kinds a ring holds: mostly a log line, some
// empty, some random bytes, now and then one longer than a block.
func record(rng *rand.Rand, i int) []byte {
	switch k := rng.IntN(100); {
	case k < 5:
		return nil
	case k < 15:
		b := make([]byte, rng.IntN(300))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		return b
	case k < 16:
		return bytes.Repeat([]byte(fmt.Sprintf("long %d ", i)), 3000)
	}
	return fmt.Appendf(nil, "%06d INFO worker-%d processed batch %d in %d ms", i, i%8, i, rng.IntN(1000))
}

// The rows of a scrollback read back as they were pushed, whatever they
// hold, and the oldest go first once it is full.
func TestHistoryKeepsRowsAsPushed(t *testing.T) {
	h := history{max: 1500}
	var want []histLine
	for i := range 4000 {
		l := histLine{text: fmt.Sprintf("row %d %s", i, strings.Repeat("x", i%90)), cols: uint16(80 + i%3), end: uint16(i % 80)}
		switch i % 5 {
		case 1:
			l.runs, l.shown = []styleRun{{off: 0, style: 3}, {off: 4, style: 0}, {off: uint32(len(l.text) - 1), style: 4095}}, uint32(len(l.text))
		case 2:
			l.styled = "\x1b]8;;http://x\x07" + l.text + "\x1b]8;;\x07"
		case 3:
			l.wrapped = true
		case 4:
			l.wrapped, l.pad = true, true
		}
		h.push(l)
		want = append(want, l)
	}
	want = want[len(want)-1500:]
	if h.len() != len(want) {
		t.Fatalf("%d rows, want %d", h.len(), len(want))
	}
	for i := range want {
		if d := cmp.Diff(want[i], *h.at(i), cmp.AllowUnexported(histLine{}, styleRun{})); d != "" {
			t.Fatalf("row %d (-pushed +read):\n%s", i, d)
		}
	}
	back := h.popNewest(700)
	if d := cmp.Diff(want[len(want)-700:], back, cmp.AllowUnexported(histLine{}, styleRun{})); d != "" {
		t.Fatalf("popped rows (-pushed +popped):\n%s", d)
	}
	if h.len() != 800 || h.at(799).text != want[799].text {
		t.Fatalf("after popping: %d rows, the newest %q", h.len(), h.at(h.len()-1).text)
	}
	// Packed and compressed, the rows take far less than Go strings and
	// slices would (~140 bytes each for these).
	if b := h.rows.bytes(); b > 800*60 {
		t.Errorf("800 rows take %d bytes", b)
	}
}

// A ring whose stream paused gives back its open block's room and keeps
// its records; pushes go on after, and a read begun before reads on.
func TestAnIdleRingLetsGoOfItsOpenBlocksRoom(t *testing.T) {
	var r packedRing
	var want [][]byte
	for i := range 3 {
		rec := fmt.Appendf(nil, "line %d", i)
		r.push(rec)
		want = append(want, rec)
	}
	if got := r.bytes(); got < packedBlockSize {
		t.Fatalf("an open block holds %d bytes, want a block's room", got)
	}
	_ = r.at(1) // the read is left in the open block
	r.idle()
	if got := r.bytes(); got > 64 {
		t.Errorf("after idle the ring holds %d bytes for 3 short records", got)
	}
	for i := range want {
		if got := r.at(i); !bytes.Equal(got, want[i]) {
			t.Fatalf("after idle record %d is %q, want %q", i, got, want[i])
		}
	}
	r.idle() // nothing to give back
	for i := range 2000 {
		rec := fmt.Appendf(nil, "%06d INFO worker processed batch %d", i, i)
		r.push(rec)
		want = append(want, rec)
	}
	for i := range want {
		if got := r.at(i); !bytes.Equal(got, want[i]) {
			t.Fatalf("record %d is %q, want %q", i, got, want[i])
		}
	}
}

// A screen whose output paused holds its rings' records, not a block's
// room for each (Settle).
func TestASettledScreenHoldsNoRoomInItsRings(t *testing.T) {
	s := NewScreen(ScreenOptions{Rows: 24, Cols: 80, Scrollback: 2000})
	defer s.Close()
	for i := range 30 {
		fmt.Fprintf(s, "$ echo %d\r\n%d\r\n", i, i)
	}
	s.TakeLines()
	if s.hist.len() == 0 || s.lines.replay.seen.len() == 0 {
		t.Fatalf("%d rows in the scrollback, %d lines in the replay's ring", s.hist.len(), s.lines.replay.seen.len())
	}
	s.Settle()
	if got := s.hist.rows.bytes() + s.lines.replay.seen.bytes(); got > 2048 {
		t.Errorf("the settled screen's rings hold %d bytes for %d rows and %d lines", got, s.hist.len(), s.lines.replay.seen.len())
	}
}
