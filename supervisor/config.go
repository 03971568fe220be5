package supervisor

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"

	"swarm/gitrepo"
	"swarm/spawner"
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
	// DefaultCheckTimeout bounds each check: a test suite that hangs
	// must not hold the merge queue for ever.
	DefaultCheckTimeout = 10 * time.Minute
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
	// Checks is [checks], the checks run on task branches and in the merge
	// queue; nil when the file has none (merges go straight in). An agent
	// with checks of its own implies the table with its defaults.
	Checks *ChecksConfig
	// UI holds what the agents' panes keep by default.
	UI UIConfig
	// Cluster is [cluster]: this swarm's agents may run on other machines
	// (hosts), which connect to it at Cluster.Listen (or meet it on the
	// NATS at Cluster.NATS). nil when the file
	// has none: nothing listens and every agent runs here.
	Cluster *ClusterConfig
	// Agents in the order the file lists them.
	Agents []AgentConfig
}

// ClusterConfig is the [cluster] table: one of Listen and NATS.
type ClusterConfig struct {
	Listen string // host:port hosts connect to, at the NATS server swarm embeds
	// NATS is an existing NATS server (or cluster), with JetStream, that
	// the main swarm and its hosts connect to instead: nats://… or
	// tls://…, credentials in it if it asks for them.
	NATS string
}

// CheckListen checks a [cluster] listen address: HOST:PORT, a port from
// 1 to 65535 (HOST may be empty or 0.0.0.0 for every interface).
func CheckListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT (such as \"0.0.0.0:7422\")", addr)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 1 to 65535", addr, port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("%q: %q is not a host name or address", addr, host)
	}
	return nil
}

// CheckNATSURL checks a [cluster] nats URL: nats:// or tls://, with a
// host (a port is NATS's 4222 when it has none), or several of them
// separated by commas (the servers of one NATS cluster).
func CheckNATSURL(s string) error {
	for _, one := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Hostname() == "" {
			return fmt.Errorf("%q is not a NATS server's URL (such as \"nats://HOST:4222\" or \"tls://HOST:4222\")", one)
		}
	}
	return nil
}

// hostNameRx is a host's name: no '.', since it is a token of the
// cluster's subjects.
var hostNameRx = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// CheckHostName checks the name of a host (an agent's host = "NAME",
// swarm invite NAME).
func CheckHostName(name string) error {
	if !hostNameRx.MatchString(name) {
		return fmt.Errorf("host name %q is not valid: use 1 to 64 letters, digits, '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// GameConfig names a game swarm referees between two of the agents: every
// move between them is checked and an illegal one is not delivered.
type GameConfig struct {
	Kind string // "tictactoe"; "" for none
	X, O string // the players' agent names
}

// ChecksConfig is [checks]: shell commands run in a task's tree when it
// enters review, and on its merge with the base before the base moves.
type ChecksConfig struct {
	Run            []string      // the commands, each run with /bin/sh -c
	Timeout        time.Duration // per command (default DefaultCheckTimeout; 0: none)
	ReviewBy       string        // an agent that reviews every task first, or ""
	ReviewRequired bool          // the reviewer's approval is a condition of merging
	Parallel       int           // checks run at once, at most (default: half the cores)
}

// UIConfig is the [ui] table.
type UIConfig struct {
	// Scrollback is how many rows an agent's pane keeps once they scroll
	// off its top, unless the agent says otherwise: 0 for
	// spawner.DefaultScrollback, negative for none (scrollback = 0).
	Scrollback int
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
	// OwnChecks: the agent's checks (Checks) replace [checks] run for its
	// tasks (checks = [...]; an empty array: none).
	OwnChecks bool
	Checks    []string
	// Scrollback is how many rows the agent's pane keeps once they scroll
	// off its top: 0 for the swarm's default ([ui] scrollback; an agent
	// added while the swarm runs has it), negative for none. A config
	// file's agents have it filled in.
	Scrollback int
	// Host is the host (another machine's `swarm host`) the agent runs
	// on; "" for this machine. A swarm registers an agent of another host
	// on its bus, so that messages to it queue, and does not run it.
	Host string
}

// scrollbackOf is the scrollback of an agent's screen, as
// spawner.Options.Scrollback takes it: its own, else the swarm's default.
func (s *Supervisor) scrollbackOf(ac AgentConfig) int {
	if ac.Scrollback != 0 {
		return ac.Scrollback
	}
	return s.opts.Config.UI.Scrollback
}

// scrollbackRows is a scrollback setting as written (0 for none) as
// UIConfig and AgentConfig hold it.
func scrollbackRows(n int) int {
	if n == 0 {
		return -1
	}
	return n
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
// the first problem found: of syntax, then an unknown key, then a value of
// the wrong type, then any other, each in the order of the file.
//
// Durations are strings with a unit, as Go writes them: "300ms", "30s",
// "1m30s". A bare number is accepted only for zero (quiet = 0), because
// whether 300 would mean milliseconds or seconds is anybody's guess.
func ParseConfig(path string, data []byte) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg, err := decodeConfig(path, filepath.Dir(abs), data)
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
		CLIs       []string
		Git        bool
		Scrollback int
	}{clis, git, spawner.DefaultScrollback}); err != nil {
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
