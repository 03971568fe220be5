package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"swarm/bus"
)

type heartbeatCmd struct {
	Status   string  `help:"What you are doing: idle, working or blocked." enum:"idle,working,blocked" default:"working"`
	Progress float64 `help:"Progress on the current task, 0 to 1." default:"0" placeholder:"F"`
	Task     string  `help:"Id of the task you work on." placeholder:"ID"`
}

func (c *heartbeatCmd) Run(g *Globals) error {
	status, perr := bus.ParseStatus(c.Status)
	if perr != nil {
		return usageError("heartbeat: %v", perr)
	}
	report := bus.Heartbeat{Status: status, Progress: c.Progress, Task: c.Task}
	if err := report.CheckReport(); err != nil {
		return usageError("heartbeat: %v", err)
	}
	b, err := g.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	me, err := g.caller(b)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if me == bus.Human {
		return errors.New("heartbeat: only agents send heartbeats, and this runs outside any agent")
	}
	report.Agent = me
	return b.Beat(g.ctx, report)
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
