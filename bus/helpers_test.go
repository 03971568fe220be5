package bus

import (
	"context"
	"swarm/internal/testrun"
	"testing"
	"time"
)

// openTest opens a bus in a fresh temporary directory and closes it when
// the test ends.
func openTest(t testing.TB) *Bus {
	t.Helper()
	b, err := Open(Options{Dir: t.TempDir() + "/.swarm"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// register registers agents with state running.
func register(t testing.TB, b *Bus, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := b.RegisterAgent(context.Background(), Agent{Name: n, Cmd: "sh", State: AgentRunning}); err != nil {
			t.Fatal(err)
		}
	}
}

// publish publishes m or fails the test.
func publish(t testing.TB, b *Bus, m Message) Message {
	t.Helper()
	out, err := b.Publish(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFor polls cond until it is true or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testrun.Within(t, testrun.Patience, what, cond)
}

// recv waits for a value on ch, failing the test after a deadline.
func recv(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testrun.Patience):
		t.Fatalf("timed out waiting for %s", what)
	}
}
