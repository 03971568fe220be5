package bus

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specMoves is the task life cycle as the README and bus/doc.go state it,
// written out independently of the implementation's table.
var specMoves = map[string][]string{
	"ASSIGNED":   {"WORKING", "CANCELLED", "FAILED"},
	"WORKING":    {"IN_REVIEW", "CONFLICTED", "CANCELLED", "FAILED"},
	"CONFLICTED": {"IN_REVIEW", "WORKING", "CANCELLED", "FAILED"},
	"IN_REVIEW":  {"APPROVED", "WORKING", "CHANGES_REQUESTED", "CANCELLED", "FAILED"},
	"APPROVED":   {"COMPLETED", "CONFLICTED", "CHANGES_REQUESTED", "CANCELLED", "FAILED"},
	"FAILED":     {"ASSIGNED", "CANCELLED"},
	"COMPLETED":  {},
	"CANCELLED":  {},

	"CHANGES_REQUESTED": {"WORKING", "IN_REVIEW", "CONFLICTED", "CANCELLED", "FAILED"},
}

// pathTo is a sequence of allowed moves from ASSIGNED to each state.
var pathTo = map[string][]string{
	"ASSIGNED":   {},
	"WORKING":    {"WORKING"},
	"CONFLICTED": {"WORKING", "CONFLICTED"},
	"IN_REVIEW":  {"WORKING", "IN_REVIEW"},
	"APPROVED":   {"WORKING", "IN_REVIEW", "APPROVED"},
	"COMPLETED":  {"WORKING", "IN_REVIEW", "APPROVED", "COMPLETED"},
	"FAILED":     {"FAILED"},
	"CANCELLED":  {"CANCELLED"},

	"CHANGES_REQUESTED": {"WORKING", "IN_REVIEW", "CHANGES_REQUESTED"},
}

