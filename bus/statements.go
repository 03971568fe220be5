package bus

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// chunkSizes are the row counts of the multi-row INSERT statements kept
// prepared; any count is written greedily as a sum of them.
var chunkSizes = []int{64, 16, 4, 1}

// statements are prepared once on the writer connection at Open. They
// cannot be prepared lazily: the writer pool has one connection, and a
// transaction holding it would wait forever for a second one to prepare on.
type statements struct {
	lookup  *sql.Stmt
	lookup1 *sql.Stmt
	insMsg  map[int]*sql.Stmt
	insDel  map[int]*sql.Stmt
	all     []*sql.Stmt
}

func multiRow(prefix, row string, n int) string {
	return prefix + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

func (b *Bus) prepareStatements(ctx context.Context) error {
	s := &b.st
	prep := func(q string) (*sql.Stmt, error) {
		st, err := b.w.PrepareContext(ctx, q)
		if err == nil {
			s.all = append(s.all, st)
		}
		return st, err
	}
	var err error
	// Everything publishing reads, in one statement because each statement
	// costs about as much as writing a row: which of a batch's ids exist
	// (kind 0), MAX(seq) (kind 1) and the registered agents (kind 2).
	if s.lookup, err = prep(`SELECT 0, id, seq FROM messages WHERE id IN (SELECT value FROM json_each(?1))
		UNION ALL SELECT 1, '', COALESCE(MAX(seq), 0) FROM messages
		UNION ALL SELECT 2, name, 0 FROM agents`); err != nil {
		return err
	}
	// The same for one id, without the cost of parsing a JSON array.
	if s.lookup1, err = prep(`SELECT 0, id, seq FROM messages WHERE id = ?1
		UNION ALL SELECT 1, '', COALESCE(MAX(seq), 0) FROM messages
		UNION ALL SELECT 2, name, 0 FROM agents`); err != nil {
		return err
	}
	s.insMsg, s.insDel = map[int]*sql.Stmt{}, map[int]*sql.Stmt{}
	for _, n := range chunkSizes {
		if s.insMsg[n], err = prep(multiRow(`INSERT INTO messages (seq, id, short, ts_ms, from_name, to_name, topic, kind, body, data,
			correlation_id, in_reply_to, priority, ttl_ms, payload_ref, log_only) VALUES `,
			`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, n)); err != nil {
			return err
		}
		if s.insDel[n], err = prep(multiRow(`INSERT INTO deliveries (seq, recipient, state, open, attempts, updated_ms, error) VALUES `,
			`(?, ?, ?, ?, 0, ?, ?)`, n)); err != nil {
			return err
		}
	}
	return nil
}

func (s *statements) close() error {
	var errs []error
	for _, st := range s.all {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// execChunked inserts rows through the prepared multi-row statements.
func execChunked(ctx context.Context, tx *sql.Tx, stmts map[int]*sql.Stmt, rows [][]any) error {
	bound := map[int]*sql.Stmt{}
	var args []any
	for len(rows) > 0 {
		n := 1
		for _, size := range chunkSizes {
			if len(rows) >= size {
				n = size
				break
			}
		}
		st, ok := bound[n]
		if !ok {
			st = tx.StmtContext(ctx, stmts[n])
			bound[n] = st
		}
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
