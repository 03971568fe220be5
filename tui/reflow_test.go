package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
)

// Switching to the main + stack layout makes the chosen pane taller and
// wider: it shows the rows of its scrollback above its text, as tmux does,
// rather than blank rows under it.
func TestMainPaneFillsWithItsScrollback(t *testing.T) {
	t.Parallel()
	printer := `i=0; while [ $i -lt 80 ]; do i=$((i+1)); echo "line $i"; done; exec sleep 1000`
	sup := startPrinter(t, printer)

	h := newHarness(t, inProcess{sup}, 120, 40, Options{})
	if h.m.arrange != arrangeGrid || h.m.selected != "a" {
		t.Fatalf("set-up: layout %v, %q selected; want the grid, a", h.m.arrange, h.m.selected)
	}
	testrun.Within(t, testrun.Patience, "a printed everything at its grid size", func() bool {
		snap, err := sup.Snapshot("a")
		return err == nil && snap.Rows < 25 && strings.Contains(strings.Join(snap.Lines, "\n"), "line 80")
	})
	h.press(h.m.keys.Arrange)
	if h.m.arrange != arrangeMain {
		t.Fatalf("layout after the layout key: %v, want main + stack", h.m.arrange)
	}
	snap, err := sup.Snapshot("a")
	if err != nil || snap.Rows < 30 {
		t.Fatalf("a's screen in the main pane: %d rows (%v)", snap.Rows, err)
	}
	// The rows above "line 80" fill the pane; the cursor's row, empty,
	// is the last.
	for y, want := 0, 80-(snap.Rows-2); y < snap.Rows-1; y, want = y+1, want+1 {
		if got := snap.Lines[y]; got != fmt.Sprintf("line %d", want) {
			t.Fatalf("row %d of the main pane is %q, want %q: %q", y, got, fmt.Sprintf("line %d", want), snap.Lines)
		}
	}
	if !strings.Contains(h.screen(), fmt.Sprintf("line %d", 80-(snap.Rows-2))) {
		t.Errorf("the main pane does not show the rows that came back:\n%s", h.screen())
	}
}

// A pane whose lines wrapped, made wider (the terminal wider, then the
// main + stack layout), does not leave the rows its lines free blank
// under them: as in tmux, they take back rows from its scrollback, so
// the pane shows the newest lines from top to bottom.
func TestWiderPaneFillsTheRowsItsLinesFree(t *testing.T) {
	t.Parallel()
	// 80 lines of 60 columns, printed once the pane has its grid size:
	// two rows each.
	printer := `while [ "$(stty size | cut -d' ' -f2)" -ge 60 ]; do sleep 0.05; done; i=10; while [ $i -lt 90 ]; do i=$((i+1)); printf 'line %s %052d\n' $i 0; done; exec sleep 1000`
	sup := startPrinter(t, printer)
	line := func(i int) string { return fmt.Sprintf("line %d %052d", i, 0) }

	h := newHarness(t, inProcess{sup}, 120, 40, Options{})
	testrun.Within(t, testrun.Patience, "a printed everything at its grid size", func() bool {
		snap, err := sup.Snapshot("a")
		return err == nil && snap.Cols < 60 && strings.Contains(strings.Join(snap.Lines, "\n"), line(90)[:snap.Cols])
	})
	// filled: every row above the cursor's (the last, empty) is a whole
	// line, the newest last.
	filled := func(when string) {
		t.Helper()
		snap, err := sup.Snapshot("a")
		if err != nil || snap.Cols < 60 {
			t.Fatalf("%s: a is %d columns wide (%v), want room for a line", when, snap.Cols, err)
		}
		for y := range snap.Rows - 1 {
			if want := line(90 - (snap.Rows - 2) + y); snap.Lines[y] != want {
				t.Fatalf("%s: row %d of a's %d is %q, want %q:\n%q", when, y, snap.Rows, snap.Lines[y], want, snap.Lines)
			}
		}
	}
	rows := func() int { snap, _ := sup.Snapshot("a"); return snap.Rows }
	before := rows()
	h.send(tea.WindowSizeMsg{Width: 160, Height: 40})
	if rows() != before {
		t.Fatalf("set-up: a wider terminal changed a's rows from %d to %d", before, rows())
	}
	filled("the terminal made wider")
	// Narrower again, the lines wrapped, and then the large pane.
	h.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	if snap, _ := sup.Snapshot("a"); snap.Cols >= 60 {
		t.Fatalf("set-up: a is %d columns wide in the grid at 140, want its lines wrapped", snap.Cols)
	}
	h.press(h.m.keys.Arrange)
	filled("the main + stack layout")
}

// startPrinter runs a swarm of four agents: a, running the shell script
// printer, and three that print nothing.
func startPrinter(t *testing.T, printer string) *supervisor.Supervisor {
	t.Helper()
	b, err := bus.Open(bus.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	agents := []supervisor.AgentConfig{{Name: "a", Argv: []string{"sh", "-c", printer}, Restart: supervisor.RestartNever, Confirm: true}}
	for _, n := range []string{"b", "c", "d"} {
		agents = append(agents, supervisor.AgentConfig{Name: n, Argv: []string{"sh", "-c", "exec sleep 1000"}, Restart: supervisor.RestartNever, Confirm: true})
	}
	sup, err := supervisor.New(supervisor.Options{Config: &supervisor.Config{Agents: agents}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Shutdown(context.Background()) })
	return sup
}
