package bus

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// drain empties ch without waiting.
func drain(ch <-chan struct{}) {
	select {
	case <-ch:
	default:
	}
}

func TestSubscribeWakesOnInProcessPublish(t *testing.T) {
	b := openTest(t)
	ch, cancel := b.Subscribe()
	defer cancel()
	drain(ch)
	publish(t, b, Message{From: "alice", To: "human", Body: "x"})
	// The wake-up is sent before Publish returns: no waiting needed.
	select {
	case <-ch:
	default:
		t.Fatal("no wake-up after an in-process publish")
	}
	// Many writes coalesce into one pending wake-up.
	for range 5 {
		publish(t, b, Message{From: "alice", To: "human", Body: "x"})
	}
	<-ch
	select {
	case <-ch:
		t.Fatal("wake-ups did not coalesce")
	default:
	}
}

func TestSubscribeWakesOnOtherConnection(t *testing.T) {
	b := openTest(t)
	ch, cancel := b.Subscribe()
	defer cancel()
	drain(ch)
	other, err := Open(Options{Dir: b.Dir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	publish(t, other, Message{From: "alice", To: "human", Body: "from another connection"})
	recv(t, ch, "a wake-up for another connection's write")
}

func TestSubscribeWakesOnOtherProcess(t *testing.T) {
	b := openTest(t)
	ch, cancel := b.Subscribe()
	defer cancel()
	drain(ch)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BUS_HELPER=send", "BUS_DIR="+b.Dir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	recv(t, ch, "a wake-up for another process's write")
	ms, err := b.Messages(ctx, 0, 0)
	if err != nil || len(ms) == 0 || ms[0].Body != "from another process" {
		t.Errorf("messages %v %v", ms, err)
	}
}

func TestUnsubscribeAndCloseStopPoller(t *testing.T) {
	b, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ch, cancel := b.Subscribe()
	_, cancel2 := b.Subscribe()
	cancel()
	cancel() // idempotent
	drain(ch)
	publish(t, b, Message{From: "alice", To: "human", Body: "x"})
	select {
	case <-ch:
		t.Error("woken after unsubscribing")
	default:
	}
	cancel2()
	// A goroutine just started may not be listed yet; wait until it is.
	waitFor(t, "the poller goroutine to run", pollerRunning)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waits for the poller, so it is gone the moment Close returns.
	if pollerRunning() {
		t.Error("poller goroutine still running after Close")
	}
	ch3, cancel3 := b.Subscribe() // after Close: inert
	cancel3()
	select {
	case <-ch3:
		t.Error("subscription after Close woke")
	default:
	}
}

// pollerRunning reports whether any goroutine is in (*Bus).poll.
func pollerRunning() bool {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	return strings.Contains(string(buf[:n]), "bus.(*Bus).poll(")
}
