package bus

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CheckState is where one check — a command run on a task's tree — stands.
type CheckState int

// Check states. Queued waits for a free slot; the last four are final.
const (
	CheckQueued CheckState = iota
	CheckRunning
	CheckPassed
	CheckFailed   // exited with a status other than 0 (or could not start)
	CheckTimedOut // ran past its timeout and was ended
	CheckCancelled
)

var checkStateNames = [...]string{"queued", "running", "passed", "failed", "timed_out", "cancelled"}

// String returns the state's name: "queued", "running", "passed",
// "failed", "timed_out" or "cancelled".
func (s CheckState) String() string {
	if s < 0 || int(s) >= len(checkStateNames) {
		return fmt.Sprintf("CheckState(%d)", int(s))
	}
	return checkStateNames[s]
}

// ParseCheckState is the inverse of CheckState.String.
func ParseCheckState(s string) (CheckState, error) {
	for i, n := range checkStateNames {
		if n == s {
			return CheckState(i), nil
		}
	}
	return 0, fmt.Errorf("unknown check state %q", s)
}

// Final reports whether the check has ended.
func (s CheckState) Final() bool { return s >= CheckPassed }

// CheckRun names the tree a run of checks is on.
type CheckRun string

const (
	// RunBranch is a task's branch, checked in its worktree while the
	// task is in review.
	RunBranch CheckRun = "branch"
	// RunMerge is the merge queue's merge of a task's branch onto the
	// current base, checked in a scratch worktree before the base moves.
	RunMerge CheckRun = "merge"
)

// Check is one command of a task's latest run of a kind.
type Check struct {
	Task    string
	Run     CheckRun
	N       int // its place among the run's commands, from 0
	Cmd     string
	Commit  string // the commit it runs on
	State   CheckState
	Started time.Time // zero while queued
	Ended   time.Time // zero until final
	Exit    int       // the exit status of a failed check (-1: killed by a signal, or never started)
	Log     string    // the file holding its output
	Tail    string    // the last lines of its output, once it has ended
}

// Duration is how long the check ran: until it ended, else until now.
func (c Check) Duration(now time.Time) time.Duration {
	switch {
	case c.Started.IsZero():
		return 0
	case c.Ended.IsZero():
		return max(now.Sub(c.Started), 0)
	default:
		return c.Ended.Sub(c.Started)
	}
}

// StartChecks records a new run of checks on task: one queued check per
// command on commit, with its log file, replacing the rows of the run
// before. A run on the branch replaces the merge queue's too: the task is
// in review again, and what the queue found is history (its events say).
func (b *Bus) StartChecks(ctx context.Context, task string, run CheckRun, commit string, cmds, logs []string) error {
	if len(cmds) != len(logs) {
		return fmt.Errorf("start checks of task %s: %d commands, %d logs", task, len(cmds), len(logs))
	}
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM checks WHERE task_id = ? AND (run = ? OR ? = 'branch')`, task, string(run), string(run)); err != nil {
			return false, err
		}
		for i, c := range cmds {
			if _, err := tx.ExecContext(ctx, `INSERT INTO checks (task_id, run, n, cmd, commit_id, state, log) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				task, string(run), i, c, commit, CheckQueued.String(), logs[i]); err != nil {
				return false, err
			}
		}
		return true, bumpChecks(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("start checks of task %s: %w", task, err)
	}
	return nil
}

// UpdateCheck records c's state, times, exit status and tail, if its run
// is still the one recorded (same task, kind, place and commit): a run
// replaced meanwhile is not written over.
func (b *Bus) UpdateCheck(ctx context.Context, c Check) error {
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE checks SET state = ?, started_ms = ?, ended_ms = ?, exit_code = ?, tail = ?
			WHERE task_id = ? AND run = ? AND n = ? AND commit_id = ?`,
			c.State.String(), msOrZero(c.Started), msOrZero(c.Ended), c.Exit, c.Tail, c.Task, string(c.Run), c.N, c.Commit)
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return false, nil
		}
		return true, bumpChecks(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("update check %d of task %s: %w", c.N+1, c.Task, err)
	}
	return nil
}

// checksVersion is the key in meta of a number that grows with every
// change to the checks, the merge queue and the reviews, for a UI to
// follow them (ChecksVersion) as it follows messages and task events.
const checksVersion = "checks_version"

// bumpChecks counts a change to the checks, the queue or the reviews, in
// the transaction that makes it.
func bumpChecks(ctx context.Context, tx querier) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, checksVersion)
	return err
}

// ChecksVersion is a number that grows with every change to the checks,
// the merge queue and the reviewers' verdicts (0 before the first).
func (b *Bus) ChecksVersion(ctx context.Context) (int64, error) {
	var v int64
	err := b.rq().QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?`, checksVersion).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// CurrentChecks returns the run of a task's checks (as Checks returns
