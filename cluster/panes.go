package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"swarm/supervisor"
	"swarm/swarmapi"
	"swarm/wire"
)

// A remote agent is a pane of the main swarm's UI as a local one is. The
// main swarm's server sends the per-agent methods of wire's protocol
// (View, Snapshot, Text, Find, SendKey, Paste, Resize, Restart,
// StopAgent) for a remote agent to its host as requests on core NATS
// (swarm.agent.HOST), with their params and results as the socket carries
// them. A host tells what its agents do on swarm.state.HOST: their events
// (a screen changed, a process started or ended), at most a batch a
// frame, and their states, every second and after an event that changes
// one. Neither is in a stream: a lost notice is made good by the next, a
// lost frame is asked for again.
//
// A screen travels as the socket carries it: the rows changed since the
// rendering the main swarm holds (View's Gen), all of them when it holds
// none or another.

func (s space) agent(host string) string { return s.subject("agent", host) }
func (s space) state(host string) string { return s.subject("state", host) }

// agentCall is one per-agent method a host answers: wire's method name
// and its params.
type agentCall struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type agentReply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// hostState is a host's report of its agents, their events in all their
// fields (wire.Event: swarmapi.Event's own JSON is the shorter one
// swarm up --headless --json prints).
type hostState struct {
	Agents []swarmapi.AgentInfo `json:"agents,omitempty"`
	Events []wire.Event         `json:"events,omitempty"`
}

// forwarded are the events of a host's agents the main swarm's clients
// are told of; messages and tasks are the main bus's own.
var forwarded = map[swarmapi.EventKind]bool{
	swarmapi.EventAgentStarted: true, swarmapi.EventAgentExited: true, swarmapi.EventAgentRestarting: true,
	swarmapi.EventAgentGaveUp: true, swarmapi.EventAgentStopped: true, swarmapi.EventLevel: true,
	swarmapi.EventScreen: true, swarmapi.EventHeld: true, swarmapi.EventTurn: true,
}

// sentScreen is the rendering of a screen one end holds: numbered rows.
type sentScreen struct {
	gen  uint64
	rows []string
}

// changes is rows as r tells them to the holder of rendering held: the
// rows changed since, or all of them when held is not prev.
func changes(prev sentScreen, held, gen uint64, rows []string) wire.RenderResult {
	r := wire.RenderResult{Gen: gen, N: len(rows), Changed: map[int]string{}}
	if held != 0 && held == prev.gen {
		r.Base = prev.gen
	}
	for i, row := range rows {
		if r.Base == 0 || i >= len(prev.rows) || prev.rows[i] != row {
			r.Changed[i] = row
		}
	}
	return r
}

// apply is the rendering r makes of held.
func (held sentScreen) apply(r wire.RenderResult) (sentScreen, error) {
	if r.Base != 0 && r.Base != held.gen {
		return held, fmt.Errorf("rows changed since rendering %d, but %d is held", r.Base, held.gen)
	}
	rows := make([]string, r.N)
	if r.Base != 0 {
		copy(rows, held.rows)
	}
	for i, row := range r.Changed {
		if i >= 0 && i < r.N {
			rows[i] = row
		}
	}
	return sentScreen{gen: r.Gen, rows: rows}, nil
}

// paneServer answers, on a host, the main swarm's per-agent methods for
// the host's agents, and tells it what they do.
type paneServer struct {
	host  string
	space space
	sup   *supervisor.Supervisor
	local map[string]bool
	nc    *nats.Conn
	calls map[string]func(json.RawMessage) (any, error)

	mu   sync.Mutex
	gen  uint64
	sent map[string]sentScreen // each agent's screen as the main swarm holds it
}

// serve makes fn the answer to m's calls.
func serve[P, R any](t map[string]func(json.RawMessage) (any, error), m wire.Method[P, R], fn func(P) (R, error)) {
	t[m.Name] = func(raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("bad params: %w", err)
			}
		}
		return fn(p)
	}
}

