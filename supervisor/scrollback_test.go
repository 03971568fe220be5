package supervisor

import (
	"strings"
	"testing"
)

// TestScrollbackSetting: each agent's pane keeps the rows the swarm's
// [ui] scrollback says; none for 0.
func TestScrollbackSetting(t *testing.T) {
	t.Parallel()
	printer := func(name string) AgentConfig {
		return AgentConfig{
			Name: name, Argv: []string{"/bin/sh", "-c", "seq 1 300; echo done; exec sleep 600"},
			Restart: RestartNever, Confirm: true,
		}
	}
	for _, c := range []struct{ ui, want int }{{40, 40}, {-1, 0}} {
		h := newHarness(t)
		h.run(Options{Config: &Config{UI: UIConfig{Scrollback: c.ui}, Agents: []AgentConfig{printer("a")}}})
		h.waitFor("a done", func() bool {
			snap, err := h.sup.Snapshot("a")
			return err == nil && strings.Contains(strings.Join(snap.Lines, "\n"), "done")
		})
		v, err := h.sup.View("a", -1)
		if err != nil {
			t.Fatal(err)
		}
		if v.Scrollback != c.want {
			t.Errorf("[ui] scrollback %d: the pane keeps %d rows, want %d", c.ui, v.Scrollback, c.want)
		}
	}
}
