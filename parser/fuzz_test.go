package parser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// heldBytes is the memory the parser holds for unfinished commands.
func (p *Parser) heldBytes() int {
	return len(p.held.src) + len(p.held.first) + len(p.blk.buf)
}

// FuzzParser feeds arbitrary text as lines (a line starting with NUL leaves
// a gap in the numbering) with a small MaxBlock taken from the input, and
// checks that the parser does not panic, holds no more than MaxBlock plus
// one line, and emits only well-formed events, under the layout options
// the low bits of that size turn on.
func FuzzParser(f *testing.F) {
	seeds := []string{
		"@relay:bob hi\n⏺ @relay:carol a\n  b\n\n```\n@relay:x hidden\n```\n",
		"[[RELAY]]\n{\"to\":\"bob\",\"body\":\"a [[/RELAY]] b\"}\n[[/RELAY]]\n@relay:bob next",
		"⏺ [[RELAY]]\n  {\"to\":\"bob\",\"body\":\"wrapped\n  string\"}\n  [[/RELAY]]",
		"[[RELAY]]\n{\"to\":\"bob\",\n\"body\":\"" + strings.Repeat("x", 300) + "\"}\n[[/RELAY]]\n@relay:bob after",
		"[[RELAY]]{\"to\":\"swarm\",\"type\":\"task_done\",\"data\":{\"a\":[1,2]}}[[/RELAY]]",
		"│ > @relay:bob boxed │\n\\@relay:bob escaped\n\x1b[1m@relay:bob bold\x1b[0m\n\x00\n  more",
		"````\n```\n@relay:bob\n````\n~~~\n[[RELAY]]\n",
		"[[RELAY]]\n{\"to\":\"bob\"\n@relay:bob recover\n[[RELAY]]\n",
		"  ┃  @relay:bob C:\\\n  ┃  path 北京\n  ┃  测试…\n  ┃  [[RELAY]]\n  ┃  {\"to\":\"bob\",\"body\":\"cut…\n  ┃  @relay:al…",
	}
	for _, s := range seeds {
		f.Add(uint8(64), s)
		f.Add(uint8(0), s)
		f.Add(uint8(15), s) // every layout option
	}
	f.Fuzz(func(t *testing.T, size uint8, input string) {
		opts := Options{MaxBlock: int(size)*4 + 8, LossyBoxes: size&1 != 0, BreaksWideRuns: size&2 != 0,
			BreaksAfterPunctuation: size&4 != 0, CutsRows: size&8 != 0}
		p := New(opts)
		n := int64(0)
		longest := 0
		check := func(evs []Event, last int64) {
			for _, e := range evs {
				if (e.Command == nil) == (e.Err == nil) {
					t.Fatalf("event with command %v and error %v", e.Command, e.Err)
				}
				if e.Command != nil {
					c := e.Command
					if !ValidTarget(c.To) || c.Type == "" || c.Line < 1 || c.Line > last {
						t.Fatalf("bad command %+v", c)
					}
					if c.Type == "message" && c.Body == "" && c.Data == nil {
						t.Fatalf("empty message %+v", c)
					}
					if c.Data != nil && !json.Valid(c.Data) {
						t.Fatalf("invalid data %q", c.Data)
					}
				} else if e.Err.Reason == "" || e.Err.Err == nil || e.Err.Line < 1 || e.Err.Line > last {
					t.Fatalf("bad error %+v", e.Err)
				}
				b, err := e.MarshalJSON()
				if err != nil || !json.Valid(b) {
					t.Fatalf("MarshalJSON = %q, %v", b, err)
				}
			}
		}
		for line := range strings.SplitSeq(input, "\n") {
			n++
			if strings.HasPrefix(line, "\x00") {
				n++
			}
			// One line as the parser holds it: cleaned, each byte of
			// invalid UTF-8 read as U+FFFD (three bytes).
			longest = max(longest, len(clean(line)))
			check(p.Feed(n, line), n)
			if held := p.heldBytes(); held > opts.MaxBlock+len(blockOpen)+longest {
				t.Fatalf("holding %d bytes, MaxBlock %d, longest line %d", held, opts.MaxBlock, longest)
			}
		}
		check(p.Flush(), n)
		if p.Pending() || p.heldBytes() != 0 {
			t.Fatalf("after Flush: Pending %v, holding %d bytes", p.Pending(), p.heldBytes())
		}
	})
}

// TestOversizedBoundedMemory: a block or bullet command far over MaxBlock is
// skipped without being buffered, and parsing goes on after it.
func TestOversizedBoundedMemory(t *testing.T) {
	row := `"` + strings.Repeat("x", 98) + `",`
	p := New(Options{}) // 1 MiB
	n := int64(1)
	var evs []Event
	evs = append(evs, p.Feed(n, `[[RELAY]]{"to":"bob","body":"big","data":[`)...)
	for range 40_000 { // about 4 MB
		n++
		evs = append(evs, p.Feed(n, row)...)
		if held := p.heldBytes(); held > DefaultMaxBlock+len(blockOpen)+len(row) {
			t.Fatalf("holding %d bytes after line %d", held, n)
		}
	}
	evs = append(evs, p.Feed(n+1, `"end"]}`)...)
	evs = append(evs, p.Feed(n+2, "[[/RELAY]]")...)
	evs = append(evs, p.Feed(n+3, "⏺ @relay:bob "+strings.Repeat("y", 100))...)
	for i := range 20_000 { // about 2 MB of continuation rows
		evs = append(evs, p.Feed(n+4+int64(i), "  "+strings.Repeat("z", 100))...)
		if held := p.heldBytes(); held > DefaultMaxBlock+200 {
			t.Fatalf("holding %d bytes in a bullet command", held)
		}
	}
	evs = append(evs, p.Feed(n+30_000, "@relay:bob after")...)
	evs = append(evs, p.Flush()...)
	var got []string
	for _, e := range evs {
		got = append(got, describe(e))
	}
	want := []string{"error ErrTooLarge @1", fmt.Sprintf("error ErrTooLarge @%d", n+3), fmt.Sprintf(`relay bob "after" @%d`, n+30_000)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
}
