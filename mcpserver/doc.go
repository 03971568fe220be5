// Package mcpserver is `swarm mcp`: an MCP server over stdio that an
// agent's CLI (Claude Code, Codex, Gemini CLI) starts as its child, giving
// the agent tools for what it otherwise does by printing relay commands or
// running swarm commands — send a message, read its inbox, see the other
// agents, create and report on tasks, send a heartbeat.
//
// Who calls is never an argument: the server's environment (the
// SWARM_DIR, SWARM_AGENT and SWARM_TOKEN swarm gives each agent, which
// the agent's CLI passes on to its MCP servers) says it, through
// supervisor.WhoIsCalling, as for any swarm command. Without an agent's
// environment the caller is the human, with what the human may do.
//
// The requests that the command line also makes (send, heartbeat, task
// add and moves) are package actor's, checks and refusals included, and
// both call them: a tool refuses a mistake with the line the command line
// prints for it (actor.ErrorLine). What the tools return is
// data for the agent, not text for a terminal: bodies come back as they
// were sent, as JSON.
package mcpserver
