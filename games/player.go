package games

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"
)

// DefaultAnnounceTimeout is how long the player waits for swarm's
// "game over" announcement once the game is over in its own view.
const DefaultAnnounceTimeout = 10 * time.Second

// PlayerOptions configures RunPlayer.
type PlayerOptions struct {
	// Mark is the player's mark, X or O. X moves first.
	Mark Mark
	// Opponent is the agent name of the other player; moves are addressed
	// to it and only its messages are read as moves.
	Opponent string
	// Strategy chooses the moves.
	Strategy Strategy
	// Seed seeds the player's random choices; the same seed against the same
	// opponent gives the same game.
	Seed int64
	// Pace is how long the player waits before each of its moves, so a
	// person can follow the game. Zero plays at once.
	Pace time.Duration
	// AnnounceTimeout bounds the wait for swarm's announcement once the game
	// is over in the player's own view; zero means DefaultAnnounceTimeout.
	AnnounceTimeout time.Duration
}

// inbound matches a message as swarm types it into an agent's terminal:
// "[relay #<id> from <sender>] <body>". The sender is bus's name grammar,
// copied (games imports nothing of swarm; FuzzNameGrammarAgrees checks
// the copy).
var inbound = regexp.MustCompile(`^\[relay #([A-Za-z0-9]{1,64}) from ([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\] ?(.*)$`)

// swarmName is the sender of swarm's own notices.
const swarmName = "swarm"

// RunPlayer is the built-in tic-tac-toe player agent. It speaks only through
// its terminal: out is what it prints, in is what is typed into it.
//
// It prints a banner and the board. Whenever it is its turn it prints the
// board with its move and then the line "@relay:<opponent> move <cell>".
// It reads lines of the form "[relay #<id> from <sender>] <body>" (ending in
// CR or LF) and ignores every other line, such as the terminal's echo of its
// own output, and any message whose id it has already seen:
//
//   - "move N" from the opponent is applied to its board; then, unless the
//     game is over, it answers with its own move.
//   - "illegal move: …" from swarm about a cell that is taken or out of
//     range takes back its last move and plays another cell, avoiding the
//     one refused; other refusals (not its turn, game over, forfeit) make it
//     wait.
//   - "game over: …" from swarm is printed and RunPlayer returns nil.
//
// Once the game is over in its own view it waits for the announcement for at
// most AnnounceTimeout, then prints the result and returns nil. End of input
// also returns nil. When ctx is done RunPlayer returns ctx.Err().
//
// RunPlayer reads in on a goroutine of its own, which ends when in reports
// EOF or an error; a caller that returns before that must close in.
func RunPlayer(ctx context.Context, in io.Reader, out io.Writer, opts PlayerOptions) error {
	if opts.Mark != MarkX && opts.Mark != MarkO {
		return fmt.Errorf("tic-tac-toe player: %w", ErrBadMark)
	}
	if opts.Opponent == "" {
		return fmt.Errorf("tic-tac-toe player: no opponent named")
	}
	if opts.AnnounceTimeout <= 0 {
		opts.AnnounceTimeout = DefaultAnnounceTimeout
	}
	p := &player{
		opts: opts,
		out:  out,
		game: NewTicTacToe(),
		rng:  rand.New(rand.NewPCG(uint64(opts.Seed), uint64(opts.Mark))),
		seen: map[string]bool{},
	}

	lines := make(chan string)
	done := make(chan struct{})
	defer close(done)
	go readLines(in, lines, done)

	p.printf("tic-tac-toe: I play %s against %s (strategy %s, seed %d). X moves first.\n%s\n",
		opts.Mark, opts.Opponent, opts.Strategy, opts.Seed, p.game.Board())
	if opts.Mark == MarkX {
		if err := p.move(ctx); err != nil {
			return err
		}
	}

	var deadline *time.Timer
	defer func() {
		if deadline != nil {
			deadline.Stop()
		}
	}()
	for {
		var expired <-chan time.Time
		switch over := p.game.Result().Over; {
		case over && deadline == nil:
			deadline = time.NewTimer(opts.AnnounceTimeout)
			expired = deadline.C
		case over:
			expired = deadline.C
		case deadline != nil: // a refused move reopened the game
			deadline.Stop()
			deadline = nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-expired:
			p.printf("no announcement from swarm; the game is over: %s\n", p.game.Result())
			return nil
		case line, ok := <-lines:
			if !ok {
				if p.game.Result().Over {
					p.printf("the game is over: %s\n", p.game.Result())
				}
				return nil
			}
			finished, err := p.handle(ctx, line)
			if finished || err != nil {
				return err
			}
		}
	}
}

// readLines sends each line of in (split at CR or LF, empty lines dropped)
// to lines until in ends or done is closed; then it closes lines.
func readLines(in io.Reader, lines chan<- string, done <-chan struct{}) {
	defer close(lines)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 4096), 4<<20)
	sc.Split(splitCRLF)
	for sc.Scan() {
		select {
		case lines <- sc.Text():
		case <-done:
			return
		}
	}
}

// splitCRLF is a bufio.SplitFunc for lines ended by CR, LF or CR LF: swarm
// submits with CR, and a terminal in canonical mode turns it into LF.
func splitCRLF(data []byte, atEOF bool) (advance int, token []byte, err error) {
	start := 0
	for start < len(data) && (data[start] == '\r' || data[start] == '\n') {
		start++
	}
	if i := bytes.IndexAny(data[start:], "\r\n"); i >= 0 {
		return start + i + 1, data[start : start+i], nil
	}
	if atEOF && start < len(data) {
		return len(data), data[start:], nil
	}
	return start, nil, nil
}

