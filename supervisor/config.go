package supervisor

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/agnivade/levenshtein"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"swarm/bus"
	"swarm/gitrepo"
)

// DefaultConfigFile is the config file swarm reads in the current directory.
const DefaultConfigFile = "swarm.toml"

// Defaults applied to what a config file leaves out.
const (
	DefaultQuiet       = 300 * time.Millisecond
	DefaultMaxRestarts = 5
	DefaultWarn        = 30 * time.Second
	DefaultStale       = 100 * time.Second
	DefaultDead        = 5 * time.Minute
)

// ErrInvalidConfig is wrapped by every error about the contents of a config
// file; the error itself is a *ConfigError naming the file and line.
var ErrInvalidConfig = errors.New("invalid config")

// ErrConfigExists is returned by WriteStarterConfig when the file exists.
var ErrConfigExists = errors.New("config file already exists")

// ConfigError is one problem in a config file, at a line (and column, for
// syntax errors) when it has one. It reads "swarm.toml:7: unknown key
// "cmdd" in agent "alice" (did you mean "cmd"?)".
type ConfigError struct {
	File   string // as given to LoadConfig or ParseConfig
	Line   int    // 1-based; 0 when the problem is not at one line
	Column int    // 1-based; 0 when unknown
	Msg    string
}

// Error returns "file:line:column: msg", leaving out what is unknown.
func (e *ConfigError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// RestartPolicy says when a supervised agent is started again after it
// exits.
type RestartPolicy int

const (
	// RestartOnFailure restarts after a non-zero exit or a signal.
	RestartOnFailure RestartPolicy = iota
	// RestartNever leaves the agent stopped.
	RestartNever
	// RestartAlways restarts after any exit that swarm did not ask for.
	RestartAlways
)

// String returns the spelling used in swarm.toml.
func (p RestartPolicy) String() string {
	switch p {
	case RestartNever:
		return "never"
	case RestartOnFailure:
		return "on-failure"
	case RestartAlways:
		return "always"
	}
	return fmt.Sprintf("RestartPolicy(%d)", int(p))
}

// ParseRestartPolicy reads "never", "on-failure" or "always".
func ParseRestartPolicy(s string) (RestartPolicy, error) {
	for _, p := range []RestartPolicy{RestartNever, RestartOnFailure, RestartAlways} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("restart policy %q is not never, on-failure or always", s)
}

// Config is a parsed swarm.toml; see the starter file (WriteStarterConfig)
// for the keys a user writes. Every field is filled in: defaults are applied
// and paths are absolute.
type Config struct {
	// Path is the absolute path of the file read ("" for a config built in
	// code).
	Path string
	// BaseBranch is the git branch task branches start from and merge into;
	// "" means the branch checked out when swarm starts.
	BaseBranch string
	// Quiet is the default readiness quiet period of the agents.
	Quiet time.Duration
	// Heartbeat holds the liveness thresholds.
	Heartbeat HeartbeatConfig
	// Game is a refereed game between two agents, if any.
	Game GameConfig
	// Agents in the order the file lists them.
	Agents []AgentConfig
}

// GameConfig names a game swarm referees between two of the agents: every
// move between them is checked and an illegal one is not delivered.
type GameConfig struct {
	Kind string // "tictactoe"; "" for none
	X, O string // the players' agent names
}

// HeartbeatConfig holds the liveness thresholds: an agent silent for Warn is
// WARN, for Stale is STALE, for Dead is DEAD. Warn < Stale < Dead.
type HeartbeatConfig struct {
	Warn, Stale, Dead time.Duration
}

// AgentConfig is one [[agent]] of swarm.toml.
type AgentConfig struct {
	// Name is unique in the swarm (compared without regard to case), matches
	// [A-Za-z0-9][A-Za-z0-9_.-]{0,63}, and is none of swarm, human, *.
	Name string
	// Argv is the command to run: ["/bin/sh", "-c", cmd] for a cmd written
	// as a string, the array itself for a cmd written as an array.
	Argv []string
	// Cmd is the command as written, for display.
	Cmd string
	// Dir is the absolute working directory (the file's directory unless
	// dir says otherwise; dir is relative to the file and may start with ~/).
	Dir string
	// Env is added to the agent's environment (after SWARM_AGENT and
	// SWARM_DIR, which it may not set).
	Env map[string]string
	// Restart is the restart policy (default on-failure) and MaxRestarts
	// how many restarts in a row are allowed before the agent is stopped
	// (default 5).
	Restart     RestartPolicy
	MaxRestarts int
	// Quiet is how long the agent's output must be quiet before a message
	// is typed in (default: the top-level quiet, itself 300ms by default);
	// 0 suits line-oriented programs.
	Quiet time.Duration
	// Confirm makes swarm watch the agent's screen for each message it
	// types in (default true); false counts an injected message as delivered,
	// for programs that do not echo their input.
	Confirm bool
	// Brief makes swarm type the standard brief into the agent once it is
	// ready at start (default false); BriefText is appended to it.
	Brief     bool
	BriefText string
	// Worktree gives each task of the agent its own git worktree and branch.
	Worktree bool
	// Thinking makes the agent receive @thinking messages.
	Thinking bool
	// Kind names the agent's profile (see Profile), "" to choose it by the
	// agent's program.
	Kind string
	// NoMessages: the agent takes no messages (messages = false; by
	// default, editors, pagers and monitors take none).
	NoMessages bool
	// NoKit: swarm's MCP server and hooks are not wired into the agent's
	// CLI (kit = false).
	NoKit bool
}

// Profile returns the agent's profile: the one its kind names, else the
// one its program has.
func (a AgentConfig) Profile() Profile {
	if p, ok := ProfileByKind(a.Kind); ok {
		return p
	}
	return profileFor(a.Argv)
}

// LoadConfig reads and validates the config file at path. A missing file is
// an error that wraps fs.ErrNotExist; an invalid one is a *ConfigError.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file (swarm init writes a starter one): %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig validates data as the contents of the config file at path;
// path names the file in errors and is the base of relative dirs. It returns
// the first problem found, in the order of the file.
//
// Durations are strings with a unit, as Go writes them: "300ms", "30s",
// "1m30s". A bare number is accepted only for zero (quiet = 0), because
// whether 300 would mean milliseconds or seconds is anybody's guess.
func ParseConfig(path string, data []byte) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &ConfigError{File: path, Line: line, Column: col,
				Msg: "syntax error: " + strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &ConfigError{File: path, Msg: err.Error()}
	}
	c := &configParser{file: path, dir: filepath.Dir(abs), lines: keyLines(data)}
	cfg, err := c.parse(doc)
	if err != nil {
		return nil, err
	}
	cfg.Path = abs
	return cfg, nil
}

