package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"swarm/bus"
	"swarm/games"
)

// DemoOptions configure the tic-tac-toe demo.
type DemoOptions struct {
	Seed       int64  // makes the game repeatable
	XCmd, OCmd string // any agent command instead of the built-in player (run with sh -c)
	Executable string // the swarm binary that runs the built-in players
	Dir        string // working directory of the players
	Strategy   string // of the built-in players: perfect, casual (default) or random
}

// Player names in the demo.
const (
	DemoX = "X"
	DemoO = "O"
)

// TicTacToeConfig is the demo's swarm: two players, X and O. A built-in
// player is the swarm binary's `agent tictactoe`; a custom command is
// briefed with the rules instead.
func TicTacToeConfig(opts DemoOptions) *Config {
	player := func(mark, opponent, custom string, seed int64) AgentConfig {
		ac := AgentConfig{
			Name: mark, Dir: opts.Dir, Restart: RestartNever, Confirm: true,
		}
		if custom == "" {
			strategy := opts.Strategy
			if strategy == "" {
				strategy = games.Casual.String()
			}
			ac.Argv = []string{opts.Executable, "agent", "tictactoe", "--mark", mark, "--opponent", opponent,
				"--strategy", strategy, "--seed", strconv.FormatInt(seed, 10)}
			ac.Cmd = fmt.Sprintf("swarm agent tictactoe --mark %s --opponent %s --strategy %s --seed %d", mark, opponent, strategy, seed)
			return ac // line-oriented: deliver as soon as a line is read
		}
		ac.Argv, ac.Cmd = []string{"/bin/sh", "-c", custom}, custom
		ac.Quiet = 300 * time.Millisecond
		ac.Brief, ac.BriefText = true, games.TicTacToeRules(games.Mark(mark[0]), opponent)
		return ac
	}
	return &Config{
		Game: GameConfig{Kind: "tictactoe", X: DemoX, O: DemoO},
		Agents: []AgentConfig{
			player(DemoX, DemoO, opts.XCmd, opts.Seed),
			player(DemoO, DemoX, opts.OCmd, opts.Seed+1),
		},
	}
}

// DemoDir returns the bus directory for a demo that was not given one:
// <temp>/swarm-demo-<uid>, emptied first, so that the last game stays there
// to look at until the next demo replaces it (kept). The demo holds a claim
// on it (a lock beside it, not in it: the directory is emptied) until done,
// so that a second demo started meanwhile never empties it under the first;
// that one, or any demo while a swarm runs there, gets a fresh directory,
// which done removes.
func DemoDir() (dir string, done func(), kept bool, err error) {
	dir = filepath.Join(os.TempDir(), fmt.Sprintf("swarm-demo-%d", os.Getuid()))
	if release, ok := claimDemoDir(dir); ok {
		if err := os.RemoveAll(dir); err != nil {
			release()
			return "", nil, false, err
		}
		return dir, release, true, nil
	}
	dir, err = os.MkdirTemp("", "swarm-demo-")
	if err != nil {
		return "", nil, false, err
	}
	return dir, func() { _ = os.RemoveAll(dir) }, false, nil
}

// claimDemoDir takes the claim on the demo directory dir when no other
// demo holds it and no swarm runs there; release gives it back.
func claimDemoDir(dir string) (release func(), ok bool) {
	claim, err := os.OpenFile(dir+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(claim.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || os.MkdirAll(dir, 0o700) != nil {
		claim.Close()
		return nil, false
	}
	l, err := lockDir(dir)
	if err != nil {
		claim.Close()
		return nil, false
	}
	l.release()
	return func() { claim.Close() }, true
}

// ErrGameAborted means the demo ended without a complete game.
var ErrGameAborted = errors.New("game aborted")

// WaitGame follows a demo's events until the game has a result and both
// players have been told, calling show for every event on the way. It
// fails when a player ends (or gives up) before the result, when no move
// comes for moveTimeout (0: wait for ever), or when ctx ends.
func WaitGame(ctx context.Context, sub *Subscription, moveTimeout time.Duration, show func(Event)) (games.Result, error) {
	var result games.Result
	over := false
	told := map[string]bool{}
	var grace <-chan time.Time
	var stalled <-chan time.Time
	idle := time.NewTimer(moveTimeout)
	defer idle.Stop()
	if moveTimeout > 0 {
		stalled = idle.C
	}
	for {
		select {
		case <-ctx.Done():
			return result, fmt.Errorf("%w: %w", ErrGameAborted, context.Cause(ctx))
		case <-stalled:
			return result, fmt.Errorf("%w: no move for %s", ErrGameAborted, moveTimeout)
		case <-grace:
			return result, nil // a custom player may never acknowledge; the result stands
		case ev, ok := <-sub.Events():
			if !ok {
				return result, fmt.Errorf("%w: supervisor stopped", ErrGameAborted)
			}
			if show != nil {
				show(ev)
			}
			switch ev.Kind {
			case EventGame:
				if moveTimeout > 0 {
					idle.Reset(moveTimeout)
				}
				if ev.Game.Result.Over && !over {
					over, result = true, ev.Game.Result
					grace = time.After(5 * time.Second)
				}
			case EventDelivered, EventDeliveryFailed:
				if over && ev.Message.Kind == bus.KindGameResult {
					told[ev.Agent] = true
				}
			case EventAgentExited, EventAgentGaveUp:
				if !over {
					return result, fmt.Errorf("%w: player %s exited (%s) before the game ended", ErrGameAborted, ev.Agent, ev.Text)
				}
				told[ev.Agent] = true
			}
			if over && told[DemoX] && told[DemoO] {
				return result, nil
			}
		}
	}
}
