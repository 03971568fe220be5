package cli

import (
	"context"
	"os"

	"swarm/actor"
	"swarm/bus"
	"swarm/mcpserver"
	"swarm/tasks"
)

type mcpCmd struct{}

// Help is the longer text of `swarm mcp --help`: how an agent's CLI is
// wired to the server.
func (mcpCmd) Help() string {
	return `An MCP server on stdin/stdout for an agent's CLI to start as its child. Its tools
(send, inbox, agents, task_create, task_start, task_done, task_fail, heartbeat)
act as the agent named by the environment swarm gives each agent (SWARM_DIR,
SWARM_AGENT, SWARM_TOKEN); outside any agent, as you.

Claude Code (the same "mcpServers" entry works in .mcp.json, and for Gemini CLI
in .gemini/settings.json):

    claude --mcp-config '{"mcpServers":{"swarm":{"command":"swarm","args":["mcp"]}}}'

A CLI that gives its MCP servers only part of its environment must be told to
pass the three on: Codex, in .codex/config.toml,

    [mcp_servers.swarm]
    command = "swarm"
    args = ["mcp"]
    env_vars = ["SWARM_DIR", "SWARM_AGENT", "SWARM_TOKEN"]

and Gemini CLI, which withholds variables named like secrets, with
"env": {"SWARM_TOKEN": "$SWARM_TOKEN"} in its entry.`
}

func (c *mcpCmd) Run(g *Globals) error {
	b, err := g.open(false) // an agent's bus exists; a server started elsewhere must not make one
	if err != nil {
		return err
	}
	defer b.Close()
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	v := viaSwarm{g}
	return mcpserver.Serve(g.ctx, b, mcpserver.Options{Version: version, Getenv: os.Getenv, Dir: wd, Requests: v, Roster: v.Roster}, g.stdin, g.stdout)
}

// Roster reads every agent's status from the swarm's record
// (Globals.record): in a host's directory, its main swarm's.
func (v viaSwarm) Roster(ctx context.Context) ([]bus.RosterEntry, error) {
	r, done, err := v.g.record()
	if err != nil {
		return nil, err
	}
	defer done()
	return r.Roster(ctx)
}

// viaSwarm makes each of the MCP server's requests as the command line
// makes it (Globals.actor): through the swarm running on the bus when one
// answers (a host's sends them on to its main swarm), else on the bus.
type viaSwarm struct{ g *Globals }

func (v viaSwarm) Heartbeat(ctx context.Context, r actor.HeartbeatRequest) (bus.Heartbeat, error) {
	a, done, err := v.g.actor()
	if err != nil {
		return bus.Heartbeat{}, err
	}
	defer done()
	return a.Heartbeat(ctx, r)
}

func (v viaSwarm) CreateTask(ctx context.Context, to, title, description string) (bus.Task, error) {
	a, done, err := v.g.actor()
	if err != nil {
		return bus.Task{}, err
	}
	defer done()
	return a.CreateTask(ctx, to, title, description)
}

func (v viaSwarm) MoveTask(ctx context.Context, projectDir, ref string, move tasks.Move, note string) (before, after bus.Task, err error) {
	a, done, err := v.g.actor()
	if err != nil {
		return before, after, err
	}
	defer done()
	return a.MoveTask(ctx, projectDir, ref, move, note)
}

func (v viaSwarm) ReviewTask(ctx context.Context, projectDir, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error) {
	a, done, err := v.g.actor()
	if err != nil {
		return bus.Review{}, bus.Task{}, err
	}
	defer done()
	return a.ReviewTask(ctx, projectDir, ref, verdict, note)
}
