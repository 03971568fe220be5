package cli

import (
	"testing"
	"time"
)

func TestOneLine(t *testing.T) {
	if got := oneLine("a\nb\tc\x1b[31md\x07e\u009bf"); got != "a⏎b c[31mdef" {
		t.Errorf("oneLine = %q", got)
	}
	for d, want := range map[time.Duration]string{7 * time.Second: "7s", 185 * time.Second: "3m05s", 2*time.Hour + 4*time.Minute: "2h04m"} {
		if got := age(d); got != want {
			t.Errorf("age(%v) = %q, want %q", d, got, want)
		}
	}
}
