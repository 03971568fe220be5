package supervisor

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"swarm/bus"
)

// testKitInput is a kit's input in a temporary directory, with a swarm
// binary whose path needs quoting in a shell, and a home of the user's
// (HOME) of its own, empty.
func testKitInput(t *testing.T) kitInput {
	dir := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(dir, "home")}
	return kitInput{Agent: "ann", Exe: filepath.Join(dir, "my bin", "swarm"), Dir: filepath.Join(dir, "kits", "ann"),
		Getenv: func(k string) string { return env[k] }}
}

// readKitJSON reads a kit file, which only its owner may read.
func readKitJSON(t *testing.T, path string, v any) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, st.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// flagValue returns the value after flag in argv.
func flagValue(t *testing.T, argv []string, flag string) string {
	t.Helper()
	i := slices.Index(argv, flag)
	if i < 0 || i+1 >= len(argv) {
		t.Fatalf("%q not in %q", flag, argv)
	}
	return argv[i+1]
}

type mcpServers struct {
	MCPServers map[string]struct {
		Command string
		Args    []string
		Env     map[string]string
	}
}

type hookSettings struct {
	Hooks map[string][]struct {
		Hooks []struct{ Type, Command string }
	}
}

// hookCommands maps each event of s to its one command.
func (s hookSettings) commands(t *testing.T) map[string]string {
	out := map[string]string{}
	for event, groups := range s.Hooks {
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Type != "command" {
			t.Fatalf("%s: %+v", event, groups)
		}
		out[event] = groups[0].Hooks[0].Command
	}
	return out
}

func TestClaudeKitAddsItsServerAndHooksForThisAgentOnly(t *testing.T) {
	t.Parallel()
	in := testKitInput(t)
	w := wire(AgentConfig{Name: "ann", Kind: "claude"}, []string{"claude", "--model", "opus"}, in)
	if err := w.writeFiles(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Argv[:3], []string{"claude", "--model", "opus"}) || !w.Tools || w.Skipped != "" {
		t.Fatalf("%+v", w)
	}
	var servers mcpServers
	readKitJSON(t, flagValue(t, w.Argv, "--mcp-config"), &servers)
	if s := servers.MCPServers["swarm"]; len(servers.MCPServers) != 1 || s.Command != in.Exe || !slices.Equal(s.Args, []string{"mcp"}) {
		t.Errorf("servers %+v", servers)
	}
	var settings hookSettings
	readKitJSON(t, flagValue(t, w.Argv, "--settings"), &settings)
	q := "'" + in.Exe + "'"
	want := map[string]string{"Stop": q + " hook stop", "StopFailure": q + " hook stop", "Notification": q + " hook notification", "UserPromptSubmit": q + " hook prompt"}
	if got := settings.commands(t); !maps.Equal(got, want) {
		t.Errorf("hooks %v, want %v", got, want)
	}
}

func TestCodexKitIsConfigOverridesCodexCanRead(t *testing.T) {
	t.Parallel()
	in := testKitInput(t)
	w := wire(AgentConfig{Name: "ann", Kind: "codex"}, []string{"codex"}, in)
	if err := w.writeFiles(); err != nil {
		t.Fatal(err)
	}
	// Each -c is KEY=VALUE with a TOML value, as Codex parses it.
	doc := ""
	for i := 1; i < len(w.Argv); i += 2 {
		if w.Argv[i] != "-c" {
			t.Fatalf("argv %q", w.Argv)
		}
		doc += w.Argv[i+1] + "\n"
	}
	var cfg struct {
		Notify     []string `toml:"notify"`
		MCPServers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
			EnvVars []string `toml:"env_vars"`
		} `toml:"mcp_servers"`
	}
	// Dotted keys at the top level read as tables, as in Codex.
	if err := toml.Unmarshal([]byte(doc), &cfg); err != nil {
		t.Fatalf("%v in\n%s", err, doc)
	}
	s := cfg.MCPServers["swarm"]
	if s.Command != in.Exe || !slices.Equal(s.Args, []string{"mcp"}) || !slices.Equal(s.EnvVars, agentVars) {
		t.Errorf("server %+v", s)
	}
	if !slices.Equal(cfg.Notify, []string{in.Exe, "hook", "notify"}) {
		t.Errorf("notify %q", cfg.Notify)
	}
}

