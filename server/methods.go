package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"swarm/bus"
	"swarm/mcpserver"
	"swarm/swarmapi"
	"swarm/tasks"
	"swarm/wire"
)

// The methods of the UI: what package tui's Backend does, one method each,
// named as the Go method is. Params and results are these types, as JSON.
type (
	agentParams struct{ Agent string }
	// viewParams asks for an agent's view (supervisor.Supervisor.View)
	// with its rows as those that changed since the rendering numbered Gen,
	// which the client holds (0: none).
	viewParams struct {
		Agent string
		Top   int
		Gen   uint64
	}
	// viewResult is the view, its rows apart.
	viewResult struct {
		Rows renderResult
		View swarmapi.ScreenView // without its Rows
	}
	// renderResult is a screen: N rows, of which Changed replace the
	// client's rows of rendering Base (Base 0: all of them are here).
	renderResult struct {
		Gen, Base uint64
		N         int
		Changed   map[int]string
	}
	textParams struct {
		Agent    string
		From, To int
	}
	findParams   struct{ Agent, Query string }
	resizeParams struct {
		Agent      string
		Rows, Cols int
	}
	keyParams struct {
		Agent string
		Key   swarmapi.Key
	}
	pasteParams struct{ Agent, Text string }
	noteParams  struct{ ID, Note string }
	idParams    struct{ ID string }
	limitParams struct {
		Agent string
		Limit int
	}
	afterParams struct {
		After int64
		Limit int
	}
	pruneParams struct{ DryRun bool }
	// prunedResult is tasks.Pruned as it travels: why a branch was kept
	// as words (an error value does not survive JSON).
	prunedResult struct {
		Task    bus.Task
		Deleted bool
		Kept    string
	}
	// messageParams is a message to send: it has no sender, which is
	// who calls (Server.caller).
	messageParams struct {
		To, Topic, Body          string
		Kind                     bus.Kind
		Data                     json.RawMessage
		CorrelationID, InReplyTo string
	}
	// newTaskParams is a task to create: it has no creator, which is who
	// calls.
	newTaskParams struct{ Title, Description, Assignee string }
	reviewResult  struct{ Stat, Diff string }
	gameResult    struct {
		State swarmapi.GameState
		OK    bool
	}
	none struct{}
)

// methodPing does nothing: a client asks it to learn the swarm answers.
const methodPing = "ping"

// handler is one method of the socket: what it does, who may call it, and
// its params and result types as they travel (the protocol's tests read
// them).
type handler struct {
	call           func(context.Context, json.RawMessage) (any, error)
	who            callers
	params, result reflect.Type
}

