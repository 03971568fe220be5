package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"swarm/actor"
	"swarm/bus"
	"swarm/supervisor"
	"swarm/tasks"
)

// Options configures the server.
type Options struct {
	Version string              // swarm's version, told to the client
	Getenv  func(string) string // the environment that says who calls: os.Getenv
	Dir     string              // the project directory task moves do their git work in: the server's working directory
	// Requests, when set, makes the heartbeats and the task requests
	// (create, start, done, fail, review) as the caller, where the swarm
	// running on the bus makes them (the main swarm's, for an agent a
	// host runs); nil: on the bus, as actor.Actor.
	Requests Requests
	// Roster, when set, reads every agent's status (the agents tool)
	// where the swarm's record is kept (the main swarm's, for an agent a
	// host runs); nil: on the bus.
	Roster func(ctx context.Context) ([]bus.RosterEntry, error)
}

// Requests are the requests the tools make as the caller that a running
// swarm may make instead of the bus.
type Requests interface {
	Heartbeat(ctx context.Context, r actor.HeartbeatRequest) (bus.Heartbeat, error)
	CreateTask(ctx context.Context, to, title, description string) (bus.Task, error)
	MoveTask(ctx context.Context, projectDir, ref string, move tasks.Move, note string) (before, after bus.Task, err error)
	ReviewTask(ctx context.Context, projectDir, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error)
}

// instructions are what a client shows its model about the server as a
// whole; each tool describes itself.
const instructions = `swarm runs you as one agent among several, each in its own terminal, and relays messages between them through its bus. ` +
	`These tools act as you: swarm knows which agent you are from your environment. ` +
	`Messages to you are typed into your terminal as "[relay #<id> from <sender>] <body>" and are also in inbox. ` +
	`The same id twice is one message.`

// defaultInboxLimit is how many messages inbox returns when not told: a
// page an agent can read, not a backlog of hours.
const defaultInboxLimit = 50

// New returns the MCP server of the bus b, with its tools.
func New(b *bus.Bus, opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "swarm", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	t := &tools{bus: b, actor: actor.Actor{Bus: b, Getenv: opts.Getenv}, dir: opts.Dir, requests: opts.Requests, roster: opts.Roster}
	if t.requests == nil {
		t.requests = t.actor
	}
	if t.roster == nil {
		t.roster = func(ctx context.Context) ([]bus.RosterEntry, error) {
			return b.Roster(ctx, bus.DefaultThresholds, time.Now())
		}
	}

	addTool(s, &mcp.Tool{Name: "send", Description: "Send a message to another agent, to every agent (\"*\"), to the human, " +
		"or a control message to swarm. Returns its id and where it stands with each recipient."},
		t.send)
	addTool(s, &mcp.Tool{Name: "inbox", Description: "Your unread messages, oldest first, each with the state of its delivery to you; " +
		"they are marked read, so the next call returns only newer ones."},
		t.inbox)
	addTool(s, &mcp.Tool{Name: "agents", Description: "Who is in the swarm: each agent's process state, liveness, last heartbeat and current task.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		t.agents)
	addTool(s, &mcp.Tool{Name: "task_create", Description: "Create a task for an agent (→ ASSIGNED); swarm gives it to that agent. Returns the task."},
		t.taskCreate)
	addTool(s, &mcp.Tool{Name: "task_start", Description: "Start a task (→ WORKING): by default your current task."},
		t.taskStart)
	addTool(s, &mcp.Tool{Name: "task_done", Description: "Finish a task and submit it for review (→ IN_REVIEW): by default your current task. " +
		"A task with its own branch is rebased onto its base first; a conflict leaves it CONFLICTED."},
		t.taskDone)
	addTool(s, &mcp.Tool{Name: "task_fail", Description: "Give up a task (→ FAILED): by default your current task; say why in reason."},
		t.taskFail)
	if t.reviewer() {
		addTool(s, &mcp.Tool{Name: "task_review", Description: "As the swarm's reviewer agent: your verdict on a task swarm sent you to review. " +
			"approve records it (the person still approves and merges); request_changes sends the task back to its agent with your note."},
			t.taskReview)
	}
	addTool(s, &mcp.Tool{Name: "heartbeat", Description: "Tell swarm you are alive and what you are doing; swarm shows it beside your name."},
		t.heartbeat)
	return s
}

// Serve runs the server of b on a client's stdio until the client closes
// it or ctx ends.
func Serve(ctx context.Context, b *bus.Bus, opts Options, in io.Reader, out io.Writer) error {
	err := New(b, opts).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
	if ctx.Err() != nil {
		return nil // interrupted: the usual way a server ends besides its client leaving
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// schemaOptions make a json.RawMessage any JSON value, not the array of
// bytes its Go type would give.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
}}

// addTool adds a tool whose schemas come from In and Out. A refusal is
// the tool's error, in the line the command line prints for the same
// mistake. The schema of In refuses fields it does not name
// (additionalProperties: false), so no argument can name the caller.
//
// The schemas give no defaults: the SDK (v1.8.0) panics applying them to
// arguments sent as null. A handler that needs one tells an absent
// argument from its zero value with given.
func addTool[In, Out any](s *mcp.Server, tool *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	in, err := jsonschema.For[In](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", tool.Name, err)) // the types are this file's
	}
	out, err := jsonschema.For[Out](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", tool.Name, err))
	}
	tool.InputSchema, tool.OutputSchema = in, out
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
		res, err := h(ctx, req, args)
		if err != nil {
			return nil, res, errors.New("swarm: " + actor.ErrorLine(err.Error()))
		}
		return nil, res, nil
	})
}