// WriteStarterConfig writes the commented starter swarm.toml to path, with
// an agent for each of the agent CLIs clis (kinds) — or, when there are
// none, the built-in players, so that it runs on any machine; git says
// whether the directory is in a git repository (the CLIs' agents then get
// a worktree per task). It never overwrites: an existing file gives an
// error wrapping ErrConfigExists.
func WriteStarterConfig(path string, clis []string, git bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w; edit it, or remove it to start over", path, ErrConfigExists)
	}
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	_, err = f.WriteString(StarterConfig(clis, git))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write config %s: %w", path, err)
	}
	return nil
}

// starterTemplate is the file `swarm init` writes. It loads as it is.
//
//go:embed starter.toml.tmpl
var starterTemplate string

var starter = template.Must(template.New("swarm.toml").Parse(starterTemplate))

// StarterConfig is the starter swarm.toml with agents for clis (see
// WriteStarterConfig).
func StarterConfig(clis []string, git bool) string {
	var b strings.Builder
	if err := starter.Execute(&b, struct {
		CLIs []string
		Git  bool
	}{clis, git}); err != nil {
		panic(err) // the template is tested
	}
	return b.String()
}

// InstalledCLIs returns the kinds of the agent CLIs on PATH, in the order
// of Profiles.
func InstalledCLIs() []string {
	var out []string
	for _, p := range Profiles {
		if p.CLI() {
			if _, err := exec.LookPath(p.Commands[0]); err == nil {
				out = append(out, p.Kind)
			}
		}
	}
	return out
}

