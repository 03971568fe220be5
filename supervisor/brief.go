package supervisor

import (
	"fmt"
	"strings"
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
