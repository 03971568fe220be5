package bus

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
)

// chunkSizes are the row counts of the multi-row INSERT statements kept
// prepared; any count is written greedily as a sum of them.
var chunkSizes = []int{64, 16, 4, 1}

// statements are prepared once, on the pinned writer connection, at Open.
type statements struct {
	begin, commit, rollback *sql.Stmt

	lookup  *sql.Stmt
	lookup1 *sql.Stmt
	all     []*sql.Stmt

	// Frequent reads, prepared on the read pool (database/sql prepares
	// them again on each pooled connection that runs them): parsing the
	// SQL would cost more than running it. They have no LIMIT ?: SQLite
	// re-prepares a statement whenever a LIMIT parameter is rebound, so
	// callers stop reading instead; the rows stream in index order, so
	// nothing past the limit is computed.
	pending, after *sql.Stmt

	// The multi-row inserts are driver statements, used through
	// (*sql.Conn).Raw: database/sql would otherwise convert and copy each
	// of up to 1,024 arguments per call, a fifth of a batch's CPU time.
	insMsg, insDel map[int]driver.StmtExecContext
	raw            []driver.Stmt
	args           []driver.NamedValue // reused; guarded by Bus.wmu
}

func multiRow(prefix, row string, n int) string {
	return prefix + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

func (b *Bus) prepareStatements(ctx context.Context) error {
	s := &b.st
	prep := func(q string) (*sql.Stmt, error) {
		st, err := b.wc.PrepareContext(ctx, q)
		if err == nil {
			s.all = append(s.all, st)
		}
		return st, err
	}
	var err error
	prepRead := func(q string) (*sql.Stmt, error) {
		st, err := b.r.PrepareContext(ctx, q)
		if err == nil {
			s.all = append(s.all, st)
		}
		return st, err
	}
	if s.pending, err = prepRead(`SELECT ` + messageCols + `, d.recipient, d.state, d.attempts, d.updated_ms, d.error
		FROM deliveries d JOIN messages m ON m.seq = d.seq
		WHERE d.recipient = ? AND d.open = 1 AND d.seq > ?
		ORDER BY d.seq`); err != nil {
		return err
	}
	if s.after, err = prepRead(`SELECT ` + messageCols + ` FROM messages m WHERE m.seq > ? ORDER BY m.seq`); err != nil {
		return err
	}
	if s.begin, err = prep(`BEGIN IMMEDIATE`); err != nil {
		return err
	}
	if s.commit, err = prep(`COMMIT`); err != nil {
		return err
	}
	if s.rollback, err = prep(`ROLLBACK`); err != nil {
		return err
	}
	// Everything publishing reads, in one statement because each statement
	// costs about as much as writing a row: which of a batch's ids exist
	// (kind 0), MAX(seq) (kind 1) and the registered agents (kind 2; 1 in
	// the third column when removed).
	if s.lookup, err = prep(`SELECT 0, id, seq FROM messages WHERE id IN (SELECT value FROM json_each(?1))
		UNION ALL SELECT 1, '', COALESCE(MAX(seq), 0) FROM messages
		UNION ALL SELECT 2, name, CASE WHEN state = 'removed' THEN 1 WHEN no_messages THEN 2 ELSE 0 END FROM agents`); err != nil {
		return err
	}
	// The same for one id, without the cost of parsing a JSON array.
	if s.lookup1, err = prep(`SELECT 0, id, seq FROM messages WHERE id = ?1
		UNION ALL SELECT 1, '', COALESCE(MAX(seq), 0) FROM messages
		UNION ALL SELECT 2, name, CASE WHEN state = 'removed' THEN 1 WHEN no_messages THEN 2 ELSE 0 END FROM agents`); err != nil {
		return err
	}
	s.insMsg, s.insDel = map[int]driver.StmtExecContext{}, map[int]driver.StmtExecContext{}
	return b.wc.Raw(func(dc any) error {
		conn, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("sqlite driver connection %T cannot prepare statements", dc)
		}
		prepRaw := func(q string) (driver.StmtExecContext, error) {
			st, err := conn.PrepareContext(ctx, q)
			if err != nil {
				return nil, err
			}
			s.raw = append(s.raw, st)
			ex, ok := st.(driver.StmtExecContext)
			if !ok {
				return nil, fmt.Errorf("sqlite driver statement %T cannot execute with a context", st)
			}
			return ex, nil
		}
		for _, n := range chunkSizes {
			if s.insMsg[n], err = prepRaw(multiRow(`INSERT INTO messages (seq, id, short, ts_ms, from_name, to_name, topic, kind, body, data,
				correlation_id, in_reply_to, priority, ttl_ms, payload_ref, log_only) VALUES `,
				`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, n)); err != nil {
				return err
			}
			if s.insDel[n], err = prepRaw(multiRow(`INSERT INTO deliveries (seq, recipient, state, open, attempts, updated_ms, error) VALUES `,
				`(?, ?, ?, ?, 0, ?, ?)`, n)); err != nil {
				return err
			}
		}
		return nil
	})
}

// close closes the statements; wc must still be open.
func (s *statements) close(wc *sql.Conn) error {
	var errs []error
	for _, st := range s.all {
		errs = append(errs, st.Close())
	}
	if wc != nil && len(s.raw) > 0 {
		errs = append(errs, wc.Raw(func(any) error {
			var errs []error
			for _, st := range s.raw {
				errs = append(errs, st.Close())
			}
			return errors.Join(errs...)
		}))
	}
	return errors.Join(errs...)
}

// execRows inserts count rows through the prepared multi-row statements;
// row appends the values of row i. It runs inside a write transaction, so
// wmu is held.
func (b *Bus) execRows(ctx context.Context, stmts map[int]driver.StmtExecContext, count int,
	row func(args []driver.NamedValue, i int) []driver.NamedValue) error {
	if count == 0 {
		return nil
	}
	return b.wc.Raw(func(any) error {
		for i := 0; i < count; {
			n := 1
			for _, size := range chunkSizes {
				if count-i >= size {
					n = size
					break
				}
			}
			args := b.st.args[:0]
			for j := i; j < i+n; j++ {
				args = row(args, j)
			}
			b.st.args = args
			if _, err := stmts[n].ExecContext(ctx, args); err != nil {
				return err
			}
			i += n
		}
		return nil
	})
}
