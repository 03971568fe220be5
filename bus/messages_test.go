package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

var ctx = context.Background()

// states returns recipient → delivery state of m.
func states(m Message) map[string]string {
	out := map[string]string{}
	for _, d := range m.Deliveries {
		out[d.Recipient] = d.State.String()
	}
	return out
}

func TestPublishAssignsIDSeqTimeAndDeliveries(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	before := time.Now().Add(-time.Millisecond)
	m := publish(t, b, Message{From: "alice", To: "bob", Body: "hello", Topic: "review",
		Data: json.RawMessage(`{"file":"auth.go"}`), CorrelationID: "c1", InReplyTo: "x", Priority: 3, TTL: time.Minute})
	u, err := uuid.Parse(m.ID)
	if err != nil || u.Version() != 7 {
		t.Fatalf("id %q is not a UUIDv7 (%v)", m.ID, err)
	}
	if m.Seq != 1 || m.Kind != KindMessage || m.Time.Before(before) || m.Time.After(time.Now()) {
		t.Errorf("seq %d kind %q time %v", m.Seq, m.Kind, m.Time)
	}
	if diff := cmp.Diff(map[string]string{"bob": "queued"}, states(m)); diff != "" {
		t.Error(diff)
	}
	got, err := b.Message(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("stored message differs from returned one (-returned +stored):\n%s", diff)
	}
}

