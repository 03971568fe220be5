package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"swarm/supervisor"
)

// Each running server leaves a note in the user's cache directory, so
// that swarm ls can find the swarms running on this machine; the note
// goes when the server closes, and one a killed server left is removed by
// the next List that finds no process behind it.

// Running is a swarm running on this machine.
type Running struct {
	Dir     string    `json:"dir"`     // the project: the config file's directory
	BusDir  string    `json:"bus_dir"` // where its socket is
	Pid     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Agents and AgentsRunning are what the swarm answered when List
	// asked (not kept in the note).
	Agents        int `json:"agents"`
	AgentsRunning int `json:"agents_running"`
}

// registryDir is where the notes are; "" when the user has no cache
// directory (then swarm ls finds nothing).
func registryDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "swarm", "running")
}

func notePath(busDir string) string {
	sum := sha256.Sum256([]byte(busDir))
	return filepath.Join(registryDir(), hex.EncodeToString(sum[:8])+".json")
}

// register writes the note of a server; its failure costs only swarm ls.
func register(r Running) error {
	if registryDir() == "" {
		return errors.New("no cache directory")
	}
	if err := os.MkdirAll(registryDir(), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tmp := notePath(r.BusDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, notePath(r.BusDir))
}

func unregister(busDir string) {
	if registryDir() != "" {
		_ = os.Remove(notePath(busDir))
	}
}

// List returns the swarms running on this machine for this user, by
// directory, each with its agents as it reports them.
func List(ctx context.Context, program string) ([]Running, error) {
	dir := registryDir()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || dir == "" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Running
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var r Running
		if json.Unmarshal(b, &r) != nil || r.Pid <= 0 {
			_ = os.Remove(path)
			continue
		}
		if syscall.Kill(r.Pid, 0) != nil {
			_ = os.Remove(path) // a killed server's
			continue
		}
		if cl, err := Attach(ctx, r.BusDir, program); err == nil {
			for _, a := range cl.Agents() {
				r.Agents++
				if a.State == supervisor.StateRunning {
					r.AgentsRunning++
				}
			}
			cl.Close()
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Running) int { return strings.Compare(a.Dir, b.Dir) })
	return out, nil
}
