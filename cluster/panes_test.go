package cluster

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/server"
	"swarm/swarmapi"
	"swarm/wire"
)

// serveMain serves the main swarm's socket, its hosts' agents with its
// own and their events told with the supervisor's, as swarm up does, and
// returns a client of it, as the UI is.
func serveMain(t *testing.T, tm *testMain) *server.Remote {
	t.Helper()
	t.Cleanup(tm.main.Watch(tm.sup.Tell))
	srv, err := server.Listen(tm.bus.Dir(), tm.sup, server.Options{Program: "cluster test", Dir: tm.dir, Bus: tm.bus, Elsewhere: tm.main, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r, err := server.Attach(context.Background(), tm.bus.Dir(), "cluster test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func agentNamed(agents []swarmapi.AgentInfo, name string) (swarmapi.AgentInfo, bool) {
	i := slices.IndexFunc(agents, func(a swarmapi.AgentInfo) bool { return a.Name == name })
	if i < 0 {
		return swarmapi.AgentInfo{}, false
	}
	return agents[i], true
}

// TestRemoteAgentIsAPane: through the main swarm's socket, as its UI and
// swarm peek and attach reach it, an agent of a host is listed with its
// host and state, its screen is read, keys and a paste typed into it,
// its size set (and given to it when its host joins or comes back); its
// screen changes are told on the event stream; while its host is away it
// is unreachable (not dead), shows its last screen and takes no keys,
// and comes back with its host.
func TestRemoteAgentIsAPane(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	writeScript(t, hostDir, "worker.sh", `echo "worker ready"
while IFS= read -r line; do echo "got: $line"; done
`)
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	ui := serveMain(t, tm)
	events := ui.Subscribe()
	defer events.Close()
	// The UI sizes its panes at once: a host not joined yet gets the size
	// when it joins (the resize is not an error the UI would show). A key
	// is refused, saying why.
	if err := ui.Resize("worker", 26, 70); err != nil {
		t.Errorf("resize of an agent whose host has not joined: %v, want the size kept", err)
	}
	if err := ui.SendKey("worker", swarmapi.Key{Code: swarmapi.KeyEnter}); err == nil || !strings.Contains(err.Error(), "worker: its host is away (host box has not joined yet)") {
		t.Errorf("a key for an agent whose host has not joined: %v", err)
	}
	url, state := tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host")
	h := startHost(t, url, state, hostDir)

	var worker swarmapi.AgentInfo
	testrun.Within(t, testrun.Patience, "the remote worker listed as running on box, at the size asked", func() bool {
		a, ok := agentNamed(ui.Agents(), "worker")
		worker = a
		return ok && a.Host == "box" && a.State == swarmapi.StateRunning && a.Pid > 0 && a.Rows == 26 && a.Cols == 70
	})
	if _, ok := agentNamed(ui.Agents(), "lead"); !ok {
		t.Fatal("the local agent is not listed beside the remote one")
	}
	ctx := context.Background()
	testrun.Within(t, testrun.Patience, "swarm peek shows the worker's screen", func() bool {
		p, err := ui.Peek(ctx, "worker")
		return err == nil && strings.Contains(strings.Join(p.Lines, "\n"), "worker ready")
	})

	// What the stream told so far (the host's coming, the worker's start)
	// is set aside: the paste's echo is to be told on its own.
	for drained := false; !drained; {
		select {
		case <-events.Events():
		default:
			drained = true
		}
	}
	if err := ui.Paste("worker", "hello from main"); err != nil {
		t.Fatal(err)
	}
	if err := ui.SendKey("worker", swarmapi.Key{Code: swarmapi.KeyEnter}); err != nil {
		t.Fatal(err)
	}
	testrun.Within(t, testrun.Patience, "the worker took the paste and Enter", func() bool {
		v, err := ui.View("worker", -1)
		return err == nil && strings.Contains(v.Rows, "got: hello from main")
	})
	screenTold := false
	for !screenTold {
		select {
		case ev := <-events.Events():
			screenTold = ev.Kind == swarmapi.EventScreen && ev.Agent == "worker"
			if ev.Kind == swarmapi.EventAgentStarted {
				t.Fatalf("the worker told as started again: %+v", ev)
			}
		case <-time.After(testrun.Patience):
			t.Fatal("no screen notice of the worker on the event stream")
		}
	}
	if err := ui.Resize("worker", 30, 100); err != nil {
		t.Fatal(err)
	}
	testrun.Within(t, testrun.Patience, "the worker's terminal resized on its host", func() bool {
		a, _ := agentNamed(ui.Agents(), "worker")
		return a.Rows == 30 && a.Cols == 100
	})

	// The host sends the rows changed since the rendering the main swarm
	// holds: none for a screen that did not change.
	full, err := call(tm.main, "worker", wire.View, wire.ViewParams{Agent: "worker", Top: -1})
	if err != nil {
		t.Fatal(err)
	}
	if full.Rows.Base != 0 || len(full.Rows.Changed) != full.Rows.N || full.Rows.N != 30 {
		t.Fatalf("first view: base %d, %d of %d rows, want all 30", full.Rows.Base, len(full.Rows.Changed), full.Rows.N)
	}
	again, err := call(tm.main, "worker", wire.View, wire.ViewParams{Agent: "worker", Top: -1, Gen: full.Rows.Gen})
	if err != nil {
		t.Fatal(err)
	}
	if again.Rows.Base != full.Rows.Gen || len(again.Rows.Changed) != 0 {
		t.Errorf("view of an unchanged screen: base %d (want %d), %d rows sent, want none", again.Rows.Base, full.Rows.Gen, len(again.Rows.Changed))
	}

	h.kill(syscall.SIGTERM)
	testrun.Within(t, testrun.Patience, "the worker unreachable while box is away", func() bool {
		a, _ := agentNamed(ui.Agents(), "worker")
		return a.State == swarmapi.StateUnreachable && strings.Contains(a.Reason, "box away since")
	})
	// Its pane keeps the last screen the main swarm held, as a terminal
	// keeps a lost connection's, without a cursor; what is typed into it
	// is refused in one line; its size is kept for its return.
	if v, err := ui.View("worker", -1); err != nil || !strings.Contains(v.Rows, "got: hello from main") || v.CursorVisible {
		t.Errorf("view of the worker while box is away: %q (cursor shown %v), %v; want its last screen, no cursor", v.Rows, v.CursorVisible, err)
	}
	if v, err := ui.View("worker", 0); err != nil || !strings.Contains(v.Rows, "got: hello from main") || v.Offset != 0 {
		t.Errorf("view scrolled back while box is away: %q at offset %d, %v; want the last screen", v.Rows, v.Offset, err)
	}
	for what, err := range map[string]error{
		"a key":   ui.SendKey("worker", swarmapi.Key{Code: swarmapi.KeyEnter}),
		"a paste": ui.Paste("worker", "lost"),
	} {
		if err == nil || !strings.Contains(err.Error(), "worker: its host is away (host box, since ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s typed into the worker while box is away: %v, want one line saying its host is away", what, err)
		}
	}
	if err := ui.Resize("worker", 28, 90); err != nil {
		t.Errorf("resize of the worker while box is away: %v, want the size kept for its return", err)
	}
	if _, err := tm.main.Snapshot("worker"); !errors.Is(err, ErrHostAway) {
		t.Errorf("snapshot of an agent whose host is away: %v, want %v", err, ErrHostAway)
	}
	startHost(t, url, state, hostDir)
	// It comes back at the size the UI last asked (its pane's), though
	// its host starts it at its own.
	testrun.Within(t, testrun.Patience, "the worker back with its host, at the size last asked", func() bool {
		a, _ := agentNamed(ui.Agents(), "worker")
		return a.State == swarmapi.StateRunning && a.Pid != worker.Pid && a.Rows == 28 && a.Cols == 90
	})
	testrun.Within(t, testrun.Patience, "its new screen shown", func() bool {
		v, err := ui.View("worker", -1)
		return err == nil && strings.Contains(v.Rows, "worker ready") && !strings.Contains(v.Rows, "got: hello")
	})
}

// TestBroadcastKeepsItsID: a broadcast reaches the agents of a host under
// the id the main bus gave it (what they read in "[relay #ID …]" is the id
// swarm log shows), each delivery confirmed once.
func TestBroadcastKeepsItsID(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	writeScript(t, hostDir, "worker.sh", `while IFS= read -r line; do
  case "$line" in *"from human] hello all"*) id=${line#*#}; echo "@relay:lead saw ${id%% *}";; esac
done
`)
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n"+
		"[[agent]]\nname = \"w1\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n\n[[agent]]\nname = \"w2\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	startHost(t, tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host"), hostDir)
	ctx := context.Background()
	m, err := tm.bus.Publish(ctx, bus.Message{From: bus.Human, To: bus.Everyone, Body: "hello all"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"w1", "w2"} {
		var saw []string
		testrun.Within(t, testrun.Patience, w+" read the broadcast", func() bool {
			saw, _ = tm.pairs(t, w, "lead")
			return len(saw) > 0
		})
		id := strings.TrimPrefix(saw[0], "saw ")
		if len(saw) != 1 || id != bus.ShortID(m.ID) {
			t.Errorf("%s read the broadcast as %q; its id on the main bus is %s", w, saw, m.ID)
		}
	}
	testrun.Within(t, testrun.Patience, "every delivery of the broadcast confirmed", func() bool {
		got, err := tm.bus.Message(ctx, m.ID)
		if err != nil || len(got.Deliveries) != 3 {
			return false
		}
		for _, d := range got.Deliveries {
			if d.State != bus.DeliveryConfirmed {
				return false
			}
		}
		return true
	})
}
