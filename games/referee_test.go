package games

import (
	"strings"
	"sync"
	"testing"
)

func TestRefereeVerdicts(t *testing.T) {
	r := NewReferee("alice", "bob")
	steps := []struct {
		from, to, body string
		want           Verdict // Board is checked separately
	}{
		// Not the referee's business.
		{"alice", "bob", "good luck!", Verdict{}},
		{"human", "bob", "move 5", Verdict{}},
		{"alice", "carol", "move 5", Verdict{}},
		{"alice", "swarm", "move 5", Verdict{}},
		{"alice", "alice", "move 5", Verdict{}},
		// Moves.
		{"alice", "bob", "move 5", Verdict{Move: true, Legal: true, Cell: 5, Mark: MarkX}},
		{"alice", "bob", "move 1", Verdict{Move: true, Cell: 1, Mark: MarkX, Reason: "illegal move: it is O's turn"}},
		{"bob", "alice", "move 5", Verdict{Move: true, Cell: 5, Mark: MarkO, Reason: "illegal move: cell 5 is taken"}},
		{"bob", "*", "move 12", Verdict{Move: true, Mark: MarkO, Reason: "illegal move: cell 12 is out of range (1-9)"}},
		{"bob", "alice", "Move 1, corner", Verdict{Move: true, Legal: true, Cell: 1, Mark: MarkO}},
		// O's third illegal move in the game (not in a row) forfeits it.
		{"bob", "alice", "move 2", Verdict{Move: true, Cell: 2, Mark: MarkO,
			Reason: "illegal move: it is X's turn; O forfeits after 3 illegal moves"}},
	}
	for i, s := range steps {
		got := r.Judge(s.from, s.to, s.body)
		got.Board, got.Result = Board{}, Result{}
		if got != s.want {
			t.Errorf("step %d Judge(%s→%s %q) = %+v, want %+v", i, s.from, s.to, s.body, got, s.want)
		}
	}
	g := r.Game()
	if moves := g.Moves(); len(moves) != 2 || moves[0] != (Move{MarkX, 5}) || moves[1] != (Move{MarkO, 1}) {
		t.Fatalf("moves = %v", moves)
	}
	if r.Illegal(MarkX) != 1 || r.Illegal(MarkO) != 3 {
		t.Errorf("illegal counts X=%d O=%d, want 1 and 3", r.Illegal(MarkX), r.Illegal(MarkO))
	}
	if want := (Result{Over: true, Winner: MarkX, Forfeit: true}); r.Result() != want {
		t.Errorf("result = %+v, want %+v", r.Result(), want)
	}
}

func TestRefereeWinAndResult(t *testing.T) {
	r := NewReferee("x1", "o1")
	var v Verdict
	for i, c := range []int{1, 4, 2, 5, 3} {
		from, to := "x1", "o1"
		if i%2 == 1 {
			from, to = to, from
		}
		v = r.Judge(from, to, "move "+string(rune('0'+c)))
		if !v.Legal {
			t.Fatalf("move %d refused: %s", c, v.Reason)
		}
	}
	want := Result{Over: true, Winner: MarkX, Line: [3]int{1, 2, 3}}
	if v.Result != want || r.Result() != want {
		t.Fatalf("result = %+v / %+v, want %+v", v.Result, r.Result(), want)
	}
	if v.Board != r.Game().Board() || v.Board.Cell(3) != MarkX {
		t.Errorf("verdict board:\n%s", v.Board)
	}
	if got := GameOverNotice(v.Result); got != "game over: X wins (1-2-3)" {
		t.Errorf("notice = %q", got)
	}
	if got := r.Summary(); got != "X wins (1-2-3): X 1, O 4, X 2, O 5, X 3" {
		t.Errorf("summary = %q", got)
	}
	// After the end: illegal, not counted, result unchanged.
	v = r.Judge("o1", "x1", "move 9")
	if !v.Move || v.Legal || v.Reason != "illegal move: the game is over: X wins (1-2-3)" || v.Result != want {
		t.Errorf("move after the end: %+v", v)
	}
	if r.Illegal(MarkO) != 0 {
		t.Errorf("a move after the end counted as illegal")
	}
}

func TestRefereeForfeit(t *testing.T) {
	r := NewReferee("X", "O")
	if v := r.Judge("X", "O", "move 5"); !v.Legal {
		t.Fatal(v.Reason)
	}
	bad := []string{"move 5", "move ten", "move 0"}
	for i, body := range bad {
		v := r.Judge("O", "X", body)
		if v.Legal || !v.Move || !strings.HasPrefix(v.Reason, IllegalMovePrefix+": ") {
			t.Fatalf("illegal move %d: %+v", i, v)
		}
		last := i == len(bad)-1
		if forfeits := strings.HasSuffix(v.Reason, "; O forfeits after 3 illegal moves"); forfeits != last {
			t.Errorf("move %d reason %q: forfeit announced = %v", i, v.Reason, forfeits)
		}
		if v.Result.Over != last {
			t.Errorf("move %d: result %s", i, v.Result)
		}
	}
	want := Result{Over: true, Winner: MarkX, Forfeit: true}
	if r.Result() != want || r.Result().String() != "X wins (O forfeits)" {
		t.Fatalf("result = %+v", r.Result())
	}
	if r.Illegal(MarkO) != 3 || r.Illegal(MarkX) != 0 {
		t.Errorf("illegal counts X=%d O=%d", r.Illegal(MarkX), r.Illegal(MarkO))
	}
	if v := r.Judge("X", "O", "move 1"); v.Legal {
		t.Errorf("a move after the forfeit was accepted")
	}
}

func TestRefereeNames(t *testing.T) {
	r := NewReferee("a", "b")
	if x, o := r.Players(); x != "a" || o != "b" {
		t.Errorf("players = %s, %s", x, o)
	}
	if r.MarkOf("a") != MarkX || r.MarkOf("b") != MarkO || r.MarkOf("c") != Empty {
		t.Errorf("MarkOf wrong")
	}
	if r.NameOf(MarkX) != "a" || r.NameOf(MarkO) != "b" || r.NameOf(Empty) != "" {
		t.Errorf("NameOf wrong")
	}
}

// TestRefereeConcurrentReaders runs Judge against readers on other
// goroutines; the race detector checks the locking.
func TestRefereeConcurrentReaders(t *testing.T) {
	r := NewReferee("x", "o")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					_ = r.Game().Board().String()
					_ = r.Result()
				}
			}
		})
	}
	for i, c := range []int{5, 1, 9, 3, 2, 8, 7, 6, 4} {
		from, to := "x", "o"
		if i%2 == 1 {
			from, to = to, from
		}
		if v := r.Judge(from, to, "move "+string(rune('0'+c))); !v.Legal {
			t.Errorf("move %d refused: %s", c, v.Reason)
		}
	}
	close(stop)
	wg.Wait()
	if !r.Result().Over {
		t.Fatalf("game not over: %s", r.Result())
	}
}

func TestTicTacToeRules(t *testing.T) {
	x := TicTacToeRules(MarkX, "O")
	for _, want := range []string{"as X against O", "You move first.", "@relay:O move N", "[relay #<id> from O] move N",
		"illegal move: <why>", "After 3 illegal moves you forfeit", `"game over: <result>"`} {
		if !strings.Contains(x, want) {
			t.Errorf("rules for X lack %q:\n%s", want, x)
		}
	}
	if o := TicTacToeRules(MarkO, "X"); !strings.Contains(o, "as O against X. Your opponent moves first") || !strings.Contains(o, "@relay:X move N") {
		t.Errorf("rules for O:\n%s", o)
	}
}
