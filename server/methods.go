package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"swarm/actor"
	"swarm/bus"
	"swarm/swarmapi"
	"swarm/tasks"
	"swarm/wire"
)

// handler is one method of the socket: what it does, who may call it, and
// its params and result types as they travel (the protocol's tests read
// them).
type handler struct {
	call           func(context.Context, json.RawMessage) (any, error)
	who            callers
	params, result reflect.Type
}

// handle makes fn the handler of m in t, for who.
func handle[P, R any](t map[string]handler, m wire.Method[P, R], who callers, fn func(context.Context, P) (R, error)) {
	t[m.Name] = handler{who: who, params: reflect.TypeFor[P](), result: reflect.TypeFor[R](),
		call: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var p P
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &p); err != nil {
					return nil, fmt.Errorf("bad params: %w", err)
				}
			}
			return fn(ctx, p)
		}}
}

// table returns the methods the server answers, by name.
func (s *Server) table() map[string]handler {
	sup := s.sup
	m := map[string]handler{}
	handle(m, wire.Agents, anyone, func(context.Context, wire.None) ([]swarmapi.AgentInfo, error) { return s.agents(), nil })
	handle(m, wire.View, anyone, func(ctx context.Context, p wire.ViewParams) (wire.ViewResult, error) {
		v, err := s.of(p.Agent).View(p.Agent, p.Top)
		if err != nil {
			return wire.ViewResult{}, err
		}
		rows := strings.Split(v.Rows, "\n")
		v.Rows = ""
		return wire.ViewResult{Rows: s.screens.diff(clientOf(ctx).id, p.Agent, p.Gen, v.Offset != 0, rows), View: v}, nil
	})
	handle(m, wire.Snapshot, anyone, func(_ context.Context, p wire.AgentParams) (swarmapi.ScreenSnapshot, error) {
		return s.of(p.Agent).Snapshot(p.Agent)
	})
	handle(m, wire.Text, anyone, func(_ context.Context, p wire.TextParams) (string, error) {
		return s.of(p.Agent).Text(p.Agent, p.From, p.To)
	})
	handle(m, wire.Find, anyone, func(_ context.Context, p wire.FindParams) ([]swarmapi.ScreenMatch, error) {
		return s.of(p.Agent).Find(p.Agent, p.Query), nil
	})
	handle(m, wire.Resize, human, func(ctx context.Context, p wire.ResizeParams) (wire.None, error) {
		return wire.None{}, s.sizes.resize(clientOf(ctx).id, p.Agent, p.Rows, p.Cols)
	})
	handle(m, wire.SendKey, human, func(ctx context.Context, p wire.KeyParams) (wire.None, error) {
		if err := s.sizes.typing(clientOf(ctx).id, p.Agent); err != nil {
			return wire.None{}, err
		}
		return wire.None{}, s.of(p.Agent).SendKey(p.Agent, p.Key)
	})
	handle(m, wire.Paste, human, func(ctx context.Context, p wire.PasteParams) (wire.None, error) {
		if err := s.sizes.typing(clientOf(ctx).id, p.Agent); err != nil {
			return wire.None{}, err
		}
		return wire.None{}, s.of(p.Agent).Paste(p.Agent, p.Text)
	})
	handle(m, wire.Restart, human, func(_ context.Context, p wire.AgentParams) (wire.None, error) {
		return wire.None{}, s.of(p.Agent).Restart(p.Agent)
	})
	handle(m, wire.StopAgent, human, func(_ context.Context, p wire.AgentParams) (wire.None, error) {
		return wire.None{}, s.of(p.Agent).StopAgent(p.Agent)
	})
	handle(m, wire.SetFocus, human, func(_ context.Context, p wire.AgentParams) (wire.None, error) {
		sup.SetFocus(p.Agent)
		return wire.None{}, nil
	})
	handle(m, wire.AddAgent, human, func(_ context.Context, n swarmapi.NewAgent) (wire.None, error) {
		return wire.None{}, sup.AddAgent(n)
	})
	handle(m, wire.ConfigFile, anyone, func(context.Context, wire.None) (string, error) { return sup.ConfigFile(), nil })
	handle(m, wire.SaveAgent, human, func(_ context.Context, p wire.AgentParams) (wire.None, error) {
		return wire.None{}, sup.SaveAgent(p.Agent)
	})
	handle(m, wire.Send, anyone, func(ctx context.Context, p wire.MessageParams) (bus.Message, error) {
		c, err := s.caller(ctx)
		if err != nil {
			return bus.Message{}, fmt.Errorf("send: %w", err)
		}
		return sup.Send(ctx, messageFrom(p, c.Name))
	})
	handle(m, wire.Dismiss, human, func(ctx context.Context, p wire.IDParams) (wire.None, error) {
		return wire.None{}, sup.Dismiss(ctx, p.ID)
	})
	handle(m, wire.Game, anyone, func(context.Context, wire.None) (wire.GameResult, error) {
		g, ok := sup.Game()
		return wire.GameResult{State: g, OK: ok}, nil
	})
	handle(m, wire.Inbox, anyone, func(ctx context.Context, p wire.LimitParams) ([]bus.Message, error) {
		return previews(sup.Inbox(ctx, p.Agent, p.Limit))
	})
	handle(m, wire.Messages, anyone, func(ctx context.Context, p wire.AfterParams) ([]bus.Message, error) {
		return previews(sup.Messages(ctx, p.After, p.Limit))
	})
	handle(m, wire.LastSeq, anyone, func(ctx context.Context, _ wire.None) (int64, error) { return sup.LastSeq(ctx) })
	handle(m, wire.Pending, anyone, func(ctx context.Context, p wire.LimitParams) ([]bus.Message, error) {
		return previews(sup.Pending(ctx, p.Agent, p.Limit))
	})
	handle(m, wire.Tasks, anyone, func(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) { return shownTasks(sup.Tasks(ctx, f)) })
	handle(m, wire.TaskEvents, anyone, func(ctx context.Context, p wire.IDParams) ([]bus.TaskEvent, error) { return sup.TaskEvents(ctx, p.ID) })
	handle(m, wire.Heartbeats, anyone, func(ctx context.Context, _ wire.None) ([]bus.Heartbeat, error) { return sup.Heartbeats(ctx) })
	handle(m, wire.AllChecks, anyone, func(ctx context.Context, _ wire.None) ([]bus.Check, error) { return sup.AllChecks(ctx) })
	handle(m, wire.MergeQueue, anyone, func(ctx context.Context, _ wire.None) ([]bus.QueueEntry, error) { return sup.MergeQueue(ctx) })
	handle(m, wire.Reviews, anyone, func(ctx context.Context, p wire.IDParams) ([]bus.Review, error) { return sup.Reviews(ctx, p.ID) })
	handle(m, wire.CreateTask, anyone, func(ctx context.Context, p wire.NewTaskParams) (bus.Task, error) {
		c, err := s.caller(ctx)
		if err != nil {
			return bus.Task{}, fmt.Errorf("create task: %w", err)
		}
		return sup.CreateTask(ctx, bus.NewTask{Title: p.Title, Description: p.Description, Assignee: p.Assignee, CreatedBy: c.Name})
	})
	handle(m, wire.Approve, human, func(ctx context.Context, p wire.NoteParams) (bus.Task, error) { return sup.Approve(ctx, p.ID, p.Note) })
	handle(m, wire.RequestChanges, human, func(ctx context.Context, p wire.NoteParams) (bus.Task, error) {
		return sup.RequestChanges(ctx, p.ID, p.Note)
	})
	handle(m, wire.Cancel, human, func(ctx context.Context, p wire.NoteParams) (bus.Task, error) { return sup.Cancel(ctx, p.ID, p.Note) })
	handle(m, wire.Retry, human, func(ctx context.Context, p wire.NoteParams) (bus.Task, error) { return sup.Retry(ctx, p.ID, p.Note) })
	handle(m, wire.Merge, human, func(ctx context.Context, p wire.IDParams) (bus.Task, error) { return sup.Merge(ctx, p.ID) })
	handle(m, wire.Prune, human, func(ctx context.Context, p wire.PruneParams) ([]wire.PrunedResult, error) {
		pruned, err := sup.Prune(ctx, p.DryRun)
		return prunedResults(pruned), err
	})
	handle(m, wire.Review, anyone, func(ctx context.Context, p wire.IDParams) (wire.ReviewResult, error) {
		stat, diff, err := sup.Review(ctx, p.ID)
		return wire.ReviewResult{Stat: stat, Diff: cut(diff, diffBytes, diffCut)}, err
	})
	handle(m, wire.Ping, anyone, func(context.Context, wire.None) (wire.None, error) { return wire.None{}, nil })
	handle(m, wire.Peek, anyone, func(_ context.Context, p wire.PeekParams) (wire.PeekResult, error) {
		snap, err := s.of(p.Agent).Snapshot(p.Agent)
		return wire.PeekResult{Agent: p.Agent, Rows: snap.Rows, Cols: snap.Cols, Lines: snap.Lines,
			AltScreen: snap.AltScreen, Title: snap.Title}, err
	})
	handle(m, wire.TaskDetail, anyone, func(ctx context.Context, p wire.IDParams) (bus.TaskDetail, error) {
		d, err := s.opts.Bus.TaskDetail(ctx, p.ID)
		d.Task.Description = cut(d.Task.Description, descriptionBytes, "…")
		return d, err
	})
	handle(m, wire.Roster, anyone, func(ctx context.Context, _ wire.None) ([]bus.RosterEntry, error) {
		return s.opts.Bus.Roster(ctx, bus.DefaultThresholds, time.Now())
	})
	s.actorMethods(m)
	if s.opts.Upstream != nil {
		for _, name := range upstreamReads {
			m[name] = handler{who: m[name].who, params: m[name].params, result: m[name].result,
				call: func(ctx context.Context, raw json.RawMessage) (any, error) {
					res, err := s.opts.Upstream(ctx, "", name, raw)
					return json.RawMessage(res), err
				}}
		}
	}
	return m
}

