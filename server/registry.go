package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"swarm/supervisor"
	"swarm/swarmapi"
)

// Each running server leaves a note in the user's cache directory, so
// that swarm ls can find the swarms running on this machine; the note
// goes when the server closes, and one a killed server left is removed by
// the next List that finds no process behind it. A server rewrites its
// note when a client attaches or leaves.

// Running is a swarm running on this machine.
type Running struct {
	Dir     string    `json:"dir"`     // the project: the config file's directory
	BusDir  string    `json:"bus_dir"` // where its socket is
	Pid     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Clients is how many UIs are attached to it.
	Clients int `json:"clients"`
	// What List found (not kept in the note): Reachable, the swarm
	// answered on its socket, and then Agents and AgentsRunning are what
	// it said; DirGone, its bus directory is gone (removed with its
	// project, say): it cannot be reached, and Prune ends it.
	Reachable     bool `json:"reachable"`
	Agents        int  `json:"agents"`
	AgentsRunning int  `json:"agents_running"`
	// Ended: every agent has ended for good (swarmapi.Ended); with no
	// client attached, the swarm ends by itself (IdleEnd).
	Ended   bool `json:"ended"`
	DirGone bool `json:"dir_gone"`
	// Unreachable says why a swarm that runs did not answer (another
	// version of swarm, say): "" when it answered.
	Unreachable string `json:"unreachable,omitempty"`
}

// registryDir is where the notes are: in the user's cache directory,
// which is found from the environment ($XDG_CACHE_HOME, $HOME) and else
// from the user's home in the system's user database, so that a swarm
// started, or listed, without $HOME is found where the others are; ""
// when there is none at all (then swarm ls finds nothing).
func registryDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		u, uerr := user.Current()
		if uerr != nil || u.HomeDir == "" || !filepath.IsAbs(u.HomeDir) {
			return ""
		}
		d = filepath.Join(u.HomeDir, ".cache")
	}
	return filepath.Join(d, "swarm", "running")
}

func notePath(busDir string) string {
	sum := sha256.Sum256([]byte(busDir))
	return filepath.Join(registryDir(), hex.EncodeToString(sum[:8])+".json")
}

// register writes (or rewrites) the note of a server; its failure costs
// only swarm ls.
func register(r Running) error {
	if registryDir() == "" {
		return errors.New("no cache directory")
	}
	if err := os.MkdirAll(registryDir(), 0o700); err != nil {
		return err
	}
	r.Reachable, r.Agents, r.AgentsRunning, r.Ended, r.DirGone, r.Unreachable = false, 0, 0, false, false, ""
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", notePath(r.BusDir), os.Getpid())
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
// directory, each with its agents as it reports them. A note whose
// process is gone (a killed server's) is removed.
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
		if !serverAlive(r) {
			_ = os.Remove(path) // a killed server's
			continue
		}
		if _, err := os.Stat(r.BusDir); errors.Is(err, fs.ErrNotExist) {
			r.DirGone = true
		} else if cl, err := Attach(ctx, r.BusDir, program); err != nil {
			r.Unreachable = err.Error()
		} else {
			r.Reachable = true
			agents := cl.Agents()
			for _, a := range agents {
				r.Agents++
				if a.State == swarmapi.StateRunning {
					r.AgentsRunning++
				}
			}
			r.Ended = len(agents) > 0 && swarmapi.Ended(agents)
			cl.Close()
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Running) int { return strings.Compare(a.Dir, b.Dir) })
	return out, nil
}

// serverAlive says whether the process that wrote r still runs: one that
// started before the note was written (a later process that got its
// number is not it).
func serverAlive(r Running) bool {
	if syscall.Kill(r.Pid, 0) != nil {
		return false
	}
	started, ok := supervisor.ProcessStart(r.Pid)
	return !ok || !started.After(r.Started.Add(time.Second))
}

// pruneGrace is how long Prune waits for a server it asked to stop.
const pruneGrace = 10 * time.Second

// Prune ends the swarms List marks DirGone (their directory is gone, so
// swarm stop cannot reach them): SIGTERM, which stops their agents, then
// SIGKILL if one still runs after pruneGrace; and removes their notes. It
// returns those it pruned.
func Prune(ctx context.Context, program string) ([]Running, error) {
	all, err := List(ctx, program)
	if err != nil {
		return nil, err
	}
	var pruned []Running
	for _, r := range all {
		if !r.DirGone {
			continue
		}
		_ = syscall.Kill(r.Pid, syscall.SIGTERM)
		_ = syscall.Kill(r.Pid, syscall.SIGCONT) // a stopped one wakes to it
		deadline := time.Now().Add(pruneGrace)
		for serverAlive(r) && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		if serverAlive(r) {
			_ = syscall.Kill(r.Pid, syscall.SIGKILL)
		}
		unregister(r.BusDir)
		pruned = append(pruned, r)
	}
	return pruned, nil
}