func newPaneServer(sp space, host string, sup *supervisor.Supervisor, local map[string]bool, nc *nats.Conn) *paneServer {
	ps := &paneServer{host: host, space: sp, sup: sup, local: local, nc: nc, calls: map[string]func(json.RawMessage) (any, error){}, sent: map[string]sentScreen{}}
	none := wire.None{}
	t := ps.calls
	serve(t, wire.View, ps.view)
	serve(t, wire.Snapshot, func(p wire.AgentParams) (swarmapi.ScreenSnapshot, error) { return sup.Snapshot(p.Agent) })
	serve(t, wire.Text, func(p wire.TextParams) (string, error) { return sup.Text(p.Agent, p.From, p.To) })
	serve(t, wire.Find, func(p wire.FindParams) ([]swarmapi.ScreenMatch, error) { return sup.Find(p.Agent, p.Query), nil })
	serve(t, wire.SendKey, func(p wire.KeyParams) (wire.None, error) { return none, sup.SendKey(p.Agent, p.Key) })
	serve(t, wire.Paste, func(p wire.PasteParams) (wire.None, error) { return none, sup.Paste(p.Agent, p.Text) })
	serve(t, wire.Resize, func(p wire.ResizeParams) (wire.None, error) { return none, sup.Resize(p.Agent, p.Rows, p.Cols) })
	serve(t, wire.Restart, func(p wire.AgentParams) (wire.None, error) { return none, sup.Restart(p.Agent) })
	serve(t, wire.StopAgent, func(p wire.AgentParams) (wire.None, error) { return none, sup.StopAgent(p.Agent) })
	return ps
}

func (ps *paneServer) view(p wire.ViewParams) (wire.ViewResult, error) {
	v, err := ps.sup.View(p.Agent, p.Top)
	if err != nil {
		return wire.ViewResult{}, err
	}
	rows := strings.Split(v.Rows, "\n")
	v.Rows = ""
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.gen++
	if v.Offset != 0 { // scrolled back: all of it, held by nobody
		return wire.ViewResult{Rows: changes(sentScreen{}, 0, ps.gen, rows), View: v}, nil
	}
	r := changes(ps.sent[p.Agent], p.Gen, ps.gen, rows)
	ps.sent[p.Agent] = sentScreen{gen: ps.gen, rows: rows}
	return wire.ViewResult{Rows: r, View: v}, nil
}

// answer answers one call of the main swarm.
func (ps *paneServer) answer(msg *nats.Msg) {
	var c agentCall
	var reply agentReply
	if err := json.Unmarshal(msg.Data, &c); err != nil {
		reply.Error = "unreadable call: " + err.Error()
	} else if fn, ok := ps.calls[c.Method]; !ok {
		reply.Error = fmt.Sprintf("host %s does not answer %q", ps.host, c.Method)
	} else if v, err := fn(c.Params); err != nil {
		reply.Error = err.Error()
	} else {
		reply.Result, _ = json.Marshal(v)
	}
	data, _ := json.Marshal(reply)
	_ = msg.Respond(data)
}

// stateEvery is how often a host tells its agents' states unasked.
const stateEvery = time.Second

// run answers calls and tells the agents' events and states until ctx is
// done.
func (ps *paneServer) run(ctx context.Context) error {
	calls, err := ps.nc.Subscribe(ps.space.agent(ps.host), ps.answer)
	if err != nil {
		return err
	}
	defer calls.Unsubscribe()
	sub := ps.sup.Subscribe()
	defer sub.Close()
	tick := time.NewTicker(stateEvery)
	defer tick.Stop()
	frame := time.NewTimer(time.Hour)
	frame.Stop()
	defer frame.Stop()
	var batch []wire.Event
	screens := map[string]bool{}
	armed, states := false, true
	for {
		if states || (!armed && (len(batch) > 0 || len(screens) > 0)) {
			ps.tell(batch, screens, states)
			batch, states = nil, false
			clear(screens)
			// The next batch waits a frame: a busy screen costs a notice
			// a frame, however much it prints.
			frame.Reset(time.Second / 60)
			armed = true
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sub.Events():
			if !ok {
				return nil
			}
			if !forwarded[ev.Kind] || !ps.local[ev.Agent] {
				continue
			}
			if ev.Kind == swarmapi.EventScreen {
				screens[ev.Agent] = true
			} else {
				batch = append(batch, wire.Event(ev))
				states = true
			}
		case <-frame.C:
			armed = false
		case <-tick.C:
			states = true
		}
	}
}

// tell publishes a batch of events, with the agents' states when asked.
func (ps *paneServer) tell(batch []wire.Event, screens map[string]bool, states bool) {
	s := hostState{Events: batch}
	for name := range screens {
		s.Events = append(s.Events, wire.Event{Kind: swarmapi.EventScreen, Agent: name, Time: time.Now()})
	}
	if states {
		for _, a := range ps.sup.Agents() {
			if ps.local[a.Name] {
				s.Agents = append(s.Agents, a)
			}
		}
	}
	if len(s.Events) == 0 && len(s.Agents) == 0 {
		return
	}
	data, _ := json.Marshal(s)
	_ = ps.nc.Publish(ps.space.state(ps.host), data)
}

// callTimeout bounds a per-agent call to a host: a UI waits for it.
const callTimeout = 5 * time.Second

// ErrHostAway is a call for an agent whose host is not connected.
var ErrHostAway = errors.New("its host is away")