// Gemini's kit is a home of its own (GEMINI_CLI_HOME): its settings are
// the user's with swarm's server and hooks added, every other entry of
// the user's ~/.gemini (and ~/.env) a link to theirs, trust decisions go
// to the user's file, and nothing of the user's is written.
func TestGeminiKitIsAHomeOfItsOwn(t *testing.T) {
	t.Parallel()
	in := testKitInput(t)
	user := in.Getenv("HOME")
	gem := filepath.Join(user, ".gemini")
	if err := os.MkdirAll(filepath.Join(gem, "commands"), 0o700); err != nil {
		t.Fatal(err)
	}
	mine := `{
  // comments, as Gemini allows
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "mcpServers": {"mine": {"command": "my-server"}},
  "mcp": {"allowed": ["mine"]},
  "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "my-hook"}]}]},
}
`
	files := map[string]string{filepath.Join(gem, "settings.json"): mine, filepath.Join(gem, "oauth_creds.json"): "{}",
		filepath.Join(gem, "GEMINI.md"): "be brief", filepath.Join(user, ".env"): "GEMINI_API_KEY=x"}
	for path, data := range files {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w := wire(AgentConfig{Name: "ann", Kind: "gemini"}, []string{"gemini"}, in)
	if w.Skipped != "" {
		t.Fatal(w.Skipped)
	}
	if err := w.writeFiles(); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(in.Dir, "gemini-home")
	wantEnv := []string{"GEMINI_CLI_HOME=" + home, "GEMINI_CLI_TRUSTED_FOLDERS_PATH=" + filepath.Join(gem, "trustedFolders.json")}
	if !slices.Equal(w.Argv, []string{"gemini"}) || !slices.Equal(w.Env, wantEnv) || !w.Tools {
		t.Fatalf("%+v", w)
	}
	var settings struct {
		mcpServers
		hookSettings
		Security struct{ Auth struct{ SelectedType string } }
		MCP      struct{ Allowed []string }
	}
	readKitJSON(t, filepath.Join(home, ".gemini", "settings.json"), &settings)
	if s := settings.MCPServers["swarm"]; s.Command != in.Exe || s.Env["SWARM_TOKEN"] != "$SWARM_TOKEN" || s.Env["SWARM_DIR"] != "$SWARM_DIR" {
		t.Errorf("servers %+v", settings.MCPServers)
	}
	if settings.MCPServers["mine"].Command != "my-server" || settings.Security.Auth.SelectedType != "gemini-api-key" ||
		!slices.Equal(settings.MCP.Allowed, []string{"mine", "swarm"}) {
		t.Errorf("the user's settings were not kept: %+v", settings)
	}
	after := settings.Hooks["AfterAgent"]
	if len(after) != 2 || after[0].Hooks[0].Command != "my-hook" || !strings.HasSuffix(after[1].Hooks[0].Command, " hook stop") ||
		len(settings.Hooks["BeforeAgent"]) != 1 || len(settings.Hooks["Notification"]) != 1 {
		t.Errorf("hooks %+v", settings.Hooks)
	}
	for _, name := range []string{".gemini/oauth_creds.json", ".gemini/GEMINI.md", ".gemini/commands", ".env"} {
		if target, err := os.Readlink(filepath.Join(home, name)); err != nil || target != filepath.Join(user, name) {
			t.Errorf("%s: %q %v", name, target, err)
		}
	}
	for path, data := range files {
		if b, err := os.ReadFile(path); err != nil || string(b) != data {
			t.Errorf("%s changed: %q %v", path, b, err)
		}
	}

	// Settings Gemini itself would refuse are not guessed at: no kit, and
	// why.
	if err := os.WriteFile(filepath.Join(gem, "settings.json"), []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	w = wire(AgentConfig{Name: "ann", Kind: "gemini"}, []string{"gemini"}, in)
	if w.Tools || len(w.Env) != 0 || !strings.Contains(w.Skipped, "settings.json cannot be read as Gemini reads it") {
		t.Errorf("%+v", w)
	}
}

func TestKitFlagsJoinASimpleShellCommandOnly(t *testing.T) {
	t.Parallel()
	in := testKitInput(t)
	cfg := AgentConfig{Name: "ann", Kind: "claude"}
	w := wire(cfg, []string{"/bin/sh", "-c", "claude --model opus"}, in)
	if w.Skipped != "" {
		t.Fatal(w.Skipped)
	}
	// The shell reads the words back as they were meant, spaces and all.
	out, err := exec.Command("/bin/sh", "-c", `claude() { printf '%s\n' "$@"; }; `+w.Argv[2]).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if want := []string{"--model", "opus", "--mcp-config", filepath.Join(in.Dir, "claude-mcp.json"), "--settings", filepath.Join(in.Dir, "claude-settings.json")}; !slices.Equal(got, want) {
		t.Errorf("the shell read %q, want %q", got, want)
	}

	for _, line := range []string{"cd sub && claude", "claude | tee log", "claude $(cat flags)", "claude > out"} {
		w := wire(cfg, []string{"/bin/sh", "-c", line}, in)
		if w.Argv[2] != line || w.Skipped == "" || w.Tools {
			t.Errorf("%q: %+v", line, w)
		}
	}
}

func TestAgentsWithoutAKitRunAsWritten(t *testing.T) {
	t.Parallel()
	in := testKitInput(t)
	for _, cfg := range []AgentConfig{
		{Name: "ann", Kind: "claude", NoKit: true},
		{Name: "ann", Kind: "aider"},
		{Name: "ann"},
	} {
		argv := []string{"claude"}
		w := wire(cfg, argv, in)
		if !slices.Equal(w.Argv, argv) || len(w.Env) != 0 || len(w.Files) != 0 || w.Tools {
			t.Errorf("%+v: %+v", cfg, w)
		}
	}
	if _, err := os.Stat(in.Dir); !os.IsNotExist(err) {
		t.Errorf("files written for agents without a kit: %v", err)
	}
}

func TestHookTurn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		hook, payload string
		status        bus.Status
		note          string
		ok            bool
		err           string
	}{
		{hook: "prompt", payload: `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, status: bus.StatusWorking, ok: true},
		{hook: "stop", status: bus.StatusIdle, ok: true},
		{hook: "stop", payload: "not json: stop says the same", status: bus.StatusIdle, ok: true},
		{hook: "notification", payload: `{"message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`,
			status: bus.StatusNeedsHuman, note: "Claude needs your permission to use Bash", ok: true},
		{hook: "notification", payload: `{"message":"Claude is waiting for your input","notification_type":"idle_prompt"}`,
			status: bus.StatusIdle, note: "Claude is waiting for your input", ok: true},
		{hook: "notification", payload: `{"notification_type":"ToolPermission","message":""}`, status: bus.StatusNeedsHuman, note: "it waits for you", ok: true},
		{hook: "notification", payload: `{"notification_type":"auth_success"}`},
		{hook: "notification", payload: `{`, err: "not JSON"},
		{hook: "notify", payload: `{"type":"agent-turn-complete","last-assistant-message":"done"}`, status: bus.StatusIdle, ok: true},
		{hook: "notify", payload: `{"type":"something-new"}`},
		{hook: "bogus", err: `unknown hook "bogus"`},
	} {
		status, note, ok, err := HookTurn(c.hook, []byte(c.payload))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: err %v, want %q", c.hook, c.payload, err, c.err)
			}
			continue
		}
		if err != nil || ok != c.ok || ok && (status != c.status || note != c.note) {
			t.Errorf("%s %s: %v %q %v %v", c.hook, c.payload, status, note, ok, err)
		}
	}
}

