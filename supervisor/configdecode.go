package supervisor

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"swarm/checks"
	"swarm/spawner"
)

// swarm.toml is read in four steps, each reporting the first problem it
// finds in the order of the file:
//
//  1. go-toml checks the syntax (a key given twice included);
//  2. indexDoc notes where each key is and what was written there
//     (docIndex), and checkKeys refuses a key its table does not have, with
//     the known key it may be a typo of, and an array where a table belongs
//     or the other way round;
//  3. go-toml decodes the file into fileTOML, refusing a value of the wrong
//     type; decodeError says what its key must hold (wants);
//  4. configDecoder.config checks what a type cannot say (a duration's
//     unit, a name's spelling, a dir that exists, unique names) and fills
//     in the defaults.
//
// Each problem is placed by its key path (agent/#1/cmd): the index gives
// its line and what was written, subject the words ("agent "bob": cmd").
//
// Keys whose value may be of more than one type (a duration is a string,
// or a bare 0; cmd a string or an array; brief true, false or a string)
// are decoded as any and checked in step 4. They are not
// encoding.TextUnmarshalers: go-toml calls those only for strings, and
// hands their errors back as text.

// fileTOML is swarm.toml as written. Pointers tell a key left out from a
// key set to its zero value.
type fileTOML struct {
	BaseBranch *string        `toml:"base_branch"`
	Quiet      any            `toml:"quiet"` // a duration
	Heartbeat  *heartbeatTOML `toml:"heartbeat"`
	Game       *gameTOML      `toml:"game"`
	Checks     *checksTOML    `toml:"checks"`
	UI         *uiTOML        `toml:"ui"`
	Cluster    *clusterTOML   `toml:"cluster"`
	Agents     []agentTOML    `toml:"agent"`
}

type clusterTOML struct {
	Listen *string `toml:"listen"`
	NATS   *string `toml:"nats"`
}

type uiTOML struct {
	Scrollback *int64 `toml:"scrollback"`
}

type heartbeatTOML struct {
	Warn  any `toml:"warn"` // durations, as every any below unless noted
	Stale any `toml:"stale"`
	Dead  any `toml:"dead"`
}

type gameTOML struct {
	Kind *string `toml:"kind"`
	X    *string `toml:"x"`
	O    *string `toml:"o"`
}

type checksTOML struct {
	Run            *[]string `toml:"run"`
	Timeout        any       `toml:"timeout"` // a duration
	ReviewBy       *string   `toml:"review_by"`
	ReviewRequired *bool     `toml:"review_required"`
	Parallel       *int64    `toml:"parallel"`
}

type agentTOML struct {
	Name        *string        `toml:"name"`
	Kind        *string        `toml:"kind"`
	Cmd         any            `toml:"cmd"` // a string or an array of strings
	Dir         *string        `toml:"dir"`
	Env         map[string]any `toml:"env"` // strings, numbers or booleans
	Restart     *string        `toml:"restart"`
	MaxRestarts *int64         `toml:"max_restarts"`
	Quiet       any            `toml:"quiet"`
	Confirm     *bool          `toml:"confirm"`
	Brief       any            `toml:"brief"` // true, false or a string
	Worktree    *bool          `toml:"worktree"`
	Thinking    *bool          `toml:"thinking"`
	Messages    *bool          `toml:"messages"`
	Kit         *bool          `toml:"kit"`
	Checks      *[]string      `toml:"checks"`
	Scrollback  *int64         `toml:"scrollback"`
	Host        *string        `toml:"host"`
}

