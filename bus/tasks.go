package bus

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TaskState is a task's place in its life cycle (see the package doc).
type TaskState int

// Task states. TaskNone is only the From of a task's first event.
const (
	TaskNone       TaskState = iota
	TaskAssigned             // created and given to an agent
	TaskWorking              // the agent started it
	TaskConflicted           // its branch does not rebase or merge cleanly
	TaskInReview             // the agent is done; waiting for the human
	TaskApproved             // the human approved; waiting to be merged
	TaskCompleted            // merged (final)
	TaskFailed               // given up; can be retried
	TaskCancelled            // cancelled by the human (final)
	// TaskChangesRequested: sent back to its agent by a check that failed
	// or by the reviewer agent; the agent works on it again (start) or
	// submits it again (done).
	TaskChangesRequested
)

var taskStateNames = [...]string{"", "ASSIGNED", "WORKING", "CONFLICTED", "IN_REVIEW", "APPROVED", "COMPLETED", "FAILED", "CANCELLED", "CHANGES_REQUESTED"}

// String returns the state's upper-case name, e.g. "IN_REVIEW".
func (s TaskState) String() string {
	if s < 0 || int(s) >= len(taskStateNames) {
		return fmt.Sprintf("TaskState(%d)", int(s))
	}
	return taskStateNames[s]
}

// ParseTaskState reads a state name in any case, with '_', '-' or ' '
// between words ("in-review", "IN_REVIEW").
func ParseTaskState(s string) (TaskState, error) {
	norm := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(s)))
	for i, n := range taskStateNames {
		if i > 0 && n == norm {
			return TaskState(i), nil
		}
	}
	return TaskNone, fmt.Errorf("unknown task state %q (want one of %s)", s, joinStates(displayOrder))
}

// displayOrder is every real state in the order a person reads a list of
// tasks: the open states as work proceeds, then FAILED (it waits for the
// person), then the final states.
var displayOrder = []TaskState{TaskAssigned, TaskWorking, TaskChangesRequested, TaskConflicted, TaskInReview, TaskApproved, TaskFailed, TaskCompleted, TaskCancelled}

// TaskStates returns every state a task can be in, in the order a list of
// tasks shows them (`swarm status`, the UI's board).
func TaskStates() []TaskState { return slices.Clone(displayOrder) }

// OpenTaskStates returns the open states (see Open) in display order:
// the states of the tasks an agent has in hand or waiting.
func OpenTaskStates() []TaskState {
	var open []TaskState
	for _, s := range displayOrder {
		if s.Open() {
			open = append(open, s)
		}
	}
	return open
}

// moves is the transition table: the moves out of each state.
var moves = map[TaskState][]TaskState{
	TaskAssigned:   {TaskWorking, TaskFailed, TaskCancelled},
	TaskWorking:    {TaskInReview, TaskConflicted, TaskFailed, TaskCancelled},
	TaskConflicted: {TaskInReview, TaskWorking, TaskFailed, TaskCancelled},
	TaskInReview:   {TaskApproved, TaskWorking, TaskFailed, TaskCancelled, TaskChangesRequested},
	TaskApproved:   {TaskCompleted, TaskConflicted, TaskFailed, TaskCancelled, TaskChangesRequested},
	TaskFailed:     {TaskAssigned, TaskCancelled},
	TaskCompleted:  nil,
	TaskCancelled:  nil,

	TaskChangesRequested: {TaskWorking, TaskInReview, TaskConflicted, TaskFailed, TaskCancelled},
}

// inHand are the states in which a task is back in its agent's hands:
// being worked on, or sent back to it (in conflict, changes requested).
// The agent has no other task meanwhile, and is alive only if it shows
// signs of life.
var inHand = []TaskState{TaskWorking, TaskChangesRequested, TaskConflicted}

// InHandTaskStates returns the states of a task its agent has in hand
// (WORKING, CHANGES_REQUESTED, CONFLICTED), in display order.
func InHandTaskStates() []TaskState { return slices.Clone(inHand) }

// InHand reports whether a task in s is in its agent's hands (see
// InHandTaskStates).
func (s TaskState) InHand() bool { return slices.Contains(inHand, s) }

// AllowedMoves returns the states a task in s may move to.
func AllowedMoves(s TaskState) []TaskState { return slices.Clone(moves[s]) }

// Final reports whether no move leaves s (COMPLETED, CANCELLED): read
// from the transition table.
func (s TaskState) Final() bool { return s.real() && len(moves[s]) == 0 }

