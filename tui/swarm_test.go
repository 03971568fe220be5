package tui

import "swarm/supervisor"

// The supervisor is what Run is given in swarm's own process.
var (
	_ Backend = (*supervisor.Supervisor)(nil)
	_ Focuser = (*supervisor.Supervisor)(nil)
	_ Events  = (*supervisor.Subscription)(nil)
	_ Focuser = InProcess(nil).(Focuser)
)