// InGitRepo says whether dir is in a git repository, where agents can have
// a worktree per task.
func InGitRepo(ctx context.Context, dir string) bool {
	_, err := gitrepo.OpenRepo(ctx, dir)
	return err == nil
}

// ErrBadAgentName is wrapped by CheckAgentName's errors.
var ErrBadAgentName = errors.New("bad agent name")

// CheckAgentName reports whether name can name an agent: it matches
// [A-Za-z0-9][A-Za-z0-9_.-]{0,63} and is not reserved (swarm, human and *,
// in any case). The error is one line naming the problem.
func CheckAgentName(name string) error {
	switch {
	case bus.Reserved(name):
		return &nameError{fmt.Sprintf("agent name %q is reserved (swarm, human and * are not agents)", name)}
	case bus.ValidName(name) != nil:
		return &nameError{fmt.Sprintf("agent name %q is invalid: use 1 to 64 letters, digits, _ . - starting with a letter or digit", name)}
	}
	return nil
}

// nameError reads as its message alone and matches ErrBadAgentName.
type nameError struct{ msg string }

func (e *nameError) Error() string { return e.msg }
func (e *nameError) Unwrap() error { return ErrBadAgentName }

var (
	envNameRx = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

var (
	topKeys       = []string{"base_branch", "quiet", "heartbeat", "game", "agent"}
	heartbeatKeys = []string{"warn", "stale", "dead"}
	gameKeys      = []string{"kind", "x", "o"}
	agentKeys     = []string{"name", "kind", "cmd", "dir", "env", "restart", "max_restarts", "quiet", "confirm", "brief", "worktree", "thinking", "messages", "kit"}
)

// configParser turns the decoded document into a Config, naming the line of
// each problem.
//
// It reads go-toml's generic decoding rather than having go-toml decode
// into typed structs, because the typed decoder (v2.4.3, with
// DisallowUnknownFields) cannot give the errors swarm promises, as tried:
//   - quiet = 300 into a time.Duration is 300 nanoseconds, silently; swarm
//     refuses a bare number because nobody can tell the unit it meant;
//   - a wrong type reads "cannot decode TOML string into struct field
//     supervisor.agentTOML.Confirm of type bool", without the value, and
//     its key is [agent confirm]: which agent is lost, so is the enclosing
//     table of a key in an inline array ([restrat]);
//   - checks made after decoding (a duplicate name, a missing cmd, a dir
//     that does not exist) have no position at all.
//
// Translating those back into swarm's messages needs this same index of
// key → line (keyLines) and the value as written, so a typed decode would
// add a pass, not remove one.
type configParser struct {
	file  string
	dir   string         // the config file's directory, absolute
	lines map[string]int // key path → line; see keyLines
}

func (c *configParser) errorf(path []string, format string, args ...any) error {
	return &ConfigError{File: c.file, Line: c.line(path), Msg: fmt.Sprintf(format, args...)}
}

// line returns the line of path, or of its nearest ancestor with one.
func (c *configParser) line(path []string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := c.lines[pathKey(path[:n])]; ok {
			return l
		}
	}
	return 0
}

// keys returns the keys of table m in the order of the file.
func (c *configParser) keys(path []string, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		la, lb := c.line(append(path[:len(path):len(path)], a)), c.line(append(path[:len(path):len(path)], b))
		if la != lb {
			return la - lb
		}
		return strings.Compare(a, b)
	})
	return keys
}

