package cluster

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"swarm/bus"
	"swarm/supervisor"
)

// Consumers and timings (see the package doc).
const (
	mainConsumer = "main"
	// dupWindow is how long JetStream remembers a message id: a retry
	// within it is dropped by the stream; after it, by the bus's own
	// unique ids.
	dupWindow = time.Hour
	// ackWait is how long a delivery may be held unacknowledged before
	// JetStream sends it again; a host holding one for a busy agent says
	// it is still working on it (InProgress) well within it.
	ackWait = 10 * time.Second
)

// space names a swarm's streams and subjects on its NATS server. The
// server swarm embeds carries one swarm: its space is "", the names are
// SWARM_OUT and swarm.out.HOST. An existing NATS server ([cluster] nats)
// may carry several swarms on one account, each in the space of its id
// (spaceOf; the join URL carries it): SWARM_ID_OUT and swarm.ID.out.HOST.
type space string

// stream is the stream called name ("OUT" or "IN") in s.
func (s space) stream(name string) string {
	if s == "" {
		return "SWARM_" + name
	}
	return "SWARM_" + string(s) + "_" + name
}

// subject is the subject of kind for host in s (host "*": every host's).
func (s space) subject(kind, host string) string {
	if s == "" {
		return "swarm." + kind + "." + host
	}
	return "swarm." + string(s) + "." + kind + "." + host
}

// hostOf is the host a subject of kind is for.
func (s space) hostOf(kind, subject string) string {
	return strings.TrimPrefix(subject, s.subject(kind, ""))
}

func (s space) outStream() string              { return s.stream("OUT") }
func (s space) inStream() string               { return s.stream("IN") }
func (s space) out(host string) string         { return s.subject("out", host) }
func (s space) in(host string) string          { return s.subject("in", host) }
func (s space) definitions(host string) string { return s.subject("agents", host) }
func (s space) ping(host string) string        { return s.subject("ping", host) }
func (s space) adminHosts() string             { return s.subject("admin", "hosts") }

// validSpace reports whether s can name a space: lower-case hex, as
// spaceOf makes it (it goes into stream names and subjects as it is).
func validSpace(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

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

// definitionsRequest is what a host asks swarm.agents.HOST with: the
// protocol it speaks. A host and its main swarm speak one (wire.Version):
// the payloads' shapes change with it.
type definitionsRequest struct {
	Protocol int `json:"protocol"`
}

// protocolMismatch is the refusal of a host whose protocol is not the main
// swarm's.
func protocolMismatch(host, main int) string {
	return fmt.Sprintf("this host speaks swarm protocol %d and the main swarm %d: run the same version of swarm on both machines", host, main)
}

// definitions is the reply to swarm.agents.HOST.
type definitions struct {
	// Protocol is the main swarm's wire.Version.
	Protocol int `json:"protocol"`
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
