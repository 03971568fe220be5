package wire

import (
	"encoding/json"
	"reflect"

	"swarm/bus"
	"swarm/swarmapi"
	"swarm/tasks"
)

// Method is a method of the protocol: its name on the wire and, as type
// parameters, the params it takes and the result it answers. The server
// serves it and a client calls it through this one value, so the two ends
// cannot disagree on a name or a type without failing to compile; a
// change of a payload's shape changes protocol.golden (TestPayloadShapes),
// which takes a new Version.
type Method[P, R any] struct{ Name string }

// Spec is a method as the protocol's tests read it.
type Spec struct {
	Name           string
	Params, Result reflect.Type
}

var specs []Spec

// def declares a method of the protocol; Methods lists them all.
func def[P, R any](name string) Method[P, R] {
	specs = append(specs, Spec{Name: name, Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R]()})
	return Method[P, R]{Name: name}
}

// Methods returns every method of the protocol, in the order declared.
func Methods() []Spec { return append([]Spec(nil), specs...) }

// The methods of the UI: what package tui's Backend (and Reader, Focuser)
// does, one method each, named as the Go method is.
var (
	Agents     = def[None, []swarmapi.AgentInfo]("Agents")
	View       = def[ViewParams, ViewResult]("View")
	Snapshot   = def[AgentParams, swarmapi.ScreenSnapshot]("Snapshot")
	Text       = def[TextParams, string]("Text")
	Find       = def[FindParams, []swarmapi.ScreenMatch]("Find")
	Resize     = def[ResizeParams, None]("Resize")
	SendKey    = def[KeyParams, None]("SendKey")
	Paste      = def[PasteParams, None]("Paste")
	Restart    = def[AgentParams, None]("Restart")
	StopAgent  = def[AgentParams, None]("StopAgent")
	SetFocus   = def[AgentParams, None]("SetFocus")
	AddAgent   = def[swarmapi.NewAgent, None]("AddAgent")
	ConfigFile = def[None, string]("ConfigFile")
	SaveAgent  = def[AgentParams, None]("SaveAgent")
	Send       = def[MessageParams, bus.Message]("Send")
	Dismiss    = def[IDParams, None]("Dismiss")
	Game       = def[None, GameResult]("Game")
	// Inbox, Messages and Pending answer messages as lists show them:
	// bodies cut (server's preview).
	Inbox          = def[LimitParams, []bus.Message]("Inbox")
	Messages       = def[AfterParams, []bus.Message]("Messages")
	LastSeq        = def[None, int64]("LastSeq")
	Pending        = def[LimitParams, []bus.Message]("Pending")
	Tasks          = def[bus.TaskFilter, []bus.Task]("Tasks")
	TaskEvents     = def[IDParams, []bus.TaskEvent]("TaskEvents")
	Heartbeats     = def[None, []bus.Heartbeat]("Heartbeats")
	AllChecks      = def[None, []bus.Check]("AllChecks")
	MergeQueue     = def[None, []bus.QueueEntry]("MergeQueue")
	Reviews        = def[IDParams, []bus.Review]("Reviews")
	CreateTask     = def[NewTaskParams, bus.Task]("CreateTask")
	Approve        = def[NoteParams, bus.Task]("Approve")
	RequestChanges = def[NoteParams, bus.Task]("RequestChanges")
	Cancel         = def[NoteParams, bus.Task]("Cancel")
	Retry          = def[NoteParams, bus.Task]("Retry")
	Merge          = def[IDParams, bus.Task]("Merge")
	Prune          = def[PruneParams, []PrunedResult]("Prune")
	Review         = def[IDParams, ReviewResult]("Review")
	// TaskDetail is `swarm task show`'s task (an id or a unique prefix)
	// with its history, checks, reviews and merge-queue entry; Roster is
	// every agent's state, liveness, last heartbeat and current task (the
	// MCP server's agents tool). A host's command line reads them from its
	// main swarm, whose bus holds them.
	TaskDetail = def[IDParams, bus.TaskDetail]("TaskDetail")
	Roster     = def[None, []bus.RosterEntry]("Roster")
)

// The command line's methods: requests made as the process at the
// client's end of the socket (its $SWARM_AGENT and $SWARM_TOKEN, which it
// sends, and its pid, which the socket tells), the same the MCP tools
// make.
var (
	SendAs       = def[SendParams, ActorResult[bus.Message]]("send")
	HeartbeatAs  = def[HeartbeatParams, ActorResult[bus.Heartbeat]]("heartbeat")
	TaskAddAs    = def[TaskAddParams, ActorResult[bus.Task]]("task_add")
	TaskReviewAs = def[TaskReviewParams, ActorResult[Reviewed]]("task_review")
	TaskMoveAs   = def[TaskMoveParams, ActorResult[bus.Task]]("task_move")
)