func (c *configParser) parse(doc map[string]any) (*Config, error) {
	cfg := &Config{
		Quiet:     DefaultQuiet,
		Heartbeat: HeartbeatConfig{Warn: DefaultWarn, Stale: DefaultStale, Dead: DefaultDead},
	}
	for _, k := range c.keys(nil, doc) {
		v, path := doc[k], []string{k}
		var err error
		switch k {
		case "base_branch":
			cfg.BaseBranch, err = c.branch(path, v)
		case "quiet":
			cfg.Quiet, err = c.duration(path, "quiet", v)
		case "heartbeat":
			err = c.heartbeat(path, v, &cfg.Heartbeat)
		case "game":
			err = c.game(path, v, &cfg.Game)
		case "agent":
			// Read after the top-level keys: agents inherit quiet.
		default:
			err = c.errorf(path, "unknown key %q%s", k, suggest(k, topKeys))
		}
		if err != nil {
			return nil, err
		}
	}
	agents, err := c.agents(doc["agent"], cfg.Quiet)
	if err != nil {
		return nil, err
	}
	cfg.Agents = agents
	if g := cfg.Game; g.Kind != "" {
		for _, name := range []string{g.X, g.O} {
			if !slices.ContainsFunc(agents, func(a AgentConfig) bool { return a.Name == name }) {
				return nil, c.errorf([]string{"game"}, "game: player %q is not an agent of this file", name)
			}
		}
	}
	return cfg, nil
}

// game reads the [game] table: a game swarm referees between two agents.
func (c *configParser) game(path []string, v any, g *GameConfig) error {
	m, ok := v.(map[string]any)
	if !ok {
		return c.errorf(path, "game must be a table ([game]), not %s", typeName(v))
	}
	for _, k := range c.keys(path, m) {
		kp := append(path[:1:1], k)
		str, ok := m[k].(string)
		if !ok {
			return c.errorf(kp, "game %s must be a string, not %s", k, typeName(m[k]))
		}
		switch k {
		case "kind":
			if str != "tictactoe" {
				return c.errorf(kp, "game kind %q: the game swarm knows is \"tictactoe\"", str)
			}
			g.Kind = str
		case "x":
			g.X = str
		case "o":
			g.O = str
		default:
			return c.errorf(kp, "unknown key %q in [game]%s", k, suggest(k, gameKeys))
		}
	}
	if g.Kind == "" || g.X == "" || g.O == "" || g.X == g.O {
		return c.errorf(path, "game needs kind = \"tictactoe\" and two different players: x = \"NAME\", o = \"NAME\"")
	}
	return nil
}

func (c *configParser) branch(path []string, v any) (string, error) {
	s, ok := v.(string)
	switch {
	case !ok:
		return "", c.errorf(path, "base_branch must be a string such as \"main\", not %s", typeName(v))
	case s == "" || strings.HasPrefix(s, "-") || strings.ContainsAny(s, " \t\n~^:?*[\\") || strings.Contains(s, ".."):
		return "", c.errorf(path, "base_branch %q is not a valid git branch name", s)
	}
	return s, nil
}

func (c *configParser) heartbeat(path []string, v any, h *HeartbeatConfig) error {
	m, ok := v.(map[string]any)
	if !ok {
		return c.errorf(path, "heartbeat must be a table ([heartbeat]), not %s", typeName(v))
	}
	for _, k := range c.keys(path, m) {
		kp := append(path[:1:1], k)
		var dst *time.Duration
		switch k {
		case "warn":
			dst = &h.Warn
		case "stale":
			dst = &h.Stale
		case "dead":
			dst = &h.Dead
		default:
			return c.errorf(kp, "unknown key %q in [heartbeat]%s", k, suggest(k, heartbeatKeys))
		}
		d, err := c.duration(kp, "heartbeat "+k, m[k])
		if err != nil {
			return err
		}
		if d == 0 {
			return c.errorf(kp, "heartbeat %s must be more than 0", k)
		}
		*dst = d
	}
	if h.Warn >= h.Stale || h.Stale >= h.Dead {
		return c.errorf(path, "heartbeat thresholds must grow: warn (%s) < stale (%s) < dead (%s)", h.Warn, h.Stale, h.Dead)
	}
	return nil
}

// duration reads a duration; what names it in errors.
func (c *configParser) duration(path []string, what string, v any) (time.Duration, error) {
	switch v := v.(type) {
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return 0, c.errorf(path, "%s %q is not a duration such as \"300ms\" or \"30s\"", what, v)
		}
		if d < 0 {
			return 0, c.errorf(path, "%s %q is negative", what, v)
		}
		return d, nil
	case int64:
		if v == 0 {
			return 0, nil
		}
		return 0, c.errorf(path, "%s = %d needs a unit: write \"%dms\" or \"%ds\"", what, v, v, v)
	default:
		return 0, c.errorf(path, "%s must be a duration such as \"300ms\", not %s", what, typeName(v))
	}
}