func mustState(t *testing.T, s string) TaskState {
	t.Helper()
	st, err := ParseTaskState(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// taskIn creates a task for bob and drives it to state.
func taskIn(t *testing.T, b *Bus, state string) Task {
	t.Helper()
	task, err := b.CreateTask(ctx, NewTask{Title: "task in " + state, Assignee: "bob", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pathTo[state] {
		if task, err = b.Transition(ctx, task.ID, mustState(t, s), "test", ""); err != nil {
			t.Fatal(err)
		}
	}
	if task.State.String() != state {
		t.Fatalf("drove task to %v, want %s", task.State, state)
	}
	return task
}

func TestEveryTransition(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	for from, allowed := range specMoves {
		for to := range specMoves {
			if to == from {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || a == to
			}
			t.Run(from+"→"+to, func(t *testing.T) {
				task := taskIn(t, b, from)
				before, _ := b.TaskEvents(ctx, task.ID)
				got, err := b.Transition(ctx, task.ID, mustState(t, to), "alice", "note "+to)
				after, _ := b.TaskEvents(ctx, task.ID)
				stored, _ := b.Task(ctx, task.ID)
				if ok {
					if err != nil {
						t.Fatalf("allowed move refused: %v", err)
					}
					if got.State.String() != to || stored.State.String() != to {
						t.Errorf("state %v (stored %v), want %s", got.State, stored.State, to)
					}
					if len(after) != len(before)+1 {
						t.Fatalf("%d events, want %d", len(after), len(before)+1)
					}
					e := after[len(after)-1]
					if e.From.String() != from || e.To.String() != to || e.Actor != "alice" || e.Note != "note "+to {
						t.Errorf("event %+v", e)
					}
					return
				}
				if !errors.Is(err, ErrInvalidTransition) {
					t.Fatalf("refused move: err = %v, want ErrInvalidTransition", err)
				}
				var te *TransitionError
				if !errors.As(err, &te) || te.From.String() != from || te.To.String() != to {
					t.Fatalf("error %#v", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, task.ID) || !strings.Contains(msg, from) {
					t.Errorf("message %q should name the task and its state", msg)
				}
				for _, a := range allowed {
					if !strings.Contains(msg, a) {
						t.Errorf("message %q should list allowed move %s", msg, a)
					}
				}
				if len(allowed) == 0 && !strings.Contains(msg, "final") {
					t.Errorf("message %q should say the state is final", msg)
				}
				if stored.State.String() != from || len(after) != len(before) {
					t.Errorf("refused move changed the task: %v, %d events", stored.State, len(after))
				}
			})
		}
	}
}

func TestAllowedMovesMatchesSpec(t *testing.T) {
	for from, allowed := range specMoves {
		var got []string
		for _, s := range AllowedMoves(mustState(t, from)) {
			got = append(got, s.String())
		}
		want := append([]string(nil), allowed...)
		if diff := cmp.Diff(sortStrings(want), sortStrings(got)); diff != "" {
			t.Errorf("AllowedMoves(%s): %s", from, diff)
		}
	}
}

func sortStrings(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestRepeatedTransitionIsNoOp(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	task := taskIn(t, b, "WORKING")
	events, _ := b.TaskEvents(ctx, task.ID)
	for range 3 {
		got, err := b.Transition(ctx, task.ID, TaskWorking, "bob", "again")
		if err != nil || got.State != TaskWorking {
			t.Fatalf("repeat: %v %v", got.State, err)
		}
		if got, err := b.TransitionFrom(ctx, task.ID, TaskAssigned, TaskWorking, "bob", ""); err != nil || got.State != TaskWorking {
			t.Fatalf("repeat with from: %v %v", got.State, err)
		}
	}
	after, _ := b.TaskEvents(ctx, task.ID)
	if len(after) != len(events) {
		t.Errorf("repeats added %d events", len(after)-len(events))
	}
	// Final states repeat as no-ops too.
	done := taskIn(t, b, "COMPLETED")
	if _, err := b.Transition(ctx, done.ID, TaskCompleted, "human", ""); err != nil {
		t.Errorf("repeat COMPLETED: %v", err)
	}
}

func TestTransitionFrom(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	task := taskIn(t, b, "IN_REVIEW")
	if _, err := b.TransitionFrom(ctx, task.ID, TaskWorking, TaskApproved, "human", ""); !errors.Is(err, ErrStateChanged) {
		t.Errorf("wrong from: %v", err)
	}
	got, err := b.TransitionFrom(ctx, task.ID, TaskInReview, TaskApproved, "human", "lgtm")
	if err != nil || got.State != TaskApproved {
		t.Errorf("right from: %v %v", got.State, err)
	}
}

func TestCreateTask(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	task, err := b.CreateTask(ctx, NewTask{Title: "  Fix login  ", Description: "see auth.go", Assignee: "bob", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if len(task.ID) != 6 || strings.Trim(task.ID, taskIDAlphabet) != "" {
		t.Errorf("id %q is not 6 lowercase base32 characters", task.ID)
	}
	stored, err := b.Task(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(task, stored); diff != "" {
		t.Error(diff)
	}
	if stored.Title != "Fix login" || stored.State != TaskAssigned || stored.CreatedBy != "human" {
		t.Errorf("stored %+v", stored)
	}
	events, err := b.TaskEvents(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].From != TaskNone || events[0].To != TaskAssigned || events[0].Actor != "human" {
		t.Errorf("events %+v", events)
	}
	_, err = b.CreateTask(ctx, NewTask{Title: "x", Assignee: "ghost", CreatedBy: "human"})
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("unknown assignee: %v", err)
	}
	if _, err := b.CreateTask(ctx, NewTask{Title: " ", Assignee: "bob", CreatedBy: "human"}); err == nil {
		t.Error("empty title accepted")
	}
	// Creating a task sends no message.
	if seq, _ := b.LastSeq(ctx); seq != 0 {
		t.Errorf("CreateTask published %d messages", seq)
	}
}

func TestTaskLookupByPrefix(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	var ids []string
	for range 40 {
		task, err := b.CreateTask(ctx, NewTask{Title: "t", Assignee: "bob", CreatedBy: "human"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	got, err := b.Task(ctx, strings.ToUpper(ids[0][:5]))
	if err != nil || got.ID != ids[0] {
		// A 5-character prefix can collide among 40 ids only with odds of
		// about 1 in 40,000; then it must be reported as ambiguous.
		if !errors.Is(err, ErrAmbiguous) {
			t.Errorf("prefix lookup: %v %v", got.ID, err)
		}
	}
	if _, err := b.Task(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty id: %v", err)
	}
	if _, err := b.Task(ctx, "zzzzzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	// Some first letter is shared by two of 40 ids (pigeonhole over 32 letters).
	byFirst := map[byte]int{}
	for _, id := range ids {
		byFirst[id[0]]++
	}
	for c, n := range byFirst {
		if n > 1 {
			if _, err := b.Task(ctx, string(c)); !errors.Is(err, ErrAmbiguous) {
				t.Errorf("ambiguous prefix %c: %v", c, err)
			}
			break
		}
	}
}

func TestTasksFilterAndCurrentTask(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob", "carol")
	mk := func(who, title string) Task {
		task, err := b.CreateTask(ctx, NewTask{Title: title, Assignee: who, CreatedBy: "human"})
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	move := func(task Task, to TaskState) {
		if _, err := b.Transition(ctx, task.ID, to, "test", ""); err != nil {
			t.Fatal(err)
		}
	}
	current := func(who string) string {
		task, err := b.CurrentTask(ctx, who)
		if err != nil {
			return err.Error()
		}
		return task.Title
	}
	if got := current("bob"); !strings.Contains(got, "no current task") {
		t.Errorf("no tasks: %q", got)
	}
	a1, a2 := mk("bob", "a1"), mk("bob", "a2")
	mk("carol", "c1")
	if got := current("bob"); got != "a1" {
		t.Errorf("oldest assigned: %q", got)
	}
	move(a1, TaskWorking)
	move(a1, TaskInReview)
	if got := current("bob"); got != "a2" {
		t.Errorf("assigned before in review: %q", got)
	}
	move(a2, TaskWorking)
	if got := current("bob"); got != "a2" {
		t.Errorf("working: %q", got)
	}
	move(a2, TaskConflicted)
	if got := current("bob"); got != "a2" {
		t.Errorf("conflicted: %q", got)
	}
	move(a2, TaskFailed)
	if got := current("bob"); got != "a1" {
		t.Errorf("in review as last resort: %q", got)
	}
	all, err := b.Tasks(ctx, TaskFilter{})
	if err != nil || len(all) != 3 || all[0].Title != "a1" || all[2].Title != "c1" {
		t.Errorf("all tasks %v %v", all, err)
	}
	bobs, _ := b.Tasks(ctx, TaskFilter{Assignee: "bob", States: []TaskState{TaskFailed, TaskInReview}})
	if len(bobs) != 2 {
		t.Errorf("bob's failed or in review: %v", bobs)
	}
	none, _ := b.Tasks(ctx, TaskFilter{Assignee: "carol", States: []TaskState{TaskWorking}})
	if len(none) != 0 {
		t.Errorf("carol working: %v", none)
	}
}

func TestSetTaskGit(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	task := taskIn(t, b, "ASSIGNED")
	if err := b.SetTaskGit(ctx, task.ID, "swarm/"+task.ID, ".swarm/worktrees/"+task.ID, "main"); err != nil {
		t.Fatal(err)
	}
	got, _ := b.Task(ctx, task.ID)
	if got.Branch != "swarm/"+task.ID || got.Worktree != ".swarm/worktrees/"+task.ID || got.Base != "main" {
		t.Errorf("%+v", got)
	}
	if err := b.SetTaskGit(ctx, "nope00", "", "", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown task: %v", err)
	}
}

func TestParseTaskState(t *testing.T) {
	for _, s := range TaskStates() {
		for _, form := range []string{s.String(), strings.ToLower(s.String()), strings.ReplaceAll(strings.ToLower(s.String()), "_", "-")} {
			if got, err := ParseTaskState(form); err != nil || got != s {
				t.Errorf("ParseTaskState(%q) = %v, %v", form, got, err)
			}
		}
	}
	if _, err := ParseTaskState("STALE"); err == nil {
		t.Error("STALE is computed, never a stored state")
	}
}

// The lists and properties of states come from the one table: every state
// is listed once, in the order a person reads a board, and Final and Open
// say what the life cycle says.
func TestTaskStatesFromTheTable(t *testing.T) {
	var names []string
	for _, s := range TaskStates() {
		names = append(names, s.String())
	}
	want := []string{"ASSIGNED", "WORKING", "CHANGES_REQUESTED", "CONFLICTED", "IN_REVIEW", "APPROVED", "FAILED", "COMPLETED", "CANCELLED"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("TaskStates() = %v, want %v", names, want)
	}
	if len(specMoves) != len(want) {
		t.Errorf("the spec has %d states, TaskStates %d", len(specMoves), len(want))
	}
	open := map[string]bool{"ASSIGNED": true, "WORKING": true, "CHANGES_REQUESTED": true, "CONFLICTED": true, "IN_REVIEW": true, "APPROVED": true}
	for _, s := range TaskStates() {
		if want := len(specMoves[s.String()]) == 0; s.Final() != want {
			t.Errorf("%v.Final() = %v", s, s.Final())
		}
		if s.Open() != open[s.String()] {
			t.Errorf("%v.Open() = %v", s, s.Open())
		}
	}
	var openNames []string
	for _, s := range OpenTaskStates() {
		openNames = append(openNames, s.String())
	}
	if got := strings.Join(openNames, " "); got != "ASSIGNED WORKING CHANGES_REQUESTED CONFLICTED IN_REVIEW APPROVED" {
		t.Errorf("OpenTaskStates() = %s", got)
	}
	if TaskNone.Final() || TaskNone.Open() || TaskState(99).Final() || TaskState(99).Open() {
		t.Error("a state that is none is neither final nor open")
	}
}