// upstreamReads are the reads of the swarm's record that a server with
// Options.Upstream (a host's) makes elsewhere (its main swarm's, whose
// bus holds the tasks and every agent's heartbeat), and that ActAs makes
// for it: `swarm task list|show` and the MCP server's agents tool inside a
// host's agents. Messages are not among them: a host's bus carries its
// agents' messages, under the ids typed into their screens.
var upstreamReads = []string{wire.Tasks.Name, wire.TaskDetail.Name, wire.Review.Name, wire.Roster.Name}

// previewBytes bounds a message's body and data as lists of messages
// (Inbox, Messages, Pending) and events carry them: the UI shows a line of
// each, and 20 bodies of a megabyte made an inbox too large to answer.
const previewBytes = 2048

// preview returns m as lists and events carry it: a body longer than
// previewBytes cut at a character and ended with "…", data longer than
// that left out.
func preview(m bus.Message) bus.Message {
	m.Body = cut(m.Body, previewBytes, "…")
	if len(m.Data) > previewBytes {
		m.Data = nil
	}
	return m
}

// cut returns s if it is at most max bytes long, else its first max bytes
// cut at a character and ended with more.
func cut(s string, max int, more string) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + more
}

// Tasks and Review reply as the UI shows them, so that their replies fit
// a frame however long what they carry: a task's description cut at
// descriptionBytes (the board shows its first lines), a review's diff at
// diffBytes (git diff in the task's worktree shows the rest).
const (
	descriptionBytes = 16 << 10
	diffBytes        = 8 << 20
)

