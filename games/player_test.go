package games

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"swarm/internal/testrun"
)

// hangGuard bounds every wait in these tests; it only turns a hang into a
// failure and is never what a test measures.
const hangGuard = testrun.Patience

// terminal is a player running on pipes: the test types into it and reads
// what it prints, as swarm does through a PTY.
type terminal struct {
	t    *testing.T
	name string

	in   *io.PipeWriter
	typq chan string // what to type, in order; written by one goroutine
	done chan error  // RunPlayer's result

	mu    sync.Mutex
	lines []string
	eof   bool
	grew  chan struct{} // closed and replaced whenever lines grows or ends
}

// startPlayer runs RunPlayer on pipes. Cleanup ends everything it started.
func startPlayer(t *testing.T, name string, opts PlayerOptions) *terminal {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	term := &terminal{t: t, name: name, in: inW, typq: make(chan string, 1000),
		done: make(chan error, 1), grew: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		err := RunPlayer(ctx, inR, outW, opts)
		outW.Close()
		term.done <- err
	})
	wg.Go(func() { // collects output lines
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			term.mu.Lock()
			term.lines = append(term.lines, sc.Text())
			close(term.grew)
			term.grew = make(chan struct{})
			term.mu.Unlock()
		}
		term.mu.Lock()
		term.eof = true
		close(term.grew)
		term.mu.Unlock()
	})
	wg.Go(func() { // types queued text; ends when the input is closed
		for s := range term.typq {
			if _, err := io.WriteString(inW, s); err != nil {
				return
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		close(term.typq)
		inR.CloseWithError(io.EOF) // ends the player's reader and the typist
		outR.Close()
		wg.Wait()
	})
	return term
}

// typeLine queues a line as swarm submits it: text then CR.
func (term *terminal) typeLine(s string) { term.typq <- s + "\r" }

// deliver types a relay message the way swarm formats it.
func (term *terminal) deliver(id, from, body string) {
	term.typeLine(fmt.Sprintf("[relay #%s from %s] %s", id, from, body))
}

// next returns output line i, waiting for it; ok is false at end of output.
func (term *terminal) next(i int) (line string, ok bool) {
	term.t.Helper()
	timeout := time.After(hangGuard)
	for {
		term.mu.Lock()
		if i < len(term.lines) {
			line := term.lines[i]
			term.mu.Unlock()
			return line, true
		}
		if term.eof {
			term.mu.Unlock()
			return "", false
		}
		grew := term.grew
		term.mu.Unlock()
		select {
		case <-grew:
		case <-timeout:
			term.t.Fatalf("%s: no output line %d; output so far:\n%s", term.name, i, term.output())
		}
	}
}

// waitFor returns the index of the first line at or after from that
// matches re, failing the test at end of output.
func (term *terminal) waitFor(from int, re string) int {
	term.t.Helper()
	rx := regexp.MustCompile(re)
	for i := from; ; i++ {
		line, ok := term.next(i)
		if !ok {
			term.t.Fatalf("%s: output ended without a line matching %q:\n%s", term.name, re, term.output())
		}
		if rx.MatchString(line) {
			return i
		}
	}
}

func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return strings.Join(term.lines, "\n")
}

// exit waits for RunPlayer to return and for its output to have been
// read to the end: the last line is read a moment after it returns.
func (term *terminal) exit() error {
	term.t.Helper()
	select {
	case err := <-term.done:
		for i := 0; ; i++ {
			if _, ok := term.next(i); !ok {
				return err
			}
		}
	case <-time.After(hangGuard):
		term.t.Fatalf("%s did not exit; output:\n%s", term.name, term.output())
		return nil
	}
}

var relayLine = regexp.MustCompile(`^@relay:(\S+) (.*)$`)

