package bus

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// Record is a message as one JSON object: the line format of Export and of
// the CLI's --json output.
type Record struct {
	ID            string           `json:"id"`
	Seq           int64            `json:"seq"`
	TS            time.Time        `json:"ts"`
	From          string           `json:"from"`
	To            string           `json:"to"`
	Topic         string           `json:"topic,omitempty"`
	Kind          string           `json:"kind"`
	Body          string           `json:"body"`
	BodyError     string           `json:"body_error,omitempty"`
	Data          json.RawMessage  `json:"data,omitempty"`
	CorrelationID string           `json:"correlation_id,omitempty"`
	InReplyTo     string           `json:"in_reply_to,omitempty"`
	Priority      int              `json:"priority,omitempty"`
	TTLMS         int64            `json:"ttl_ms,omitempty"`
	PayloadRef    string           `json:"payload_ref,omitempty"`
	LogOnly       bool             `json:"log_only,omitempty"`
	State         string           `json:"state"`
	Deliveries    []RecordDelivery `json:"deliveries,omitempty"`
}

// RecordDelivery is a delivery inside a Record.
type RecordDelivery struct {
	Recipient string `json:"recipient"`
	State     string `json:"state"`
	Attempts  int    `json:"attempts,omitempty"`
	Error     string `json:"error,omitempty"`
}

// NewRecord converts m; state is the "state" field (m.State() or
// m.StateFor(agent)).
func NewRecord(m Message, state string) Record {
	r := Record{ID: m.ID, Seq: m.Seq, TS: m.Time, From: m.From, To: m.To, Topic: m.Topic, Kind: string(m.Kind),
		Body: m.Body, BodyError: m.BodyErr, Data: m.Data, CorrelationID: m.CorrelationID, InReplyTo: m.InReplyTo, Priority: m.Priority,
		TTLMS: m.TTL.Milliseconds(), PayloadRef: m.PayloadRef, LogOnly: m.LogOnly, State: state}
	for _, d := range m.Deliveries {
		r.Deliveries = append(r.Deliveries, RecordDelivery{Recipient: d.Recipient, State: d.State.String(), Attempts: d.Attempts, Error: d.Error})
	}
	return r
}

// DecodeRecord parses one JSON line written by Export. It requires an id
// and a positive seq, the fields Export resumes from.
func DecodeRecord(line []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, fmt.Errorf("decode record: %w", err)
	}
	if r.ID == "" || r.Seq <= 0 {
		return Record{}, errors.New("decode record: missing id or seq")
	}
	return r, nil
}

// EncodeRecord returns r as one JSON line ending in '\n'.
func EncodeRecord(r Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Export appends every message after the last one already in the JSONL
// file at path (created 0600) and returns how many it wrote. The file
// itself is the cursor: its last complete line names the last exported
// seq, and an incomplete last line (a crash mid-write) is cut off first.
// So an export interrupted at any point is finished by the next one with
// no message duplicated or skipped. Concurrent exports to the same file
// are serialised with an advisory lock.
func (b *Bus) Export(ctx context.Context, path string) (int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("export %s: lock: %w", path, err)
	}
	after, end, err := exportTail(f)
	if err != nil {
		return 0, fmt.Errorf("export %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil {
		return 0, fmt.Errorf("export %s: %w", path, err)
	} else if fi.Size() != end {
		if err := f.Truncate(end); err != nil {
			return 0, fmt.Errorf("export %s: cut torn last line: %w", path, err)
		}
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return 0, fmt.Errorf("export %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	n := 0
	for {
		page, err := b.Messages(ctx, after, 1000)
		if err != nil {
			return n, fmt.Errorf("export %s: %w", path, err)
		}
		if len(page) == 0 {
			break
		}
		for _, m := range page {
			line, err := EncodeRecord(NewRecord(m, m.State()))
			if err != nil {
				return n, fmt.Errorf("export %s: message %s: %w", path, m.ID, err)
			}
			if _, err := w.Write(line); err != nil {
				return n, fmt.Errorf("export %s: %w", path, err)
			}
			n++
		}
		after = page[len(page)-1].Seq
	}
	if err := w.Flush(); err != nil {
		return n, fmt.Errorf("export %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("export %s: %w", path, err)
	}
	return n, nil
}

// exportTail finds the end of the last complete line of f and the seq it
// records (0 for an empty file). Blank lines are skipped.
func exportTail(f *os.File) (seq, end int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size := fi.Size()
	// end: just after the last '\n'; everything after it is torn.
	nl, err := lastByte(f, size, '\n')
	if err != nil {
		return 0, 0, err
	}
	end = nl + 1 // 0 when there is no newline at all
	lineEnd := nl
	for lineEnd > 0 {
		start, err := lastByte(f, lineEnd, '\n')
		if err != nil {
			return 0, 0, err
		}
		line := make([]byte, lineEnd-(start+1))
		if _, err := f.ReadAt(line, start+1); err != nil {
			return 0, 0, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			r, err := DecodeRecord(line)
			if err != nil {
				return 0, 0, fmt.Errorf("last complete line is not a swarm export record: %w", err)
			}
			return r.Seq, end, nil
		}
		lineEnd = start
	}
	return 0, end, nil
}

// lastByte returns the offset of the last c in f before offset before, or
// -1 if there is none.
func lastByte(f *os.File, before int64, c byte) (int64, error) {
	buf := make([]byte, 64<<10)
	for before > 0 {
		n := int64(len(buf))
		if n > before {
			n = before
		}
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, before-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, c); i >= 0 {
			return before - n + int64(i), nil
		}
		before -= n
	}
	return -1, nil
}
