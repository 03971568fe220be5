package tui

import (
	"testing"
	"time"
)

// The clock ticks when an age shown in the agent list next changes: every
// second while it reads in seconds, every minute once in minutes, and so
// on — so an idle swarm is drawn about once a minute, not once a second.
func TestAgeChangesWhenItsTextDoes(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, age := range []time.Duration{0, 400 * time.Millisecond, 59 * time.Second, 61 * time.Second,
		59*time.Minute + 30*time.Second, 3 * time.Hour, 50 * time.Hour, -time.Second} {
		d := ageChangesIn(age)
		if d <= 0 {
			t.Fatalf("age %v: next change in %v", age, d)
		}
		before, after := shortAge(now, now.Add(-age)), shortAge(now.Add(d), now.Add(-age))
		if age >= 0 && before == after {
			t.Errorf("age %v: %q still reads %q after %v", age, before, after, d)
		}
		if age >= 0 && d > time.Millisecond {
			if mid := shortAge(now.Add(d-time.Millisecond), now.Add(-age)); mid != before {
				t.Errorf("age %v: changed to %q before %v", age, mid, d)
			}
		}
	}
	if d := ageChangesIn(2 * time.Minute); d != time.Minute {
		t.Errorf("age 2m: next change in %v, want 1m", d)
	}
}
