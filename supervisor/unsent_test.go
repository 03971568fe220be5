package supervisor

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"swarm/bus"
)

// lockBus holds an exclusive transaction on the bus's database from
// another connection, as another process might, until the returned
// function is called.
func lockBus(t *testing.T, dir string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".swarm", "bus.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
		db.Close()
	}
	t.Cleanup(release)
	return release
}

// stamps returns the t= stamps of the messages from a, in bus order.
func (h *harness) stamps(from string) []string {
	msgs, err := h.bus.Messages(context.Background(), 0, 100_000)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if m.From == from {
			out = append(out, m.Body)
		}
	}
	return out
}

func TestALockedBusLosesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.busOpts.BusyTimeout = 50 * time.Millisecond // give up on the lock soon
	h.run(Options{},
		scripted("a", "pinger", map[string]string{"PEER": "b", "COUNT": "40", "RATE": "20"}),
		scripted("b", "listen", map[string]string{"LOG": h.path("b.log")}))
	h.waitFor("a's first message", func() bool { return len(h.stamps("a")) > 0 })
	release := lockBus(t, h.dir)
	h.waitFor("messages wait", func() bool {
		for _, ev := range h.eventsOf(EventNotice) {
			if strings.Contains(ev.Text, "the bus cannot take messages now") {
				return true
			}
		}
		return false
	})
	before := len(h.stamps("a"))
	release()
	h.waitFor("all 40 stored", func() bool { return len(h.stamps("a")) == 40 })
	h.waitFor("all 40 confirmed", func() bool { return h.deliveryStates("b")[bus.DeliveryConfirmed] == 40 })
	// The screen shows the last one (confirmed) as the tty echoes it, a
	// moment before b reads it.
	h.waitFor("b read them", func() bool { return len(readLines(h.path("b.log"))) >= 40 })
	if n := len(readLines(h.path("b.log"))); n != 40 {
		t.Errorf("b read %d lines; want each of the 40 once", n)
	}
	got := h.stamps("a")
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] { // t=<unix nanoseconds>: same width for centuries
			t.Errorf("message %d (%s) is stored after %s", i, got[i], got[i-1])
		}
	}
	if before >= 40 {
		t.Errorf("the lock held nothing back: %d stored before it went", before)
	}
	waited := false
	for _, ev := range h.eventsOf(EventNotice) {
		waited = waited || strings.Contains(ev.Text, "the bus takes messages again")
	}
	if !waited {
		t.Error("no notice that the bus takes messages again")
	}
}

func TestMessagesPastTheBoundAreCountedAndTold(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.busOpts.BusyTimeout = 50 * time.Millisecond
	h.run(Options{UnsentLimit: 3},
		scripted("a", "pinger", map[string]string{"PEER": "b", "COUNT": "1000000", "RATE": "50", "LOG": h.path("a.log")}),
		scripted("b", "listen", nil))
	h.waitFor("a's first message", func() bool { return len(h.stamps("a")) > 0 })
	release := lockBus(t, h.dir)
	h.waitFor("the bound hit", func() bool {
		for _, ev := range h.eventsOf(EventNotice) {
			if strings.Contains(ev.Text, "has 3 messages waiting for the bus: what it sends now is dropped") {
				return true
			}
		}
		return false
	})
	release()
	h.waitFor("a told how many were dropped", func() bool {
		for _, l := range readLines(h.path("a.log")) {
			if strings.Contains(l, "of your messages were dropped: the bus could not take them") {
				return true
			}
		}
		return false
	})
}
