package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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
	id    uint64 // numbers the connections
	pid   int
	start uint64 // when pid started, to tell it from a later process of the same pid

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
	who, err := supervisor.WhoIsCalling(ctx, s.opts.Bus, noEnv, c.pid)
	if err != nil {
		return supervisor.Caller{}, err
	}
	// A process that ended meanwhile was judged by what was left of it
	// (nothing, or another process that took its pid).
	if err := c.alive(); err != nil {
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
		return fmt.Errorf("%w: %s comes from inside agent %s (pid %d)", ErrHumanOnly, method, who.Name, clientOf(ctx).pid)
	}
	return nil
}

// alive refuses a client whose process has ended (or whose pid another
// process has taken): who it was cannot be told any more, and a process
// that is gone must not pass for the human.
func (c *client) alive() error {
	if c.pid <= 0 {
		return errors.New("the process at the other end of the socket is unknown")
	}
	if start, ok := processStart(c.pid); !ok || start != c.start {
		return fmt.Errorf("the process that connected (pid %d) has ended: who it was cannot be told", c.pid)
	}
	return nil
}

// processStart returns when pid started (field 22 of /proc/PID/stat, in
// clock ticks since boot).
func processStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:]) // field 3 onwards
	if len(fields) < 20 {
		return 0, false
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	return start, err == nil
}
