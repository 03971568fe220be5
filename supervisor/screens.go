package supervisor

import (
	"fmt"

	"swarm/spawner"
	"swarm/swarmapi"
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

// View renders an agent's screen as styled text (SGR sequences), rows
// joined by newlines, with row top of its scrollback at the top, or live
// when top < 0 (spawner.Screen.View).
func (s *Supervisor) View(name string, top int) (ScreenView, error) {
	sc, err := s.screenOf(name)
	if err != nil {
		return ScreenView{}, err
	}
	v := sc.View(top)
	return ScreenView{Rows: v.Rows, Scrollback: v.Scrollback, Offset: v.Offset,
		Cursor: swarmapi.Cursor(v.Cursor), CursorVisible: v.CursorVisible}, nil
}

// Snapshot returns a copy of an agent's visible screen state.
func (s *Supervisor) Snapshot(name string) (ScreenSnapshot, error) {
	sc, err := s.screenOf(name)
	if err != nil {
		return ScreenSnapshot{}, err
	}
	return snapshotOf(sc.Snapshot()), nil
}

// snapshotOf is a screen's snapshot as clients see it.
func snapshotOf(p spawner.Snapshot) ScreenSnapshot {
	return ScreenSnapshot{Rows: p.Rows, Cols: p.Cols, Lines: p.Lines, Cursor: swarmapi.Cursor(p.Cursor),
		CursorVisible: p.CursorVisible, AltScreen: p.AltScreen, BracketedPaste: p.BracketedPaste, Title: p.Title}
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
	found := sc.Find(query)
	out := make([]ScreenMatch, len(found))
	for i, m := range found {
		out[i] = ScreenMatch{Row: m.Row, Spans: make([]ScreenSpan, len(m.Spans))}
		for j, sp := range m.Spans {
			out[i].Spans[j] = ScreenSpan(sp)
		}
	}
	return out
}
