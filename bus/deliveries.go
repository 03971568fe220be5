package bus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DeliveryState is where one message stands with one recipient.
type DeliveryState int

// Delivery states. Queued and Injected are open (the message is pending);
// the others are final.
const (
	DeliveryQueued    DeliveryState = iota // stored, not yet typed into the recipient
	DeliveryInjected                       // typed in, confirmation not seen yet
	DeliveryConfirmed                      // the recipient has it
	DeliveryFailed                         // gave up (unknown recipient, retries exhausted, …); the author was told
	DeliveryExpired                        // TTL passed before confirmation
	// DeliveryUnconfirmed: typed in and submitted, but the recipient showed
	// no sign of taking it (it may still have); the author was told. It is
	// final: typing it again could deliver it twice.
	DeliveryUnconfirmed
)

var deliveryStateNames = [...]string{"queued", "injected", "confirmed", "failed", "expired", "unconfirmed"}

// String returns "queued", "injected", "confirmed", "failed", "expired"
// or "unconfirmed".
func (s DeliveryState) String() string {
	if s < 0 || int(s) >= len(deliveryStateNames) {
		return fmt.Sprintf("DeliveryState(%d)", int(s))
	}
	return deliveryStateNames[s]
}

// open is the stored "open" flag: 1 while the message is pending.
func (s DeliveryState) open() int64 {
	if s == DeliveryQueued || s == DeliveryInjected {
		return 1
	}
	return 0
}

// Undelivered reports whether the delivery ended without the recipient
// being seen to take the message (failed, expired or unconfirmed): its
// Error says why.
func (s DeliveryState) Undelivered() bool {
	return s == DeliveryFailed || s == DeliveryExpired || s == DeliveryUnconfirmed
}

// ParseDeliveryState is the inverse of DeliveryState.String.
func ParseDeliveryState(s string) (DeliveryState, error) {
	for i, n := range deliveryStateNames {
		if n == s {
			return DeliveryState(i), nil
		}
	}
	return 0, fmt.Errorf("unknown delivery state %q", s)
}

// Delivery is the state of one message for one recipient.
type Delivery struct {
	MessageID string
	Recipient string
	State     DeliveryState
	Attempts  int // how many times it was injected
	Updated   time.Time
	Error     string // why it failed
}

// scanDelivery reads seq, recipient, state, attempts, updated_ms, error.
func scanDelivery(s scanner, seq *int64) (Delivery, error) {
	var d Delivery
	var state string
	var updated int64
	if err := s.Scan(seq, &d.Recipient, &state, &d.Attempts, &updated, &d.Error); err != nil {
		return Delivery{}, err
	}
	st, err := ParseDeliveryState(state)
	if err != nil {
		return Delivery{}, err
	}
	d.State, d.Updated = st, fromMS(updated)
	return d, nil
}

// Pending returns up to limit messages waiting for recipient (queued or
// injected, not yet confirmed) in seq order, each with only recipient's
// delivery in Deliveries. Messages whose TTL has passed are marked expired
// and skipped. limit <= 0 means all.
func (b *Bus) Pending(ctx context.Context, recipient string, limit int) ([]Message, error) {
	var out []Message
	after := int64(0)
	for {
		want := limit - len(out)
		if limit <= 0 {
			want = -1
		}
		// One query, so no read transaction is needed for a consistent view.
		page, err := b.pendingPage(ctx, recipient, after, want)
		if err != nil {
			return nil, fmt.Errorf("pending for %s: %w", recipient, err)
		}
		now := time.Now()
		var expired []Message
		for _, m := range page {
			if m.TTL > 0 && !now.Before(m.Time.Add(m.TTL)) {
				expired = append(expired, m)
				continue
			}
			out = append(out, m)
		}
		if len(expired) == 0 || len(page) == 0 {
			return out, nil
		}
		if err := b.expire(ctx, recipient, expired, now); err != nil {
			return nil, fmt.Errorf("pending for %s: %w", recipient, err)
		}
		after = page[len(page)-1].Seq
		if limit > 0 && len(out) >= limit {
			return out, nil
		}
	}
}

