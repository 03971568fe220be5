package server

import "swarm/swarmapi"

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
	// Watch calls fn with each event of its agents (a screen changed, a
	// process started or ended) until stop is called.
	Watch(fn func(swarmapi.Event)) (stop func())
}

// of is what answers the per-agent methods of the agent called name.
func (s *Server) of(name string) agentScreens {
	if e := s.opts.Elsewhere; e != nil && e.Runs(name) {
		return e
	}
	return s.sup
}

// agents are the swarm's agents: its own, then those elsewhere.
func (s *Server) agents() []swarmapi.AgentInfo {
	out := s.sup.Agents()
	if e := s.opts.Elsewhere; e != nil {
		out = append(out, e.Agents()...)
	}
	return out
}
