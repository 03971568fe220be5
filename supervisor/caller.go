package supervisor

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"time"

	"swarm/bus"
	"swarm/spawner"
)

// Who runs a swarm command. Each agent's process gets a secret token in
// its environment ($SWARM_TOKEN, new at every start, its SHA-256 on the
// bus), and runs in a session of its own. A command is the agent's whose
// token it holds, else the agent's it runs under (its process's ancestors
// or session), else the human's — unless it runs under the swarm's own
// process: then it is an agent's whose pid swarm has not recorded yet, and
// it waits for the record; or one that left its agent (a daemon: setsid,
// a double fork), which the swarm, its agents' subreaper, adopted
// (descendants.go), and it acts for no one. $SWARM_AGENT only names the caller and
// must agree: it cannot make a command an agent's it is not, nor the
// human's from inside an agent. So the human's review commands cannot run
// inside an agent's environment, whatever it unsets.
//
// This guards against mistakes and confused agents, not against a hostile
// user account: anything that can write bus.db, or read an agent's
// environment, can still act as anyone.

// Caller is who runs a command.
type Caller struct {
	Name  string // an agent's name, or bus.Human
	Agent bool   // Name is an agent of the swarm
}

// Process is the process that runs a command: its pid, and when it
// started (in clock ticks after boot), which tells it from a later
// process the kernel gave the same pid. The zero Process is this one.
type Process struct {
	Pid   int
	Start uint64
}

// ProcessOf returns the process that runs as pid now; false when none
// does.
func ProcessOf(pid int) (Process, bool) {
	p, ok := spawner.ReadProc(pid)
	if !ok {
		return Process{}, false
	}
	return Process{Pid: pid, Start: p.Start}, true
}

// Alive refuses a process that has ended, or whose pid another process
// has taken since: who it was cannot be told any more, and a process that
// is gone must not pass for the human (nor the one that took its pid for
// it).
func (p Process) Alive() error {
	if p.Pid <= 0 {
		return errors.New("the process that runs this is unknown")
	}
	if now, ok := ProcessOf(p.Pid); !ok || now.Start != p.Start {
		return fmt.Errorf("the process that asked (pid %d) has ended: who it was cannot be told", p.Pid)
	}
	return nil
}

// newToken returns a fresh agent token.
func newToken() string { return rand.Text() }

// WhoIsCalling tells who runs a command against b, from the environment
// of the process that runs it (getenv) and that process's place among the
// agents' processes: proc, or this process when proc is zero (a running
// swarm asks about the process at the other end of its socket). A process
// that has ended, before or while it is judged, is nobody (Process.Alive).
func WhoIsCalling(ctx context.Context, b *bus.Bus, getenv func(string) string, proc Process) (Caller, error) {
	if proc == (Process{}) {
		self, ok := ProcessOf(os.Getpid())
		if !ok {
			return Caller{}, errors.New("this process is not in /proc")
		}
		proc = self
	}
	if err := proc.Alive(); err != nil {
		return Caller{}, err
	}
	c, err := whoIs(ctx, b, getenv, proc.Pid)
	if err != nil {
		return Caller{}, err
	}
	// A process that ended meanwhile was judged by what was left of it:
	// nothing, or another process that took its pid.
	if err := proc.Alive(); err != nil {
		return Caller{}, err
	}
	return c, nil
}

