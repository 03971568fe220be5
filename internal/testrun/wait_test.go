package testrun

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// fatalRecorder is a testing.TB whose Fatalf records the failure and ends
// the goroutine, as the real one does.
type fatalRecorder struct {
	testing.TB
	failed chan string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failed <- fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f with a recorder on a goroutine of its own and returns the
// failure it reported, or "" when it returned.
func run(t *testing.T, f func(tb testing.TB)) string {
	r := &fatalRecorder{TB: t, failed: make(chan string, 1)}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		f(r)
	}()
	<-finished
	select {
	case msg := <-r.failed:
		return msg
	default:
		return ""
	}
}

func TestWhileProgressingWaitsAsLongAsProgressIsMade(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		// Slower than the stall allowed in total, never stalled that long.
		for range 20 {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				n.Add(1)
			}
		}
	}()
	msg := run(t, func(tb testing.TB) {
		WhileProgressing(tb, time.Second+500*time.Millisecond, "twenty steps",
			func() bool { return n.Load() >= 20 }, func() int { return int(n.Load()) })
	})
	if msg != "" {
		t.Fatalf("failed while progress was made: %s", msg)
	}
}

func TestWhileProgressingFailsWhenProgressStops(t *testing.T) {
	t.Parallel()
	msg := run(t, func(tb testing.TB) {
		WhileProgressing(tb, 300*time.Millisecond, "a count that never moves",
			func() bool { return false }, func() int { return 7 })
	})
	if want := "waiting for a count that never moves: no progress for 300ms (stuck at 7)"; msg != want {
		t.Fatalf("got %q, want %q", msg, want)
	}
}
