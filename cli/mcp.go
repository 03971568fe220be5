package cli

import (
	"os"

	"swarm/mcpserver"
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
	return mcpserver.Serve(g.ctx, b, mcpserver.Options{Version: version, Getenv: os.Getenv, Dir: wd}, g.stdin, g.stdout)
}