// diffCut ends a diff cut at diffBytes.
var diffCut = fmt.Sprintf("\n… (the diff is cut at %d MiB: git diff in the task's worktree shows it whole)\n", diffBytes>>20)

func shownTasks(ts []bus.Task, err error) ([]bus.Task, error) {
	for i := range ts {
		ts[i].Description = cut(ts[i].Description, descriptionBytes, "…")
	}
	return ts, err
}

func previews(msgs []bus.Message, err error) ([]bus.Message, error) {
	for i := range msgs {
		msgs[i] = preview(msgs[i])
	}
	return msgs, err
}

// messageFrom is the message p asks for, sent by sender.
func messageFrom(p wire.MessageParams, sender string) bus.Message {
	return bus.Message{From: sender, To: p.To, Topic: p.Topic, Kind: p.Kind, Body: p.Body, Data: p.Data,
		CorrelationID: p.CorrelationID, InReplyTo: p.InReplyTo}
}

func prunedResults(pruned []tasks.Pruned) []wire.PrunedResult {
	out := make([]wire.PrunedResult, len(pruned))
	for i, p := range pruned {
		out[i] = wire.PrunedResult{Task: p.Task, Deleted: p.Deleted}
		if p.Kept != nil {
			out[i].Kept = p.Kept.Error()
		}
	}
	return out
}

