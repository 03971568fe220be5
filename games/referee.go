package games

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// MaxIllegalMoves is how many illegal moves a player may make in one game:
// the one that reaches it forfeits the game to the opponent. The count is a
// total for the game, not a run of consecutive mistakes.
const MaxIllegalMoves = 3

// Message prefixes the supervisor uses when it writes to a player. The
// built-in player recognises them; an AI player is briefed about them.
const (
	// IllegalMovePrefix starts the notice sent to the author of an illegal
	// move; the rest of Verdict.Reason says why.
	IllegalMovePrefix = "illegal move"
	// GameOverPrefix starts the announcement of the result to both players.
	GameOverPrefix = "game over"
)

// GameOverNotice is the body swarm sends to both players when the game ends,
// e.g. "game over: X wins (1-5-9)".
func GameOverNotice(r Result) string {
	return GameOverPrefix + ": " + r.String()
}

// Verdict is the referee's judgement of one message.
type Verdict struct {
	// Move is true when the message is a move in this game: from one
	// player, to its opponent (or to "*"), with a body whose first word is
	// "move". When false the message is none of the referee's business and
	// the other fields are zero.
	Move bool
	// Legal is true when the move was applied; the message may be delivered.
	Legal bool
	// Reason, for an illegal move, is the notice for its author, e.g.
	// "illegal move: cell 5 is taken". The third illegal move appends
	// "; X forfeits after 3 illegal moves".
	Reason string
	// Cell is the cell named (0 when the body names none) and Mark the
	// author's mark.
	Cell int
	Mark Mark
	// Result is the game's result after this verdict, and Board the board.
	Result Result
	Board  Board
}

// Referee judges the messages between two player agents and keeps the game.
// The supervisor calls Judge for every message either player publishes,
// before delivery. It is safe for concurrent use: Judge may run on one
// goroutine while a UI reads Game or Result on another.
type Referee struct {
	x, o string

	mu      sync.Mutex
	game    *Game
	illegal map[Mark]int
}

// NewReferee starts a game between the agents named x (moves first) and o.
func NewReferee(x, o string) *Referee {
	return &Referee{x: x, o: o, game: NewTicTacToe(), illegal: map[Mark]int{}}
}

// Players returns the names of the agents playing X and O.
func (r *Referee) Players() (x, o string) { return r.x, r.o }

// MarkOf returns the mark the named agent plays, Empty if it is not a player.
func (r *Referee) MarkOf(name string) Mark {
	switch name {
	case r.x:
		return MarkX
	case r.o:
		return MarkO
	}
	return Empty
}

// NameOf returns the name of the agent playing m, "" for Empty.
func (r *Referee) NameOf(m Mark) string {
	switch m {
	case MarkX:
		return r.x
	case MarkO:
		return r.o
	}
	return ""
}

// Judge decides whether the message body from agent from to recipient to is
// a move, and if so whether it is legal. A legal move is applied to the game.
// An illegal move changes nothing but counts against its author; the
// MaxIllegalMoves-th one ends the game with the author forfeiting. Moves
// after the game is over are illegal and not counted.
func (r *Referee) Judge(from, to, body string) Verdict {
	mark := r.MarkOf(from)
	if mark == Empty || (to != r.NameOf(mark.Opponent()) && to != "*") {
		return Verdict{}
	}
	cell, perr := ParseMove(body)
	if errors.Is(perr, ErrNotAMove) {
		return Verdict{}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	v := Verdict{Move: true, Mark: mark, Cell: cell}
	err := perr
	switch {
	case r.game.Result().Over:
		err = r.game.Play(mark, cell) // ErrGameOver, with the result
	case r.game.Turn() != mark:
		err = r.game.Play(mark, cell) // ErrNotYourTurn, naming whose turn it is
	case err == nil:
		err = r.game.Play(mark, cell)
	}
	if err == nil {
		v.Legal = true
	} else {
		v.Reason = IllegalMovePrefix + ": " + err.Error()
		if !errors.Is(err, ErrGameOver) {
			r.illegal[mark]++
			if r.illegal[mark] >= MaxIllegalMoves {
				_ = r.game.Forfeit(mark) // cannot fail: the game was not over
				v.Reason += fmt.Sprintf("; %s forfeits after %d illegal moves", mark, MaxIllegalMoves)
			}
		}
	}
	v.Result = r.game.Result()
	v.Board = r.game.Board()
	return v
}

// Illegal returns how many illegal moves m has made so far.
func (r *Referee) Illegal(m Mark) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.illegal[m]
}

// Game returns a copy of the game as it stands.
func (r *Referee) Game() *Game {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.game.Clone()
}

// Result returns the game's result so far.
func (r *Referee) Result() Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.game.Result()
}

// Summary describes the game for a log line: the result and the moves,
// e.g. "X wins (1-5-9): X 5, O 2, X 1, O 3, X 9".
func (r *Referee) Summary() string {
	g := r.Game()
	moves := make([]string, 0, len(g.moves))
	for _, m := range g.moves {
		moves = append(moves, m.String())
	}
	return g.Result().String() + ": " + strings.Join(moves, ", ")
}

// TicTacToeRules is the brief for an agent (an AI CLI, say) playing m
// against the agent named opponent: the rules, how to move, and the notices
// swarm sends it.
func TicTacToeRules(m Mark, opponent string) string {
	first := "You move first."
	if m != MarkX {
		first = "Your opponent moves first; wait for its move."
	}
	return fmt.Sprintf(`You are playing tic-tac-toe as %[1]s against %[2]s. %[3]s
The cells are numbered 1 to 9: 1 2 3 / 4 5 6 / 7 8 9. Three of your marks in a row, column or diagonal wins.
To move, print a line of its own: @relay:%[2]s move N   (N is a free cell; nothing else on that line)
Your opponent's moves reach you as: [relay #<id> from %[2]s] move N. A message whose id you have already seen is a repeat; ignore it.
swarm referees every move. An illegal move (not your turn, a taken cell, a cell outside 1-9) is not delivered; you receive [relay #<id> from swarm] %[4]s: <why>, and then you choose another cell. After %[5]d illegal moves you forfeit.
When the game ends swarm sends you "%[6]s: <result>"; then the game is finished.`,
		m, opponent, first, IllegalMovePrefix, MaxIllegalMoves, GameOverPrefix)
}
