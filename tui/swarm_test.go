package tui

import "swarm/supervisor"

// The supervisor is what Run is given in swarm.
var (
	_ Swarm   = (*supervisor.Supervisor)(nil)
	_ Focuser = (*supervisor.Supervisor)(nil)
)
