package supervisor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"swarm/bus"
)

// echoHarness runs w, a program reading lines (the kernel echoes what is
// typed) that answers each "ping N" with script, which touches the file
// beganN once it printed the start of its answer, and lead, which only
// reads. It sends w n pings, each once the answer to the last began, and
// returns w's messages to lead once n came.
func echoHarness(t *testing.T, script string, n int) []string {
	t.Helper()
	h := newHarness(t)
	w := AgentConfig{Name: "w", Argv: []string{"sh", "-c", `while IFS= read -r line; do case "$line" in *"] ping "*) n=${line##* }; ` + script + `;; esac; done`},
		Env: map[string]string{"DIR": h.dir}, Restart: RestartNever, Confirm: true} // Quiet 0: typed in as soon as a frame is whole
	lead := AgentConfig{Name: "lead", Argv: []string{"sh", "-c", "while IFS= read -r l; do :; done"}, Restart: RestartNever, Confirm: true}
	h.run(Options{}, w, lead)
	h.waitFor("w running", func() bool { in, _ := h.sup.Agent("w"); return in.State == StateRunning })
	ctx := context.Background()
	for i := 1; i <= n; i++ {
		if i > 1 {
			h.waitFor(fmt.Sprintf("w's answer %d begun", i-1), func() bool {
				_, err := os.Stat(h.path(fmt.Sprintf("began%d", i-1)))
				return err == nil
			})
		}
		if _, err := h.sup.Send(ctx, bus.Message{To: "w", Body: fmt.Sprintf("ping %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	h.waitFor(fmt.Sprintf("%d answers of w", n), func() bool {
		msgs, err := h.bus.Messages(ctx, 0, 0)
		if err != nil {
			return false
		}
		got = got[:0]
		for _, m := range msgs {
			if m.From == "w" && m.To == "lead" {
				got = append(got, m.Body)
			}
		}
		return len(got) >= n
	})
	return got
}

// TestAnEchoInsideAnOutputLineIsNotPartOfIt: the kernel echoes a line
// typed into a program reading lines where the cursor is, inside an
// output line the program has not ended yet: `@relay:lead pong 1` and,
// before its newline, `[relay #… from human] ping 2`. That happens even
// to a line written at once (the kernel writes the text before the
// newline and the newline apart, and an echo may go between: a CI run
// lost a pong so, likely); here the program pauses a second before its
// newline. The echo is swarm's own text, not the program's: the relay is
// "pong 1".
func TestAnEchoInsideAnOutputLineIsNotPartOfIt(t *testing.T) {
	t.Parallel()
	const n = 3
	got := echoHarness(t, `printf '@relay:lead pong %s' "$n"; touch "$DIR/began$n"; sleep 1; echo`, n)
	if want := []string{"pong 1", "pong 2", "pong 3"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("w's relays: %q, want %q", got, want)
	}
}

// The line showing an echo is read without it even when the delivery has
// ended before the pump reads the line: a delivery is confirmed by the
// screen as soon as it shows the marker, and the pump, behind on a busy
// machine, reads the committed line later (the race detector's CI run
// read "pong 2[relay #… from human] ping 3" so). Only the first line
// showing an echo is cut; a later one is the program's.
func TestAnEchoIsCutFromItsLineAfterItsDeliveryEnded(t *testing.T) {
	a := &agent{markerHit: make(chan struct{}, 1)}
	for i, typed := range []string{"[relay #one from bob] ping 2", "# ping 3 -- [relay #two from bob]"} {
		marker := []string{"#one", "#two"}[i]
		a.expect(marker)
		a.expectEcho(typed, marker)
		a.expect("") // confirmed by the screen: the delivery ended
		for _, c := range []struct{ line, read string }{
			{"@relay:lead pong 1" + typed, "@relay:lead pong 1"},
			{"@relay:lead quoting " + typed, "@relay:lead quoting " + typed},
		} {
			if got := a.sawLine(c.line); got != c.read {
				t.Errorf("after typing %q, line %q read as %q, want %q", typed, c.line, got, c.read)
			}
		}
	}
	a.expect("#three")
	a.expectEcho("[relay #three from bob] hi", "#three")
	if got := a.sawLine("[relay #three from bob] hi"); got != "[relay #three from bob] hi" {
		t.Errorf("an echo on a line of its own read as %q", got)
	}
	if got := a.sawLine("@relay:lead x[relay #three from bob] hi"); got != "@relay:lead x[relay #three from bob] hi" {
		t.Errorf("a line after the echo read as %q: only the echo's own line is cut", got)
	}
}
