package testrun

import (
	"testing"
	"time"
)

// pollEvery is how often Within asks again: short next to what the tests
// wait for (a process's output, a row in the bus), long enough not to
// crowd the machine the test runs on.
const pollEvery = 5 * time.Millisecond

// Within waits until cond holds, failing the test when it still does not
// after d: the module's tests wait on conditions with a deadline, never
// with a fixed sleep.
func Within(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(pollEvery)
	}
}
