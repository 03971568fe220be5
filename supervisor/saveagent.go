package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
)

// ErrNoConfigFile is returned by SaveAgent when the swarm runs without a
// config file (the demo).
var ErrNoConfigFile = errors.New("this swarm has no config file")

// ConfigFile is the config file the swarm was started from, "" for none.
func (s *Supervisor) ConfigFile() string {
	if s.opts.Config == nil {
		return ""
	}
	return s.opts.Config.Path
}

// SaveAgent adds an agent started while the swarm runs (its name and
// command, and its directory when not the project's) to the config file,
// so that the next swarm starts it too. The file's own text, comments
// included, is kept: the agent's table is appended at the end. The result
// is read as a config first; if it would not load (the file names the
// agent already, or was broken meanwhile) the file is left as it was and
// the error says why.
func (s *Supervisor) SaveAgent(name string) error {
	path := s.ConfigFile()
	if path == "" {
		return ErrNoConfigFile
	}
	a, err := s.agent(name)
	if err != nil {
		return fmt.Errorf("save agent %s: %w", name, err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("save agent %s: %w", name, err)
	}
	entry := agentTOML{Name: &a.cfg.Name, Cmd: a.cfg.Cmd}
	if dir := a.cfg.Dir; dir != "" && dir != filepath.Dir(path) {
		entry.Dir = &dir
	}
	table, err := toml.Marshal(fileTOML{Agents: []agentTOML{entry}})
	if err != nil {
		return fmt.Errorf("save agent %s: %w", name, err)
	}
	text := bytes.TrimRight(old, "\n")
	text = append(text, "\n\n# Added from the UI.\n"...)
	text = append(text, table...)
	// A file edited meanwhile may already name the agent, or no longer
	// load: then it is not touched.
	if _, err := ParseConfig(path, text); err != nil {
		return fmt.Errorf("save agent %s: with it the file would not load: %w", name, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("save agent %s: %w", name, err)
	}
	// A new file renamed over the old one: a crash mid-write cannot leave
	// half a config.
	tmp := path + ".swarm-save"
	if err := os.WriteFile(tmp, text, info.Mode().Perm()); err != nil {
		return fmt.Errorf("save agent %s: %w", name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save agent %s: %w", name, err)
	}
	return nil
}
