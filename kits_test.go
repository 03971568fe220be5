package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pelletier/go-toml/v2"

	"swarm/bus"
	"swarm/internal/testrun"
)

// fakeCLIVar makes this test binary a fake agent CLI (see runFakeCLI).
const fakeCLIVar = "SWARM_TEST_FAKE_CLI"

// runFakeCLI is an agent CLI as far as swarm's kits go: it finds swarm's
// MCP server and hooks where the real CLI of its kind would (Claude Code:
// --mcp-config and --settings; Codex: -c overrides; Gemini CLI: the
// settings of the home GEMINI_CLI_HOME names), starts the server
// with the environment that CLI gives its servers, and runs the hooks at
// its turn's events:
//
//   - at start: sends a message to bob with the server's send tool, then
//     runs the prompt hook (Claude Code's UserPromptSubmit, Gemini's
//     BeforeAgent; Codex has none);
//   - once a file named "end-turn" appears: the stop hook (Stop,
//     AfterAgent, Codex's notify);
//   - once "please answer" is typed into it: the notification hook
//     with a permission prompt (Codex has none).
//
// It shows a prompt (❯) with the cursor after it, as the CLIs' input box.
//
// Asked its version, or what MCP servers it loaded (as swarm doctor asks:
// claude -p /mcp, codex/gemini/opencode mcp list), it answers as the real
// one does, having started swarm's server from the kit it found (none with
// FAKE_CLI_NO_KIT set: a CLI that skipped its settings).
// fakePrompt is each CLI's empty input box below a blank row, as the
// real one draws it (screenmodel's models read it), the cursor in it:
// Claude Code's "❯ " between two rules, Codex's "› ", Gemini CLI's " > "
// with the terminal's cursor hidden.
var fakePrompt = map[string]string{
	"claude": strings.Repeat("─", 40) + "\r\n❯ \r\n" + strings.Repeat("─", 40) + "\x1b[A\r\x1b[2C",
	"codex":  "› ",
	"gemini": "\x1b[?25l > ",
}

