package tui

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"swarm/internal/testrun"
	"swarm/swarmapi"
)

// recorder collects what the bridge sends.
type recorder struct {
	mu   sync.Mutex
	msgs []tea.Msg
}

func (r *recorder) send(m tea.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
}

func TestBridgeCoalescesScreensAndKeepsEverythingElse(t *testing.T) {
	events := make(chan swarmapi.Event)
	var rec recorder
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A frame longer than the test: after the first change, screen
		// notices wait for the next frame, which only the end brings.
		bridge(context.Background(), events, rec.send, time.Hour)
	}()
	var want []string
	for i := range 50 {
		events <- swarmapi.Event{Kind: swarmapi.EventScreen, Agent: "a"}
		events <- swarmapi.Event{Kind: swarmapi.EventScreen, Agent: "b"}
		if i%5 == 0 {
			text := fmt.Sprintf("delivered %d", i)
			events <- swarmapi.Event{Kind: swarmapi.EventDelivered, Agent: "b", Text: text}
			want = append(want, text)
		}
	}
	close(events)
	<-done

	var got []string
	var screens []ScreensMsg
	for _, m := range rec.msgs {
		switch m := m.(type) {
		case EventMsg:
			got = append(got, m.Text)
		case ScreensMsg:
			screens = append(screens, m)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q (in order, none dropped)", got, want)
	}
	// The first change goes out at once; everything after it in the same
	// frame is one notice naming both agents.
	if len(screens) != 2 || !slices.Equal(screens[0].Agents, []string{"a"}) || !slices.Equal(screens[1].Agents, []string{"a", "b"}) {
		t.Fatalf("screen notices = %+v, want [a] then [a b]", screens)
	}
	if _, ok := rec.msgs[len(rec.msgs)-1].(swarmGoneMsg); !ok {
		t.Fatalf("last message %T, want swarmGoneMsg", rec.msgs[len(rec.msgs)-1])
	}
}

func TestBridgeFlushesScreensEachFrame(t *testing.T) {
	events := make(chan swarmapi.Event)
	var rec recorder
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		bridge(ctx, events, rec.send, time.Millisecond)
	}()
	events <- swarmapi.Event{Kind: swarmapi.EventScreen, Agent: "a"}
	events <- swarmapi.Event{Kind: swarmapi.EventScreen, Agent: "b"}
	// Without further events the pending change still goes out.
	var names []string
	sent := testrun.Poll(testrun.Patience, func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		names = names[:0]
		for _, m := range rec.msgs {
			if s, ok := m.(ScreensMsg); ok {
				names = append(names, s.Agents...)
			}
		}
		return slices.Contains(names, "b")
	})
	if !sent {
		t.Fatalf("the change to b was never sent: %v", names)
	}
	cancel()
	<-done
}