// method makes a handler of a function of typed params.
func method[P, R any](who callers, fn func(context.Context, P) (R, error)) handler {
	return handler{who: who, params: reflect.TypeFor[P](), result: reflect.TypeFor[R](),
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
	m := map[string]handler{
		"Agents": method(anyone, func(context.Context, none) ([]swarmapi.AgentInfo, error) { return sup.Agents(), nil }),
		"View": method(anyone, func(ctx context.Context, p viewParams) (viewResult, error) {
			v, err := sup.View(p.Agent, p.Top)
			if err != nil {
				return viewResult{}, err
			}
			rows := strings.Split(v.Rows, "\n")
			v.Rows = ""
			return viewResult{Rows: s.screens.diff(clientOf(ctx).id, p.Agent, p.Gen, v.Offset != 0, rows), View: v}, nil
		}),
		"Snapshot": method(anyone, func(_ context.Context, p agentParams) (swarmapi.ScreenSnapshot, error) {
			return sup.Snapshot(p.Agent)
		}),
		"Text": method(anyone, func(_ context.Context, p textParams) (string, error) { return sup.Text(p.Agent, p.From, p.To) }),
		"Find": method(anyone, func(_ context.Context, p findParams) ([]swarmapi.ScreenMatch, error) {
			return sup.Find(p.Agent, p.Query), nil
		}),
		"Resize": method(human, func(ctx context.Context, p resizeParams) (none, error) {
			return none{}, s.sizes.resize(clientOf(ctx).id, p.Agent, p.Rows, p.Cols)
		}),
		"SendKey": method(human, func(ctx context.Context, p keyParams) (none, error) {
			if err := s.sizes.typing(clientOf(ctx).id, p.Agent); err != nil {
				return none{}, err
			}
			return none{}, sup.SendKey(p.Agent, p.Key)
		}),
		"Paste": method(human, func(ctx context.Context, p pasteParams) (none, error) {
			if err := s.sizes.typing(clientOf(ctx).id, p.Agent); err != nil {
				return none{}, err
			}
			return none{}, sup.Paste(p.Agent, p.Text)
		}),
		"Restart":   method(human, func(_ context.Context, p agentParams) (none, error) { return none{}, sup.Restart(p.Agent) }),
		"StopAgent": method(human, func(_ context.Context, p agentParams) (none, error) { return none{}, sup.StopAgent(p.Agent) }),
		"SetFocus":  method(human, func(_ context.Context, p agentParams) (none, error) { sup.SetFocus(p.Agent); return none{}, nil }),
		"AddAgent": method(human, func(_ context.Context, n swarmapi.NewAgent) (none, error) {
			return none{}, sup.AddAgent(n)
		}),
		"ConfigFile": method(anyone, func(context.Context, none) (string, error) { return sup.ConfigFile(), nil }),
		"SaveAgent":  method(human, func(_ context.Context, p agentParams) (none, error) { return none{}, sup.SaveAgent(p.Agent) }),
		"Send": method(anyone, func(ctx context.Context, p messageParams) (bus.Message, error) {
			c, err := s.caller(ctx)
			if err != nil {
				return bus.Message{}, fmt.Errorf("send: %w", err)
			}
			return sup.Send(ctx, p.from(c.Name))
		}),
		"Dismiss": method(human, func(ctx context.Context, p idParams) (none, error) { return none{}, sup.Dismiss(ctx, p.ID) }),
		"Game": method(anyone, func(context.Context, none) (gameResult, error) {
			g, ok := sup.Game()
			return gameResult{g, ok}, nil
		}),
		"Inbox": method(anyone, func(ctx context.Context, p limitParams) ([]bus.Message, error) {
			return previews(sup.Inbox(ctx, p.Agent, p.Limit))
		}),
		"Messages": method(anyone, func(ctx context.Context, p afterParams) ([]bus.Message, error) {
			return previews(sup.Messages(ctx, p.After, p.Limit))
		}),
		"LastSeq": method(anyone, func(ctx context.Context, _ none) (int64, error) { return sup.LastSeq(ctx) }),
		"Pending": method(anyone, func(ctx context.Context, p limitParams) ([]bus.Message, error) {
			return previews(sup.Pending(ctx, p.Agent, p.Limit))
		}),
		"Tasks":      method(anyone, func(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) { return sup.Tasks(ctx, f) }),
		"TaskEvents": method(anyone, func(ctx context.Context, p idParams) ([]bus.TaskEvent, error) { return sup.TaskEvents(ctx, p.ID) }),
		"Heartbeats": method(anyone, func(ctx context.Context, _ none) ([]bus.Heartbeat, error) { return sup.Heartbeats(ctx) }),
		"AllChecks":  method(anyone, func(ctx context.Context, _ none) ([]bus.Check, error) { return sup.AllChecks(ctx) }),
		"MergeQueue": method(anyone, func(ctx context.Context, _ none) ([]bus.QueueEntry, error) { return sup.MergeQueue(ctx) }),
		"Reviews":    method(anyone, func(ctx context.Context, p idParams) ([]bus.Review, error) { return sup.Reviews(ctx, p.ID) }),
		"CreateTask": method(anyone, func(ctx context.Context, p newTaskParams) (bus.Task, error) {
			c, err := s.caller(ctx)
			if err != nil {
				return bus.Task{}, fmt.Errorf("create task: %w", err)
			}
			return sup.CreateTask(ctx, bus.NewTask{Title: p.Title, Description: p.Description, Assignee: p.Assignee, CreatedBy: c.Name})
		}),
		"Approve": method(human, func(ctx context.Context, p noteParams) (bus.Task, error) { return sup.Approve(ctx, p.ID, p.Note) }),
		"RequestChanges": method(human, func(ctx context.Context, p noteParams) (bus.Task, error) {
			return sup.RequestChanges(ctx, p.ID, p.Note)
		}),
		"Cancel": method(human, func(ctx context.Context, p noteParams) (bus.Task, error) { return sup.Cancel(ctx, p.ID, p.Note) }),
		"Retry":  method(human, func(ctx context.Context, p noteParams) (bus.Task, error) { return sup.Retry(ctx, p.ID, p.Note) }),
		"Merge":  method(human, func(ctx context.Context, p idParams) (bus.Task, error) { return sup.Merge(ctx, p.ID) }),
		"Prune": method(human, func(ctx context.Context, p pruneParams) ([]prunedResult, error) {
			pruned, err := sup.Prune(ctx, p.DryRun)
			return prunedResults(pruned), err
		}),
		"Review": method(anyone, func(ctx context.Context, p idParams) (reviewResult, error) {
			stat, diff, err := sup.Review(ctx, p.ID)
			return reviewResult{stat, diff}, err
		}),
		methodPing: method(anyone, func(context.Context, none) (none, error) { return none{}, nil }),
		wire.MethodPeek: method(anyone, func(_ context.Context, p wire.PeekParams) (wire.PeekResult, error) {
			snap, err := sup.Snapshot(p.Agent)
			return wire.PeekResult{Agent: p.Agent, Rows: snap.Rows, Cols: snap.Cols, Lines: snap.Lines,
				AltScreen: snap.AltScreen, Title: snap.Title}, err
		}),
	}
	s.actorMethods(m)
	return m
}

// previewBytes bounds a message's body and data as lists of messages
// (Inbox, Messages, Pending) and events carry them: the UI shows a line of
// each, and 20 bodies of a megabyte made an inbox too large to answer.
const previewBytes = 2048

// preview returns m as lists and events carry it: a body longer than
// previewBytes cut at a character and ended with "…", data longer than
// that left out.
func preview(m bus.Message) bus.Message {
	if len(m.Body) > previewBytes {
		cut := previewBytes
		for cut > 0 && !utf8.RuneStart(m.Body[cut]) {
			cut--
		}
		m.Body = m.Body[:cut] + "…"
	}
	if len(m.Data) > previewBytes {
		m.Data = nil
	}
	return m
}

func previews(msgs []bus.Message, err error) ([]bus.Message, error) {
	for i := range msgs {
		msgs[i] = preview(msgs[i])
	}
	return msgs, err
}

// from is the message p asks for, sent by sender.
func (p messageParams) from(sender string) bus.Message {
	return bus.Message{From: sender, To: p.To, Topic: p.Topic, Kind: p.Kind, Body: p.Body, Data: p.Data,
		CorrelationID: p.CorrelationID, InReplyTo: p.InReplyTo}
}

func prunedResults(pruned []tasks.Pruned) []prunedResult {
	out := make([]prunedResult, len(pruned))
	for i, p := range pruned {
		out[i] = prunedResult{Task: p.Task, Deleted: p.Deleted}
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
	"usage":         mcpserver.ErrUsage,
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
// pid (which the socket tells), as mcpserver.Actor judges for a process
// on the bus directly.
type (
	callerEnv struct{ Agent, Token string }
	// sendParams is mcpserver.SendRequest with its Data as a string:
	// what the command line was given, valid JSON or not (the swarm
	// checks it as the command line would).
	sendParams struct {
		Env                                                   callerEnv
		To, Body, Kind, Data, Topic, CorrelationID, InReplyTo string
	}
	heartbeatParams struct {
		Env callerEnv
		Req mcpserver.HeartbeatRequest
	}
	taskAddParams struct {
		Env                    callerEnv
		To, Title, Description string
	}
	taskMoveParams struct {
		Env                   callerEnv
		ProjectDir, Ref, Note string
		Move                  tasks.Move
	}
	taskReviewParams struct {
		Env                   callerEnv
		ProjectDir, Ref, Note string
		Verdict               bus.Verdict
	}
	// reviewed is a reviewer's verdict and the task after it.
	reviewed struct {
		Review bus.Review
		Task   bus.Task
	}
	// actorResult carries a value and an error together: a message
	// stored with a failed delivery is both.
	actorResult[T any] struct {
		Value     T
		Before    T // MoveTask's task before the move
		Err, Code string
	}
)

func (e callerEnv) getenv(k string) string {
	switch k {
	case "SWARM_AGENT":
		return e.Agent
	case "SWARM_TOKEN":
		return e.Token
	}
	return ""
}

// acting makes fn's request as the client, whose environment env is:
// mcpserver.Actor judges who that is, from env and the client's process.
func acting[T any](ctx context.Context, s *Server, env callerEnv, fn func(mcpserver.Actor) (T, error)) (actorResult[T], error) {
	var v T
	err := clientOf(ctx).alive()
	if err == nil {
		v, err = fn(mcpserver.Actor{Bus: s.opts.Bus, Getenv: env.getenv, Process: clientOf(ctx).proc})
	}
	r := actorResult[T]{Value: v}
	if err != nil {
		r.Err, r.Code = err.Error(), codeOf(err)
	}
	return r, nil
}

func (s *Server) actorMethods(m map[string]handler) {
	m["send"] = method(anyone, func(ctx context.Context, p sendParams) (actorResult[bus.Message], error) {
		return acting(ctx, s, p.Env, func(a mcpserver.Actor) (bus.Message, error) {
			return a.Send(ctx, mcpserver.SendRequest{To: p.To, Body: p.Body, Kind: p.Kind,
				Data: json.RawMessage(p.Data), Topic: p.Topic, CorrelationID: p.CorrelationID, InReplyTo: p.InReplyTo})
		})
	})
	m["heartbeat"] = method(anyone, func(ctx context.Context, p heartbeatParams) (actorResult[bus.Heartbeat], error) {
		return acting(ctx, s, p.Env, func(a mcpserver.Actor) (bus.Heartbeat, error) { return a.Heartbeat(ctx, p.Req) })
	})
	m["task_add"] = method(anyone, func(ctx context.Context, p taskAddParams) (actorResult[bus.Task], error) {
		return acting(ctx, s, p.Env, func(a mcpserver.Actor) (bus.Task, error) {
			return a.CreateTask(ctx, p.To, p.Title, p.Description)
		})
	})
	m["task_review"] = method(anyone, func(ctx context.Context, p taskReviewParams) (actorResult[reviewed], error) {
		return acting(ctx, s, p.Env, func(a mcpserver.Actor) (reviewed, error) {
			r, t, err := a.ReviewTask(ctx, p.ProjectDir, p.Ref, p.Verdict, p.Note)
			return reviewed{r, t}, err
		})
	})
	m["task_move"] = method(anyone, func(ctx context.Context, p taskMoveParams) (actorResult[bus.Task], error) {
		var before bus.Task
		r, err := acting(ctx, s, p.Env, func(a mcpserver.Actor) (after bus.Task, err error) {
			before, after, err = a.MoveTask(ctx, p.ProjectDir, p.Ref, p.Move, p.Note)
			return after, err
		})
		r.Before = before
		return r, err
	})
}

// Actor makes the command line's requests through the swarm, for the
// process whose environment getenv reads (this one).
type Actor struct {
	Client *Client
	Getenv func(string) string
}

func (a Actor) env() callerEnv {
	return callerEnv{Agent: a.Getenv("SWARM_AGENT"), Token: a.Getenv("SWARM_TOKEN")}
}

func actorCall[T any](ctx context.Context, cl *Client, method string, params any) (actorResult[T], error) {
	var r actorResult[T]
	if err := cl.call(ctx, method, params, &r); err != nil {
		return r, err
	}
	if r.Err != "" {
		return r, &remoteError{msg: r.Err, sentinel: sentinels[r.Code]}
	}
	return r, nil
}

// Send is mcpserver.Actor's Send, made by the swarm.
func (a Actor) Send(ctx context.Context, req mcpserver.SendRequest) (bus.Message, error) {
	r, err := actorCall[bus.Message](ctx, a.Client, "send", sendParams{Env: a.env(), To: req.To, Body: req.Body, Kind: req.Kind,
		Data: string(req.Data), Topic: req.Topic, CorrelationID: req.CorrelationID, InReplyTo: req.InReplyTo})
	return r.Value, err
}

// Heartbeat is mcpserver.Actor's Heartbeat, made by the swarm.
func (a Actor) Heartbeat(ctx context.Context, req mcpserver.HeartbeatRequest) (bus.Heartbeat, error) {
	r, err := actorCall[bus.Heartbeat](ctx, a.Client, "heartbeat", heartbeatParams{a.env(), req})
	return r.Value, err
}

// CreateTask is mcpserver.Actor's CreateTask, made by the swarm.
func (a Actor) CreateTask(ctx context.Context, to, title, description string) (bus.Task, error) {
	r, err := actorCall[bus.Task](ctx, a.Client, "task_add", taskAddParams{a.env(), to, title, description})
	return r.Value, err
}

// MoveTask is mcpserver.Actor's MoveTask, made by the swarm.
func (a Actor) MoveTask(ctx context.Context, projectDir, ref string, move tasks.Move, note string) (before, after bus.Task, err error) {
	r, err := actorCall[bus.Task](ctx, a.Client, "task_move", taskMoveParams{Env: a.env(), ProjectDir: projectDir, Ref: ref, Note: note, Move: move})
	return r.Before, r.Value, err
}

// ReviewTask is mcpserver.Actor's ReviewTask, made by the swarm.
func (a Actor) ReviewTask(ctx context.Context, projectDir, ref string, verdict bus.Verdict, note string) (bus.Review, bus.Task, error) {
	r, err := actorCall[reviewed](ctx, a.Client, "task_review", taskReviewParams{Env: a.env(), ProjectDir: projectDir, Ref: ref, Note: note, Verdict: verdict})
	return r.Value.Review, r.Value.Task, err
}
