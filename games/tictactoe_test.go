package games

import (
	"errors"
	"fmt"
	"testing"
)

// play applies alternating moves starting with X and fails the test on an
// illegal one.
func play(t *testing.T, cells ...int) *Game {
	t.Helper()
	g := NewTicTacToe()
	m := MarkX
	for _, c := range cells {
		if err := g.Play(m, c); err != nil {
			t.Fatalf("play %s %d: %v", m, c, err)
		}
		m = m.Opponent()
	}
	return g
}

func TestEveryLineWins(t *testing.T) {
	for _, line := range Lines {
		for _, winner := range []Mark{MarkX, MarkO} {
			t.Run(fmt.Sprintf("%s%v", winner, line), func(t *testing.T) {
				// The loser's filler cells: the first cells outside the line
				// that together make no line of the loser's own.
				var b Board
				for _, c := range line {
					b[c-1] = winner
				}
				g := NewTicTacToe()
				var filler []int
				for c := 1; c <= 9 && len(filler) < 3; c++ {
					if b[c-1] != Empty {
						continue
					}
					var loser Board
					for _, f := range append(filler, c) {
						loser[f-1] = winner.Opponent()
					}
					if loser.Result().Over {
						continue
					}
					filler = append(filler, c)
				}
				// X moves first; when O is to win, X plays a filler first.
				var order []Move
				if winner == MarkX {
					for i := range 3 {
						order = append(order, Move{MarkX, line[i]})
						if i < 2 {
							order = append(order, Move{MarkO, filler[i]})
						}
					}
				} else {
					for i := range 3 {
						order = append(order, Move{MarkX, filler[i]}, Move{MarkO, line[i]})
					}
				}
				for _, mv := range order {
					if err := g.Play(mv.Mark, mv.Cell); err != nil {
						t.Fatalf("play %v: %v (board\n%s)", mv, err, g.Board())
					}
				}
				want := Result{Over: true, Winner: winner, Line: line}
				if got := g.Result(); got != want {
					t.Fatalf("result = %+v, want %+v", got, want)
				}
				if got, want := g.Result().String(), fmt.Sprintf("%s wins (%d-%d-%d)", winner, line[0], line[1], line[2]); got != want {
					t.Errorf("String = %q, want %q", got, want)
				}
				if g.Turn() != Empty {
					t.Errorf("turn after the end = %s, want empty", g.Turn())
				}
				if err := g.Play(winner.Opponent(), g.Board().Free()[0]); !errors.Is(err, ErrGameOver) {
					t.Errorf("play after the end: err = %v, want ErrGameOver", err)
				}
			})
		}
	}
}

func TestDraw(t *testing.T) {
	// X O X / X O O / O X X
	g := play(t, 1, 2, 3, 5, 4, 6, 8, 7, 9)
	r := g.Result()
	if !r.Over || r.Winner != Empty || r.String() != "draw" {
		t.Fatalf("result = %+v (%s), want a draw", r, r)
	}
	if len(g.Moves()) != 9 {
		t.Errorf("moves = %d, want 9", len(g.Moves()))
	}
	err := g.Play(MarkX, 1)
	if !errors.Is(err, ErrGameOver) || err.Error() != "the game is over: draw" {
		t.Errorf("play after a draw: %v", err)
	}
}

func TestPlayErrors(t *testing.T) {
	g := play(t, 5)
	cases := []struct {
		mark Mark
		cell int
		want error
		msg  string
	}{
		{MarkX, 1, ErrNotYourTurn, "it is O's turn"},
		{MarkO, 5, ErrCellTaken, "cell 5 is taken"},
		{MarkO, 0, ErrOutOfRange, "cell 0 is out of range (1-9)"},
		{MarkO, 10, ErrOutOfRange, "cell 10 is out of range (1-9)"},
		{Empty, 1, ErrBadMark, "mark empty cannot play: mark must be X or O"},
	}
	for _, c := range cases {
		err := g.Play(c.mark, c.cell)
		if !errors.Is(err, c.want) || err.Error() != c.msg {
			t.Errorf("Play(%s, %d) = %v, want %q (%v)", c.mark, c.cell, err, c.msg, c.want)
		}
	}
	// Nothing changed.
	if got := g.Moves(); len(got) != 1 || got[0] != (Move{MarkX, 5}) || g.Turn() != MarkO {
		t.Fatalf("game changed by illegal moves: moves %v, turn %s", got, g.Turn())
	}
}

