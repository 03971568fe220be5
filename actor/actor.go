// Package actor makes the requests an agent or the human makes of a
// swarm from outside it — send, heartbeat, task add, task moves, reviews:
// the checks, who asks (supervisor.WhoIsCalling), the call, and the words
// of each refusal. The command line (on the bus, or through the running
// swarm's socket: server's methods call it), and the MCP tools of the same
// names all go through it, so a mistake is refused in the same words
// however it is made.
package actor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"swarm/bus"
	"swarm/supervisor"
	"swarm/tasks"
	"swarm/textsafe"
)

// The requests below are what `swarm send`, `swarm heartbeat` and `swarm
// task add|start|done|fail` do, and what the MCP tools of the same names
// do: the checks, who asks, the call, and the words of each refusal. The
// command line and the server both call them, so a mistake is refused in
// the same words however it is made.

// ErrUsage is wrapped by the refusals of what a request says on its face
// (an empty body, a kind that is not a word, data that is not JSON, a
// progress out of range): the command line exits 2 for them, as for a bad
// flag.
var ErrUsage = errors.New("usage error")

// usage is a refusal that reads as its message alone and matches ErrUsage.
type usage struct{ msg string }

func (u *usage) Error() string { return u.msg }
func (u *usage) Unwrap() error { return ErrUsage }

// Usagef is a refusal of what a request says on its face, matching
// ErrUsage.
func Usagef(format string, args ...any) error { return &usage{fmt.Sprintf(format, args...)} }

// Actor is who makes requests on a bus: the process Process, whose environment
// Getenv reads ($SWARM_AGENT, $SWARM_TOKEN), named by
// supervisor.WhoIsCalling — an agent, or the human. Nothing a request
// carries can name its author.
type Actor struct {
	Bus    *bus.Bus
	Getenv func(string) string
	// Process makes the requests: the zero Process for this one. A
	// running swarm serving the command line sets its client's.
	Process supervisor.Process
	// Expected are the agents the project's swarm.toml defines, for a
	// swarm not running yet: a message to one the bus does not have yet
	// registers it (stopped, until its swarm starts it) and is kept for
	// it, where a name no one defines is refused.
	Expected []bus.Agent
	// As, when set, is the agent the requests come from, judged already
	// by who vouches for it (a host of the swarm, for an agent it runs
	// and judged on its own bus); Getenv and Process are not read.
	As string
}

// Name is who a's requests come from.
func (a Actor) Name(ctx context.Context) (string, error) {
	if a.As != "" {
		return a.As, nil
	}
	c, err := supervisor.WhoIsCalling(ctx, a.Bus, a.Getenv, a.Process)
	return c.Name, err
}

// SendRequest is a message to send: swarm send's arguments and flags, the
// send tool's fields.
type SendRequest struct {
	To            string
	Body          string
	Kind          string // the command line's --type; both it and the tool make it "message" when not given
	Data          json.RawMessage
	Topic         string
	CorrelationID string
	InReplyTo     string
}

// Message checks r on its own and returns the message it asks for. The
// command line calls it before it opens the bus, so that a bad flag is
// refused before anything is created; Send calls it again.
func (r SendRequest) Message() (bus.Message, error) {
	if strings.TrimSpace(r.Body) == "" {
		return bus.Message{}, Usagef("send: the message is empty")
	}
	if err := bus.CheckKind(bus.Kind(r.Kind)); err != nil {
		return bus.Message{}, Usagef("send: --type: %v", err)
	}
	if len(r.Data) > 0 && !json.Valid(r.Data) {
		var v any
		return bus.Message{}, Usagef("send: --data is not valid JSON: %v", json.Unmarshal(r.Data, &v))
	}
	msg := bus.Message{To: r.To, Kind: bus.Kind(r.Kind), Body: r.Body, Data: r.Data, Topic: r.Topic,
		CorrelationID: r.CorrelationID, InReplyTo: r.InReplyTo}
	if r.To == bus.Swarm {
		if err := supervisor.CheckControl(msg); err != nil {
			return bus.Message{}, fmt.Errorf("send: swarm takes control messages only: %w", err)
		}
	}
	return msg, nil
}

// Send publishes r from a. A recipient that is no agent of the bus (a
// typo, most likely) is refused before anything is stored, with the
// nearest name. A message stored with a failed delivery (an agent that
// was removed, one that takes no messages) is returned with an error
// saying so: it is on the bus, and its author has a notice.
func (a Actor) Send(ctx context.Context, r SendRequest) (bus.Message, error) {
	msg, err := r.Message()
	if err != nil {
		return bus.Message{}, err
	}
	if msg.From, err = a.Name(ctx); err != nil {
		return bus.Message{}, fmt.Errorf("send: %w", err)
	}
	if err := a.knownRecipient(ctx, msg.To); err != nil {
		return bus.Message{}, fmt.Errorf("send: %w", err)
	}
	if err := a.registerExpected(ctx, msg.To); err != nil {
		return bus.Message{}, fmt.Errorf("send: %w", err)
	}
	m, err := a.Bus.Publish(ctx, msg)
	if err != nil {
		return bus.Message{}, fmt.Errorf("send: %w", err)
	}
	for _, d := range m.Deliveries {
		if d.State == bus.DeliveryFailed {
			return m, fmt.Errorf("send: %s (message #%s stored as failed)", d.Error, bus.ShortID(m.ID))
		}
	}
	return m, nil
}

