package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"swarm/supervisor"
)

// Who calls. Every connection's client is the process the kernel names
// (SO_PEERCRED), judged by the rule every swarm command is judged by,
// supervisor.WhoIsCalling: a process inside an agent is that agent,
// one outside every agent is the human. Nothing a request says names its
// caller: a message's sender and a task's creator are who calls, and the
// human's methods (callers human) are refused to an agent.

// callers says who may call a method.
type callers int

const (
	// anyone: reads (screens, inboxes, tasks), and what acts as its
	// caller (Send, CreateTask, the command line's requests).
	anyone callers = iota
	// human: what only the person at the UI does: typing into agents,
	// their sizes, starting and stopping them, reviewing tasks, stopping
	// the swarm.
	human
)

// ErrHumanOnly is wrapped by the refusal of a human's method to an agent.
var ErrHumanOnly = errors.New("only the human may do this")

// client is the process at the other end of a connection.
type client struct {
	id   uint64             // numbers the connections
	proc supervisor.Process // who connected (ended, it is nobody)

	mu     sync.Mutex
	judged *supervisor.Caller // once judged: a process cannot leave an agent, nor enter one
}

type clientKey struct{}

// clientOf returns the client a request came from (the zero client for a
// context of no connection).
func clientOf(ctx context.Context) *client {
	if c, ok := ctx.Value(clientKey{}).(*client); ok {
		return c
	}
	return &client{}
}

// caller returns who is at the other end of the connection ctx's request
// came on.
func (s *Server) caller(ctx context.Context) (supervisor.Caller, error) {
	c := clientOf(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	// Whoever holds the connection once its process has ended (a child
	// it handed it to) is not who was judged.
	if err := c.alive(); err != nil {
		return supervisor.Caller{}, err
	}
	if c.judged != nil {
		return *c.judged, nil
	}
	who, err := supervisor.WhoIsCalling(ctx, s.opts.Bus, noEnv, c.proc)
	if err != nil {
		return supervisor.Caller{}, err
	}
	c.judged = &who
	return who, nil
}

// noEnv is the environment of a client that sends none: it is judged by
// its process alone.
func noEnv(string) string { return "" }

// mustBeHuman refuses method to a caller other than the human.
func (s *Server) mustBeHuman(ctx context.Context, method string) error {
	who, err := s.caller(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if who.Agent {
		return fmt.Errorf("%w: %s comes from inside agent %s (pid %d)", ErrHumanOnly, method, who.Name, clientOf(ctx).proc.Pid)
	}
	return nil
}

// alive refuses a client whose process has ended (or whose pid another
// process has taken): supervisor.Process.Alive, the rule WhoIsCalling
// judges by.
func (c *client) alive() error {
	if c.proc.Pid <= 0 {
		return errors.New("the process at the other end of the socket is unknown")
	}
	return c.proc.Alive()
}
