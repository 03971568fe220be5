package tui

import (
	"strings"
	"testing"

	"swarm/games"
	"swarm/swarmapi"
)

// gameLines returns the inside of the game board box, trimmed.
func gameLines(t *testing.T, h *harness) []string {
	t.Helper()
	r := h.m.lay.game
	if r.empty() {
		t.Fatal("no game board on show")
	}
	rows := strings.Split(h.screen(), "\n")
	var out []string
	for _, row := range rows[r.y+1 : r.y+r.h-1] {
		cs := cells(row)
		out = append(out, strings.TrimRight(strings.Join(cs[r.x+1:r.x+r.w-1], ""), " "))
	}
	return out
}

func requireLine(t *testing.T, lines []string, want string) {
	t.Helper()
	for _, l := range lines {
		if l == want {
			return
		}
	}
	t.Fatalf("the game board has no line %q:\n%s", want, strings.Join(lines, "\n"))
}

// TestGameBoardText: the board names players only when they are not
// called after their marks, says whose move it is, and states the result
// on a line of its own.
func TestGameBoardText(t *testing.T) {
	b := func(cells string) games.Board {
		var bd games.Board
		for i, c := range cells {
			switch c {
			case 'X':
				bd[i] = games.MarkX
			case 'O':
				bd[i] = games.MarkO
			}
		}
		return bd
	}
	sw := newFakeSwarm(t, "X", "O")
	g := swarmapi.GameState{X: "X", O: "O", Turn: games.MarkX}
	sw.game = &g
	h := newHarness(t, sw, 80, 30, Options{Title: "tic-tac-toe", Game: true})
	lines := gameLines(t, h)
	requireLine(t, lines, "X vs O")
	requireLine(t, lines, "X to move")
	for _, l := range lines {
		if strings.Contains(l, "X: X") {
			t.Fatalf("the board says %q", l)
		}
	}

	draw := b("XOXXOOOXX")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventGame, Game: &swarmapi.GameState{
		X: "X", O: "O", Board: draw, Mover: "X", Cell: 9, Result: draw.Result()}}})
	lines = gameLines(t, h)
	requireLine(t, lines, "game over")
	requireLine(t, lines, "draw")

	// Players with names of their own.
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventGame, Game: &swarmapi.GameState{
		X: "alice", O: "bob", Board: b("X........"), Turn: games.MarkO, Mover: "alice", Cell: 1}}})
	lines = gameLines(t, h)
	requireLine(t, lines, "X — alice · O — bob")
	requireLine(t, lines, "O (bob) to move")

	win := b("XO..XO..X")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventGame, Game: &swarmapi.GameState{
		X: "alice", O: "bob", Board: win, Mover: "alice", Cell: 9, Result: win.Result()}}})
	lines = gameLines(t, h)
	requireLine(t, lines, "game over")
	requireLine(t, lines, "X (alice) wins")
	requireLine(t, lines, "(1-5-9)")
}
