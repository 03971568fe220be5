package tui

import (
	"strings"
	"testing"
)

// A command longer than its field is taken whole, and the field scrolls
// by the width it has, so that what is typed stays in sight.
func TestALongCommandIsTakenWhole(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{Dir: "/work/project"})
	cmd := "claude --model opus --permission-mode acceptEdits --add-dir ../shared --verbose --resume"
	if len(cmd) < 87 {
		t.Fatalf("the command is %d characters", len(cmd))
	}
	h.press(h.m.keys.NewAgent)
	h.typeText("dave")
	h.press(h.m.keys.NextField)
	for i, r := range cmd {
		h.typeText(string(r))
		if i%10 == 9 || i == len(cmd)-1 {
			// What was just typed shows, whatever the field's width.
			if tail := cmd[max(i-7, 0) : i+1]; !strings.Contains(h.screen(), tail) {
				t.Fatalf("after %d characters the field does not show %q:\n%s", i+1, tail, h.screen())
			}
		}
	}
	h.press(h.m.keys.Submit)
	if len(sw.added) != 1 || sw.added[0].Cmd != cmd {
		t.Fatalf("added %+v, want the command %q", sw.added, cmd)
	}
}
