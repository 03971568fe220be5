package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"swarm/bus"
	"swarm/spawner"
)

// What an agent leaves running. An agent's process leads a session and a
// process group of its own; what it starts stays in them unless it leaves
// (setsid, a daemon's double fork), and then neither the terminal's
// hang-up nor the end of the group reaches it. A running swarm is the
// child subreaper of its agents (spawner.Subreaper): whatever an agent
// starts stays below the swarm's process however it leaves, and its
// environment keeps the token swarm gave the agent's process unless it
// drops it. So a process below the swarm, outside the swarm's own session
// (where swarm's own helpers, git, run), is an agent's:
//
//   - the agent's whose process it runs below, or in whose session it is;
//   - else the agent's whose token its environment holds;
//   - else an agent's that cannot be told: it left and dropped the token.
//
// When an agent's process ends, swarm ends what that process left (in its
// session or holding its token): SIGTERM, then SIGKILL after the stop
// grace. When the swarm stops it ends everything still below it. `swarm
// status` lists the processes that left their agent's session while they
// run. A swarm killed outright cannot end anything: the next swarm on the
// bus ends the processes whose environment names its bus and holds a
// token (endLeftovers).

// Detached is a process an agent started that left the agent's session.
type Detached struct {
	Pid   int    `json:"pid"`
	Name  string `json:"name"`  // the program, as the kernel names it
	Agent string `json:"agent"` // whose it is; "" when that cannot be told
}

// DetachedProcesses returns the processes below the swarm running on b
// that left their agent's session, the agents' they can be told to be;
// none when no swarm runs there.
func DetachedProcesses(ctx context.Context, b *bus.Bus) ([]Detached, error) {
	swarm, running := SwarmRunning(b.Dir())
	if !running || swarm <= 1 {
		return nil, nil
	}
	agents, err := b.Agents(ctx)
	if err != nil {
		return nil, err
	}
	table := spawner.Processes()
	var out []Detached
	for _, p := range swarmDescendants(table, swarm) {
		if isAgentPid(p, agents) {
			continue
		}
		a, inSession := agentOf(p, table, agents)
		if inSession {
			continue // it ends with the agent's session
		}
		if a.Name == "" {
			if found, err := b.AgentByToken(ctx, environ(p.Pid)["SWARM_TOKEN"]); err == nil {
				a = found
			}
		}
		out = append(out, Detached{Pid: p.Pid, Name: p.Name, Agent: a.Name})
	}
	slices.SortFunc(out, func(x, y Detached) int { return x.Pid - y.Pid })
	return out, nil
}

// swarmDescendants returns the processes below the swarm's process swarm
// through its children outside its session: its agents' processes and
// what they started. Its children in its session (git, or another swarm
// a test runs) and what is below them are not its agents'.
func swarmDescendants(table map[int]spawner.Proc, swarm int) []spawner.Proc {
	own := table[swarm]
	var out []spawner.Proc
	for _, c := range table {
		if c.Parent != swarm || c.Session == own.Session && own.Pid != 0 {
			continue
		}
		for _, p := range append([]spawner.Proc{c}, spawner.Below(table, c.Pid)...) {
			if p.State != 'Z' {
				out = append(out, p)
			}
		}
	}
	return out
}

// isAgentPid says whether p is a running agent's own process.
func isAgentPid(p spawner.Proc, agents []bus.Agent) bool {
	for _, a := range agents {
		if a.Pid == p.Pid && running(a) {
			return true
		}
	}
	return false
}

func running(a bus.Agent) bool {
	return a.Pid > 0 && (a.State == bus.AgentRunning || a.State == bus.AgentStarting)
}

// agentOf returns the running agent p runs below or in the session of
// (inSession: the session is the agent's, and ends with it), or no agent.
// A daemon that left its parent keeps the session unless it made its own.
// The processes are read from table, or from /proc when it is nil.
func agentOf(p spawner.Proc, table map[int]spawner.Proc, agents []bus.Agent) (a bus.Agent, inSession bool) {
	byPid := map[int]bus.Agent{}
	for _, a := range agents {
		if running(a) {
			byPid[a.Pid] = a
		}
	}
	if len(byPid) == 0 {
		return bus.Agent{}, false
	}
	if a, ok := byPid[p.Session]; ok && isAgentProcess(a, p.Session) {
		return a, true
	}
	for cur, hops := p, 0; cur.Pid > 1 && hops < 64; hops++ {
		if a, ok := byPid[cur.Pid]; ok && isAgentProcess(a, cur.Pid) {
			return a, false
		}
		next, ok := lookup(table, cur.Parent)
		if !ok {
			break
		}
		cur = next
	}
	return bus.Agent{}, false
}

// lookup finds pid in table, or in /proc without one.
func lookup(table map[int]spawner.Proc, pid int) (spawner.Proc, bool) {
	if table == nil {
		return spawner.ReadProc(pid)
	}
	p, ok := table[pid]
	return p, ok
}

// environ returns the environment process pid started with (empty when it
// cannot be read: another user's, or gone).
func environ(pid int) map[string]string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return nil
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && strings.HasPrefix(k, "SWARM_") {
			env[k] = v
		}
	}
	return env
}

// leftBehind returns what an agent's process pid, started with token, left
// running below the swarm: what is still in its session, and what holds
// its token.
func (s *Supervisor) leftBehind(pid int, token string) []spawner.Proc {
	table := spawner.Processes()
	var out []spawner.Proc
	for _, p := range swarmDescendants(table, os.Getpid()) {
		if p.Session == pid || token != "" && environ(p.Pid)["SWARM_TOKEN"] == token {
			out = append(out, p)
		}
	}
	return out
}

