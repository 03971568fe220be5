package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
)

// startEmptySwarm starts a real supervisor with no agents.
func startEmptySwarm(t *testing.T) *supervisor.Supervisor {
	t.Helper()
	b, err := bus.Open(bus.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	sup, err := supervisor.New(supervisor.Options{Config: &supervisor.Config{}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Shutdown(context.Background()) })
	return sup
}

func runAsync(ctx context.Context, sw Swarm, opts Options) <-chan error {
	done := make(chan error, 1)
	go func() { done <- Run(ctx, sw, opts) }()
	return done
}

func waitOutput(t *testing.T, out *testrun.Buffer, want string) {
	t.Helper()
	if !testrun.Poll(testrun.Patience, func() bool { return strings.Contains(out.String(), want) }) {
		t.Fatalf("output never showed %q:\n%s", want, out.String())
	}
}

func TestRunQuitsOnQ(t *testing.T) {
	sup := startEmptySwarm(t)
	in, keys := io.Pipe()
	defer keys.Close()
	out := &testrun.Buffer{}
	done := runAsync(context.Background(), inProcess{sup}, Options{Title: "empty", Input: in, Output: out, Width: 100, Height: 30})
	waitOutput(t, out, "agents 0")
	// A message on the bus reaches the UI through the bridge.
	if _, err := sup.Send(context.Background(), bus.Message{To: "human", Body: "hello"}); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Write([]byte("l")); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, out, "human → human")
	// Nothing runs, so q leaves at once.
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(testrun.Patience):
		t.Fatal("Run did not return after q")
	}
}

func TestRunEndsWithItsContext(t *testing.T) {
	sup := startEmptySwarm(t)
	sub := sup.Subscribe()
	defer sub.Close()
	in, keys := io.Pipe()
	defer keys.Close()
	out := &testrun.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := runAsync(ctx, inProcess{sup}, Options{Input: in, Output: out, Subscription: sub, Width: 100, Height: 30})
	waitOutput(t, out, "agents 0")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after its context ended = %v, want nil", err)
		}
	case <-time.After(testrun.Patience):
		t.Fatal("Run did not return when its context ended")
	}
}

// A context that ends before the UI has the terminal (a ctrl+c while swarm
// is starting is the terminal's SIGINT) is an interrupt of the start, not
// a detach: Run says so, and swarm up stops the swarm it was starting.
func TestRunInterruptedBeforeItShows(t *testing.T) {
	sup := startEmptySwarm(t)
	in, keys := io.Pipe()
	defer keys.Close()
	out := &testrun.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	select {
	case err := <-runAsync(ctx, inProcess{sup}, Options{Input: in, Output: out, Width: 100, Height: 30}):
		if !errors.Is(err, ErrNotShown) {
			t.Fatalf("Run interrupted before it showed = %v, want ErrNotShown", err)
		}
	case <-time.After(testrun.Patience):
		t.Fatal("Run did not return when its context had ended")
	}
	if strings.Contains(out.String(), "agents 0") {
		t.Errorf("the UI was drawn: %q", out.String())
	}
}
