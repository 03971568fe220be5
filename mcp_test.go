package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession starts `swarm mcp` in the env's environment, as an agent's
// CLI starts it, and connects to it over its stdin and stdout. The session
// is closed, and the process waited for, when the test ends.
func (e *env) mcpSession() *mcp.ClientSession {
	e.t.Helper()
	cmd := e.command("mcp")
	cmd.Stdin = nil // the transport takes stdin and stdout
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).
		Connect(e.t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			e.t.Errorf("swarm mcp did not end cleanly: %v", err)
		}
	})
	return cs
}

// callTool calls a tool of cs, returns whether it refused and its text.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (refused bool, text string) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return res.IsError, strings.Join(parts, "\n")
}

func TestMCPOverStdioListsAgentsAndSends(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("alice", "bob")
	e.holdSwarmLock()
	bob := e.as("bob").mcpSession()

	refused, text := callTool(t, bob, "agents", nil)
	var agents struct {
		SwarmRunning bool `json:"swarm_running"`
		Agents       []struct{ Name, State string }
	}
	if refused || json.Unmarshal([]byte(text), &agents) != nil || !agents.SwarmRunning || len(agents.Agents) != 2 ||
		agents.Agents[0].Name != "alice" || agents.Agents[1].Name != "bob" || agents.Agents[1].State != "running" {
		t.Fatalf("agents: %s", text)
	}

	refused, text = callTool(t, bob, "send", map[string]any{"to": "alice", "body": "over MCP", "data": map[string]any{"n": 1}})
	var sent struct{ ID string }
	if refused || json.Unmarshal([]byte(text), &sent) != nil || sent.ID == "" {
		t.Fatalf("send: %s", text)
	}
	// What the CLI shows of it: from bob, to alice, waiting for alice.
	in := jsonLines(t, e.as("alice").ok("inbox", "--json"))
	if len(in) != 1 || in[0]["id"] != sent.ID || in[0]["from"] != "bob" || in[0]["body"] != "over MCP" || in[0]["state"] != "queued" {
		t.Errorf("alice's inbox: %v", in)
	}
	if data, _ := json.Marshal(in[0]["data"]); string(data) != `{"n":1}` {
		t.Errorf("data %s", data)
	}
}

func TestMCPRefusesSendTaskAndHeartbeatMistakesAsTheCLIDoes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("alice", "bob", "carol")
	id := strings.TrimSpace(e.ok("task", "add", "--to", "bob", "Fix", "login"))
	bob, carol := e.as("bob"), e.as("carol")
	forged := e.as("alice")
	forged.agent = "bob" // alice's token, bob's name
	sessions := map[*env]*mcp.ClientSession{}
	shortID := regexp.MustCompile(`#[0-9a-f]{8}\b`)
	for _, c := range []struct {
		who  *env
		cli  []string
		tool string
		args map[string]any
	}{
		{e, []string{"send", "bob", " "}, "send", map[string]any{"to": "bob", "body": " "}},
		{e, []string{"send", "--type", "x y", "bob", "hi"}, "send", map[string]any{"to": "bob", "body": "hi", "type": "x y"}},
		{e, []string{"send", "swarm", "hi"}, "send", map[string]any{"to": "swarm", "body": "hi"}},
		{e, []string{"send", "nobody", "hi"}, "send", map[string]any{"to": "nobody", "body": "hi"}},
		{forged, []string{"send", "carol", "hi"}, "send", map[string]any{"to": "carol", "body": "hi"}},
		{e, []string{"heartbeat"}, "heartbeat", nil},
		{bob, []string{"heartbeat", "--progress", "1.5"}, "heartbeat", map[string]any{"progress": 1.5}},
		{bob, []string{"heartbeat", "--task", "zzz"}, "heartbeat", map[string]any{"task": "zzz"}},
		{e, []string{"task", "done"}, "task_done", nil},
		{carol, []string{"task", "fail", id}, "task_fail", map[string]any{"id": id}},
		{e, []string{"task", "add", "--to", "ghost", "x"}, "task_create", map[string]any{"to": "ghost", "title": "x"}},
	} {
		_, stderr, code := c.who.run(c.cli...)
		if code == 0 {
			t.Fatalf("swarm %v succeeded", c.cli)
		}
		cs := sessions[c.who]
		if cs == nil {
			cs = c.who.mcpSession()
			sessions[c.who] = cs
		}
		refused, text := callTool(t, cs, c.tool, c.args)
		want := shortID.ReplaceAllString(strings.TrimSuffix(stderr, "\n"), "#id")
		if got := shortID.ReplaceAllString(text, "#id"); !refused || got != want {
			t.Errorf("%s %v: %q (refused %v), but swarm %v printed %q", c.tool, c.args, got, refused, c.cli, want)
		}
	}
}
