package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
)

// A test swarm: a supervisor on a bus, served on the bus's directory.
type testSwarm struct {
	bus *bus.Bus
	sup *supervisor.Supervisor
	srv *Server
}

// runSwarm starts a swarm of agents (by default one, a, that prints a
// line and sleeps) in busDir, its agents in dir; stop is what a client's
// stop request does.
func runSwarm(busDir, dir string, log *slog.Logger, stop func(), agents ...supervisor.AgentConfig) (*testSwarm, error) {
	b, err := bus.Open(bus.Options{Dir: busDir})
	if err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		agents = []supervisor.AgentConfig{{
			Name: "a", Argv: []string{"sh", "-c", `printf '\033]0;a title\007\033[1mhello\033[0m from a\n'; exec sleep 100`},
			Dir: dir, Restart: supervisor.RestartNever, Confirm: true,
		}}
	}
	cfg := &supervisor.Config{
		Quiet:     supervisor.DefaultQuiet,
		Heartbeat: supervisor.HeartbeatConfig{Warn: supervisor.DefaultWarn, Stale: supervisor.DefaultStale, Dead: supervisor.DefaultDead},
		Agents:    agents,
	}
	sw := &testSwarm{bus: b}
	if sw.sup, err = supervisor.New(supervisor.Options{Config: cfg, Bus: b, Log: log}); err == nil {
		err = sw.sup.Start(context.Background())
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	if sw.srv, err = Listen(busDir, sw.sup, Options{Program: "swarm test", Log: log, Bus: b, Stop: stop}); err != nil {
		_ = sw.sup.Shutdown(context.Background())
		b.Close()
		return nil, err
	}
	return sw, nil
}

// close ends the agents, then the socket, as a swarm does.
func (sw *testSwarm) close() {
	_ = sw.sup.Shutdown(context.Background())
	sw.srv.Close()
	sw.bus.Close()
}

// Besides the tests, the test binary is what a test runs in a process of
// its own, told by its environment: a swarm's server (serveVar: the bus
// directory), or a client that makes requests (callsVar).
const (
	serveVar    = "SWARM_SERVER_TEST_SERVE"
	callsVar    = "SWARM_SERVER_TEST_CALLS"
	callsOutVar = "SWARM_SERVER_TEST_OUT"
)

// helper runs the test binary as a helper process, if its environment
// says so; false when it is to run the tests.
func helper() (code int, ok bool) {
	if busDir := os.Getenv(serveVar); busDir != "" {
		return serve(busDir), true
	}
	if calls := os.Getenv(callsVar); calls != "" {
		return makeCalls(calls, os.Getenv(callsOutVar)), true
	}
	return 0, false
}

// serve runs a swarm on busDir until a client stops it or it is told to
// end (SIGTERM), logging to stderr.
func serve(busDir string) int {
	stopped := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(stopped) }) }
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	sw, err := runSwarm(busDir, filepath.Dir(busDir), log, stop)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	select {
	case <-stopped:
	case <-term:
	}
	sw.close()
	return 0
}

// serverProcess is a swarm's server in a process of its own.
type serverProcess struct {
	pid    int
	log    testrun.Buffer
	exited chan struct{} // closed when it has ended, with err
	err    error
}

