package bus

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Agent process states: those the supervisor records (its AgentState
// names) and the one a reader infers from a stale record (AgentOrphaned).
// No other package spells them. Only AgentRunning counts as alive.
const (
	AgentStarting = "starting"
	AgentRunning  = "running"
	AgentBackoff  = "backoff" // exited; a restart is scheduled
	AgentExited   = "exited"
	AgentStopped  = "stopped"
	AgentGaveUp   = "gave-up" // a crash loop: not restarted again
	// AgentRemoved: no longer in the swarm's config. Messages and tasks
	// for it are refused as for an unknown agent until it is registered
	// again.
	AgentRemoved = "removed"
	// AgentRemote: the agent runs on another host of a cluster; its
	// messages queue here and its host delivers them.
	AgentRemote = "remote"
	// AgentOrphaned is never recorded: it is what an agent recorded as
	// starting or running is shown as when no swarm runs on the bus and
	// its process lives on (the swarm that started it was killed; the
	// next one ends it).
	AgentOrphaned = "orphaned"
)

// Agent is a registered agent: a name messages can be addressed to.
type Agent struct {
	Name     string
	Cmd      string
	State    string // AgentRunning, AgentStopped, … (free-form)
	Reason   string // why it is in State, e.g. "exit status 1"
	Pid      int
	Restarts int
	Started  time.Time // when it last entered AgentRunning
	Updated  time.Time
	// NoMessages: the agent takes no messages (an editor, a monitor, a
	// server): broadcasts skip it, a message to it fails at once.
	NoMessages bool
}

// Alive reports whether the agent is recorded as running and, when a pid
// is known, that process still exists on this machine. A swarm that was
// killed leaves its agents recorded as running; the pid check catches that.
func (a Agent) Alive() bool {
	if a.State != AgentRunning {
		return false
	}
	if a.Pid <= 0 {
		return true
	}
	err := syscall.Kill(a.Pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// RegisterAgent adds a or replaces the agent with the same name. Messages
// to the name are queued from then on.
func (b *Bus) RegisterAgent(ctx context.Context, a Agent) error {
	if err := ValidName(a.Name); err != nil {
		return fmt.Errorf("register agent: %w", err)
	}
	now := time.Now()
	_, err := b.exec(ctx, `INSERT INTO agents (name, cmd, state, reason, pid, restarts, started_ms, updated_ms, no_messages)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET cmd = excluded.cmd, state = excluded.state, reason = excluded.reason,
			pid = excluded.pid, restarts = excluded.restarts, started_ms = excluded.started_ms, updated_ms = excluded.updated_ms,
			no_messages = excluded.no_messages`,
		a.Name, a.Cmd, a.State, a.Reason, a.Pid, a.Restarts, msOrZero(a.Started), ms(now), a.NoMessages)
	if err != nil {
		return fmt.Errorf("register agent %s: %w", a.Name, err)
	}
	b.notify()
	if a.NoMessages {
		return b.failQueued(ctx, a.Name, takesNoMessages(a.Name))
	}
	return nil
}

// takesNoMessages is why a message to name, an agent that takes none,
// fails.
func takesNoMessages(name string) string {
	return fmt.Sprintf("agent %q takes no messages (messages = false: a shell, an editor or a viewer by default, else its config says so)", name)
}

// AgentStatus is the process state of an agent as its supervisor sees it.
type AgentStatus struct {
	State    string // AgentRunning, AgentStopped, …
	Reason   string // why it is in State
	Pid      int    // 0 without a process
	Restarts int    // restarts since its last stable run
}

// SetAgentState records the process state of a registered agent. Entering
// AgentRunning also sets Started to now.
func (b *Bus) SetAgentState(ctx context.Context, name string, st AgentStatus) error {
	now := ms(time.Now())
	res, err := b.exec(ctx, `UPDATE agents SET state = ?1, reason = ?2, pid = ?3, restarts = ?4, updated_ms = ?5,
		started_ms = CASE WHEN ?1 = 'running' AND state != 'running' THEN ?5 ELSE started_ms END
		WHERE name = ?6`, st.State, st.Reason, st.Pid, st.Restarts, now, name)
	if err != nil {
		return fmt.Errorf("set agent %s state: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("set agent %s state: %w %q", name, ErrUnknownAgent, name)
	}
	b.notify()
	if st.State == AgentRemoved {
		return b.failQueued(ctx, name, fmt.Sprintf("agent %q was removed: it is not in this swarm's config", name))
	}
	return nil
}

// failQueued fails the messages still queued for name, telling their
// authors why: they would never be delivered.
func (b *Bus) failQueued(ctx context.Context, name, reason string) error {
	for {
		msgs, err := b.Pending(ctx, name, 500)
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			return nil
		}
		for _, m := range msgs {
			if err := b.MarkFailed(ctx, m.ID, name, reason); err != nil {
				return err
			}
		}
	}
}

const agentCols = `name, cmd, state, reason, pid, restarts, started_ms, updated_ms, no_messages`

func scanAgent(s scanner) (Agent, error) {
	var a Agent
	var started, updated int64
	if err := s.Scan(&a.Name, &a.Cmd, &a.State, &a.Reason, &a.Pid, &a.Restarts, &started, &updated, &a.NoMessages); err != nil {
		return Agent{}, err
	}
	a.Started, a.Updated = fromMS(started), fromMS(updated)
	return a, nil
}

// Agents returns the registered agents by name.
func (b *Bus) Agents(ctx context.Context) ([]Agent, error) {
	rows, err := b.rq().QueryContext(ctx, `SELECT `+agentCols+` FROM agents ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	defer rows.Close()
	var out []Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, fmt.Errorf("agents: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Agent returns the registered agent name, or an error wrapping
// ErrUnknownAgent.
func (b *Bus) Agent(ctx context.Context, name string) (Agent, error) {
	a, err := scanAgent(b.rq().QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, fmt.Errorf("%w %q", ErrUnknownAgent, name)
	}
	if err != nil {
		return Agent{}, fmt.Errorf("agent %s: %w", name, err)
	}
	return a, nil
}

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return ms(t)
}

// SetAgentToken records the secret token the agent's current process
// holds (only its SHA-256 is stored); "" clears it.
func (b *Bus) SetAgentToken(ctx context.Context, name, token string) error {
	hash := ""
	if token != "" {
		hash = tokenHash(token)
	}
	res, err := b.exec(ctx, `UPDATE agents SET token_hash = ? WHERE name = ?`, hash, name)
	if err != nil {
		return fmt.Errorf("set agent %s token: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("set agent %s token: %w %q", name, ErrUnknownAgent, name)
	}
	return nil
}

// AgentByToken returns the agent whose current process holds token;
// ErrNotFound if none does.
func (b *Bus) AgentByToken(ctx context.Context, token string) (Agent, error) {
	if token == "" {
		return Agent{}, fmt.Errorf("agent by token: %w", ErrNotFound)
	}
	a, err := scanAgent(b.rq().QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE token_hash = ?`, tokenHash(token)))
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, fmt.Errorf("agent by token: %w", ErrNotFound)
	}
	return a, err
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
