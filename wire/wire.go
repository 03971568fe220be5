// Package wire is the protocol between a running swarm and the programs
// that talk to it over its socket (.swarm/swarm.sock): swarm's own CLI
// (swarm peek, send, task, stop) and the terminal UI attached to a swarm.
// Its methods and their payloads are typed in protocol.go.
//
// A connection carries frames: a 4-byte big-endian length, then that many
// bytes of one JSON message. Each side first sends a Hello; a client then
// sends Requests and the server answers each with the Reply of the same
// ID, in the order they are done (a slow request does not hold up the
// next). A Request for MethodSubscribe turns its connection into a stream
// of events, one per frame, until the client closes it. A frame longer
// than MaxFrame is refused, and a frame's memory is taken as its bytes
// arrive, so a peer cannot make the other allocate what it likes by
// promising a long frame.
package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol this build speaks. A change that an older peer
// would misread takes a new version.
const Version = 6

// MaxFrame bounds a frame's message.
const MaxFrame = 16 << 20

// ErrFrameTooLarge is returned by ReadFrame for a frame over MaxFrame.
var ErrFrameTooLarge = errors.New("frame too large")

// Hello opens a connection, from each side.
type Hello struct {
	Version int    `json:"version"`
	Program string `json:"program"` // "swarm 1.2.3", for messages about a mismatch
	// Refused, from a server, says why it takes no more of this
	// connection, which it closes.
	Refused string `json:"refused,omitempty"`
}

// Request asks the server to run Method with Params (the method's params
// type, as JSON).
type Request struct {
	ID     uint64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Reply answers the Request of the same ID: Result (the method's result
// type, as JSON), or Error, one line for a person, with Code naming the
// kind of error when a program may act on it ("" otherwise).
type Reply struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	Code   string          `json:"code,omitempty"`
}

// WriteFrame writes v as one frame.
func WriteFrame(w io.Writer, v any) error {
	msg, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteMessage(w, msg)
}

// WriteMessage writes msg, a JSON message, as one frame.
func WriteMessage(w io.Writer, msg []byte) error {
	if len(msg) > MaxFrame {
		return fmt.Errorf("write frame of %d bytes: %w", len(msg), ErrFrameTooLarge)
	}
	frame := make([]byte, 4, 4+len(msg))
	binary.BigEndian.PutUint32(frame, uint32(len(msg)))
	_, err := w.Write(append(frame, msg...))
	return err
}

// ReadFrame reads one frame into v. A connection closed between frames is
// io.EOF; one closed inside a frame is io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader, v any) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > MaxFrame {
		return fmt.Errorf("read frame of %d bytes: %w", n, ErrFrameTooLarge)
	}
	// The buffer grows with what arrives, not with what the length
	// promises.
	var msg bytes.Buffer
	if _, err := io.CopyN(&msg, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if err := json.Unmarshal(msg.Bytes(), v); err != nil {
		return fmt.Errorf("read frame: %w", err)
	}
	return nil
}

// CheckHello returns an error for a peer that speaks another version,
// saying which program it is.
func CheckHello(h Hello) error {
	if h.Version != Version {
		return fmt.Errorf("%s speaks protocol %d, this swarm %d: use the swarm that started it",
			h.Program, h.Version, Version)
	}
	return nil
}

// The names of the methods a connection answers itself, and peek's (the
// Methods of protocol.go name them too).
const (
	// MethodPeek returns an agent's screen: PeekParams → PeekResult.
	MethodPeek = "peek"
	// MethodSubscribe streams the swarm's events on its connection.
	MethodSubscribe = "subscribe"
	// MethodStop stops the swarm and every agent; the reply comes first.
	MethodStop = "stop"
)

// PeekParams names the agent whose screen is asked for.
type PeekParams struct {
	Agent string `json:"agent"`
}

// PeekResult is an agent's screen as plain text.
type PeekResult struct {
	Agent     string   `json:"agent"`
	Rows      int      `json:"rows"`
	Cols      int      `json:"cols"`
	Lines     []string `json:"lines"` // the visible rows, trailing blanks trimmed
	AltScreen bool     `json:"alt_screen"`
	Title     string   `json:"title,omitempty"`
}
