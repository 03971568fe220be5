package supervisor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"swarm/spawner"
)

func TestStarterConfigRoundTrips(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), DefaultConfigFile)
	if err := WriteStarterConfig(path, nil, false); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatalf("the starter file does not load: %v", err)
	}
	dir := filepath.Dir(path)
	want := &Config{
		Path:      path,
		Quiet:     300 * time.Millisecond,
		Heartbeat: HeartbeatConfig{Warn: 30 * time.Second, Stale: 100 * time.Second, Dead: 5 * time.Minute},
		Game:      GameConfig{Kind: "tictactoe", X: "X", O: "O"},
		UI:        UIConfig{Scrollback: spawner.DefaultScrollback},
		Agents: []AgentConfig{
			{
				Name: "X", Argv: []string{"swarm", "agent", "tictactoe", "--mark", "X", "--opponent", "O", "--strategy", "casual"},
				Cmd: "swarm agent tictactoe --mark X --opponent O --strategy casual", Dir: dir,
				Restart: RestartNever, MaxRestarts: 5, Quiet: 0, Confirm: true, Scrollback: spawner.DefaultScrollback,
			},
			{
				Name: "O", Argv: []string{"swarm", "agent", "tictactoe", "--mark", "O", "--opponent", "X", "--strategy", "casual"},
				Cmd: "swarm agent tictactoe --mark O --opponent X --strategy casual", Dir: dir,
				Restart: RestartNever, MaxRestarts: 5, Quiet: 0, Confirm: true, Scrollback: spawner.DefaultScrollback,
			},
		},
	}
	if d := cmp.Diff(want, cfg); d != "" {
		t.Errorf("starter config (-want +got):\n%s", d)
	}

	// Never overwrites, and says so.
	if err := os.WriteFile(path, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = WriteStarterConfig(path, nil, false)
	if !errors.Is(err, ErrConfigExists) {
		t.Fatalf("second write: %v, want ErrConfigExists", err)
	}
	if want := path + ": config file already exists; edit it, or remove it to start over"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "# mine\n" {
		t.Errorf("existing file changed to %q", b)
	}
}

// TestStarterExamplesAreValid uncomments every example key in the starter
// file: the documented keys and the agent CLI example must load too.
func TestStarterExamplesAreValid(t *testing.T) {
	t.Parallel()
	example := regexp.MustCompile(`(?m)^# (\[\[agent\]\]|\[checks\]|\[cluster\]|[a-z_]+ = .*)$`)
	text := example.ReplaceAllString(StarterConfig(nil, false), "$1")
	cfg, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte(text))
	if err != nil {
		t.Fatalf("uncommented starter does not load: %v\n%s", err, text)
	}
	var names []string
	for _, a := range cfg.Agents {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, " "); got != "X O claude alice" {
		t.Fatalf("agents = %s", got)
	}
	if cfg.BaseBranch != "main" {
		t.Errorf("base_branch = %q", cfg.BaseBranch)
	}
	if claude := cfg.Agents[2]; !claude.Brief || claude.Quiet != time.Second || claude.Kind != "claude" ||
		!slices.Equal(claude.Argv, []string{"claude"}) || !claude.Profile().Composer || claude.NoKit {
		t.Errorf("claude = %+v", claude)
	}
}

// TestStarterHasAnAgentPerCLIFound: swarm init on a machine with agent
// CLIs writes an agent for each, told by kind alone, with a worktree per
// task only in a git repository (elsewhere worktrees cannot start).
func TestStarterHasAnAgentPerCLIFound(t *testing.T) {
	t.Parallel()
	for _, git := range []bool{true, false} {
		cfg, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte(StarterConfig([]string{"claude", "codex", "aider"}, git)))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Game.Kind != "" || len(cfg.Agents) != 3 {
			t.Fatalf("git %v: game %+v, %d agents", git, cfg.Game, len(cfg.Agents))
		}
		for i, kind := range []string{"claude", "codex", "aider"} {
			a := cfg.Agents[i]
			if a.Name != kind || a.Kind != kind || a.Argv[0] != kind || !a.Brief || a.Worktree != git || a.Quiet != time.Second {
				t.Errorf("git %v: %+v", git, a)
			}
		}
	}
}