func runFakeCLI(kind string) int {
	if args := os.Args[1:]; len(args) > 0 && args[0] == "--version" {
		fmt.Printf("9.9.9 (fake %s)\n", kind)
		return 0
	} else if slices.Contains(args, "/mcp") || len(args) >= 2 && args[len(args)-2] == "mcp" && args[len(args)-1] == "list" {
		return fakeCLIList(kind, args)
	}
	fmt.Print("fake " + kind + "\r\n\r\n" + fakePrompt[kind])
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "fake %s: %v\r\n", kind, err)
		os.WriteFile("fake-cli-error", []byte(err.Error()), 0o600) //nolint:errcheck
		return 1
	}
	server, hooks, err := fakeCLIKit(kind, os.Args[1:])
	if err != nil {
		return fail(err)
	}
	if err := fakeCLISend(server, "bob", "from "+kind+" through MCP"); err != nil {
		return fail(err)
	}
	run := func(event, stdin string, args ...string) error {
		cmd := exec.Command("/bin/sh", append([]string{"-c", hooks[event] + ` "$@"`, "sh"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			return fmt.Errorf("hook %s: %v %q", event, err, out)
		}
		return nil
	}
	if kind != "codex" {
		if err := run("prompt", `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`); err != nil {
			return fail(err)
		}
	}
	if !testrun.Poll(testrun.Patience, func() bool { _, err := os.Stat("end-turn"); return err == nil }) {
		return fail(fmt.Errorf("no end-turn file"))
	}
	if kind == "codex" {
		err = run("stop", "", `{"type":"agent-turn-complete","last-assistant-message":"done"}`)
	} else {
		err = run("stop", `{"hook_event_name":"Stop"}`)
	}
	if err != nil {
		return fail(err)
	}
	var typed []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(typed, []byte("please answer")) {
		n, err := os.Stdin.Read(buf)
		if err != nil {
			return fail(err)
		}
		typed = append(typed, buf[:n]...)
	}
	if kind != "codex" {
		if err := run("notification", `{"message":"Fake needs your permission to use Bash","notification_type":"permission_prompt"}`); err != nil {
			return fail(err)
		}
	}
	for { // as a CLI waits for its next prompt, until swarm stops it
		if _, err := os.Stdin.Read(buf); err != nil {
			return 0
		}
	}
}

// fakeServer is how a CLI starts an MCP server: its command line and its
// whole environment.
type fakeServer struct {
	argv []string
	env  []string
}

// fakeCLIKit reads swarm's kit where the CLI of kind would: the server
// and the commands of the hooks prompt, stop and notification.
func fakeCLIKit(kind string, args []string) (fakeServer, map[string]string, error) {
	hooks := map[string]string{}
	var s fakeServer
	readJSON := func(path string, v any) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return json.Unmarshal(data, v)
	}
	type settings struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		}
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	hookOf := func(st settings, event string) string {
		if h := st.Hooks[event]; len(h) == 1 && len(h[0].Hooks) == 1 {
			return h[0].Hooks[0].Command
		}
		return ""
	}
	switch kind {
	case "claude": // its servers get its environment
		var servers, hookFile settings
		if err := readJSON(flag("--mcp-config"), &servers); err != nil {
			return s, nil, err
		}
		if err := readJSON(flag("--settings"), &hookFile); err != nil {
			return s, nil, err
		}
		e := servers.MCPServers["swarm"]
		s = fakeServer{argv: append([]string{e.Command}, e.Args...), env: os.Environ()}
		hooks["prompt"], hooks["stop"], hooks["notification"] = hookOf(hookFile, "UserPromptSubmit"), hookOf(hookFile, "Stop"), hookOf(hookFile, "Notification")
	case "gemini": // its servers get its environment without secrets, and their env with $VAR expanded
		var st settings
		if err := readJSON(filepath.Join(os.Getenv("GEMINI_CLI_HOME"), ".gemini", "settings.json"), &st); err != nil {
			return s, nil, err
		}
		e := st.MCPServers["swarm"]
		s.argv = append([]string{e.Command}, e.Args...)
		for _, kv := range os.Environ() {
			if !strings.Contains(kv[:strings.IndexByte(kv, '=')], "TOKEN") {
				s.env = append(s.env, kv)
			}
		}
		for k, v := range e.Env {
			s.env = append(s.env, k+"="+os.ExpandEnv(v))
		}
		hooks["prompt"], hooks["stop"], hooks["notification"] = hookOf(st, "BeforeAgent"), hookOf(st, "AfterAgent"), hookOf(st, "Notification")
	case "opencode": // its servers get its environment and theirs, {env:X} expanded
		var cfg struct {
			MCP map[string]struct {
				Command     []string
				Environment map[string]string
			}
		}
		if err := readJSON(os.Getenv("OPENCODE_CONFIG"), &cfg); err != nil {
			return s, nil, err
		}
		e := cfg.MCP["swarm"]
		s = fakeServer{argv: e.Command, env: os.Environ()}
		for k, v := range e.Environment {
			s.env = append(s.env, k+"="+os.Getenv(strings.TrimSuffix(strings.TrimPrefix(v, "{env:"), "}")))
		}
	case "codex": // its servers get a few variables, and those env_vars names
		var doc strings.Builder
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-c" {
				doc.WriteString(args[i+1] + "\n")
			}
		}
		var cfg struct {
			Notify     []string
			MCPServers map[string]struct {
				Command string
				Args    []string
				EnvVars []string `toml:"env_vars"`
			} `toml:"mcp_servers"`
		}
		if err := toml.Unmarshal([]byte(doc.String()), &cfg); err != nil {
			return s, nil, err
		}
		e := cfg.MCPServers["swarm"]
		s.argv = append([]string{e.Command}, e.Args...)
		for _, v := range append([]string{"HOME", "PATH"}, e.EnvVars...) {
			s.env = append(s.env, v+"="+os.Getenv(v))
		}
		quoted := make([]string, len(cfg.Notify))
		for i, w := range cfg.Notify {
			quoted[i] = "'" + w + "'"
		}
		hooks["stop"] = strings.Join(quoted, " ")
	}
	if len(s.argv) == 0 || s.argv[0] == "" {
		return s, nil, fmt.Errorf("no swarm server in the %s kit (args %q)", kind, args)
	}
	return s, hooks, nil
}

