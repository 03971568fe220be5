package server

import (
	"encoding/json"
	"net"
	"slices"
	"sync"
	"time"

	"swarm/swarmapi"
	"swarm/wire"
)

// A subscribed connection carries the swarm's events as frames. The
// supervisor's subscription is drained as its events come, into the
// connection's outbox, which holds them until the client takes them: a
// client that reads slowly makes its outbox grow, up to maxQueued bytes.
// Past that its events are dropped, and the client is told (a frame with
// Resync) to read everything anew, as it does when its stream is opened
// again; a client that stops reading altogether is dropped after
// streamWriteTimeout.

// streamWriteTimeout is how long a frame may wait for its client.
const streamWriteTimeout = 30 * time.Second

// maxQueued bounds the events that wait for one client, in bytes.
const maxQueued = 4 << 20

// streamFrame is how long an event stream waits after notices of screen
// changes before it sends the next events: a 60th of a second.
const streamFrame = time.Second / 60

func newEventFrame(ev swarmapi.Event) wire.EventFrame {
	if ev.Message != nil {
		m := preview(*ev.Message)
		ev.Message = &m
	}
	w := wire.Event(ev)
	return wire.EventFrame{Event: &w}
}

// outbox holds a connection's events until its client takes them.
type outbox struct {
	mu      sync.Mutex
	frames  [][]byte        // events, encoded, in order
	bytes   int             // in frames
	screens map[string]bool // agents whose screen changed: a notice each, however many changes
	behind  bool            // events were dropped: the client is to read everything anew
	wake    chan struct{}
}

func newOutbox() *outbox {
	return &outbox{screens: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// push queues ev, or drops every event queued when it would take the
// outbox past maxQueued.
func (o *outbox) push(ev swarmapi.Event) {
	o.mu.Lock()
	if ev.Kind == swarmapi.EventScreen {
		o.screens[ev.Agent] = true
	} else if frame, err := json.Marshal(newEventFrame(ev)); err == nil {
		if o.bytes+len(frame) > maxQueued {
			o.frames, o.bytes, o.behind = nil, 0, true
			clear(o.screens) // read anew with the rest
		} else {
			o.frames = append(o.frames, frame)
			o.bytes += len(frame)
		}
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// take empties the outbox.
func (o *outbox) take() (behind bool, frames [][]byte, screens []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	behind, frames = o.behind, o.frames
	for agent := range o.screens {
		screens = append(screens, agent)
	}
	slices.Sort(screens)
	o.frames, o.bytes, o.behind = nil, 0, false
	clear(o.screens)
	return behind, frames, screens
}

// stream sends the swarm's events on c until the client goes, the swarm
// ends or the server closes.
func (s *Server) stream(c net.Conn) error {
	sub := s.sup.Subscribe()
	s.attached(1)
	defer s.attached(-1)
	box := newOutbox()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for ev := range sub.Events() {
			box.push(ev)
		}
	}()
	defer func() { sub.Close(); <-drained }()
	gone := make(chan error, 1)
	go func() {
		var discard wire.Request
		gone <- wire.ReadFrame(c, &discard) // the client sends nothing more: this returns when it hangs up
	}()
	write := func(msg []byte) error {
		// A client that stops reading (stopped, or hung) is dropped
		// rather than left to hold the stream up.
		_ = c.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		return wire.WriteMessage(c, msg)
	}
	resync, _ := json.Marshal(wire.EventFrame{Resync: true})
	frame := time.NewTimer(time.Hour)
	frame.Stop()
	defer frame.Stop()
	for {
		ended := false
		select {
		case <-box.wake:
		case <-drained: // the swarm's events have ended: the last go out
			ended = true
		case err := <-gone:
			return err
		case <-s.ctx.Done():
			return net.ErrClosed
		}
		behind, frames, screens := box.take()
		if behind {
			frames = append([][]byte{resync}, frames...)
		}
		for _, agent := range screens {
			msg, _ := json.Marshal(newEventFrame(swarmapi.Event{Kind: swarmapi.EventScreen, Agent: agent, Time: time.Now()}))
			frames = append(frames, msg)
		}
		for _, msg := range frames {
			if err := write(msg); err != nil {
				return err
			}
		}
		if ended {
			return nil
		}
		if len(screens) == 0 {
			continue
		}
		// The next notices wait for a frame: meanwhile the outbox keeps
		// one per agent, however much output comes, so that a busy agent
		// costs a notice a frame, not one per read of its output.
		frame.Reset(streamFrame)
		select {
		case <-frame.C:
		case err := <-gone:
			return err
		case <-s.ctx.Done():
			return net.ErrClosed
		}
	}
}
