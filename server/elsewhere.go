package server

import (
	"swarm/supervisor"
	"swarm/swarmapi"
)

// Agents elsewhere: a main swarm whose agents run on other machines too
// (package cluster) lists them with its own, and a client's per-agent
// methods for one of them (its screen, keys, size, restart) go to its
// host: a client cannot tell a remote agent from a local one but by its
// Host.

// agentScreens are the per-agent methods a client calls by an agent's
// name, as the supervisor answers them for the agents it runs.
type agentScreens interface {
	View(name string, top int) (swarmapi.ScreenView, error)
	Snapshot(name string) (swarmapi.ScreenSnapshot, error)
	Text(name string, from, to int) (string, error)
	Find(name, query string) []swarmapi.ScreenMatch
	SendKey(name string, k swarmapi.Key) error
	Paste(name, text string) error
	Resize(name string, rows, cols int) error
	Restart(name string) error
	StopAgent(name string) error
}

// Elsewhere runs agents on other machines.
type Elsewhere interface {
	agentScreens
	// Runs reports whether it runs the agent called name.
	Runs(name string) bool
	// Agents are its agents' states, as their hosts last told them.
	Agents() []swarmapi.AgentInfo
}

// Everywhere is a swarm's supervisor with its agents elsewhere beside
// its own: the swarm as the server's clients see it, and as a UI in the
// swarm's own process shows it (swarm up --foreground). The events of the
// agents elsewhere come with the supervisor's own (supervisor.Tell).
type Everywhere struct {
	*supervisor.Supervisor
	Elsewhere Elsewhere // nil: every agent is the supervisor's
}

// of is what answers the per-agent methods of the agent called name.
func (w Everywhere) of(name string) agentScreens {
	if w.Elsewhere != nil && w.Elsewhere.Runs(name) {
		return w.Elsewhere
	}
	return w.Supervisor
}

// Agents are the swarm's agents: its own, then those elsewhere.
func (w Everywhere) Agents() []swarmapi.AgentInfo {
	out := w.Supervisor.Agents()
	if w.Elsewhere != nil {
		out = append(out, w.Elsewhere.Agents()...)
	}
	return out
}

func (w Everywhere) View(name string, top int) (swarmapi.ScreenView, error) {
	return w.of(name).View(name, top)
}

func (w Everywhere) Snapshot(name string) (swarmapi.ScreenSnapshot, error) {
	return w.of(name).Snapshot(name)
}

func (w Everywhere) Text(name string, from, to int) (string, error) {
	return w.of(name).Text(name, from, to)
}

func (w Everywhere) Find(name, query string) []swarmapi.ScreenMatch {
	return w.of(name).Find(name, query)
}

func (w Everywhere) SendKey(name string, k swarmapi.Key) error { return w.of(name).SendKey(name, k) }
func (w Everywhere) Paste(name, text string) error             { return w.of(name).Paste(name, text) }
func (w Everywhere) Resize(name string, rows, cols int) error {
	return w.of(name).Resize(name, rows, cols)
}
func (w Everywhere) Restart(name string) error   { return w.of(name).Restart(name) }
func (w Everywhere) StopAgent(name string) error { return w.of(name).StopAgent(name) }

// everywhere is the swarm the server serves.
func (s *Server) everywhere() Everywhere {
	return Everywhere{Supervisor: s.sup, Elsewhere: s.opts.Elsewhere}
}

// of is what answers the per-agent methods of the agent called name.
func (s *Server) of(name string) agentScreens { return s.everywhere().of(name) }

// agents are the swarm's agents: its own, then those elsewhere.
func (s *Server) agents() []swarmapi.AgentInfo { return s.everywhere().Agents() }
