package bus

import (
	"context"
	"sync"
	"testing"
	"time"

	"swarm/internal/testrun"
)

// Reads whose statements are not prepared yet, more at once than the read
// pool has connections, all end: a read transaction holds a connection,
// and one that waited for another to prepare a statement on hung the bus
// (every connection held by a transaction waiting to prepare, or waiting
// on the cache a preparing one held).
func TestReadsBeyondThePoolDoNotHang(t *testing.T) {
	t.Parallel()
	for _, conns := range []int{1, 2} {
		b, err := Open(Options{Dir: t.TempDir() + "/.swarm", ReadConns: conns})
		if err != nil {
			t.Fatal(err)
		}
		register(t, b, "a", "b")
		m := publish(t, b, Message{From: "a", To: "b", Body: "hi"})
		ctx := context.Background()
		done := make(chan struct{})
		go func() {
			defer close(done)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for range 20 {
						if _, err := b.Messages(ctx, 0, 10); err != nil {
							t.Error(err)
						}
						if _, err := b.Message(ctx, m.ID); err != nil {
							t.Error(err)
						}
						if _, err := b.Agents(ctx); err != nil {
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
		}()
		select {
		case <-done:
		case <-time.After(testrun.Patience):
			t.Fatalf("reads with %d read connections did not end in %s: the bus hangs", conns, testrun.Patience)
		}
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	}
}
