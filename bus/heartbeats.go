package bus

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Status is what an agent says it is doing in a heartbeat.
type Status int

// Heartbeat statuses.
const (
	StatusIdle Status = iota
	StatusWorking
	StatusBlocked
	// StatusNeedsHuman: the agent's program waits for the person (a
	// permission prompt, a question); its CLI's hook says so.
	StatusNeedsHuman
)

var statusNames = [...]string{"idle", "working", "blocked", "needs-human"}

// String returns "idle", "working", "blocked" or "needs-human".
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// ParseStatus is the inverse of Status.String (case-insensitive).
func ParseStatus(s string) (Status, error) {
	for i, n := range statusNames {
		if strings.EqualFold(n, strings.TrimSpace(s)) {
			return Status(i), nil
		}
	}
	return 0, fmt.Errorf("unknown status %q (want idle, working, blocked or needs-human)", s)
}

// Heartbeat is an agent's latest sign of life.
type Heartbeat struct {
	Agent    string
	Status   Status
	Progress float64 // 0..1
	Task     string  // task id it works on, if any
	Note     string  // why, in a line (what a needs-human agent waits for)
	Time     time.Time
}

// heartbeatMinGap is how often an unchanged heartbeat is written at most.
const heartbeatMinGap = time.Second

// CheckReport checks what an agent reports in a heartbeat: its status and
// a progress between 0 and 1. Beat checks it; a command line checks it
// first, to refuse a bad flag before it opens anything.
func (hb Heartbeat) CheckReport() error {
	if hb.Status < StatusIdle || int(hb.Status) >= len(statusNames) {
		return fmt.Errorf("status %d: %w", hb.Status, ErrInvalidHeartbeat)
	}
	if math.IsNaN(hb.Progress) || hb.Progress < 0 || hb.Progress > 1 {
		return fmt.Errorf("progress %v is not between 0 and 1: %w", hb.Progress, ErrInvalidHeartbeat)
	}
	return nil
}

// Beat records hb as the agent's latest heartbeat (Time defaults to now).
// A repeat with the same status, progress and task less than a second
// after the stored one is not written, so chatty agents cost nothing; any
// change is always written.
func (b *Bus) Beat(ctx context.Context, hb Heartbeat) error {
	if err := ValidName(hb.Agent); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if err := hb.CheckReport(); err != nil {
		return fmt.Errorf("heartbeat %s: %w", hb.Agent, err)
	}
	if hb.Task != "" {
		// A heartbeat names a task that exists, so status can show it.
		if _, err := b.Task(ctx, hb.Task); err != nil {
			return fmt.Errorf("heartbeat %s: %w", hb.Agent, err)
		}
	}
	return b.upsertHeartbeat(ctx, hb, `status = excluded.status, progress = excluded.progress, task = excluded.task,
			note = excluded.note, ts_ms = excluded.ts_ms
		WHERE heartbeats.status != excluded.status OR heartbeats.progress != excluded.progress
			OR heartbeats.task != excluded.task OR heartbeats.note != excluded.note OR excluded.ts_ms - heartbeats.ts_ms >= ?`)
}

// Alive records that hb.Agent is alive at hb.Time (its output says so):
// an agent with a heartbeat keeps what it reported, only the time moves;
// one without gets hb. It is one statement, so that what an agent reports
// meanwhile is never overwritten by what was read before it.
func (b *Bus) Alive(ctx context.Context, hb Heartbeat) error {
	if err := ValidName(hb.Agent); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return b.upsertHeartbeat(ctx, hb, `ts_ms = excluded.ts_ms
		WHERE excluded.ts_ms - heartbeats.ts_ms >= ?`)
}

