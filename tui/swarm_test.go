package tui

import "swarm/supervisor"

// The supervisor is what Run is given in swarm's own process (with its
// Subscribe returning its own type: inProcess below, cli's in swarm).
var (
	_ Backend = (*supervisor.Supervisor)(nil)
	_ Focuser = (*supervisor.Supervisor)(nil)
	_ Events  = (*supervisor.Subscription)(nil)
	_ Swarm   = inProcess{}
)

// inProcess is the swarm running in this process, as the UI's Swarm.
type inProcess struct{ *supervisor.Supervisor }

func (p inProcess) Subscribe() Events { return p.Supervisor.Subscribe() }