// wants says what each key go-toml checks by type must hold, for the error
// when it holds something else. Keys are paths with every array element as
// "#".
var wants = map[string]string{
	"base_branch":            `a string such as "main"`,
	"heartbeat":              "a table ([heartbeat])",
	"game":                   "a table ([game])",
	"game.kind":              "a string",
	"game.x":                 "a string",
	"game.o":                 "a string",
	"agent":                  "an array of tables: write [[agent]]",
	"agent.#":                "a table",
	"agent.#.name":           "a string",
	"agent.#.kind":           "one of " + strings.Join(quoteAll(profileKinds()), ", "),
	"agent.#.dir":            "a path (a non-empty string)",
	"agent.#.env":            `a table such as { FOO = "bar" }`,
	"agent.#.restart":        `"never", "on-failure" or "always"`,
	"agent.#.max_restarts":   "a whole number",
	"agent.#.confirm":        "true or false",
	"agent.#.worktree":       "true or false",
	"agent.#.thinking":       "true or false",
	"agent.#.messages":       "true or false",
	"agent.#.kit":            "true or false",
	"agent.#.checks":         `an array of shell commands such as ["go test ./..."]`,
	"agent.#.checks.#":       "a string (a shell command)",
	"checks":                 "a table ([checks])",
	"checks.run":             `an array of shell commands such as ["go build ./...", "go test ./..."]`,
	"checks.run.#":           "a string (a shell command)",
	"checks.review_by":       "an agent's name",
	"checks.review_required": "true or false",
	"checks.parallel":        "a whole number",
	"ui":                     "a table ([ui])",
	"ui.scrollback":          "a whole number of rows",
	"agent.#.scrollback":     "a whole number of rows",
	"agent.#.host":           "a host's name",
	"cluster":                "a table ([cluster])",
	"cluster.listen":         `an address such as "0.0.0.0:7422"`,
}

var envNameRx = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// configDecoder reads one file; see the steps above.
type configDecoder struct {
	file string
	dir  string // the config file's directory, absolute
	doc  *docIndex
}

// decodeConfig reads data, the file at file in directory dir (absolute).
func decodeConfig(file, dir string, data []byte) (*Config, error) {
	// Syntax first, as go-toml checks it with no type in the way: the
	// typed decoding below stops at the first value of the wrong type,
	// which may come before a syntax error.
	var syntaxOnly struct{}
	if err := toml.Unmarshal(data, &syntaxOnly); err != nil {
		return nil, syntaxError(file, err)
	}
	doc, err := indexDoc(data)
	if err != nil { // go-toml's decoder parses as its parser does: not reached
		return nil, syntaxError(file, err)
	}
	c := &configDecoder{file: file, dir: dir, doc: doc}
	if err := c.checkKeys(); err != nil {
		return nil, err
	}
	var f fileTOML
	if err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&f); err != nil {
		return nil, c.decodeError(err)
	}
	return c.config(f)
}

// checkKeys refuses the first key, in the order of the file, that its table
// does not have, or that holds an array where a table belongs or the other
// way round. go-toml's strict mode refuses unknown keys too, but it matches
// keys regardless of case (as encoding/json does), where TOML's keys are
// case-sensitive: Name is not name. And it reads a lone [agent] table as an
// array of one.
func (c *configDecoder) checkKeys() error {
	for _, path := range c.doc.paths() {
		if t := fieldType(path); t != nil && wants[genericKey(path)] != "" {
			switch {
			case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && !c.doc.writtenAsArray(path),
				decodesTable(path) && !c.doc.writtenAsTable(path):
				return c.mismatch(path)
			}
		}
		k, table := path[len(path)-1], path[:len(path)-1]
		if strings.HasPrefix(k, "#") {
			continue
		}
		known := tableKeys(table)
		if known == nil || slices.Contains(known, k) {
			continue // not a table of fields (env), or a key it has
		}
		return c.errorf(path, "unknown key %q%s%s", k, c.in(table), DidYouMean(k, known))
	}
	return nil
}

// syntaxError reads one of go-toml's errors as a syntax error in file, at
// its line and column.
func syntaxError(file string, err error) error {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &ConfigError{File: file, Msg: "syntax error: " + err.Error()}
	}
	line, col := de.Position()
	return &ConfigError{File: file, Line: line, Column: col, Msg: "syntax error: " + strings.TrimPrefix(de.Error(), "toml: ")}
}

// decodeError turns go-toml's refusal of a value of the wrong type into
// swarm's words, with what the key must hold. Anything else it refuses is
// reported in its words, as a syntax error.
func (c *configDecoder) decodeError(err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		off := c.doc.offset(de.Position())
		if path, ok := c.doc.values[off]; ok && wants[genericKey(path)] != "" {
			return c.mismatch(path)
		}
		// A table where another type belongs (name.first = "x", [agent])
		// is placed at a key inside it, or at its header.
		if path, ok := c.doc.keys[off]; ok {
			for q := path; len(q) > 0; q = q[:len(q)-1] {
				if wants[genericKey(q)] != "" && (c.doc.writtenAsTable(q) || c.doc.writtenAsArray(q)) && !decodesTable(q) {
					return c.mismatch(q)
				}
			}
		}
	}
	return syntaxError(c.file, err)
}

