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

	"swarm/swarmapi"
	"swarm/wire"
)

// The main swarm's side of remote panes (panes.go): Main answers the
// server's per-agent methods for the agents of its hosts
// (server.Elsewhere) by asking their hosts, and lists them as their hosts
// last told.

// remotePanes is what the main swarm knows of its hosts' agents.
type remotePanes struct {
	mu       sync.Mutex
	infos    map[string]swarmapi.AgentInfo // by agent, as its host last told
	held     map[string]*heldView          // each agent's live screen as the main swarm holds it
	sizes    map[string]termSize           // each agent's terminal size as the main swarm's clients last asked
	watchers map[int]func(swarmapi.Event)
	next     int
}

// termSize is a terminal's size in rows and columns.
type termSize struct{ rows, cols int }

// heldView is an agent's screen as the main swarm holds it; mu is held
// for a whole call, so that two clients' calls do not cross. view is the
// rest of its last live view (scrollback length, cursor): while its host
// is away the pane shows that last screen, as a terminal does a lost
// connection's, its state (Agents) telling it is not live.
type heldView struct {
	mu     sync.Mutex
	screen sentScreen
	view   swarmapi.ScreenView
}

// Runs reports whether a host runs the agent called name.
func (m *Main) Runs(name string) bool { return m.agent[name].Host != "" }

// Agents are the hosts' agents, in the config's order: as their hosts
// last told, unreachable while their host is away.
func (m *Main) Agents() []swarmapi.AgentInfo {
	hosts := map[string]HostInfo{}
	for _, h := range m.Hosts() {
		hosts[h.Name] = h
	}
	r := &m.remote
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []swarmapi.AgentInfo
	for _, a := range m.opts.Config.Agents {
		if a.Host == "" {
			continue
		}
		h := hosts[a.Host]
		info, told := r.infos[a.Name]
		switch {
		case !h.Connected:
			info.State, info.Pid = swarmapi.StateUnreachable, 0
			info.Reason = "host " + a.Host + " away since " + h.Since.Format(time.DateTime)
			if !told {
				info.Reason = "host " + a.Host + " not connected yet"
			}
		case !told:
			info.State, info.Reason = swarmapi.StateStarting, "on host "+a.Host
		}
		info.Name, info.Host = a.Name, a.Host
		if info.Cmd == "" {
			info.Cmd = a.Cmd
		}
		out = append(out, info)
	}
	return out
}

// Watch calls fn with each event of the hosts' agents until stop.
func (m *Main) Watch(fn func(swarmapi.Event)) (stop func()) {
	r := &m.remote
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	id := r.next
	r.watchers[id] = fn
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.watchers, id)
	}
}

// told takes a host's report of its agents.
func (m *Main) told(msg *nats.Msg) {
	host := m.space.hostOf("state", msg.Subject)
	var s hostState
	if err := json.Unmarshal(msg.Data, &s); err != nil {
		m.log.Warn("cluster: unreadable state from host", "host", host, "err", err)
		return
	}
	r := &m.remote
	r.mu.Lock()
	for _, a := range s.Agents {
		if m.agent[a.Name].Host == host {
			r.infos[a.Name] = a
		}
	}
	watchers := make([]func(swarmapi.Event), 0, len(r.watchers))
	for _, fn := range r.watchers {
		watchers = append(watchers, fn)
	}
	r.mu.Unlock()
	for _, ev := range s.Events {
		if !forwarded[ev.Kind] || m.agent[ev.Agent].Host != host {
			continue
		}
		for _, fn := range watchers {
			fn(swarmapi.Event(ev))
		}
	}
}

// redraw tells the clients that the screens of host's agents are to be
// read again (its host came back, or went).
func (m *Main) redraw(host string) {
	r := &m.remote
	r.mu.Lock()
	watchers := make([]func(swarmapi.Event), 0, len(r.watchers))
	for _, fn := range r.watchers {
		watchers = append(watchers, fn)
	}
	r.mu.Unlock()
	for _, a := range m.opts.Config.Agents {
		if a.Host != host {
			continue
		}
		for _, fn := range watchers {
			fn(swarmapi.Event{Kind: swarmapi.EventScreen, Agent: a.Name, Time: time.Now()})
			fn(swarmapi.Event{Kind: swarmapi.EventLevel, Agent: a.Name, Time: time.Now()})
		}
	}
}

// call asks the host of agent to answer method.
func call[P, R any](m *Main, agent string, method wire.Method[P, R], params P) (R, error) {
	var out R
	host := m.agent[agent].Host
	if host == "" {
		return out, fmt.Errorf("%s: no host runs it", agent)
	}
	switch h := m.hostInfo(host); {
	case !h.Connected && h.Addr == "": // it has not connected since the main swarm started
		return out, fmt.Errorf("%s: %w (host %s has not joined yet)", agent, ErrHostAway, host)
	case !h.Connected:
		return out, fmt.Errorf("%s: %w (host %s, since %s)", agent, ErrHostAway, host, h.Since.Format(time.DateTime))
	}
	raw, _ := json.Marshal(params)
	data, _ := json.Marshal(agentCall{Method: method.Name, Params: raw})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	msg, err := m.nc.RequestWithContext(ctx, m.space.agent(host), data)
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
		return out, fmt.Errorf("%s: %w (host %s does not answer)", agent, ErrHostAway, host)
	}
	if err != nil {
		return out, fmt.Errorf("%s on host %s: %w", agent, host, err)
	}
	var reply agentReply
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return out, fmt.Errorf("%s on host %s: unreadable reply: %w", agent, host, err)
	}
	if reply.Error != "" {
		return out, fmt.Errorf("on host %s: %s", host, reply.Error)
	}
	if err := json.Unmarshal(reply.Result, &out); err != nil {
		return out, fmt.Errorf("%s on host %s: unreadable reply: %w", agent, host, err)
	}
	return out, nil
}

