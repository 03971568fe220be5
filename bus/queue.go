package bus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// QueuePhase is where an entry of the merge queue stands.
type QueuePhase string

// The phases of a queue entry, in the order it goes through them.
const (
	PhaseQueued    QueuePhase = "queued"    // waits for its turn
	PhaseWaiting   QueuePhase = "waiting"   // its turn, but the base cannot move now (Why says why)
	PhaseChecking  QueuePhase = "checking"  // its merge (New, onto Old) is being checked
	PhaseAdvancing QueuePhase = "advancing" // checks passed: the base moves from Old to New
	PhaseDone      QueuePhase = "done"      // out of the queue: Merged, or Why says why not
)

// QueueEntry is a task in the merge queue.
type QueueEntry struct {
	N        int64 // the queue's order
	Task     string
	QueuedBy string
	Queued   time.Time
	Phase    QueuePhase
	Since    time.Time // when its phase began
	Why      string    // waiting: why; done: the outcome
	Merged   bool      // done: the base moved to New
	Old, New string    // checking, advancing, done: the base before and the merge commit
}

const queueCols = `n, task_id, queued_by, queued_ms, phase, phase_ms, why, merged, old_commit, new_commit`

func scanQueueEntry(s scanner) (QueueEntry, error) {
	var e QueueEntry
	var queued, since int64
	var phase string
	if err := s.Scan(&e.N, &e.Task, &e.QueuedBy, &queued, &phase, &since, &e.Why, &e.Merged, &e.Old, &e.New); err != nil {
		return e, err
	}
	e.Queued, e.Since, e.Phase = fromMS(queued), fromMS(since), QueuePhase(phase)
	return e, nil
}

// Enqueue puts task (its id) at the end of the merge queue, if it is
// APPROVED (else ErrStateChanged), as one transaction. A task already in
// the queue stays where it is (already is true); one whose last entry is
// done is queued anew. position counts from 1.
func (b *Bus) Enqueue(ctx context.Context, task, by string) (e QueueEntry, position int, already bool, err error) {
	err = b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		var state string
		if err := tx.QueryRowContext(ctx, `SELECT state FROM tasks WHERE id = ?`, task).Scan(&state); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return false, fmt.Errorf("task %s: %w", task, ErrNotFound)
			}
			return false, err
		}
		if state != TaskApproved.String() {
			return false, fmt.Errorf("task %s is %s, not %s: %w", task, state, TaskApproved, ErrStateChanged)
		}
		e, err = scanQueueEntry(tx.QueryRowContext(ctx, `SELECT `+queueCols+` FROM merge_queue WHERE task_id = ?`, task))
		switch {
		case err == nil && e.Phase != PhaseDone:
			already = true
		case err == nil || errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `DELETE FROM merge_queue WHERE task_id = ?`, task); err != nil {
				return false, err
			}
			now := ms(time.Now())
			if _, err := tx.ExecContext(ctx, `INSERT INTO merge_queue (task_id, queued_by, queued_ms, phase, phase_ms) VALUES (?, ?, ?, ?, ?)`,
				task, by, now, string(PhaseQueued), now); err != nil {
				return false, err
			}
			if e, err = scanQueueEntry(tx.QueryRowContext(ctx, `SELECT `+queueCols+` FROM merge_queue WHERE task_id = ?`, task)); err != nil {
				return false, err
			}
		default:
			return false, err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM merge_queue WHERE phase != 'done' AND n <= ?`, e.N).Scan(&position); err != nil {
			return false, err
		}
		if already {
			return false, nil
		}
		return true, bumpChecks(ctx, tx)
	})
	if err != nil {
		return QueueEntry{}, 0, false, fmt.Errorf("queue task %s to merge: %w", task, err)
	}
	return e, position, already, nil
}

// MergeQueue returns the entries not done yet, in queue order: the first
// is the one being merged or next.
func (b *Bus) MergeQueue(ctx context.Context) ([]QueueEntry, error) {
	rows, err := b.rq().QueryContext(ctx, `SELECT `+queueCols+` FROM merge_queue WHERE phase != 'done' ORDER BY n`)
	if err != nil {
		return nil, fmt.Errorf("merge queue: %w", err)
	}
	defer rows.Close()
	var out []QueueEntry
	for rows.Next() {
		e, err := scanQueueEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("merge queue: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// QueueEntryOf returns task's entry in the merge queue, done or not;
// ErrNotFound if it was never queued.
func (b *Bus) QueueEntryOf(ctx context.Context, task string) (QueueEntry, error) {
	e, err := scanQueueEntry(b.rq().QueryRowContext(ctx, `SELECT `+queueCols+` FROM merge_queue WHERE task_id = ?`, task))
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("task %s is not in the merge queue: %w", task, ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("merge queue: %w", err)
	}
	return e, nil
}

// SetQueuePhase moves task's entry (not done) to phase, with why and the
// commits; Since changes only with the phase or the why. Setting what is
// there already writes nothing and wakes no one: a queue that waits
// looks again and again.
func (b *Bus) SetQueuePhase(ctx context.Context, task string, phase QueuePhase, why, old, new string) error {
	return b.updateQueue(ctx, task, `UPDATE merge_queue SET phase_ms = CASE WHEN phase = ?1 AND why = ?2 THEN phase_ms ELSE ?3 END,
		phase = ?1, why = ?2, old_commit = ?4, new_commit = ?5
		WHERE task_id = ?6 AND phase != 'done' AND (phase != ?1 OR why != ?2 OR old_commit != ?4 OR new_commit != ?5)`,
		string(phase), why, ms(time.Now()), old, new, task)
}

// updateQueue runs one update of task's entry; it counts as a change
// (and wakes subscribers) only if it changed a row.
func (b *Bus) updateQueue(ctx context.Context, task, query string, args ...any) error {
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return false, nil
		}
		return true, bumpChecks(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("merge queue: task %s: %w", task, err)
	}
	return nil
}

// FinishQueued takes task's entry out of the queue: done, merged or not,
// with the outcome in words.
func (b *Bus) FinishQueued(ctx context.Context, task string, merged bool, outcome string) error {
	return b.updateQueue(ctx, task, `UPDATE merge_queue SET phase = 'done', phase_ms = ?, why = ?, merged = ? WHERE task_id = ? AND phase != 'done'`,
		ms(time.Now()), outcome, merged, task)
}
