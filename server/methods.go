package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"swarm/bus"
	"swarm/mcpserver"
	"swarm/supervisor"
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
		View supervisor.ScreenView // without its Rows
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
		Key   uv.Key
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
	pruneParams  struct{ DryRun bool }
	reviewResult struct{ Stat, Diff string }
	gameResult   struct {
		State supervisor.GameState
		OK    bool
	}
	none struct{}
)

// methodPing does nothing: a client asks it to learn the swarm answers.
const methodPing = "ping"

// method adapts a function of typed params to the table.
func method[P, R any](fn func(context.Context, P) (R, error)) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("bad params: %w", err)
			}
		}
		return fn(ctx, p)
	}
}

// table returns the methods the server answers, by name.
func (s *Server) table() map[string]func(context.Context, json.RawMessage) (any, error) {
	sup := s.sup
	m := map[string]func(context.Context, json.RawMessage) (any, error){
		"Agents": method(func(context.Context, none) ([]supervisor.AgentInfo, error) { return sup.Agents(), nil }),
		"View": method(func(ctx context.Context, p viewParams) (viewResult, error) {
			v, err := sup.View(p.Agent, p.Top)
			if err != nil {
				return viewResult{}, err
			}
			rows := strings.Split(v.Rows, "\n")
			v.Rows = ""
			return viewResult{Rows: s.screens.diff(connOf(ctx), p.Agent, p.Gen, v.Offset != 0, rows), View: v}, nil
		}),
		"Snapshot": method(func(_ context.Context, p agentParams) (supervisor.ScreenSnapshot, error) {
			return sup.Snapshot(p.Agent)
		}),
		"Text": method(func(_ context.Context, p textParams) (string, error) { return sup.Text(p.Agent, p.From, p.To) }),
		"Find": method(func(_ context.Context, p findParams) ([]supervisor.ScreenMatch, error) {
			return sup.Find(p.Agent, p.Query), nil
		}),
		"Resize": method(func(ctx context.Context, p resizeParams) (none, error) {
			return none{}, s.sizes.resize(connOf(ctx), p.Agent, p.Rows, p.Cols)
		}),
		"SendKey": method(func(ctx context.Context, p keyParams) (none, error) {
			if err := s.sizes.typing(connOf(ctx), p.Agent); err != nil {
				return none{}, err
			}
			return none{}, sup.SendKey(p.Agent, p.Key)
		}),
		"Paste": method(func(ctx context.Context, p pasteParams) (none, error) {
			if err := s.sizes.typing(connOf(ctx), p.Agent); err != nil {
				return none{}, err
			}
			return none{}, sup.Paste(p.Agent, p.Text)
		}),
		"Restart":   method(func(_ context.Context, p agentParams) (none, error) { return none{}, sup.Restart(p.Agent) }),
		"StopAgent": method(func(_ context.Context, p agentParams) (none, error) { return none{}, sup.StopAgent(p.Agent) }),
		"SetFocus":  method(func(_ context.Context, p agentParams) (none, error) { sup.SetFocus(p.Agent); return none{}, nil }),
		"AddAgent": method(func(_ context.Context, ac supervisor.AgentConfig) (none, error) {
			return none{}, sup.AddAgent(ac)
		}),
		"ConfigFile": method(func(context.Context, none) (string, error) { return sup.ConfigFile(), nil }),
		"SaveAgent":  method(func(_ context.Context, p agentParams) (none, error) { return none{}, sup.SaveAgent(p.Agent) }),
		"Send":       method(func(ctx context.Context, m bus.Message) (bus.Message, error) { return sup.Send(ctx, m) }),
		"Game": method(func(context.Context, none) (gameResult, error) {
			g, ok := sup.Game()
			return gameResult{g, ok}, nil
		}),
		"Inbox": method(func(ctx context.Context, p limitParams) ([]bus.Message, error) {
			return sup.Inbox(ctx, p.Agent, p.Limit)
		}),
		"Messages": method(func(ctx context.Context, p afterParams) ([]bus.Message, error) {
			return sup.Messages(ctx, p.After, p.Limit)
		}),
		"LastSeq": method(func(ctx context.Context, _ none) (int64, error) { return sup.LastSeq(ctx) }),
		"Pending": method(func(ctx context.Context, p limitParams) ([]bus.Message, error) {
			return sup.Pending(ctx, p.Agent, p.Limit)
		}),
		"Tasks":      method(func(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) { return sup.Tasks(ctx, f) }),
		"TaskEvents": method(func(ctx context.Context, p idParams) ([]bus.TaskEvent, error) { return sup.TaskEvents(ctx, p.ID) }),
		"Heartbeats": method(func(ctx context.Context, _ none) ([]bus.Heartbeat, error) { return sup.Heartbeats(ctx) }),
		"CreateTask": method(func(ctx context.Context, t bus.NewTask) (bus.Task, error) { return sup.CreateTask(ctx, t) }),
		"Approve":    method(func(ctx context.Context, p noteParams) (bus.Task, error) { return sup.Approve(ctx, p.ID, p.Note) }),
		"RequestChanges": method(func(ctx context.Context, p noteParams) (bus.Task, error) {
			return sup.RequestChanges(ctx, p.ID, p.Note)
		}),
		"Cancel": method(func(ctx context.Context, p noteParams) (bus.Task, error) { return sup.Cancel(ctx, p.ID, p.Note) }),
		"Retry":  method(func(ctx context.Context, p noteParams) (bus.Task, error) { return sup.Retry(ctx, p.ID, p.Note) }),
		"Merge":  method(func(ctx context.Context, p idParams) (bus.Task, error) { return sup.Merge(ctx, p.ID) }),
		"Prune": method(func(ctx context.Context, p pruneParams) ([]tasks.Pruned, error) {
			return sup.Prune(ctx, p.DryRun)
		}),
		"Review": method(func(ctx context.Context, p idParams) (reviewResult, error) {
			stat, diff, err := sup.Review(ctx, p.ID)
			return reviewResult{stat, diff}, err
		}),
		methodPing: method(func(context.Context, none) (none, error) { return none{}, nil }),
		wire.MethodPeek: method(func(_ context.Context, p wire.PeekParams) (wire.PeekResult, error) {
			snap, err := sup.Snapshot(p.Agent)
			return wire.PeekResult{Agent: p.Agent, Rows: snap.Rows, Cols: snap.Cols, Lines: snap.Lines,
				AltScreen: snap.AltScreen, Title: snap.Title}, err
		}),
	}
	if s.opts.Bus != nil {
		s.actorMethods(m)
	}
	return m
}

