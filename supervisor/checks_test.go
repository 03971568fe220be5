package supervisor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"swarm/bus"
)

// A swarm with [checks] records them on the bus for the command line, and
// tells a UI when the checks, the queue or the reviews change, whoever
// changed them; one without records none.
func TestASwarmRecordsItsChecksAndFollowsThem(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	w := scripted("w", "echo ready; exec cat >/dev/null", nil)
	cfg := &Config{Agents: []AgentConfig{w}, Checks: &ChecksConfig{Run: []string{"true"}, Timeout: time.Minute, Parallel: 1}}
	h.run(Options{Config: cfg})
	p, err := h.bus.CheckPolicy(context.Background())
	if err != nil || p == nil || len(p.Run) != 1 || p.Run[0] != "true" {
		t.Fatalf("policy on the bus: %+v %v", p, err)
	}
	task, err := h.bus.CreateTask(context.Background(), bus.NewTask{Title: "t", Assignee: "w", CreatedBy: bus.Human})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.bus.AddReview(context.Background(), bus.Review{Task: task.ID, Reviewer: "w", Verdict: bus.VerdictApprove}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("an EventChecks", func() bool { return len(h.eventsOf(EventChecks)) > 0 })

	plain := newHarness(t)
	earlier, err := bus.Open(bus.Options{Dir: filepath.Join(plain.dir, ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	if err := earlier.SetCheckPolicy(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	earlier.Close()
	plain.run(Options{}, w)
	if p, err := plain.bus.CheckPolicy(context.Background()); p != nil || err != nil {
		t.Errorf("a swarm without [checks] left the last one's on the bus: %+v %v", p, err)
	}
}
