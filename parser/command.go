package parser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Kind says how a command is delivered.
type Kind int

const (
	// KindRelay is a message for its recipients (@relay: and blocks).
	KindRelay Kind = iota + 1
	// KindThinking is an agent thinking aloud (@thinking:): logged and shown,
	// delivered only to agents that opt in.
	KindThinking
)

// String returns "relay" or "thinking".
func (k Kind) String() string {
	switch k {
	case KindRelay:
		return "relay"
	case KindThinking:
		return "thinking"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Command is one relay command found in the output. From is not part of it:
// the caller knows which terminal the lines came from.
type Command struct {
	Kind Kind
	// To is a valid target: an agent name, "*" or "swarm".
	To string
	// Type is "message" unless a block says otherwise.
	Type string
	// Body is the message text: trimmed for inline commands, as written in
	// a block.
	Body string
	// Data is the block's data field, compacted; nil when absent or null.
	Data json.RawMessage
	// Topic, CorrelationID and InReplyTo come from a block's topic,
	// correlation_id and in_reply_to fields; empty for inline commands.
	Topic         string
	CorrelationID string
	InReplyTo     string
	// Line is the number of the line the command started on.
	Line int64
	// Source is the text the command was read from: the inline line (and its
	// continuation rows, joined with "\n"), or the block with its markers
	// and with each line's prefix removed.
	Source string
	// FromBlock is set for a command read from a [[RELAY]] block, clear for
	// an inline one: set where the block is decoded, so that nothing
	// downstream tells the two apart by what Source's text looks like.
	FromBlock bool
}

// Sentinel errors carried by [ParseError]; test with errors.Is.
var (
	// ErrInvalidTarget: an inline command or a block names a target that is
	// not a valid name, "*" or "swarm".
	ErrInvalidTarget = errors.New("invalid relay target")
	// ErrEmptyBody: an inline command (or a block of type message) has
	// nothing to deliver.
	ErrEmptyBody = errors.New("empty relay message")
	// ErrMalformedBlock: a block is not one JSON object with the known fields
	// of the right types.
	ErrMalformedBlock = errors.New("malformed relay block")
	// ErrTooLarge: a block or inline command is over Options.MaxBlock bytes.
	ErrTooLarge = errors.New("relay command too large")
	// ErrUnterminatedBlock: a block's end marker never came.
	ErrUnterminatedBlock = errors.New("unterminated relay block")
)

// ParseError is a relay command that was evidently intended but cannot be
// delivered. The author should be told Reason.
type ParseError struct {
	// Reason is one line naming the problem, starting with Err's text.
	Reason string
	// Line is the number of the line the command started on.
	Line int64
	// Err is one of the sentinel errors above.
	Err error
}

func newError(line int64, err error, detail string) *ParseError {
	reason := err.Error()
	if detail != "" {
		reason += ": " + detail
	}
	return &ParseError{Reason: reason, Line: line, Err: err}
}

// Error returns "line N: reason".
func (e ParseError) Error() string {
	return "line " + strconv.FormatInt(e.Line, 10) + ": " + e.Reason
}

// Unwrap returns the sentinel error.
func (e ParseError) Unwrap() error { return e.Err }

// Event is one result of parsing: exactly one of Command and Err is set.
type Event struct {
	Command *Command
	Err     *ParseError
}

type commandJSON struct {
	Kind          string          `json:"kind"`
	To            string          `json:"to"`
	Type          string          `json:"type"`
	Body          string          `json:"body"`
	Data          json.RawMessage `json:"data,omitempty"`
	Topic         string          `json:"topic,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	InReplyTo     string          `json:"in_reply_to,omitempty"`
	Line          int64           `json:"line"`
}

type errorJSON struct {
	Error string `json:"error"`
	Line  int64  `json:"line"`
}

// MarshalJSON encodes a command as {"kind","to","type","body","data",
// "topic","correlation_id","in_reply_to","line"} (data and the three
// strings after it omitted when empty) and an error as {"error","line"}.
// It does not escape HTML characters; json.Marshal of an Event escapes them
// again unless its encoder has SetEscapeHTML(false).
func (e Event) MarshalJSON() ([]byte, error) {
	var v any
	switch {
	case e.Command != nil:
		c := e.Command
		v = commandJSON{
			Kind: c.Kind.String(), To: c.To, Type: c.Type, Body: c.Body, Data: c.Data,
			Topic: c.Topic, CorrelationID: c.CorrelationID, InReplyTo: c.InReplyTo, Line: c.Line,
		}
	case e.Err != nil:
		v = errorJSON{Error: e.Err.Reason, Line: e.Err.Line}
	default:
		return nil, fmt.Errorf("marshal parser event: neither command nor error")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("marshal parser event: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ValidTarget reports whether s may be the target of a relay command: a name
// matching [A-Za-z0-9][A-Za-z0-9_.-]{0,63} (an agent, or "swarm", the
// orchestrator) or "*" (everyone but the sender). Whether the name is a
// registered agent, or a reserved one, is the bus's to say (bus.ValidName):
// the parser only reads the form, and imports nothing of swarm.
func ValidTarget(s string) bool {
	if s == "*" {
		return true
	}
	if len(s) == 0 || len(s) > 64 || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
