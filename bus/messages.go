package bus

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind says what a message is for. Kinds other than the constants below
// are allowed and stored as given.
type Kind string

// Message kinds with a meaning to swarm.
const (
	KindMessage    Kind = "message"     // ordinary text between parties (the default)
	KindThinking   Kind = "thinking"    // an agent's thinking aloud: logged, delivered only to opt-in agents
	KindNotice     Kind = "notice"      // from swarm: a failure or event the recipient should know about
	KindTaskStart  Kind = "task_start"  // to swarm: the sender started its current task
	KindTaskDone   Kind = "task_done"   // to swarm: the sender finished its current task
	KindTaskFail   Kind = "task_fail"   // to swarm: the sender gives up its current task (data.reason)
	KindTaskCreate Kind = "task_create" // to swarm: create a task (data.assignee, data.title, data.description)
	KindHeartbeat  Kind = "heartbeat"   // to swarm: data.status, data.progress, data.task
	KindTurn       Kind = "turn"        // to swarm: an agent CLI's hook says its turn began or ended or it needs the person (data.status, data.hook, data.note)

	// From swarm to an agent, about its tasks.
	KindTaskAssigned  Kind = "task_assigned"  // a task to do (data.task, title, dir, branch)
	KindTaskConflict  Kind = "task_conflict"  // its task is CONFLICTED and why
	KindTaskChanges   Kind = "task_changes"   // the reviewer requested changes, or a check failed in the merge queue
	KindTaskChecks    Kind = "task_checks"    // a check failed on its task's branch in review (data.task, cmd, state)
	KindTaskReview    Kind = "task_review"    // to the reviewer agent: a task to review (data.task, commit, diff)
	KindTaskCancelled Kind = "task_cancelled" // its task was cancelled
	KindBrief         Kind = "brief"          // the brief typed in at each start (log only)

	// The refereed game.
	KindGameMove    Kind = "game_move"    // a legal move between players
	KindGameIllegal Kind = "game_illegal" // a refused move (log only)
	KindGameResult  Kind = "game_result"  // the result, to both players
)

// Message is one message on the bus.
type Message struct {
	ID            string          // UUIDv7 unless the publisher chose one; publishing an existing id is a no-op
	Seq           int64           // position in the log, assigned at publish
	Time          time.Time       // publish time (millisecond precision)
	From, To      string          // To is an agent, "human", "swarm" or "*"
	Topic         string          // optional free-form thread or subject
	Kind          Kind            // default KindMessage
	Body          string          // text; over 4 KiB it is kept in a blob file
	Data          json.RawMessage // optional JSON value
	CorrelationID string
	InReplyTo     string
	Priority      int           // carried for consumers; Pending keeps seq order regardless
	TTL           time.Duration // deliveries not confirmed within TTL of Time expire; 0 = never
	PayloadRef    string        // set by the bus when Body lives in a blob ("sha256:<hex>")
	// BodyErr says why Body is empty when its blob cannot be read (gone,
	// damaged, not a file): the rest of the message is as stored.
	BodyErr string
	// BodyLater: the blob is refused for now (a symbolic link, a read
	// error), not gone or damaged: the body may be read later.
	BodyLater  bool       `json:"-"`
	LogOnly    bool       // store and log it, create no deliveries
	Deliveries []Delivery // filled on reads and by Publish
}

// bodyInlineMax is the largest body stored in the messages table.
const bodyInlineMax = 4096

// ShortID returns the 8 characters users see and type for a message id:
// the last 8 hex digits of a UUID (in a UUIDv7 the first ones are the
// timestamp, shared by messages sent together; the last ones are random).
func ShortID(id string) string {
	s := strings.ReplaceAll(id, "-", "")
	if len(s) <= 8 {
		return strings.ToLower(s)
	}
	return strings.ToLower(s[len(s)-8:])
}

// State summarises the message's deliveries: the common state if all agree,
// "mixed" if they differ, "logged" if there are none.
func (m Message) State() string {
	if len(m.Deliveries) == 0 {
		return "logged"
	}
	s := m.Deliveries[0].State
	for _, d := range m.Deliveries[1:] {
		if d.State != s {
			return "mixed"
		}
	}
	return s.String()
}