// mismatch says that the value at path is not what its key wants.
func (c *configDecoder) mismatch(path []string) error {
	return c.errorf(path, "%s must be %s, not %s", c.subject(path), wants[genericKey(path)], c.doc.describe(path))
}

func (c *configDecoder) errorf(path []string, format string, args ...any) error {
	return &ConfigError{File: c.file, Line: c.doc.line(path), Msg: fmt.Sprintf(format, args...)}
}

// genericKey names path's key for wants: agent/#3/kit is "agent.#.kit".
func genericKey(path []string) string {
	g := make([]string, len(path))
	for i, k := range path {
		if strings.HasPrefix(k, "#") {
			k = "#"
		}
		g[i] = k
	}
	return strings.Join(g, ".")
}

// label names the agent at agent/#i: by its name when it has a valid one,
// else by its place ("agent #2").
func (c *configDecoder) label(elem string) string {
	if name, ok := c.doc.str([]string{"agent", elem, "name"}); ok && CheckAgentName(name) == nil {
		return fmt.Sprintf("agent %q", name)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(elem, "#"))
	return fmt.Sprintf("agent #%d", n+1)
}

// subject names the key at path as the start of a sentence: "quiet",
// "heartbeat warn", "agent #2", `agent "bob": cmd element 2`.
func (c *configDecoder) subject(path []string) string {
	var b strings.Builder
	for i, k := range path {
		switch {
		case i == 1 && path[0] == "agent":
			b.Reset()
			b.WriteString(c.label(k))
			if len(path) > 2 {
				b.WriteString(":")
			}
			continue
		case strings.HasPrefix(k, "#"):
			n, _ := strconv.Atoi(k[1:])
			k = "element " + strconv.Itoa(n+1)
		}
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(k)
	}
	return b.String()
}

// in names the table at path for "unknown key": "" at the top, " in
// [heartbeat]", ` in agent "bob"`.
func (c *configDecoder) in(table []string) string {
	switch {
	case len(table) == 0:
		return ""
	case len(table) == 2 && table[0] == "agent":
		return " in " + c.label(table[1])
	default:
		return " in [" + strings.Join(table, ".") + "]"
	}
}

// fieldType returns the type of fileTOML's field for the key at path; nil
// when no field has it.
func fieldType(path []string) reflect.Type {
	t := reflect.TypeFor[fileTOML]()
	for _, k := range path {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case strings.HasPrefix(k, "#") && t.Kind() == reflect.Slice:
			t = t.Elem()
			continue
		case t.Kind() != reflect.Struct:
			return nil
		}
		f, ok := fieldByKey(t, k)
		if !ok {
			return nil
		}
		t = f.Type
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// tableKeys returns the keys the table at path may have, from the toml
// tags of the type it decodes into; nil for a table of any keys (env).
func tableKeys(path []string) []string {
	t := fieldType(path)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		keys = append(keys, tomlKey(f))
	}
	return keys
}

// decodesTable says whether the key at path holds a table.
func decodesTable(path []string) bool {
	t := fieldType(path)
	return t != nil && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map)
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		if tomlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tomlKey(f reflect.StructField) string {
	k, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return k
}

// config checks f, fills in the defaults, and returns the first problem in
// the order of the file's tables: the top level, then the agents.
func (c *configDecoder) config(f fileTOML) (*Config, error) {
	cfg := &Config{
		Quiet:     DefaultQuiet,
		Heartbeat: HeartbeatConfig{Warn: DefaultWarn, Stale: DefaultStale, Dead: DefaultDead},
	}
	var err error
	if f.BaseBranch != nil {
		if cfg.BaseBranch, err = c.branch(*f.BaseBranch); err != nil {
			return nil, err
		}
	}
	if f.Quiet != nil {
		if cfg.Quiet, err = c.duration([]string{"quiet"}, f.Quiet); err != nil {
			return nil, err
		}
	}
	if f.Heartbeat != nil {
		if err := c.heartbeat(*f.Heartbeat, &cfg.Heartbeat); err != nil {
			return nil, err
		}
	}
	if f.Game != nil {
		if err := c.game(*f.Game, &cfg.Game); err != nil {
			return nil, err
		}
	}
	if f.Checks != nil {
		if cfg.Checks, err = c.checks(*f.Checks); err != nil {
			return nil, err
		}
	}
	cfg.UI.Scrollback = spawner.DefaultScrollback
	if f.UI != nil && f.UI.Scrollback != nil {
		n, err := c.scrollback([]string{"ui", "scrollback"}, *f.UI.Scrollback)
		if err != nil {
			return nil, err
		}
		cfg.UI.Scrollback = scrollbackRows(n)
	}
	if f.Cluster != nil {
		if cfg.Cluster, err = c.cluster(*f.Cluster); err != nil {
			return nil, err
		}
	}
	if cfg.Agents, err = c.agents(f.Agents, cfg); err != nil {
		return nil, err
	}
	if err := c.checkAgents(cfg); err != nil {
		return nil, err
	}
	if g := cfg.Game; g.Kind != "" {
		for _, name := range []string{g.X, g.O} {
			if !slices.ContainsFunc(cfg.Agents, func(a AgentConfig) bool { return a.Name == name }) {
				return nil, c.errorf([]string{"game"}, "game: player %q is not an agent of this file", name)
			}
		}
	}
	return cfg, nil
}

