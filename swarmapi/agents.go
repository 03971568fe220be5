package swarmapi

import (
	"errors"
	"fmt"
	"time"

	"swarm/bus"
	"swarm/screenmodel"
)

// Errors a client may test for with errors.Is, wherever the swarm runs.
var (
	ErrUnknownAgent = errors.New("unknown agent")
	ErrAgentExists  = errors.New("agent already exists")
)

// ErrBadAgentName is wrapped by CheckAgentName's errors.
var ErrBadAgentName = errors.New("bad agent name")

// CheckAgentName reports whether name can name an agent: it matches
// [A-Za-z0-9][A-Za-z0-9_.-]{0,63} and is not reserved (swarm, human and *,
// in any case). The error is one line naming the problem.
func CheckAgentName(name string) error {
	switch {
	case bus.Reserved(name):
		return &nameError{fmt.Sprintf("agent name %q is reserved (swarm, human and * are not agents)", name)}
	case bus.ValidName(name) != nil:
		return &nameError{fmt.Sprintf("agent name %q is invalid: use 1 to 64 letters, digits, _ . - starting with a letter or digit", name)}
	}
	return nil
}

// nameError reads as its message alone and matches ErrBadAgentName.
type nameError struct{ msg string }

func (e *nameError) Error() string { return e.msg }
func (e *nameError) Unwrap() error { return ErrBadAgentName }

// NewAgent is an agent to start while the swarm runs (the UI's "new
// agent"): Cmd runs with /bin/sh -c in Dir.
type NewAgent struct {
	Name, Cmd, Dir string
}

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
	// StateUnreachable: it runs on a host that is away (package
	// cluster); not dead, it comes back with its host.
	StateUnreachable
)

// agentStateNames are the states as the bus records them (an unreachable
// agent is recorded as remote: only its host knows more).
var agentStateNames = [...]string{bus.AgentStarting, bus.AgentRunning, bus.AgentBackoff, bus.AgentExited, bus.AgentStopped, bus.AgentGaveUp, "unreachable"}

// String returns the state's name as shown in UIs and on the bus.
func (s AgentState) String() string {
	if int(s) < len(agentStateNames) {
		return agentStateNames[s]
	}
	return "unknown"
}

// AgentInfo is a snapshot of an agent's runtime state.
type AgentInfo struct {
	Name string
	// Host is the host that runs it (its [[agent]] host); "" for this
	// machine.
	Host       string
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
	// Turn is where the agent's turn is, as its CLI's hooks or its
	// screen last said: working, idle or needs-human (not Known until
	// either has said anything of its current process).
	Turn Turn
	// LogProblem says why its output log cannot be written now (a full
	// disk…); "" while it can.
	LogProblem string
	// ScreenProblem says its screen failed (a panic of the screen model,
	// contained): its pane goes on, but what it prints is not read for
	// relaying until it is restarted; "" while all is well.
	ScreenProblem string
	// Screen is what its program shows, as its kind's screen model last
	// read it.
	Screen ScreenState
}

// ScreenState is what an agent's program shows, as its kind's screen
// model (package screenmodel) last read it.
type ScreenState struct {
	State screenmodel.State
	// What says it for a person ("Claude Code asks whether to trust this
	// folder"); empty at an ordinary prompt.
	What string
	// Since is when the program began to show it.
	Since time.Time
}

// Turn is what an agent CLI's hooks, or its screen, last said of the
// agent.
type Turn struct {
	Status bus.Status // StatusWorking, StatusIdle or StatusNeedsHuman
	Hook   string     // the hook that said so (prompt, stop, notification, notify), or "screen"
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
	switch t.Hook {
	case "":
	case "screen":
		what += " (its screen)"
	default:
		what += fmt.Sprintf(" (%s hook)", t.Hook)
	}
	return what
}

// StateWord is the agent's state in a word for a person: while its
// process runs, "shell mode" while its CLI is in its own shell mode (no
// message is typed then), else the turn as its hooks or its screen last
// said (working, idle, needs-human); else the process's state.
func (a AgentInfo) StateWord() string {
	if a.State == StateRunning && a.Screen.State == screenmodel.ShellMode {
		return "shell mode"
	}
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
