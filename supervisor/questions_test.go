package supervisor

import (
	"strings"
	"testing"

	"swarm/bus"
)

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
