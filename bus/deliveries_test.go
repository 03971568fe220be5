package bus

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func bodies(ms []Message) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Body)
	}
	return out
}

func pendingBodies(t *testing.T, b *Bus, who string, limit int) []string {
	t.Helper()
	p, err := b.Pending(ctx, who, limit)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p {
		if len(m.Deliveries) != 1 || m.Deliveries[0].Recipient != who {
			t.Fatalf("pending message %s has deliveries %+v", m.Body, m.Deliveries)
		}
	}
	return bodies(p)
}

func TestPendingLifecycle(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob", "carol")
	var ids []string
	for i := range 4 {
		ids = append(ids, publish(t, b, Message{From: "alice", To: "bob", Body: fmt.Sprint(i)}).ID)
	}
	publish(t, b, Message{From: "alice", To: "carol", Body: "for carol"})
	if diff := cmp.Diff([]string{"0", "1", "2", "3"}, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"0", "1"}, pendingBodies(t, b, "bob", 2)); diff != "" {
		t.Error(diff)
	}

	// Injected stays pending (not confirmed yet) and counts attempts.
	for range 2 {
		if err := b.MarkInjected(ctx, ids[0], "bob"); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := b.Pending(ctx, "bob", 1)
	if d := p[0].Deliveries[0]; d.State != DeliveryInjected || d.Attempts != 2 {
		t.Errorf("after two injections: %+v", d)
	}
	if err := b.MarkConfirmed(ctx, ids[0], "bob"); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkConfirmed(ctx, ids[0], "bob"); err != nil {
		t.Errorf("confirming twice: %v", err)
	}
	if err := b.MarkConfirmed(ctx, ids[1], "bob"); err != nil { // confirmation seen without an injection record
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2", "3"}, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
	m, _ := b.Message(ctx, ids[0])
	if d := m.Deliveries[0]; d.State != DeliveryConfirmed || d.Attempts != 2 {
		t.Errorf("confirmed delivery: %+v", d)
	}

	// Final states refuse other changes.
	if err := b.MarkInjected(ctx, ids[0], "bob"); !errors.Is(err, ErrDeliveryFinal) {
		t.Errorf("inject confirmed: %v", err)
	}
	if err := b.MarkFailed(ctx, ids[0], "bob", "x"); !errors.Is(err, ErrDeliveryFinal) {
		t.Errorf("fail confirmed: %v", err)
	}
	if err := b.MarkConfirmed(ctx, ids[0], "carol"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such delivery: %v", err)
	}
	if err := b.MarkConfirmed(ctx, "no-such-id", "bob"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such message: %v", err)
	}
}

func TestRequeueReopensOnlyConfirmed(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	a := publish(t, b, Message{From: "alice", To: "bob", Body: "a"})
	c := publish(t, b, Message{From: "alice", To: "bob", Body: "c"})
	f := publish(t, b, Message{From: "alice", To: "bob", Body: "f"})
	for _, id := range []string{a.ID, c.ID} {
		if err := b.MarkInjected(ctx, id, "bob"); err != nil {
			t.Fatal(err)
		}
		if err := b.MarkConfirmed(ctx, id, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.MarkFailed(ctx, f.ID, "bob", "gone"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{}, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
	for _, id := range []string{c.ID, a.ID, f.ID} {
		if err := b.Requeue(ctx, id, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	// Back in bus order; the failed one stays failed; attempts are kept.
	if diff := cmp.Diff([]string{"a", "c"}, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
	m, _ := b.Message(ctx, a.ID)
	if d := m.Deliveries[0]; d.State != DeliveryQueued || d.Attempts != 1 {
		t.Errorf("requeued delivery: %+v", d)
	}
}

func TestMarkFailedNotifiesAuthor(t *testing.T) {
	b := openTest(t)
	register(t, b, "alice", "bob")
	m := publish(t, b, Message{From: "alice", To: "bob", Body: "hi"})
	if err := b.MarkInjected(ctx, m.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkFailed(ctx, m.ID, "bob", "not confirmed after 3 attempts"); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkFailed(ctx, m.ID, "bob", "again"); err != nil {
		t.Errorf("failing twice: %v", err)
	}
	if got := pendingBodies(t, b, "bob", 0); len(got) != 0 {
		t.Errorf("bob still has %v", got)
	}
	want := []string{"message #" + ShortID(m.ID) + " to bob failed: not confirmed after 3 attempts"}
	if diff := cmp.Diff(want, pendingBodies(t, b, "alice", 0)); diff != "" {
		t.Error(diff)
	}
	stored, _ := b.Message(ctx, m.ID)
	if d := stored.Deliveries[0]; d.State != DeliveryFailed || d.Error != "not confirmed after 3 attempts" || d.Attempts != 1 {
		t.Errorf("failed delivery: %+v", d)
	}
	// A failed notice does not produce another notice.
	n, _ := b.Pending(ctx, "alice", 0)
	last, _ := b.LastSeq(ctx)
	if err := b.MarkFailed(ctx, n[0].ID, "alice", "gone"); err != nil {
		t.Fatal(err)
	}
	if now, _ := b.LastSeq(ctx); now != last {
		t.Errorf("failing a notice published %d more messages", now-last)
	}
}

func TestPendingExpiresTTL(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	old := time.Now().Add(-time.Hour)
	expired := publish(t, b, Message{From: "alice", To: "bob", Body: "stale", Time: old, TTL: time.Minute})
	publish(t, b, Message{From: "alice", To: "bob", Body: "fresh", TTL: time.Hour})
	publish(t, b, Message{From: "alice", To: "bob", Body: "forever"})
	if diff := cmp.Diff([]string{"fresh"}, pendingBodies(t, b, "bob", 1)); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"fresh", "forever"}, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
	m, _ := b.Message(ctx, expired.ID)
	if m.Deliveries[0].State != DeliveryExpired {
		t.Errorf("stale delivery is %v", m.Deliveries[0].State)
	}
	if err := b.MarkConfirmed(ctx, expired.ID, "bob"); !errors.Is(err, ErrDeliveryFinal) {
		t.Errorf("confirm expired: %v", err)
	}
}

func TestPendingSurvivesCrash(t *testing.T) {
	// A separate process publishes and is killed without closing the bus
	// or marking anything delivered; the messages are pending on reopen,
	// in order.
	dir := t.TempDir()
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	register(t, b, "bob")
	m0 := publish(t, b, Message{From: "alice", To: "bob", Body: "before"})
	if err := b.MarkInjected(ctx, m0.ID, "bob"); err != nil { // typed in, never confirmed
		t.Fatal(err)
	}
	b.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BUS_HELPER=publish", "BUS_DIR="+dir, "BUS_N=50")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q, %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	b, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	want := []string{"before"}
	for i := range 50 {
		want = append(want, fmt.Sprint(i))
	}
	if diff := cmp.Diff(want, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
}

func TestConcurrentPublishersKeepEverythingInOrder(t *testing.T) {
	b := openTest(t)
	register(t, b, "sink")
	other, err := Open(Options{Dir: b.Dir()}) // a second connection set, as another process would have
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const senders, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bus := b
			if s%2 == 1 {
				bus = other
			}
			for i := range each {
				if _, err := bus.Publish(ctx, Message{From: fmt.Sprintf("g%d", s), To: "sink", Body: fmt.Sprintf("g%d %d", s, i)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p, err := b.Pending(ctx, "sink", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != senders*each {
		t.Fatalf("%d pending, want %d", len(p), senders*each)
	}
	next := map[string]int{}
	for _, m := range p {
		var sender string
		var i int
		fmt.Sscanf(m.Body, "%s %d", &sender, &i)
		if i != next[sender] || !strings.HasPrefix(m.Body, m.From+" ") {
			t.Fatalf("message %q out of order (want %s %d)", m.Body, sender, next[sender])
		}
		next[sender]++
	}
}

func TestDeliveryStateStrings(t *testing.T) {
	for s := DeliveryQueued; s <= DeliveryExpired; s++ {
		back, err := ParseDeliveryState(s.String())
		if err != nil || back != s {
			t.Errorf("%v round trip: %v %v", s, back, err)
		}
	}
	if _, err := ParseDeliveryState("lost"); err == nil {
		t.Error("ParseDeliveryState(lost) succeeded")
	}
}

func TestARemovedAgentGetsNothing(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob", "carol")
	if err := b.SetAgentState(ctx, "carol", AgentStatus{State: AgentRemoved, Reason: "not in the config"}); err != nil {
		t.Fatal(err)
	}
	m := publish(t, b, Message{From: "bob", To: "carol", Body: "still there?"})
	if d := m.Deliveries[0]; d.State != DeliveryFailed || !strings.Contains(d.Error, `agent "carol" was removed`) {
		t.Errorf("delivery to a removed agent: %+v", d)
	}
	all := publish(t, b, Message{From: "bob", To: "*", Body: "everyone"})
	if len(all.Deliveries) != 0 {
		t.Errorf("a broadcast reached %v; carol is removed and bob is the sender", all.Deliveries)
	}
	if _, err := b.CreateTask(ctx, NewTask{Title: "x", Assignee: "carol", CreatedBy: "human"}); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("task for a removed agent: %v", err)
	}
	register(t, b, "carol") // back in a config
	queued := publish(t, b, Message{From: "bob", To: "carol", Body: "waiting"})
	if err := b.SetAgentState(ctx, "carol", AgentStatus{State: AgentRemoved}); err != nil {
		t.Fatal(err)
	}
	if m, _ := b.Message(ctx, queued.ID); m.Deliveries[0].State != DeliveryFailed || !strings.Contains(m.Deliveries[0].Error, "was removed") {
		t.Errorf("a message queued for an agent removed since: %+v", m.Deliveries)
	}
	register(t, b, "carol")
	if m := publish(t, b, Message{From: "bob", To: "carol", Body: "welcome back"}); m.Deliveries[0].State != DeliveryQueued {
		t.Errorf("delivery after re-registering: %+v", m.Deliveries[0])
	}
}

func TestAnAgentThatTakesNoMessages(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob", "vim")
	before := publish(t, b, Message{From: "bob", To: "vim", Body: "queued before"})
	if err := b.RegisterAgent(ctx, Agent{Name: "vim", Cmd: "vim", State: AgentRunning, NoMessages: true}); err != nil {
		t.Fatal(err)
	}
	if m, _ := b.Message(ctx, before.ID); m.Deliveries[0].State != DeliveryFailed || !strings.Contains(m.Deliveries[0].Error, "takes no messages") {
		t.Errorf("a message queued before vim took none: %+v", m.Deliveries)
	}
	if a, err := b.Agent(ctx, "vim"); err != nil || !a.NoMessages {
		t.Fatalf("vim = %+v, %v", a, err)
	}
	m := publish(t, b, Message{From: "bob", To: "vim", Body: "ihello"})
	if d := m.Deliveries[0]; d.State != DeliveryFailed || !strings.Contains(d.Error, `agent "vim" takes no messages`) {
		t.Errorf("delivery to vim: %+v", d)
	}
	all := publish(t, b, Message{From: "human", To: "*", Body: "broadcast hi"})
	if len(all.Deliveries) != 1 || all.Deliveries[0].Recipient != "bob" {
		t.Errorf("a broadcast went to %+v; only bob takes messages", all.Deliveries)
	}
	// Registered again taking messages (its config changed).
	register(t, b, "vim")
	if m := publish(t, b, Message{From: "bob", To: "vim", Body: "now?"}); m.Deliveries[0].State != DeliveryQueued {
		t.Errorf("delivery after it takes messages: %+v", m.Deliveries[0])
	}
}

func TestUnconfirmedIsFinalAndTellsTheAuthor(t *testing.T) {
	b := openTest(t)
	register(t, b, "alice", "bob")
	m := publish(t, b, Message{From: "alice", To: "bob", Body: "did you get it?"})
	if err := b.MarkInjected(ctx, m.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkUnconfirmed(ctx, m.ID, "bob", "still in its input box after 3 submits"); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkUnconfirmed(ctx, m.ID, "bob", "again"); err != nil {
		t.Errorf("marking it unconfirmed twice: %v", err)
	}
	if err := b.MarkConfirmed(ctx, m.ID, "bob"); !errors.Is(err, ErrDeliveryFinal) {
		t.Errorf("confirming an unconfirmed delivery: %v", err)
	}
	if p, err := b.Pending(ctx, "bob", 10); err != nil || len(p) != 0 {
		t.Errorf("pending for bob: %v, %v", p, err)
	}
	notes, err := b.Pending(ctx, "alice", 10)
	if err != nil || len(notes) != 1 || notes[0].Kind != KindNotice ||
		!strings.Contains(notes[0].Body, "to bob was typed in but not confirmed: still in its input box") {
		t.Fatalf("alice's notice: %+v, %v", notes, err)
	}
	if st, err := ParseDeliveryState("unconfirmed"); err != nil || st != DeliveryUnconfirmed {
		t.Errorf("ParseDeliveryState(unconfirmed) = %v, %v", st, err)
	}
}

func TestRequeueLastReopensTheLastConfirmed(t *testing.T) {
	ctx := t.Context()
	b := openTest(t)
	register(t, b, "bob", "carol")
	var ids []string
	for i := range 4 {
		ids = append(ids, publish(t, b, Message{From: "alice", To: "bob", Body: fmt.Sprint(i)}).ID)
	}
	toCarol := publish(t, b, Message{From: "alice", To: "carol", Body: "for carol"}).ID
	for _, id := range ids[:3] {
		if err := b.MarkConfirmed(ctx, id, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.MarkConfirmed(ctx, toCarol, "carol"); err != nil {
		t.Fatal(err)
	}
	if n, err := b.RequeueLast(ctx, "bob", time.Hour); err != nil || n != 3 {
		t.Fatalf("requeued %d, %v; want the 3 confirmed", n, err)
	}
	if diff := cmp.Diff([]string{"0", "1", "2", "3"}, pendingBodies(t, b, "bob", 0)); diff != "" {
		t.Error(diff)
	}
	if m, _ := b.Message(ctx, toCarol); m.Deliveries[0].State != DeliveryConfirmed {
		t.Errorf("carol's delivery was touched: %+v", m.Deliveries[0])
	}
	// Only the last confirmation, with no window.
	if err := b.MarkConfirmed(ctx, ids[2], "bob"); err != nil {
		t.Fatal(err)
	}
	if n, err := b.RequeueLast(ctx, "bob", 0); err != nil || n != 1 {
		t.Fatalf("requeued %d, %v; want 1", n, err)
	}
	if n, err := b.RequeueLast(ctx, "nobody", time.Hour); err != nil || n != 0 {
		t.Fatalf("an agent with no deliveries: %d, %v", n, err)
	}
}
