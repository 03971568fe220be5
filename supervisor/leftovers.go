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
	if _, ok := procStat(a.Pid); !ok {
		return true
	}
	return isAgentProcess(a, a.Pid)
}

// isAgentProcess reports whether process pid is the one the bus records
// for agent a, not a later process that reuses its number: it started
// when a entered running (within the seconds a start takes).
func isAgentProcess(a bus.Agent, pid int) bool {
	started, ok := processStart(pid)
	return ok && (a.Started.IsZero() || started.Sub(a.Started).Abs() < 10*time.Second)
}

// processStart returns when process pid started, from /proc (Linux); false
// when it does not exist or that cannot be told.
func processStart(pid int) (time.Time, bool) {
	fields, ok := procStat(pid)
	if !ok || len(fields) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64) // starttime, field 22
	if err != nil {
		return time.Time{}, false
	}
	boot, err := bootTime()
	if err != nil {
		return time.Time{}, false
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux architecture swarm runs on
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks), true
}

// groupAlive reports whether process group pgid has a process that is not
// a zombie: the children of a killed swarm stay zombies until their new
// parent reaps them, and a zombie runs nothing.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := procStat(pid); ok && len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// procStat returns the fields of /proc/PID/stat after the command name:
// [0] is the state (field 3), [1] the parent pid, [3] the session.
func procStat(pid int) ([]string, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	// The command name, in parentheses, may hold blanks: fields count
	// from after its closing parenthesis.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
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
