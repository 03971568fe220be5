package server

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A reply that is still too large for a frame is an error the client is
// told, never silence: 3 tasks of a megabyte of description each, in
// characters JSON escapes (< takes 6 bytes).
func TestAReplyTooLargeIsAnError(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	_, b := startSwarmBus(t, busDir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for range 3 {
		if _, err := b.CreateTask(ctx, bus.NewTask{Title: "big", Description: strings.Repeat("<", 1<<20), Assignee: "a", CreatedBy: bus.Human}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Tasks(ctx, bus.TaskFilter{})
	if !errors.Is(err, ErrTooLarge) || !errorsContain(err, "the reply is too large (18 MiB, over the 16 MiB a reply may be): ask for less") {
		t.Fatalf("3 tasks of a megabyte: %v", err)
	}
	// The connection goes on.
	if _, err := r.Tasks(ctx, bus.TaskFilter{States: []bus.TaskState{bus.TaskCompleted}}); err != nil {
		t.Fatalf("after the refusal: %v", err)
	}
}
