// Package asciicast reads and writes terminal recordings in asciinema's
// asciicast v2 format: a JSON header line, then one JSON array per event,
// [seconds, code, data], where code "o" is output the program wrote, "i"
// input it was sent, "r" a resize ("COLSxROWS") and "m" a marker.
//
// swarm keeps real agent CLIs' sessions in this format (testdata/cli) and
// `swarm parse` replays them: unlike a raw capture, a recording keeps the
// timing (a pause lets a redrawing program's screen settle) and the window
// size changes.
package asciicast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Codes of the events.
const (
	Output = "o"
	Input  = "i"
	Resize = "r"
	Marker = "m"
)

// ErrFormat is wrapped by every error about a malformed recording.
var ErrFormat = errors.New("not an asciicast v2 recording")

// Header is a recording's first line.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Title     string            `json:"title,omitempty"`
	Command   string            `json:"command,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// Event is one recorded event.
type Event struct {
	// Time is since the start of the recording.
	Time time.Duration
	// Code is Output, Input, Resize or Marker (others are kept as read).
	Code string
	// Data is what was written or typed, the new size, or the marker's
	// label.
	Data string
}

// Size returns the size a Resize event gives.
func (e Event) Size() (cols, rows int, err error) {
	c, r, ok := strings.Cut(e.Data, "x")
	if ok {
		if cols, err = strconv.Atoi(c); err == nil {
			rows, err = strconv.Atoi(r)
		}
	}
	if !ok || err != nil || cols < 1 || rows < 1 {
		return 0, 0, fmt.Errorf("%w: bad size %q", ErrFormat, e.Data)
	}
	return cols, rows, nil
}

// Is reports whether data starts like a recording (its header line).
func Is(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	if !bytes.HasPrefix(data, []byte("{")) {
		return false
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var h Header
	return json.Unmarshal(line, &h) == nil && h.Version == 2
}

// Reader reads a recording event by event.
type Reader struct {
	sc     *bufio.Scanner
	header Header
	line   int
}

// maxLine bounds one event; a CLI's frame is far smaller.
const maxLine = 64 << 20

// NewReader reads the header of the recording r.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	rd := &Reader{sc: sc}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read recording: %w", err)
		}
		return nil, fmt.Errorf("%w: empty", ErrFormat)
	}
	rd.line = 1
	if err := json.Unmarshal(sc.Bytes(), &rd.header); err != nil || rd.header.Version != 2 {
		return nil, fmt.Errorf("%w: line 1 is not a version 2 header", ErrFormat)
	}
	if rd.header.Width < 1 || rd.header.Height < 1 {
		return nil, fmt.Errorf("%w: header has no width and height", ErrFormat)
	}
	return rd, nil
}

// Header returns the recording's header.
func (r *Reader) Header() Header { return r.header }

// Next returns the next event, or io.EOF after the last one.
func (r *Reader) Next() (Event, error) {
	for r.sc.Scan() {
		r.line++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 3 {
			return Event{}, fmt.Errorf("%w: line %d is not [time, code, data]", ErrFormat, r.line)
		}
		var secs float64
		var ev Event
		if json.Unmarshal(raw[0], &secs) != nil || json.Unmarshal(raw[1], &ev.Code) != nil ||
			json.Unmarshal(raw[2], &ev.Data) != nil || secs < 0 {
			return Event{}, fmt.Errorf("%w: line %d is not [time, code, data]", ErrFormat, r.line)
		}
		ev.Time = time.Duration(secs * float64(time.Second))
		return ev, nil
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, fmt.Errorf("read recording line %d: %w", r.line+1, err)
	}
	return Event{}, io.EOF
}

// Writer writes a recording.
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter writes h (Version is set to 2) and returns a Writer for the
// events.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Version = 2
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return &Writer{w: w}, nil
}

// Write writes one event. Data must be valid UTF-8 to survive: JSON
// strings cannot hold other bytes.
func (w *Writer) Write(ev Event) error {
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal([]any{ev.Time.Seconds(), ev.Code, ev.Data})
	if err != nil {
		return err
	}
	_, w.err = w.w.Write(append(b, '\n'))
	return w.err
}
