// Package games holds the rules of the games swarm can referee, the referee
// itself, and the built-in player agent.
//
// Tic-tac-toe is played on cells numbered 1..9 for people and agents:
//
//	1 | 2 | 3
//	4 | 5 | 6
//	7 | 8 | 9
//
// X moves first. A move is the message body "move N" (see ParseMove), sent by
// one player to its opponent. The Referee judges every such message before it
// is delivered: a legal move is applied to the referee's game and delivered;
// an illegal one (wrong turn, cell out of range, cell taken, game over, or a
// body that says "move" but names no cell) is not delivered, and its author is
// told why. A player that makes three illegal moves in one game forfeits it.
//
// The package imports no other package of this project; everything it needs
// to know about messages is the sender, the recipient and the body.
package games

import (
	"errors"
	"fmt"
	"strings"
)

// Mark is what a player puts in a cell: X, O, or Empty for a free cell.
type Mark byte

// The marks. X moves first.
const (
	Empty Mark = 0
	MarkX Mark = 'X'
	MarkO Mark = 'O'
)

// String returns "X", "O" or "empty".
func (m Mark) String() string {
	switch m {
	case MarkX, MarkO:
		return string(rune(m))
	case Empty:
		return "empty"
	default:
		return fmt.Sprintf("Mark(%d)", byte(m))
	}
}

// Opponent returns the other player's mark (Empty for Empty).
func (m Mark) Opponent() Mark {
	switch m {
	case MarkX:
		return MarkO
	case MarkO:
		return MarkX
	default:
		return Empty
	}
}

// ParseMark accepts "X" or "O" in either case.
func ParseMark(s string) (Mark, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "X":
		return MarkX, nil
	case "O":
		return MarkO, nil
	}
	return Empty, fmt.Errorf("mark %q: %w", s, ErrBadMark)
}

// Board is the 3×3 grid. Index i holds cell i+1.
type Board [9]Mark

// Lines are the eight winning lines, as cell numbers 1..9, rows first, then
// columns, then the two diagonals.
var Lines = [8][3]int{
	{1, 2, 3}, {4, 5, 6}, {7, 8, 9},
	{1, 4, 7}, {2, 5, 8}, {3, 6, 9},
	{1, 5, 9}, {3, 5, 7},
}

// Cell returns the mark in cell n (1..9), Empty when n is out of range.
func (b Board) Cell(n int) Mark {
	if n < 1 || n > 9 {
		return Empty
	}
	return b[n-1]
}

// Free returns the free cells in increasing order.
func (b Board) Free() []int {
	var free []int
	for i, m := range b {
		if m == Empty {
			free = append(free, i+1)
		}
	}
	return free
}

// Result reports the state of the board: a win (with the first winning line
// found), a draw when it is full, or in progress.
func (b Board) Result() Result {
	for _, l := range Lines {
		m := b[l[0]-1]
		if m != Empty && b[l[1]-1] == m && b[l[2]-1] == m {
			return Result{Over: true, Winner: m, Line: l}
		}
	}
	for _, m := range b {
		if m == Empty {
			return Result{}
		}
	}
	return Result{Over: true}
}

// String draws the board on five lines; a free cell shows its number so
// that a person or an agent can pick it:
//
//	 X | O | 3
//	---+---+---
//	 4 | X | 6
//	---+---+---
//	 7 | 8 | O
func (b Board) String() string {
	var s strings.Builder
	for row := range 3 {
		if row > 0 {
			s.WriteString("---+---+---\n")
		}
		for col := range 3 {
			i := row*3 + col
			if col > 0 {
				s.WriteString("|")
			}
			s.WriteByte(' ')
			if b[i] == Empty {
				s.WriteByte(byte('1' + i))
			} else {
				s.WriteByte(byte(b[i]))
			}
			s.WriteByte(' ')
		}
		s.WriteString("\n")
	}
	return strings.TrimSuffix(s.String(), "\n")
}

// Result is the outcome of a game so far.
type Result struct {
	// Over is true once the game has ended.
	Over bool
	// Winner is the winning mark; Empty while in progress or on a draw.
	Winner Mark
	// Line holds the cells of the winning line (1..9) when the game was won
	// on the board; zero on a draw or a forfeit.
	Line [3]int
	// Forfeit is true when the loser forfeited (three illegal moves)
	// instead of losing on the board.
	Forfeit bool
}

// String reads "X wins (1-5-9)", "O wins (X forfeits)", "draw" or
// "in progress".
func (r Result) String() string {
	switch {
	case !r.Over:
		return "in progress"
	case r.Winner == Empty:
		return "draw"
	case r.Forfeit:
		return fmt.Sprintf("%s wins (%s forfeits)", r.Winner, r.Winner.Opponent())
	default:
		return fmt.Sprintf("%s wins (%d-%d-%d)", r.Winner, r.Line[0], r.Line[1], r.Line[2])
	}
}

// Move is one legal move of a game.
type Move struct {
	Mark Mark
	Cell int // 1..9
}

// String reads "X 5".
func (m Move) String() string { return fmt.Sprintf("%s %d", m.Mark, m.Cell) }