// tools are the handlers, each acting as the caller.
type tools struct {
	bus      *bus.Bus
	actor    actor.Actor
	dir      string
	requests Requests // the heartbeats and task requests: t.actor's, or the running swarm's
	roster   func(ctx context.Context) ([]bus.RosterEntry, error)
}

type sendIn struct {
	To            string          `json:"to" jsonschema:"an agent's name, * for every agent but you, human, or swarm for a control message"`
	Body          string          `json:"body" jsonschema:"the text; for a control message to swarm, its type unless type says it"`
	Type          string          `json:"type,omitempty" jsonschema:"the kind of message (default message), e.g. notice; to swarm: task_start, task_done, task_fail, task_create or heartbeat"`
	Data          json.RawMessage `json:"data,omitempty" jsonschema:"any JSON value carried with the message"`
	Topic         string          `json:"topic,omitempty" jsonschema:"a topic or thread name"`
	CorrelationID string          `json:"correlation_id,omitempty" jsonschema:"an id that ties related messages together"`
	InReplyTo     string          `json:"in_reply_to,omitempty" jsonschema:"the id of the message this one answers"`
}

type sendOut struct {
	ID         string        `json:"id" jsonschema:"the message's id"`
	Deliveries []deliveryOut `json:"deliveries" jsonschema:"one per recipient"`
}

type deliveryOut struct {
	To    string `json:"to"`
	State string `json:"state" jsonschema:"queued: stored, to be typed into the recipient's terminal when it is ready"`
	Error string `json:"error,omitempty" jsonschema:"why it cannot be delivered"`
}

func (t *tools) send(ctx context.Context, req *mcp.CallToolRequest, in sendIn) (sendOut, error) {
	args, err := given(req)
	if err != nil {
		return sendOut{}, err
	}
	if _, ok := args["type"]; !ok {
		in.Type = string(bus.KindMessage) // as swarm send's --type; an empty one is refused as there
	}
	// The typed data has been through a map and back, which sorts its
	// keys and rounds numbers past 2^53; the bus keeps data as given.
	data := args["data"]
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		data = nil // no data
	}
	m, err := t.actor.Send(ctx, actor.SendRequest{To: in.To, Body: in.Body, Kind: in.Type, Data: data, Topic: in.Topic,
		CorrelationID: in.CorrelationID, InReplyTo: in.InReplyTo})
	if err != nil {
		return sendOut{}, err
	}
	out := sendOut{ID: m.ID, Deliveries: []deliveryOut{}}
	for _, d := range m.Deliveries {
		out.Deliveries = append(out.Deliveries, deliveryOut{To: d.Recipient, State: d.State.String(), Error: d.Error})
	}
	return out, nil
}

// given is the arguments of req as the client sent them, by name.
func given(req *mcp.CallToolRequest) (map[string]json.RawMessage, error) {
	var args map[string]json.RawMessage
	if len(req.Params.Arguments) == 0 {
		return args, nil
	}
	return args, json.Unmarshal(req.Params.Arguments, &args) // the SDK has checked it is an object (or null)
}

type inboxIn struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many messages (default 50)"`
}

type inboxOut struct {
	Messages []messageOut `json:"messages"`
	More     bool         `json:"more" jsonschema:"more unread messages wait: call inbox again"`
}