// fakeCLIList answers the CLI of kind's own question of what MCP servers
// it loaded, in its words, after starting swarm's (but Codex's, which
// lists them without starting them).
func fakeCLIList(kind string, args []string) int {
	server, _, err := fakeCLIKit(kind, args)
	if err != nil || os.Getenv("FAKE_CLI_NO_KIT") != "" {
		fmt.Println("No MCP servers configured.")
		return 0
	}
	var tools []string
	status := "connected"
	if kind != "codex" {
		if tools, err = fakeCLITools(server); err != nil {
			status = "failed"
		}
	}
	cmd := strings.Join(server.argv, " ")
	switch kind {
	case "claude":
		var names []string
		for _, t := range tools {
			names = append(names, "mcp__swarm__"+t)
		}
		line, _ := json.Marshal(map[string]any{"type": "system", "subtype": "init", "tools": names,
			"mcp_servers": []map[string]string{{"name": "swarm", "status": status}}})
		fmt.Println(string(line))
	case "gemini":
		fmt.Printf("Configured MCP servers:\n\n\x1b[32m✓\x1b[39m swarm: %s (stdio) - %s\n", cmd, map[string]string{"connected": "Connected", "failed": "Disconnected"}[status])
	case "opencode":
		fmt.Printf("┌  MCP Servers\n│\n●  ✓ swarm \x1b[90m%s\n│      %s\n└  1 server(s)\n", status, cmd)
	case "codex":
		fmt.Printf("Name   Command  Args  Env  Cwd  Status   Auth\nswarm  %s  -  -  enabled  Unsupported\n", cmd)
	}
	return 0
}

// fakeCLITools starts the server and lists its tools.
func fakeCLITools(s fakeServer) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testrun.Patience)
	defer cancel()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = s.env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fake-cli"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}

// fakeCLISend calls the server's send tool.
func fakeCLISend(s fakeServer, to, body string) error {
	ctx, cancel := context.WithTimeout(context.Background(), testrun.Patience)
	defer cancel()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = s.env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fake-cli"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": to, "body": body}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("send refused: %+v", res.Content[0])
	}
	return nil
}

