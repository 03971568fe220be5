package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"swarm/bus"
	"swarm/internal/testrun"
)

// TestHostFrozenPastTheAckWait: a host stopped (SIGSTOP) in the middle of
// a stream, with deliveries taken and not yet acknowledged, stays away
// until JetStream has sent them again (past ackWait) while more messages
// for it queue; when it goes on (SIGCONT) every message arrives, each
// typed in once and answered once, in order.
func TestHostFrozenPastTheAckWait(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	writeScript(t, hostDir, "worker.sh", `while IFS= read -r line; do
  case "$line" in *"from human] ping"*) sleep 0.2; echo "@relay:lead pong ${line##* }";; esac
done
`)
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	h := startHost(t, tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host"), hostDir)
	pid := h.cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // before the host is ended
	ctx := context.Background()
	ping := func(i int) {
		if _, err := tm.bus.Publish(ctx, bus.Message{From: bus.Human, To: "worker", Body: fmt.Sprintf("ping %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	const n = 30
	for i := 1; i <= 20; i++ {
		ping(i)
	}
	testrun.Within(t, testrun.Patience, "a few pongs before the host is stopped", func() bool {
		pongs, _ := tm.pairs(t, "worker", "lead")
		return len(pongs) >= 2
	})
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 21; i <= n; i++ { // queued while the host is away
		ping(i)
	}
	cons, err := tm.main.js.Consumer(ctx, inStream, hostConsumer("box"))
	if err != nil {
		t.Fatal(err)
	}
	testrun.Within(t, testrun.Patience, "box away, and what it held sent again", func() bool {
		info, err := cons.Info(ctx)
		hs := tm.main.Hosts()
		return err == nil && info.NumRedelivered > 0 && len(hs) == 1 && !hs[0].Connected
	})
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var pings []string
	var states []bus.DeliveryState
	if !testrun.Poll(testrun.Patience, func() bool {
		pings, states = tm.pairs(t, bus.Human, "worker")
		return allConfirmed(states, n)
	}) {
		t.Fatalf("pings: %q, %v", pings, states)
	}
	var pongs []string
	testrun.Within(t, testrun.Patience, "every pong", func() bool {
		pongs, _ = tm.pairs(t, "worker", "lead")
		return len(pongs) >= n
	})
	testrun.Within(t, testrun.Patience, "box connected again", func() bool {
		hs := tm.main.Hosts()
		return len(hs) == 1 && hs[0].Connected
	})
	// Anything typed in twice would have been answered twice.
	pongs, _ = tm.pairs(t, "worker", "lead")
	if strings.Join(pongs, "|") != strings.Join(numbered("pong", n), "|") {
		t.Errorf("pongs: %q, want each once, in order", pongs)
	}
}