// startServer runs a swarm's server in a process of its own (as swarm up
// does) and waits until it answers; the test ends it.
func startServer(t *testing.T, busDir string) *serverProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(busDir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := &serverProcess{exited: make(chan struct{})}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveVar+"="+busDir)
	cmd.Stderr = &p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.pid = cmd.Process.Pid
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	testrun.Within(t, testrun.Patience, "the server answering", func() bool {
		select {
		case <-p.exited:
			t.Fatalf("the server ended: %s", p.log.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cl, err := Dial(ctx, busDir, "swarm test")
		if err != nil {
			return false
		}
		cl.Close()
		return true
	})
	return p
}

// A test's client that makes requests is this test binary, told by its
// environment what to ask (callsVar: a JSON list of call) and where to
// write what it was answered (callsOutVar: a JSON list of answer).

type call struct {
	Method string
	Params json.RawMessage
}

type answer struct {
	Method      string
	Result      json.RawMessage
	Error, Code string
}

// makeCalls makes the calls on the socket of the swarm in $SWARM_DIR,
// writes the answers to out, and waits, connected, until its stdin ends
// (an agent's terminal closes when its swarm ends it).
func makeCalls(calls, out string) int {
	var cs []call
	if err := json.Unmarshal([]byte(calls), &cs); err != nil {
		fmt.Println(err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// An agent may start before its swarm serves the socket: it waits,
	// as the swarm CLI run inside an agent does.
	cl, err := Dial(ctx, os.Getenv("SWARM_DIR"), "swarm test client")
	for errors.Is(err, ErrNotRunning) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		cl, err = Dial(ctx, os.Getenv("SWARM_DIR"), "swarm test client")
	}
	if err != nil {
		return failCalls(out, err)
	}
	defer cl.Close() // the connection stays while this process lives
	var answers []answer
	for _, c := range cs {
		a := answer{Method: c.Method}
		err := cl.call(ctx, c.Method, c.Params, &a.Result)
		var re *remoteError
		switch {
		case errors.As(err, &re):
			a.Error = re.msg
			a.Code = codeOf(err)
		case err != nil:
			return failCalls(out, fmt.Errorf("%s: %w", c.Method, err))
		}
		answers = append(answers, a)
	}
	b, _ := json.Marshal(answers)
	if err := os.WriteFile(out+".new", b, 0o600); err != nil || os.Rename(out+".new", out) != nil {
		fmt.Println("cannot write", out)
		return 1
	}
	fmt.Println("answered")
	_, _ = os.Stdin.Read(make([]byte, 1))
	return 0
}

// failCalls writes a client's failure where its answers would be, so
// that the test reports it at once instead of waiting for answers that
// never come.
func failCalls(out string, err error) int {
	fmt.Println(err)
	b, _ := json.Marshal([]answer{{Method: "(client)", Error: err.Error(), Code: clientFailed}})
	if os.WriteFile(out+".new", b, 0o600) == nil {
		_ = os.Rename(out+".new", out)
	}
	return 1
}

// clientFailed marks the answer of a client that could not make its calls.
const clientFailed = "client_failed"

// readAnswers waits for the answers written to out.
func readAnswers(t *testing.T, who, out string) []answer {
	t.Helper()
	var raw []byte
	testrun.Within(t, testrun.Patience, who+"'s answers", func() bool {
		var err error
		raw, err = os.ReadFile(out)
		return err == nil
	})
	var as []answer
	if err := json.Unmarshal(raw, &as); err != nil {
		t.Fatal(err)
	}
	if len(as) == 1 && as[0].Code == clientFailed {
		t.Fatalf("%s could not make its calls: %s", who, as[0].Error)
	}
	return as
}

func callsEnv(t *testing.T, calls []call) (env map[string]string, out string) {
	t.Helper()
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "answers.json")
	return map[string]string{callsVar: string(b), callsOutVar: out}, out
}

// agentCalling is an agent that makes calls on its swarm's socket as soon
// as it starts, and its answers, once they are written.
func agentCalling(t *testing.T, name string, calls []call) (supervisor.AgentConfig, func() []answer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env, out := callsEnv(t, calls)
	ac := supervisor.AgentConfig{Name: name, Argv: []string{exe}, Dir: t.TempDir(), Restart: supervisor.RestartNever, Env: env}
	return ac, func() []answer { return readAnswers(t, name, out) }
}

// clientCalling runs a client in a process of its own (outside every
// agent: the human's) that makes calls on the socket of the swarm in
// busDir and stays connected; its answers, once written, and the process.
func clientCalling(t *testing.T, busDir string, calls []call) ([]answer, *exec.Cmd) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env, out := callsEnv(t, calls)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "SWARM_DIR="+busDir)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, err := cmd.StdinPipe() // it waits on its stdin once it has answered
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return readAnswers(t, "the client", out), cmd
}
