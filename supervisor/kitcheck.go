package supervisor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// What a kit wrote is not what a CLI loaded: Gemini, for one, skips a
// settings file it does not trust without failing. swarm doctor asks each
// CLI itself, started as the agent's start would start it, with its own
// command for listing its MCP servers:
//
//   - Claude Code: `claude <kit flags> -p /mcp --output-format stream-json`
//     — its first line lists the servers it started, with their state,
//     and its tools;
//   - Codex: `codex <kit flags> mcp list` — the servers it configured
//     (it does not start them to list them);
//   - Gemini CLI: `gemini mcp list`, in the kit's environment — it starts
//     each server and says Connected or not;
//   - opencode: `opencode mcp list`, in the kit's environment — the same.

// KitCheck is how to ask an agent's CLI what it loaded of its kit.
type KitCheck struct {
	// Args follow the CLI's path: the kit's flags and the CLI's own
	// command that lists its MCP servers.
	Args []string
	// Env is added to the agent's environment: the kit's variables.
	Env []string
	// Asked is the command as shown to a person.
	Asked string
	// Read judges what the CLI printed: whether it loaded swarm's server,
	// and what it said of it, on one line.
	Read func(out string) (ok bool, said string)
}

// kitQuery is how one kind of CLI is asked.
type kitQuery struct {
	args []string
	read func(out string) (bool, string)
}

var kitQueries = map[string]kitQuery{
	"claude":   {[]string{"-p", "/mcp", "--no-session-persistence", "--output-format", "stream-json", "--verbose"}, readClaudeInit},
	"codex":    {[]string{"mcp", "list"}, readServerLine("enabled", "")},
	"gemini":   {[]string{"mcp", "list"}, readServerLine("- Connected", "")},
	"opencode": {[]string{"mcp", "list"}, readServerLine("connected", "failed")},
}

// PrepareKitCheck makes agent cfg's kit in dir, which stands for the bus
// directory, with exe as swarm, and returns how to ask its CLI what it
// loaded. ok is false for an agent without a kit or a CLI that cannot be
// asked.
func PrepareKitCheck(cfg AgentConfig, exe, dir string) (check KitCheck, ok bool, err error) {
	p := cfg.Profile()
	q, asked := kitQueries[p.Kind]
	if p.Kit == nil || cfg.NoKit || !asked {
		return KitCheck{}, false, nil
	}
	k := p.Kit(newKitInput(dir, exe, cfg))
	if k.Err != nil {
		return KitCheck{}, true, k.Err
	}
	if err := (wired{Files: k.Files, Links: k.Links}).writeFiles(); err != nil {
		return KitCheck{}, true, err
	}
	return KitCheck{
		Args:  append(append([]string(nil), k.Args...), q.args...),
		Env:   k.Env,
		Asked: p.Commands[0] + " " + strings.Join(q.args[:min(2, len(q.args))], " "),
		Read:  q.read,
	}, true, nil
}

// readClaudeInit reads the first event of `claude -p --output-format
// stream-json`: the MCP servers Claude Code started and its tools.
func readClaudeInit(out string) (bool, string) {
	for _, l := range strings.Split(out, "\n") {
		var ev struct {
			Type, Subtype string
			MCPServers    []struct{ Name, Status string } `json:"mcp_servers"`
			Tools         []string
		}
		if json.Unmarshal([]byte(l), &ev) != nil || ev.Type != "system" || ev.Subtype != "init" {
			continue
		}
		tools := 0
		for _, t := range ev.Tools {
			if strings.HasPrefix(t, "mcp__swarm__") {
				tools++
			}
		}
		for _, s := range ev.MCPServers {
			if s.Name == "swarm" {
				return s.Status == "connected", fmt.Sprintf("swarm: %s, %d tools", s.Status, tools)
			}
		}
		return false, "swarm is not among the MCP servers it started"
	}
	return false, "it listed no MCP servers: " + lastWords(out)
}

// readServerLine reads a CLI's list of MCP servers, one a line: swarm's
// line must hold good and not bad.
func readServerLine(good, bad string) func(string) (bool, string) {
	return func(out string) (bool, string) {
		lines := strings.Split(ansi.Strip(out), "\n")
		for i, l := range lines {
			l = strings.TrimSpace(l)
			fields := strings.Fields(l)
			if !slices.Contains(fields, "swarm") && !slices.Contains(fields, "swarm:") {
				continue // not the server's line (a path may hold the word)
			}
			said := strings.Join(strings.Fields(l), " ")
			if bad != "" && strings.Contains(l, bad) && i+1 < len(lines) {
				said += ": " + strings.Join(strings.Fields(lines[i+1]), " ")
			}
			return strings.Contains(l, good) && (bad == "" || !strings.Contains(l, bad)), said
		}
		return false, "swarm is not among its MCP servers: " + lastWords(out)
	}
}

// lastWords is the last line a program printed, on one line, short.
func lastWords(out string) string {
	out = strings.TrimSpace(ansi.Strip(out))
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if r := []rune(out); len(r) > 200 {
		out = string(r[:199]) + "…"
	}
	if out == "" {
		return "(nothing)"
	}
	return out
}