func TestPublishSameIDIsNoOp(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	first := publish(t, b, Message{ID: "fixed-id-1", From: "alice", To: "bob", Body: "first"})
	again := publish(t, b, Message{ID: "fixed-id-1", From: "alice", To: "bob", Body: "second"})
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("republish returned a different message:\n%s", diff)
	}
	// Within one batch and against the stored one.
	out, err := b.PublishBatch(ctx, []Message{
		{ID: "fixed-id-2", From: "alice", To: "bob", Body: "a"},
		{ID: "fixed-id-2", From: "alice", To: "bob", Body: "b"},
		{ID: "fixed-id-1", From: "alice", To: "bob", Body: "c"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Body != "a" || out[1].Body != "a" || out[0].Seq != out[1].Seq || out[2].Seq != first.Seq || out[2].Body != "first" {
		t.Errorf("batch results: %+v", out)
	}
	all, err := b.Messages(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Errorf("log has %d messages, want 2", len(all))
	}
	pending, err := b.Pending(ctx, "bob", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 2 {
		t.Errorf("bob has %d pending, want 2 (one per distinct id)", len(pending))
	}
}

// TestPublishResolvesRecipients runs the table through Publish and through
// PublishBatch, where a message shares its transaction with others.
func TestPublishResolvesRecipients(t *testing.T) {
	cases := []struct {
		to      string
		want    map[string]string
		notices int
	}{
		{"bob", map[string]string{"bob": "queued"}, 0},
		{"human", map[string]string{"human": "queued"}, 0}, // an agent asking the person
		{"swarm", map[string]string{"swarm": "queued"}, 0},
		{"*", map[string]string{"bob": "queued", "carol": "queued"}, 0},
		{"alice", map[string]string{"alice": "queued"}, 0},
		{"dave", map[string]string{"dave": "failed"}, 1},
		{"no such!", map[string]string{"no such!": "failed"}, 1},
	}
	for _, batch := range []bool{false, true} {
		b := openTest(t)
		register(t, b, "alice", "bob", "carol")
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s batch=%v", c.to, batch), func(t *testing.T) {
				last, _ := b.LastSeq(ctx)
				m := Message{From: "alice", To: c.to, Body: "hi"}
				if batch {
					out, err := b.PublishBatch(ctx, []Message{m, {From: "alice", To: "human", Body: "filler"}})
					if err != nil {
						t.Fatal(err)
					}
					m = out[0]
				} else {
					m = publish(t, b, m)
				}
				if diff := cmp.Diff(c.want, states(m)); diff != "" {
					t.Error(diff)
				}
				stored, err := b.Message(ctx, m.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(m, stored); diff != "" {
					t.Errorf("returned and stored message differ:\n%s", diff)
				}
				after, err := b.Messages(ctx, last, 0)
				if err != nil {
					t.Fatal(err)
				}
				var notices []Message
				for _, n := range after {
					if n.Kind == KindNotice {
						notices = append(notices, n)
					}
				}
				if len(notices) != c.notices {
					t.Fatalf("%d notices, want %d", len(notices), c.notices)
				}
				if c.notices == 1 {
					n := notices[0]
					if n.From != "swarm" || n.To != "alice" || n.InReplyTo != m.ID || states(n)["alice"] != "queued" {
						t.Errorf("notice = %+v", n)
					}
					if !strings.Contains(n.Body, c.to) || !strings.Contains(n.Body, ShortID(m.ID)) {
						t.Errorf("notice body %q should name the recipient and the message", n.Body)
					}
					if d := m.Deliveries[0]; !strings.Contains(d.Error, fmt.Sprintf("%q", c.to)) {
						t.Errorf("delivery error %q", d.Error)
					}
				}
			})
		}
	}
}

func TestUnknownRecipientNoticeToHumanIsConfirmed(t *testing.T) {
	b := openTest(t)
	publish(t, b, Message{From: "human", To: "bob", Body: "hi"})
	all, err := b.Messages(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("got %d messages", len(all))
	}
	if got := states(all[1]); got["human"] != "confirmed" {
		t.Errorf("notice to human: %v", got)
	}
	if all[1].Body != `message #`+ShortID(all[0].ID)+` to bob failed: unknown agent "bob"` {
		t.Errorf("notice body %q", all[1].Body)
	}
}

func TestNoticeToUnknownAuthorDoesNotCascade(t *testing.T) {
	b := openTest(t)
	publish(t, b, Message{From: "ghost", To: "nobody", Body: "hi"})
	all, err := b.Messages(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[1].To != "ghost" || states(all[1])["ghost"] != "failed" {
		t.Fatalf("want the message and one failed notice to ghost, got %+v", all)
	}
}

// A message of swarm's own that fails (a task assigned to a shell that
// takes no messages) gets no notice: swarm is no inbox, and a notice to it
// would be refused as an unknown control message (the UI showed that
// refusal); the UI hears of the failure from the delivery itself.
func TestSwarmsOwnFailedMessageGetsNoNotice(t *testing.T) {
	b := openTest(t)
	publish(t, b, Message{From: Swarm, To: "nobody", Kind: KindTaskAssigned, Body: "task x"})
	all, err := b.Messages(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("want the message alone, got %d: %+v", len(all), all)
	}
}

// Notices that say the same of an author's messages to one recipient are
// one line for it; others keep their own.
func TestDeliveryNoticeLinesGroupTheSameFailure(t *testing.T) {
	b := openTest(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, "#"+ShortID(publish(t, b, Message{From: "asker", To: "crashy", Body: fmt.Sprint("ping ", i)}).ID))
	}
	other := publish(t, b, Message{From: "asker", To: "nobody", Body: "hi"})
	all, err := b.Messages(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var notices []Message
	for _, m := range all {
		if IsDeliveryNotice(m) {
			notices = append(notices, m)
		}
	}
	if len(notices) != 4 {
		t.Fatalf("set-up: %d notices, want 4", len(notices))
	}
	want := []string{
		"messages " + strings.Join(ids, ", ") + ` to crashy failed: unknown agent "crashy"`,
		"message #" + ShortID(other.ID) + ` to nobody failed: unknown agent "nobody"`,
	}
	if got := DeliveryNoticeLines(notices); !slices.Equal(got, want) {
		t.Errorf("lines:\n%q\nwant\n%q", got, want)
	}
}

func TestBroadcastExcludesSenderAndPseudoAgents(t *testing.T) {
	b := openTest(t)
	register(t, b, "a", "b", "c")
	m := publish(t, b, Message{From: "b", To: "*", Body: "all"})
	if diff := cmp.Diff(map[string]string{"a": "queued", "c": "queued"}, states(m)); diff != "" {
		t.Error(diff)
	}
	m = publish(t, b, Message{From: "human", To: "*", Body: "all"})
	if diff := cmp.Diff(map[string]string{"a": "queued", "b": "queued", "c": "queued"}, states(m)); diff != "" {
		t.Error(diff)
	}
}

func TestLogOnlyCreatesNoDeliveries(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	m := publish(t, b, Message{From: "alice", To: "bob", Kind: KindThinking, Body: "hmm", LogOnly: true})
	if len(m.Deliveries) != 0 || m.State() != "logged" {
		t.Errorf("deliveries %v state %s", m.Deliveries, m.State())
	}
	p, err := b.Pending(ctx, "bob", 0)
	if err != nil || len(p) != 0 {
		t.Errorf("pending %v %v", p, err)
	}
	got, err := b.Message(ctx, m.ID)
	if err != nil || !got.LogOnly || got.Kind != KindThinking {
		t.Errorf("stored %+v %v", got, err)
	}
}

func TestPublishRejectsInvalidMessages(t *testing.T) {
	b := openTest(t)
	cases := map[string]struct {
		m    Message
		want error
	}{
		"no sender":    {Message{To: "bob", Body: "x"}, ErrInvalidMessage},
		"bad sender":   {Message{From: "a b", To: "bob"}, ErrInvalidMessage},
		"star sender":  {Message{From: "*", To: "bob"}, ErrInvalidMessage},
		"no recipient": {Message{From: "alice", Body: "x"}, ErrInvalidMessage},
		"bad data":     {Message{From: "alice", To: "bob", Data: json.RawMessage(`{"a":`)}, ErrInvalidData},
		"negative ttl": {Message{From: "alice", To: "bob", TTL: -time.Second}, ErrInvalidMessage},
		"long id":      {Message{ID: strings.Repeat("x", 129), From: "alice", To: "bob"}, ErrInvalidMessage},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := b.Publish(ctx, c.m); !errors.Is(err, c.want) {
				t.Errorf("Publish = %v, want %v", err, c.want)
			}
		})
	}
	// A failed batch stores nothing.
	if _, err := b.PublishBatch(ctx, []Message{{From: "alice", To: "human"}, {From: "", To: "human"}}); err == nil {
		t.Fatal("batch with an invalid message succeeded")
	}
	if seq, _ := b.LastSeq(ctx); seq != 0 {
		t.Errorf("LastSeq = %d after failed publishes", seq)
	}
}

