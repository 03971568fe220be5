package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"swarm/server"
	"swarm/textsafe"
)

type lsCmd struct {
	JSON bool `name:"json" help:"Print one JSON object per swarm."`
}

func (c *lsCmd) Run(g *Globals) error {
	ctx, cancel := context.WithTimeout(g.ctx, socketTimeout)
	defer cancel()
	swarms, err := server.List(ctx, program())
	if err != nil {
		return err
	}
	if c.JSON {
		enc := g.jsonOut()
		for _, r := range swarms {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(swarms) == 0 {
		fmt.Fprintln(g.stdout, "no swarm is running")
		return nil
	}
	w := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "DIRECTORY\tAGENTS\tSINCE\tPID")
	for _, r := range swarms {
		fmt.Fprintf(w, "%s\t%d/%d running\t%s (%s ago)\t%d\n", textsafe.Line(r.Dir), r.AgentsRunning, r.Agents,
			r.Started.Local().Format("2006-01-02 15:04"), time.Since(r.Started).Round(time.Second), r.Pid)
	}
	return w.Flush()
}
