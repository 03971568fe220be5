// Package cli is swarm's command line: the commands (kong), what they
// print, and the wiring to the packages that do the work. It holds no
// rules of its own beyond parsing and printing: who calls, task moves,
// delivery and the like live in supervisor, tasks and bus, what a running
// swarm is asked in server. A file per command group:
//
//	up.go         up (the default command), init
//	attach.go     attach, stop
//	demo.go       demo, agent (the built-in players)
//	messages.go   send, inbox, log
//	tasks.go      task add|list|show|start|done|fail|approve|
//	              request-changes|review|cancel|retry|merge|queue|prune
//	status.go     status
//	logs.go       logs
//	peek.go       peek
//	ls.go         ls
//	heartbeat.go  heartbeat, export
//	hook.go       hook (run by the agent CLIs' hooks)
//	mcp.go        mcp (the MCP server an agent's CLI starts)
//	doctor.go     doctor
//	parse.go      parse
//	cluster.go    invite, host, hosts (agents on other machines)
//	cli.go        version
//
// cli.go holds the flags every command takes, the command list and
// version; run.go parses the command line and runs the command.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"swarm/actor"
	"swarm/bus"
	"swarm/server"
	"swarm/supervisor"
	"swarm/tasks"
	"swarm/textsafe"
)

// version is overridden at build time with -ldflags "-X swarm/cli.version=…".
var version = "dev"

// program names this build: "swarm dev".
func program() string { return "swarm " + version }

