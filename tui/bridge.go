package tui

import (
	"context"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"swarm/swarmapi"
)

// EventMsg carries one supervisor event into the program.
type EventMsg struct{ swarmapi.Event }

// ScreensMsg says that the screens of these agents changed since the last
// frame.
type ScreensMsg struct{ Agents []string }

// swarmGoneMsg says the event stream ended: the supervisor stopped.
type swarmGoneMsg struct{}

// bridge forwards events to send until ctx ends or events is closed.
// Every event but a screen notice is forwarded at once and in order.
// Screen notices are gathered and sent as one ScreensMsg at most once per
// frame: the first change after a quiet spell goes out immediately, so a
// keystroke's echo is not delayed, and a flood of output costs at most one
// render per frame.
func bridge(ctx context.Context, events <-chan swarmapi.Event, send func(tea.Msg), frame time.Duration) {
	dirty := map[string]bool{}
	var last time.Time // when the last ScreensMsg went out
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false

	flush := func() {
		names := make([]string, 0, len(dirty))
		for n := range dirty {
			names = append(names, n)
		}
		slices.Sort(names)
		clear(dirty)
		last = time.Now()
		send(ScreensMsg{Agents: names})
	}
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				if len(dirty) > 0 {
					flush()
				}
				send(swarmGoneMsg{})
				return
			}
			if ev.Kind != swarmapi.EventScreen {
				send(EventMsg{ev})
				continue
			}
			dirty[ev.Agent] = true
			if armed {
				continue
			}
			if wait := frame - time.Since(last); wait > 0 {
				timer.Reset(wait)
				armed = true
				continue
			}
			flush()
		case <-timer.C:
			armed = false
			if len(dirty) > 0 {
				flush()
			}
		}
	}
}