func TestForfeit(t *testing.T) {
	g := play(t, 1)
	if err := g.Forfeit(MarkO); err != nil {
		t.Fatal(err)
	}
	r := g.Result()
	if !r.Over || r.Winner != MarkX || !r.Forfeit || r.String() != "X wins (O forfeits)" {
		t.Fatalf("result = %+v (%s)", r, r)
	}
	if err := g.Forfeit(MarkX); !errors.Is(err, ErrGameOver) {
		t.Errorf("second forfeit: %v, want ErrGameOver", err)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	g := play(t, 1, 2)
	c := g.Clone()
	if err := c.Play(MarkX, 3); err != nil {
		t.Fatal(err)
	}
	if len(g.Moves()) != 2 || g.Board().Cell(3) != Empty || g.Turn() != MarkX {
		t.Fatalf("original changed through its clone: %v", g.Moves())
	}
}

func TestBoardString(t *testing.T) {
	g := play(t, 1, 2, 5, 9)
	want := "" +
		" X | O | 3 \n" +
		"---+---+---\n" +
		" 4 | X | 6 \n" +
		"---+---+---\n" +
		" 7 | 8 | O "
	if got := g.Board().String(); got != want {
		t.Errorf("board:\n%s\nwant:\n%s", got, want)
	}
	if got := (Board{}).Free(); len(got) != 9 || got[0] != 1 || got[8] != 9 {
		t.Errorf("free cells of an empty board = %v", got)
	}
}

func TestMarkStrings(t *testing.T) {
	for m, want := range map[Mark]string{MarkX: "X", MarkO: "O", Empty: "empty", 'Z': "Mark(90)"} {
		if m.String() != want {
			t.Errorf("%d: %q, want %q", byte(m), m.String(), want)
		}
	}
	for s, want := range map[string]Mark{"x": MarkX, " O ": MarkO} {
		if m, err := ParseMark(s); err != nil || m != want {
			t.Errorf("ParseMark(%q) = %s, %v", s, m, err)
		}
	}
	if _, err := ParseMark("Y"); !errors.Is(err, ErrBadMark) {
		t.Errorf("ParseMark(Y) err = %v", err)
	}
	if (Result{}).String() != "in progress" {
		t.Errorf("zero result = %q", Result{}.String())
	}
}

func TestParseMove(t *testing.T) {
	cases := []struct {
		body string
		cell int
		err  error
	}{
		{"move 5", 5, nil},
		{"MOVE 1", 1, nil},
		{"  Move\t9  ", 9, nil},
		{"move 5.", 5, nil},
		{"move 5 (taking the centre)", 5, nil},
		{"move 05", 5, nil},
		{"move 7\nmy reasoning: …", 7, nil},
		{"move 0", 0, ErrOutOfRange},
		{"move 10", 0, ErrOutOfRange},
		{"move 99999999999999999999999", 0, ErrOutOfRange},
		{"move", 0, ErrBadMove},
		{"move five", 0, ErrBadMove},
		{"move 5x", 0, ErrBadMove},
		{"move -1", 0, ErrBadMove},
		{"move: 5", 0, ErrNotAMove},
		{"moves 5", 0, ErrNotAMove},
		{"good game", 0, ErrNotAMove},
		{"", 0, ErrNotAMove},
		{"I move 5", 0, ErrNotAMove},
	}
	for _, c := range cases {
		cell, err := ParseMove(c.body)
		if cell != c.cell || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ParseMove(%q) = %d, %v; want %d, %v", c.body, cell, err, c.cell, c.err)
		}
	}
	if _, err := ParseMove("move 10"); err.Error() != "cell 10 is out of range (1-9)" {
		t.Errorf("out-of-range message: %q", err)
	}
	if _, err := ParseMove("move five"); err.Error() != `"move five" names no cell; write "move N" with N from 1 to 9` {
		t.Errorf("bad-move message: %q", err)
	}
}
