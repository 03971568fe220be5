package games

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// selfPlay plays a whole game between two strategies, each with its own
// seeded generator, and returns it.
func selfPlay(t *testing.T, sx, so Strategy, seed uint64) *Game {
	t.Helper()
	rngs := map[Mark]*rand.Rand{
		MarkX: rand.New(rand.NewPCG(seed, 1)),
		MarkO: rand.New(rand.NewPCG(seed, 2)),
	}
	strat := map[Mark]Strategy{MarkX: sx, MarkO: so}
	g := NewTicTacToe()
	for !g.Result().Over {
		m := g.Turn()
		c := strat[m].Choose(g.Board(), m, rngs[m])
		if err := g.Play(m, c); err != nil {
			t.Fatalf("seed %d: %s chose %d: %v", seed, m, c, err)
		}
	}
	return g
}

func TestPerfectVersusPerfectDraws(t *testing.T) {
	games := map[string]bool{}
	for seed := range uint64(300) {
		g := selfPlay(t, Perfect, Perfect, seed)
		if r := g.Result(); r.Winner != Empty {
			t.Fatalf("seed %d: %s\n%s", seed, r, g.Board())
		}
		games[fmt.Sprint(g.Moves())] = true
	}
	// Ties are broken at random, so the seeds do not all play one game.
	if len(games) < 20 {
		t.Errorf("300 seeds gave only %d different games", len(games))
	}
}

func TestPerfectNeverLosesToRandom(t *testing.T) {
	wins := 0
	for seed := range uint64(500) {
		for _, perfect := range []Mark{MarkX, MarkO} {
			sx, so := Random, Perfect
			if perfect == MarkX {
				sx, so = Perfect, Random
			}
			g := selfPlay(t, sx, so, seed)
			r := g.Result()
			if r.Winner == perfect.Opponent() {
				t.Fatalf("seed %d: perfect %s lost: %s\n%s", seed, perfect, r, g.Board())
			}
			if r.Winner == perfect {
				wins++
			}
		}
	}
	if wins < 500 {
		t.Errorf("perfect won only %d of 1000 games against random", wins)
	}
}

func TestSameSeedSameGame(t *testing.T) {
	for _, s := range []Strategy{Perfect, Random} {
		a := selfPlay(t, s, s, 42)
		b := selfPlay(t, s, s, 42)
		if fmt.Sprint(a.Moves()) != fmt.Sprint(b.Moves()) {
			t.Errorf("%s: seed 42 gave %v then %v", s, a.Moves(), b.Moves())
		}
	}
}

func TestPerfectTakesTheWinAndBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	// X X 3 / O O 6 / 7 8 9, X to move: 3 wins at once (6 would block
	// O but only wins later).
	b := Board{MarkX, MarkX, Empty, MarkO, MarkO, Empty, Empty, Empty, Empty}
	for range 20 {
		if c := Perfect.Choose(b, MarkX, rng); c != 3 {
			t.Fatalf("X chose %d, want the win at 3", c)
		}
	}
	// X X 3 / 4 O 6 / 7 8 9, O to move: must block at 3.
	b = Board{MarkX, MarkX, Empty, Empty, MarkO, Empty, Empty, Empty, Empty}
	for range 20 {
		if c := Perfect.Choose(b, MarkO, rng); c != 3 {
			t.Fatalf("O chose %d, want the block at 3", c)
		}
	}
	// An unreachable board (as the player may guess after a refusal) is
	// searched on the spot: O O 3 / 4 5 6 / 7 8 9 with O to move wins at 3.
	b = Board{MarkO, MarkO, Empty, Empty, Empty, Empty, Empty, Empty, Empty}
	if c := Perfect.Choose(b, MarkO, rng); c != 3 {
		t.Fatalf("O chose %d on a guessed board, want 3", c)
	}
	if c := Perfect.Choose(Board{MarkX, MarkO, MarkX, MarkX, MarkO, MarkO, MarkO, MarkX, MarkX}, MarkX, rng); c != 0 {
		t.Errorf("full board: chose %d, want 0", c)
	}
}

func TestRandomCoversFreeCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	b := Board{MarkX, Empty, MarkO, Empty, MarkX, Empty, Empty, MarkO, Empty}
	seen := map[int]int{}
	for range 600 {
		c := Random.Choose(b, MarkO, rng)
		if b.Cell(c) != Empty {
			t.Fatalf("chose taken cell %d", c)
		}
		seen[c]++
	}
	for _, c := range b.Free() {
		if seen[c] < 50 { // 100 expected for each of 6 cells
			t.Errorf("cell %d chosen %d times of 600", c, seen[c])
		}
	}
}

func TestParseStrategy(t *testing.T) {
	for s, want := range map[string]Strategy{"perfect": Perfect, " Random": Random, "CASUAL": Casual} {
		if got, err := ParseStrategy(s); err != nil || got != want || got.String() != want.String() {
			t.Errorf("ParseStrategy(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseStrategy("clever"); err == nil || err.Error() != `strategy "clever": must be perfect, casual or random` {
		t.Errorf("bad strategy: %v", err)
	}
	if Strategy(9).String() != "Strategy(9)" {
		t.Errorf("unknown strategy string %q", Strategy(9))
	}
}

func BenchmarkPerfectChooseOpening(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	solved() // the table is built once per process
	b.ResetTimer()
	for b.Loop() {
		Perfect.Choose(Board{}, MarkX, rng)
	}
}

func TestCasualPlayersGetEveryResult(t *testing.T) {
	results := map[string]int{}
	for seed := range int64(200) {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		g := NewTicTacToe()
		for !g.Result().Over {
			if err := g.Play(g.Turn(), Casual.Choose(g.Board(), g.Turn(), rng)); err != nil {
				t.Fatal(err)
			}
		}
		r := g.Result()
		switch {
		case r.Winner == MarkX:
			results["X"]++
		case r.Winner == MarkO:
			results["O"]++
		default:
			results["draw"]++
		}
	}
	for _, k := range []string{"X", "O", "draw"} {
		if results[k] == 0 {
			t.Errorf("no %s in 200 casual games: %v", k, results)
		}
	}
	// Mostly sensible: a casual player still takes a win in one.
	b := Board{MarkX, MarkX, Empty, MarkO, MarkO, Empty, Empty, Empty, Empty}
	wins := 0
	for seed := range uint64(100) {
		if Casual.Choose(b, MarkX, rand.New(rand.NewPCG(seed, 1))) == 3 {
			wins++
		}
	}
	if wins < 60 {
		t.Errorf("casual took the winning cell %d times of 100", wins)
	}
}