// What each CLI prints when asked for its MCP servers (as seen from
// Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0, opencode 1.18.33)
// is read for swarm's server, not for a path that holds the word.
func TestKitChecksReadWhatTheCLIsSay(t *testing.T) {
	for _, c := range []struct {
		kind, out string
		ok        bool
		said      string
	}{
		{"claude", `{"type":"system","subtype":"init","mcp_servers":[{"name":"swarm","status":"connected"}],"tools":["Bash","mcp__swarm__send","mcp__swarm__inbox"]}`, true, "swarm: connected, 2 tools"},
		{"claude", `{"type":"system","subtype":"init","mcp_servers":[{"name":"swarm","status":"failed"}],"tools":["Bash"]}`, false, "swarm: failed, 0 tools"},
		{"claude", "--mcp-config took \"mcp\" as its value… this folder isn't trusted", false, "it listed no MCP servers: --mcp-config took \"mcp\" as its value… this folder isn't trusted"},
		{"codex", "WARNING: proceeding, even though we could not create PATH aliases (codex_home: \"/tmp/swarm-live.x/home/codex/.codex\")\nName   Command  Args  Env  Cwd  Status   Auth\nswarm  /x/.swarm/bin/swarm  mcp  -  -  enabled  Unsupported\n", true, "swarm /x/.swarm/bin/swarm mcp - - enabled Unsupported"},
		{"gemini", "Security Warning: Skipping system defaults file '/home/u/.cache/swarm/kits/x.json'\nNo MCP servers configured.\n", false, "swarm is not among its MCP servers: No MCP servers configured."},
		{"gemini", "Configured MCP servers:\n\n\x1b[32m✓\x1b[39m swarm: /x/swarm mcp (stdio) - Connected\n", true, "✓ swarm: /x/swarm mcp (stdio) - Connected"},
		{"gemini", "Configured MCP servers:\n\n✗ swarm: /x/swarm mcp (stdio) - Disconnected\n", false, "✗ swarm: /x/swarm mcp (stdio) - Disconnected"},
		{"opencode", "┌  MCP Servers\n│\n●  ✗ swarm \x1b[90mfailed\n│      MCP error -32000: Connection closed\n└  1 server(s)\n", false, "● ✗ swarm failed: │ MCP error -32000: Connection closed"},
		{"opencode", "┌  MCP Servers\n│\n●  ✓ swarm \x1b[90mconnected\n│      /x/swarm mcp\n", true, "● ✓ swarm connected"},
	} {
		ok, said := kitQueries[c.kind].read(c.out)
		if ok != c.ok || said != c.said {
			t.Errorf("%s %.40q: %v %q, want %v %q", c.kind, c.out, ok, said, c.ok, c.said)
		}
	}
}
