package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/spawner"
)

// TestAScreenThatPanicsStaysInItsAgent: an agent whose screen's model
// panics on its output runs on, and so does the swarm: the two other
// agents relay to each other as ever, messages are still typed into it
// and confirmed, what it printed for others is not read (none of the
// output that panicked, none after), and the person is told once — a
// notice, `swarm status` (ScreenProblem), the panic and its stack in the
// agent's log.
func TestAScreenThatPanicsStaysInItsAgent(t *testing.T) {
	t.Parallel()
	const marker = "swarm-test-screen-panic"
	hook := func(p []byte) {
		if bytes.Contains(p, []byte(marker)) {
			panic("test: the screen model fails on " + marker)
		}
	}
	spawner.FaultForTest.Store(&hook)
	t.Cleanup(func() { spawner.FaultForTest.Store(nil) })
	const n = 20
	h := newHarness(t)
	h.run(Options{},
		scripted("bad", "say", map[string]string{"SAY": marker + "|@relay:b lost with the panic", "LOG": h.path("bad.log")}),
		scripted("b", "chat", map[string]string{"PEER": "c", "PREFIX": "b", "COUNT": fmt.Sprint(n), "LOG": h.path("b.log")}),
		scripted("c", "chat", map[string]string{"PEER": "b", "PREFIX": "c", "COUNT": fmt.Sprint(n), "LOG": h.path("c.log")}),
	)
	told := func() (k int) {
		for _, ev := range h.eventsOf(EventNotice) {
			if ev.Agent == "bad" && strings.Contains(ev.Text, "its screen failed") {
				k++
			}
		}
		return k
	}
	h.waitFor("the failure told", func() bool { return told() > 0 })
	in, _ := h.sup.Agent("bad")
	if in.State != StateRunning || in.ScreenProblem == "" {
		t.Errorf("bad is %s, its screen problem %q: want running, with the problem said", in.State, in.ScreenProblem)
	}
	logPath := LogPath(h.sup.busDir(), "bad")
	h.waitFor("the panic in bad's log", func() bool {
		b, _ := os.ReadFile(logPath)
		return bytes.Contains(b, []byte("the screen model fails on "+marker)) && bytes.Contains(b, []byte("contain_test.go"))
	})

	// The others relay to each other as ever.
	h.waitFor("b and c read each other's messages", func() bool {
		return len(unique(readLines(h.path("b.log")))) == n && len(unique(readLines(h.path("c.log")))) == n
	})
	// A message to the agent whose screen failed is typed in and read.
	m := h.send(bus.Message{From: "human", To: "bad", Body: "still there?"})
	h.waitFor("the message to bad confirmed", func() bool { return h.deliveryOf(m.ID, "bad").State == bus.DeliveryConfirmed })
	h.waitFor("bad read it", func() bool {
		got := readLines(h.path("bad.log"))
		return len(got) > 0 && strings.Contains(got[len(got)-1], "still there?")
	})
	msgs, err := h.bus.Messages(context.Background(), 0, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.From == "bad" {
			t.Errorf("bad's relay line read after its screen failed: %q", m.Body)
		}
	}
	if k := told(); k != 1 {
		t.Errorf("told %d times, want once", k)
	}
}
