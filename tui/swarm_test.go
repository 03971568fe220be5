package tui

import "swarm/supervisor"

// The supervisor is what Run is given in swarm, with the optional merge
// and review of tasks.
var (
	_ Swarm    = (*supervisor.Supervisor)(nil)
	_ Merger   = (*supervisor.Supervisor)(nil)
	_ Reviewer = (*supervisor.Supervisor)(nil)
	_ Focuser  = (*supervisor.Supervisor)(nil)
)
