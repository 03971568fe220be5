package supervisor

import (
	"testing"

	"swarm/bus"
)

func TestNeedsYou(t *testing.T) {
	tasks := []bus.Task{
		{ID: "t1", Title: "fix\x1b[31m login", Assignee: "bob", State: bus.TaskInReview},
		{ID: "t2", Title: "port", Assignee: "carol", State: bus.TaskWorking},
		{ID: "t3", Title: "docs", Assignee: "alice", State: bus.TaskFailed},
		{ID: "t4", Title: "api", Assignee: "bob", State: bus.TaskConflicted, Base: "main"},
	}
	got := NeedsYou([]DownAgent{{Name: "carol", Reason: "gave up after 3 restarts: exit code 2"}}, tasks)
	want := []string{
		"agent carol died: gave up after 3 restarts: exit code 2",
		"task t1 (fix[31m login) of bob waits for your review", // the ESC gone: harmless text
		"task t3 (docs) of alice failed",
		"task t4 (api) of bob conflicts with main",
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].Text != want[i] {
			t.Errorf("item %d: %q, want %q", i, got[i].Text, want[i])
		}
	}
	if got[1].Key() == got[3].Key() || got[1].Key() != NeedsYou(nil, tasks[:1])[0].Key() {
		t.Error("keys do not tell items apart, or change between calls")
	}
}
