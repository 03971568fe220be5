package games

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// Strategy is how the built-in player chooses its moves.
type Strategy int

const (
	// Perfect plays minimax: it never loses, wins as fast as it can, and
	// breaks ties between equally good cells at random, so different seeds
	// give different games.
	Perfect Strategy = iota
	// Random picks uniformly among the free cells.
	Random
	// Casual plays like Perfect but makes a random move a quarter of the
	// time: two casual players win, lose and draw, which makes a livelier
	// demo than two perfect ones (who always draw).
	Casual
)

// casualSlip is how often a Casual player moves at random.
const casualSlip = 0.25

// String returns "perfect", "random" or "casual".
func (s Strategy) String() string {
	switch s {
	case Perfect:
		return "perfect"
	case Random:
		return "random"
	case Casual:
		return "casual"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// ParseStrategy accepts "perfect", "random" or "casual" in any case.
func ParseStrategy(s string) (Strategy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "perfect":
		return Perfect, nil
	case "random":
		return Random, nil
	case "casual":
		return Casual, nil
	}
	return 0, fmt.Errorf("strategy %q: must be perfect, casual or random", s)
}

// Choose returns the cell m should play on b, or 0 when no cell is free.
// Randomness comes only from rng, so the same rng state gives the same
// choice.
func (s Strategy) Choose(b Board, m Mark, rng *rand.Rand) int {
	free := b.Free()
	if len(free) == 0 {
		return 0
	}
	if s == Random || s == Casual && rng.Float64() < casualSlip {
		return free[rng.IntN(len(free))]
	}
	best, bestScore := []int(nil), 0
	for _, c := range free {
		child := b
		child[c-1] = m
		v := -score(child, m.Opponent()) // a child's score is the opponent's
		switch {
		case best == nil || v > bestScore:
			best, bestScore = []int{c}, v
		case v == bestScore:
			best = append(best, c)
		}
	}
	return best[rng.IntN(len(best))]
}

// solved maps every position reachable from the empty board (X first) to
// its minimax score for the side to move; see minimax.
var solved = sync.OnceValue(func() map[Board]int {
	scores := make(map[Board]int, 6000)
	minimax(Board{}, MarkX, scores)
	return scores
})

// score returns the minimax score of b for toMove, from the shared table
// when b is a reachable position, else by searching it on the spot (the
// player may search a board it has guessed at after an illegal-move notice).
func score(b Board, toMove Mark) int {
	if s, ok := solved()[b]; ok {
		return s
	}
	return minimax(b, toMove, map[Board]int{})
}

// minimax scores b for the side to move: 0 for a draw with best play, 1+k for
// a win with k cells still free when it is complete, -(1+k) for a loss, so a
// faster win scores higher. Within one search from one root the side to move
// follows from the board, so memo is keyed by the board alone.
func minimax(b Board, toMove Mark, memo map[Board]int) int {
	if s, ok := memo[b]; ok {
		return s
	}
	r := b.Result()
	free := b.Free()
	var s int
	switch {
	case r.Over && r.Winner != Empty:
		s = -(1 + len(free)) // the previous mover won
	case r.Over:
		s = 0
	default:
		s = -100
		for _, c := range free {
			child := b
			child[c-1] = toMove
			s = max(s, -minimax(child, toMove.Opponent(), memo))
		}
	}
	memo[b] = s
	return s
}