// pendingPage returns up to limit (-1: all) open deliveries to recipient
// after seq after, with their messages.
func (b *Bus) pendingPage(ctx context.Context, recipient string, after int64, limit int) ([]Message, error) {
	rows, err := b.st.pending.QueryContext(ctx, recipient, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []Message
	for (limit < 0 || len(page) < limit) && rows.Next() {
		var d Delivery
		var state string
		var updated int64
		m, err := b.scanMessage(rows, &d.Recipient, &state, &d.Attempts, &updated, &d.Error)
		if err != nil {
			return nil, err
		}
		if d.State, err = ParseDeliveryState(state); err != nil {
			return nil, err
		}
		d.MessageID, d.Updated = m.ID, fromMS(updated)
		m.Deliveries = []Delivery{d}
		page = append(page, m)
	}
	return page, rows.Err()
}

// expire marks recipient's open deliveries of ms expired.
func (b *Bus) expire(ctx context.Context, recipient string, msgs []Message, now time.Time) error {
	return b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		for _, m := range msgs {
			if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = 'expired', open = 0, updated_ms = ?, error = 'expired'
				WHERE seq = ? AND recipient = ? AND open = 1`, ms(now), m.Seq, recipient); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// MarkInjected records that msgID was typed into recipient's terminal:
// the delivery becomes injected and its attempt count grows by one.
func (b *Bus) MarkInjected(ctx context.Context, msgID, recipient string) error {
	return b.markDelivery(ctx, msgID, recipient, DeliveryInjected, "")
}

// MarkConfirmed records that recipient has msgID. Confirming twice is a
// no-op.
func (b *Bus) MarkConfirmed(ctx context.Context, msgID, recipient string) error {
	return b.markDelivery(ctx, msgID, recipient, DeliveryConfirmed, "")
}

// MarkFailed gives up delivering msgID to recipient and, in the same
// transaction, queues a notice from swarm to the author naming the
// recipient and reason. Failing twice is a no-op.
func (b *Bus) MarkFailed(ctx context.Context, msgID, recipient, reason string) error {
	return b.markDelivery(ctx, msgID, recipient, DeliveryFailed, reason)
}

// MarkUnconfirmed records that msgID was typed into recipient and
// submitted but never seen taken, and, in the same transaction, tells the
// author so, with the reason. It is final: the message is not typed again.
func (b *Bus) MarkUnconfirmed(ctx context.Context, msgID, recipient, reason string) error {
	return b.markDelivery(ctx, msgID, recipient, DeliveryUnconfirmed, reason)
}

// Requeue reopens a confirmed delivery: the recipient's process ended
// without reading the message, or so soon after it showed on its screen
// that it may not have. The message becomes pending again (at least once:
// it may arrive twice). Deliveries in any other state are left as they
// are.
func (b *Bus) Requeue(ctx context.Context, msgID, recipient string) error {
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?, open = ?, updated_ms = ?, error = ''
			WHERE recipient = ? AND state = ? AND seq = (SELECT seq FROM messages WHERE id = ?)`,
			DeliveryQueued.String(), DeliveryQueued.open(), ms(time.Now()), recipient, DeliveryConfirmed.String(), msgID)
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		return n > 0, err
	})
	if err != nil {
		return fmt.Errorf("requeue #%s for %s: %w", ShortID(msgID), recipient, err)
	}
	return nil
}

// RequeueLast reopens recipient's deliveries confirmed within window of its
// last confirmation: its process ended, unseen, right after that (the
// swarm that ran it was killed), and what showed on its screen just before
// may never have been read. It returns how many were reopened. The
// attempt each was confirmed in does not count towards a delivery's
// attempts: the kill was not the message's doing, and a message read
// before each of several kills must not fail for it.
func (b *Bus) RequeueLast(ctx context.Context, recipient string, window time.Duration) (int, error) {
	var n int64
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?1, open = ?2, updated_ms = ?3, error = '', attempts = MAX(attempts - 1, 0)
			WHERE recipient = ?4 AND state = ?5 AND updated_ms >= (
				SELECT MAX(updated_ms) FROM deliveries WHERE recipient = ?4 AND state = ?5) - ?6`,
			DeliveryQueued.String(), DeliveryQueued.open(), ms(time.Now()), recipient, DeliveryConfirmed.String(), window.Milliseconds())
		if err != nil {
			return false, err
		}
		n, err = res.RowsAffected()
		return n > 0, err
	})
	if err != nil {
		return 0, fmt.Errorf("requeue the last deliveries to %s: %w", recipient, err)
	}
	return int(n), nil
}

func (b *Bus) markDelivery(ctx context.Context, msgID, recipient string, to DeliveryState, reason string) error {
	now := time.Now()
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		// The delivery alone: the message itself is read only for a notice
		// to its author (every message's deliveries are marked two or
		// three times on their way).
		var seq int64
		var state string
		var cur Delivery
		err := tx.QueryRowContext(ctx, `SELECT d.seq, d.state, d.attempts FROM deliveries d JOIN messages m ON m.seq = d.seq
			WHERE m.id = ? AND d.recipient = ?`, msgID, recipient).Scan(&seq, &state, &cur.Attempts)
		if errors.Is(err, sql.ErrNoRows) {
			if _, err := b.messageByID(ctx, tx, msgID); err != nil {
				return false, err
			}
			return false, fmt.Errorf("no delivery to %s: %w", recipient, ErrNotFound)
		}
		if err != nil {
			return false, err
		}
		if cur.State, err = ParseDeliveryState(state); err != nil {
			return false, err
		}
		open := cur.State == DeliveryQueued || cur.State == DeliveryInjected
		if !open {
			if cur.State == to && to != DeliveryInjected {
				return false, nil // already done
			}
			return false, fmt.Errorf("delivery to %s is already %s: %w", recipient, cur.State, ErrDeliveryFinal)
		}
		attempts := cur.Attempts
		if to == DeliveryInjected {
			attempts++
		}
		if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?, open = ?, attempts = ?, updated_ms = ?, error = ?
			WHERE seq = ? AND recipient = ?`, to.String(), to.open(), attempts, ms(now), reason, seq, recipient); err != nil {
			return false, err
		}
		if to != DeliveryFailed && to != DeliveryUnconfirmed {
			return true, nil
		}
		m, err := b.messageByID(ctx, tx, msgID)
		if err != nil {
			return false, err
		}
		if n, ok := deliveryNotice(m, recipient, to, reason); ok {
			if err := b.prepare(&n, now); err != nil {
				return false, err
			}
			if err := b.insert(ctx, tx, []Message{n}, now); err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("mark #%s %s for %s: %w", ShortID(msgID), to, recipient, err)
	}
	return nil
}