// HeartbeatRequest is what an agent reports in a heartbeat.
type HeartbeatRequest struct {
	Status   string // idle, working, blocked or needs-human
	Progress float64
	Task     string
}

// Report checks r on its own and returns the heartbeat it asks for, its
// Agent not yet set.
func (r HeartbeatRequest) Report() (bus.Heartbeat, error) {
	status, err := bus.ParseStatus(r.Status)
	if err != nil {
		return bus.Heartbeat{}, Usagef("heartbeat: %v", err)
	}
	hb := bus.Heartbeat{Status: status, Progress: r.Progress, Task: r.Task}
	if err := hb.CheckReport(); err != nil {
		return bus.Heartbeat{}, Usagef("heartbeat: %v", err)
	}
	return hb, nil
}

// Heartbeat records r as a's latest heartbeat and returns it. Only an
// agent has one.
func (a Actor) Heartbeat(ctx context.Context, r HeartbeatRequest) (bus.Heartbeat, error) {
	hb, err := r.Report()
	if err != nil {
		return hb, err
	}
	if hb.Agent, err = a.Name(ctx); err != nil {
		return bus.Heartbeat{}, fmt.Errorf("heartbeat: %w", err)
	}
	if hb.Agent == bus.Human {
		return bus.Heartbeat{}, errors.New("heartbeat: only agents send heartbeats, and this runs outside any agent")
	}
	hb.Time = time.Now()
	return hb, a.Bus.Beat(ctx, hb)
}

// knownRecipient refuses a name that is no agent the bus has ever had,
// nor human, swarm or *, saying which name it is nearest to.
func (a Actor) knownRecipient(ctx context.Context, to string) error {
	if to == bus.Human || to == bus.Swarm || to == bus.Everyone {
		return nil
	}
	agents, err := a.Bus.Agents(ctx)
	if err != nil {
		return err
	}
	if a.expected(to) != nil {
		return nil
	}
	names := []string{bus.Human, bus.Swarm}
	for _, ag := range a.Expected {
		names = append(names, ag.Name)
	}
	for _, ag := range agents {
		if ag.Name == to {
			return nil
		}
		if ag.State != bus.AgentRemoved {
			names = append(names, ag.Name)
		}
	}
	return fmt.Errorf("%w %q%s", bus.ErrUnknownAgent, to, supervisor.DidYouMean(to, names))
}

// expected returns the agent of a.Expected named name, or nil.
func (a Actor) expected(name string) *bus.Agent {
	i := slices.IndexFunc(a.Expected, func(ag bus.Agent) bool { return ag.Name == name })
	if i < 0 {
		return nil
	}
	return &a.Expected[i]
}

// registerExpected puts the expected agent named to on the bus when the
// bus does not have it yet, so that a message to it is queued for it.
func (a Actor) registerExpected(ctx context.Context, to string) error {
	ag := a.expected(to)
	if ag == nil {
		return nil
	}
	if _, err := a.Bus.Agent(ctx, to); !errors.Is(err, bus.ErrUnknownAgent) {
		return err
	}
	return a.Bus.RegisterAgent(ctx, *ag)
}

// CreateTask creates a task for agent to, created by a. The bus's
// refusals begin "create task: " and say what failed.
func (a Actor) CreateTask(ctx context.Context, to, title, description string) (bus.Task, error) {
	me, err := a.Name(ctx)
	if err != nil {
		return bus.Task{}, fmt.Errorf("task add: %w", err)
	}
	if err := a.knownRecipient(ctx, to); err != nil {
		return bus.Task{}, fmt.Errorf("create task: %w", err)
	}
	return a.Bus.CreateTask(ctx, bus.NewTask{Title: title, Description: description, Assignee: to, CreatedBy: me})
}

// MoveTask makes move on task ref (an id or unique prefix; empty: a's
// current task) through the task service, which decides whether a may
// and does the git work of the move; projectDir is where that work
// happens (the directory the request runs in). It returns the task
// before and after, as tasks.Service.Move does.
func (a Actor) MoveTask(ctx context.Context, projectDir, ref string, move tasks.Move, note string) (before, after bus.Task, err error) {
	me, err := a.Name(ctx)
	if err != nil {
		return before, after, err
	}
	return tasks.New(ctx, a.Bus, projectDir, "").Move(ctx, me, ref, move, note)
}

// ReviewTask records a's verdict on task ref as the swarm's reviewer agent
// (tasks.Service.Review decides whether a may); projectDir is where its
// branch's commit is read. It returns the verdict and the task after it.
func (a Actor) ReviewTask(ctx context.Context, projectDir, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error) {
	me, err := a.Name(ctx)
	if err != nil {
		return bus.Review{}, bus.Task{}, err
	}
	return tasks.New(ctx, a.Bus, projectDir, "").Review(ctx, me, ref, verdict, note)
}

// maxErrorLine bounds an error line: an error may quote what it was given,
// and an argument can be megabytes long.
const maxErrorLine = 400

// ErrorLine is an error's text s on one line of at most maxErrorLine
// characters, its middle cut out when longer: how the command line prints
// an error after "swarm: ", and the text of a tool's refusal.
func ErrorLine(s string) string {
	s = textsafe.Line(s)
	r := []rune(s)
	if len(r) <= maxErrorLine {
		return s
	}
	keep := maxErrorLine/2 - 10
	return string(r[:keep]) + fmt.Sprintf(" …(%d characters)… ", len(r)-2*keep) + string(r[len(r)-keep:])
}