func (c *configParser) agents(v any, quiet time.Duration) ([]AgentConfig, error) {
	path := []string{"agent"}
	if v == nil {
		return nil, c.errorf(nil, "no agents defined; add an [[agent]] table with a name and a cmd")
	}
	list, ok := v.([]any)
	if !ok {
		return nil, c.errorf(path, "agent must be an array of tables: write [[agent]], not %s", typeName(v))
	}
	if len(list) == 0 {
		return nil, c.errorf(path, "no agents defined; add an [[agent]] table with a name and a cmd")
	}
	seen := map[string]string{} // lower-case name → as first written
	seenLine := map[string]int{}
	var agents []AgentConfig
	for i, item := range list {
		ap := []string{"agent", "#" + strconv.Itoa(i)}
		m, ok := item.(map[string]any)
		if !ok {
			return nil, c.errorf(ap, "agent #%d must be a table, not %s", i+1, typeName(item))
		}
		a, err := c.agent(ap, i, m, quiet)
		if err != nil {
			return nil, err
		}
		key := strings.ToLower(a.Name)
		if first, dup := seen[key]; dup {
			return nil, c.errorf(append(ap, "name"), "agent name %q is already used by the agent on line %d (%q); names must be unique, ignoring case",
				a.Name, seenLine[key], first)
		}
		seen[key], seenLine[key] = a.Name, c.line(append(ap, "name"))
		agents = append(agents, a)
	}
	return agents, nil
}

func (c *configParser) agent(ap []string, i int, m map[string]any, quiet time.Duration) (AgentConfig, error) {
	a := AgentConfig{
		Dir: c.dir, Restart: RestartOnFailure, MaxRestarts: DefaultMaxRestarts,
		Quiet: quiet, Confirm: true,
	}
	label := fmt.Sprintf("agent #%d", i+1)

	// The name first, so that every later message can say whose key it is.
	nameV, ok := m["name"]
	if !ok {
		return a, c.errorf(ap, "%s has no name", label)
	}
	np := append(ap[:2:2], "name")
	name, ok := nameV.(string)
	if !ok {
		return a, c.errorf(np, "%s: name must be a string, not %s", label, typeName(nameV))
	}
	if err := CheckAgentName(name); err != nil {
		return a, c.errorf(np, "%v", err)
	}
	a.Name = name
	label = fmt.Sprintf("agent %q", name)

	messagesSet, briefSet := false, false
	for _, k := range c.keys(ap, m) {
		v, kp := m[k], append(ap[:2:2], k)
		var err error
		switch k {
		case "name":
		case "cmd":
			a.Argv, a.Cmd, err = c.command(kp, label, v)
		case "dir":
			a.Dir, err = c.workdir(kp, label, v)
		case "env":
			a.Env, err = c.env(kp, label, v)
		case "restart":
			s, ok := v.(string)
			if !ok {
				return a, c.errorf(kp, "%s: restart must be \"never\", \"on-failure\" or \"always\", not %s", label, typeName(v))
			}
			if a.Restart, err = ParseRestartPolicy(s); err != nil {
				err = c.errorf(kp, "%s: %v", label, err)
			}
		case "max_restarts":
			n, ok := v.(int64)
			switch {
			case !ok:
				err = c.errorf(kp, "%s: max_restarts must be a whole number, not %s", label, typeName(v))
			case n < 0 || n > 1_000_000:
				err = c.errorf(kp, "%s: max_restarts %d is out of range (0 or more)", label, n)
			}
			a.MaxRestarts = int(n)
		case "quiet":
			a.Quiet, err = c.duration(kp, label+": quiet", v)
		case "confirm":
			a.Confirm, err = c.boolean(kp, label, k, v)
		case "worktree":
			a.Worktree, err = c.boolean(kp, label, k, v)
		case "thinking":
			a.Thinking, err = c.boolean(kp, label, k, v)
		case "messages":
			var takes bool
			takes, err = c.boolean(kp, label, k, v)
			a.NoMessages, messagesSet = !takes, true
		case "kit":
			var on bool
			on, err = c.boolean(kp, label, k, v)
			a.NoKit = !on
		case "kind":
			kind, ok := v.(string)
			if _, known := ProfileByKind(kind); !ok || !known {
				err = c.errorf(kp, "%s: kind must be one of %s, not %s%s", label, strings.Join(quoteAll(profileKinds()), ", "),
					describe(v), suggest(fmt.Sprint(v), profileKinds()))
			}
			a.Kind = kind
		case "brief":
			briefSet = true
			switch v := v.(type) {
			case bool:
				a.Brief = v
			case string:
				a.Brief, a.BriefText = true, strings.TrimSpace(v)
			default:
				err = c.errorf(kp, "%s: brief must be true, false or a string of extra instructions, not %s", label, typeName(v))
			}
		default:
			err = c.errorf(kp, "unknown key %q in %s%s", k, label, suggest(k, agentKeys))
		}
		if err != nil {
			return a, err
		}
	}
	if a.Argv == nil {
		p, _ := ProfileByKind(a.Kind)
		if !p.CLI() {
			return a, c.errorf(ap, "%s has no cmd", label)
		}
		a.Argv, a.Cmd = []string{p.Commands[0]}, p.Commands[0] // the CLI the kind names
	}
	if !briefSet {
		// An agent CLI is told who it is and how to take part, unless
		// its config says otherwise.
		a.Brief = a.Profile().CLI()
	}
	if !messagesSet {
		a.NoMessages = a.Profile().NoMessages
	}
	return a, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// describe names a value in an error: a string quoted, else its type.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return typeName(v)
}