type messageOut struct {
	ID            string          `json:"id"`
	From          string          `json:"from"`
	To            string          `json:"to" jsonschema:"you, or * for a message to every agent"`
	Kind          string          `json:"kind"`
	Body          string          `json:"body"`
	BodyError     string          `json:"body_error,omitempty" jsonschema:"why the body is missing: its file on disk cannot be read"`
	Data          json.RawMessage `json:"data,omitempty"`
	Topic         string          `json:"topic,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	InReplyTo     string          `json:"in_reply_to,omitempty"`
	Time          time.Time       `json:"time"`
	State         string          `json:"state" jsonschema:"its delivery to you: queued or injected until swarm has typed it into your terminal, then confirmed; or why not"`
	Error         string          `json:"error,omitempty" jsonschema:"why it was not delivered to you"`
}

func (t *tools) inbox(ctx context.Context, _ *mcp.CallToolRequest, in inboxIn) (inboxOut, error) {
	me, err := t.actor.Name(ctx)
	if err != nil {
		return inboxOut{}, fmt.Errorf("inbox: %w", err)
	}
	limit := in.Limit
	if limit <= 0 {
		limit = defaultInboxLimit
	}
	msgs, more, err := t.bus.ReadUnread(ctx, me, limit)
	if err != nil {
		return inboxOut{}, err
	}
	out := inboxOut{Messages: []messageOut{}, More: more}
	for _, m := range msgs {
		d := m.Deliveries[0] // ReadUnread returns the caller's alone
		out.Messages = append(out.Messages, messageOut{ID: m.ID, From: m.From, To: m.To, Kind: string(m.Kind), Body: m.Body,
			BodyError: m.BodyErr, Data: m.Data, Topic: m.Topic, CorrelationID: m.CorrelationID, InReplyTo: m.InReplyTo,
			Time: m.Time, State: d.State.String(), Error: d.Error})
	}
	return out, nil
}

type agentsIn struct{}

type agentsOut struct {
	SwarmRunning bool       `json:"swarm_running" jsonschema:"a swarm runs on this bus; if not, the agents are as the last one left them"`
	Agents       []agentOut `json:"agents"`
}

type agentOut struct {
	Name          string        `json:"name"`
	State         string        `json:"state" jsonschema:"the state of its process, as swarm records it"`
	Reason        string        `json:"reason,omitempty" jsonschema:"why it is in that state"`
	TakesMessages bool          `json:"takes_messages" jsonschema:"false for a program that is not sent messages (an editor, a monitor)"`
	Liveness      string        `json:"liveness" jsonschema:"OK, WARN, STALE or DEAD, by the time since its last sign of life"`
	Heartbeat     *heartbeatOut `json:"heartbeat,omitempty" jsonschema:"its last heartbeat"`
	Task          *taskOut      `json:"task,omitempty" jsonschema:"its current task"`
}

type heartbeatOut struct {
	Status   string    `json:"status"`
	Progress float64   `json:"progress"`
	Task     string    `json:"task,omitempty"`
	Time     time.Time `json:"time"`
}

type taskOut struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Assignee string `json:"assignee"`
	State    string `json:"state"`
}

func newTaskOut(t bus.Task) *taskOut {
	return &taskOut{ID: t.ID, Title: t.Title, Assignee: t.Assignee, State: t.State.String()}
}

func (t *tools) agents(ctx context.Context, _ *mcp.CallToolRequest, _ agentsIn) (agentsOut, error) {
	roster, err := t.roster(ctx)
	if err != nil {
		return agentsOut{}, err
	}
	_, running := supervisor.SwarmRunning(t.bus.Dir())
	out := agentsOut{SwarmRunning: running, Agents: []agentOut{}}
	for _, r := range roster {
		h := r.Health
		if h.Agent.State == bus.AgentRemoved {
			continue // not in the swarm's config any more
		}
		a := agentOut{Name: h.Agent.Name, State: h.Agent.State, Reason: h.Agent.Reason, TakesMessages: !h.Agent.NoMessages,
			Liveness: h.Level.String()}
		if !h.Beat.Time.IsZero() {
			a.Heartbeat = &heartbeatOut{Status: h.Beat.Status.String(), Progress: h.Beat.Progress, Task: h.Beat.Task, Time: h.Beat.Time}
		}
		if r.Task != nil {
			a.Task = newTaskOut(*r.Task)
		}
		out.Agents = append(out.Agents, a)
	}
	return out, nil
}

type taskCreateIn struct {
	To          string `json:"to" jsonschema:"the agent that gets the task"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty" jsonschema:"what to do, at more length"`
}

func (t *tools) taskCreate(ctx context.Context, _ *mcp.CallToolRequest, in taskCreateIn) (taskOut, error) {
	task, err := t.requests.CreateTask(ctx, in.To, in.Title, in.Description)
	if err != nil {
		return taskOut{}, err
	}
	return *newTaskOut(task), nil
}

