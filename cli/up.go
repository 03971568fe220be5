package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"swarm/internal/serverbin"
	"swarm/server"
	"swarm/supervisor"
	"swarm/swarmrun"
	"swarm/tui"
)

type upCmd struct {
	Config   string `short:"c" help:"Config file." default:"swarm.toml" placeholder:"FILE"`
	Headless bool   `help:"Run without the UI: print one line per event until SIGINT or SIGTERM, or until every agent has ended."`
	JSON     bool   `name:"json" help:"With --headless, print one JSON object per event."`
	Notify   string `help:"How the UI announces what starts to need you (an agent that died, a task in review, failed or in conflict): all, bell, desktop (a notification through the terminal: OSC 9 and 777) or off." enum:"all,bell,desktop,off" default:"all"`
	// By default the agents run in a server process of their own, which
	// outlives the UI; the UI attaches to it.
	Foreground bool `help:"Run the agents in this process, under the UI: they end when it does (by default they run in a server of their own that outlives the UI)."`
	Server     bool `hidden:"" help:"Be the server that swarm up starts in the background."`
}

func (c *upCmd) Run(g *Globals) error {
	// up makes a project where it is run, as git init does: its .swarm
	// goes beside swarm.toml here, even under a directory that has one.
	g.busHere = true
	cfg, err := supervisor.LoadConfig(c.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no %s here: run `swarm init` to write a starter config, or pass --config FILE", c.Config)
	}
	if err != nil {
		return err
	}
	switch {
	case c.Headless:
		if cfg.Cluster == nil {
			g.execServer(c.JSON, c.Config) // returns only when swarm serves here
		}
		return g.runSwarm(supervisor.Options{Config: cfg}, func(ctx context.Context, sw *swarmrun.Swarm) error {
			return sw.PrintEvents(ctx, g.stdout, g.stderr, c.JSON)
		})
	case c.Server:
		return g.runSwarm(supervisor.Options{Config: cfg}, func(ctx context.Context, sw *swarmrun.Swarm) error {
			return sw.Serve(ctx, g.stderr)
		})
	case c.JSON:
		return usageError("--json goes with --headless")
	}
	if err := g.needTerminal("swarm up --headless"); err != nil {
		return err
	}
	if !c.Foreground {
		srv, err := g.startServer(c.Config, cfg.Cluster != nil)
		if err == nil {
			notice := ""
			if !srv.Since.IsZero() && cfgChangedSince(c.Config, srv.Since) {
				notice = fmt.Sprintf("%s changed since this swarm started: swarm stop, then swarm, starts it anew", c.Config)
			}
			err = g.attach(c.Notify, notice)
		}
		if err != nil && g.ctx.Err() != nil {
			// Interrupted before the UI ran (once it runs, ctrl+c is a
			// key, and a signal detaches).
			if srv.Starting() {
				// Its agents get their grace: seconds, not a hang.
				fmt.Fprintln(g.stderr, "swarm: interrupted: stopping the swarm it was starting…")
			}
			return srv.Abandon()
		}
		return err
	}
	dir, err := filepath.Abs(filepath.Dir(c.Config))
	if err != nil {
		return err
	}
	return g.runSwarm(supervisor.Options{Config: cfg}, func(ctx context.Context, sw *swarmrun.Swarm) error {
		return tui.Run(ctx, inProcessOf(sw), tui.Options{Title: filepath.Base(dir), Dir: dir, Log: sw.Log, Subscription: sw.Subscription, Game: cfg.Game.Kind != "",
			Bell: c.Notify == "all" || c.Notify == "bell", Desktop: c.Notify == "all" || c.Notify == "desktop"})
	})
}

// startServer starts the swarm of config in a server process of its
// own, unless one already serves the bus directory (server.Start): the
// server binary beside swarm when it is of this build and the config has
// no cluster (serverBinary), else swarm up --server.
func (g *Globals) startServer(config string, cluster bool) (server.Started, error) {
	busDir, err := filepath.Abs(g.busDir())
	if err != nil {
		return server.Started{}, err
	}
	config, err = filepath.Abs(config)
	if err != nil {
		return server.Started{}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return server.Started{}, err
	}
	argv := []string{exe, "up", "--server", "--config", config, "--dir", busDir}
	if srv := g.serverBinary(exe); srv != "" && !cluster {
		argv = []string{srv, "--server", "--config", config, "--dir", busDir, "--swarm", exe, "--program", program()}
	}
	return server.Start(g.ctx, busDir, program(), filepath.Dir(config), argv...)
}