// whoIs is WhoIsCalling for a process that runs.
func whoIs(ctx context.Context, b *bus.Bus, getenv func(string) string, pid int) (Caller, error) {
	claimed := getenv("SWARM_AGENT")
	if claimed == bus.Swarm {
		return Caller{}, errors.New(`$SWARM_AGENT is "swarm", which only swarm itself may use`)
	}
	if token := getenv("SWARM_TOKEN"); token != "" {
		a, err := b.AgentByToken(ctx, token)
		if errors.Is(err, bus.ErrNotFound) {
			return Caller{}, errors.New("$SWARM_TOKEN is no agent's token in this swarm: it is from an agent's earlier process, or another swarm ($SWARM_DIR)")
		}
		if err != nil {
			return Caller{}, err
		}
		if claimed != "" && claimed != a.Name {
			return Caller{}, fmt.Errorf("$SWARM_AGENT is %q, but $SWARM_TOKEN is agent %s's", claimed, a.Name)
		}
		return Caller{Name: a.Name, Agent: true}, nil
	}
	agents, err := b.Agents(ctx)
	if err != nil {
		return Caller{}, err
	}
	a, ok := agentAbove(pid, agents)
	if !ok && descendsFromSwarm(b, pid) {
		// An agent's process can run a command before swarm has recorded
		// its pid (the moment after it started): wait for the record.
		if a, ok, err = awaitAgentAbove(ctx, b, pid); err != nil {
			return Caller{}, err
		}
		if !ok {
			return Caller{}, errors.New("this runs below the swarm's process, but in none of its agents' processes or sessions and " +
				"without an agent's $SWARM_TOKEN: a process that left its agent (setsid, a double fork) acts for no one")
		}
	}
	if ok {
		if claimed != "" && claimed != a.Name {
			return Caller{}, fmt.Errorf("$SWARM_AGENT is %q, but this runs inside agent %s", claimed, a.Name)
		}
		return Caller{Name: a.Name, Agent: true}, nil
	}
	if claimed != "" && claimed != bus.Human {
		if err := bus.ValidName(claimed); err != nil {
			return Caller{}, fmt.Errorf("$SWARM_AGENT: %w", err)
		}
		for _, a := range agents {
			if a.Name == claimed {
				return Caller{}, fmt.Errorf("$SWARM_AGENT is %q, but this is not agent %s's process: it has no $SWARM_TOKEN and does not run inside %s", claimed, claimed, claimed)
			}
		}
		return Caller{}, fmt.Errorf("$SWARM_AGENT: %w %q", bus.ErrUnknownAgent, claimed)
	}
	return Caller{Name: bus.Human}, nil
}

// recordWait bounds how long a command run inside an agent waits for
// swarm to record the agent's pid.
const recordWait = 2 * time.Second

// awaitAgentAbove looks for the agent above pid each time the bus
// changes, until recordWait passes.
func awaitAgentAbove(ctx context.Context, b *bus.Bus, pid int) (bus.Agent, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, recordWait)
	defer cancel()
	changed, stop := b.Subscribe()
	defer stop()
	for {
		agents, err := b.Agents(ctx)
		switch {
		case ctx.Err() != nil:
			return bus.Agent{}, false, nil
		case err != nil:
			return bus.Agent{}, false, err
		}
		if a, ok := agentAbove(pid, agents); ok {
			return a, true, nil
		}
		select {
		case <-ctx.Done():
			return bus.Agent{}, false, nil
		case <-changed:
		}
	}
}

// descendsFromSwarm says whether pid is a descendant (not itself) of the
// process of the swarm running on b: its agents and what they start,
// which stay below it however they leave (the swarm is their subreaper).
func descendsFromSwarm(b *bus.Bus, pid int) bool {
	swarm, running := SwarmRunning(b.Dir())
	if !running || swarm <= 1 || pid == swarm {
		return false
	}
	for p, hops := pid, 0; p > 1 && hops < 64; hops++ {
		proc, ok := spawner.ReadProc(p)
		if !ok {
			return false
		}
		if proc.Parent == swarm {
			return true
		}
		p = proc.Parent
	}
	return false
}

// agentAbove returns the running agent whose process pid descends from,
// or whose session it is in.
func agentAbove(pid int, agents []bus.Agent) (bus.Agent, bool) {
	p, ok := spawner.ReadProc(pid)
	if !ok {
		return bus.Agent{}, false
	}
	a, _ := agentOf(p, nil, agents)
	return a, a.Name != ""
}
