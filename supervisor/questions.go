package supervisor

import (
	"context"
	"fmt"

	"swarm/bus"
)

// An agent asks the person by sending them a message (`@relay:human …`,
// `swarm send human …`, the send tool). The bus keeps it open in the
// person's mailbox until the person answers its author (any message from
// the person to that agent answers all it asked before) or dismisses it:
// meanwhile it is on the "needs you" list, with the question.

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
