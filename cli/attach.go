package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"swarm/server"
	"swarm/tui"
)

type attachCmd struct {
	Notify string `help:"How the UI announces what starts to need you: all, bell, desktop or off." enum:"all,bell,desktop,off" default:"all"`
}

func (c *attachCmd) Run(g *Globals) error {
	if err := g.needTerminal("swarm peek AGENT"); err != nil {
		return err
	}
	return g.attach(c.Notify, "")
}

// remoteSwarm is a swarm in another process as the UI's Swarm.
type remoteSwarm struct{ *server.Remote }

func (r remoteSwarm) Subscribe() tui.Events { return r.Remote.Subscribe() }

// attach runs the terminal UI on the swarm serving the bus directory,
// until the person detaches or stops it, or the swarm ends.
// notice, when set, is said in the UI's status line at start.
func (g *Globals) attach(notify, notice string) error {
	ctx, cancel := context.WithTimeout(g.ctx, socketTimeout)
	r, err := server.Attach(ctx, g.busDir(), program())
	cancel()
	if err != nil {
		return err
	}
	defer r.Close()
	// Subscribe before the UI reads the first state, so that nothing that
	// happens in between is missed.
	events := r.Subscribe()
	defer events.Close()
	// The UI ends when the swarm does, or stops answering.
	ctx, cancel = context.WithCancel(g.ctx)
	defer cancel()
	var hung atomic.Value
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if err := r.Watch(ctx); err != nil {
			hung.Store(err)
			cancel()
		}
	}()
	defer func() { cancel(); <-watched }()
	var stopped atomic.Bool
	stop := func() error {
		stopped.Store(true)
		return g.stopSwarm()
	}
	dir := filepath.Dir(r.ConfigFile())
	_, game := r.Game()
	err = tui.Run(ctx, remoteSwarm{r}, tui.Options{Title: filepath.Base(dir), Dir: dir, Subscription: events, Game: game,
		Attached: true, StopSwarm: stop, Notice: notice,
		Bell: notify == "all" || notify == "bell", Desktop: notify == "all" || notify == "desktop"})
	switch {
	case errors.Is(err, tui.ErrNotShown):
		// A ctrl+c while the UI was starting: swarm up stops a swarm it
		// was starting (server.Started.Abandon); one that ran goes on.
		return errors.New("interrupted; the swarm runs on: `swarm attach` shows it, `swarm stop` ends it")
	case err != nil:
		return err
	case hung.Load() != nil && !r.Gone():
		return fmt.Errorf("detached: %v", hung.Load())
	case stopped.Load():
		fmt.Fprintln(g.stderr, "swarm: stopped")
	case r.Gone() && g.ctx.Err() == nil:
		return errors.New("the swarm stopped")
	default:
		fmt.Fprintln(g.stderr, "swarm: detached; the agents go on (swarm attach comes back, swarm stop ends them)")
	}
	return nil
}

type stopCmd struct{}

func (stopCmd) Run(g *Globals) error {
	if err := g.stopSwarm(); err != nil {
		return err
	}
	fmt.Fprintln(g.stdout, "stopped")
	return nil
}

// stopTimeout bounds how long swarm stop waits for the swarm to end its
// agents: each may take an editor's quit grace, then SIGTERM's grace, then
// what it left running the same again (seconds each, longer on a busy
// machine).
const stopTimeout = time.Minute

// stopSwarm asks the swarm serving the bus directory to stop, and returns
// once it has ended its agents.
func (g *Globals) stopSwarm() error {
	ctx, cancel := context.WithTimeout(g.ctx, stopTimeout)
	defer cancel()
	return server.Stop(ctx, g.busDir(), program())
}