// Open reports whether a task in s is still under way: neither finished
// (Final) nor given up (FAILED, which waits for the person to retry or
// cancel it). An open task keeps its worktree and is what its assignee has
// in hand or will get next.
func (s TaskState) Open() bool { return s.real() && !s.Final() && s != TaskFailed }

// real reports whether s is a state a task can be in (not TaskNone).
func (s TaskState) real() bool { return s > TaskNone && int(s) < len(taskStateNames) }

func joinStates(ss []TaskState) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}

// TransitionError is a refused task transition. errors.Is(err,
// ErrInvalidTransition) holds for it.
type TransitionError struct {
	Task    string
	From    TaskState // the task's current state
	To      TaskState
	Allowed []TaskState // moves allowed from From
}

// Error names the task, its state, the refused target and the allowed moves.
func (e *TransitionError) Error() string {
	if len(e.Allowed) == 0 {
		return fmt.Sprintf("task %s is %s, which is final: it cannot move to %s", e.Task, e.From, e.To)
	}
	return fmt.Sprintf("task %s is %s: cannot move to %s (allowed: %s)", e.Task, e.From, e.To, joinStates(e.Allowed))
}

// Is makes errors.Is(err, ErrInvalidTransition) true.
func (e *TransitionError) Is(target error) bool { return target == ErrInvalidTransition }

// Task is a unit of work given to one agent.
type Task struct {
	ID          string // 6 lowercase base32 characters
	Title       string
	Description string
	Assignee    string
	CreatedBy   string
	State       TaskState
	Created     time.Time
	Updated     time.Time
	Branch      string // git branch, worktree and base branch, if the task has them
	Worktree    string
	Base        string
}

// TaskEvent is one recorded transition.
type TaskEvent struct {
	N      int64 // position in the history of all tasks (increasing)
	TaskID string
	From   TaskState // TaskNone for the creation event
	To     TaskState
	Actor  string
	Note   string
	Time   time.Time
}

// NewTask describes a task to create.
type NewTask struct {
	Title       string
	Description string
	Assignee    string // a registered agent
	CreatedBy   string
}

// TaskFilter selects tasks; zero fields match everything.
type TaskFilter struct {
	Assignee string
	States   []TaskState
}

const taskIDAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

func newTaskID() (string, error) {
	var buf [6]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return "", err
	}
	for i := range buf {
		buf[i] = taskIDAlphabet[buf[i]&31]
	}
	return string(buf[:]), nil
}

// CreateTask creates a task in ASSIGNED, recording the event "" → ASSIGNED.
// The assignee must be a registered agent. No message is sent: dispatching
// (telling the agent) is the supervisor's job.
func (b *Bus) CreateTask(ctx context.Context, nt NewTask) (Task, error) {
	nt.Title = strings.TrimSpace(nt.Title)
	if nt.Title == "" {
		return Task{}, errors.New("create task: the title is empty")
	}
	if nt.CreatedBy == "" {
		return Task{}, errors.New("create task: no creator given")
	}
	now := time.Now()
	t := Task{Title: nt.Title, Description: nt.Description, Assignee: nt.Assignee, CreatedBy: nt.CreatedBy,
		State: TaskAssigned, Created: fromMS(ms(now)), Updated: fromMS(ms(now))}
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM agents WHERE name = ? AND state != 'removed'`, nt.Assignee).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("%w %q", ErrUnknownAgent, nt.Assignee)
		}
		if err != nil {
			return false, err
		}
		for attempt := 0; ; attempt++ {
			if t.ID, err = newTaskID(); err != nil {
				return false, err
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, title, description, assignee, created_by, state, created_ms, updated_ms)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
				t.ID, t.Title, t.Description, t.Assignee, t.CreatedBy, t.State.String(), ms(now), ms(now))
			if err != nil {
				return false, err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				break
			}
			if attempt == 10 {
				return false, errors.New("no free task id")
			}
		}
		return true, insertEvent(ctx, tx, TaskEvent{TaskID: t.ID, From: TaskNone, To: TaskAssigned, Actor: nt.CreatedBy, Time: now})
	})
	if err != nil {
		return Task{}, fmt.Errorf("create task: %w", err)
	}
	return t, nil
}

func insertEvent(ctx context.Context, tx querier, e TaskEvent) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO task_events (task_id, from_state, to_state, actor, note, ts_ms) VALUES (?, ?, ?, ?, ?, ?)`,
		e.TaskID, e.From.String(), e.To.String(), e.Actor, e.Note, ms(e.Time))
	return err
}