// sentinels are the errors a client may test for with errors.Is, by the
// code their reply carries.
var sentinels = map[string]error{
	"agent_exists":  swarmapi.ErrAgentExists,
	"unknown_agent": swarmapi.ErrUnknownAgent,
	"not_allowed":   tasks.ErrNotAllowed,
	"usage":         actor.ErrUsage,
	"human_only":    ErrHumanOnly,
	"too_large":     ErrTooLarge,
}

// ErrTooLarge is a reply too large for a frame (wire.MaxFrame): the
// client is told so instead of waiting for it.
var ErrTooLarge = errors.New("the reply is too large")

func codeOf(err error) string {
	for code, s := range sentinels {
		if errors.Is(err, s) {
			return code
		}
	}
	return ""
}

// remoteError is an error a swarm replied with: its text, and the sentinel
// its code names, for errors.Is.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// The command line's requests made through the running swarm: who makes
// them is the process at the client's end of the socket, by its
// environment's $SWARM_AGENT and $SWARM_TOKEN (which it sends) and its
// pid (which the socket tells), as actor.Actor judges for a process
// on the bus directly.
// getenv reads e as a process's environment.
func getenv(e wire.CallerEnv) func(string) string {
	return func(k string) string {
		return lookup(e, k)
	}
}

func lookup(e wire.CallerEnv, k string) string {
	switch k {
	case "SWARM_AGENT":
		return e.Agent
	case "SWARM_TOKEN":
		return e.Token
	}
	return ""
}

// acting makes fn's request as the client, whose environment env is:
// actor.Actor judges who that is, from env and the client's process.
func acting[T any](ctx context.Context, s *Server, env wire.CallerEnv, fn func(actor.Actor) (T, error)) (wire.ActorResult[T], error) {
	var v T
	var err error
	if name, ok := ctx.Value(vouchedKey{}).(string); ok {
		v, err = fn(actor.Actor{Bus: s.opts.Bus, As: name})
	} else if err = clientOf(ctx).alive(); err == nil {
		v, err = fn(actor.Actor{Bus: s.opts.Bus, Getenv: getenv(env), Process: clientOf(ctx).proc})
	}
	r := wire.ActorResult[T]{Value: v}
	if err != nil {
		r.Err, r.Code = err.Error(), codeOf(err)
	}
	return r, nil
}