type taskMoveIn struct {
	ID   string `json:"id,omitempty" jsonschema:"task id or unique prefix (default: your current task)"`
	Note string `json:"note,omitempty" jsonschema:"a note recorded with the move, e.g. a summary for the reviewer"`
}

type taskFailIn struct {
	ID     string `json:"id,omitempty" jsonschema:"task id or unique prefix (default: your current task)"`
	Reason string `json:"reason,omitempty" jsonschema:"why the task failed"`
}

type moveOut struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	From  string `json:"from" jsonschema:"its state before"`
	To    string `json:"to" jsonschema:"its state now; the same as from if it was there already"`
}

func (t *tools) taskStart(ctx context.Context, _ *mcp.CallToolRequest, in taskMoveIn) (moveOut, error) {
	return t.move(ctx, in.ID, tasks.MoveStart, in.Note)
}

func (t *tools) taskDone(ctx context.Context, _ *mcp.CallToolRequest, in taskMoveIn) (moveOut, error) {
	return t.move(ctx, in.ID, tasks.MoveDone, in.Note)
}

func (t *tools) taskFail(ctx context.Context, _ *mcp.CallToolRequest, in taskFailIn) (moveOut, error) {
	return t.move(ctx, in.ID, tasks.MoveFail, in.Reason)
}

// move makes an assignee's move. A move that failed part way (a rebase
// conflict that left the task CONFLICTED) is refused with its error, which
// names the new state.
func (t *tools) move(ctx context.Context, ref string, move tasks.Move, note string) (moveOut, error) {
	before, after, err := t.requests.MoveTask(ctx, t.dir, ref, move, note)
	if err != nil {
		return moveOut{}, err
	}
	return moveOut{ID: after.ID, Title: after.Title, From: before.State.String(), To: after.State.String()}, nil
}

// reviewer says whether the agent calling is the swarm's reviewer agent
// ([checks] review_by, as the swarm that started last recorded it): only
// it gets the task_review tool.
func (t *tools) reviewer() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	policy, err := t.bus.CheckPolicy(ctx)
	if err != nil || policy == nil || policy.ReviewBy == "" {
		return false
	}
	me, err := t.actor.Name(ctx)
	return err == nil && me == policy.ReviewBy
}

type taskReviewIn struct {
	ID      string `json:"id" jsonschema:"the task's id or a unique prefix"`
	Verdict string `json:"verdict" jsonschema:"approve or request_changes"`
	Note    string `json:"note,omitempty" jsonschema:"what you found; for request_changes, what to change (required)"`
}

type taskReviewOut struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Verdict string `json:"verdict"`
	State   string `json:"state" jsonschema:"the task's state now: CHANGES_REQUESTED after request_changes"`
}

func (t *tools) taskReview(ctx context.Context, _ *mcp.CallToolRequest, in taskReviewIn) (taskReviewOut, error) {
	v := bus.Verdict(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(in.Verdict)), "-", "_"))
	if v != bus.VerdictApprove && v != bus.VerdictRequestChanges {
		return taskReviewOut{}, actor.Usagef("task_review: verdict must be approve or request_changes, not %q", in.Verdict)
	}
	r, task, err := t.requests.ReviewTask(ctx, t.dir, in.ID, v, in.Note)
	if err != nil {
		return taskReviewOut{}, err
	}
	return taskReviewOut{ID: task.ID, Title: task.Title, Verdict: string(r.Verdict), State: task.State.String()}, nil
}

type heartbeatIn struct {
	Status   string  `json:"status,omitempty" jsonschema:"idle, working (the default), blocked, or needs-human (you wait for the person)"`
	Progress float64 `json:"progress,omitempty" jsonschema:"progress on your current task, from 0 to 1"`
	Task     string  `json:"task,omitempty" jsonschema:"the id of the task you work on"`
}

func (t *tools) heartbeat(ctx context.Context, req *mcp.CallToolRequest, in heartbeatIn) (heartbeatOut, error) {
	args, err := given(req)
	if err != nil {
		return heartbeatOut{}, err
	}
	if _, ok := args["status"]; !ok {
		in.Status = bus.StatusWorking.String() // as swarm heartbeat's --status
	}
	hb, err := t.requests.Heartbeat(ctx, actor.HeartbeatRequest(in))
	if err != nil {
		return heartbeatOut{}, err
	}
	return heartbeatOut{Status: hb.Status.String(), Progress: hb.Progress, Task: hb.Task, Time: hb.Time}, nil
}
