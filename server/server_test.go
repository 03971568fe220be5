package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
	"swarm/swarmapi"
	"swarm/wire"
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
	sw, err := runSwarm(busDir, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), func() {}, agents...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sw.close)
	return sw.srv, sw.bus
}

func peek(t *testing.T, busDir, agent string) (lines []string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testrun.Patience)
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
	testrun.Within(t, testrun.Patience, "a's line through peek", func() bool {
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
	// Nobody, once every copy of the listener is closed: a child another
	// parallel test forks between its fork and its exec holds a copy of
	// this process's descriptors, and a dial meanwhile is queued on it,
	// then reset.
	var last error
	if !testrun.Poll(testrun.Patience, func() bool {
		_, last = peek(t, busDir, "a")
		return errors.Is(last, ErrNotRunning)
	}) {
		t.Fatalf("peek at a leftover socket: %v", last)
	}
	startSwarm(t, busDir)
	testrun.Within(t, testrun.Patience, "a's line through peek", func() bool {
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
	testrun.Within(t, testrun.Patience, "a running", func() bool {
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
		testrun.Within(t, testrun.Patience, fmt.Sprintf("a at %d×%d", rows, cols), func() bool { return size() == [2]int{rows, cols} })
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
	must(two.SendKey("a", swarmapi.Key{Code: 'y', Text: "y"}))
	wantSize(40, 90) // two types now
	// One leaving changes nothing for two.
	one.Close()
	wantSize(40, 90)
	must(two.Resize("a", 25, 60))
	wantSize(25, 60)
}

// When the client whose size an agent has leaves — detached, or its
// terminal killed — the agent takes the size of the latest active client
// left, as tmux does; panes stayed shrunk until the next attach.
func TestAPaneTakesBackItsSizeWhenTheClientTypingLeaves(t *testing.T) {
	t.Parallel()
	// The server in a process of its own, as swarm up runs it: its
	// clients are not its children.
	busDir := filepath.Join(t.TempDir(), ".swarm")
	startServer(t, busDir)
	ctx := context.Background()
	big, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	testrun.Within(t, testrun.Patience, "a running", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
	wantSize := func(rows, cols int) {
		t.Helper()
		testrun.Within(t, testrun.Patience, fmt.Sprintf("a at %d×%d", cols, rows), func() bool {
			snap, err := big.Snapshot("a")
			return err == nil && snap.Rows == rows && snap.Cols == cols
		})
	}
	if err := big.Resize("a", 45, 160); err != nil {
		t.Fatal(err)
	}
	if err := big.SendKey("a", swarmapi.Key{Code: 'x', Text: "x"}); err != nil {
		t.Fatal(err)
	}
	wantSize(45, 160)

	// A smaller client types into a, then detaches.
	small, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	if err := small.Resize("a", 12, 24); err != nil {
		t.Fatal(err)
	}
	if err := small.Paste("a", "y"); err != nil {
		t.Fatal(err)
	}
	wantSize(12, 24)
	small.Close()
	wantSize(45, 160)

	// A smaller client in another process types into a, and its
	// terminal is killed.
	answers, cmd := clientCalling(t, busDir, []call{
		{"Resize", rawParams(`{"Agent":"a","Rows":10,"Cols":30}`)},
		{"Paste", rawParams(`{"Agent":"a","Text":"z"}`)},
	})
	for _, a := range answers {
		if a.Error != "" {
			t.Fatalf("the other client's %s: %s", a.Method, a.Error)
		}
	}
	wantSize(10, 30)
	_ = cmd.Process.Kill()
	wantSize(45, 160)
}

// swarm ls: a running server is listed with its agents; a closed one is
// not.
func TestRunningSwarmsAreListed(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a registry of this test's own
	busDir := filepath.Join(t.TempDir(), ".swarm")
	srv := startSwarm(t, busDir)
	testrun.Within(t, testrun.Patience, "the agent running", func() bool {
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
	testrun.Within(t, testrun.Patience, "a running", func() bool {
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
	got := func(what string, match func(swarmapi.Event) bool) {
		t.Helper()
		timeout := time.After(testrun.Patience)
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
	got("notice of the new connection", func(ev swarmapi.Event) bool {
		return ev.Kind == swarmapi.EventNotice && ev.Text == "connected again"
	})
	if a := r.Agents(); len(a) != 1 || a[0].Name != "a" {
		t.Fatalf("agents after the cut: %+v", a)
	}
	// Events flow again: a key typed in is echoed on a's screen.
	if err := r.Paste("a", "typed"); err != nil {
		t.Fatal(err)
	}
	got("a's screen changing", func(ev swarmapi.Event) bool { return ev.Kind == swarmapi.EventScreen && ev.Agent == "a" })
	if isClosed(r.Done()) {
		t.Fatal("Done closed while the swarm runs")
	}
	// The swarm gone, the client knows.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
	case <-time.After(testrun.Patience):
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
	testrun.Within(t, testrun.Patience, "a running", func() bool {
		lines, err := peek(t, busDir, "a")
		return err == nil && slices.Contains(lines, "hello from a")
	})
	if err := r.Resize("a", 30, 100); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{65535, 65535}, {30, swarmapi.MaxCols + 1}, {swarmapi.MaxRows + 1, 100}, {0, 100}} {
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

// A client whose connections end while the swarm serves as many as it
// takes is refused when it connects again: it says so and keeps trying,
// and carries on once the swarm takes it; the swarm is not taken for gone.
func TestARefusedClientKeepsTrying(t *testing.T) {
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
	watched := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { watched <- r.Watch(ctx) }()
	setCap := func(n int) {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		srv.maxConns = n
		if n == 0 {
			for c := range srv.conns {
				c.Close()
			}
		}
	}
	setCap(0)
	got := func(what string, match func(swarmapi.Event) bool) {
		t.Helper()
		timeout := time.After(testrun.Patience)
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
	got("notice of the refusal", func(ev swarmapi.Event) bool {
		return ev.Kind == swarmapi.EventNotice && strings.Contains(ev.Text, "refused the connection") &&
			strings.Contains(ev.Text, "tries again")
	})
	if _, err := r.Snapshot("a"); !errors.Is(err, ErrRefused) {
		t.Fatalf("a request while refused: %v, want ErrRefused", err)
	}
	if r.Gone() {
		t.Fatal("the swarm taken for gone while it refuses the connection")
	}
	setCap(maxConns)
	got("notice of the new connection", func(ev swarmapi.Event) bool {
		return ev.Kind == swarmapi.EventNotice && ev.Text == "connected again"
	})
	if a := r.Agents(); len(a) != 1 || a[0].Name != "a" {
		t.Fatalf("agents once taken again: %+v", a)
	}
	select {
	case err := <-watched:
		t.Fatalf("Watch ended while the swarm runs: %v", err)
	default:
	}
	if r.Gone() {
		t.Fatal("Done closed while the swarm runs")
	}
}

// swarm ls: a swarm that runs but speaks another version of the protocol
// (one started by an older swarm) is listed with why it does not answer,
// not as one that is stuck.
func TestARunningSwarmOfAnotherVersionIsListedSo(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a registry of this test's own
	busDir := filepath.Join(t.TempDir(), ".swarm")
	if err := os.MkdirAll(busDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The older swarm: it says hello in its version and nothing more.
	ln, err := net.Listen("unix", filepath.Join(busDir, "swarm.sock"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = wire.WriteFrame(c, wire.Hello{Version: wire.Version - 1, Program: "swarm older"})
			var h wire.Hello
			_ = wire.ReadFrame(c, &h)
			c.Close()
		}
	})
	if err := register(Running{Dir: filepath.Dir(busDir), BusDir: busDir, Pid: os.Getpid(), Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unregister(busDir) })
	l, err := List(context.Background(), "swarm test")
	if err != nil || len(l) != 1 {
		t.Fatalf("listed %+v, %v", l, err)
	}
	if r := l[0]; r.Reachable || !strings.Contains(r.Unreachable, fmt.Sprintf("swarm older speaks protocol %d", wire.Version-1)) {
		t.Errorf("listed %+v", r)
	}
}