// Transition moves task id (or a unique prefix of it) to state to, as a
// compare-and-set in one transaction, and records a TaskEvent. If the task
// is already in to, nothing changes and no event is recorded. A move the
// table does not allow fails with a *TransitionError.
func (b *Bus) Transition(ctx context.Context, id string, to TaskState, actor, note string) (Task, error) {
	return b.transition(ctx, id, TaskNone, to, actor, note)
}

// TransitionFrom is Transition that also requires the task to be in from;
// otherwise it fails with ErrStateChanged (unless it is already in to,
// which is a no-op as with Transition).
func (b *Bus) TransitionFrom(ctx context.Context, id string, from, to TaskState, actor, note string) (Task, error) {
	if from == TaskNone {
		return Task{}, fmt.Errorf("task %s: no expected state given", id)
	}
	return b.transition(ctx, id, from, to, actor, note)
}

func (b *Bus) transition(ctx context.Context, id string, from, to TaskState, actor, note string) (Task, error) {
	if !to.real() {
		return Task{}, fmt.Errorf("task %s: %w: no such state %v", id, ErrInvalidTransition, to)
	}
	var t Task
	err := b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		var err error
		if t, err = taskByRef(ctx, tx, id); err != nil {
			return false, err
		}
		if t.State == to {
			return false, nil
		}
		if from != TaskNone && t.State != from {
			return false, fmt.Errorf("task %s is %s, not %s: %w", t.ID, t.State, from, ErrStateChanged)
		}
		if !slices.Contains(moves[t.State], to) {
			return false, &TransitionError{Task: t.ID, From: t.State, To: to, Allowed: AllowedMoves(t.State)}
		}
		now := time.Now()
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, updated_ms = ? WHERE id = ? AND state = ?`,
			to.String(), ms(now), t.ID, t.State.String()); err != nil {
			return false, err
		}
		if err := insertEvent(ctx, tx, TaskEvent{TaskID: t.ID, From: t.State, To: to, Actor: actor, Note: note, Time: now}); err != nil {
			return false, err
		}
		t.State, t.Updated = to, fromMS(ms(now))
		return true, nil
	})
	if err != nil {
		var te *TransitionError
		if errors.As(err, &te) || errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrAmbiguous) {
			return Task{}, err // these already name the task
		}
		return Task{}, fmt.Errorf("task %s to %s: %w", id, to, err)
	}
	return t, nil
}

const taskCols = `id, title, description, assignee, created_by, state, created_ms, updated_ms, branch, worktree, base`

func scanTask(s scanner) (Task, error) {
	var t Task
	var state string
	var created, updated int64
	if err := s.Scan(&t.ID, &t.Title, &t.Description, &t.Assignee, &t.CreatedBy, &state, &created, &updated,
		&t.Branch, &t.Worktree, &t.Base); err != nil {
		return Task{}, err
	}
	st, err := ParseTaskState(state)
	if err != nil {
		return Task{}, err
	}
	t.State, t.Created, t.Updated = st, fromMS(created), fromMS(updated)
	return t, nil
}

// taskByRef finds a task by id or unique id prefix.
func taskByRef(ctx context.Context, q querier, ref string) (Task, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" {
		return Task{}, fmt.Errorf("task: no id given: %w", ErrNotFound)
	}
	rows, err := q.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks WHERE id >= ?1 AND id < ?1 || '~' ORDER BY id = ?1 DESC, id LIMIT 2`, ref)
	if err != nil {
		return Task{}, err
	}
	defer rows.Close()
	var found []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return Task{}, err
		}
		found = append(found, t)
	}
	if err := rows.Err(); err != nil {
		return Task{}, err
	}
	switch {
	case len(found) == 0:
		return Task{}, fmt.Errorf("task %s: %w", ref, ErrNotFound)
	case found[0].ID == ref || len(found) == 1:
		return found[0], nil
	default:
		return Task{}, fmt.Errorf("task %s: %w: it is a prefix of %s and %s", ref, ErrAmbiguous, found[0].ID, found[1].ID)
	}
}

// Task returns the task with id, or the only task whose id starts with id.
func (b *Bus) Task(ctx context.Context, id string) (Task, error) {
	return taskByRef(ctx, b.r, id)
}

