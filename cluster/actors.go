package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// The command line inside a remote agent (swarm heartbeat, swarm task
// add/start/done/review…, and the same tools of swarm mcp) reaches its
// host's socket, in the host's state directory ($SWARM_DIR there). The
// host judges who calls on its own bus (the agent's token, which it gave),
// and sends the request on swarm.actor.HOST to the main swarm, whose bus
// holds the tasks and heartbeats; the main swarm makes it as that agent
// only when HOST runs it. The reads of the record the main swarm holds
// (swarm task list|show, swarm mcp's agents tool) go the same way, as no
// agent (server's upstreamReads). A message (swarm send) and an inbox stay
// on the host's bus, which carries them as any other.

func (s space) actor(host string) string { return s.subject("actor", host) }

// actorCall is a command-line request a host vouches for.
type actorCall struct {
	Agent  string          `json:"agent"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ActFunc makes a command-line request as an agent a host vouches for
// (server.Server.ActAs).
type ActFunc func(ctx context.Context, agent, method string, params json.RawMessage) (json.RawMessage, error)

// ActFor makes the requests hosts send for their agents with act (the
// main swarm's server, which serves the same requests on its socket).
func (m *Main) ActFor(act ActFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.act = act
}

// actorTimeout bounds a request a host sends for its agent: a task's
// move may do git work.
const actorTimeout = time.Minute

// actFor answers a host's request for one of its agents.
func (m *Main) actFor(msg *nats.Msg) {
	host := m.space.hostOf("actor", msg.Subject)
	var c actorCall
	var reply agentReply
	m.mu.Lock()
	act := m.act
	m.mu.Unlock()
	switch err := json.Unmarshal(msg.Data, &c); {
	case err != nil:
		reply.Error = "unreadable request: " + err.Error()
	case c.Agent != "" && m.agent[c.Agent].Host != host:
		reply.Error = fmt.Sprintf("host %s does not run agent %q: it cannot act for it", host, c.Agent)
		m.log.Warn("cluster: refused a request from a host for an agent it does not run", "host", host, "agent", c.Agent)
	case act == nil:
		reply.Error = "the main swarm is starting: try again"
	default:
		ctx, cancel := context.WithTimeout(context.Background(), actorTimeout)
		reply.Result, err = act(ctx, c.Agent, c.Method, c.Params)
		cancel()
		if err != nil {
			reply.Error = err.Error()
		}
	}
	data, _ := json.Marshal(reply)
	_ = msg.Respond(data)
}

// upstream sends a request of one of the host's agents to the main
// swarm (server.Options.Upstream).
func upstream(nc *nats.Conn, sp space, host string) func(ctx context.Context, agent, method string, params any) (json.RawMessage, error) {
	return func(ctx context.Context, agent, method string, params any) (json.RawMessage, error) {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		data, _ := json.Marshal(actorCall{Agent: agent, Method: method, Params: raw})
		ctx, cancel := context.WithTimeout(ctx, actorTimeout)
		defer cancel()
		msg, err := nc.RequestWithContext(ctx, sp.actor(host), data)
		if errors.Is(err, nats.ErrNoResponders) {
			return nil, errors.New("the main swarm does not answer (is it running?)")
		}
		if err != nil {
			return nil, fmt.Errorf("the main swarm: %w", err)
		}
		var reply agentReply
		if err := json.Unmarshal(msg.Data, &reply); err != nil {
			return nil, fmt.Errorf("the main swarm's reply: %w", err)
		}
		if reply.Error != "" {
			return nil, fmt.Errorf("the main swarm: %s", reply.Error)
		}
		return reply.Result, nil
	}
}