// StateFor is the state of the delivery to agent, or State() if agent is
// not a recipient (for example, it is the sender).
func (m Message) StateFor(agent string) string {
	for _, d := range m.Deliveries {
		if d.Recipient == agent {
			return d.State.String()
		}
	}
	return m.State()
}

// Shown is the body as a person should see it: the body, or, when its
// blob cannot be read, a note saying so and why.
func (m Message) Shown() string {
	if m.BodyErr != "" {
		return "[body unreadable: " + m.BodyErr + "]"
	}
	return m.Body
}

// querier is what *sql.DB, *sql.Tx and *sql.Conn have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

const messageCols = `m.seq, m.id, m.ts_ms, m.from_name, m.to_name, m.topic, m.kind, m.body, m.data,
	m.correlation_id, m.in_reply_to, m.priority, m.ttl_ms, m.payload_ref, m.log_only`

type scanner interface{ Scan(dest ...any) error }

// scanMessage reads one row selected with messageCols (plus extra
// destinations after them) and loads a blob body.
func (b *Bus) scanMessage(s scanner, extra ...any) (Message, error) {
	var m Message
	var ts, ttl int64
	var kind string
	var data sql.NullString
	dest := append([]any{&m.Seq, &m.ID, &ts, &m.From, &m.To, &m.Topic, &kind, &m.Body, &data,
		&m.CorrelationID, &m.InReplyTo, &m.Priority, &ttl, &m.PayloadRef, &m.LogOnly}, extra...)
	if err := s.Scan(dest...); err != nil {
		return Message{}, err
	}
	m.Time, m.Kind, m.TTL = fromMS(ts), Kind(kind), time.Duration(ttl)*time.Millisecond
	if data.Valid {
		m.Data = json.RawMessage(data.String)
	}
	if m.PayloadRef != "" {
		// A blob that is missing or damaged costs its body only: the
		// message, and every other one, is still read.
		body, err := b.readBlob(m.PayloadRef)
		if err != nil {
			m.BodyErr, m.BodyLater = err.Error(), !errors.Is(err, ErrCorrupt)
		} else {
			m.Body = string(body)
		}
	}
	return m, nil
}

