package bus

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Publish stores m and its deliveries in one transaction and returns the
// stored message with ID, Seq, Time and Deliveries set. An empty ID gets a
// new UUIDv7; an ID that is already stored makes Publish a no-op returning
// the stored message.
func (b *Bus) Publish(ctx context.Context, m Message) (Message, error) {
	out, err := b.PublishBatch(ctx, []Message{m})
	if err != nil {
		return Message{}, err
	}
	return out[0], nil
}

// PublishBatch publishes msgs in one transaction: all are stored or none.
// The result is in the order of msgs; each entry is as Publish returns it.
func (b *Bus) PublishBatch(ctx context.Context, msgs []Message) ([]Message, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	now := fromMS(ms(time.Now())) // the precision stored, so results equal later reads
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if err := b.prepare(&m, now); err != nil {
			return nil, err
		}
		out[i] = m
	}
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		return true, b.insert(ctx, tx, out, now)
	})
	if err != nil {
		if len(out) == 1 {
			return nil, fmt.Errorf("publish %s: %w", out[0].ID, err)
		}
		return nil, fmt.Errorf("publish %d messages: %w", len(out), err)
	}
	return out, nil
}

// prepare validates m, fills defaults and moves a large body to a blob.
// A blob written for a message whose transaction then fails is left
// behind; it is harmless and reused if the same body is published again.
func (b *Bus) prepare(m *Message, now time.Time) error {
	m.Seq, m.Deliveries, m.PayloadRef = 0, nil, ""
	// Errors name the caller's id if it chose one, else the recipient.
	label := fmt.Sprintf("message to %q", m.To)
	if m.ID != "" {
		label = m.ID
	}
	if len(m.ID) > 128 || strings.TrimSpace(m.ID) != m.ID {
		return fmt.Errorf("publish %q: %w: id must be at most 128 characters without surrounding spaces", m.ID, ErrInvalidMessage)
	}
	if m.From == "" || m.From == Everyone || !validParty(m.From) {
		return fmt.Errorf("publish %s: %w: sender %q is not a valid name", label, ErrInvalidMessage, m.From)
	}
	if m.To == "" {
		return fmt.Errorf("publish %s: %w: no recipient", label, ErrInvalidMessage)
	}
	if len(m.Data) > 0 {
		if !json.Valid(m.Data) {
			var v any
			detail := json.Unmarshal(m.Data, &v)
			return fmt.Errorf("publish %s: %w: %v", label, ErrInvalidData, detail)
		}
	} else {
		m.Data = nil
	}
	if m.TTL < 0 {
		return fmt.Errorf("publish %s: %w: negative TTL", label, ErrInvalidMessage)
	}
	if m.Kind == "" {
		m.Kind = KindMessage
	}
	if err := CheckKind(m.Kind); err != nil {
		return fmt.Errorf("publish %s: %w", label, err)
	}
	if m.ID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return fmt.Errorf("publish %s: new id: %w", label, err)
		}
		m.ID = id.String()
	}
	if m.Time.IsZero() {
		m.Time = now
	}
	m.Time = fromMS(ms(m.Time))
	if len(m.Body) > bodyInlineMax {
		ref, err := b.writeBlob([]byte(m.Body))
		if err != nil {
			return fmt.Errorf("publish %s: %w", label, err)
		}
		m.PayloadRef = ref
	}
	return nil
}

// insert stores prepared messages with their deliveries and any failure
// notices, inside tx. Messages whose id is already stored are replaced by
// the stored version. Seqs are assigned here as MAX(seq)+1 onwards, which
// is safe because tx holds the database's write lock; knowing them up front
// lets messages and deliveries go in as multi-row INSERTs, several times
// faster than one statement per row.
func (b *Bus) insert(ctx context.Context, tx querier, msgs []Message, now time.Time) error {
	stored, next, agents, err := b.lookup(ctx, msgs)
	if err != nil {
		return err
	}
	var mrows []*Message
	var drows []deliveryRow
	add := func(m *Message) {
		next++
		m.Seq = next
		mrows = append(mrows, m)
		if m.LogOnly {
			return
		}
		m.Deliveries = resolve(m.ID, m.From, m.To, agents, now)
		for _, d := range m.Deliveries {
			drows = append(drows, deliveryRow{m.Seq, d})
		}
	}
	first := map[string]int{} // id → index in msgs of its first occurrence
	for i := range msgs {
		m := &msgs[i]
		if _, ok := stored[m.ID]; ok {
			continue
		}
		if _, ok := first[m.ID]; ok {
			continue
		}
		first[m.ID] = i
		add(m)
		for _, d := range m.Deliveries {
			if d.State != DeliveryFailed {
				continue
			}
			if n, ok := deliveryNotice(*m, d.Recipient, DeliveryFailed, d.Error); ok {
				if err := b.prepare(&n, now); err != nil {
					return err
				}
				add(&n)
			}
		}
	}
	err = b.execRows(ctx, b.st.insMsg, len(mrows), func(args []driver.NamedValue, i int) []driver.NamedValue {
		return mrows[i].appendArgs(args)
	})
	if err != nil {
		return err
	}
	err = b.execRows(ctx, b.st.insDel, len(drows), func(args []driver.NamedValue, i int) []driver.NamedValue {
		r := drows[i]
		return appendArgs(args, r.seq, r.d.Recipient, r.d.State.String(), r.d.State.open(), ms(r.d.Updated), r.d.Error)
	})
	if err != nil {
		return err
	}
	for _, m := range mrows {
		if err := answered(ctx, tx, m, now); err != nil {
			return err
		}
	}
	for i := range msgs {
		m := &msgs[i]
		if _, ok := stored[m.ID]; ok {
			s, err := b.messageByID(ctx, tx, m.ID)
			if err != nil {
				return err
			}
			*m = s
		} else if j := first[m.ID]; j != i {
			*m = msgs[j]
			m.Deliveries = append([]Delivery(nil), msgs[j].Deliveries...)
		}
	}
	return nil
}

