package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
	"swarm/wire"

	uv "github.com/charmbracelet/ultraviolet"
)

// startSwarm runs a supervisor with one agent that prints a line (or the
// agents given), with its bus in busDir, and serves it there.
func startSwarm(t *testing.T, busDir string, agents ...supervisor.AgentConfig) *Server {
	t.Helper()
	srv, _ := startSwarmBus(t, busDir, agents...)
	return srv
}

// startSwarmBus is startSwarm, with the swarm's bus.
func startSwarmBus(t *testing.T, busDir string, agents ...supervisor.AgentConfig) (*Server, *bus.Bus) {
	t.Helper()
	b, err := bus.Open(bus.Options{Dir: busDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if len(agents) == 0 {
		agents = []supervisor.AgentConfig{{
			Name: "a", Argv: []string{"sh", "-c", `printf '\033]0;a title\007\033[1mhello\033[0m from a\n'; exec sleep 100`},
			Dir: t.TempDir(), Restart: supervisor.RestartNever, Confirm: true,
		}}
	}
	cfg := &supervisor.Config{
		Quiet:     supervisor.DefaultQuiet,
		Heartbeat: supervisor.HeartbeatConfig{Warn: supervisor.DefaultWarn, Stale: supervisor.DefaultStale, Dead: supervisor.DefaultDead},
		Agents:    agents,
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sup, err := supervisor.New(supervisor.Options{Config: cfg, Bus: b, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Shutdown(context.Background()) })
	srv, err := Listen(busDir, sup, Options{Program: "swarm test", Log: log, Bus: b, Stop: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, b
}

func peek(t *testing.T, busDir, agent string) (lines []string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res, err := r.Peek(ctx, agent)
	return res.Lines, err
}

func TestPeekThroughTheSocket(t *testing.T) {
	t.Parallel()
	// Deep enough that the socket's path does not fit a socket address.
	busDir := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60), ".swarm")
	srv := startSwarm(t, busDir)
	if len(srv.path) <= maxSocketPath {
		t.Fatalf("the path %s is short: this test needs a long one", srv.path)
	}
	if st, err := os.Stat(srv.path); err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %s: %v %v, want a socket of mode 0600", srv.path, st.Mode(), err)
	}
	testrun.Within(t, 10*time.Second, "a's line through peek", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
	if _, err := peek(t, busDir, "nobody"); !errorsContain(err, `unknown agent "nobody"`) {
		t.Errorf("peek at nobody: %v", err)
	}
	// Requests on one connection are answered in turn.
	ctx := context.Background()
	cl, err := Dial(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range 3 {
		if res, err := r.Peek(ctx, "a"); err != nil || res.Title != "a title" || res.Cols == 0 {
			t.Fatalf("peek: %+v %v", res, err)
		}
	}
	var res struct{}
	if err := cl.call(ctx, "explode", nil, &res); !errorsContain(err, `unknown method "explode" (this swarm is swarm test)`) {
		t.Errorf("unknown method: %v", err)
	}

	// Closed, the server removes its socket, and a client is told no
	// swarm runs.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(srv.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	if _, err := peek(t, busDir, "a"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("peek after Close: %v", err)
	}
}

// A socket file a killed swarm left behind is no swarm, and the next one
// takes its place.
func TestALeftoverSocketIsReplaced(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	if err := os.MkdirAll(busDir, 0o700); err != nil {
		t.Fatal(err)
	}
	dead, err := listenUnix(filepath.Join(busDir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	dead.Close() // the file stays: nobody listens
	if _, err := peek(t, busDir, "a"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("peek at a leftover socket: %v", err)
	}
	startSwarm(t, busDir)
	testrun.Within(t, 10*time.Second, "a's line through peek", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
}

func errorsContain(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// A swarm of another protocol version is named, not misread.
func TestAnotherVersionIsRefusedByName(t *testing.T) {
	t.Parallel()
	busDir := t.TempDir()
	ln, err := listenUnix(filepath.Join(busDir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var h wire.Hello
		_ = wire.ReadFrame(c, &h)
		_ = wire.WriteFrame(c, wire.Hello{Version: wire.Version + 1, Program: "swarm 9.0.0"})
	}()
	_, err = Dial(context.Background(), busDir, "swarm test")
	if want := fmt.Sprintf("swarm 9.0.0 speaks protocol %d, this swarm %d", wire.Version+1, wire.Version); !errorsContain(err, want) {
		t.Errorf("Dial: %v, want an error containing %q", err, want)
	}
	<-done
}

// An agent shown by two clients at two sizes takes the size of the one
// that typed into it last; until one has, the last size asked for.
func TestAPaneTakesTheSizeOfTheClientTyping(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	startSwarm(t, busDir)
	ctx := context.Background()
	attach := func() *Remote {
		r, err := Attach(ctx, busDir, "swarm test")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	one, two := attach(), attach()
	testrun.Within(t, 10*time.Second, "a running", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
	size := func() [2]int {
		t.Helper()
		snap, err := two.Snapshot("a")
		if err != nil {
			t.Fatal(err)
		}
		return [2]int{snap.Rows, snap.Cols}
	}
	wantSize := func(rows, cols int) {
		t.Helper()
		testrun.Within(t, 10*time.Second, fmt.Sprintf("a at %d×%d", rows, cols), func() bool { return size() == [2]int{rows, cols} })
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(one.Resize("a", 20, 50))
	must(two.Resize("a", 30, 70))
	wantSize(30, 70) // nobody typed: the last size asked for
	must(one.Paste("a", "x"))
	wantSize(20, 50) // one types: its size
	must(two.Resize("a", 40, 90))
	must(one.Resize("a", 21, 51))
	wantSize(21, 51) // two's resize waits while one types
	must(two.SendKey("a", uv.Key{Code: 'y', Text: "y"}))
	wantSize(40, 90) // two types now
	// One leaving changes nothing for two.
	one.Close()
	must(two.Resize("a", 25, 60))
	wantSize(25, 60)
}

// swarm ls: a running server is listed with its agents; a closed one is
// not.
func TestRunningSwarmsAreListed(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a registry of this test's own
	busDir := filepath.Join(t.TempDir(), ".swarm")
	srv := startSwarm(t, busDir)
	testrun.Within(t, 10*time.Second, "the agent running", func() bool {
		l, err := List(context.Background(), "swarm test")
		return err == nil && len(l) == 1 && l[0].AgentsRunning == 1
	})
	l, _ := List(context.Background(), "swarm test")
	if r := l[0]; r.BusDir != busDir || r.Pid != os.Getpid() || r.Agents != 1 || time.Since(r.Started) > time.Minute {
		t.Errorf("listed %+v", r)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err := List(context.Background(), "swarm test"); err != nil || len(l) != 0 {
		t.Errorf("after Close: %+v %v", l, err)
	}
}

// A client whose connections the swarm ends (as it does to one that
// stopped reading) connects again and carries on, told so; Done closes
// only when the swarm is gone.
func TestAClientConnectsAgain(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	srv := startSwarm(t, busDir)
	r, err := Attach(context.Background(), busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	events := r.Subscribe()
	defer events.Close()
	testrun.Within(t, 10*time.Second, "a running", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
	cut := func() {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for c := range srv.conns {
			c.Close()
		}
	}
	cut()
	got := func(what string, match func(supervisor.Event) bool) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev, ok := <-events.Events():
				if !ok {
					t.Fatalf("the events ended before %s", what)
				}
				if match(ev) {
					return
				}
			case <-timeout:
				t.Fatalf("no %s", what)
			}
		}
	}
	got("notice of the new connection", func(ev supervisor.Event) bool {
		return ev.Kind == supervisor.EventNotice && ev.Text == "connected again"
	})
	if a := r.Agents(); len(a) != 1 || a[0].Name != "a" {
		t.Fatalf("agents after the cut: %+v", a)
	}
	// Events flow again: a key typed in is echoed on a's screen.
	if err := r.Paste("a", "typed"); err != nil {
		t.Fatal(err)
	}
	got("a's screen changing", func(ev supervisor.Event) bool { return ev.Kind == supervisor.EventScreen && ev.Agent == "a" })
	if isClosed(r.Done()) {
		t.Fatal("Done closed while the swarm runs")
	}
	// The swarm gone, the client knows.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done still open after the swarm closed")
	}
}

// One Resize to 65535×65535 ran the swarm out of memory: a size out of
// bounds is refused in words, and the agent goes on at its size.
func TestAHugeSizeIsRefused(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	startSwarm(t, busDir)
	r, err := Attach(context.Background(), busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	testrun.Within(t, 10*time.Second, "a running", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
	if err := r.Resize("a", 30, 100); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{65535, 65535}, {30, supervisor.MaxCols + 1}, {supervisor.MaxRows + 1, 100}, {0, 100}} {
		err := r.Resize("a", size[0], size[1])
		if !errorsContain(err, "an agent's terminal has 1 to 1000 columns and 1 to 500 rows") {
			t.Errorf("resize to %d×%d: %v", size[1], size[0], err)
		}
	}
	snap, err := r.Snapshot("a")
	if err != nil || snap.Rows != 30 || snap.Cols != 100 {
		t.Errorf("a after the refusals: %d×%d %v, want 100×30", snap.Cols, snap.Rows, err)
	}
}
