package swarmapi

import (
	"strings"
	"testing"

	"swarm/bus"
)

func TestNeedsYou(t *testing.T) {
	t.Parallel()
	tasks := []bus.Task{
		{ID: "t1", Title: "fix\x1b[31m login", Assignee: "bob", State: bus.TaskInReview},
		{ID: "t2", Title: "port", Assignee: "carol", State: bus.TaskWorking},
		{ID: "t3", Title: "docs", Assignee: "alice", State: bus.TaskFailed},
		{ID: "t4", Title: "api", Assignee: "bob", State: bus.TaskConflicted, Base: "main"},
	}
	var agents []AgentNeed
	for _, a := range []struct {
		name   string
		level  bus.Level
		reason string
		turn   bus.Status
		note   string
	}{
		{"carol", bus.LevelDead, "gave up after 3 restarts: exit code 2", bus.StatusIdle, ""},
		{"dave", bus.LevelOK, "", bus.StatusNeedsHuman, "Claude needs your permission to use Bash\x07"},
		{"erin", bus.LevelIdle, "", bus.StatusIdle, "Claude is waiting for your input"}, // idle is no news
		{"fay", bus.LevelDone, "", bus.StatusNeedsHuman, "asked before it ended"},       // ended: no one to answer
	} {
		if n, ok := AgentNeedOf(a.name, a.level, a.reason, a.turn, a.note); ok {
			agents = append(agents, n)
		}
	}
	got := NeedsYou(agents, nil, tasks)
	want := []string{
		"agent carol died: gave up after 3 restarts: exit code 2",
		"agent dave needs you: Claude needs your permission to use Bash",
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
	if got[2].Key() == got[4].Key() || got[2].Key() != NeedsYou(nil, nil, tasks[:1])[0].Key() || got[0].Key() == got[1].Key() {
		t.Error("keys do not tell items apart, or change between calls")
	}
}

// A question is listed after the agents that need the person and before
// the tasks, as its asker's words made safe and cut to one line.
func TestNeedsYouListsQuestions(t *testing.T) {
	t.Parallel()
	agents := []AgentNeed{{Name: "carol", Died: true}}
	questions := []bus.Message{
		{ID: "m1", From: "alice", To: bus.Human, Body: "tabs\x1b[2J or\nspaces?"},
		{ID: "m2", From: "alice", To: bus.Human, Body: strings.Repeat("why ", 100)},
	}
	tasks := []bus.Task{{ID: "t1", Title: "docs", Assignee: "bob", State: bus.TaskFailed}}
	got := NeedsYou(agents, questions, tasks)
	if len(got) != 4 || got[1].Kind != AttentionQuestion || got[2].Kind != AttentionQuestion || got[3].Task != "t1" {
		t.Fatalf("got %+v", got)
	}
	if got[1].Text != "alice asks: tabs[2J or spaces?" || got[1].Agent != "alice" || got[1].Message != "m1" {
		t.Errorf("question: %+v", got[1])
	}
	if n := len([]rune(got[2].Question)); n != questionShown || !strings.HasSuffix(got[2].Question, "…") {
		t.Errorf("a long question is %d runes: %q", n, got[2].Question)
	}
	if got[1].Key() == got[2].Key() {
		t.Error("two questions of one agent have one key")
	}
}
