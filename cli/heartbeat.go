package cli

import (
	"fmt"
	"path/filepath"

	"swarm/actor"
)

type heartbeatCmd struct {
	Status   string  `help:"What you are doing: idle, working, blocked or needs-human." enum:"idle,working,blocked,needs-human" default:"working"`
	Progress float64 `help:"Progress on the current task, 0 to 1." default:"0" placeholder:"F"`
	Task     string  `help:"Id of the task you work on." placeholder:"ID"`
}

func (c *heartbeatCmd) Run(g *Globals) error {
	req := actor.HeartbeatRequest{Status: c.Status, Progress: c.Progress, Task: c.Task}
	if _, err := req.Report(); err != nil {
		return exitErr(err) // a bad flag is refused before anything is opened
	}
	a, done, err := g.actor()
	if err != nil {
		return err
	}
	defer done()
	_, err = a.Heartbeat(g.ctx, req)
	return exitErr(err)
}

type exportCmd struct {
	Out string `help:"JSONL file to append to (default: export.jsonl in the bus directory)." placeholder:"FILE"`
}

func (c *exportCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	out := c.Out
	if out == "" {
		out = filepath.Join(b.Dir(), "export.jsonl")
	}
	n, err := b.Export(g.ctx, out)
	if err != nil {
		return err
	}
	noun := "messages"
	if n == 1 {
		noun = "message"
	}
	fmt.Fprintf(g.stdout, "exported %d %s to %s\n", n, noun, out)
	return nil
}
