package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"swarm/bus"
	"swarm/supervisor"
	"swarm/tasks"
	"swarm/wire"
)

// The methods of the UI: what package tui's Backend does, one method each,
// named as the Go method is. Params and results are these types, as JSON.
type (
	agentParams struct{ Agent string }
	// renderParams asks for a screen as the rows that changed since the
	// rendering numbered Gen, which the client holds (0: none).
	renderParams struct {
		Agent  string
		Offset int
		Gen    uint64
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
	return map[string]func(context.Context, json.RawMessage) (any, error){
		"Agents": method(func(context.Context, none) ([]supervisor.AgentInfo, error) { return sup.Agents(), nil }),
		"Render": method(func(ctx context.Context, p renderParams) (renderResult, error) {
			text, err := sup.Render(p.Agent, p.Offset)
			if err != nil {
				return renderResult{}, err
			}
			return s.screens.diff(connOf(ctx), p, strings.Split(text, "\n")), nil
		}),
		"Snapshot": method(func(_ context.Context, p agentParams) (supervisor.ScreenSnapshot, error) {
			return sup.Snapshot(p.Agent)
		}),
		"ScrollbackLen": method(func(_ context.Context, p agentParams) (int, error) { return sup.ScrollbackLen(p.Agent), nil }),
		"Text":          method(func(_ context.Context, p textParams) (string, error) { return sup.Text(p.Agent, p.From, p.To) }),
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
}

// sentinels are the errors a client may test for with errors.Is, by the
// code their reply carries.
var sentinels = map[string]error{
	"agent_exists":  supervisor.ErrAgentExists,
	"unknown_agent": supervisor.ErrUnknownAgent,
	"not_allowed":   tasks.ErrNotAllowed,
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