// Errors returned by Game.Play and ParseMove. The error values returned wrap
// these sentinels and carry a message a player can act on, such as
// "cell 5 is taken" or "it is O's turn".
var (
	ErrGameOver    = errors.New("the game is over")
	ErrNotYourTurn = errors.New("not your turn")
	ErrOutOfRange  = errors.New("cell out of range")
	ErrCellTaken   = errors.New("cell is taken")
	ErrBadMark     = errors.New("mark must be X or O")
	ErrNotAMove    = errors.New("not a move")
	ErrBadMove     = errors.New("malformed move")
)

// moveError is an error whose text is written for the player and which
// still matches its sentinel with errors.Is.
type moveError struct {
	sentinel error
	msg      string
}

func (e *moveError) Error() string { return e.msg }
func (e *moveError) Unwrap() error { return e.sentinel }

func moveErr(sentinel error, format string, args ...any) error {
	return &moveError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

// Game is one game of tic-tac-toe: the board, whose turn it is and the moves
// so far. The zero value is not ready; use NewTicTacToe. A Game is not safe
// for concurrent use; the Referee guards its own.
type Game struct {
	board  Board
	turn   Mark
	moves  []Move
	result Result
}

// NewTicTacToe starts a game with an empty board and X to move.
func NewTicTacToe() *Game {
	return &Game{turn: MarkX}
}

// Play puts m in cell (1..9). It fails, changing nothing, when the game is
// over (ErrGameOver), it is not m's turn (ErrNotYourTurn), the cell is not
// 1..9 (ErrOutOfRange) or the cell is taken (ErrCellTaken), checked in that
// order.
func (g *Game) Play(m Mark, cell int) error {
	switch {
	case g.result.Over:
		return moveErr(ErrGameOver, "the game is over: %s", g.result)
	case m != MarkX && m != MarkO:
		return moveErr(ErrBadMark, "mark %s cannot play: %s", m, ErrBadMark)
	case m != g.turn:
		return moveErr(ErrNotYourTurn, "it is %s's turn", g.turn)
	case cell < 1 || cell > 9:
		return moveErr(ErrOutOfRange, "cell %d is out of range (1-9)", cell)
	case g.board[cell-1] != Empty:
		return moveErr(ErrCellTaken, "cell %d is taken", cell)
	}
	g.board[cell-1] = m
	g.moves = append(g.moves, Move{Mark: m, Cell: cell})
	g.result = g.board.Result()
	if g.result.Over {
		g.turn = Empty
	} else {
		g.turn = m.Opponent()
	}
	return nil
}

// Forfeit ends the game with m's opponent as the winner. It fails with
// ErrGameOver when the game has already ended.
func (g *Game) Forfeit(m Mark) error {
	if g.result.Over {
		return moveErr(ErrGameOver, "the game is over: %s", g.result)
	}
	if m != MarkX && m != MarkO {
		return fmt.Errorf("forfeit %s: %w", m, ErrBadMark)
	}
	g.result = Result{Over: true, Winner: m.Opponent(), Forfeit: true}
	g.turn = Empty
	return nil
}

// Board returns the board.
func (g *Game) Board() Board { return g.board }

// Turn returns the mark to move next, Empty once the game is over.
func (g *Game) Turn() Mark { return g.turn }

// Result returns the outcome so far.
func (g *Game) Result() Result { return g.result }

// Moves returns a copy of the legal moves played, in order.
func (g *Game) Moves() []Move { return append([]Move(nil), g.moves...) }

// Clone returns an independent copy of the game.
func (g *Game) Clone() *Game {
	c := *g
	c.moves = g.Moves()
	return &c
}

// ParseMove reads a move from a message body. The grammar, after trimming
// surrounding white space:
//
//	move <digits> [anything]
//
// "move" is case-insensitive and followed by at least one space or tab. The
// digits end at the end of the body or at a character that is neither a
// letter nor a digit, after which any text is allowed and ignored, so an AI
// player may write "move 5 (taking the centre)" or "Move 5.".
//
// Errors: a body whose first word is not "move" is ErrNotAMove (ordinary
// chatter, not a move at all). A body that starts with the word "move" but
// names no cell ("move", "move five", "move 5x", "move -1") is ErrBadMove,
// and a number outside 1..9 ("move 0", "move 10") is ErrOutOfRange; both
// messages tell the player what to write instead.
func ParseMove(body string) (cell int, err error) {
	s := strings.TrimSpace(body)
	word, rest := s, ""
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		word, rest = s[:i], s[i:]
	}
	if !strings.EqualFold(word, "move") {
		return 0, ErrNotAMove
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, moveErr(ErrBadMove, "%q names no cell; write \"move N\" with N from 1 to 9", s)
	}
	if n < len(rest) && isWordByte(rest[n]) {
		return 0, moveErr(ErrBadMove, "%q names no cell; write \"move N\" with N from 1 to 9", s)
	}
	number := rest[:n]
	if digits := strings.TrimLeft(number, "0"); len(digits) != 1 || digits == "0" {
		return 0, moveErr(ErrOutOfRange, "cell %s is out of range (1-9)", number)
	}
	return int(number[n-1] - '0'), nil
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