type player struct {
	opts PlayerOptions
	out  io.Writer
	game *Game
	rng  *rand.Rand
	seen map[string]bool

	pending int          // the cell of our last move, until the opponent answers
	avoid   map[int]bool // cells swarm refused since the opponent last moved
}

func (p *player) printf(format string, args ...any) {
	// One write per event keeps each event together in the terminal. A
	// failed write is not fatal: swarm reads the terminal, and when it is
	// gone, input ends too.
	_, _ = fmt.Fprintf(p.out, format, args...)
}

// handle acts on one input line; finished reports that the player is done.
func (p *player) handle(ctx context.Context, line string) (finished bool, err error) {
	m := inbound.FindStringSubmatch(cleanLine(line))
	if m == nil {
		return false, nil
	}
	id, from, body := m[1], m[2], strings.TrimSpace(m[3])
	if p.seen[id] {
		return false, nil
	}
	p.seen[id] = true

	switch from {
	case swarmName:
		return p.fromSwarm(ctx, body)
	case p.opts.Opponent:
		return false, p.fromOpponent(ctx, body)
	default:
		p.printf("%s says: %s\n", from, body)
		return false, nil
	}
}

func (p *player) fromSwarm(ctx context.Context, body string) (bool, error) {
	lower := strings.ToLower(body)
	switch {
	case strings.HasPrefix(lower, GameOverPrefix):
		p.printf("swarm: %s\n", body)
		return true, nil
	case strings.HasPrefix(lower, IllegalMovePrefix):
		p.printf("swarm: %s\n", body)
		return false, p.refused(ctx, lower)
	default:
		p.printf("swarm says: %s\n", body)
		return false, nil
	}
}

// refused handles swarm's refusal of our last move. A cell refused as taken
// or out of range is taken back and another one played; a refusal because
// the game is over or we forfeit waits for the announcement; a refusal
// because it is not our turn keeps our view as it is and waits for the
// opponent, whose move is then read against it.
func (p *player) refused(ctx context.Context, reason string) error {
	if p.pending == 0 {
		return nil // not about a move of ours that is still open
	}
	switch {
	case strings.Contains(reason, "forfeits"), strings.Contains(reason, "is over"):
		return nil
	case strings.Contains(reason, "turn"):
		p.printf("waiting for %s's move\n", p.opts.Opponent)
		return nil
	}
	cell := p.pending
	p.pending = 0
	p.takeBack()
	if p.avoid == nil {
		p.avoid = map[int]bool{}
	}
	p.avoid[cell] = true
	return p.move(ctx)
}

// takeBack removes our last move from our view by replaying the others.
func (p *player) takeBack() {
	moves := p.game.Moves()
	if len(moves) == 0 || moves[len(moves)-1].Mark != p.opts.Mark {
		return
	}
	g := NewTicTacToe()
	for _, mv := range moves[:len(moves)-1] {
		_ = g.Play(mv.Mark, mv.Cell) // replaying moves that were legal
	}
	p.game = g
}

func (p *player) fromOpponent(ctx context.Context, body string) error {
	cell, err := ParseMove(body)
	switch {
	case errors.Is(err, ErrNotAMove):
		p.printf("%s says: %s\n", p.opts.Opponent, body)
		return nil
	case err != nil:
		p.printf("ignoring %s's move: %v\n", p.opts.Opponent, err)
		return nil
	}
	if err := p.game.Play(p.opts.Mark.Opponent(), cell); err != nil {
		p.printf("ignoring %s's move %d: %v\n", p.opts.Opponent, cell, err)
		return nil
	}
	p.pending = 0
	p.avoid = nil
	p.printf("%s (%s) plays %d\n%s\n", p.opts.Opponent, p.opts.Mark.Opponent(), cell, p.game.Board())
	if r := p.game.Result(); r.Over {
		p.printf("the game is over in my view: %s; waiting for swarm\n", r)
		return nil
	}
	return p.move(ctx)
}

// move chooses a cell, plays it in our view and sends it to the opponent.
func (p *player) move(ctx context.Context) error {
	if p.opts.Pace > 0 {
		t := time.NewTimer(p.opts.Pace)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	// Cells swarm refused are probably the opponent's already; choosing as
	// if they were keeps the strategy sound.
	view := p.game.Board()
	for c := range p.avoid {
		if view[c-1] == Empty {
			view[c-1] = p.opts.Mark.Opponent()
		}
	}
	cell := p.opts.Strategy.Choose(view, p.opts.Mark, p.rng)
	if cell == 0 {
		cell = p.opts.Strategy.Choose(p.game.Board(), p.opts.Mark, p.rng)
	}
	if cell == 0 {
		p.printf("no free cell left to play\n")
		return nil
	}
	if err := p.game.Play(p.opts.Mark, cell); err != nil {
		// Only reachable when our own view is inconsistent; say so and wait.
		p.printf("cannot play %d: %v\n", cell, err)
		return nil
	}
	p.pending = cell
	p.printf("I (%s) play %d\n%s\n@relay:%s move %d\n", p.opts.Mark, cell, p.game.Board(), p.opts.Opponent, cell)
	if r := p.game.Result(); r.Over {
		p.printf("the game is over in my view: %s; waiting for swarm\n", r)
	}
	return nil
}

// cleanLine drops control characters and escape sequences (such as the
// bracketed-paste markers) that a terminal may pass through.
func cleanLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			// CSI: parameters and intermediates up to a final byte 0x40..0x7e.
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		case c < 0x20 && c != '\t', c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
