package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/swarmapi"
)

// An outbox never holds more than maxQueued bytes: past that, what it
// holds is dropped and the client is to read everything anew; screen
// notices are one per agent however many changes.
func TestAnOutboxIsBounded(t *testing.T) {
	o := newOutbox()
	big := strings.Repeat("x", 100<<10)
	for i := range 100 {
		o.push(swarmapi.Event{Kind: swarmapi.EventNotice, Agent: "a", Text: fmt.Sprint(i, big)})
		o.push(swarmapi.Event{Kind: swarmapi.EventScreen, Agent: "b"})
		if o.bytes > maxQueued {
			t.Fatalf("after %d events the outbox holds %d bytes", i+1, o.bytes)
		}
	}
	behind, frames, screens := o.take()
	if !behind || len(frames) == 0 || len(frames) >= 100 {
		t.Fatalf("after 10 MB: behind %v, %d frames", behind, len(frames))
	}
	if !strings.Contains(string(frames[len(frames)-1]), `"Text":"99xxx`) {
		t.Errorf("the last frame is not the last event: %.60s", frames[len(frames)-1])
	}
	if len(screens) != 1 || screens[0] != "b" {
		t.Errorf("screen notices: %q", screens)
	}
	if behind, frames, screens := o.take(); behind || len(frames) != 0 || len(screens) != 0 {
		t.Errorf("taken twice: %v %d %q", behind, len(frames), screens)
	}
}

// A client that reads its events slowly (yet fast enough not to be
// dropped) made the server buffer them without bound, about a gigabyte an
// hour: it is told it fell behind, and reads everything anew.
func TestASlowSubscriberReadsAnew(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	_, b := startSwarmBus(t, busDir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A fast client takes every event as it comes; the slow one takes one
	// for every ten the fast one has, however fast the machine makes them.
	slow, fast := r.Subscribe(), r.Subscribe()
	defer slow.Close()
	defer fast.Close()
	const tasks = 500 // of 64 KB each, an event each
	paced := make(chan struct{}, tasks)
	go func() {
		defer close(paced)
		n := 0
		for {
			var ev swarmapi.Event
			select {
			case e, ok := <-fast.Events():
				if !ok {
					return
				}
				ev = e
			case <-ctx.Done():
				return
			}
			if ev.Kind == swarmapi.EventTask && ev.Task != nil {
				if n++; n%10 == 0 {
					paced <- struct{}{}
				}
				if n == tasks {
					return
				}
			}
			if ev.Kind == swarmapi.EventNotice && ev.Agent == bus.Swarm {
				return // a machine so busy that even the fast client fell behind
			}
		}
	}()
	created := make(chan error, 1)
	go func() {
		for i := range tasks {
			if _, err := b.CreateTask(ctx, bus.NewTask{Title: fmt.Sprint("task ", i), Description: strings.Repeat("d", 64<<10), Assignee: "a", CreatedBy: bus.Human}); err != nil {
				created <- err
				return
			}
		}
		created <- nil
	}()
	var seen, told int
	take := func() {
		select {
		case ev, ok := <-slow.Events():
			if !ok {
				t.Fatal("the events ended")
			}
			if ev.Kind == swarmapi.EventTask && ev.Task != nil {
				seen++
			}
			if ev.Kind == swarmapi.EventNotice && strings.Contains(ev.Text, "fell behind") {
				told++
			}
		case <-ctx.Done():
			t.Fatalf("%d task events, told %d times to read anew", seen, told)
		}
	}
	for range paced {
		take()
	}
	select {
	case err := <-created:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the tasks were not all created in time")
	}
	for told == 0 {
		take()
	}
	if seen >= tasks {
		t.Fatalf("told to read anew after all %d tasks came", seen)
	}
}
