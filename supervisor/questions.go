package supervisor

import (
	"context"
	"fmt"

	"swarm/bus"
	"swarm/textsafe"
)

// An agent asks the person by sending them a message (`@relay:human …`,
// `swarm send human …`, the send tool). The bus keeps it open in the
// person's mailbox until the person answers its author (any message from
// the person to that agent answers all it asked before) or dismisses it:
// meanwhile it is on the "needs you" list, with the question.

// questionShown bounds a question's text on the list: the list is one
// line per item; the whole message is in the log and the inbox.
const questionShown = 200

// questionNeed is an open question as an item of the "needs you" list.
func questionNeed(m bus.Message) Attention {
	q := textsafe.Words(m.Shown())
	if r := []rune(q); len(r) > questionShown {
		q = string(r[:questionShown-1]) + "…"
	}
	return Attention{Kind: AttentionQuestion, Agent: m.From, Message: m.ID, Question: q,
		Text: fmt.Sprintf("%s asks: %s", textsafe.Words(m.From), q)}
}

// Dismiss closes a question to the person without an answer: it leaves
// the "needs you" list. An answer (Send to its author) closes it too.
func (s *Supervisor) Dismiss(ctx context.Context, id string) error {
	m, err := s.bus.Message(ctx, id)
	if err != nil {
		return err
	}
	if err := s.bus.MarkConfirmed(ctx, m.ID, bus.Human); err != nil {
		return fmt.Errorf("dismiss #%s: %w", bus.ShortID(m.ID), err)
	}
	// Every UI reads what needs the person again.
	s.hub.emit(Event{Kind: EventDelivered, Agent: bus.Human, Message: &m})
	return nil
}