func TestFullConfig(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "config", "full.toml")
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	dir := filepath.Dir(abs)
	want := &Config{
		Path:       abs,
		BaseBranch: "trunk",
		Quiet:      150 * time.Millisecond,
		Heartbeat:  HeartbeatConfig{Warn: 10 * time.Second, Stale: time.Minute, Dead: 10 * time.Minute},
		UI:         UIConfig{Scrollback: 2000},
		Agents: []AgentConfig{
			{
				Name: "alice", Argv: []string{"/bin/sh", "-c", "claude --verbose"}, Cmd: "claude --verbose",
				Dir: filepath.Join(dir, "sub"), Env: map[string]string{"FOO": "bar", "PORT": "8080", "DEBUG": "true"},
				Restart: RestartAlways, MaxRestarts: 2, Quiet: time.Second, Confirm: false,
				Brief: true, BriefText: "You own the database layer.", Worktree: true, Thinking: true,
				Scrollback: -1, // scrollback = 0: none
			},
			{
				Name: "bob.2", Argv: []string{"python3", "-u", "bot.py", "it's"}, Cmd: `python3 -u bot.py 'it'\''s'`,
				Dir: dir, Env: map[string]string{"MODE": "test"},
				Restart: RestartOnFailure, MaxRestarts: 5, Quiet: 150 * time.Millisecond, Confirm: true,
				Scrollback: 2000, // [ui]'s
			},
		},
	}
	if d := cmp.Diff(want, cfg); d != "" {
		t.Errorf("full.toml (-want +got):\n%s", d)
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := LoadConfig(filepath.Join("testdata", "config", "minimal.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseBranch != "" || cfg.Quiet != DefaultQuiet ||
		cfg.Heartbeat != (HeartbeatConfig{DefaultWarn, DefaultStale, DefaultDead}) ||
		cfg.UI != (UIConfig{Scrollback: spawner.DefaultScrollback}) {
		t.Errorf("top-level defaults: %+v", cfg)
	}
	a := cfg.Agents[0]
	abs, _ := filepath.Abs(filepath.Join("testdata", "config"))
	want := AgentConfig{Name: "solo", Argv: []string{"/bin/sh", "-c", "sh"}, Cmd: "sh", Dir: abs,
		Restart: RestartOnFailure, MaxRestarts: DefaultMaxRestarts, Quiet: DefaultQuiet, Confirm: true,
		Scrollback: spawner.DefaultScrollback,
		NoMessages: true} // sh is a shell: it takes no messages unless told to
	if d := cmp.Diff(want, a); d != "" {
		t.Errorf("agent defaults (-want +got):\n%s", d)
	}
}

func TestDirResolution(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{filepath.Join(root, "proj", "api"), filepath.Join(home, "code")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(root, "proj", DefaultConfigFile)
	src := `
[[agent]]
name = "rel"
cmd = "sh"
dir = "api"
[[agent]]
name = "up"
cmd = "sh"
dir = "../proj/./api/.."
[[agent]]
name = "abs"
cmd = "sh"
dir = "` + root + `"
[[agent]]
name = "home"
cmd = "sh"
dir = "~/code"
[[agent]]
name = "default"
cmd = "sh"
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Relative to the file, not to the working directory of the test.
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"rel":     filepath.Join(root, "proj", "api"),
		"up":      filepath.Join(root, "proj"),
		"abs":     root,
		"home":    filepath.Join(home, "code"),
		"default": filepath.Join(root, "proj"),
	}
	for _, a := range cfg.Agents {
		if a.Dir != want[a.Name] {
			t.Errorf("%s: dir = %s, want %s", a.Name, a.Dir, want[a.Name])
		}
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "swarm.toml")
	_, err := LoadConfig(path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
	if want := path + ": no such file (swarm init writes a starter one): file does not exist"; err.Error() != want {
		t.Errorf("err = %q\nwant %q", err, want)
	}
}

// TestConfigErrors checks that every problem is reported as one line naming
// the file, the line and what is wrong.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const agent = "[[agent]]\nname = \"alice\"\ncmd = \"sh\"\n" // lines 1-3
	cases := []struct {
		name, src, want string
	}{
		{"syntax", "quiet = \"300ms\nname = 1\n",
			`swarm.toml:1:15: syntax error: basic strings cannot have new lines`},
		{"syntax missing value", agent + "restart =\n",
			`swarm.toml:4:10: syntax error: unexpected character U+000A at start of value`},
		{"duplicate key", agent + "name = \"bob\"\n",
			`swarm.toml:4:1: syntax error: key name is already defined`},
		{"unknown kind", agent + "kind = \"cladue\"\n",
			`swarm.toml:4: agent "alice": kind must be one of "claude", "codex", "gemini", "opencode", "crush", "aider", "editor", "viewer", "shell", not "cladue" (did you mean "claude"?)`},
		{"kind not a string", agent + "kind = 3\n",
			`swarm.toml:4: agent "alice": kind must be one of "claude", "codex", "gemini", "opencode", "crush", "aider", "editor", "viewer", "shell", not the number 3`},
		{"kind that names no command", "[[agent]]\nname = \"ed\"\nkind = \"editor\"\n",
			`swarm.toml:1: agent "ed" has no cmd`},
		{"messages not a bool", agent + "messages = \"no\"\n",
			`swarm.toml:4: agent "alice": messages must be true or false, not the string "no"`},
		{"unknown top-level key", "quite = \"1s\"\n" + agent,
			`swarm.toml:1: unknown key "quite" (did you mean "quiet"?)`},
		{"unknown key without suggestion", agent + "colour = \"red\"\n",
			`swarm.toml:4: unknown key "colour" in agent "alice"`},
		{"unknown agent key", "quiet = \"1s\"\n\n# alice\n" + "[[agent]]\nname = \"alice\"\ncmd = \"sh\"\ncmdd = \"claude\"\n",
			`swarm.toml:7: unknown key "cmdd" in agent "alice" (did you mean "cmd"?)`},
		{"unknown key before name", "[[agent]]\ncmdd = \"x\"\nname = \"alice\"\n",
			`swarm.toml:2: unknown key "cmdd" in agent "alice" (did you mean "cmd"?)`},
		{"unknown heartbeat key", "[heartbeat]\nwarn = \"1s\"\nstal = \"2s\"\n" + agent,
			`swarm.toml:3: unknown key "stal" in [heartbeat] (did you mean "stale"?)`},
		{"unknown key in dotted table", agent + "[agent.extra]\nx = 1\n",
			`swarm.toml:4: unknown key "extra" in agent "alice"`},
		{"no agents", "# nothing yet\nquiet = \"1s\"\n",
			`swarm.toml: no agents defined; add an [[agent]] table with a name and a cmd`},
		{"empty agent array", "agent = []\n",
			`swarm.toml:1: no agents defined; add an [[agent]] table with a name and a cmd`},
		{"agent as a table", "[agent]\nname = \"a\"\ncmd = \"sh\"\n",
			`swarm.toml:1: agent must be an array of tables: write [[agent]], not a table`},
		{"agent element not a table", "agent = [1]\n",
			`swarm.toml:1: agent #1 must be a table, not the number 1`},
		{"no name", agent + "[[agent]]\n\ncmd = \"sh\"\n",
			`swarm.toml:4: agent #2 has no name`},
		{"name not a string", "[[agent]]\nname = 7\n",
			`swarm.toml:2: agent #1: name must be a string, not the number 7`},
		{"duplicate name", agent + "\n[[agent]]\nname = \"Alice\"\ncmd = \"sh\"\n",
			`swarm.toml:6: agent name "Alice" is already used by the agent on line 2 ("alice"); names must be unique, ignoring case`},
		{"reserved swarm", "[[agent]]\nname = \"swarm\"\ncmd = \"sh\"\n",
			`swarm.toml:2: agent name "swarm" is reserved (swarm, human and * are not agents)`},
		{"reserved human", "[[agent]]\ncmd = \"sh\"\nname = \"Human\"\n",
			`swarm.toml:3: agent name "Human" is reserved (swarm, human and * are not agents)`},
		{"reserved star", "[[agent]]\nname = \"*\"\n",
			`swarm.toml:2: agent name "*" is reserved (swarm, human and * are not agents)`},
		{"invalid name", "[[agent]]\nname = \"two words\"\n",
			`swarm.toml:2: agent name "two words" is invalid: use 1 to 64 letters, digits, _ . - starting with a letter or digit`},
		{"name starting with dash", "[[agent]]\nname = \"-x\"\n",
			`swarm.toml:2: agent name "-x" is invalid: use 1 to 64 letters, digits, _ . - starting with a letter or digit`},
		{"name too long", "[[agent]]\nname = \"" + strings.Repeat("a", 65) + "\"\n",
			`swarm.toml:2: agent name "` + strings.Repeat("a", 65) + `" is invalid: use 1 to 64 letters, digits, _ . - starting with a letter or digit`},
		{"no cmd", agent + "[[agent]]\nname = \"bob\"\nrestart = \"never\"\n",
			`swarm.toml:4: agent "bob" has no cmd`},
		{"empty cmd", "[[agent]]\nname = \"bob\"\ncmd = \"  \"\n",
			`swarm.toml:3: agent "bob": cmd is empty`},
		{"empty cmd array", "[[agent]]\nname = \"bob\"\ncmd = []\n",
			`swarm.toml:3: agent "bob": cmd is empty`},
		{"empty program", "[[agent]]\nname = \"bob\"\ncmd = [\"\", \"x\"]\n",
			`swarm.toml:3: agent "bob": cmd has an empty program name`},
		{"cmd array with a number", "[[agent]]\nname = \"bob\"\ncmd = [\"sleep\", 5]\n",
			`swarm.toml:3: agent "bob": cmd element 2 must be a string, not the number 5`},
		{"cmd a table", "[[agent]]\nname = \"bob\"\ncmd = {}\n",
			`swarm.toml:3: agent "bob": cmd must be a string or an array of strings, not a table`},
		{"bad restart", agent + "restart = \"sometimes\"\n",
			`swarm.toml:4: agent "alice": restart policy "sometimes" is not never, on-failure or always`},
		{"restart not a string", agent + "restart = false\n",
			`swarm.toml:4: agent "alice": restart must be "never", "on-failure" or "always", not false`},
		{"negative max_restarts", agent + "max_restarts = -1\n",
			`swarm.toml:4: agent "alice": max_restarts -1 is out of range (0 or more)`},
		{"negative scrollback", agent + "scrollback = -1\n",
			`swarm.toml:4: agent "alice": scrollback -1 is out of range (0 for none, up to 1000000 rows)`},
		{"scrollback too large", "[ui]\nscrollback = 1000001\n" + agent,
			`swarm.toml:2: ui scrollback 1000001 is out of range (0 for none, up to 1000000 rows)`},
		{"scrollback a string", agent + "scrollback = \"2k\"\n",
			`swarm.toml:4: agent "alice": scrollback must be a whole number of rows, not the string "2k"`},
		{"ui not a table", "ui = 3\n" + agent,
			`swarm.toml:1: ui must be a table ([ui]), not the number 3`},
		{"unknown ui key", "[ui]\nscrolback = 5\n" + agent,
			`swarm.toml:2: unknown key "scrolback" in [ui] (did you mean "scrollback"?)`},
		{"max_restarts a string", agent + "max_restarts = \"5\"\n",
			`swarm.toml:4: agent "alice": max_restarts must be a whole number, not the string "5"`},
		{"bad duration", agent + "quiet = \"fast\"\n",
			`swarm.toml:4: agent "alice": quiet "fast" is not a duration such as "300ms" or "30s"`},
		{"negative duration", "quiet = \"-1s\"\n" + agent,
			`swarm.toml:1: quiet "-1s" is negative`},
		{"bare number duration", agent + "quiet = 300\n",
			`swarm.toml:4: agent "alice": quiet = 300 needs a unit: write "300ms" or "300s"`},
		{"duration of wrong type", agent + "quiet = 0.5\n",
			`swarm.toml:4: agent "alice": quiet must be a duration such as "300ms", not the number 0.5`},
		{"bad heartbeat duration", "[heartbeat]\ndead = \"5 minutes\"\n" + agent,
			`swarm.toml:2: heartbeat dead "5 minutes" is not a duration such as "300ms" or "30s"`},
		{"zero heartbeat", "[heartbeat]\nwarn = 0\n" + agent,
			`swarm.toml:2: heartbeat warn must be more than 0`},
		{"heartbeat order", "[heartbeat]\nwarn = \"2m\"\n" + agent,
			`swarm.toml:1: heartbeat thresholds must grow: warn (2m0s) < stale (1m40s) < dead (5m0s)`},
		{"unknown game", "[game]\nkind = \"chess\"\nx = \"a\"\no = \"b\"\n" + agent,
			`swarm.toml:2: game kind "chess": the game swarm knows is "tictactoe"`},
		{"game without players", "[game]\nkind = \"tictactoe\"\n" + agent,
			`swarm.toml:1: game needs kind = "tictactoe" and two different players: x = "NAME", o = "NAME"`},
		{"game player not an agent", "[game]\nkind = \"tictactoe\"\nx = \"alice\"\no = \"bob\"\n" + agent,
			`swarm.toml:1: game: player "bob" is not an agent of this file`},
		{"heartbeat not a table", "heartbeat = \"30s\"\n" + agent,
			`swarm.toml:1: heartbeat must be a table ([heartbeat]), not the string "30s"`},
		{"confirm not a bool", agent + "confirm = \"yes\"\n",
			`swarm.toml:4: agent "alice": confirm must be true or false, not the string "yes"`},
		{"worktree not a bool", agent + "worktree = 1\n",
			`swarm.toml:4: agent "alice": worktree must be true or false, not the number 1`},
		{"brief a number", agent + "brief = 1\n",
			`swarm.toml:4: agent "alice": brief must be true, false or a string of extra instructions, not the number 1`},
		{"env not a table", agent + "env = \"FOO=bar\"\n",
			`swarm.toml:4: agent "alice": env must be a table such as { FOO = "bar" }, not the string "FOO=bar"`},
		{"env bad name", agent + "env = { OK = \"1\", \"BAD-NAME\" = \"x\" }\n",
			`swarm.toml:4: agent "alice": env name "BAD-NAME" is invalid: use letters, digits and _, not starting with a digit`},
		{"env reserved", agent + "[agent.env]\nA = \"1\"\nSWARM_AGENT = \"bob\"\n",
			`swarm.toml:6: agent "alice": env SWARM_AGENT is set by swarm and cannot be overridden`},
		{"env array value", agent + "env = { PATHS = [\"a\"] }\n",
			`swarm.toml:4: agent "alice": env PATHS must be a string, not an array`},
		{"dir missing", agent + "dir = \"no/such/dir\"\n",
			`swarm.toml:4: agent "alice": dir "no/such/dir" does not exist (` + mustAbs(t, "no/such/dir") + `)`},
		{"dir a file", agent + "dir = \"" + file + "\"\n",
			`swarm.toml:4: agent "alice": dir "` + file + `" is not a directory (` + file + `)`},
		{"dir empty", agent + "dir = \"\"\n",
			`swarm.toml:4: agent "alice": dir must be a path (a non-empty string)`},
		{"base_branch invalid", "base_branch = \"my branch\"\n" + agent,
			`swarm.toml:1: base_branch "my branch" is not a valid git branch name`},
		{"base_branch not a string", "base_branch = 1\n" + agent,
			`swarm.toml:1: base_branch must be a string such as "main", not the number 1`},
		{"error in the second agent", agent + "\n[[agent]]\nname = \"bob\"\ncmd = \"sh\"\nmax_restarts = -3\n",
			`swarm.toml:8: agent "bob": max_restarts -3 is out of range (0 or more)`},
		{"inline agent array", "agent = [\n  { name = \"a\", cmd = \"sh\" },\n  { name = \"b\", cmd = \"sh\", restrat = \"never\" },\n]\n",
			`swarm.toml:3: unknown key "restrat" in agent "b" (did you mean "restart"?)`},
		{"date value", agent + "quiet = 1979-05-27\n",
			`swarm.toml:4: agent "alice": quiet must be a duration such as "300ms", not a date or time`},
		{"unknown dotted key", "heartbeat.warn = \"1s\"\nheartbeat.wern = \"1s\"\n" + agent,
			`swarm.toml:2: unknown key "wern" in [heartbeat] (did you mean "warn"?)`},
		{"unknown game key", "[game]\nkind = \"tictactoe\"\nxx = 1\n" + agent,
			`swarm.toml:3: unknown key "xx" in [game] (did you mean "x"?)`},
		{"unknown array of tables in an agent", agent + "[[agent.x]]\na = 1\n",
			`swarm.toml:4: unknown key "x" in agent "alice"`},
		{"wrong type before the name", "[[agent]]\nconfirm = \"yes\"\nname = \"alice\"\n",
			`swarm.toml:2: agent "alice": confirm must be true or false, not the string "yes"`},
		{"array for a bool", agent + "confirm = [true]\n",
			`swarm.toml:4: agent "alice": confirm must be true or false, not an array`},
		{"inline table for the agents", "agent = { name = \"a\", cmd = \"sh\" }\n",
			`swarm.toml:1: agent must be an array of tables: write [[agent]], not a table`},
		{"table given twice", "[heartbeat]\nwarn = \"1s\"\n[heartbeat]\n" + agent,
			`swarm.toml:3:2: syntax error: table heartbeat already exists`},
		{"agent as dotted keys", "agent.name = \"a\"\nagent.cmd = \"sh\"\n",
			`swarm.toml:1: agent must be an array of tables: write [[agent]], not a table`},
		{"agent implied by a header", "[agent.env]\nA = \"1\"\n",
			`swarm.toml:1: agent must be an array of tables: write [[agent]], not a table`},
		{"array of tables for env", agent + "[[agent.env]]\n",
			`swarm.toml:4: agent "alice": env must be a table such as { FOO = "bar" }, not an array`},
		{"array of tables for heartbeat", "[[heartbeat]]\nwarn = \"1s\"\n" + agent,
			`swarm.toml:1: heartbeat must be a table ([heartbeat]), not an array`},
		{"agent element an array", "agent = [[{ name = \"a\" }]]\n",
			`swarm.toml:1: agent #1 must be a table, not an array`},
		{"array in cmd", agent + "\n[[agent]]\nname = \"bob\"\ncmd = [\"sh\", [1]]\n",
			`swarm.toml:7: agent "bob": cmd element 2 must be a string, not an array`},
		{"number too large", agent + "max_restarts = 99999999999999999999\n",
			`swarm.toml:4: agent "alice": max_restarts must be a whole number, not the number 99999999999999999999`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig("swarm.toml", []byte(c.src))
			if err == nil {
				t.Fatalf("accepted:\n%s\n→ %+v", c.src, cfg)
			}
			if err.Error() != c.want {
				t.Errorf("error:\n got %s\nwant %s", err, c.want)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("error %T is not a *ConfigError wrapping ErrInvalidConfig", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// FuzzConfig: whatever the file says, swarm.toml is either read or refused
// with one line naming the file.
func FuzzConfig(f *testing.F) {
	f.Add(StarterConfig(nil, false))
	f.Add(StarterConfig([]string{"claude", "codex"}, true))
	f.Add("agent = [\n  { name = \"a\", cmd = [\"sh\", 1] },\n  { name = \"b\", env = { X = [1] } },\n]\n")
	f.Add("[[agent]]\nname = \"a\"\ncmd = \"sh\"\n[agent.env]\nA.B = 1\n[[agent.x]]\n")
	f.Fuzz(func(t *testing.T, src string) {
		_, err := ParseConfig("swarm.toml", []byte(src))
		if err == nil {
			return
		}
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "swarm.toml:") {
			t.Fatalf("%q: error %T %q is not a *ConfigError", src, err, err)
		}
		if strings.Contains(ce.Msg, "\n") {
			t.Fatalf("%q: error is not one line: %q", src, err)
		}
		if ce.Line > strings.Count(src, "\n")+1 {
			t.Fatalf("%q: error past the last line: %q", src, err)
		}
		if strings.Contains(ce.Msg, "cannot decode") || strings.Contains(ce.Msg, "strict mode") {
			t.Fatalf("%q: go-toml's words, not swarm's: %q", src, err)
		}
	})
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestRestartPolicy(t *testing.T) {
	t.Parallel()
	for _, p := range []RestartPolicy{RestartNever, RestartOnFailure, RestartAlways} {
		got, err := ParseRestartPolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParseRestartPolicy(%q) = %v, %v", p, got, err)
		}
	}
	if RestartPolicy(7).String() != "RestartPolicy(7)" {
		t.Errorf("unknown policy: %q", RestartPolicy(7))
	}
	if _, err := ParseRestartPolicy("Never"); err == nil {
		t.Errorf("policies are lower case; Never accepted")
	}
}

func TestConfigErrorFormat(t *testing.T) {
	t.Parallel()
	cases := map[string]*ConfigError{
		"f.toml:3:7: bad":  {File: "f.toml", Line: 3, Column: 7, Msg: "bad"},
		"f.toml:3: bad":    {File: "f.toml", Line: 3, Msg: "bad"},
		"f.toml: bad news": {File: "f.toml", Msg: "bad news"},
	}
	for want, e := range cases {
		if e.Error() != want {
			t.Errorf("%+v: %q, want %q", *e, e.Error(), want)
		}
	}
}

func TestCheckAgentName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"a", "X", "alice", "bob.2", "c_3-x", strings.Repeat("z", 64), "9lives"} {
		if err := CheckAgentName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "swarm", "SWARM", "human", "*", "-a", ".a", "a b", "a/b", "é", strings.Repeat("z", 65)} {
		if err := CheckAgentName(bad); !errors.Is(err, ErrBadAgentName) {
			t.Errorf("%q: err = %v, want ErrBadAgentName", bad, err)
		}
	}
}

func TestKindsAndMessages(t *testing.T) {
	t.Parallel()
	src := `
[[agent]]
name = "c"
kind = "codex"

[[agent]]
name = "vim"
cmd = "vim notes.md"

[[agent]]
name = "less"
cmd = ["less", "+F", "log"]
messages = true

[[agent]]
name = "sh"
cmd = "env FOO=1 bash"

[[agent]]
name = "zsh"
cmd = "zsh -l"
messages = true

[[agent]]
name = "wrapped"
kind = "shell"
cmd = "my-login-wrapper"

[[agent]]
name = "script"
cmd = "bash build.sh"

[[agent]]
name = "g"
cmd = "npx gemini --yolo"
`
	cfg, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind       string
		noMessages bool
		composer   bool
	}{{"codex", false, true}, {"editor", true, false}, {"viewer", false, false}, {"shell", true, false}, {"shell", false, false},
		{"shell", true, false}, {"", false, false}, {"gemini", false, true}}
	if len(cfg.Agents) != len(want) {
		t.Fatalf("%d agents", len(cfg.Agents))
	}
	for i, a := range cfg.Agents {
		p := a.Profile()
		if p.Kind != want[i].kind || a.NoMessages != want[i].noMessages || p.Composer != want[i].composer {
			t.Errorf("%s: profile %q, no messages %v, composer %v; want %+v", a.Name, p.Kind, a.NoMessages, p.Composer, want[i])
		}
	}
	if c := cfg.Agents[0]; !slices.Equal(c.Argv, []string{"codex"}) || c.Cmd != "codex" {
		t.Errorf("codex's command: %q %q", c.Argv, c.Cmd)
	}
}