// fakeSwarm wires players to each other the way swarm does: every line a
// player prints is echoed back into its own terminal, "@relay:" lines are
// judged by a Referee, legal moves are delivered (the first one twice, as an
// at-least-once retry would), illegal ones are refused with a notice, and the
// result is announced to both.
type fakeSwarm struct {
	ref     *Referee
	players map[string]*terminal
	nextID  atomic.Uint32
	illegal atomic.Int32
	dupOnce sync.Once
}

func (s *fakeSwarm) id() string { return fmt.Sprintf("%08x", s.nextID.Add(1)) }

// pump relays one player's output until it ends.
func (s *fakeSwarm) pump(name string) {
	term := s.players[name]
	for i := 0; ; i++ {
		line, ok := term.next(i)
		if !ok {
			return
		}
		term.typeLine(line) // the echo of its own output
		m := relayLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		to, body := m[1], m[2]
		v := s.ref.Judge(name, to, body)
		if v.Move && !v.Legal {
			s.illegal.Add(1)
			term.deliver(s.id(), "swarm", v.Reason)
			continue
		}
		id := s.id()
		s.players[to].deliver(id, name, body)
		s.dupOnce.Do(func() { s.players[to].deliver(id, name, body) })
		if v.Legal && v.Result.Over {
			for _, p := range s.players {
				p.deliver(s.id(), "swarm", GameOverNotice(v.Result))
			}
		}
	}
}

func TestPlayersCompleteAGameThroughFakeSwarm(t *testing.T) {
	type match struct {
		sx, so Strategy
		seed   int64
	}
	var matches []match
	for seed := range int64(4) {
		matches = append(matches, match{Perfect, Perfect, seed}, match{Perfect, Random, seed},
			match{Random, Perfect, seed}, match{Random, Random, seed})
	}
	for _, mt := range matches {
		t.Run(fmt.Sprintf("%s-%s-%d", mt.sx, mt.so, mt.seed), func(t *testing.T) {
			s := &fakeSwarm{ref: NewReferee("xena", "otto")}
			s.players = map[string]*terminal{
				"xena": startPlayer(t, "xena", PlayerOptions{Mark: MarkX, Opponent: "otto", Strategy: mt.sx, Seed: mt.seed}),
				"otto": startPlayer(t, "otto", PlayerOptions{Mark: MarkO, Opponent: "xena", Strategy: mt.so, Seed: mt.seed}),
			}
			var pumps sync.WaitGroup
			for name := range s.players {
				pumps.Go(func() { s.pump(name) })
			}
			for name, term := range s.players {
				if err := term.exit(); err != nil {
					t.Errorf("%s exited with %v", name, err)
				}
			}
			pumps.Wait()

			r := s.ref.Result()
			if !r.Over || s.illegal.Load() != 0 {
				t.Fatalf("result %s after %d illegal moves", r, s.illegal.Load())
			}
			if mt.sx == Perfect && mt.so == Perfect && r.Winner != Empty {
				t.Errorf("perfect players did not draw: %s", r)
			}
			moves := s.ref.Game().Moves()
			for name, term := range s.players {
				out := term.output()
				if !strings.Contains(out, "swarm: "+GameOverNotice(r)) {
					t.Errorf("%s did not print the announcement:\n%s", name, out)
				}
				// Each of the opponent's moves was applied exactly once,
				// although the first was delivered twice.
				opp := s.ref.MarkOf(name).Opponent()
				want := 0
				for _, mv := range moves {
					if mv.Mark == opp {
						want++
					}
				}
				if got := strings.Count(out, fmt.Sprintf("(%s) plays", opp)); got != want {
					t.Errorf("%s applied %d moves of %s, want %d:\n%s", name, got, opp, want, out)
				}
				// Its last board is the referee's.
				if !strings.Contains(out, r.String()) || !strings.Contains(out, s.ref.Game().Board().String()) {
					t.Errorf("%s never showed the final board\n%s\n%s", name, s.ref.Game().Board(), out)
				}
			}
		})
	}
}

