package testrun

import (
	"testing"
	"time"
)

// pollEvery is how often Within asks again: short next to what the tests
// wait for (a process's output, a row in the bus), long enough not to
// crowd the machine the test runs on. After pollFast, a wait that goes on
// asks every pollSlow: most conditions hold within moments, and one that
// takes seconds (a program starting on a loaded machine) need not be asked
// 200 times a second — some conditions read all of /proc.
const (
	pollEvery = 5 * time.Millisecond
	pollFast  = 200 * time.Millisecond
	pollSlow  = 10 * time.Millisecond
)

// Patience is how long a test waits for what should happen: far longer
// than anything takes on an idle machine (a few seconds at most), so that
// a machine loaded many times over — the whole suite under the race
// detector beside other work on two cores, the first run building the
// race-enabled binaries — does not fail a test. Waiting on a condition,
// a passing test takes only as long as the condition; the patience is
// spent only by a test that fails.
const Patience = 3 * time.Minute

// Within waits until cond holds, failing the test when it still does not
// after d: the module's tests wait on conditions with a deadline, never
// with a fixed sleep.
func Within(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(d, cond) {
		t.Fatalf("timed out after %s waiting for %s", d, what)
	}
}

// Poll waits until cond holds or d has passed, and reports whether it
// held: Within for a wait that fails in its own words (naming what it
// found instead), that cleans up before it fails, or that runs where there
// is no test to fail (a helper process).
func Poll(d time.Duration, cond func() bool) bool {
	start := time.Now()
	for !cond() {
		waited := time.Since(start)
		if waited > d {
			return false
		}
		if waited < pollFast {
			time.Sleep(pollEvery)
		} else {
			time.Sleep(pollSlow)
		}
	}
	return true
}

// WhileProgressing waits until done holds, failing the test only when
// progress (a count that only grows, such as messages delivered) stands
// still for stall. A bulk test's total time grows with the machine's load
// — two thousand deliveries under the race detector take a minute alone
// and several beside the rest of the suite — while a hang shows as no
// progress at all: this waits out the first and still fails on the second.
func WhileProgressing(t testing.TB, stall time.Duration, what string, done func() bool, progress func() int) {
	t.Helper()
	last, since := progress(), time.Now()
	for !Poll(time.Second, done) {
		if n := progress(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > stall {
			t.Fatalf("waiting for %s: no progress for %s (stuck at %d)", what, stall, n)
		}
	}
}
