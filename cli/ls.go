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
	JSON  bool `name:"json" help:"Print one JSON object per swarm."`
	Prune bool `help:"End the swarms whose directory is gone (removed while they ran: swarm stop cannot reach them), and forget them."`
}

func (c *lsCmd) Run(g *Globals) error {
	ctx, cancel := context.WithTimeout(g.ctx, socketTimeout)
	defer cancel()
	if c.Prune {
		pruned, err := server.Prune(g.ctx, program())
		if err != nil {
			return err
		}
		for _, r := range pruned {
			fmt.Fprintf(g.stdout, "ended the swarm of %s (pid %d): its directory is gone\n", textsafe.Line(r.Dir), r.Pid)
		}
	}
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
	fmt.Fprintln(w, "DIRECTORY\tAGENTS\tUIS\tSINCE\tPID")
	gone := 0
	for _, r := range swarms {
		dir, agents := textsafe.Line(r.Dir), fmt.Sprintf("%d/%d running", r.AgentsRunning, r.Agents)
		switch {
		case r.DirGone:
			dir += " (directory gone)"
			agents = "?"
			gone++
		case !r.Reachable && r.Unreachable != "":
			agents = "? (not answering: " + textsafe.Line(r.Unreachable) + ")"
		case !r.Reachable:
			agents = "? (not answering)"
		case r.Ended && r.Clients == 0:
			agents += fmt.Sprintf(", all ended, no UI: it ends within %s unless one attaches", server.IdleEnd)
		case r.Ended:
			agents += ", all ended"
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s (%s ago)\t%d\n", dir, agents, r.Clients,
			r.Started.Local().Format("2006-01-02 15:04"), time.Since(r.Started).Round(time.Second), r.Pid)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if gone > 0 {
		fmt.Fprintf(g.stdout, "%d swarm(s) whose directory is gone: swarm ls --prune ends them\n", gone)
	}
	return nil
}