// TestKitsWireTheServerAndHooksIntoEachCLI runs a fake Claude Code, Codex
// and Gemini CLI under `swarm up`, each reading swarm's kit as the real
// one does: what each sends through the MCP server is from it, its hooks
// move its turn (in the event log), a message waits for its turn to end
// (a quiet period of an hour is not waited for once it has), and a
// permission prompt puts it on the "needs you" list.
func TestKitsWireTheServerAndHooksIntoEachCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"claude", "codex", "gemini"}
	var conf strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&conf, "[[agent]]\nname = %q\nkind = %q\ncmd = [%q]\ndir = %q\nquiet = \"1h\"\nbrief = false\nconfirm = false\nenv = { %s = %q, XDG_CACHE_HOME = %q }\n\n",
			k, k, self, k, fakeCLIVar, k, filepath.Join(e.cwd, "cache"))
		if err := os.Mkdir(filepath.Join(e.cwd, k), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	conf.WriteString("[[agent]]\nname = \"bob\"\ncmd = \"cat > /dev/null\"\nquiet = 0\n")
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e.dir = filepath.Join(e.cwd, ".swarm")
	bg := e.start("up", "--headless")
	t.Cleanup(func() {
		if t.Failed() {
			bg.mu.Lock()
			t.Logf("swarm up printed:\n%s", strings.Join(bg.out, "\n"))
			bg.mu.Unlock()
		}
	})
	for _, k := range kinds {
		if k != "codex" {
			waitUntil(t, k+"'s prompt hook", func() bool { return bg.has(k + " working (prompt hook)") })
		}
		waitUntil(t, k+"'s message through MCP", func() bool { return strings.Contains(e.ok("inbox", "bob"), "from "+k+" through MCP") })
	}
	log := jsonLines(t, e.ok("log", "--json"))
	for _, k := range kinds {
		found := false
		for _, m := range log {
			if m["body"] == "from "+k+" through MCP" {
				found = m["from"] == k
			}
		}
		if !found {
			t.Errorf("%s's message is not from %s: %v", k, k, log)
		}
	}

	ids := map[string]string{}
	for _, k := range kinds {
		ids[k] = strings.TrimSpace(e.ok("send", k, "please answer"))
	}
	for _, k := range kinds {
		if err := os.WriteFile(filepath.Join(e.cwd, k, "end-turn"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range kinds {
		hook := "stop"
		if k == "codex" {
			hook = "notify"
		}
		waitUntil(t, k+"'s stop hook", func() bool { return bg.has(k + " idle (" + hook + " hook)") })
		waitUntil(t, "the message to "+k+" delivered at its turn's end", func() bool {
			return bg.has("delivered #" + bus.ShortID(ids[k]) + " to " + k)
		})
	}
	for _, k := range []string{"claude", "gemini"} {
		waitUntil(t, k+"'s notification hook", func() bool {
			return bg.has(k + " needs you: Fake needs your permission to use Bash (notification hook)")
		})
	}
	status := e.ok("status")
	for _, want := range []string{"needs you (2)", "agent claude needs you: Fake needs your permission to use Bash", "agent gemini needs you"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	for _, k := range kinds {
		if data, err := os.ReadFile(filepath.Join(e.cwd, k, "fake-cli-error")); err == nil {
			t.Errorf("fake %s: %s", k, data)
		}
	}
	if code := bg.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm up exited %d", code)
	}
}

// TestInitWritesTheCLIsFoundAndDoctorChecksThem: swarm init on a PATH
// with Claude Code and Gemini CLI writes an agent for each by kind, and
// swarm doctor finds them, starts swarm's MCP server as they would and
// names their hooks; a program that is not there is a problem.
func TestInitWritesTheCLIsFoundAndDoctorChecksThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := filepath.Join(e.cwd, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fakeCLIs(t, bin, "claude", "gemini")
	e.extra = []string{"PATH=" + bin + ":/usr/bin:/bin", "XDG_CACHE_HOME=" + filepath.Join(e.cwd, "cache")}
	out := e.ok("init")
	if !strings.Contains(out, "claude, gemini") {
		t.Errorf("init said %q", out)
	}
	conf, err := os.ReadFile(filepath.Join(e.cwd, "swarm.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), "name = \"claude\"\nkind = \"claude\"") || strings.Contains(string(conf), "\n[game]") {
		t.Errorf("starter:\n%s", conf)
	}
	out = e.ok("doctor")
	for _, want := range []string{
		"claude (claude): claude", "ok    claude is " + filepath.Join(bin, "claude"), "ok    version 9.9.9 (fake claude)",
		"answers with 8 tools", "hooks: Notification, Stop, StopFailure, UserPromptSubmit call `swarm hook`", "flags added: --mcp-config",
		"ok    claude -p /mcp: swarm: connected, 8 tools",
		"hooks: AfterAgent, BeforeAgent, Notification", "environment: GEMINI_CLI_HOME=",
		"ok    gemini mcp list: ✓ swarm: ", " mcp (stdio) - Connected",
		"no problems in swarm.toml",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}

	// Without them: the built-in players, which doctor passes too.
	plain := newEnv(t)
	plain.extra = []string{"PATH=/usr/bin:/bin"}
	if out := plain.ok("init"); !strings.Contains(out, "built-in players") {
		t.Errorf("init said %q", out)
	}
	plain.ok("doctor")
	conf = append(conf, "\n[[agent]]\nname = \"ghost\"\ncmd = [\"no-such-program\"]\n"...)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), conf, 0o600); err != nil {
		t.Fatal(err)
	}
	out = e.fails(1, []string{"doctor"}, "doctor: 1 problem(s)")
	if !strings.Contains(out, "FAIL  no-such-program: not found on PATH") {
		t.Errorf("doctor:\n%s", out)
	}
}

// fakeCLIs puts on bin a program for each kind that runs this test
// binary as a fake of that CLI (runFakeCLI).
func fakeCLIs(t *testing.T, bin string, kinds ...string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		script := fmt.Sprintf("#!/bin/sh\n%s=%s exec '%s' \"$@\"\n", fakeCLIVar, k, self)
		if err := os.WriteFile(filepath.Join(bin, k), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHookRefusalsAreExitOne: a hook's mistakes exit 1, never 2 (Claude
// Code reads a hook's exit status 2 as "do not stop"), with one line.
func TestHookRefusalsAreExitOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("ann")
	e.fails(1, []string{"hook", "bogus"}, `unknown hook "bogus" (want prompt, stop, notification, notify)`)
	e.fails(1, []string{"hook", "stop"}, "runs inside an agent's CLI")
	e.stdin = "{not json"
	e.as("ann").fails(1, []string{"hook", "notification"}, "hook notification: what the CLI passed is not JSON")
	e.stdin = ""
	e.as("ann").ok("hook", "stop") // queued for the swarm to apply when it runs
	if log := e.ok("log"); !strings.Contains(log, "ann") || !strings.Contains(log, "[turn] turn idle") {
		t.Errorf("log:\n%s", log)
	}
}
