package cli

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{7 * time.Second: "7s", 185 * time.Second: "3m05s", 2*time.Hour + 4*time.Minute: "2h04m"} {
		if got := age(d); got != want {
			t.Errorf("age(%v) = %q, want %q", d, got, want)
		}
	}
}