func (c *configParser) boolean(path []string, label, key string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, c.errorf(path, "%s: %s must be true or false, not %s", label, key, typeName(v))
	}
	return b, nil
}

func (c *configParser) command(path []string, label string, v any) (argv []string, display string, err error) {
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return nil, "", c.errorf(path, "%s: cmd is empty", label)
		}
		return []string{"/bin/sh", "-c", v}, v, nil
	case []any:
		if len(v) == 0 {
			return nil, "", c.errorf(path, "%s: cmd is empty", label)
		}
		quoted := make([]string, len(v))
		for i, w := range v {
			s, ok := w.(string)
			if !ok {
				return nil, "", c.errorf(path, "%s: cmd element %d must be a string, not %s", label, i+1, typeName(w))
			}
			if i == 0 && strings.TrimSpace(s) == "" {
				return nil, "", c.errorf(path, "%s: cmd has an empty program name", label)
			}
			argv = append(argv, s)
			quoted[i] = shellQuote(s)
		}
		return argv, strings.Join(quoted, " "), nil
	default:
		return nil, "", c.errorf(path, "%s: cmd must be a string or an array of strings, not %s", label, typeName(v))
	}
}

func (c *configParser) workdir(path []string, label string, v any) (string, error) {
	s, ok := v.(string)
	if !ok || s == "" {
		return "", c.errorf(path, "%s: dir must be a path (a non-empty string)", label)
	}
	dir := s
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", c.errorf(path, "%s: dir %q: %v", label, s, err)
		}
		dir = filepath.Join(home, dir[1:])
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.dir, dir)
	}
	dir = filepath.Clean(dir)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", c.errorf(path, "%s: dir %q does not exist (%s)", label, s, dir)
	case err != nil:
		return "", c.errorf(path, "%s: dir %q: %v", label, s, err)
	case !info.IsDir():
		return "", c.errorf(path, "%s: dir %q is not a directory (%s)", label, s, dir)
	}
	return dir, nil
}