// cluster reads [cluster]: where the hosts of this swarm connect, to the
// NATS server swarm embeds (listen) or to an existing one (nats).
func (c *configDecoder) cluster(t clusterTOML) (*ClusterConfig, error) {
	switch {
	case t.Listen != nil && t.NATS != nil:
		return nil, c.errorf([]string{"cluster", "nats"}, "[cluster] has both listen and nats: listen is for the NATS server swarm embeds, nats for an existing one; keep one")
	case t.NATS != nil:
		if err := CheckNATSURL(*t.NATS); err != nil {
			return nil, c.errorf([]string{"cluster", "nats"}, "cluster nats: %v", err)
		}
		return &ClusterConfig{NATS: *t.NATS}, nil
	case t.Listen == nil:
		return nil, c.errorf([]string{"cluster"}, "[cluster] needs listen = \"HOST:PORT\", the address hosts connect to (such as \"0.0.0.0:7422\"), or nats = \"nats://HOST:PORT\", an existing NATS server with JetStream")
	}
	if err := CheckListen(*t.Listen); err != nil {
		return nil, c.errorf([]string{"cluster", "listen"}, "cluster listen: %v", err)
	}
	return &ClusterConfig{Listen: *t.Listen}, nil
}

// checks reads [checks]; the reviewer is checked against the agents once
// they are read (checkAgents).
func (c *configDecoder) checks(t checksTOML) (*ChecksConfig, error) {
	cc := &ChecksConfig{Timeout: DefaultCheckTimeout, Parallel: checks.DefaultParallel()}
	var err error
	if t.Run != nil {
		if cc.Run, err = c.commands([]string{"checks", "run"}, *t.Run); err != nil {
			return nil, err
		}
	}
	if t.Timeout != nil {
		if cc.Timeout, err = c.duration([]string{"checks", "timeout"}, t.Timeout); err != nil {
			return nil, err
		}
	}
	if t.ReviewBy != nil {
		if err := CheckAgentName(*t.ReviewBy); err != nil {
			return nil, c.errorf([]string{"checks", "review_by"}, "checks review_by: %v", err)
		}
		cc.ReviewBy = *t.ReviewBy
	}
	if t.ReviewRequired != nil {
		if *t.ReviewRequired && cc.ReviewBy == "" {
			return nil, c.errorf([]string{"checks", "review_required"}, "checks review_required = true needs a reviewer: review_by = \"NAME\"")
		}
		cc.ReviewRequired = *t.ReviewRequired
	}
	if t.Parallel != nil {
		if n := *t.Parallel; n < 1 || n > 1000 {
			return nil, c.errorf([]string{"checks", "parallel"}, "checks parallel %d is out of range (1 to 1000)", n)
		}
		cc.Parallel = int(*t.Parallel)
	}
	return cc, nil
}

// commands reads an array of shell commands (checks run, an agent's
// checks): none may be blank.
func (c *configDecoder) commands(path []string, cmds []string) ([]string, error) {
	out := make([]string, 0, len(cmds))
	for i, cmd := range cmds {
		if strings.TrimSpace(cmd) == "" {
			ep := append(slices.Clip(path), "#"+strconv.Itoa(i))
			return nil, c.errorf(ep, "%s is empty", c.subject(ep))
		}
		out = append(out, cmd)
	}
	return out, nil
}

