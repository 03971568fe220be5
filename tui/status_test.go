package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"swarm/bus"
	"swarm/swarmapi"
)

// TestActionResultOutlivesPlannedRestart: after a merge the supervisor
// restarts the agent in its own directory; that exit is planned and does
// not replace the merge's result. An unplanned exit meanwhile waits until
// the result has been shown for its time.
func TestActionResultOutlivesPlannedRestart(t *testing.T) {
	now := t0
	sw := scenario(t)
	tk := createTask(t, sw.b, "add tests", "alice", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	if err := sw.b.SetTaskGit(context.Background(), tk.ID, "swarm/"+tk.ID, ".swarm/worktrees/"+tk.ID, "main"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sw, 100, 24, Options{Now: func() time.Time { return now }})
	h.keys("t", "m", "y")
	merged := "task " + tk.ID + " (add tests) completed: merged as 0123abc"
	requireContains(t, h.screen(), merged)

	now = now.Add(time.Second)
	h.send(
		EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentExited, Agent: "alice", ExitCode: -1, Text: "moved to /work/project", Planned: true, Time: now}},
		EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentStarted, Agent: "alice", Pid: 3000, Time: now}},
		tickMsg(now),
	)
	requireContains(t, h.screen(), merged)

	// bob crashes while the result is fresh: it is shown after it.
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentExited, Agent: "bob", ExitCode: 1, Text: "exit status 1", Time: now}})
	requireContains(t, h.screen(), merged)
	now = t0.Add(statusTTL)
	h.send(tickMsg(now))
	requireContains(t, h.screen(), merged) // not yet older than its time
	now = now.Add(time.Second)
	h.send(tickMsg(now))
	requireContains(t, h.screen(), "bob exited: exit status 1")

	// With no fresh result, an event shows at once; a planned restart
	// never does.
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentExited, Agent: "alice", ExitCode: -1, Text: "moved to /work/project", Planned: true, Time: now}})
	requireContains(t, h.screen(), "bob exited: exit status 1")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventNotice, Agent: "carol", Text: "malformed relay block", Time: now}})
	requireContains(t, h.screen(), "carol: malformed relay block")
}

// TestStatusLineNeverWraps: a long error of several lines shows as one
// line cut with …, and the window keeps its rows and widths.
func TestStatusLineNeverWraps(t *testing.T) {
	h := newHarness(t, scenario(t), 120, 24, Options{})
	long := "merge task abc123: git merge swarm/abc123 into main:\nCONFLICT (content): Merge conflict in auth.go\n\tAutomatic merge failed; fix conflicts and then commit the result.\r\n" + strings.Repeat("more detail ", 20)
	check := func(want string) {
		t.Helper()
		rows := strings.Split(h.screen(), "\n")
		if len(rows) != 24 {
			t.Fatalf("%d rows, want 24:\n%s", len(rows), h.screen())
		}
		for i, r := range rows {
			if w := ansi.StringWidth(r); w != 120 {
				t.Fatalf("row %d is %d cells wide:\n%s", i, w, h.screen())
			}
		}
		status := rows[h.m.lay.status]
		if !strings.Contains(status, want) || !strings.Contains(status, "…") {
			t.Fatalf("status line %q does not show %q cut with …", status, want)
		}
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventNotice, Agent: "alice", Text: "a\x1b[31mred\x1b[0m\x07 notice\n" + strings.Repeat("x", 200)}})
	check("alice: ared notice x")
	h.send(actionMsg{err: errors.New(long)})
	check("merge task abc123: git merge swarm/abc123 into main: CONFLICT (content)")

	// Nor does a reason of several lines on a pane's title.
	h.m.sw.(*fakeSwarm).setAgent("carol", func(a *swarmapi.AgentInfo) { a.Reason = "start:\nexec: \"claude\":\texecutable file not found" })
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentGaveUp, Agent: "carol", Text: "gave up", Time: t0}})
	check("merge task abc123")
	requireContains(t, h.screen(), "carol · gave-up: start: ex…")
}
