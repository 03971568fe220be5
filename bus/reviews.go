package bus

import (
	"context"
	"fmt"
	"time"
)

// Verdict is a reviewer agent's answer on a task.
type Verdict string

const (
	VerdictApprove        Verdict = "approve"
	VerdictRequestChanges Verdict = "request_changes"
)

// Review is a reviewer agent's verdict on a task's branch at a commit.
type Review struct {
	N        int64
	Task     string
	Reviewer string
	Verdict  Verdict
	Note     string
	Commit   string // the branch's commit it judged
	Time     time.Time
}

// AddReview records a verdict.
func (b *Bus) AddReview(ctx context.Context, r Review) (Review, error) {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	r.Time = fromMS(ms(r.Time))
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		res, err := tx.ExecContext(ctx, `INSERT INTO reviews (task_id, reviewer, verdict, note, commit_id, ts_ms) VALUES (?, ?, ?, ?, ?, ?)`,
			r.Task, r.Reviewer, string(r.Verdict), r.Note, r.Commit, ms(r.Time))
		if err != nil {
			return false, err
		}
		r.N, _ = res.LastInsertId()
		return true, bumpChecks(ctx, tx)
	})
	if err != nil {
		return r, fmt.Errorf("record the review of task %s: %w", r.Task, err)
	}
	return r, nil
}

// Reviews returns the verdicts on task (its id), oldest first.
func (b *Bus) Reviews(ctx context.Context, task string) ([]Review, error) {
	rows, err := b.rq().QueryContext(ctx, `SELECT n, task_id, reviewer, verdict, note, commit_id, ts_ms FROM reviews WHERE task_id = ? ORDER BY n`, task)
	if err != nil {
		return nil, fmt.Errorf("reviews of task %s: %w", task, err)
	}
	defer rows.Close()
	var out []Review
	for rows.Next() {
		var r Review
		var verdict string
		var ts int64
		if err := rows.Scan(&r.N, &r.Task, &r.Reviewer, &verdict, &r.Note, &r.Commit, &ts); err != nil {
			return nil, fmt.Errorf("reviews of task %s: %w", task, err)
		}
		r.Verdict, r.Time = Verdict(verdict), fromMS(ts)
		out = append(out, r)
	}
	return out, rows.Err()
}