// checkAgents checks what [checks] says of the agents: the reviewer is one
// of them, and not one that has tasks of its own reviewed by itself only.
// An agent with checks of its own brings [checks] in with its defaults.
func (c *configDecoder) checkAgents(cfg *Config) error {
	if cfg.Checks == nil && slices.ContainsFunc(cfg.Agents, func(a AgentConfig) bool { return a.OwnChecks }) {
		cfg.Checks = &ChecksConfig{Timeout: DefaultCheckTimeout, Parallel: checks.DefaultParallel()}
	}
	if cfg.Checks == nil || cfg.Checks.ReviewBy == "" {
		return nil
	}
	name := cfg.Checks.ReviewBy
	if !slices.ContainsFunc(cfg.Agents, func(a AgentConfig) bool { return a.Name == name }) {
		names := make([]string, len(cfg.Agents))
		for i, a := range cfg.Agents {
			names[i] = a.Name
		}
		return c.errorf([]string{"checks", "review_by"}, "checks review_by %q is not an agent of this file%s", name, DidYouMean(name, names))
	}
	return nil
}

func (c *configDecoder) branch(s string) (string, error) {
	if s == "" || strings.HasPrefix(s, "-") || strings.ContainsAny(s, " \t\n~^:?*[\\") || strings.Contains(s, "..") {
		return "", c.errorf([]string{"base_branch"}, "base_branch %q is not a valid git branch name", s)
	}
	return s, nil
}

// game reads [game]: a game swarm referees between two agents.
func (c *configDecoder) game(t gameTOML, g *GameConfig) error {
	if t.Kind != nil && *t.Kind != "tictactoe" {
		return c.errorf([]string{"game", "kind"}, "game kind %q: the game swarm knows is \"tictactoe\"", *t.Kind)
	}
	g.Kind, g.X, g.O = deref(t.Kind), deref(t.X), deref(t.O)
	if g.Kind == "" || g.X == "" || g.O == "" || g.X == g.O {
		return c.errorf([]string{"game"}, "game needs kind = \"tictactoe\" and two different players: x = \"NAME\", o = \"NAME\"")
	}
	return nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (c *configDecoder) heartbeat(t heartbeatTOML, h *HeartbeatConfig) error {
	for _, k := range []struct {
		key string
		v   any
		dst *time.Duration
	}{{"warn", t.Warn, &h.Warn}, {"stale", t.Stale, &h.Stale}, {"dead", t.Dead, &h.Dead}} {
		if k.v == nil {
			continue
		}
		path := []string{"heartbeat", k.key}
		d, err := c.duration(path, k.v)
		if err != nil {
			return err
		}
		if d == 0 {
			return c.errorf(path, "heartbeat %s must be more than 0", k.key)
		}
		*k.dst = d
	}
	if h.Warn >= h.Stale || h.Stale >= h.Dead {
		return c.errorf([]string{"heartbeat"}, "heartbeat thresholds must grow: warn (%s) < stale (%s) < dead (%s)", h.Warn, h.Stale, h.Dead)
	}
	return nil
}

// duration reads the duration at path: a string with a unit, or a bare 0.
func (c *configDecoder) duration(path []string, v any) (time.Duration, error) {
	switch v := v.(type) {
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return 0, c.errorf(path, "%s %q is not a duration such as \"300ms\" or \"30s\"", c.subject(path), v)
		}
		if d < 0 {
			return 0, c.errorf(path, "%s %q is negative", c.subject(path), v)
		}
		return d, nil
	case int64:
		if v == 0 {
			return 0, nil
		}
		return 0, c.errorf(path, "%s = %d needs a unit: write \"%dms\" or \"%ds\"", c.subject(path), v, v, v)
	default:
		return 0, c.errorf(path, "%s must be a duration such as \"300ms\", not %s", c.subject(path), c.doc.describe(path))
	}
}

