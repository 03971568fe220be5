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
// binary whose path needs quoting in a shell.
func testKitInput(t *testing.T) kitInput {
	dir := t.TempDir()
	return kitInput{Agent: "ann", Exe: filepath.Join(dir, "my bin", "swarm"), Dir: filepath.Join(dir, "kits", "ann"),
		PrivateDir: filepath.Join(dir, "private", "ann")}
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

func TestGeminiKitIsAPrivateSettingsLayer(t *testing.T) {
	t.Parallel()
	in := testKitInput(t)
	w := wire(AgentConfig{Name: "ann", Kind: "gemini"}, []string{"gemini"}, in)
	if err := w.writeFiles(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Argv, []string{"gemini"}) || len(w.Env) != 1 || !strings.HasPrefix(w.Env[0], "GEMINI_CLI_SYSTEM_DEFAULTS_PATH="+in.PrivateDir+"/") {
		t.Fatalf("%+v", w)
	}
	path := strings.TrimPrefix(w.Env[0], "GEMINI_CLI_SYSTEM_DEFAULTS_PATH=")
	var servers mcpServers
	readKitJSON(t, path, &servers)
	if s := servers.MCPServers["swarm"]; s.Command != in.Exe || s.Env["SWARM_TOKEN"] != "$SWARM_TOKEN" || s.Env["SWARM_DIR"] != "$SWARM_DIR" {
		t.Errorf("servers %+v", servers)
	}
	var settings hookSettings
	readKitJSON(t, path, &settings)
	if got := settings.commands(t); len(got) != 3 || !strings.HasSuffix(got["AfterAgent"], " hook stop") {
		t.Errorf("hooks %v", got)
	}
	if st, err := os.Stat(in.PrivateDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("private dir: %v %v", st.Mode(), err)
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
