package cli

import (
	"context"
	"fmt"
	"time"

	"swarm/server"
	"swarm/textsafe"
)

type peekCmd struct {
	Agent string `arg:"" help:"The agent whose screen to print."`
	JSON  bool   `name:"json" help:"Print one JSON object: agent, rows, cols, lines, alt_screen, title."`
}

// socketTimeout bounds an exchange with the running swarm (a stop, the
// time its agents take to end).
const socketTimeout = 10 * time.Second

func (c *peekCmd) Run(g *Globals) error {
	ctx, cancel := context.WithTimeout(g.ctx, socketTimeout)
	defer cancel()
	sw, err := server.Attach(ctx, g.busDir(), program())
	if err != nil {
		return err
	}
	defer sw.Close()
	r, err := sw.Peek(ctx, c.Agent)
	if err != nil {
		return err
	}
	if c.JSON {
		return g.jsonOut().Encode(r)
	}
	lines := r.Lines
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		// What the agent drew, never a control sequence for this terminal.
		if _, err := fmt.Fprintln(g.stdout, textsafe.Line(l)); err != nil {
			return err
		}
	}
	return nil
}
