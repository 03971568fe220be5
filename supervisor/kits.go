package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A kit wires swarm into one agent's CLI, for that agent only: swarm's MCP
// server (`swarm mcp`, whose tools act as the agent) and the CLI's hooks
// (`swarm hook …`, see turns.go). It is made at each start from the
// agent's profile, as flags added to its command line, variables added to
// its environment and files and links under .swarm/kits/NAME/; nothing the
// user keeps (their ~/.claude, ~/.codex, ~/.gemini, the project's files)
// is written.
//
//   - Claude Code: --mcp-config FILE (the server) and --settings FILE (the
//     hooks UserPromptSubmit, Stop, StopFailure and Notification), both
//     merged by Claude Code with the user's own.
//   - Codex: -c overrides of mcp_servers.swarm (env_vars passes the
//     agent's variables on: Codex gives its servers only part of its
//     environment) and of notify, the program Codex runs when a turn ends.
//   - Gemini CLI: a home of its own (kitgemini.go). Gemini 0.61 reads
//     settings from its system layers (GEMINI_CLI_SYSTEM_SETTINGS_PATH,
//     GEMINI_CLI_SYSTEM_DEFAULTS_PATH) only when the file and every
//     directory above it belong to root, which no file of a normal user
//     does; from the user's ~/.gemini/settings.json; and from the
//     project's .gemini/settings.json. So the kit names a directory of
//     its own as Gemini's home (GEMINI_CLI_HOME), whose
//     .gemini/settings.json is the user's settings with swarm's server and
//     hooks added, and whose other entries link to the user's ~/.gemini.
//   - opencode: a config file named by OPENCODE_CONFIG, merged with the
//     user's.
//
// Flags can only be added to a command swarm can read: an argv, or a
// shell command line that is one simple command (no pipes, lists,
// redirections or substitutions). Otherwise only the environment is
// wired, and the agent is told why in the event log.

// kitInput is what a kit is made from.
type kitInput struct {
	Agent string // the agent's name
	Exe   string // the swarm binary the CLI runs for the server and hooks
	Dir   string // the kit's directory, .swarm/kits/NAME
	// Getenv reads the environment the agent's process will have.
	Getenv func(string) string
}

// kit is what wires swarm into one agent's CLI.
type kit struct {
	Args  []string          // added to the command line
	Env   []string          // added to the environment (KEY=VALUE)
	Files map[string][]byte // by path: written (mode 0600, directories 0700) before the start
	Links map[string]string // by path: symbolic links to make, to their targets
	// Tools: the agent has swarm's MCP tools (its brief says so).
	Tools bool
	// Hooks are the CLI's events that call `swarm hook`, for doctor.
	Hooks []string
	// Err: the kit cannot be made (the user's settings cannot be read);
	// the CLI runs as written.
	Err error
}

// agentVars are the variables that say which agent a command runs as.
var agentVars = []string{"SWARM_AGENT", "SWARM_TOKEN", "SWARM_DIR"}

// hookCommand is the shell command a CLI runs for one of swarm's hooks.
func hookCommand(exe, hook string) string { return shellQuote(exe) + " hook " + hook }

// claudeKit wires Claude Code.
func claudeKit(in kitInput) kit {
	mcp := filepath.Join(in.Dir, "claude-mcp.json")
	settings := filepath.Join(in.Dir, "claude-settings.json")
	// A turn that ends in an API error runs StopFailure instead of Stop.
	hooks := map[string]string{"UserPromptSubmit": "prompt", "Stop": "stop", "StopFailure": "stop", "Notification": "notification"}
	return kit{
		Args: []string{"--mcp-config", mcp, "--settings", settings},
		Files: map[string][]byte{
			mcp:      mustJSON(map[string]any{"mcpServers": map[string]any{"swarm": mcpEntry(in.Exe, false)}}),
			settings: mustJSON(map[string]any{"hooks": hookTable(in.Exe, hooks)}),
		},
		Tools: true,
		Hooks: sortedKeys(hooks),
	}
}

// codexKit wires Codex.
func codexKit(in kitInput) kit {
	return kit{
		Args: []string{
			"-c", "mcp_servers.swarm.command=" + tomlString(in.Exe),
			"-c", `mcp_servers.swarm.args=["mcp"]`,
			"-c", "mcp_servers.swarm.env_vars=" + tomlStrings(agentVars),
			"-c", "notify=" + tomlStrings([]string{in.Exe, "hook", "notify"}),
		},
		Tools: true,
		Hooks: []string{"notify"},
	}
}

// opencodeKit wires opencode.
func opencodeKit(in kitInput) kit {
	config := filepath.Join(in.Dir, "opencode.json")
	return kit{
		Env: []string{"OPENCODE_CONFIG=" + config},
		Files: map[string][]byte{config: mustJSON(map[string]any{
			"$schema": "https://opencode.ai/config.json",
			"mcp": map[string]any{"swarm": map[string]any{
				"type": "local", "command": []string{in.Exe, "mcp"}, "enabled": true,
				"environment": envRefs("{env:%s}"),
			}},
		})},
		Tools: true,
	}
}

// mcpEntry is the "mcpServers" entry of swarm's server; withEnv names the
// agent's variables in it, for a CLI that withholds them otherwise.
func mcpEntry(exe string, withEnv bool) map[string]any {
	e := map[string]any{"command": exe, "args": []string{"mcp"}}
	if withEnv {
		e["env"] = envRefs("$%s")
	}
	return e
}

