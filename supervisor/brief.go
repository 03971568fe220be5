package supervisor

import (
	"fmt"
	"strings"

	"swarm/bus"
)

// brief is what an agent with `brief` set is told when it starts: who it
// is, who its peers are and how to take part — through swarm's MCP tools
// when its kit gave it them, else (and always as the fallback) by printing
// relay lines and running swarm's commands. It is typed in as one message
// from swarm.
func (s *Supervisor) brief(cfg AgentConfig, tools bool) string {
	var peers []string
	for _, n := range s.Names() {
		if n != cfg.Name {
			peers = append(peers, n)
		}
	}
	peerList := "none yet"
	if len(peers) > 0 {
		peerList = strings.Join(peers, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are %q in a swarm of agents supervised by a human. Your peers: %s.\n", cfg.Name, peerList)
	if tools {
		b.WriteString("Use the tools of the MCP server named swarm: send (message a peer, or * for everyone), inbox (your unread messages), agents (who is here), task_create, task_start, task_done, task_fail and heartbeat. If they are not available, use the lines below.\n")
	}
	b.WriteString("To message a peer, print a line of its own: @relay:<peer> <message> (use @relay:* for everyone).\n")
	b.WriteString("For long or multi-line messages print a block: [[RELAY]] {\"to\":\"<peer>\",\"body\":\"...\"} [[/RELAY]] with the markers on their own lines.\n")
	b.WriteString("Messages to you arrive as lines like: [relay #<id> from <sender>] <message>. The same id twice is one message.\n")
	swarm := s.swarmCommand()
	fmt.Fprintf(&b, "Report task progress with the shell commands `%[1]s task start`, `%[1]s task done`, `%[1]s task fail --reason TEXT`, or `%[1]s heartbeat --status working|idle|blocked`.", swarm)
	if cfg.BriefText != "" {
		b.WriteString("\n")
		b.WriteString(cfg.BriefText)
	}
	return b.String()
}

// A brief is a message from swarm to the agent with a delivery of its
// own, so that `swarm log` and the UI show what became of it. It is never
// queued for the injector: typeBrief types it once per process start,
// marked injected from the moment it is stored, and records its end —
// confirmed, unconfirmed or failed, with the reason — before anything
// else is typed. A brief still open when swarm stopped belongs to a
// process that is gone; the injector fails it (staleBrief) rather than
// type it into the next one, which gets a brief of its own.

// publishBrief stores the brief text for the agent, marked injected.
func (a *agent) publishBrief(text string) (bus.Message, error) {
	ctx := a.publishCtx()
	m, err := a.s.bus.Publish(ctx, bus.Message{From: bus.Swarm, To: a.cfg.Name, Kind: bus.KindBrief, Body: text})
	if err != nil {
		return m, err
	}
	if err := a.persist(func() error { return a.s.bus.MarkInjected(ctx, m.ID, a.cfg.Name) }); err != nil {
		a.s.log.Error("mark brief injected", "agent", a.cfg.Name, "err", err)
	}
	return m, nil
}

// briefTyped records what became of brief m: res as typeIn says, or a
// reason it could not be typed (res gone, reason not empty).
func (a *agent) briefTyped(m bus.Message, res outcome, reason string) {
	ctx := a.publishCtx()
	switch {
	case res == taken:
		if err := a.persist(func() error { return a.s.bus.MarkConfirmed(ctx, m.ID, a.cfg.Name) }); err != nil {
			a.s.log.Error("mark brief confirmed", "agent", a.cfg.Name, "err", err)
			return // no event for what the bus does not hold
		}
		a.s.hub.emit(Event{Kind: EventDelivered, Agent: a.cfg.Name, Message: &m})
	case res == unconfirmed:
		if err := a.persist(func() error { return a.s.bus.MarkUnconfirmed(ctx, m.ID, a.cfg.Name, reason) }); err != nil {
			a.s.log.Error("mark brief unconfirmed", "agent", a.cfg.Name, "err", err)
		}
		a.s.hub.emit(Event{Kind: EventUnconfirmed, Agent: a.cfg.Name, Message: &m, Text: "its brief: " + reason})
	default:
		if reason == "" {
			reason = "its process ended before it took the brief (the next one gets a brief of its own)"
		}
		a.fail(ctx, m, "its brief: "+reason)
	}
}

// staleBrief says whether m is a brief of an earlier process, which is
// failed instead of typed.
func (a *agent) staleBrief(m bus.Message) bool {
	if m.Kind != bus.KindBrief {
		return false
	}
	a.fail(a.publishCtx(), m, "a brief to a process that has ended: each start types a brief of its own")
	return true
}
