// Package cluster runs a swarm's agents on several machines over NATS
// JetStream.
//
// The main swarm (the one whose swarm.toml has [cluster]) embeds a NATS
// server with JetStream (its store in .swarm/cluster/jetstream) listening
// at [cluster] listen, with TLS under a certificate it makes for itself
// (.swarm/cluster/cert.pem) and one secret per host (hosts.json, written
// by `swarm invite NAME`; `swarm invite --revoke NAME` removes it, and the
// main swarm then disconnects the host). With [cluster] nats it embeds
// none: it and its hosts connect to that existing NATS server (the join
// URL carries its URL), whose own configuration says who may connect and
// publish what. A host (`swarm host URL` on another machine or
// directory) is told by the join URL where to connect, its secret and
// the certificate's SHA-256 fingerprint, which it pins.
//
// On an existing NATS server, which other swarms may share, every
// stream's and subject's name is in the swarm's space, an id made once
// and kept in .swarm/cluster/space (the join URL carries it):
// SWARM_ID_OUT, swarm.ID.out.HOST, and so on (proto.go's space).
//
// A host takes its agents' definitions from the main swarm, runs them in
// PTYs under a supervisor of its own, on a bus of its own (--dir), so
// that they are typed into and confirmed as local agents are. The main
// swarm's bus stays the record of every message; the buses meet on two
// JetStream streams, both work queues with acknowledged durable
// consumers:
//
//	swarm.out.HOST  (stream SWARM_OUT, consumer "main")
//	    what HOST's agents wrote (the message, its id kept: the main bus
//	    commits it once, JetStream's duplicate window drops a retry) and
//	    the end of each delivery made on HOST (confirmed, failed,
//	    unconfirmed, expired), which the main bus records.
//	swarm.in.HOST   (stream SWARM_IN, consumer "host-HOST")
//	    a message for one of HOST's agents (the main swarm follows its
//	    bus's new messages from a cursor, and sweeps every remote agent's
//	    pending ones every 30 s), acknowledged by the host only
//	    once its delivery has ended on the agent's screen and that end is
//	    published back, so a host killed in between gets it again.
//
// A message between two agents of the same host is delivered on that
// host at once (one screen, no round trip) and reported to the main bus.
//
// Requests on core NATS (no stream): swarm.agents.HOST (a host's
// definitions), swarm.ping.HOST (the main swarm's measure of a host's
// round trip) and swarm.admin.hosts (`swarm hosts`, asked with the admin
// secret in .swarm/cluster/admin.secret). Each host's connection may
// publish only to its own subjects, so a message from HOST is trusted to
// come from HOST's agents (and checked to name one as its author).
//
// A remote agent is a pane of the main swarm's UI like a local one
// (panes.go): the main swarm's server asks its host, on
// swarm.agent.HOST, for the per-agent methods of the socket's protocol
// (its screen as the rows changed since the rendering the main swarm
// holds, keys, paste, size, restart), and the host tells its agents'
// events and states on swarm.state.HOST. The command line inside a
// remote agent (swarm heartbeat, swarm task, swarm mcp's task tools)
// reaches its host's socket, which sends the request on swarm.actor.HOST
// for the main swarm to make as that agent (actors.go).
package cluster