func (c *configDecoder) agents(list []agentTOML, cfg *Config) ([]AgentConfig, error) {
	if len(list) == 0 {
		return nil, c.errorf([]string{"agent"}, "no agents defined; add an [[agent]] table with a name and a cmd")
	}
	seen := map[string]string{} // lower-case name → as first written
	seenLine := map[string]int{}
	var agents []AgentConfig
	for i, t := range list {
		a, err := c.agent("#"+strconv.Itoa(i), t, cfg)
		if err != nil {
			return nil, err
		}
		np := []string{"agent", "#" + strconv.Itoa(i), "name"}
		key := strings.ToLower(a.Name)
		if first, dup := seen[key]; dup {
			return nil, c.errorf(np, "agent name %q is already used by the agent on line %d (%q); names must be unique, ignoring case",
				a.Name, seenLine[key], first)
		}
		seen[key], seenLine[key] = a.Name, c.doc.line(np)
		agents = append(agents, a)
	}
	return agents, nil
}

func (c *configDecoder) agent(elem string, t agentTOML, cfg *Config) (AgentConfig, error) {
	a := AgentConfig{
		Dir: c.dir, Restart: RestartOnFailure, MaxRestarts: DefaultMaxRestarts,
		Quiet: cfg.Quiet, Confirm: true, Scrollback: cfg.UI.Scrollback,
	}
	ap := []string{"agent", elem}
	at := func(key string) []string { return []string{"agent", elem, key} }

	// The name first: every later message names the agent by it.
	if t.Name == nil {
		return a, c.errorf(ap, "%s has no name", c.subject(ap))
	}
	if err := CheckAgentName(*t.Name); err != nil {
		return a, c.errorf(at("name"), "%v", err)
	}
	a.Name = *t.Name
	var err error
	if t.Kind != nil {
		if _, known := ProfileByKind(*t.Kind); !known {
			return a, c.errorf(at("kind"), "%s must be %s, not %q%s", c.subject(at("kind")), wants["agent.#.kind"], *t.Kind, DidYouMean(*t.Kind, profileKinds()))
		}
		a.Kind = *t.Kind
	}
	if t.Cmd != nil {
		if a.Argv, a.Cmd, err = c.command(at("cmd"), t.Cmd); err != nil {
			return a, err
		}
	}
	if t.Dir != nil {
		if a.Dir, err = c.workdir(at("dir"), *t.Dir); err != nil {
			return a, err
		}
	}
	if t.Env != nil {
		if a.Env, err = c.env(at("env"), t.Env); err != nil {
			return a, err
		}
	}
	if t.Restart != nil {
		if a.Restart, err = ParseRestartPolicy(*t.Restart); err != nil {
			return a, c.errorf(at("restart"), "%s: %v", c.label(elem), err)
		}
	}
	if t.MaxRestarts != nil {
		n := *t.MaxRestarts
		if n < 0 || n > 1_000_000 {
			return a, c.errorf(at("max_restarts"), "%s %d is out of range (0 or more)", c.subject(at("max_restarts")), n)
		}
		a.MaxRestarts = int(n)
	}
	if t.Quiet != nil {
		if a.Quiet, err = c.duration(at("quiet"), t.Quiet); err != nil {
			return a, err
		}
	}
	if t.Scrollback != nil {
		n, err := c.scrollback(at("scrollback"), *t.Scrollback)
		if err != nil {
			return a, err
		}
		a.Scrollback = scrollbackRows(n)
	}
	a.Confirm = t.Confirm == nil || *t.Confirm
	a.Worktree, a.Thinking = deref(t.Worktree), deref(t.Thinking)
	a.NoKit = t.Kit != nil && !*t.Kit
	if t.Checks != nil {
		if a.Checks, err = c.commands(at("checks"), *t.Checks); err != nil {
			return a, err
		}
		a.OwnChecks = true
	}
	switch b := t.Brief.(type) {
	case nil:
		// An agent CLI is told who it is and how to take part, unless its
		// config says otherwise.
		a.Brief = a.Profile().CLI()
	case bool:
		a.Brief = b
	case string:
		a.Brief, a.BriefText = true, strings.TrimSpace(b)
	default:
		return a, c.errorf(at("brief"), "%s must be true, false or a string of extra instructions, not %s", c.subject(at("brief")), c.doc.describe(at("brief")))
	}
	if a.Argv == nil {
		p, _ := ProfileByKind(a.Kind)
		if !p.CLI() {
			return a, c.errorf(ap, "%s has no cmd", c.subject(ap))
		}
		a.Argv, a.Cmd = []string{p.Commands[0]}, p.Commands[0] // the CLI the kind names
	}
	if t.Host != nil {
		if err := CheckHostName(*t.Host); err != nil {
			return a, c.errorf(at("host"), "%s: %v", c.subject(at("host")), err)
		}
		if cfg.Cluster == nil {
			return a, c.errorf(at("host"), "%s = %q needs a [cluster] table (listen = \"HOST:PORT\" or nats = \"nats://…\") for its host to connect to", c.subject(at("host")), *t.Host)
		}
		a.Host = *t.Host
		if a.Worktree {
			// A task's worktree and branch are made in this machine's
			// repository, where the host's agent cannot work: its work
			// would never reach the branch that is reviewed and merged.
			return a, c.errorf(at("worktree"), "%s = true cannot go with host = %q: a task's worktree is made in this machine's repository, and the agent works in its host's --workdir (remove one of them)", c.subject(at("worktree")), a.Host)
		}
	}
	if t.Messages != nil {
		a.NoMessages = !*t.Messages
	} else {
		a.NoMessages = a.Profile().NoMessages
	}
	return a, nil
}

