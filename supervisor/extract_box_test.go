package supervisor

import (
	"fmt"
	"testing"

	"swarm/parser"
	"swarm/spawner"
)

// A command the live box read cut (its rows not yet all shown) and then
// showed whole goes out once, however much output follows: its cut
// reading is held no longer once the whole one went out. It was held, and
// went out again, cut, once the output had gone on past what the done box
// can show (boxReach).
func TestACommandTheLiveBoxSentIsNotSentAgainCut(t *testing.T) {
	t.Parallel()
	var b toolBox
	b.head("Shell Command sh f.sh", true)
	b.row(72, "", true, 0, false) // the box's head: output from line 74
	for n := int64(74); n <= 77; n++ {
		b.row(n, "│ x │", false, 0, false)
	}
	block := func(line int64, body string) parser.Event {
		return parser.Event{Command: &parser.Command{Kind: parser.KindRelay, To: "bob", Body: body, Line: line, FromBlock: true,
			Source: `[[RELAY]]{"to":"bob","body":"` + body + `"}[[/RELAY]]`}}
	}
	out := map[string]int{}
	take := func(ev parser.Event, by int64, whole bool) {
		if whole {
			b.follow(spawner.Line{N: ev.Command.Line}, true)
			for n := ev.Command.Line + 1; n <= by; n++ {
				b.follow(spawner.Line{N: n}, false)
			}
		} else {
			b.follow(spawner.Line{N: by}, true) // a new mapping since its start: not whole
		}
		for _, ev := range b.take([]parser.Event{ev}, spawner.Line{N: by}) {
			out[ev.Command.Body]++
		}
	}
	take(block(75, "cut"), 76, false)    // read across the box's slide: held
	take(block(75, "cut all"), 76, true) // shown whole: goes out
	if out["cut all"] != 1 || out["cut"] != 0 {
		t.Fatalf("after the whole reading: %v", out)
	}
	// Output goes on, each row shown, past what the done box can show
	// again, with commands shown whole in it.
	shown := int64(78)
	for k := int64(1); k <= 3; k++ {
		line := 75 + k*boxReach
		for ; shown <= line+1; shown++ {
			b.row(shown, "│ x │", false, 0, false)
		}
		take(block(line, fmt.Sprint(k)), line+1, true)
	}
	if out["cut"] != 0 {
		t.Errorf("the cut reading of a command sent whole went out too: %v", out)
	}
}
