package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestImportRules checks the import rules of ARCHITECTURE.md: which
// package of this project may import which, and who may use the UI
// libraries and the MCP SDK.
func TestImportRules(t *testing.T) {
	t.Parallel()
	allowed := map[string][]string{
		"swarm": {"cli", "internal/mainrun"},
		// The server binary: a swarm without the command line, the UI,
		// the MCP server or the cluster (internal/serverbin).
		"swarm/cmd/swarm-server": {"actor", "bus", "internal/mainrun", "supervisor", "swarmrun"},
		"swarm/cli":              {"tui", "supervisor", "swarmapi", "tasks", "checks", "bus", "games", "parser", "asciicast", "textsafe", "mcpserver", "actor", "server", "cluster", "swarmrun", "internal/serverbin"},
		"swarm/swarmrun":         {"bus", "server", "supervisor", "swarmapi", "textsafe"},
		"swarm/cluster":          {"supervisor", "swarmapi", "wire", "server", "bus"},
		"swarm/server":           {"supervisor", "swarmapi", "wire", "bus", "tasks", "actor", "textsafe"},
		"swarm/tui":              {"swarmapi", "tasks", "textsafe", "bus", "games"},
		"swarm/supervisor":       {"spawner", "parser", "screenmodel", "swarmapi", "bus", "games", "asciicast", "textsafe", "gitrepo", "tasks", "checks"},
		"swarm/swarmapi":         {"bus", "games", "textsafe", "screenmodel"},
		"swarm/tasks":            {"bus", "gitrepo"},
		"swarm/wire":             {"swarmapi", "bus", "tasks"},
		"swarm/checks":           {"bus", "gitrepo", "tasks", "textsafe"},
		"swarm/spawner":          {"screenmodel"},
		"swarm/mcpserver":        {"actor", "supervisor", "swarmapi", "tasks", "bus", "textsafe"},
		"swarm/actor":            {"supervisor", "bus", "tasks", "textsafe"},
		// A tool of the repository, not of swarm: it scores the
		// extraction over a corpus of recordings.
		"swarm/scripts/corpus-score": {"supervisor", "parser", "asciicast", "internal/wantfile"},
		"swarm/internal/wantfile":    {"parser"},
	}
	ui := []string{"charm.land/bubbletea", "charm.land/lipgloss", "charm.land/bubbles"}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, imp := range imports {
			if own, ok := strings.CutPrefix(imp, "swarm/"); ok {
				if !slices.Contains(allowed[pkg], own) {
					t.Errorf("%s imports %s: ARCHITECTURE.md's import rules do not allow it", pkg, imp)
				}
			}
			for _, lib := range ui {
				if strings.HasPrefix(imp, lib) && pkg != "swarm/cli" && pkg != "swarm/tui" {
					t.Errorf("%s imports %s: only tui (and cli, to start it) use the UI libraries", pkg, imp)
				}
			}
			if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") && pkg != "swarm/mcpserver" {
				t.Errorf("%s imports %s: only mcpserver uses the MCP SDK", pkg, imp)
			}
		}
	}
}

// The UI and what crosses between a swarm and its clients do not link the
// runtime, and the protocol does not depend on the UI's terminal library:
// a client is built from swarmapi's types, whatever runs the swarm.
func TestClientsDoNotLinkTheRuntime(t *testing.T) {
	t.Parallel()
	forbidden := map[string][]string{
		"swarm/tui":      {"swarm/supervisor", "swarm/spawner", "swarm/mcpserver", "swarm/server"},
		"swarm/swarmapi": {"swarm/supervisor", "swarm/spawner", "github.com/charmbracelet/ultraviolet"},
		"swarm/wire":     {"swarm/supervisor", "swarm/spawner", "github.com/charmbracelet/ultraviolet"},
	}
	for pkg, never := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, n := range never {
			if slices.Contains(deps, n) {
				t.Errorf("%s links %s", pkg, n)
			}
		}
	}
}

// The server binary links none of what it is without: what a process
// maps of its binary is most of a quiet swarm's memory (issue 34), and
// the cluster's NATS alone is a quarter of swarm's code.
func TestTheServerBinaryLinksNoCommandLine(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "./cmd/swarm-server").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/swarm-server: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "swarm/supervisor") {
		t.Fatalf("swarm-server does not link the supervisor: %v", deps)
	}
	for _, never := range []string{"swarm/cli", "swarm/tui", "swarm/mcpserver", "swarm/cluster",
		"github.com/alecthomas/kong", "charm.land/bubbletea/v2", "github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/nats-io/nats-server/v2/server", "github.com/nats-io/nats.go"} {
		if slices.Contains(deps, never) {
			t.Errorf("swarm-server links %s", never)
		}
	}
}

// ARCHITECTURE.md's "where to change X" names files that exist: a file
// moved or renamed without the table following fails here.
func TestWhereToChangeNamesFiles(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Where to change X")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "Where to change X"`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	named := regexp.MustCompile("`([a-z][a-z0-9_/]*(?:\\.go|/))`").FindAllStringSubmatch(table, -1)
	if len(named) < 20 {
		t.Fatalf("the table names %d files", len(named))
	}
	for _, m := range named {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("ARCHITECTURE.md's where to change X names %s: %v", m[1], err)
		}
	}
}
