package server

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"swarm/bus"
)

// The UI's inbox of an agent with 20 messages of a megabyte never
// answered (a reply over a frame was dropped): lists of messages carry
// the start of each body, and answer. Here 4 bodies of a megabyte of
// characters JSON escapes (< takes 6 bytes) make 24 MB.
func TestAnInboxOfLargeMessagesIsAnswered(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	_, b := startSwarmBus(t, busDir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body := strings.Repeat("<é", 1<<18)
	const sent = 4
	for range sent {
		if _, err := b.Publish(ctx, bus.Message{From: bus.Human, To: "a", Body: body, Data: []byte(`"` + strings.Repeat("d", 4096) + `"`)}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, read := range map[string]func() ([]bus.Message, error){
		"Inbox":    func() ([]bus.Message, error) { return r.Inbox(ctx, "a", 200) },
		"Messages": func() ([]bus.Message, error) { return r.Messages(ctx, 0, 300) },
		"Pending":  func() ([]bus.Message, error) { return r.Pending(ctx, "a", 200) },
	} {
		msgs, err := read()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name != "Pending" && len(msgs) != sent {
			t.Errorf("%s: %d messages, want %d", name, len(msgs), sent)
		}
		for _, m := range msgs {
			if !strings.HasSuffix(m.Body, "…") || len(m.Body) > previewBytes+len("…") || !strings.HasPrefix(body, strings.TrimSuffix(m.Body, "…")) || string(m.Data) != "null" {
				t.Fatalf("%s: a body of %d bytes, %q…, data %q", name, len(m.Body), m.Body[:min(len(m.Body), 20)], m.Data)
			}
		}
	}
}

// A list of tasks carries each description cut at 16 KiB (the board shows
// its first lines): 3 tasks of a megabyte of description each, in
// characters JSON escapes (< takes 6 bytes), made a reply of 18 MiB that
// the UI was refused.
func TestTasksOfLargeDescriptionsAreAnswered(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	_, b := startSwarmBus(t, busDir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	description := strings.Repeat("<é", 1<<19)
	for range 3 {
		if _, err := b.CreateTask(ctx, bus.NewTask{Title: "big", Description: description, Assignee: "a", CreatedBy: bus.Human}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ts, err := r.Tasks(ctx, bus.TaskFilter{})
	if err != nil || len(ts) != 3 {
		t.Fatalf("3 tasks of a megabyte: %d tasks, %v", len(ts), err)
	}
	for _, task := range ts {
		d := task.Description
		if !strings.HasSuffix(d, "…") || len(d) > descriptionBytes+len("…") || !strings.HasPrefix(description, strings.TrimSuffix(d, "…")) {
			t.Fatalf("a description of %d bytes, %q…", len(d), d[:min(len(d), 20)])
		}
	}
}

// A review's diff is cut at a character, and says so.
func TestADiffIsCutAtACharacter(t *testing.T) {
	diff := strings.Repeat("é", diffBytes) // twice diffBytes, é ending at the bound
	got := cut(diff, diffBytes, diffCut)
	if !strings.HasSuffix(got, "git diff in the task's worktree shows it whole)\n") || len(got) != diffBytes+len(diffCut) ||
		!strings.HasPrefix(diff, strings.TrimSuffix(got, diffCut)) {
		t.Fatalf("cut diff of %d bytes ends %q", len(got), got[max(0, len(got)-80):])
	}
	// An é straddles the bound: it is left out whole.
	if got := cut("x"+strings.Repeat("é", diffBytes/2), diffBytes, diffCut); !utf8.ValidString(got) || len(got) != diffBytes-1+len(diffCut) {
		t.Fatalf("cut inside a character: %d bytes", len(got))
	}
}

// A reply that is still too large for a frame is an error the client is
// told, never silence: 3 reviews of a megabyte of notes each, in
// characters JSON escapes (< takes 6 bytes).
func TestAReplyTooLargeIsAnError(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	_, b := startSwarmBus(t, busDir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	task, err := b.CreateTask(ctx, bus.NewTask{Title: "reviewed", Assignee: "a", CreatedBy: bus.Human})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := b.AddReview(ctx, bus.Review{Task: task.ID, Reviewer: "rev", Verdict: bus.VerdictApprove, Note: strings.Repeat("<", 1<<20)}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Reviews(ctx, task.ID)
	if !errors.Is(err, ErrTooLarge) || !errorsContain(err, "the reply is too large (18 MiB, over the 16 MiB a reply may be): ask for less") {
		t.Fatalf("3 reviews of a megabyte: %v", err)
	}
	// The connection goes on.
	if _, err := r.Tasks(ctx, bus.TaskFilter{}); err != nil {
		t.Fatalf("after the refusal: %v", err)
	}
}
