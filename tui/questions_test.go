package tui

import (
	"context"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/swarmapi"
)

// An agent asking the person (a message to human) needs them: it is
// counted, announced, shown on the agent list and by !; s answers it,
// with the question shown, and the answer goes to the asker; D dismisses
// one. Either way it leaves the list.
func TestAQuestionToThePersonNeedsThem(t *testing.T) {
	sw := scenario(t) // carol gave up: one thing needs the person
	h := newHarness(t, sw, 120, 30, Options{Bell: true, Desktop: true})
	requireContains(t, h.screen(), "⚑ 1")
	ctx := context.Background()
	asked, err := sw.b.Publish(ctx, bus.Message{From: "bob", To: bus.Human, Body: "please decide: tabs or spaces?"})
	if err != nil {
		t.Fatal(err)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventMessage, Message: &asked, Agent: "bob"}})
	screen := h.screen()
	requireContains(t, screen, "⚑ 2", "? please decide") // the count; under bob on the list
	joined := strings.Join(h.raw, "")
	if !strings.Contains(joined, "\a") || !strings.Contains(joined, "\x1b]9;swarm: bob asks: please decide: tabs or spaces?\a") {
		t.Errorf("the question was not announced: %q", h.raw)
	}

	// ! shows it and selects the asker; s answers it.
	h.press(h.m.keys.NextNeed) // carol
	h.press(h.m.keys.NextNeed)
	requireContains(t, h.screen(), "2/2: bob asks: please decide: tabs or spaces? — s answers, D dismisses")
	h.press(h.m.keys.Send)
	requireContains(t, h.screen(), "Answer bob", "bob asks: please decide: tabs or spaces?", "to: bob")
	h.typeText("tabs")
	h.press(h.m.keys.Submit)
	if h.m.Mode() == ModeDialog {
		t.Fatalf("the answer was not sent:\n%s", h.screen())
	}
	inbox, err := sw.b.Inbox(ctx, "bob", 0)
	if err != nil {
		t.Fatal(err)
	}
	answer := inbox[len(inbox)-1]
	if answer.From != bus.Human || answer.To != "bob" || answer.Body != "tabs" || answer.InReplyTo != asked.ID {
		t.Fatalf("bob's last message: %+v", answer)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventMessage, Message: &answer, Agent: bus.Human}})
	requireContains(t, h.screen(), "⚑ 1")
	if strings.Contains(h.screen(), "tabs or spaces") {
		t.Errorf("the answered question is still shown:\n%s", h.screen())
	}

	// Another, dismissed with D on the asker's pane.
	again, err := sw.b.Publish(ctx, bus.Message{From: "alice", To: bus.Human, Body: "done: shall I push?"})
	if err != nil {
		t.Fatal(err)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventMessage, Message: &again, Agent: "alice"}})
	requireContains(t, h.screen(), "⚑ 2", "? done: shall I")
	h.press(h.m.keys.Dismiss) // bob is selected: he asks nothing now
	requireContains(t, h.screen(), "bob has asked you nothing")
	h.press(h.m.keys.Prev)
	if h.m.selected != "alice" {
		t.Fatalf("selected %q", h.m.selected)
	}
	h.press(h.m.keys.Dismiss)
	requireContains(t, h.screen(), "dismissed alice's question: done: shall I push?")
	// The swarm says so (Supervisor.Dismiss), as a delivery to the person.
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventDelivered, Message: &again, Agent: bus.Human}})
	requireContains(t, h.screen(), "⚑ 1")
	if open, err := sw.b.Pending(ctx, bus.Human, 0); err != nil || len(open) != 0 {
		t.Errorf("open questions after the dismissal: %v (%v)", open, err)
	}
}
