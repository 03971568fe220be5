package mcpserver

import (
	"slices"
	"strings"
	"testing"
	"time"

	"swarm/bus"
)

// The reviewer agent ([checks] review_by) has the task_review tool, and
// only it: its verdict is recorded, a request for changes sends the task
// back; a bad verdict is a usage error.
func TestTheReviewerAgentsTool(t *testing.T) {
	s := newSwarmBus(t, "w", "rev")
	if err := s.b.SetCheckPolicy(t.Context(), &bus.CheckPolicy{Timeout: time.Minute, Parallel: 1, ReviewBy: "rev"}); err != nil {
		t.Fatal(err)
	}
	tools := func(c *client) []string {
		list, err := c.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	if names := tools(s.connect(as("w"))); slices.Contains(names, "task_review") {
		t.Errorf("w, not the reviewer, has task_review: %v", names)
	}
	rev := s.connect(as("rev"))
	if names := tools(rev); !slices.Contains(names, "task_review") {
		t.Fatalf("the reviewer lacks task_review: %v", names)
	}
	task, err := s.b.CreateTask(t.Context(), bus.NewTask{Title: "name things", Assignee: "w", CreatedBy: bus.Human})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []bus.TaskState{bus.TaskWorking, bus.TaskInReview} {
		if _, err := s.b.Transition(t.Context(), task.ID, st, "w", ""); err != nil {
			t.Fatal(err)
		}
	}
	var out taskReviewOut
	rev.ok("task_review", map[string]any{"id": task.ID, "verdict": "approve", "note": "fine"}, &out)
	if out.State != "IN_REVIEW" || out.Verdict != "approve" {
		t.Errorf("approve: %+v", out)
	}
	if msg := rev.refused("task_review", map[string]any{"id": task.ID, "verdict": "maybe"}); !strings.Contains(msg, "verdict must be approve or request_changes") {
		t.Errorf("a bad verdict: %s", msg)
	}
	rev.ok("task_review", map[string]any{"id": task.ID, "verdict": "request_changes", "note": "name it better"}, &out)
	if out.State != "CHANGES_REQUESTED" {
		t.Errorf("request changes: %+v", out)
	}
	if rs, _ := s.b.Reviews(t.Context(), task.ID); len(rs) != 2 || rs[1].Note != "name it better" {
		t.Errorf("reviews: %+v", rs)
	}
}
