package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"swarm/bus"
	"swarm/mcpserver"
	"swarm/supervisor"
	"swarm/textsafe"
)

type doctorCmd struct {
	Config string `short:"c" help:"The config to check." default:"swarm.toml" placeholder:"FILE"`
}

// Help is the longer text of `swarm doctor --help`.
func (doctorCmd) Help() string {
	return `Checks swarm.toml as swarm up would start it: what up would refuse
(worktree = true outside a git repository, …); for each agent, its program is
found; an agent CLI's version; swarm's MCP server, started as the agent's CLI
will start it, answers with its tools; the hooks and flags its kit adds (kind
= "claude", "codex", "gemini", "opencode"); and what the CLI itself says it
loaded: it is run once, in the agent's directory and environment with the
kit, with its own command that lists its MCP servers (claude -p /mcp, codex
mcp list, gemini mcp list, opencode mcp list). Nothing is started for good
and none of your files is written by swarm (a CLI may note that it ran, as it
does at any start). Exit status 1 when something is wrong.`
}

// versionWait bounds how long an agent CLI may take to say its version.
const versionWait = 30 * time.Second

// askWait bounds how long an agent CLI may take to say what it loaded
// (Claude Code waits for every server to answer or time out).
const askWait = 90 * time.Second

func (c *doctorCmd) Run(g *Globals) error {
	cfg, err := supervisor.LoadConfig(c.Config)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "swarm-doctor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	w := g.stdout
	problems := 0
	line := func(ok bool, format string, args ...any) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			problems++
		}
		fmt.Fprintf(w, "  %s  %s\n", mark, fmt.Sprintf(format, args...))
	}
	note := func(format string, args ...any) { fmt.Fprintf(w, "        %s\n", fmt.Sprintf(format, args...)) }
	if errs := supervisor.StartProblems(g.ctx, cfg, supervisor.ProjectDir(cfg)); len(errs) > 0 {
		fmt.Fprintf(w, "swarm up would refuse to start:\n")
		for _, err := range errs {
			line(false, "%v", err)
		}
	}
	var server string // what the MCP check found, once for all agents
	for _, a := range cfg.Agents {
		kind := a.Profile().Kind
		if kind == "" {
			kind = "any program"
		}
		fmt.Fprintf(w, "%s (%s): %s\n", a.Name, kind, a.Cmd)
		prog := a.Program()
		path, err := lookPath(g.ctx, a, prog, exe)
		if err != nil {
			line(false, "%s: %v", prog, err)
			continue
		}
		line(true, "%s is %s", prog, path)
		if a.Profile().CLI() {
			if v, err := cliVersion(g.ctx, path); err != nil {
				line(false, "%s --version: %v", prog, err)
			} else {
				line(true, "version %s", v)
			}
		}
		plan, hasKit, err := supervisor.PlanKit(a, exe, g.busDir())
		switch {
		case !hasKit:
			note("no kit: it takes part by printing @relay lines")
			continue
		case err != nil:
			line(false, "kit: %v", err)
			continue
		}
		if plan.Tools {
			if server == "" {
				server, err = checkServer(g.ctx, exe, tmp)
				if err != nil {
					server = "FAIL " + err.Error()
				}
			}
			ok := !strings.HasPrefix(server, "FAIL ")
			line(ok, "MCP server %s mcp: %s", exe, strings.TrimPrefix(server, "FAIL "))
		}
		if plan.Skipped != "" {
			line(false, "kit not wired: %s", plan.Skipped)
		}
		if len(plan.Hooks) > 0 {
			line(true, "hooks: %s call `swarm hook`", strings.Join(plan.Hooks, ", "))
		}
		if extra := plan.Argv[len(a.Argv):]; len(extra) > 0 && plan.Skipped == "" {
			note("flags added: %s", strings.Join(extra, " "))
		} else if plan.Skipped != "" {
			if p, _, _ := supervisor.PlanKit(supervisor.AgentConfig{Name: a.Name, Kind: a.Profile().Kind, Argv: []string{prog}}, exe, g.busDir()); len(p.Argv) > 1 {
				note("flags to add: %s", strings.Join(p.Argv[1:], " "))
			}
		}
		for _, e := range plan.Env {
			note("environment: %s", e)
		}
		if plan.Skipped == "" {
			askCLI(g.ctx, a, path, exe, tmp, line)
		}
	}
	doctorChecks(g.ctx, cfg, exe, w, line)
	if problems > 0 {
		return fmt.Errorf("doctor: %d problem(s) in %s", problems, c.Config)
	}
	fmt.Fprintf(w, "no problems in %s\n", c.Config)
	return nil
}