func TestPlayerSameSeedSameGame(t *testing.T) {
	game := func() string {
		s := &fakeSwarm{ref: NewReferee("a", "b")}
		s.players = map[string]*terminal{
			"a": startPlayer(t, "a", PlayerOptions{Mark: MarkX, Opponent: "b", Strategy: Perfect, Seed: 99}),
			"b": startPlayer(t, "b", PlayerOptions{Mark: MarkO, Opponent: "a", Strategy: Random, Seed: 99}),
		}
		var pumps sync.WaitGroup
		for name := range s.players {
			pumps.Go(func() { s.pump(name) })
		}
		for _, term := range s.players {
			if err := term.exit(); err != nil {
				t.Fatal(err)
			}
		}
		pumps.Wait()
		return fmt.Sprint(s.ref.Game().Moves())
	}
	if a, b := game(), game(); a != b {
		t.Errorf("seed 99 played %s, then %s", a, b)
	}
}

func TestPlayerExitsOnGameOver(t *testing.T) {
	o := startPlayer(t, "o", PlayerOptions{Mark: MarkO, Opponent: "x"})
	o.waitFor(0, `^tic-tac-toe: I play O against x`)
	o.deliver("00000001", "swarm", "game over: X wins (O forfeits)")
	if err := o.exit(); err != nil {
		t.Fatal(err)
	}
	o.waitFor(0, `^swarm: game over: X wins \(O forfeits\)$`)
}

func TestPlayerExitsAtEndOfInput(t *testing.T) {
	o := startPlayer(t, "o", PlayerOptions{Mark: MarkO, Opponent: "x"})
	o.waitFor(0, `^tic-tac-toe:`)
	o.in.Close()
	if err := o.exit(); err != nil {
		t.Fatal(err)
	}
}

func TestPlayerStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- RunPlayer(ctx, inR, io.Discard, PlayerOptions{Mark: MarkO, Opponent: "x"}) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("player did not stop")
	}
}

func TestPlayerRejectsBadOptions(t *testing.T) {
	ctx := context.Background()
	if err := RunPlayer(ctx, strings.NewReader(""), io.Discard, PlayerOptions{Opponent: "o"}); !errors.Is(err, ErrBadMark) {
		t.Errorf("no mark: %v", err)
	}
	if err := RunPlayer(ctx, strings.NewReader(""), io.Discard, PlayerOptions{Mark: MarkX}); err == nil {
		t.Errorf("no opponent: accepted")
	}
}

// TestPlayerWaitsForAnnouncementThenGivesUp plays X against the test and
// never announces the end: X exits on its own once AnnounceTimeout passes.
func TestPlayerWaitsForAnnouncementThenGivesUp(t *testing.T) {
	x := startPlayer(t, "x", PlayerOptions{Mark: MarkX, Opponent: "o", Strategy: Perfect, Seed: 3,
		AnnounceTimeout: 50 * time.Millisecond})
	g := NewTicTacToe()
	moveRx := regexp.MustCompile(`^@relay:o move (\d)$`)
	i := 0
	for n := 1; !g.Result().Over; n++ {
		i = x.waitFor(i, `^@relay:o move \d$`)
		line, _ := x.next(i)
		i++
		if err := g.Play(MarkX, int(moveRx.FindStringSubmatch(line)[1][0]-'0')); err != nil {
			t.Fatal(err)
		}
		if g.Result().Over {
			break
		}
		c := g.Board().Free()[0]
		if err := g.Play(MarkO, c); err != nil {
			t.Fatal(err)
		}
		x.deliver(fmt.Sprintf("%08d", n), "o", fmt.Sprintf("move %d", c))
	}
	if err := x.exit(); err != nil {
		t.Fatal(err)
	}
	x.waitFor(i, `^no announcement from swarm; the game is over: `+regexp.QuoteMeta(g.Result().String())+`$`)
}