func (s *Server) actorMethods(m map[string]handler) {
	handle(m, wire.SendAs, anyone, func(ctx context.Context, p wire.SendParams) (wire.ActorResult[bus.Message], error) {
		return acting(ctx, s, p.Env, func(a actor.Actor) (bus.Message, error) {
			return a.Send(ctx, actor.SendRequest{To: p.To, Body: p.Body, Kind: p.Kind,
				Data: json.RawMessage(p.Data), Topic: p.Topic, CorrelationID: p.CorrelationID, InReplyTo: p.InReplyTo})
		})
	})
	handle(m, wire.HeartbeatAs, anyone, func(ctx context.Context, p wire.HeartbeatParams) (wire.ActorResult[bus.Heartbeat], error) {
		if s.opts.Upstream != nil {
			return upstream(ctx, s, p.Env, wire.HeartbeatAs, p)
		}
		return acting(ctx, s, p.Env, func(a actor.Actor) (bus.Heartbeat, error) {
			return a.Heartbeat(ctx, actor.HeartbeatRequest{Status: p.Status, Progress: p.Progress, Task: p.Task})
		})
	})
	handle(m, wire.TaskAddAs, anyone, func(ctx context.Context, p wire.TaskAddParams) (wire.ActorResult[bus.Task], error) {
		if s.opts.Upstream != nil {
			return upstream(ctx, s, p.Env, wire.TaskAddAs, p)
		}
		return acting(ctx, s, p.Env, func(a actor.Actor) (bus.Task, error) {
			return a.CreateTask(ctx, p.To, p.Title, p.Description)
		})
	})
	handle(m, wire.TaskReviewAs, anyone, func(ctx context.Context, p wire.TaskReviewParams) (wire.ActorResult[wire.Reviewed], error) {
		if s.opts.Upstream != nil {
			return upstream(ctx, s, p.Env, wire.TaskReviewAs, p)
		}
		return acting(ctx, s, p.Env, func(a actor.Actor) (wire.Reviewed, error) {
			r, t, err := a.ReviewTask(ctx, p.ProjectDir, p.Ref, p.Verdict, p.Note)
			return wire.Reviewed{Review: r, Task: t}, err
		})
	})
	handle(m, wire.TaskMoveAs, anyone, func(ctx context.Context, p wire.TaskMoveParams) (wire.ActorResult[bus.Task], error) {
		if s.opts.Upstream != nil {
			return upstream(ctx, s, p.Env, wire.TaskMoveAs, p)
		}
		var before bus.Task
		r, err := acting(ctx, s, p.Env, func(a actor.Actor) (after bus.Task, err error) {
			before, after, err = a.MoveTask(ctx, p.ProjectDir, p.Ref, p.Move, p.Note)
			return after, err
		})
		r.Before = before
		return r, err
	})
}

// upstream makes m's request through Options.Upstream, as the caller
// judged here.
func upstream[P, T any](ctx context.Context, s *Server, env wire.CallerEnv, m wire.Method[P, wire.ActorResult[T]], p P) (wire.ActorResult[T], error) {
	who, _ := acting(ctx, s, env, func(a actor.Actor) (string, error) { return a.Name(ctx) })
	if who.Err != "" {
		return wire.ActorResult[T]{Err: who.Err, Code: who.Code}, nil
	}
	var r wire.ActorResult[T]
	raw, err := s.opts.Upstream(ctx, who.Value, m.Name, p)
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	if err != nil {
		return wire.ActorResult[T]{Err: err.Error(), Code: codeOf(err)}, nil
	}
	return r, nil
}

// vouchedKey carries, in a request's context, the agent ActAs acts as.
type vouchedKey struct{}

