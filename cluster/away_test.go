package cluster

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
)

// TestHostStoppedThirtySeconds: a host stopped (SIGSTOP) in the middle of
// a stream, with deliveries taken and not yet acknowledged, stays away
// for 30 s as the main swarm records it (the fault), past
// JetStream's ack wait, which sends what it held again, while more
// messages for it queue; when it goes on (SIGCONT) every message arrives,
// each typed in once and answered once, in order. It takes over half a
// minute: it runs beside the others (t.Parallel).
func TestHostStoppedThirtySeconds(t *testing.T) {
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
	const n = 30
	tm.ping(t, 1, 20)
	testrun.Within(t, testrun.Patience, "a few pongs before the host is stopped", func() bool {
		pongs, _ := tm.pairs(t, "worker", "lead")
		return len(pongs) >= 2
	})
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	tm.ping(t, 21, n) // queued while the host is away
	cons, err := tm.main.js.Consumer(ctx, tm.main.space.inStream(), hostConsumer("box"))
	if err != nil {
		t.Fatal(err)
	}
	// The host's time away is what the main swarm records (a state it
	// reaches, polled), not a sleep of the test's.
	const away = 30 * time.Second
	testrun.Within(t, testrun.Patience, "box away for 30 s, and what it held sent again", func() bool {
		info, err := cons.Info(ctx)
		hs := tm.main.Hosts()
		return err == nil && info.NumRedelivered > 0 && len(hs) == 1 && !hs[0].Connected && time.Since(hs[0].Since) >= away
	})
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	tm.answered(t, n)
	testrun.Within(t, testrun.Patience, "box connected again", func() bool {
		hs := tm.main.Hosts()
		return len(hs) == 1 && hs[0].Connected
	})
	// Anything typed in twice would have been answered twice.
	pongs, _ := tm.pairs(t, "worker", "lead")
	pings, states := tm.pairs(t, bus.Human, "worker")
	confirmed := 0
	for _, s := range states {
		if s == bus.DeliveryConfirmed {
			confirmed++
		}
	}
	t.Logf("committed %d pings, %d answers; delivered %d confirmed; duplicated %d; lost %d",
		len(pings), len(pongs), confirmed, len(pongs)-len(uniq(pongs)), n-len(uniq(pongs)))
	if strings.Join(pongs, "|") != strings.Join(numbered("pong", n), "|") {
		t.Errorf("pongs: %q, want each once, in order", pongs)
	}
}