// TestPlayerRepicksAfterRefusal: a refused move is taken back and another
// cell is played, unless swarm says it is not the player's turn.
func TestPlayerRepicksAfterRefusal(t *testing.T) {
	x := startPlayer(t, "x", PlayerOptions{Mark: MarkX, Opponent: "o", Strategy: Random, Seed: 5})
	moveRx := regexp.MustCompile(`^@relay:o move (\d)$`)
	i := x.waitFor(0, moveRx.String())
	line, _ := x.next(i)
	first := moveRx.FindStringSubmatch(line)[1]

	x.deliver("aaaa0001", "swarm", "illegal move: cell "+first+" is taken")
	i = x.waitFor(i+1, moveRx.String())
	line, _ = x.next(i)
	second := moveRx.FindStringSubmatch(line)[1]
	if second == first {
		t.Fatalf("played refused cell %s again", first)
	}
	// The board printed with it shows only the new move.
	if prev, _ := x.next(i - 6); prev != "I (X) play "+second {
		t.Fatalf("line before the board = %q\n%s", prev, x.output())
	}
	if c := strings.Count(strings.Join(boardLines(t, x, i-5), ""), "X"); c != 1 {
		t.Fatalf("board after the re-pick has %d X marks:\n%s", c, x.output())
	}

	// Told it is not its turn: it keeps its view and waits.
	x.deliver("aaaa0002", "swarm", "illegal move: it is O's turn")
	x.waitFor(i+1, `^waiting for o's move$`)
	// Then O's move arrives, and X answers it.
	x.deliver("aaaa0003", "o", "move "+first)
	j := x.waitFor(i+1, `^o \(O\) plays `+first+`$`)
	x.waitFor(j, moveRx.String())
}

// boardLines returns the five board lines starting at output line i.
func boardLines(t *testing.T, term *terminal, i int) []string {
	t.Helper()
	var rows []string
	for k := range 5 {
		l, _ := term.next(i + k)
		rows = append(rows, l)
	}
	return rows
}

// TestPlayerIgnoresNoise: echoes, other senders, chatter, malformed or
// impossible moves and duplicates change nothing; line endings and paste
// markers around a message do not hide it.
func TestPlayerIgnoresNoise(t *testing.T) {
	o := startPlayer(t, "o", PlayerOptions{Mark: MarkO, Opponent: "x", Strategy: Perfect, Seed: 1})
	o.waitFor(0, `^tic-tac-toe:`)
	o.typeLine("@relay:x move 1")                                   // its own output echoed
	o.typeLine("relay #00000000 from x] move 1")                    // not the format
	o.deliver("00000001", "human", "move 1")                        // not its opponent
	o.deliver("00000002", "x", "good luck")                         // chatter
	o.deliver("00000003", "x", "move 12")                           // malformed
	o.deliver("00000004", "swarm", "the demo starts")               // an ordinary notice
	o.typeLine("\x1b[200~[relay #00000005 from x] move 5\x1b[201~") // pasted
	i := o.waitFor(0, `^x \(X\) plays 5$`)
	o.waitFor(i, `^@relay:x move \d$`)
	o.deliver("00000005", "x", "move 9")              // a duplicate id
	o.typeLine("[relay #00000006 from x] move 5\r\n") // a taken cell, CR LF
	o.deliver("00000007", "swarm", "game over: draw")
	if err := o.exit(); err != nil {
		t.Fatal(err)
	}
	out := o.output()
	for _, want := range []string{
		"human says: move 1",
		"x says: good luck",
		"ignoring x's move: cell 12 is out of range (1-9)",
		"swarm says: the demo starts",
		"ignoring x's move 5: cell 5 is taken",
		"swarm: game over: draw",
	} {
		if !strings.Contains(out, want+"\n") && !strings.HasSuffix(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "plays"); n != 1 {
		t.Errorf("applied %d moves of x, want 1:\n%s", n, out)
	}
	if n := strings.Count(out, "@relay:"); n != 1 {
		t.Errorf("made %d moves, want 1:\n%s", n, out)
	}
}