// TaskEvents returns the transitions of task id (or unique prefix), oldest
// first, starting with its creation.
func (b *Bus) TaskEvents(ctx context.Context, id string) ([]TaskEvent, error) {
	var out []TaskEvent
	err := b.read(ctx, func(tx readTx) error {
		t, err := taskByRef(ctx, tx, id)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT n, task_id, from_state, to_state, actor, note, ts_ms FROM task_events WHERE task_id = ? ORDER BY n`, t.ID)
		out, err = scanTaskEvents(rows, err, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("task events %s: %w", id, err)
	}
	return out, nil
}

// TaskEventsAfter returns up to limit transitions of any task after
// position after (0: from the first), oldest first: what a UI follows.
func (b *Bus) TaskEventsAfter(ctx context.Context, after int64, limit int) ([]TaskEvent, error) {
	var out []TaskEvent
	err := b.read(ctx, func(tx readTx) error {
		// No LIMIT ?: SQLite prepares a statement again whenever a LIMIT
		// parameter is bound anew. The rows come in index order; reading
		// stops at limit.
		rows, err := tx.QueryContext(ctx, `SELECT n, task_id, from_state, to_state, actor, note, ts_ms FROM task_events WHERE n > ? ORDER BY n`, after)
		out, err = scanTaskEvents(rows, err, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("task events after %d: %w", after, err)
	}
	return out, nil
}

// scanTaskEvents reads up to limit events from rows (no limit when
// limit <= 0).
func scanTaskEvents(rows *sql.Rows, err error, limit int) ([]TaskEvent, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TaskEvent
	for (limit <= 0 || len(out) < limit) && rows.Next() {
		var e TaskEvent
		var from, to string
		var ts int64
		if err := rows.Scan(&e.N, &e.TaskID, &from, &to, &e.Actor, &e.Note, &ts); err != nil {
			return nil, err
		}
		if from != "" {
			if e.From, err = ParseTaskState(from); err != nil {
				return nil, err
			}
		}
		if e.To, err = ParseTaskState(to); err != nil {
			return nil, err
		}
		e.Time = fromMS(ts)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Tasks returns the tasks matching f in creation order.
func (b *Bus) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	q := `SELECT ` + taskCols + ` FROM tasks WHERE 1`
	var args []any
	if f.Assignee != "" {
		q += ` AND assignee = ?`
		args = append(args, f.Assignee)
	}
	if len(f.States) > 0 {
		// One text for any number of states, so that it stays prepared.
		names := make([]string, len(f.States))
		for i, s := range f.States {
			names[i] = s.String()
		}
		list, _ := json.Marshal(names)
		q += ` AND state IN (SELECT value FROM json_each(?))`
		args = append(args, string(list))
	}
	return b.queryTasks(ctx, q+` ORDER BY n`, args...)
}

func (b *Bus) queryTasks(ctx context.Context, q string, args ...any) ([]Task, error) {
	rows, err := b.rq().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("tasks: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CurrentTask is the task an agent's "swarm task start|done|fail" without
// an id refers to. The rule, first match wins:
//  1. a WORKING task (the most recently updated),
//  2. a CONFLICTED or CHANGES_REQUESTED task (the most recently updated):
//     it is back with the agent,
//  3. the oldest ASSIGNED task: the next one to start,
//  4. an IN_REVIEW task (the most recently updated), so that repeating
//     "done" is a no-op rather than an error.
//
// ErrNotFound if the agent has none of these.
func (b *Bus) CurrentTask(ctx context.Context, agent string) (Task, error) {
	ts, err := b.queryTasks(ctx, `SELECT `+taskCols+` FROM tasks
		WHERE assignee = ? AND state IN ('WORKING', 'CONFLICTED', 'CHANGES_REQUESTED', 'ASSIGNED', 'IN_REVIEW')
		ORDER BY CASE state WHEN 'WORKING' THEN 0 WHEN 'CONFLICTED' THEN 1 WHEN 'CHANGES_REQUESTED' THEN 1 WHEN 'ASSIGNED' THEN 2 ELSE 3 END,
			CASE WHEN state = 'ASSIGNED' THEN n ELSE -updated_ms END, n DESC
		LIMIT 1`, agent)
	if err != nil {
		return Task{}, err
	}
	if len(ts) == 0 {
		return Task{}, fmt.Errorf("%s has no current task (none WORKING, CONFLICTED, ASSIGNED or IN_REVIEW): %w", agent, ErrNotFound)
	}
	return ts[0], nil
}

// SetTaskGit records the task's git branch, worktree and base branch.
func (b *Bus) SetTaskGit(ctx context.Context, id, branch, worktree, base string) error {
	return b.write(ctx, func(ctx context.Context, tx querier) (bool, error) {
		t, err := taskByRef(ctx, tx, id)
		if err != nil {
			return false, err
		}
		_, err = tx.ExecContext(ctx, `UPDATE tasks SET branch = ?, worktree = ?, base = ?, updated_ms = ? WHERE id = ?`,
			branch, worktree, base, ms(time.Now()), t.ID)
		return err == nil, err
	})
}