// exitError carries an exit status through kong's Run so that main decides
// how the process ends in exactly one place.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError is an error the user fixes by changing the command line.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// Globals are the flags every command accepts, and the process context.
type Globals struct {
	Dir string `help:"Bus directory. $SWARM_DIR, when set, takes precedence; the default is the .swarm of the project: in the current directory or the nearest one above that has one." placeholder:"DIR"`

	ignoreEnvDir bool // the command chose its own bus (the demo)
	busHere      bool // the command makes its project in the current directory (up): no search above

	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// jsonOut encodes values for --json output, one per line: what agents
// wrote passes through textsafe, and <, > and & stay as they are.
func (g *Globals) jsonOut() *json.Encoder {
	enc := json.NewEncoder(textsafe.JSONWriter(g.stdout))
	enc.SetEscapeHTML(false)
	return enc
}

// busDir is $SWARM_DIR, else --dir, else the project's .swarm
// (findBusDir), else .swarm here. The environment wins so that an agent,
// which swarm starts with SWARM_DIR set, always talks to the bus of the
// swarm that runs it.
func (g *Globals) busDir() string {
	dir, _ := g.whereBus()
	return dir
}

// whereBus is busDir, and the directory the search for a project's .swarm
// started from when it found none ("" when it found one or did not search).
func (g *Globals) whereBus() (dir, searchedFrom string) {
	if d := os.Getenv("SWARM_DIR"); d != "" && !g.ignoreEnvDir {
		return d, ""
	}
	if g.Dir != "" {
		return g.Dir, ""
	}
	if g.busHere {
		return ".swarm", ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ".swarm", ""
	}
	if dir, ok := findBusDir(wd); ok {
		return dir, ""
	}
	return ".swarm", wd
}

// findBusDir is the .swarm directory of the project that holds dir: dir's
// own, else that of the nearest directory above it that has one, as git
// finds .git. A command run in a subdirectory of the project, or in a
// task's worktree (under .swarm/worktrees), reaches the project's bus.
func findBusDir(dir string) (string, bool) {
	for {
		if st, err := os.Stat(filepath.Join(dir, ".swarm")); err == nil && st.IsDir() {
			return filepath.Join(dir, ".swarm"), true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// caller is who runs this command on b: the agent whose $SWARM_TOKEN it
// holds or inside whose process it runs, else the human; $SWARM_AGENT must
// agree (supervisor.WhoIsCalling).
func (g *Globals) caller(b *bus.Bus) (string, error) {
	c, err := supervisor.WhoIsCalling(g.ctx, b, os.Getenv, supervisor.Process{})
	return c.Name, err
}

// requester makes the requests of the command line that act as their
// caller (send, heartbeat, task add and moves): actor.Actor on the bus,
// or server.Actor, the same made by the running swarm.
type requester interface {
	Send(ctx context.Context, r actor.SendRequest) (bus.Message, error)
	Heartbeat(ctx context.Context, r actor.HeartbeatRequest) (bus.Heartbeat, error)
	CreateTask(ctx context.Context, to, title, description string) (bus.Task, error)
	MoveTask(ctx context.Context, projectDir, ref string, move tasks.Move, note string) (before, after bus.Task, err error)
	ReviewTask(ctx context.Context, projectDir, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error)
}

// viaSwarmTimeout bounds connecting to the running swarm before the
// command acts on the bus itself.
const viaSwarmTimeout = 2 * time.Second

// actor returns who makes this command's requests: the swarm running on
// the bus directory when one answers, so that they go where the live
// state is; else this process, on the bus. done ends either.
func (g *Globals) actor() (a requester, done func(), err error) {
	cl, err := g.dialSwarm()
	if err == nil {
		return server.Actor{Client: cl, Getenv: os.Getenv}, func() { cl.Close() }, nil
	}
	b, err := g.open(true)
	if err != nil {
		return nil, nil, err
	}
	return actor.Actor{Bus: b, Getenv: os.Getenv, Expected: g.definedAgents()}, func() { b.Close() }, nil
}

// definedAgents are the agents of the swarm.toml beside the bus directory
// (./swarm.toml for .swarm), as the bus records them before `swarm up`
// there starts them. None when it is missing or does not load (up says
// why, when it is run).
func (g *Globals) definedAgents() []bus.Agent {
	cfg, err := supervisor.LoadConfig(filepath.Join(filepath.Dir(g.busDir()), "swarm.toml"))
	if err != nil {
		return nil
	}
	agents := make([]bus.Agent, 0, len(cfg.Agents))
	for _, a := range cfg.Agents {
		agents = append(agents, bus.Agent{Name: a.Name, Cmd: a.Cmd, State: bus.AgentStopped,
			Reason: "not started yet: swarm.toml defines it", NoMessages: a.NoMessages})
	}
	return agents
}

// dialSwarm connects to the swarm running on the bus directory. A swarm
// that has taken the directory's lock but does not serve its socket yet
// is starting (its agents not yet on the bus, where a request would be
// refused: "unknown agent"): it is waited for, as long as it holds the
// lock, up to swarmStartTimeout.
func (g *Globals) dialSwarm() (*server.Client, error) {
	dir := g.busDir()
	give := time.Now().Add(swarmStartTimeout)
	for {
		ctx, cancel := context.WithTimeout(g.ctx, viaSwarmTimeout)
		cl, err := server.Dial(ctx, dir, program())
		cancel()
		if err == nil || !errors.Is(err, server.ErrNotRunning) || time.Now().After(give) {
			return cl, err
		}
		if _, starting := supervisor.SwarmRunning(dir); !starting {
			return nil, err
		}
		select {
		case <-g.ctx.Done():
			return nil, g.ctx.Err()
		case <-time.After(swarmStartPoll):
		}
	}
}

// swarmStartTimeout bounds the wait for a starting swarm's socket;
// swarmStartPoll is how often it is tried meanwhile (a socket file has
// no event to wait on that works before the file exists).
const (
	swarmStartTimeout = 30 * time.Second
	swarmStartPoll    = 20 * time.Millisecond
)

// open opens the bus. Commands that only read refuse to create one, so a
// typo in --dir is an error instead of a new empty bus.
func (g *Globals) open(create bool) (*bus.Bus, error) {
	dir, searchedFrom := g.whereBus()
	if !create {
		if searchedFrom != "" {
			return nil, fmt.Errorf("no bus: no .swarm in %s or any directory above it (run swarm in the project's directory first; set $SWARM_DIR or --dir to use another)", searchedFrom)
		}
		if _, err := os.Stat(filepath.Join(dir, "bus.db")); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no bus in %s (nothing was sent there yet; set $SWARM_DIR or --dir to use another)", dir)
		}
	}
	return bus.Open(bus.Options{Dir: dir})
}

// CLI is the whole command line.
type CLI struct {
	Globals

	Up        upCmd        `cmd:"" default:"withargs" help:"Start the agents of swarm.toml (the default command)."`
	Init      initCmd      `cmd:"" help:"Write a commented starter swarm.toml."`
	Demo      demoCmd      `cmd:"" help:"Run a demo swarm."`
	Send      sendCmd      `cmd:"" help:"Send a message; prints its id."`
	Inbox     inboxCmd     `cmd:"" help:"Show messages to and from an agent, with delivery state."`
	Log       logCmd       `cmd:"" help:"Show all traffic on the bus in order."`
	Status    statusCmd    `cmd:"" help:"Show agents with their heartbeats, and tasks by state."`
	Logs      logsCmd      `cmd:"" help:"Print an agent's output as plain text, kept across its restarts (.swarm/logs/NAME.log)."`
	Peek      peekCmd      `cmd:"" help:"Print an agent's screen as it is now, as plain text (asks the running swarm)."`
	Attach    attachCmd    `cmd:"" help:"Open the terminal UI on the swarm running here (one that swarm or swarm up --headless started); q asks: detach (the agents go on) or stop it."`
	Stop      stopCmd      `cmd:"" help:"Stop the running swarm and every agent."`
	Ls        lsCmd        `cmd:"" help:"List the swarms running on this machine: directory, agents, since when."`
	Task      taskCmd      `cmd:"" help:"Create, list and move tasks."`
	Heartbeat heartbeatCmd `cmd:"" help:"Report the calling agent's status ($SWARM_AGENT)."`
	Export    exportCmd    `cmd:"" help:"Append new messages to a JSONL file (resumes where the file ends)."`
	Parse     parseCmd     `cmd:"" help:"Extract relay commands from raw terminal output; prints them as JSON lines (line: the screen line, from 0, that the command was read from)."`
	Agent     agentCmd     `cmd:"" help:"Run a built-in agent (what the demo runs in each pane)."`
	MCP       mcpCmd       `cmd:"" name:"mcp" help:"Serve MCP over stdio: tools for an agent's CLI to send, read its inbox, see the agents, move its tasks."`
	Hook      hookCmd      `cmd:"" help:"Tell swarm where an agent's turn is (run by the agent CLI's hooks)."`
	Doctor    doctorCmd    `cmd:"" help:"Check swarm.toml's agents: programs found, CLI versions, swarm's MCP server and hooks."`
	Invite    inviteCmd    `cmd:"" help:"Print the join URL of a host (run in the main swarm's directory; its swarm.toml needs [cluster])."`
	Host      hostCmd      `cmd:"" help:"Run this machine as a host of a swarm: its agents (host = NAME), until Ctrl-C. --dir is its state (default .swarm-host)."`
	Hosts     hostsCmd     `cmd:"" help:"List the swarm's hosts: state, address, agents, latency."`
	Version   versionCmd   `cmd:"" help:"Print swarm's version."`
}

type versionCmd struct{}

func (versionCmd) Run(g *Globals) error {
	fmt.Fprintln(g.stdout, program())
	return nil
}