func TestShortID(t *testing.T) {
	cases := map[string]string{
		"01a1ffe3-4157-7f3a-8a68-84953e631f51": "3e631f51",
		"ABC":                                  "abc",
		"":                                     "",
	}
	for id, want := range cases {
		if got := ShortID(id); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", id, got, want)
		}
	}
	// Messages published together differ in their short ids.
	b := openTest(t)
	batch := make([]Message, 200)
	for i := range batch {
		batch[i] = Message{From: "alice", To: "human", Body: "x"}
	}
	out, err := b.PublishBatch(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range out {
		if seen[ShortID(m.ID)] {
			t.Fatalf("duplicate short id %s in one batch", ShortID(m.ID))
		}
		seen[ShortID(m.ID)] = true
	}
}

func TestFindByShortID(t *testing.T) {
	b := openTest(t)
	m := publish(t, b, Message{From: "alice", To: "human", Body: "find me"})
	for _, ref := range []string{ShortID(m.ID), "#" + ShortID(m.ID), strings.ToUpper(ShortID(m.ID)), m.ID} {
		got, err := b.FindByShortID(ctx, ref)
		if err != nil || got.ID != m.ID {
			t.Errorf("FindByShortID(%q) = %v, %v", ref, got.ID, err)
		}
	}
	if _, err := b.FindByShortID(ctx, "deadbeef"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown short id: %v", err)
	}
	publish(t, b, Message{ID: "first-aaaa1111", From: "alice", To: "human"})
	publish(t, b, Message{ID: "second-aaaa1111", From: "alice", To: "human"})
	if _, err := b.FindByShortID(ctx, "aaaa1111"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("ambiguous short id: %v", err)
	}
	if _, err := b.Message(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Message(nope) = %v", err)
	}
}