func (c *configParser) env(path []string, label string, v any) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, c.errorf(path, "%s: env must be a table such as { FOO = \"bar\" }, not %s", label, typeName(v))
	}
	env := make(map[string]string, len(m))
	for _, k := range c.keys(path, m) {
		kp := append(path[:len(path):len(path)], k)
		switch {
		case !envNameRx.MatchString(k):
			return nil, c.errorf(kp, "%s: env name %q is invalid: use letters, digits and _, not starting with a digit", label, k)
		case k == "SWARM_AGENT" || k == "SWARM_DIR" || k == "SWARM_TOKEN":
			return nil, c.errorf(kp, "%s: env %s is set by swarm and cannot be overridden", label, k)
		}
		switch val := m[k].(type) {
		case string:
			env[k] = val
		case int64:
			env[k] = strconv.FormatInt(val, 10)
		case bool:
			env[k] = strconv.FormatBool(val)
		default:
			return nil, c.errorf(kp, "%s: env %s must be a string, not %s", label, k, typeName(val))
		}
	}
	return env, nil
}

// typeName names a decoded TOML value's type for an error message.
func typeName(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the number %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%t", v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return "a date or time"
	}
}

// suggest returns ` (did you mean "x"?)` for the known key closest to k, if
// it is close enough to be a typo.
func suggest(k string, known []string) string {
	best, bestD := "", 3
	for _, w := range known {
		if d := levenshtein.ComputeDistance(strings.ToLower(k), w); d < bestD {
			best, bestD = w, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// shellQuote quotes s for display as one shell word when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pathKey joins a key path for the line index. Array elements are "#i".
func pathKey(path []string) string { return strings.Join(path, "\x00") }

// keyLines maps the path of every key, table header and array element in a
// syntactically valid document to its line, e.g. agent/#1/cmd → 12 (as
// pathKey joins it). The decoder has already checked the document, so a
// parse error here only ends the index early.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	lineOf := func(r unstable.Range) int {
		return bytes.Count(data[:r.Offset], []byte("\n")) + 1
	}
	arrays := map[string]int{} // array of tables → elements so far
	// resolve turns a header's dotted key into a path, stepping into the
	// last element of any array of tables it passes through.
	resolve := func(parts []string) []string {
		var path []string
		for _, k := range parts {
			path = append(path, k)
			if n, ok := arrays[pathKey(path)]; ok {
				path = append(path, "#"+strconv.Itoa(n-1))
			}
		}
		return path
	}
	record := func(path []string, line int) {
		if _, ok := lines[pathKey(path)]; !ok {
			lines[pathKey(path)] = line
		}
	}
	var keyValue func(table []string, kv *unstable.Node)
	var value func(path []string, v *unstable.Node)
	value = func(path []string, v *unstable.Node) {
		switch v.Kind {
		case unstable.InlineTable:
			it := v.Children()
			for it.Next() {
				if n := it.Node(); n.Kind == unstable.KeyValue {
					keyValue(path, n)
				}
			}
		case unstable.Array:
			it := v.Children()
			for i := 0; it.Next(); {
				n := it.Node()
				if n.Kind == unstable.Comment {
					continue
				}
				ep := append(path[:len(path):len(path)], "#"+strconv.Itoa(i))
				if n.Raw.Length > 0 {
					record(ep, lineOf(n.Raw))
				}
				value(ep, n)
				i++
			}
		}
	}
	keyValue = func(table []string, kv *unstable.Node) {
		path := append([]string(nil), table...)
		it := kv.Key()
		line := 0
		for it.Next() {
			k := it.Node()
			if line == 0 {
				line = lineOf(k.Raw)
			}
			path = append(path, string(k.Data))
			record(path, line)
		}
		value(path, kv.Value())
	}
	headerKey := func(n *unstable.Node) (parts []string, line int) {
		it := n.Key()
		for it.Next() {
			k := it.Node()
			if line == 0 {
				line = lineOf(k.Raw)
			}
			parts = append(parts, string(k.Data))
		}
		return parts, line
	}
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			parts, line := headerKey(e)
			table = resolve(parts)
			record(table, line)
		case unstable.ArrayTable:
			parts, line := headerKey(e)
			base := append(resolve(parts[:len(parts)-1]), parts[len(parts)-1])
			n := arrays[pathKey(base)]
			arrays[pathKey(base)] = n + 1
			record(base, line)
			table = append(base, "#"+strconv.Itoa(n))
			record(table, line)
		case unstable.KeyValue:
			keyValue(table, e)
		}
	}
	return lines
}
