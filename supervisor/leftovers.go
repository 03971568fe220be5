package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"swarm/bus"
	"swarm/spawner"
)

// A swarm that is killed (SIGKILL, a crash, the machine's OOM killer)
// cannot stop its agents. Each agent's process gets SIGKILL when swarm
// dies (spawner sets a parent-death signal), and the terminal hangs up on
// the rest of its process group; a program that ignores the hang-up and
// was not the group's leader lives on. The next swarm on the same bus ends
// what the last one left: every process group the bus records as an
// agent's running process, if that process is still the one that was
// started (its start time matches), gets SIGTERM, then SIGKILL.

// leftoverGrace is how long a leftover agent gets between SIGTERM and
// SIGKILL.
const leftoverGrace = 2 * time.Second

// endLeftovers ends the agents' processes a killed swarm left running and
// records those agents as stopped. It runs under the bus's lock, before
// any agent starts.
func (s *Supervisor) endLeftovers(ctx context.Context) {
	known, err := s.bus.Agents(ctx)
	if err != nil {
		s.log.Warn("list agents", "err", err)
		return
	}
	var groups []int
	for _, a := range known {
		if a.Pid <= 0 || a.State == bus.AgentStopped || a.State == bus.AgentExited || a.State == bus.AgentRemoved {
			continue
		}
		// It ended unseen (or lives on): what it was shown last may not
		// have been read, as after a crash.
		if n, err := s.bus.RequeueLast(ctx, a.Name, requeueWindow); err != nil {
			s.log.Warn("requeue", "agent", a.Name, "err", err)
		} else if n > 0 {
			s.log.Info("the last swarm ended without stopping the agent: its last messages are delivered again", "agent", a.Name, "messages", n)
		}
		if LeftRunning(a) {
			groups = append(groups, a.Pid)
			s.log.Warn("ending what the last swarm left running", "agent", a.Name, "pgid", a.Pid)
			s.hub.emit(Event{Kind: EventNotice, Agent: a.Name, Text: fmt.Sprintf(
				"the last swarm ended without stopping %s: its processes (group %d) are ended now", a.Name, a.Pid)})
		}
		st := bus.AgentStatus{State: bus.AgentStopped, Reason: "the last swarm ended without stopping it"}
		if err := s.bus.SetAgentState(ctx, a.Name, st); err != nil {
			s.log.Warn("record leftover", "agent", a.Name, "err", err)
		}
	}
	endGroups(groups, leftoverGrace)
	if left := strays(s.busDir()); len(left) > 0 {
		s.log.Warn("ending what the last swarm's agents left running", "processes", describeProcs(left))
		s.hub.emit(Event{Kind: EventNotice, Text: "the last swarm ended without stopping what its agents left running: ended now: " + describeProcs(left)})
		endProcs(nil, left, leftoverGrace)
	}
}

// strays returns the processes an agent of a swarm on busDir started
// that outlived that swarm outside the agent's process group (a daemon
// that ignores the hang-up): their environment names the bus and holds an
// agent's token. Only those older than this process, and not above it.
func strays(busDir string) []spawner.Proc {
	table := spawner.Processes()
	self, ok := table[os.Getpid()]
	if !ok {
		return nil
	}
	above := map[int]bool{}
	for p, hops := self, 0; p.Pid > 1 && hops < 64; hops++ {
		above[p.Pid] = true
		if p, ok = table[p.Parent]; !ok {
			break
		}
	}
	var out []spawner.Proc
	for _, p := range table {
		if above[p.Pid] || p.State == 'Z' || p.Start >= self.Start {
			continue
		}
		if env := environ(p.Pid); env["SWARM_TOKEN"] != "" && filepath.Clean(env["SWARM_DIR"]) == filepath.Clean(busDir) {
			out = append(out, p)
		}
	}
	return out
}

// endGroups sends SIGTERM to each process group, and SIGKILL to those
// still there after grace.
func endGroups(groups []int, grace time.Duration) {
	if len(groups) == 0 {
		return
	}
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := false
		for _, g := range groups {
			alive = alive || groupAlive(g)
		}
		if !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
}

// StaleRecord is what a record of an agent as starting or running means
// when no swarm runs on the bus (swarm status reads it so): the swarm that
// wrote it was killed. Its process may live on (orphaned), and the next
// swarm up ends it; else the agent is stopped.
func StaleRecord(h bus.Health) bus.Health {
	if h.Agent.State != bus.AgentRunning && h.Agent.State != bus.AgentStarting {
		return h
	}
	h.Alive, h.Level = false, bus.LevelDead
	if LeftRunning(h.Agent) {
		h.Agent.State = bus.AgentOrphaned
		h.Agent.Reason = fmt.Sprintf("swarm is not running; process %d lives on: the next swarm up ends it", h.Agent.Pid)
		return h
	}
	h.Agent.State = bus.AgentStopped
	h.Agent.Reason = "swarm is not running; it ended without recording this agent's end"
	return h
}

// LeftRunning reports whether the process the bus records for agent a
// still runs (its group has a process that is not a zombie): what a
// killed swarm left, which the next one ends.
func LeftRunning(a bus.Agent) bool {
	if a.Pid <= 0 || !groupAlive(a.Pid) {
		return false
	}
	// The leader may be gone while its group lives on (a shell the hang-up
	// killed, its child that ignores it not). The kernel gives no new
	// process a number a group still bears, so then the group is the
	// agent's. A leader that is there must be the agent's own process, not
	// a later one that got its number after the group was gone.
	if _, ok := spawner.ReadProc(a.Pid); !ok {
		return true
	}
	return isAgentProcess(a, a.Pid)
}

// isAgentProcess reports whether process pid is the one the bus records
// for agent a, not a later process that reuses its number: it started
// when a entered running (within the seconds a start takes).
func isAgentProcess(a bus.Agent, pid int) bool {
	started, ok := ProcessStart(pid)
	return ok && (a.Started.IsZero() || started.Sub(a.Started).Abs() < 10*time.Second)
}

// ProcessStart returns when process pid started, from /proc (Linux);
// false when it does not exist or that cannot be told.
func ProcessStart(pid int) (time.Time, bool) {
	p, ok := spawner.ReadProc(pid)
	if !ok {
		return time.Time{}, false
	}
	boot, err := bootTime()
	if err != nil {
		return time.Time{}, false
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux architecture swarm runs on
	return boot.Add(time.Duration(p.Start) * time.Second / clockTicks), true
}

// groupAlive reports whether process group pgid has a process that is not
// a zombie: the children of a killed swarm stay zombies until their new
// parent reaps them, and a zombie runs nothing.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	for _, p := range spawner.Processes() {
		if p.Group == pgid && p.State != 'Z' {
			return true
		}
	}
	return false
}

func bootTime() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(secs, 0), err
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
}