// endLeftBehind ends what agent a's process pid, started with token, left
// running, and says so in its log. What is in the process's session was
// told already, by the stop's SIGTERM to its group or by the terminal's
// hang-up: a second signal would cut short what it does on the first (vim
// saving its swap file gives up at a second one), so it gets the stop
// grace to end, then SIGKILL. What left the session gets SIGTERM first.
func (a *agent) endLeftBehind(pid int, token string) {
	left := a.s.leftBehind(pid, token)
	if len(left) == 0 {
		return
	}
	a.outLog.mark("ending what %s left running: %s", a.cfg.Name, describeProcs(left))
	a.s.log.Info("ending what the agent left running", "agent", a.cfg.Name, "processes", describeProcs(left))
	var told, untold []spawner.Proc
	for _, p := range left {
		if p.Session == pid {
			told = append(told, p)
		} else {
			untold = append(untold, p)
		}
	}
	endProcs(told, untold, a.s.opts.StopGrace)
}

// runs are the agents' processes of the swarms running in this process
// (tests run several): the session each leads and the token it got, by
// the supervisor that started it, until that one has shut down.
var runs struct {
	mu       sync.Mutex
	sessions map[int]*Supervisor
	tokens   map[string]*Supervisor
	live     map[*Supervisor]bool
}

// noteRun records that s started an agent's process pid with token.
func noteRun(s *Supervisor, pid int, token string) {
	runs.mu.Lock()
	defer runs.mu.Unlock()
	if runs.sessions == nil {
		runs.sessions, runs.tokens, runs.live = map[int]*Supervisor{}, map[string]*Supervisor{}, map[*Supervisor]bool{}
	}
	runs.sessions[pid], runs.tokens[token], runs.live[s] = s, s, true
}

// forgetRuns drops what noteRun recorded of s.
func forgetRuns(s *Supervisor) {
	runs.mu.Lock()
	defer runs.mu.Unlock()
	for k, o := range runs.sessions {
		if o == s {
			delete(runs.sessions, k)
		}
	}
	for k, o := range runs.tokens {
		if o == s {
			delete(runs.tokens, k)
		}
	}
	delete(runs.live, s)
}

// ownerOf returns the swarm of this process whose agent p is by its
// session or token, or nil; alone says whether s is the only one running.
func ownerOf(s *Supervisor, p spawner.Proc) (owner *Supervisor, alone bool) {
	token := environ(p.Pid)["SWARM_TOKEN"]
	runs.mu.Lock()
	defer runs.mu.Unlock()
	owner = runs.sessions[p.Session]
	if owner == nil && token != "" {
		owner = runs.tokens[token]
	}
	for o := range runs.live {
		if o != s {
			return owner, false
		}
	}
	return owner, true
}

// endDescendants ends every process still below the swarm's own, outside
// its session, that is its agents': what they left that no agent's end
// took with it. One whose agent cannot be told is ended when this is the
// only swarm in the process.
func (s *Supervisor) endDescendants() {
	defer forgetRuns(s)
	var left []spawner.Proc
	for _, p := range swarmDescendants(spawner.Processes(), os.Getpid()) {
		if owner, alone := ownerOf(s, p); owner == s || owner == nil && alone {
			left = append(left, p)
		}
	}
	if len(left) == 0 {
		return
	}
	s.log.Info("ending what the agents left running", "processes", describeProcs(left))
	endProcs(nil, left, s.opts.StopGrace)
}

func describeProcs(ps []spawner.Proc) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (pid %d)", p.Name, p.Pid)
	}
	return b.String()
}

// endProcs ends processes: untold, SIGTERM, then SIGKILL after grace;
// told (signalled already), nothing for the grace, then SIGTERM and
// SIGKILL after another. Each is held by a pidfd from before the first
// signal, so a number the kernel gives to another process meanwhile is
// never signalled.
func endProcs(told, untold []spawner.Proc, grace time.Duration) {
	type held struct {
		p    spawner.Proc
		fd   int
		told bool
	}
	var hs []held
	for i, p := range append(slices.Clone(told), untold...) {
		fd, err := unix.PidfdOpen(p.Pid, 0)
		if err != nil {
			continue // gone already
		}
		if now, ok := spawner.ReadProc(p.Pid); !ok || now.Start != p.Start {
			unix.Close(fd) // another process now has the number
			continue
		}
		hs = append(hs, held{p, fd, i < len(told)})
	}
	defer func() {
		for _, h := range hs {
			unix.Close(h.fd)
		}
		spawner.Reap() // those that ended while held here
	}()
	alive := func() []held {
		var out []held
		for _, h := range hs {
			// A pidfd reads as ready once its process has ended.
			fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
			if n, err := unix.Poll(fds, 0); err == nil && n == 0 {
				out = append(out, h)
			}
		}
		return out
	}
	wait := func() {
		deadline := time.Now().Add(grace)
		for len(alive()) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	signal := func(told bool, sig unix.Signal) {
		for _, h := range alive() {
			if h.told == told {
				_ = unix.PidfdSendSignal(h.fd, sig, nil, 0)
			}
		}
	}
	signal(false, unix.SIGTERM)
	wait()
	// The told that are still there after the grace: SIGTERM now (a
	// background job the hang-up did not reach was not told after all),
	// and one more grace; the untold: SIGKILL.
	signal(true, unix.SIGTERM)
	signal(false, unix.SIGKILL)
	if slices.ContainsFunc(alive(), func(h held) bool { return h.told }) {
		wait()
	}
	for _, h := range alive() {
		_ = unix.PidfdSendSignal(h.fd, unix.SIGKILL, nil, 0)
	}
}
