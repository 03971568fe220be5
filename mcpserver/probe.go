package mcpserver

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Probe starts the MCP server cmd as an agent's CLI does (over its stdin
// and stdout), and returns the names of the tools it lists; `swarm
// doctor` checks a kit's server with it. The server is ended before it
// returns.
func Probe(ctx context.Context, cmd *exec.Cmd) ([]string, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "swarm-doctor"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("does not answer: %w", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("lists no tools: %w", err)
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}
