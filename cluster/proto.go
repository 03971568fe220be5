package cluster

import (
	"encoding/json"
	"time"

	"swarm/bus"
	"swarm/supervisor"
)

// Streams, subjects and consumers (see the package doc).
const (
	outStream    = "SWARM_OUT"
	inStream     = "SWARM_IN"
	mainConsumer = "main"
	adminHosts   = "swarm.admin.hosts"
	// dupWindow is how long JetStream remembers a message id: a retry
	// within it is dropped by the stream; after it, by the bus's own
	// unique ids.
	dupWindow = time.Hour
	// ackWait is how long a delivery may be held unacknowledged before
	// JetStream sends it again; a host holding one for a busy agent says
	// it is still working on it (InProgress) well within it.
	ackWait = 10 * time.Second
)

func outSubject(host string) string   { return "swarm.out." + host }
func inSubject(host string) string    { return "swarm.in." + host }
func ctlAgents(host string) string    { return "swarm.ctl." + host + ".agents" }
func pingSubject(host string) string  { return "swarm.ping." + host }
func hostConsumer(host string) string { return "host-" + host }

// wireMessage is a message on the wire: what a bus.Message carries from
// its author, not what a bus filled in.
type wireMessage struct {
	ID            string          `json:"id"`
	Time          time.Time       `json:"time"`
	From          string          `json:"from"`
	To            string          `json:"to"`
	Topic         string          `json:"topic,omitempty"`
	Kind          bus.Kind        `json:"kind,omitempty"`
	Body          string          `json:"body"`
	Data          json.RawMessage `json:"data,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	InReplyTo     string          `json:"in_reply_to,omitempty"`
	Priority      int             `json:"priority,omitempty"`
	TTL           time.Duration   `json:"ttl,omitempty"`
}

func toWire(m bus.Message) wireMessage {
	return wireMessage{ID: m.ID, Time: m.Time, From: m.From, To: m.To, Topic: m.Topic, Kind: m.Kind, Body: m.Body,
		Data: m.Data, CorrelationID: m.CorrelationID, InReplyTo: m.InReplyTo, Priority: m.Priority, TTL: m.TTL}
}

func (w wireMessage) message() bus.Message {
	return bus.Message{ID: w.ID, From: w.From, To: w.To, Topic: w.Topic, Kind: w.Kind, Body: w.Body,
		Data: w.Data, CorrelationID: w.CorrelationID, InReplyTo: w.InReplyTo, Priority: w.Priority, TTL: w.TTL}
}

// outbound is one entry of swarm.out.HOST: a message HOST's agent wrote,
// or how a delivery made on HOST ended.
type outbound struct {
	Message *wireMessage `json:"message,omitempty"`
	Status  *status      `json:"status,omitempty"`
}

// status is the end of one delivery on a host: the main bus's message id
// and recipient, and the final state.
type status struct {
	ID        string `json:"id"`
	Recipient string `json:"recipient"`
	State     string `json:"state"` // a bus.DeliveryState's String
	Reason    string `json:"reason,omitempty"`
}

// inbound is one entry of swarm.in.HOST: a message for Recipient, an
// agent of HOST.
type inbound struct {
	Message   wireMessage `json:"message"`
	Recipient string      `json:"recipient"`
}

// definitions is the reply to swarm.ctl.HOST.agents.
type definitions struct {
	// Agents are HOST's, as the main swarm's config has them (their
	// directories are the main machine's).
	Agents []supervisor.AgentConfig `json:"agents"`
	// Others are the rest of the swarm's agents, by name and host ("" for
	// the main machine): messages to them are the main swarm's to route.
	Others []peer `json:"others"`
	// Project is the main swarm's project directory, which agents' dirs
	// are relative to.
	Project string `json:"project"`
	Error   string `json:"error,omitempty"`
}

type peer struct {
	Name       string `json:"name"`
	Host       string `json:"host,omitempty"`
	NoMessages bool   `json:"no_messages,omitempty"`
}

// HostInfo is a line of `swarm hosts`.
type HostInfo struct {
	Name      string        `json:"name"`
	Connected bool          `json:"connected"`
	Since     time.Time     `json:"since"` // connected or away since
	Addr      string        `json:"addr,omitempty"`
	Agents    []string      `json:"agents"`
	RTT       time.Duration `json:"rtt,omitempty"` // the last ping's round trip
}
