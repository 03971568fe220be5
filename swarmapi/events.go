package swarmapi

import (
	"time"

	"swarm/bus"
	"swarm/games"
)

// EventKind says what an Event reports.
type EventKind int

// Event kinds. Every kind except EventScreen is delivered to every
// subscriber, in order, without loss; EventScreen notices are coalesced per
// agent because a UI only needs to know that a pane changed, not how often.
const (
	EventAgentStarted    EventKind = iota // a process started (Agent, Pid)
	EventAgentExited                      // a process ended (Agent, ExitCode, Text = how)
	EventAgentRestarting                  // a restart is scheduled (Agent, Text = after how long)
	EventAgentGaveUp                      // restart policy exhausted (Agent, Text = reason)
	EventAgentStopped                     // stopped on request (Agent)
	EventMessage                          // a message was published (Message)
	EventDelivered                        // a delivery was confirmed (Message, Agent = recipient)
	EventDeliveryFailed                   // a delivery failed for good (Message, Agent = recipient, Text = reason)
	EventTask                             // a task transition (Task as it left it, TaskEvent)
	EventLevel                            // an agent's liveness level changed (Agent, Level)
	EventGame                             // a game move or result (Game)
	EventNotice                           // something a person should see (Agent, Text), e.g. a refused command
	EventScreen                           // an agent's screen changed (Agent); coalesced
	EventUnconfirmed                      // a message was typed in but not seen taken (Message, Agent = recipient, Text = why)
	EventHeld                             // messages wait for a person to finish their line (Agent, Held = how many; 0: none)
	EventTurn                             // an agent CLI's hook said where its turn is (Agent, Text = the Turn in words)
	EventChecks                           // the checks, the merge queue or the reviewers' verdicts changed (read them again)
)

var eventKindNames = [...]string{
	EventAgentStarted:    "agent_started",
	EventAgentExited:     "agent_exited",
	EventAgentRestarting: "agent_restarting",
	EventAgentGaveUp:     "agent_gave_up",
	EventAgentStopped:    "agent_stopped",
	EventMessage:         "message",
	EventDelivered:       "delivered",
	EventDeliveryFailed:  "delivery_failed",
	EventTask:            "task",
	EventLevel:           "level",
	EventGame:            "game",
	EventNotice:          "notice",
	EventScreen:          "screen",
	EventUnconfirmed:     "delivery_unconfirmed",
	EventHeld:            "held",
	EventTurn:            "turn",
	EventChecks:          "checks",
}

// String returns the kind's name as used in JSON output.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "unknown"
}

// GameState is a snapshot of a refereed game.
type GameState struct {
	X, O   string      // the players' agent names
	Board  games.Board // after the last legal move
	Turn   games.Mark  // whose move is next (Empty when over)
	Result games.Result
	// Last move: who played which cell, or the refusal reason.
	Mover   string
	Cell    int
	Illegal string
}

// Event is one thing that happened in the swarm.
type Event struct {
	Kind      EventKind
	Time      time.Time
	Agent     string
	Pid       int
	ExitCode  int
	Text      string
	Level     bus.Level
	Message   *bus.Message
	Task      *bus.Task
	TaskEvent *bus.TaskEvent
	Game      *GameState
	Held      int // EventHeld: messages waiting for a person's line
	// Planned: EventAgentExited for a process swarm ended on purpose to
	// start it again elsewhere (moved to a task's worktree or back).
	Planned bool
}