// The methods of the swarm as a whole.
var (
	// Ping does nothing: a client asks it to learn the swarm answers.
	Ping = def[None, None]("ping")
	Peek = def[PeekParams, PeekResult](MethodPeek)
	// Subscribe's reply is a stream of EventFrames on its connection.
	Subscribe = def[None, EventFrame](MethodSubscribe)
	Stop      = def[None, None](MethodStop)
)

// Params and results of the methods, as JSON.
type (
	None        struct{}
	AgentParams struct{ Agent string }
	// ViewParams asks for an agent's view with its rows as those that
	// changed since the rendering numbered Gen, which the client holds
	// (0: none).
	ViewParams struct {
		Agent string
		Top   int
		Gen   uint64
	}
	// ViewResult is the view, its rows apart.
	ViewResult struct {
		Rows RenderResult
		View swarmapi.ScreenView // without its Rows
	}
	// RenderResult is a screen: N rows, of which Changed replace the
	// client's rows of rendering Base (Base 0: all of them are here).
	RenderResult struct {
		Gen, Base uint64
		N         int
		Changed   map[int]string
	}
	TextParams struct {
		Agent    string
		From, To int
	}
	FindParams   struct{ Agent, Query string }
	ResizeParams struct {
		Agent      string
		Rows, Cols int
	}
	KeyParams struct {
		Agent string
		Key   swarmapi.Key
	}
	PasteParams struct{ Agent, Text string }
	NoteParams  struct{ ID, Note string }
	IDParams    struct{ ID string }
	LimitParams struct {
		Agent string
		Limit int
	}
	AfterParams struct {
		After int64
		Limit int
	}
	PruneParams struct{ DryRun bool }
	// PrunedResult is tasks.Pruned as it travels: why a branch was kept
	// as words (an error value does not survive JSON).
	PrunedResult struct {
		Task    bus.Task
		Deleted bool
		Kept    string
	}
	// MessageParams is a message to send: it has no sender, which is
	// who calls.
	MessageParams struct {
		To, Topic, Body          string
		Kind                     bus.Kind
		Data                     json.RawMessage
		CorrelationID, InReplyTo string
	}
	// NewTaskParams is a task to create: it has no creator, which is who
	// calls.
	NewTaskParams struct{ Title, Description, Assignee string }
	ReviewResult  struct{ Stat, Diff string }
	GameResult    struct {
		State swarmapi.GameState
		OK    bool
	}
)

// Params and results of the command line's methods.
type (
	// CallerEnv is the calling process's $SWARM_AGENT and $SWARM_TOKEN.
	CallerEnv struct{ Agent, Token string }
	// SendParams is a message to send, its Data as a string: what the
	// command line was given, valid JSON or not (the swarm checks it as
	// the command line would).
	SendParams struct {
		Env                                                   CallerEnv
		To, Body, Kind, Data, Topic, CorrelationID, InReplyTo string
	}
	HeartbeatParams struct {
		Env      CallerEnv
		Status   string // idle, working, blocked or needs-human
		Progress float64
		Task     string
	}
	TaskAddParams struct {
		Env                    CallerEnv
		To, Title, Description string
	}
	TaskMoveParams struct {
		Env                   CallerEnv
		ProjectDir, Ref, Note string
		Move                  tasks.Move
	}
	TaskReviewParams struct {
		Env                   CallerEnv
		ProjectDir, Ref, Note string
		Verdict               bus.Verdict
	}
	// Reviewed is a reviewer's verdict and the task after it.
	Reviewed struct {
		Review bus.Review
		Task   bus.Task
	}
	// ActorResult carries a value and an error together: a message
	// stored with a failed delivery is both. Code names the error's
	// sentinel, as Reply's does.
	ActorResult[T any] struct {
		Value     T
		Before    T // TaskMoveAs's task before the move
		Err, Code string
	}
)

// EventFrame is a frame of an event stream: an event, or Resync.
type EventFrame struct {
	Event *Event `json:",omitempty"`
	// Resync says events were dropped while the client fell behind:
	// what it shows is to be read anew.
	Resync bool `json:",omitempty"`
}

// Event is an event as the wire carries it: all its fields (Event's own
// JSON form is the shorter one swarm up --headless --json prints), a
// message's body as lists carry it.
type Event swarmapi.Event