// execServer makes this process the server binary running the headless
// swarm of config, when there is one of this build (serverBinary): the
// same process (its pid, signals and output), a smaller program. It
// returns when there is none, or the exec failed, and this process is to
// serve the swarm itself.
func (g *Globals) execServer(asJSON bool, config string) {
	if g.stdout != os.Stdout || g.stderr != os.Stderr {
		return // the events go where the caller said, not to fds 1 and 2
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	srv := g.serverBinary(exe)
	if srv == "" {
		return
	}
	argv := []string{srv, "--headless", "--config", config, "--dir", g.busDir(), "--swarm", exe, "--program", program()}
	if asJSON {
		argv = append(argv, "--json")
	}
	err = syscall.Exec(srv, argv, os.Environ())
	g.debugf("serving in this process: exec %s: %v", srv, err)
}

// serverBinary is the server binary beside swarm's own (exe), if it is of
// this very build (serverbin.Find); else "", and swarm serves in its own
// process, which it always can. Why one was refused is said with
// $SWARM_DEBUG set.
func (g *Globals) serverBinary(exe string) string {
	self, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	srv, err := serverbin.Find(self, exe)
	if err != nil && !errors.Is(err, serverbin.ErrNone) {
		g.debugf("serving in this process: %v", err)
	}
	return srv
}

// debugf says on stderr, with $SWARM_DEBUG set, what swarm chose and why.
func (g *Globals) debugf(format string, args ...any) {
	if os.Getenv("SWARM_DEBUG") != "" {
		fmt.Fprintf(g.stderr, "swarm: "+format+"\n", args...)
	}
}

// cfgChangedSince says whether the config file at path was written after
// t (a swarm that started at t runs the file as it was then).
func cfgChangedSince(path string, t time.Time) bool {
	st, err := os.Stat(path)
	return err == nil && st.ModTime().After(t)
}

// needTerminal refuses to open the terminal UI when stdin or stdout is
// not a terminal (a pipe, a file, CI), naming the headless alternative.
func (g *Globals) needTerminal(alternative string) error {
	for _, f := range []any{g.stdin, g.stdout} {
		file, ok := f.(*os.File)
		if !ok {
			return usageError("the terminal UI needs a terminal: run `%s`", alternative)
		}
		st, err := file.Stat()
		if err != nil || st.Mode()&os.ModeCharDevice == 0 {
			return usageError("the terminal UI needs a terminal: run `%s`", alternative)
		}
	}
	// A dumb terminal (Emacs' shell, some consoles), or one that does not
	// say what it is, would print the UI's escape sequences as text:
	// nothing is drawn or asked of it.
	switch os.Getenv("TERM") {
	case "dumb":
		return usageError("the terminal UI needs a terminal that takes escape sequences, and TERM is dumb: run `%s`", alternative)
	case "":
		return usageError("the terminal UI needs a terminal that takes escape sequences, and TERM is not set: set it (TERM=xterm-256color) or run `%s`", alternative)
	}
	return nil
}

// inProcess is the swarm running in this process as the UI's Swarm: its
// agents and its hosts' (as an attached UI shows them).
type inProcess struct{ server.Everywhere }

func inProcessOf(sw *swarmrun.Swarm) inProcess {
	return inProcess{server.Everywhere{Supervisor: sw.Supervisor, Elsewhere: sw.Elsewhere}}
}

func (p inProcess) Subscribe() tui.Events { return p.Supervisor.Subscribe() }

// runSwarm runs the swarm of opts in this process on the bus directory
// (swarmrun.Run) until body returns.
func (g *Globals) runSwarm(opts supervisor.Options, body func(context.Context, *swarmrun.Swarm) error) error {
	return swarmrun.Run(g.ctx, swarmrun.Options{BusDir: g.busDir(), Supervisor: opts, Program: program(), Stderr: g.stderr, StartCluster: startCluster}, body)
}

type initCmd struct {
	Config  string `short:"c" help:"Where to write the config." default:"swarm.toml" placeholder:"FILE"`
	BuiltIn bool   `name:"builtin" help:"Write the built-in tic-tac-toe players even when agent CLIs are on PATH."`
}

func (c *initCmd) Run(g *Globals) error {
	var clis []string
	if !c.BuiltIn {
		clis = supervisor.InstalledCLIs()
	}
	dir := filepath.Dir(c.Config)
	if err := supervisor.WriteStarterConfig(c.Config, clis, supervisor.InGitRepo(g.ctx, dir)); err != nil {
		return err
	}
	if len(clis) == 0 {
		fmt.Fprintf(g.stdout, "wrote %s with two built-in players (no agent CLI found on PATH): run `swarm` to start them, then edit its agents\n", c.Config)
		return nil
	}
	fmt.Fprintf(g.stdout, "wrote %s with an agent for each CLI found on PATH: %s\n", c.Config, strings.Join(clis, ", "))
	fmt.Fprintf(g.stdout, "check them with `swarm doctor`, then run `swarm` to start them\n")
	return nil
}

// lastLine returns the last line of a log file, for a terminal.
func lastLine(path string) string { return server.LastLine(path) }