// messageByID reads one message with its deliveries.
func (b *Bus) messageByID(ctx context.Context, q querier, id string) (Message, error) {
	m, err := b.scanMessage(q.QueryRowContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE m.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("message %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Message{}, err
	}
	one := []Message{m}
	if err := attachDeliveries(ctx, q, one, false); err != nil {
		return Message{}, err
	}
	return one[0], nil
}

// attachDeliveries fills Deliveries of ms. If contiguous is set, ms are in
// seq order and one range query is enough.
func attachDeliveries(ctx context.Context, q querier, ms []Message, contiguous bool) error {
	if len(ms) == 0 {
		return nil
	}
	idx := make(map[int64]int, len(ms))
	for i := range ms {
		idx[ms[i].Seq] = i
	}
	const cols = `SELECT seq, recipient, state, attempts, updated_ms, error FROM deliveries`
	query, args := cols+` WHERE seq BETWEEN ? AND ? ORDER BY seq, recipient`, []any{ms[0].Seq, ms[len(ms)-1].Seq}
	if !contiguous {
		// One statement for any number of messages (a JSON array of their
		// seqs), so that it is prepared once, not once per list length.
		seqs := make([]int64, len(ms))
		for i, m := range ms {
			seqs[i] = m.Seq
		}
		list, err := json.Marshal(seqs)
		if err != nil {
			return err
		}
		query, args = cols+` WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq, recipient`, []any{string(list)}
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		d, err := scanDelivery(rows, &seq)
		if err != nil {
			return err
		}
		if i, ok := idx[seq]; ok {
			d.MessageID = ms[i].ID
			ms[i].Deliveries = append(ms[i].Deliveries, d)
		}
	}
	return rows.Err()
}

// Message returns the message with the full id, with its deliveries.
func (b *Bus) Message(ctx context.Context, id string) (Message, error) {
	var m Message
	err := b.read(ctx, func(tx readTx) error {
		var err error
		m, err = b.messageByID(ctx, tx, id)
		return err
	})
	return m, err
}

// FindByShortID returns the message whose ShortID is short (a leading '#'
// is ignored; a full id works too). ErrNotFound if none, ErrAmbiguous if
// several match. It scans the log (short ids are not indexed, to keep
// publishing fast), so it is meant for ids a person typed; code that has a
// full id should use Message.
func (b *Bus) FindByShortID(ctx context.Context, short string) (Message, error) {
	short = strings.TrimPrefix(strings.TrimSpace(short), "#")
	if len(short) > 8 {
		return b.Message(ctx, short)
	}
	var m Message
	err := b.read(ctx, func(tx readTx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM messages WHERE short = ? ORDER BY seq DESC LIMIT 2`, strings.ToLower(short))
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		switch len(ids) {
		case 0:
			return fmt.Errorf("message #%s: %w", short, ErrNotFound)
		case 1:
			m, err = b.messageByID(ctx, tx, ids[0])
			return err
		default:
			return fmt.Errorf("message #%s: %w: more than one message has this short id; use the full id", short, ErrAmbiguous)
		}
	})
	return m, err
}

// Messages returns up to limit messages with seq > afterSeq in seq order,
// with their deliveries. limit <= 0 means no limit.
func (b *Bus) Messages(ctx context.Context, afterSeq int64, limit int) ([]Message, error) {
	if limit <= 0 {
		limit = -1
	}
	var out []Message
	err := b.read(ctx, func(tx readTx) error {
		rows, err := tx.StmtContext(ctx, b.st.after).QueryContext(ctx, afterSeq)
		if err != nil {
			return err
		}
		out, err = b.collect(rows, limit)
		if err != nil {
			return err
		}
		return attachDeliveries(ctx, tx, out, true)
	})
	if err != nil {
		return nil, fmt.Errorf("messages after %d: %w", afterSeq, err)
	}
	return out, nil
}

// collect scans and closes up to limit (-1: all) rows of messageCols.
func (b *Bus) collect(rows *sql.Rows, limit int) ([]Message, error) {
	defer rows.Close()
	var out []Message
	for (limit < 0 || len(out) < limit) && rows.Next() {
		m, err := b.scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Inbox returns the latest limit messages to or from agent — including
// broadcasts it received and messages that failed to reach it — in seq
// order, with their deliveries. limit <= 0 means all.
func (b *Bus) Inbox(ctx context.Context, agent string, limit int) ([]Message, error) {
	if limit <= 0 {
		limit = -1
	}
	var out []Message
	err := b.read(ctx, func(tx readTx) error {
		// Each branch reads its index backwards and stops after limit rows,
		// so the cost does not grow with the size of the log.
		rows, err := tx.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE m.seq IN (
				SELECT seq FROM (SELECT seq FROM deliveries WHERE recipient = ?1 AND open = 0 ORDER BY seq DESC LIMIT ?2)
				UNION
				SELECT seq FROM (SELECT seq FROM deliveries WHERE recipient = ?1 AND open = 1 ORDER BY seq DESC LIMIT ?2)
				UNION
				SELECT seq FROM (SELECT seq FROM messages WHERE from_name = ?1 ORDER BY seq DESC LIMIT ?2)
			) ORDER BY m.seq DESC LIMIT ?2`, agent, limit)
		if err != nil {
			return err
		}
		out, err = b.collect(rows, -1)
		if err != nil {
			return err
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return attachDeliveries(ctx, tx, out, false)
	})
	if err != nil {
		return nil, fmt.Errorf("inbox %s: %w", agent, err)
	}
	return out, nil
}

// LastSeq returns the seq of the newest message, 0 if there is none.
func (b *Bus) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := b.rq().QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM messages`).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("last seq: %w", err)
	}
	return seq, nil
}
