package tui

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"swarm/internal/testrun"
)

// TestFlow drives the model through a real Bubble Tea program: attach,
// type, detach, open the key list, quit with confirmation.
func TestFlow(t *testing.T) {
	sw := scenario(t)
	m := NewModel(context.Background(), sw, Options{Title: "flow", Now: func() time.Time { return t0 }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(testrun.Patience), teatest.WithCheckInterval(5*time.Millisecond))
	}
	waitFor("alice")

	tm.Send(keyPress("enter"))
	waitFor("ATTACHED alice")
	tm.Type("hi")
	tm.Send(keyPress("enter"))
	tm.Send(keyPress("ctrl+]"))
	waitFor("detached from alice")

	// A screen change reaches the pane.
	sw.setScreen("bob", "bob says hello back")
	tm.Send(ScreensMsg{Agents: []string{"bob"}})
	waitFor("bob says hello back")

	tm.Send(keyPress("?"))
	waitFor("esc closes")
	tm.Send(keyPress("esc"))

	tm.Send(keyPress("q"))
	waitFor("Quit swarm?")
	tm.Send(keyPress("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(testrun.Patience))

	if got, want := sw.typed("alice"), []string{"h", "i", "enter"}; !slices.Equal(got, want) {
		t.Fatalf("alice got %q, want %q", got, want)
	}
	fm := tm.FinalModel(t).(*Model)
	if fm.Mode() != ModeNormal || fm.attached {
		t.Fatalf("final mode %v", fm.Mode())
	}
}

// TestBusyPaneDoesNotHoldUpOthers: while one agent's screen cannot be
// read (its lock is held by a flood of output), the other panes still
// update and keys still work.
func TestBusyPaneDoesNotHoldUpOthers(t *testing.T) {
	sw := scenario(t)
	m := NewModel(context.Background(), sw, Options{Now: func() time.Time { return t0 }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(testrun.Patience), teatest.WithCheckInterval(5*time.Millisecond))
	}
	waitFor("Reading auth.go")

	gate := make(chan struct{})
	sw.mu.Lock()
	sw.renderGate = map[string]chan struct{}{"bob": gate}
	sw.mu.Unlock()
	sw.setScreen("bob", "bob floods the terminal")
	sw.setScreen("alice", "alice is still shown")
	tm.Send(ScreensMsg{Agents: []string{"alice", "bob"}})
	waitFor("alice is still shown")
	tm.Send(keyPress("?"))
	waitFor("esc closes")
	tm.Send(keyPress("esc"))

	close(gate)
	waitFor("bob floods the terminal")
	tm.Send(keyPress("q"))
	tm.Send(keyPress("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(testrun.Patience))
}