// MaxScrollback bounds the scrollback setting: a million rows of a busy
// agent take about a hundred megabytes.
const MaxScrollback = 1_000_000

// scrollback reads a number of scrollback rows: 0 (none) to MaxScrollback.
func (c *configDecoder) scrollback(path []string, n int64) (int, error) {
	if n < 0 || n > MaxScrollback {
		return 0, c.errorf(path, "%s %d is out of range (0 for none, up to %d rows)", c.subject(path), n, MaxScrollback)
	}
	return int(n), nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func (c *configDecoder) command(path []string, v any) (argv []string, display string, err error) {
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return nil, "", c.errorf(path, "%s is empty", c.subject(path))
		}
		return []string{"/bin/sh", "-c", v}, v, nil
	case []any:
		if len(v) == 0 {
			return nil, "", c.errorf(path, "%s is empty", c.subject(path))
		}
		quoted := make([]string, len(v))
		for i, w := range v {
			s, ok := w.(string)
			if !ok {
				ep := append(slices.Clip(path), "#"+strconv.Itoa(i))
				return nil, "", c.errorf(ep, "%s must be a string, not %s", c.subject(ep), c.doc.describe(ep))
			}
			if i == 0 && strings.TrimSpace(s) == "" {
				return nil, "", c.errorf(path, "%s has an empty program name", c.subject(path))
			}
			argv = append(argv, s)
			quoted[i] = shellQuote(s)
		}
		return argv, strings.Join(quoted, " "), nil
	default:
		return nil, "", c.errorf(path, "%s must be a string or an array of strings, not %s", c.subject(path), c.doc.describe(path))
	}
}

func (c *configDecoder) workdir(path []string, s string) (string, error) {
	if s == "" {
		return "", c.errorf(path, "%s must be %s", c.subject(path), wants["agent.#.dir"])
	}
	dir := s
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", c.errorf(path, "%s %q: %v", c.subject(path), s, err)
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
		return "", c.errorf(path, "%s %q does not exist (%s)", c.subject(path), s, dir)
	case err != nil:
		return "", c.errorf(path, "%s %q: %v", c.subject(path), s, err)
	case !info.IsDir():
		return "", c.errorf(path, "%s %q is not a directory (%s)", c.subject(path), s, dir)
	}
	return dir, nil
}

// env reads an agent's env table, in the order of the file.
func (c *configDecoder) env(path []string, m map[string]any) (map[string]string, error) {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(c.doc.offsetOf(append(slices.Clip(path), a))-c.doc.offsetOf(append(slices.Clip(path), b)), strings.Compare(a, b))
	})
	env := make(map[string]string, len(m))
	for _, k := range names {
		kp := append(slices.Clip(path), k)
		switch {
		case !envNameRx.MatchString(k):
			return nil, c.errorf(kp, "%s: env name %q is invalid: use letters, digits and _, not starting with a digit", c.label(path[1]), k)
		case k == "SWARM_AGENT" || k == "SWARM_DIR" || k == "SWARM_TOKEN":
			return nil, c.errorf(kp, "%s is set by swarm and cannot be overridden", c.subject(kp))
		}
		switch val := m[k].(type) {
		case string:
			env[k] = val
		case int64:
			env[k] = strconv.FormatInt(val, 10)
		case bool:
			env[k] = strconv.FormatBool(val)
		default:
			return nil, c.errorf(kp, "%s must be a string, not %s", c.subject(kp), c.doc.describe(kp))
		}
	}
	return env, nil
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