// sentinels are the errors a client may test for with errors.Is, by the
// code their reply carries.
var sentinels = map[string]error{
	"agent_exists":  supervisor.ErrAgentExists,
	"unknown_agent": supervisor.ErrUnknownAgent,
	"not_allowed":   tasks.ErrNotAllowed,
	"usage":         mcpserver.ErrUsage,
}

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

func (s *Server) actor(ctx context.Context, env callerEnv) mcpserver.Actor {
	return mcpserver.Actor{Bus: s.opts.Bus, Getenv: env.getenv, Pid: pidOf(ctx)}
}

func result[T any](v T, err error) (actorResult[T], error) {
	r := actorResult[T]{Value: v}
	if err != nil {
		r.Err, r.Code = err.Error(), codeOf(err)
	}
	return r, nil
}

func (s *Server) actorMethods(m map[string]func(context.Context, json.RawMessage) (any, error)) {
	m["send"] = method(func(ctx context.Context, p sendParams) (actorResult[bus.Message], error) {
		return result(s.actor(ctx, p.Env).Send(ctx, mcpserver.SendRequest{To: p.To, Body: p.Body, Kind: p.Kind,
			Data: json.RawMessage(p.Data), Topic: p.Topic, CorrelationID: p.CorrelationID, InReplyTo: p.InReplyTo}))
	})
	m["heartbeat"] = method(func(ctx context.Context, p heartbeatParams) (actorResult[bus.Heartbeat], error) {
		return result(s.actor(ctx, p.Env).Heartbeat(ctx, p.Req))
	})
	m["task_add"] = method(func(ctx context.Context, p taskAddParams) (actorResult[bus.Task], error) {
		return result(s.actor(ctx, p.Env).CreateTask(ctx, p.To, p.Title, p.Description))
	})
	m["task_move"] = method(func(ctx context.Context, p taskMoveParams) (actorResult[bus.Task], error) {
		before, after, err := s.actor(ctx, p.Env).MoveTask(ctx, p.ProjectDir, p.Ref, p.Move, p.Note)
		r, _ := result(after, err)
		r.Before = before
		return r, nil
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
