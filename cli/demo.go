package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"swarm/games"
	"swarm/supervisor"
	"swarm/swarmapi"
	"swarm/swarmrun"
	"swarm/tui"
)

type demoCmd struct {
	Tictactoe demoTicTacToeCmd `cmd:"" name:"tictactoe" help:"Two agent processes play a refereed game of tic-tac-toe."`
}

type demoTicTacToeCmd struct {
	Headless    bool           `help:"Print the moves and the result instead of opening the UI."`
	Pace        *time.Duration `help:"Space the moves at least this far apart (default 500ms with the UI, 0 headless)." placeholder:"DURATION"`
	Seed        *int64         `help:"Seed for the players' choices; the same seed replays the same game (default: random)."`
	X           string         `name:"x" help:"Command that plays X instead of the built-in player (run with sh -c and briefed with the rules)." placeholder:"CMD"`
	O           string         `name:"o" help:"Command that plays O instead of the built-in player." placeholder:"CMD"`
	Strategy    string         `enum:"perfect,casual,random" default:"casual" help:"How the built-in players choose: perfect (never loses, so two of them always draw), casual (perfect but for a random move now and then) or random."`
	MoveTimeout time.Duration  `default:"2m" help:"Give up when no move comes for this long (0: wait for ever)." placeholder:"DURATION"`

	busGone bool // the game's bus is removed on exit
}

func (c *demoTicTacToeCmd) Run(g *Globals) error {
	if !c.Headless {
		if err := g.needTerminal("swarm demo tictactoe --headless"); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	seed := time.Now().UnixNano() % 1_000_000
	if c.Seed != nil {
		seed = *c.Seed
	}
	pace := time.Duration(0)
	if !c.Headless {
		pace = 500 * time.Millisecond // slow enough for a person to follow
	}
	if c.Pace != nil {
		if pace = *c.Pace; pace < 0 {
			return usageError("--pace %s is negative", pace)
		}
	}
	if c.MoveTimeout < 0 {
		return usageError("--move-timeout %s is negative", c.MoveTimeout)
	}
	// A demo's bus is not the project's (not even inside an agent, where
	// $SWARM_DIR names the project's): --dir, else the demo directory,
	// named at the end.
	g.ignoreEnvDir = true
	if g.Dir == "" {
		dir, done, kept, err := supervisor.DemoDir()
		if err != nil {
			return err
		}
		defer done()
		c.busGone = !kept
		g.Dir = dir
	}
	cwd, _ := os.Getwd()
	cfg := supervisor.TicTacToeConfig(supervisor.DemoOptions{Seed: seed, XCmd: c.X, OCmd: c.O, Executable: exe, Dir: cwd, Strategy: c.Strategy})
	opts := supervisor.Options{Config: cfg, Pace: pace}
	fmt.Fprintf(g.stdout, "tic-tac-toe, seed %d\n  X: %s\n  O: %s\n", seed, cfg.Agents[0].Cmd, cfg.Agents[1].Cmd)
	if !c.Headless {
		return c.runUI(g, opts, seed)
	}
	var result games.Result
	err = g.runSwarm(opts, func(ctx context.Context, sw *swarmrun.Swarm) error {
		var err error
		result, err = supervisor.WaitGame(ctx, sw.Subscription, c.MoveTimeout, func(ev swarmapi.Event) {
			switch ev.Kind {
			case swarmapi.EventGame, swarmapi.EventAgentStarted, swarmapi.EventAgentExited, swarmapi.EventNotice:
				_ = swarmrun.PrintEvent(g.stdout, ev, false)
			}
		})
		return err
	})
	if err == nil {
		fmt.Fprintf(g.stdout, "result: %s\n", result)
	}
	c.showBus(g)
	if err == nil && result.Forfeit {
		err = fmt.Errorf("no complete game: %s", result)
	}
	return err
}

// runUI plays the demo in the terminal UI until the person quits, then
// prints the result.
func (c *demoTicTacToeCmd) runUI(g *Globals, opts supervisor.Options, seed int64) error {
	var game swarmapi.GameState
	err := g.runSwarm(opts, func(ctx context.Context, sw *swarmrun.Swarm) error {
		cwd, _ := os.Getwd()
		err := tui.Run(ctx, inProcessOf(sw), tui.Options{
			Title: fmt.Sprintf("tic-tac-toe · seed %d", seed), Game: true, Pace: opts.Pace,
			Dir: cwd, Log: sw.Log, Subscription: sw.Subscription,
		})
		game, _ = sw.Supervisor.Game()
		return err
	})
	if game.Result.Over {
		fmt.Fprintf(g.stdout, "result: %s\n", game.Result)
	} else {
		fmt.Fprintln(g.stdout, "the game was left unfinished")
	}
	c.showBus(g)
	return err
}

// showBus says where the game can be read again, unless its bus is a
// temporary one removed on exit (another demo held the usual directory).
func (c *demoTicTacToeCmd) showBus(g *Globals) {
	if c.busGone {
		fmt.Fprintln(g.stdout, "the demo directory was in use (another demo?): this game's bus was a temporary one, removed on exit")
		return
	}
	fmt.Fprintf(g.stdout, "the game is on the bus: swarm log --dir %s\n", g.busDir())
}

type agentCmd struct {
	Tictactoe agentTicTacToeCmd `cmd:"" name:"tictactoe" help:"A tic-tac-toe player that speaks through its terminal: it prints @relay:<opponent> move <cell> and reads the moves swarm types in."`
}

type agentTicTacToeCmd struct {
	Mark     string `required:"" enum:"X,O" help:"The player's mark: X (moves first) or O."`
	Opponent string `required:"" help:"The opponent's agent name." placeholder:"NAME"`
	Strategy string `enum:"perfect,casual,random" default:"perfect" help:"How it chooses: perfect (never loses), casual (perfect but for a random move now and then) or random."`
	Seed     int64  `default:"1" help:"Seed for its choices; the same seed plays the same game."`
}

func (c *agentTicTacToeCmd) Run(g *Globals) error {
	mark, err := games.ParseMark(c.Mark)
	if err != nil {
		return usageError("%v", err)
	}
	strategy, err := games.ParseStrategy(c.Strategy)
	if err != nil {
		return usageError("%v", err)
	}
	return games.RunPlayer(g.ctx, g.stdin, g.stdout, games.PlayerOptions{Mark: mark, Opponent: c.Opponent, Strategy: strategy, Seed: c.Seed})
}
