package supervisor

import (
	"slices"
	"strings"
	"testing"
)

// An agent that has exited keeps its last screen in the UI; a resize
// rewraps it as it rewraps a running agent's, where it was cut at the old
// width.
func TestAnExitedAgentsScreenIsRewrapped(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	long := "@relay:bob " + strings.Repeat("abcdefghi ", 6)[:49] // 60 characters
	script := "printf '%s\\n' '" + long + "'; echo done"
	h.run(Options{Rows: 10, Cols: 40}, AgentConfig{Name: "a", Argv: []string{"sh", "-c", script}, Restart: RestartNever, Confirm: true})
	h.waitFor("a exited", func() bool { in, _ := h.sup.Agent("a"); return in.State == StateExited })
	snap, err := h.sup.Snapshot("a")
	if err != nil || !slices.Equal(snap.Lines[:3], []string{long[:40], long[40:], "done"}) {
		t.Fatalf("set-up: the exited agent's screen %q (%v)", snap.Lines, err)
	}
	if err := h.sup.Resize("a", 12, 20); err != nil {
		t.Fatalf("resizing an exited agent: %v", err)
	}
	snap, err = h.sup.Snapshot("a")
	want := []string{long[:20], long[20:40], long[40:], "done"}
	if err != nil || snap.Rows != 12 || snap.Cols != 20 || !slices.Equal(snap.Lines[:4], want) {
		t.Errorf("at 12×20 the exited agent's screen is %d×%d %q (%v), want it rewrapped: %q", snap.Rows, snap.Cols, snap.Lines, err, want)
	}
}
