package swarmapi

import (
	"errors"
	"fmt"
	"time"

	"swarm/bus"
)

// Errors a client may test for with errors.Is, wherever the swarm runs.
var (
	ErrUnknownAgent = errors.New("unknown agent")
	ErrAgentExists  = errors.New("agent already exists")
)

// AgentState is where an agent is in its life.
type AgentState int

// Agent states.
const (
	StateStarting AgentState = iota // about to start (or starting again)
	StateRunning                    // its process runs
	StateBackoff                    // exited; a restart is scheduled
	StateExited                     // exited and the policy does not restart it
	StateStopped                    // stopped on request
	StateGaveUp                     // crash loop: max_restarts reached
)

// agentStateNames are the states as the bus records them.
var agentStateNames = [...]string{bus.AgentStarting, bus.AgentRunning, bus.AgentBackoff, bus.AgentExited, bus.AgentStopped, bus.AgentGaveUp}

// String returns the state's name as shown in UIs and on the bus.
func (s AgentState) String() string {
	if int(s) < len(agentStateNames) {
		return agentStateNames[s]
	}
	return "unknown"
}

// AgentInfo is a snapshot of an agent's runtime state.
type AgentInfo struct {
	Name       string
	Cmd        string
	State      AgentState
	Reason     string // why it is not running, when it is not
	Pid        int
	ExitCode   int
	Restarts   int // restarts since the last stable run
	Started    time.Time
	LastOutput time.Time
	Level      bus.Level
	Rows, Cols int
	// Worktree: it works in a worktree per task (worktree = true), and
	// its next task starts it again when it has exited.
	Worktree bool
	// Held counts the messages waiting because a person has typed into
	// the agent since their last Enter.
	Held int
	// Turn is what the agent CLI's hooks last said: working, idle or
	// needs-human (not Known for programs without hooks).
	Turn Turn
	// LogProblem says why its output log cannot be written now (a full
	// disk…); "" while it can.
	LogProblem string
}

// Turn is what an agent CLI's hooks last said of the agent.
type Turn struct {
	Status bus.Status // StatusWorking, StatusIdle or StatusNeedsHuman
	Hook   string     // the hook that said so: prompt, stop, notification, notify
	Note   string     // what it waits for, in a line safe to print
	At     time.Time  // zero: no hook has said anything since it started
}

// Known says whether a hook has said anything of the agent's current
// process.
func (t Turn) Known() bool { return !t.At.IsZero() }

// String says the turn in words for the event log: "idle (stop hook)".
func (t Turn) String() string {
	what := map[bus.Status]string{bus.StatusWorking: "working", bus.StatusIdle: "idle", bus.StatusNeedsHuman: "needs you"}[t.Status]
	if t.Note != "" {
		what += ": " + t.Note
	}
	if t.Hook != "" {
		what += fmt.Sprintf(" (%s hook)", t.Hook)
	}
	return what
}

// StateWord is the agent's state in a word for a person: while its
// process runs and its CLI's hooks have said where its turn is, the turn
// (working, idle, needs-human); else the process's state.
func (a AgentInfo) StateWord() string {
	if a.State == StateRunning && a.Turn.Known() {
		return a.Turn.Status.String()
	}
	return a.State.String()
}

// Ended reports whether every one of agents is down for good, from their
// snapshots: stopped, given up, or exited under a restart policy that
// leaves it down (an agent with a worktree per task is started again by
// its next task: it has not ended). Only a person can bring such a swarm
// back to life.
func Ended(agents []AgentInfo) bool {
	for _, a := range agents {
		switch a.State {
		case StateStopped, StateGaveUp:
		case StateExited:
			if a.Worktree {
				return false
			}
		default:
			return false
		}
	}
	return true
}