// answered closes what the person's message m answers: a message from
// the person to an agent answers every question that agent has put to the
// person before it (the person's open deliveries of its messages).
func answered(ctx context.Context, tx querier, m *Message, now time.Time) error {
	if m.From != Human || m.To == Swarm || m.To == Human || m.To == Everyone || len(m.Deliveries) != 1 || m.Deliveries[0].State == DeliveryFailed {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?1, open = 0, updated_ms = ?2
		WHERE recipient = ?3 AND open = 1 AND seq < ?4 AND seq IN (SELECT seq FROM messages WHERE from_name = ?5)`,
		DeliveryConfirmed.String(), ms(now), Human, m.Seq, m.To)
	return err
}

// recipientStatus is whether a registered agent takes messages.
type recipientStatus int

const (
	recipientActive recipientStatus = iota
	recipientRemoved
	recipientNoMessages
)

// lookup returns which of msgs' ids are already stored, the largest seq
// and the registered agents with their recipientStatus.
func (b *Bus) lookup(ctx context.Context, msgs []Message) (stored map[string]bool, maxSeq int64, agents map[string]recipientStatus, err error) {
	st, arg := b.st.lookup1, msgs[0].ID
	if len(msgs) > 1 {
		ids := make([]string, len(msgs))
		for i, m := range msgs {
			ids[i] = m.ID
		}
		js, err := json.Marshal(ids)
		if err != nil {
			return nil, 0, nil, err
		}
		st, arg = b.st.lookup, string(js)
	}
	rows, err := st.QueryContext(ctx, arg)
	if err != nil {
		return nil, 0, nil, err
	}
	defer rows.Close()
	stored, agents = map[string]bool{}, map[string]recipientStatus{}
	for rows.Next() {
		var kind int
		var name string
		var seq int64
		if err := rows.Scan(&kind, &name, &seq); err != nil {
			return nil, 0, nil, err
		}
		switch kind {
		case 0:
			stored[name] = true
		case 1:
			maxSeq = seq
		case 2:
			agents[name] = recipientStatus(seq)
		}
	}
	return stored, maxSeq, agents, rows.Err()
}

// deliveryRow is a delivery waiting to be inserted for message seq.
type deliveryRow struct {
	seq int64
	d   Delivery
}

// appendArgs appends m's column values in the order of the messages
// INSERT. Only driver.Value types (int64, not int): they go to the driver
// without database/sql's conversion.
func (m *Message) appendArgs(args []driver.NamedValue) []driver.NamedValue {
	body := m.Body
	if m.PayloadRef != "" {
		body = ""
	}
	var data any
	if m.Data != nil {
		data = string(m.Data)
	}
	return appendArgs(args, m.Seq, m.ID, ShortID(m.ID), ms(m.Time), m.From, m.To, m.Topic, string(m.Kind), body, data,
		m.CorrelationID, m.InReplyTo, int64(m.Priority), m.TTL.Milliseconds(), m.PayloadRef, m.LogOnly)
}

// appendArgs appends values as positional arguments.
func appendArgs(args []driver.NamedValue, values ...any) []driver.NamedValue {
	for _, v := range values {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	return args
}

// resolve decides the deliveries of a new message (see the package doc).
func resolve(id, from, to string, agents map[string]recipientStatus, now time.Time) []Delivery {
	d := func(r string, s DeliveryState, e string) Delivery {
		return Delivery{MessageID: id, Recipient: r, State: s, Updated: now, Error: e}
	}
	status, known := agents[to]
	switch {
	case to == Human && from != Swarm && from != Human:
		// An agent asking the person: open until the person answers it
		// (answered) or dismisses it (MarkConfirmed).
		return []Delivery{d(Human, DeliveryQueued, "")}
	case to == Human:
		return []Delivery{d(Human, DeliveryConfirmed, "")}
	case to == Swarm:
		return []Delivery{d(Swarm, DeliveryQueued, "")}
	case to == Everyone:
		names := make([]string, 0, len(agents))
		for n, st := range agents {
			if st == recipientActive && n != from {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		out := make([]Delivery, len(names))
		for i, n := range names {
			out[i] = d(n, DeliveryQueued, "")
		}
		return out
	case known && status == recipientActive:
		return []Delivery{d(to, DeliveryQueued, "")}
	case known && status == recipientNoMessages:
		return []Delivery{d(to, DeliveryFailed, takesNoMessages(to))}
	case known:
		return []Delivery{d(to, DeliveryFailed, fmt.Sprintf("agent %q was removed: it is not in this swarm's config", to))}
	case !WellFormedName(to):
		return []Delivery{d(to, DeliveryFailed, fmt.Sprintf("invalid agent name %q", to))}
	default:
		return []Delivery{d(to, DeliveryFailed, fmt.Sprintf("unknown agent %q", to))}
	}
}

// IsDeliveryNotice says whether m is swarm's notice to an author that a
// delivery of theirs to another agent failed or went unconfirmed
// (deliveryNotice): what the author may read at leisure. A command to
// swarm itself that was refused is not one: its notice is the command's
// answer.
func IsDeliveryNotice(m Message) bool {
	if m.From != Swarm || m.Kind != KindNotice || m.InReplyTo == "" {
		return false
	}
	var d struct {
		MessageID string `json:"message_id"`
		Recipient string `json:"recipient"`
		State     string `json:"state"`
	}
	return json.Unmarshal(m.Data, &d) == nil && d.MessageID == m.InReplyTo && d.State != "" && d.Recipient != Swarm
}

// DeliveryNoticeLines words notices to one author (IsDeliveryNotice) as
// the lines typed in for it: one line for all the notices about its
// messages to one recipient that ended the same way for the same reason,
// so that six messages to a removed agent cost one line, not six.
func DeliveryNoticeLines(notices []Message) []string {
	type key struct {
		recipient, state, reason string
		alone                    int // 1 + the index of a notice not to group
	}
	type group struct {
		body string // the notice's own, when it is alone
		ids  []string
	}
	var (
		order  []key
		groups = map[key]*group{}
		lines  []string
	)
	for i, n := range notices {
		var d struct {
			MessageID string `json:"message_id"`
			Recipient string `json:"recipient"`
			State     string `json:"state"`
			Reason    string `json:"reason"`
		}
		k := key{alone: i + 1} // not one to group: as it is
		if json.Unmarshal(n.Data, &d) == nil && d.MessageID != "" {
			k = key{recipient: d.Recipient, state: d.State, reason: d.Reason}
		}
		g := groups[k]
		if g == nil {
			g = &group{body: n.Body}
			groups[k] = g
			order = append(order, k)
		}
		g.ids = append(g.ids, "#"+ShortID(d.MessageID))
	}
	for _, k := range order {
		g := groups[k]
		if len(g.ids) == 1 {
			lines = append(lines, g.body)
			continue
		}
		what := "failed"
		if k.state == DeliveryUnconfirmed.String() {
			what = "were typed in but not confirmed"
		}
		lines = append(lines, fmt.Sprintf("messages %s to %s %s: %s", strings.Join(g.ids, ", "), k.recipient, what, k.reason))
	}
	return lines
}

// deliveryNotice is the notice that tells m's author that the delivery to
// recipient failed or went unconfirmed. None goes to swarm about its own
// messages: swarm is no inbox (a notice to it would be taken as a control
// message and refused), a failure can never cascade, and the UI shows the
// failed delivery itself.
func deliveryNotice(m Message, recipient string, state DeliveryState, reason string) (Message, bool) {
	if m.From == Swarm {
		return Message{}, false
	}
	what := "failed"
	if state == DeliveryUnconfirmed {
		what = "was typed in but not confirmed"
	}
	data, _ := json.Marshal(map[string]string{"message_id": m.ID, "recipient": recipient, "state": state.String(), "reason": reason})
	return Message{
		From:          Swarm,
		To:            m.From,
		Kind:          KindNotice,
		Body:          fmt.Sprintf("message #%s to %s %s: %s", ShortID(m.ID), recipient, what, reason),
		Data:          data,
		InReplyTo:     m.ID,
		CorrelationID: m.CorrelationID,
	}, true
}
