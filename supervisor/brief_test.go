package supervisor

import (
	"strings"
	"testing"
	"time"

	"swarm/bus"
)

// briefOf returns the latest brief to agent on the bus.
func (h *harness) briefOf(agent string) (bus.Message, bool) {
	msgs, err := h.bus.Messages(h.t.Context(), 0, 1000)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Kind == bus.KindBrief && m.To == agent {
			return m, true
		}
	}
	return bus.Message{}, false
}

// What became of a brief is on the bus (`swarm log` shows its state, not
// "logged") and in the event stream: confirmed for an agent that took it,
// unconfirmed with the reason for one that never showed it; a brief left
// open by an earlier process is failed, never typed into the next one.
func TestWhatBecameOfABriefIsShown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	taker := scripted("taker", "listen", map[string]string{"LOG": h.path("taker.log")})
	taker.Brief = true
	// Reads lines without echoing them: the brief never shows.
	script := `stty -echo; echo ready; cat > /dev/null`
	mute := AgentConfig{Name: "mute", Argv: []string{"sh", "-c", script}, Cmd: script, Restart: RestartNever, Confirm: true, Brief: true}
	h.run(Options{Patience: 2 * time.Second}, taker, mute)

	h.waitFor("taker's brief confirmed", func() bool {
		m, ok := h.briefOf("taker")
		return ok && m.State() == bus.DeliveryConfirmed.String()
	})
	h.waitFor("mute's brief unconfirmed", func() bool {
		m, ok := h.briefOf("mute")
		return ok && m.State() == bus.DeliveryUnconfirmed.String()
	})
	m, _ := h.briefOf("mute")
	if d := m.Deliveries[0]; !strings.Contains(d.Error, "never showed") {
		t.Errorf("mute's brief: %+v", d)
	}
	h.waitFor("the UI told", func() bool {
		for _, ev := range h.eventsOf(EventUnconfirmed) {
			if ev.Agent == "mute" && ev.Message != nil && ev.Message.ID == m.ID && strings.HasPrefix(ev.Text, "its brief: ") {
				return true
			}
		}
		return false
	})
	for _, n := range h.eventsOf(EventMessage) {
		if n.Message != nil && n.Message.Kind == bus.KindNotice && n.Message.To == bus.Swarm {
			t.Errorf("a notice to swarm about its brief: %+v", n.Message)
		}
	}

	// A brief an earlier process never finished (swarm was killed) is
	// failed, not typed into this one.
	old, err := h.bus.Publish(t.Context(), bus.Message{From: bus.Swarm, To: "taker", Kind: bus.KindBrief, Body: "an old brief"})
	if err != nil {
		t.Fatal(err)
	}
	after := h.send(bus.Message{To: "taker", Body: "after the old brief"})
	h.waitFor("the message after it confirmed", func() bool { return h.deliveryOf(after.ID, "taker").State == bus.DeliveryConfirmed })
	if d := h.deliveryOf(old.ID, "taker"); d.State != bus.DeliveryFailed {
		t.Errorf("the old brief: %+v", d)
	}
	if strings.Contains(strings.Join(readLines(h.path("taker.log")), "\n"), "an old brief") {
		t.Error("the old brief was typed in")
	}
}
