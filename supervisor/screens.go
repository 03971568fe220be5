package supervisor

import (
	"fmt"

	"swarm/spawner"
)

// ScreenSnapshot is a copy of an agent's visible terminal state.
type ScreenSnapshot = spawner.Snapshot

// ScreenMatch is a search match in an agent's screen, and ScreenSpan the
// cells of one row it covers.
type (
	ScreenMatch = spawner.Match
	ScreenSpan  = spawner.Span
)

// screenOf returns the agent's current screen, or the last one its
// process had (a UI shows what a crashed agent printed last).
func (s *Supervisor) screenOf(name string) (*spawner.Screen, error) {
	a, err := s.agent(name)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.screen == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNotRunning)
	}
	return a.screen, nil
}

// ScreenView is what a pane shows of an agent's screen, read at one
// moment (spawner.View).
type ScreenView = spawner.View

// View renders an agent's screen as styled text (SGR sequences), rows
// joined by newlines, with row top of its scrollback at the top, or live
// when top < 0 (spawner.Screen.View).
func (s *Supervisor) View(name string, top int) (ScreenView, error) {
	sc, err := s.screenOf(name)
	if err != nil {
		return ScreenView{}, err
	}
	return sc.View(top), nil
}

// Snapshot returns a copy of an agent's visible screen state.
func (s *Supervisor) Snapshot(name string) (ScreenSnapshot, error) {
	sc, err := s.screenOf(name)
	if err != nil {
		return ScreenSnapshot{}, err
	}
	return sc.Snapshot(), nil
}

// Text returns rows of an agent's scrollback and screen as plain text, to
// copy (spawner.Screen.Text).
func (s *Supervisor) Text(name string, from, to int) (string, error) {
	sc, err := s.screenOf(name)
	if err != nil {
		return "", err
	}
	return sc.Text(from, to), nil
}

// Find returns the matches of query in an agent's scrollback and screen
// (spawner.Screen.Find).
func (s *Supervisor) Find(name, query string) []ScreenMatch {
	sc, err := s.screenOf(name)
	if err != nil {
		return nil
	}
	return sc.Find(query)
}