// upsertHeartbeat writes hb (Time defaults to now) as a new agent's
// heartbeat, or applies update (an UPDATE's SET … WHERE …, whose one
// parameter is heartbeatMinGap in milliseconds) to the agent's stored one,
// and tells the watchers when a row changed.
func (b *Bus) upsertHeartbeat(ctx context.Context, hb Heartbeat, update string) error {
	if hb.Time.IsZero() {
		hb.Time = time.Now()
	}
	res, err := b.exec(ctx, `INSERT INTO heartbeats (agent, status, progress, task, note, ts_ms) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent) DO UPDATE SET `+update,
		hb.Agent, hb.Status.String(), hb.Progress, hb.Task, hb.Note, ms(hb.Time), heartbeatMinGap.Milliseconds())
	if err != nil {
		return fmt.Errorf("heartbeat %s: %w", hb.Agent, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		b.notify()
	}
	return nil
}

// Heartbeats returns every agent's latest heartbeat, by agent name.
func (b *Bus) Heartbeats(ctx context.Context) ([]Heartbeat, error) {
	rows, err := b.rq().QueryContext(ctx, `SELECT agent, status, progress, task, note, ts_ms FROM heartbeats ORDER BY agent`)
	if err != nil {
		return nil, fmt.Errorf("heartbeats: %w", err)
	}
	defer rows.Close()
	var out []Heartbeat
	for rows.Next() {
		var hb Heartbeat
		var status string
		var ts int64
		if err := rows.Scan(&hb.Agent, &status, &hb.Progress, &hb.Task, &hb.Note, &ts); err != nil {
			return nil, fmt.Errorf("heartbeats: %w", err)
		}
		if hb.Status, err = ParseStatus(status); err != nil {
			return nil, fmt.Errorf("heartbeats: %w", err)
		}
		hb.Time = fromMS(ts)
		out = append(out, hb)
	}
	return out, rows.Err()
}

// Level is what an agent's signs of life say about it, in words that
// alarm only when something is wrong.
type Level int

// Liveness levels.
const (
	// LevelOK: it shows signs of life.
	LevelOK Level = iota
	// LevelIdle: it runs, quiet, with no work in progress that swarm
	// knows of — waiting for input, as an editor or an agent waiting for
	// its next message does. Not a worry however long it lasts.
	LevelIdle
	// LevelWarn, LevelStale: it has work in progress (a task WORKING) and
	// has been quiet past the thresholds.
	LevelWarn
	LevelStale
	// LevelStuck: it has work in progress and has been quiet past the
	// last threshold.
	LevelStuck
	// LevelDone: its process ended as it should (exit code 0, or stopped
	// by request).
	LevelDone
	// LevelDead: its process died (an error exit, a signal, a crash loop).
	LevelDead
)

var levelNames = [...]string{"OK", "IDLE", "WARN", "STALE", "STUCK", "DONE", "DEAD"}

// String returns the level's word: OK, IDLE, WARN, STALE, STUCK, DONE or
// DEAD.
func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// Activity is what is known of what an agent is doing, which says what
// its silence means.
type Activity int

const (
	// Working: it runs and has work in progress (a task WORKING or
	// CONFLICTED): silence is a worry.
	Working Activity = iota
	// Waiting: it runs with nothing in progress: silence is normal.
	Waiting
	// Ended: its process ended as it should.
	Ended
	// Died: its process ended in an error, a signal, or a crash loop.
	Died
)

// CleanExit is the reason recorded for an agent whose program exited with
// code 0: such an agent ended as it should.
const CleanExit = "exit code 0"

// Thresholds are the ages at which a working agent's level worsens.
type Thresholds struct {
	Warn, Stale, Dead time.Duration
}

// DefaultThresholds: a working agent is WARN after 30 s without a sign of
// life, STALE after 100 s, STUCK after 5 minutes; a waiting one is IDLE
// after 30 s.
var DefaultThresholds = Thresholds{Warn: 30 * time.Second, Stale: 100 * time.Second, Dead: 5 * time.Minute}

// Level maps an agent's activity and the age of its last sign of life to
// a level.
func (t Thresholds) Level(age time.Duration, a Activity) Level {
	switch {
	case a == Ended:
		return LevelDone
	case a == Died:
		return LevelDead
	case age < t.Warn:
		return LevelOK
	case a == Waiting:
		return LevelIdle
	case age >= t.Dead:
		return LevelStuck
	case age >= t.Stale:
		return LevelStale
	}
	return LevelWarn
}

// ActivityOf says what an agent's record and its work say it is doing:
// busy is whether it has a task in progress.
func ActivityOf(a Agent, busy bool) Activity {
	// An agent on another host (AgentRemote) is its host's to watch: this
	// machine sees no process of it, only its heartbeats, and a host away
	// is not an agent dead.
	alive := a.Alive() || a.State == AgentRemote
	switch {
	case alive && busy:
		return Working
	case alive || a.State == AgentStarting:
		return Waiting
	case a.State == AgentStopped || a.State == AgentExited && a.Reason == CleanExit:
		return Ended
	}
	return Died
}

// Health is an agent with its latest heartbeat and liveness level.
type Health struct {
	Agent Agent
	Beat  Heartbeat     // zero Time if it never sent one
	Age   time.Duration // since the later of its last heartbeat and its start
	Alive bool          // Agent.Alive()
	Busy  bool          // it has a task in progress (WORKING or CONFLICTED)
	Level Level
}

// Health returns every registered agent's liveness at now under th.
func (b *Bus) Health(ctx context.Context, th Thresholds, now time.Time) ([]Health, error) {
	agents, err := b.Agents(ctx)
	if err != nil {
		return nil, err
	}
	beats, err := b.Heartbeats(ctx)
	if err != nil {
		return nil, err
	}
	byAgent := make(map[string]Heartbeat, len(beats))
	for _, hb := range beats {
		byAgent[hb.Agent] = hb
	}
	busy, err := b.Busy(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Health, len(agents))
	for i, a := range agents {
		h := Health{Agent: a, Beat: byAgent[a.Name], Alive: a.Alive(), Busy: busy[a.Name]}
		last := h.Beat.Time
		if a.Started.After(last) {
			last = a.Started
		}
		if last.IsZero() {
			last = a.Updated
		}
		h.Age = max(now.Sub(last), 0)
		h.Level = th.Level(h.Age, ActivityOf(a, h.Busy))
		out[i] = h
	}
	return out, nil
}

// Busy returns the agents that have a task in hand (WORKING,
// CHANGES_REQUESTED, CONFLICTED: TaskState.InHand): their silence is a worry, others' is not.
func (b *Bus) Busy(ctx context.Context) (map[string]bool, error) {
	ts, err := b.Tasks(ctx, TaskFilter{States: InHandTaskStates()})
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ts))
	for _, t := range ts {
		out[t.Assignee] = true
	}
	return out, nil
}