// lookPath finds the program prog of agent a as its start would ("swarm"
// is this swarm; a shell command line's program as the shell finds it).
func lookPath(ctx context.Context, a supervisor.AgentConfig, prog, exe string) (string, error) {
	switch {
	case prog == "swarm":
		return exe, nil
	case prog == "":
		return "", errors.New("no program in the command")
	case len(a.Argv) == 3 && a.Argv[0] == "/bin/sh" && a.Argv[1] == "-c":
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `command -v "$1"`, "sh", prog)
		cmd.Dir = a.Dir
		out, err := cmd.Output()
		if err != nil {
			return "", errors.New("not found by the shell")
		}
		return strings.TrimSpace(string(out)), nil
	case strings.Contains(prog, "/"):
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(a.Dir, prog)
		}
		return exec.LookPath(prog)
	}
	path, err := exec.LookPath(prog)
	if errors.Is(err, exec.ErrNotFound) {
		return "", errors.New("not found on PATH")
	}
	return path, err
}

// cliVersion is the first line a CLI prints for --version.
func cliVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Stdin = nil
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return first, nil
}

// checkServer starts `exe mcp` on a scratch bus in dir, as an agent's CLI
// starts it, and lists its tools.
func checkServer(ctx context.Context, exe, dir string) (string, error) {
	busDir := filepath.Join(dir, "bus")
	b, err := bus.Open(bus.Options{Dir: busDir})
	if err != nil {
		return "", err
	}
	b.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.Command(exe, "mcp")
	cmd.Env = append(os.Environ(), "SWARM_DIR="+busDir)
	cmd.Stderr = io.Discard
	names, err := mcpserver.Probe(ctx, cmd)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("answers with %d tools (%s)", len(names), strings.Join(names, ", ")), nil
}

// askCLI runs agent a's CLI (at path) once as the agent's start would,
// with its kit made in a scratch directory under tmp, and has it say
// whether it loaded swarm's MCP server.
func askCLI(ctx context.Context, a supervisor.AgentConfig, path, exe, tmp string, line func(bool, string, ...any)) {
	dir := filepath.Join(tmp, "ask-"+a.Name)
	check, ok, err := supervisor.PrepareKitCheck(a, exe, dir)
	switch {
	case !ok:
		return
	case err != nil:
		line(false, "kit: %v", err)
		return
	}
	busDir := filepath.Join(dir, "bus")
	b, err := bus.Open(bus.Options{Dir: busDir})
	if err != nil {
		line(false, "a scratch bus for %s: %v", check.Asked, err)
		return
	}
	b.Close()
	ctx, cancel := context.WithTimeout(ctx, askWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, check.Args...)
	cmd.Dir = a.Dir
	cmd.Env = os.Environ()
	for k, v := range a.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(append(cmd.Env, check.Env...), "SWARM_DIR="+busDir)
	// Its own process group, ended whole: a CLI may start helpers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	loaded, said := check.Read(string(out))
	if ctx.Err() != nil {
		said = fmt.Sprintf("no answer in %s", askWait)
	} else if !loaded && err != nil {
		said += fmt.Sprintf(" (%v)", err)
	}
	if loaded {
		line(true, "%s: %s", check.Asked, textsafe.Line(said))
	} else {
		line(false, "%s: swarm's MCP server is not loaded: %s", check.Asked, textsafe.Line(said))
	}
}

// doctorChecks says whether the programs of [checks] (and of each agent's
// own checks) are found, as the shell that runs them would find them in
// the project's directory.
func doctorChecks(ctx context.Context, cfg *supervisor.Config, exe string, w io.Writer, line func(bool, string, ...any)) {
	p := cfg.CheckPolicy()
	if p == nil {
		return
	}
	fmt.Fprintf(w, "checks (timeout %s, %d at once):\n", p.Timeout, p.Parallel)
	cmds := slices.Clone(p.Run)
	for _, name := range slices.Sorted(maps.Keys(p.Agents)) {
		cmds = append(cmds, p.Agents[name]...)
	}
	if len(cmds) == 0 {
		line(true, "no commands: tasks go through the merge queue unchecked")
	}
	seen := map[string]bool{}
	for _, cmd := range cmds {
		for _, prog := range supervisor.CheckPrograms(cmd) {
			if seen[prog] {
				continue
			}
			seen[prog] = true
			path, err := lookPath(ctx, supervisor.AgentConfig{Argv: []string{"/bin/sh", "-c", cmd}, Dir: supervisor.ProjectDir(cfg)}, prog, exe)
			if err != nil {
				line(false, "%s (in %q): %v", prog, cmd, err)
			} else {
				line(true, "%s is %s", prog, path)
			}
		}
	}
}
