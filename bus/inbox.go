package bus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ReadUnread returns, oldest first, up to limit messages delivered to
// agent that no earlier ReadUnread for agent returned — whatever their
// delivery state — each with agent's delivery alone in Deliveries, and
// marks them read; more says whether unread ones are left. limit <= 0
// means all.
//
// Read is what the agent has seen through the MCP inbox tool, nothing
// more: a delivery does not change (the running swarm still types the
// message into the agent's terminal). It is a cursor per agent, moved in
// the same transaction that reads, so two readers never get the same
// message; a reader that dies before showing what it read loses it to
// the inbox tool, not to the log or the terminal.
func (b *Bus) ReadUnread(ctx context.Context, agent string, limit int) (msgs []Message, more bool, err error) {
	want := -1 // SQLite's LIMIT -1: no limit
	if limit > 0 {
		want = limit + 1 // one more tells whether any are left
	}
	err = b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		msgs, more = nil, false
		var cursor int64
		err := tx.QueryRowContext(ctx, `SELECT seq FROM inbox_read WHERE agent = ?`, agent).Scan(&cursor)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, err
		}
		// open IN (0, 1) lets the mailbox index (recipient, open, seq)
		// serve the query, so it reads the agent's deliveries only.
		rows, err := tx.QueryContext(ctx, `SELECT `+messageCols+`, d.recipient, d.state, d.attempts, d.updated_ms, d.error
			FROM deliveries d JOIN messages m ON m.seq = d.seq
			WHERE d.recipient = ?1 AND d.open IN (0, 1) AND d.seq > ?2
			ORDER BY d.seq LIMIT ?3`, agent, cursor, want)
		if err != nil {
			return false, err
		}
		defer rows.Close()
		for rows.Next() {
			var d Delivery
			var state string
			var updated int64
			m, err := b.scanMessage(rows, &d.Recipient, &state, &d.Attempts, &updated, &d.Error)
			if err != nil {
				return false, err
			}
			if d.State, err = ParseDeliveryState(state); err != nil {
				return false, err
			}
			d.MessageID, d.Updated = m.ID, fromMS(updated)
			m.Deliveries = []Delivery{d}
			msgs = append(msgs, m)
		}
		if err := rows.Err(); err != nil {
			return false, err
		}
		rows.Close()
		if limit > 0 && len(msgs) > limit {
			msgs, more = msgs[:limit], true
		}
		if len(msgs) == 0 {
			return false, nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO inbox_read (agent, seq) VALUES (?, ?)
			ON CONFLICT (agent) DO UPDATE SET seq = excluded.seq`, agent, msgs[len(msgs)-1].Seq)
		return false, err // nothing a subscriber follows has changed
	})
	if err != nil {
		return nil, false, fmt.Errorf("read the unread messages of %s: %w", agent, err)
	}
	return msgs, more, nil
}