func TestMessagesPagesInOrder(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob", "carol")
	for i := range 10 {
		publish(t, b, Message{From: "alice", To: "*", Body: fmt.Sprint(i)})
	}
	var got []string
	after := int64(0)
	for {
		page, err := b.Messages(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, m := range page {
			got = append(got, m.Body)
			if len(m.Deliveries) != 2 || m.Deliveries[0].MessageID != m.ID {
				t.Errorf("message %s deliveries %+v", m.Body, m.Deliveries)
			}
		}
		after = page[len(page)-1].Seq
	}
	if diff := cmp.Diff(strings.Split("0 1 2 3 4 5 6 7 8 9", " "), got); diff != "" {
		t.Error(diff)
	}
	if seq, err := b.LastSeq(ctx); err != nil || seq != 10 {
		t.Errorf("LastSeq = %d, %v", seq, err)
	}
}

func TestInbox(t *testing.T) {
	b := openTest(t)
	register(t, b, "alice", "bob", "carol")
	publish(t, b, Message{From: "alice", To: "bob", Body: "1 alice→bob"})
	publish(t, b, Message{From: "bob", To: "alice", Body: "2 bob→alice"})
	publish(t, b, Message{From: "carol", To: "*", Body: "3 carol→*"})
	publish(t, b, Message{From: "carol", To: "alice", Body: "4 carol→alice"})
	publish(t, b, Message{From: "bob", To: "ghost", Body: "5 bob→ghost"})
	publish(t, b, Message{From: "bob", To: "alice", Kind: KindThinking, Body: "6 thinking", LogOnly: true})
	bodies := func(ms []Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Body)
		}
		return out
	}
	in, err := b.Inbox(ctx, "bob", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 alice→bob", "2 bob→alice", "3 carol→*", "5 bob→ghost",
		`message #` + ShortID(in[3].ID) + ` to ghost failed: unknown agent "ghost"`, "6 thinking"}
	if diff := cmp.Diff(want, bodies(in)); diff != "" {
		t.Error(diff)
	}
	if in[0].StateFor("bob") != "queued" || in[3].StateFor("bob") != "failed" {
		t.Errorf("states: %s %s", in[0].StateFor("bob"), in[3].StateFor("bob"))
	}
	latest, err := b.Inbox(ctx, "bob", 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[4:], bodies(latest)); diff != "" {
		t.Errorf("latest 2: %s", diff)
	}
}

func TestMessageState(t *testing.T) {
	m := Message{Deliveries: []Delivery{{Recipient: "a", State: DeliveryQueued}, {Recipient: "b", State: DeliveryQueued}}}
	if m.State() != "queued" {
		t.Error(m.State())
	}
	m.Deliveries[1].State = DeliveryConfirmed
	if m.State() != "mixed" || m.StateFor("b") != "confirmed" || m.StateFor("z") != "mixed" {
		t.Error(m.State(), m.StateFor("b"))
	}
}

// An agent's message to the person waits for them (open in the person's
// mailbox) until they answer its author or dismiss it; swarm's notices to
// the person are read as they come.
func TestQuestionsToThePersonWaitUntilAnswered(t *testing.T) {
	b := openTest(t)
	register(t, b, "alice", "bob")
	open := func() []string {
		t.Helper()
		msgs, err := b.Pending(ctx, Human, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range msgs {
			out = append(out, m.From+": "+m.Body)
		}
		return out
	}
	publish(t, b, Message{From: "alice", To: Human, Body: "tabs or spaces?"})
	q2 := publish(t, b, Message{From: "bob", To: Human, Body: "may I delete vendor/?"})
	publish(t, b, Message{From: "alice", To: Human, Body: "and the line length?"})
	publish(t, b, Message{From: Swarm, To: Human, Kind: KindNotice, Body: "something failed"})
	if diff := cmp.Diff([]string{"alice: tabs or spaces?", "bob: may I delete vendor/?", "alice: and the line length?"}, open()); diff != "" {
		t.Fatalf("open questions:\n%s", diff)
	}
	// A broadcast and a message to someone else answer nothing.
	publish(t, b, Message{From: Human, To: Everyone, Body: "lunch"})
	publish(t, b, Message{From: Human, To: "ghost", Body: "hello?"})
	if got := open(); len(got) != 3 {
		t.Fatalf("open after a broadcast and a failed message: %q", got)
	}
	// Answering alice answers both her questions, not bob's.
	publish(t, b, Message{From: Human, To: "alice", Body: "tabs, 100"})
	if diff := cmp.Diff([]string{"bob: may I delete vendor/?"}, open()); diff != "" {
		t.Fatalf("open after answering alice:\n%s", diff)
	}
	// A question after the answer is open again.
	publish(t, b, Message{From: "alice", To: Human, Body: "done: shall I push?"})
	if got := open(); len(got) != 2 {
		t.Fatalf("open after alice's next question: %q", got)
	}
	// Dismissed, a question is closed without an answer.
	if err := b.MarkConfirmed(ctx, q2.ID, Human); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"alice: done: shall I push?"}, open()); diff != "" {
		t.Fatalf("open after dismissing bob's:\n%s", diff)
	}
}