// envRefs maps each of agentVars to a reference to itself in a CLI's
// config syntax (format has one %s).
func envRefs(format string) map[string]string {
	out := map[string]string{}
	for _, v := range agentVars {
		out[v] = fmt.Sprintf(format, v)
	}
	return out
}

// hookTable is the "hooks" settings of Claude Code and Gemini CLI: for each
// of the CLI's events, a command that runs `swarm hook NAME`.
func hookTable(exe string, events map[string]string) map[string]any {
	out := map[string]any{}
	for event, hook := range events {
		out[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCommand(exe, hook)}}}}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings
	}
	return append(b, '\n')
}

// tomlString quotes s as a TOML basic string: JSON's string syntax is one
// (without its HTML escapes, which TOML would also read).
func tomlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// wired is an agent's command line and environment with its kit, and why
// the kit's flags were left out ("" when they were not).
type wired struct {
	Argv    []string
	Env     []string
	Files   map[string][]byte // to write before the start (writeFiles)
	Links   map[string]string // to make before the start (writeFiles)
	Tools   bool
	Skipped string
}

// wire applies the kit of the agent's profile to its command line argv;
// writeFiles then writes the kit's files. An agent whose profile has no
// kit, or whose config says kit = false, runs as written.
func wire(cfg AgentConfig, argv []string, in kitInput) wired {
	w := wired{Argv: argv}
	p := cfg.Profile()
	if p.Kit == nil || cfg.NoKit {
		return w
	}
	k := p.Kit(in)
	if k.Err != nil {
		w.Skipped = k.Err.Error()
		return w
	}
	w.Env, w.Tools, w.Files, w.Links = k.Env, k.Tools, k.Files, k.Links
	if len(k.Args) == 0 {
		return w
	}
	switch {
	case commandLine(argv) && simpleCommand(argv[2]):
		q := make([]string, len(k.Args))
		for i, a := range k.Args {
			q[i] = shellQuote(a)
		}
		w.Argv = []string{argv[0], argv[1], argv[2] + " " + strings.Join(q, " ")}
	case commandLine(argv):
		w.Tools = len(k.Env) > 0
		w.Skipped = "its cmd is a shell command line swarm does not change (pipes, lists, redirections or substitutions): add the flags yourself (swarm doctor shows them), or write cmd as an array"
	default:
		w.Argv = append(slices.Clip(argv), k.Args...)
	}
	return w
}

// writeFiles writes the kit's files (mode 0600, directories 0700) and
// makes its links.
func (w wired) writeFiles() error {
	for path, data := range w.Files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("kit: %w", err)
		}
		if err := writeFileAtomic(path, data, 0o600); err != nil {
			return fmt.Errorf("kit: %w", err)
		}
	}
	for path, target := range w.Links {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("kit: %w", err)
		}
		if err := replaceLink(path, target); err != nil {
			return fmt.Errorf("kit: %w", err)
		}
	}
	return nil
}

// replaceLink makes path a symbolic link to target, replacing a link
// that was there; anything else there is left as it is.
func replaceLink(path, target string) error {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSymlink == 0 {
			return nil
		}
		if t, _ := os.Readlink(path); t == target {
			return nil
		}
	}
	tmp := path + ".swarm-link"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// commandLine says whether argv is a cmd written as a string, a command
// line /bin/sh runs.
func commandLine(argv []string) bool {
	return len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c"
}

// simpleCommand says whether a shell command line is one simple command,
// to which words can be added at the end.
func simpleCommand(line string) bool {
	return !strings.ContainsAny(line, ";&|<>()$`\\\n#*?[{~")
}

// writeFileAtomic writes data to path through a temporary file, so a CLI
// starting meanwhile never reads half a file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// newKitInput is what the kit of agent cfg in the swarm whose bus is in
// busDir (absolute) is made from, with exe as swarm.
func newKitInput(busDir, exe string, cfg AgentConfig) kitInput {
	return kitInput{Agent: cfg.Name, Exe: exe, Dir: filepath.Join(busDir, "kits", cfg.Name), Getenv: func(k string) string {
		if v, ok := cfg.Env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}}
}

// KitPlan is what swarm adds to an agent's command to wire its kit, for
// `swarm doctor` to check and show.
type KitPlan struct {
	Argv    []string // the command line with the kit's flags
	Env     []string // the variables the kit adds
	Files   []string // the files the kit writes
	Hooks   []string // the CLI's events that call `swarm hook`
	Tools   bool     // the agent gets swarm's MCP tools
	Skipped string   // why the kit's flags cannot be added, if they cannot
}

// PlanKit says what a start of the swarm whose bus is in busDir would add
// to agent cfg's command to wire its kit, writing nothing. ok is false for
// an agent without a kit.
func PlanKit(cfg AgentConfig, exe, busDir string) (plan KitPlan, ok bool, err error) {
	p := cfg.Profile()
	if p.Kit == nil || cfg.NoKit {
		return KitPlan{}, false, nil
	}
	if busDir, err = filepath.Abs(busDir); err != nil {
		return KitPlan{}, true, err
	}
	in := newKitInput(busDir, exe, cfg)
	w := wire(cfg, cfg.Argv, in)
	for path := range w.Files {
		plan.Files = append(plan.Files, path)
	}
	slices.Sort(plan.Files)
	plan.Argv, plan.Env, plan.Hooks, plan.Tools, plan.Skipped = w.Argv, w.Env, p.Kit(in).Hooks, w.Tools, w.Skipped
	return plan, true, nil
}
