package supervisor

import (
	"strings"
	"testing"
)

// TestScrollbackSetting: each agent's pane keeps the rows its own
// scrollback setting says, else the swarm's [ui] default; none for 0.
func TestScrollbackSetting(t *testing.T) {
	t.Parallel()
	printer := func(name string, rows int) AgentConfig {
		return AgentConfig{
			Name: name, Argv: []string{"/bin/sh", "-c", "seq 1 300; echo done; exec sleep 600"},
			Restart: RestartNever, Confirm: true, Scrollback: rows,
		}
	}
	for _, c := range []struct {
		ui     int
		agents []AgentConfig
		want   map[string]int
	}{
		{40, []AgentConfig{printer("own", 25), printer("default", 0), printer("none", -1)},
			map[string]int{"own": 25, "default": 40, "none": 0}},
		{-1, []AgentConfig{printer("default", 0)}, map[string]int{"default": 0}},
	} {
		h := newHarness(t)
		h.run(Options{Config: &Config{UI: UIConfig{Scrollback: c.ui}, Agents: c.agents}})
		for name, rows := range c.want {
			h.waitFor(name+" done", func() bool {
				snap, err := h.sup.Snapshot(name)
				return err == nil && strings.Contains(strings.Join(snap.Lines, "\n"), "done")
			})
			v, err := h.sup.View(name, -1)
			if err != nil {
				t.Fatal(err)
			}
			if v.Scrollback != rows {
				t.Errorf("[ui] scrollback %d: %s keeps %d rows, want %d", c.ui, name, v.Scrollback, rows)
			}
		}
	}
}
