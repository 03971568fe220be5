package supervisor

import "swarm/swarmapi"

// The types the runtime shares with its clients are package swarmapi's;
// these names let the runtime's code say them as its own. Clients (the
// UI, the server, the command line) use swarmapi.
type (
	Event          = swarmapi.Event
	EventKind      = swarmapi.EventKind
	GameState      = swarmapi.GameState
	AgentState     = swarmapi.AgentState
	AgentInfo      = swarmapi.AgentInfo
	Turn           = swarmapi.Turn
	ScreenState    = swarmapi.ScreenState
	ScreenView     = swarmapi.ScreenView
	ScreenSnapshot = swarmapi.ScreenSnapshot
	ScreenMatch    = swarmapi.ScreenMatch
	ScreenSpan     = swarmapi.ScreenSpan
)

// Event kinds.
const (
	EventAgentStarted    = swarmapi.EventAgentStarted
	EventAgentExited     = swarmapi.EventAgentExited
	EventAgentRestarting = swarmapi.EventAgentRestarting
	EventAgentGaveUp     = swarmapi.EventAgentGaveUp
	EventAgentStopped    = swarmapi.EventAgentStopped
	EventMessage         = swarmapi.EventMessage
	EventDelivered       = swarmapi.EventDelivered
	EventDeliveryFailed  = swarmapi.EventDeliveryFailed
	EventTask            = swarmapi.EventTask
	EventLevel           = swarmapi.EventLevel
	EventGame            = swarmapi.EventGame
	EventNotice          = swarmapi.EventNotice
	EventScreen          = swarmapi.EventScreen
	EventUnconfirmed     = swarmapi.EventUnconfirmed
	EventHeld            = swarmapi.EventHeld
	EventTurn            = swarmapi.EventTurn
	EventChecks          = swarmapi.EventChecks
)

// Agent states.
const (
	StateStarting = swarmapi.StateStarting
	StateRunning  = swarmapi.StateRunning
	StateBackoff  = swarmapi.StateBackoff
	StateExited   = swarmapi.StateExited
	StateStopped  = swarmapi.StateStopped
	StateGaveUp   = swarmapi.StateGaveUp
)

// Errors of the agents' names, and their rule.
var (
	ErrUnknownAgent = swarmapi.ErrUnknownAgent
	ErrAgentExists  = swarmapi.ErrAgentExists
	ErrBadAgentName = swarmapi.ErrBadAgentName
	CheckAgentName  = swarmapi.CheckAgentName
)