// ActAs answers the command line's request method (a heartbeat or a
// task's add, move or review; params as wire carries them) as agent,
// whom the caller vouches for: a host of this swarm, for an agent it
// runs. A task's git work is done in this swarm's project, whatever
// directory the request names. A read of upstreamReads names no agent.
func (s *Server) ActAs(ctx context.Context, agent, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case wire.HeartbeatAs.Name, wire.TaskAddAs.Name, wire.TaskMoveAs.Name, wire.TaskReviewAs.Name:
		if agent == "" {
			return nil, fmt.Errorf("%q is made as an agent: none was named", method)
		}
	default:
		if !slices.Contains(upstreamReads, method) {
			return nil, fmt.Errorf("%q is not a request made for an agent elsewhere", method)
		}
		v, err := s.methods[method].call(ctx, params)
		if err != nil {
			return nil, err
		}
		return json.Marshal(v)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, fmt.Errorf("bad params: %w", err)
	}
	if _, ok := fields["ProjectDir"]; ok {
		fields["ProjectDir"], _ = json.Marshal(s.opts.Dir)
	}
	params, _ = json.Marshal(fields)
	v, err := s.methods[method].call(context.WithValue(ctx, vouchedKey{}, agent), params)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// Actor makes the command line's requests through the swarm, for the
// process whose environment getenv reads (this one).
type Actor struct {
	Client *Client
	Getenv func(string) string
}

func (a Actor) env() wire.CallerEnv {
	return wire.CallerEnv{Agent: a.Getenv("SWARM_AGENT"), Token: a.Getenv("SWARM_TOKEN")}
}

func actorCall[P, T any](ctx context.Context, cl *Client, m wire.Method[P, wire.ActorResult[T]], params P) (wire.ActorResult[T], error) {
	var r wire.ActorResult[T]
	if err := cl.call(ctx, m.Name, params, &r); err != nil {
		return r, err
	}
	if r.Err != "" {
		return r, &remoteError{msg: r.Err, sentinel: sentinels[r.Code]}
	}
	return r, nil
}

// Send is actor.Actor's Send, made by the swarm.
func (a Actor) Send(ctx context.Context, req actor.SendRequest) (bus.Message, error) {
	r, err := actorCall(ctx, a.Client, wire.SendAs, wire.SendParams{Env: a.env(), To: req.To, Body: req.Body, Kind: req.Kind,
		Data: string(req.Data), Topic: req.Topic, CorrelationID: req.CorrelationID, InReplyTo: req.InReplyTo})
	return r.Value, err
}

// Heartbeat is actor.Actor's Heartbeat, made by the swarm.
func (a Actor) Heartbeat(ctx context.Context, req actor.HeartbeatRequest) (bus.Heartbeat, error) {
	r, err := actorCall(ctx, a.Client, wire.HeartbeatAs, wire.HeartbeatParams{Env: a.env(), Status: req.Status, Progress: req.Progress, Task: req.Task})
	return r.Value, err
}

// CreateTask is actor.Actor's CreateTask, made by the swarm.
func (a Actor) CreateTask(ctx context.Context, to, title, description string) (bus.Task, error) {
	r, err := actorCall(ctx, a.Client, wire.TaskAddAs, wire.TaskAddParams{Env: a.env(), To: to, Title: title, Description: description})
	return r.Value, err
}

// MoveTask is actor.Actor's MoveTask, made by the swarm.
func (a Actor) MoveTask(ctx context.Context, projectDir, ref string, move tasks.Move, note string) (before, after bus.Task, err error) {
	r, err := actorCall(ctx, a.Client, wire.TaskMoveAs, wire.TaskMoveParams{Env: a.env(), ProjectDir: projectDir, Ref: ref, Note: note, Move: move})
	return r.Before, r.Value, err
}

// ReviewTask is actor.Actor's ReviewTask, made by the swarm.
func (a Actor) ReviewTask(ctx context.Context, projectDir, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error) {
	r, err := actorCall(ctx, a.Client, wire.TaskReviewAs, wire.TaskReviewParams{Env: a.env(), ProjectDir: projectDir, Ref: ref, Note: note, Verdict: verdict})
	return r.Value.Review, r.Value.Task, err
}