func (m *Main) hostInfo(name string) HostInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.hosts[name]; ok {
		return *h
	}
	return HostInfo{Name: name}
}

// View is an agent's screen: its host sends the rows changed since the
// rendering held here. While its host is away it is the last live screen
// held here, without its cursor (nothing types there), if one is held:
// the scrollback is on the host, so a view scrolled back is that screen
// too.
func (m *Main) View(name string, top int) (swarmapi.ScreenView, error) {
	r := &m.remote
	r.mu.Lock()
	h := r.held[name]
	if h == nil {
		h = &heldView{}
		r.held[name] = h
	}
	r.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	gen := h.screen.gen
	if top >= 0 {
		gen = 0 // scrolled back: sent whole, held by nobody
	}
	res, err := call(m, name, wire.View, wire.ViewParams{Agent: name, Top: top, Gen: gen})
	if errors.Is(err, ErrHostAway) && h.screen.gen != 0 {
		v := h.view
		v.Rows, v.Offset, v.CursorVisible = strings.Join(h.screen.rows, "\n"), 0, false
		return v, nil
	}
	if err != nil {
		return swarmapi.ScreenView{}, err
	}
	v := res.View
	var screen sentScreen
	if res.View.Offset != 0 {
		screen, err = sentScreen{}.apply(res.Rows)
	} else {
		screen, err = h.screen.apply(res.Rows)
		if err == nil {
			h.screen, h.view = screen, v
		} else {
			h.screen = sentScreen{} // the next call gets it all
		}
	}
	if err != nil {
		return swarmapi.ScreenView{}, fmt.Errorf("%s on host %s: %w", name, m.agent[name].Host, err)
	}
	v.Rows = strings.Join(screen.rows, "\n")
	return v, nil
}

// Snapshot is a copy of an agent's visible screen state.
func (m *Main) Snapshot(name string) (swarmapi.ScreenSnapshot, error) {
	return call(m, name, wire.Snapshot, wire.AgentParams{Agent: name})
}

// Text is rows of an agent's scrollback and screen as plain text.
func (m *Main) Text(name string, from, to int) (string, error) {
	return call(m, name, wire.Text, wire.TextParams{Agent: name, From: from, To: to})
}

// Find is the matches of query in an agent's scrollback and screen (none
// while its host is away).
func (m *Main) Find(name, query string) []swarmapi.ScreenMatch {
	found, err := call(m, name, wire.Find, wire.FindParams{Agent: name, Query: query})
	if err != nil {
		m.log.Warn("cluster: find on a remote screen", "agent", name, "err", err)
	}
	return found
}

// SendKey types a key into an agent's terminal, on its host.
func (m *Main) SendKey(name string, k swarmapi.Key) error {
	_, err := call(m, name, wire.SendKey, wire.KeyParams{Agent: name, Key: k})
	return err
}

// Paste types text into an agent's terminal as one paste, on its host.
func (m *Main) Paste(name, text string) error {
	_, err := call(m, name, wire.Paste, wire.PasteParams{Agent: name, Text: text})
	return err
}

// Resize sets an agent's terminal size, on its host. The size is kept
// (resizeBack): a UI sizes a pane once, while the host may not have
// joined yet, or starts the agent again at its own size when it comes
// back. So a resize while the host is away is not a failure: the agent
// gets the size when it is there.
func (m *Main) Resize(name string, rows, cols int) error {
	r := &m.remote
	r.mu.Lock()
	r.sizes[name] = termSize{rows, cols}
	r.mu.Unlock()
	_, err := call(m, name, wire.Resize, wire.ResizeParams{Agent: name, Rows: rows, Cols: cols})
	if errors.Is(err, ErrHostAway) {
		return nil
	}
	return err
}

// resizeBack gives the running agents of connected hosts the size last
// asked for them where their hosts tell another.
func (m *Main) resizeBack() {
	r := &m.remote
	r.mu.Lock()
	wrong := map[string]termSize{}
	for name, want := range r.sizes {
		if a, ok := r.infos[name]; ok && a.State == swarmapi.StateRunning && (a.Rows != want.rows || a.Cols != want.cols) {
			wrong[name] = want
		}
	}
	r.mu.Unlock()
	for name, want := range wrong {
		if !m.hostInfo(m.agent[name].Host).Connected {
			continue
		}
		if _, err := call(m, name, wire.Resize, wire.ResizeParams{Agent: name, Rows: want.rows, Cols: want.cols}); err != nil {
			m.log.Debug("cluster: size a remote agent as asked", "agent", name, "err", err)
		}
	}
}

// Restart starts an agent's process again, on its host.
func (m *Main) Restart(name string) error {
	_, err := call(m, name, wire.Restart, wire.AgentParams{Agent: name})
	return err
}

// StopAgent stops an agent's process, on its host.
func (m *Main) StopAgent(name string) error {
	_, err := call(m, name, wire.StopAgent, wire.AgentParams{Agent: name})
	return err
}
