package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"swarm/server"
	"swarm/tui"
)

type attachCmd struct {
	Notify string `help:"How the UI announces what starts to need you: all, bell, desktop or off." enum:"all,bell,desktop,off" default:"all"`
}

// remoteSwarm is a swarm in another process as the UI's Swarm.
type remoteSwarm struct{ *server.Remote }

func (r remoteSwarm) Subscribe() tui.Events { return r.Remote.Subscribe() }

func (c *attachCmd) Run(g *Globals) error {
	if err := g.needTerminal("swarm peek AGENT"); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(g.ctx, peekTimeout)
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
	// The UI ends when the swarm does.
	ctx, cancel = context.WithCancel(g.ctx)
	defer cancel()
	go func() {
		select {
		case <-r.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	dir := filepath.Dir(r.ConfigFile())
	_, game := r.Game()
	err = tui.Run(ctx, remoteSwarm{r}, tui.Options{Title: filepath.Base(dir), Dir: dir, Subscription: events, Game: game,
		Attached: true, Bell: c.Notify == "all" || c.Notify == "bell", Desktop: c.Notify == "all" || c.Notify == "desktop"})
	select {
	case <-r.Done():
		if g.ctx.Err() == nil {
			return errors.New("the swarm stopped")
		}
	default:
	}
	if err == nil {
		fmt.Fprintln(g.stderr, "swarm: detached; its agents go on (swarm attach comes back, swarm stop ends them)")
	}
	return err
}

type stopCmd struct{}

func (stopCmd) Run(g *Globals) error {
	ctx, cancel := context.WithTimeout(g.ctx, peekTimeout)
	defer cancel()
	cl, err := server.Dial(ctx, g.busDir(), program())
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Stop(ctx); err != nil {
		return err
	}
	// The swarm ends its agents, then closes its socket: wait for that, so
	// that a script can start the next one.
	select {
	case <-cl.Done():
	case <-ctx.Done():
		return fmt.Errorf("the swarm of %s was asked to stop and still runs after %s", g.busDir(), peekTimeout)
	}
	fmt.Fprintln(g.stdout, "stopped")
	return nil
}