// them) that says where it stands: the merge queue's when it has one (it
// comes after review; a new run on the branch clears it), else its
// branch's.
func CurrentChecks(cs []Check) []Check {
	for i, c := range cs {
		if c.Run == RunMerge {
			return cs[i:]
		}
	}
	return cs
}

// Summary is where a run of checks stands as a whole: running while one
// is queued or running, else failed if one failed (or timed out, which
// it reports as such when no check failed otherwise), else cancelled if
// one was, else passed; ok is false for no checks.
func Summary(cs []Check) (s CheckState, ok bool) {
	if len(cs) == 0 {
		return 0, false
	}
	worst := CheckPassed
	for _, c := range cs {
		switch {
		case !c.State.Final():
			return CheckRunning, true
		case c.State == CheckFailed:
			worst = CheckFailed
		case c.State == CheckTimedOut && worst != CheckFailed:
			worst = CheckTimedOut
		case c.State == CheckCancelled && worst == CheckPassed:
			worst = CheckCancelled
		}
	}
	return worst, true
}

const checkCols = `task_id, run, n, cmd, commit_id, state, started_ms, ended_ms, exit_code, log, tail`

// Checks returns the checks recorded for task (its id, not a prefix):
// its branch's, then the merge queue's, each in command order.
func (b *Bus) Checks(ctx context.Context, task string) ([]Check, error) {
	return b.queryChecks(ctx, `SELECT `+checkCols+` FROM checks WHERE task_id = ? ORDER BY run = 'merge', n`, task)
}

// AllChecks returns every recorded check, by task.
func (b *Bus) AllChecks(ctx context.Context) ([]Check, error) {
	return b.queryChecks(ctx, `SELECT `+checkCols+` FROM checks ORDER BY task_id, run = 'merge', n`)
}

func (b *Bus) queryChecks(ctx context.Context, q string, args ...any) ([]Check, error) {
	rows, err := b.rq().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	defer rows.Close()
	var out []Check
	for rows.Next() {
		var c Check
		var run, state string
		var started, ended int64
		if err := rows.Scan(&c.Task, &run, &c.N, &c.Cmd, &c.Commit, &state, &started, &ended, &c.Exit, &c.Log, &c.Tail); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
		if c.State, err = ParseCheckState(state); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
		c.Run, c.Started, c.Ended = CheckRun(run), fromMS(started), fromMS(ended)
		out = append(out, c)
	}
	return out, rows.Err()
}

// CheckPolicy is what a swarm's [checks] table asks of its tasks. The
// running swarm keeps it on the bus (SetCheckPolicy), so that the command
// line applies the same rules when no swarm runs.
type CheckPolicy struct {
	Run            []string            `json:"run"`                       // shell commands, each run in the task's tree
	Timeout        time.Duration       `json:"timeout"`                   // per command
	ReviewBy       string              `json:"review_by,omitempty"`       // the reviewer agent, if any
	ReviewRequired bool                `json:"review_required,omitempty"` // its approval is a condition of merging
	Parallel       int                 `json:"parallel"`                  // checks run at once, at most
	Agents         map[string][]string `json:"agents,omitempty"`          // an agent's own checks, replacing Run for its tasks
}

// Commands returns the checks of a task assigned to agent.
func (p *CheckPolicy) Commands(agent string) []string {
	if own, ok := p.Agents[agent]; ok {
		return own
	}
	return p.Run
}

// SetCheckPolicy records the checks of the swarm starting on the bus; nil:
// it has none (merges go straight in, as without checks).
func (b *Bus) SetCheckPolicy(ctx context.Context, p *CheckPolicy) error {
	var err error
	if p == nil {
		_, err = b.exec(ctx, `DELETE FROM check_policy`)
	} else {
		data, jerr := json.Marshal(p)
		if jerr != nil {
			return jerr
		}
		_, err = b.exec(ctx, `INSERT INTO check_policy (id, policy) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET policy = excluded.policy`, string(data))
	}
	if err != nil {
		return fmt.Errorf("record the checks: %w", err)
	}
	return nil
}

// CheckPolicy returns the checks recorded by the swarm that started last
// on the bus; nil when it had none.
func (b *Bus) CheckPolicy(ctx context.Context) (*CheckPolicy, error) {
	var data string
	err := b.rq().QueryRowContext(ctx, `SELECT policy FROM check_policy WHERE id = 1`).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the checks: %w", err)
	}
	var p CheckPolicy
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		return nil, fmt.Errorf("read the checks: %w", err)
	}
	return &p, nil
}
