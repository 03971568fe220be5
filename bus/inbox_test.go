package bus

import (
	"slices"
	"testing"
)

func TestReadUnreadReturnsEachMessageOnce(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	register(t, b, "alice", "bob", "carol")
	publish(t, b, Message{From: "alice", To: "bob", Body: "one"})
	publish(t, b, Message{From: "bob", To: "alice", Body: "bob's own"})
	publish(t, b, Message{From: "alice", To: "carol", Body: "not bob's"})
	publish(t, b, Message{From: "carol", To: "*", Body: "two"})
	publish(t, b, Message{From: "human", To: "bob", Body: "three"})

	got, more, err := b.ReadUnread(ctx, "bob", 2)
	if err != nil || more != true || !slices.Equal(bodies(got), []string{"one", "two"}) {
		t.Fatalf("first page: %q more=%v err=%v", bodies(got), more, err)
	}
	if d := got[1].Deliveries; len(d) != 1 || d[0].Recipient != "bob" || d[0].State != DeliveryQueued {
		t.Errorf("a broadcast carries bob's delivery alone: %+v", d)
	}
	got, more, err = b.ReadUnread(ctx, "bob", 2)
	if err != nil || more || !slices.Equal(bodies(got), []string{"three"}) {
		t.Fatalf("second page: %q more=%v err=%v", bodies(got), more, err)
	}
	if got, _, err := b.ReadUnread(ctx, "bob", 0); err != nil || len(got) != 0 {
		t.Fatalf("all read, yet %q (%v)", bodies(got), err)
	}
	// Reading changes no delivery: swarm still types the messages in.
	if pending, err := b.Pending(ctx, "bob", 0); err != nil || len(pending) != 3 {
		t.Errorf("pending for bob after reading: %d (%v)", len(pending), err)
	}
	// Each agent has its own place; carol has read nothing yet.
	if got, _, err := b.ReadUnread(ctx, "carol", 0); err != nil || !slices.Equal(bodies(got), []string{"not bob's"}) {
		t.Errorf("carol: %q (%v)", bodies(got), err)
	}

	// What bob has read is kept in the file, and a failed delivery to
	// bob is unread like any other.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err = Open(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	m := publish(t, b, Message{From: "alice", To: "bob", Body: "four"})
	if err := b.MarkFailed(ctx, m.ID, "bob", "gave up"); err != nil {
		t.Fatal(err)
	}
	got, _, err = b.ReadUnread(ctx, "bob", 0)
	if err != nil || !slices.Equal(bodies(got), []string{"four"}) {
		t.Fatalf("after reopening: %q (%v)", bodies(got), err)
	}
	if d := got[0].Deliveries[0]; d.State != DeliveryFailed || d.Error != "gave up" {
		t.Errorf("delivery %+v", d)
	}
}
