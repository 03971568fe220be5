package bus

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// Benchmarks for the goals in issue 2. Run with
//
//	go test -run '^$' -bench . -benchmem ./bus/
//
// msg/s is messages committed per second; every publish is its own
// transaction unless the name says batch.

func BenchmarkPublish(b *testing.B) {
	bus := openTest(b)
	register(b, bus, "bob")
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := bus.Publish(ctx, Message{From: "alice", To: "bob", Body: "please review auth.go"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
}

func BenchmarkPublishBatch1000(b *testing.B) {
	bus := openTest(b)
	register(b, bus, "bob")
	ctx := context.Background()
	batch := make([]Message, 1000)
	b.ReportAllocs()
	for b.Loop() {
		for j := range batch {
			batch[j] = Message{From: "alice", To: "bob", Body: "please review auth.go"}
		}
		if _, err := bus.PublishBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "msg/s")
}

func BenchmarkBroadcast16(b *testing.B) {
	bus := openTest(b)
	names := []string{"sender"}
	for i := range 16 {
		names = append(names, fmt.Sprintf("agent%02d", i))
	}
	register(b, bus, names...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m, err := bus.Publish(ctx, Message{From: "sender", To: "*", Body: "standup in 5"})
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Deliveries) != 16 {
			b.Fatalf("%d deliveries", len(m.Deliveries))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
	b.ReportMetric(float64(16*b.N)/b.Elapsed().Seconds(), "deliveries/s")
}

// BenchmarkPending1M measures the router's hot query: the next messages
// for one recipient, with 1,000,000 messages stored (all but the last 20
// already confirmed).
func BenchmarkPending1M(b *testing.B) {
	bus := bigFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := bus.Pending(ctx, "bob", 10)
		if err != nil {
			b.Fatal(err)
		}
		if len(p) != 5 {
			b.Fatalf("%d pending", len(p))
		}
	}
}

// BenchmarkInbox1M is an agent's latest 50 messages, 1,000,000 stored.
func BenchmarkInbox1M(b *testing.B) {
	bus := bigFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if ms, err := bus.Inbox(ctx, "bob", 50); err != nil || len(ms) != 50 {
			b.Fatal(len(ms), err)
		}
	}
}

// BenchmarkFindByShortID1M is the cost of not indexing short ids: a scan
// of 1,000,000 messages for an id a person typed.
func BenchmarkFindByShortID1M(b *testing.B) {
	bus := bigFixture(b)
	ctx := context.Background()
	first, err := bus.Messages(ctx, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := bus.FindByShortID(ctx, ShortID(first[0].ID)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoticeOtherConnection is the time from a write on one
// connection set (as another process would make it) to the wake-up of a
// subscriber on another: the publish plus, on average, half a poll interval.
func BenchmarkNoticeOtherConnection(b *testing.B) {
	sub := openTest(b)
	pub, err := Open(Options{Dir: sub.Dir()})
	if err != nil {
		b.Fatal(err)
	}
	defer pub.Close()
	ch, cancel := sub.Subscribe()
	defer cancel()
	ctx := context.Background()
	for b.Loop() {
		drain(ch)
		if _, err := pub.Publish(ctx, Message{From: "alice", To: "human", Body: "ping"}); err != nil {
			b.Fatal(err)
		}
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			b.Fatal("no wake-up")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/notice")
}

// The 1,000,000-message bus is built once per test binary run, in a
// temporary directory that TestMain removes.
var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
)

const fixtureSize = 1_000_000

func bigFixture(b *testing.B) *Bus {
	b.Helper()
	fixtureOnce.Do(func() {
		start := time.Now()
		fixtureDir, fixtureErr = os.MkdirTemp("", "swarm-bus-bench")
		if fixtureErr == nil {
			fixtureErr = buildFixture(fixtureDir)
		}
		if fixtureErr == nil {
			fmt.Fprintf(os.Stderr, "built %d-message fixture in %v\n", fixtureSize, time.Since(start).Round(time.Millisecond))
		}
	})
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	bus, err := Open(Options{Dir: fixtureDir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bus.Close() })
	return bus
}

// buildFixture publishes fixtureSize messages among four agents in batches
// (the fast path), then marks all but the last 20 confirmed, as a long-
// running swarm's bus would look.
func buildFixture(dir string) error {
	bus, err := Open(Options{Dir: dir})
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx := context.Background()
	names := []string{"alice", "bob", "carol", "dave"}
	for _, n := range names {
		if err := bus.RegisterAgent(ctx, Agent{Name: n, State: AgentRunning}); err != nil {
			return err
		}
	}
	batch := make([]Message, 0, 10_000)
	for i := range fixtureSize {
		from, to := names[i%4], names[(i+1)%4]
		batch = append(batch, Message{From: from, To: to, Body: fmt.Sprintf("message %d from %s to %s", i, from, to)})
		if len(batch) == cap(batch) {
			if _, err := bus.PublishBatch(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	_, err = bus.exec(ctx, `UPDATE deliveries SET state = 'confirmed', open = 0, attempts = 1 WHERE seq <= ?`, fixtureSize-20)
	return err
}

func cleanupFixtures() {
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
}
