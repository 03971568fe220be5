package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
)

// TestMain runs a host when the test binary is started as one (the
// tests' host processes, which they kill and start again).
func TestMain(m *testing.M) {
	if u := os.Getenv("SWARM_TEST_HOST_URL"); u != "" {
		os.Exit(runTestHost(u))
	}
	if addr := os.Getenv("SWARM_TEST_NATS_ADDR"); addr != "" {
		os.Exit(runTestNATS(addr, os.Getenv("SWARM_TEST_NATS_DIR")))
	}
	testrun.WaitersInParallel(4)
	os.Exit(m.Run())
}

func runTestHost(raw string) int {
	u, err := ParseJoinURL(raw)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err = RunHost(ctx, HostOptions{URL: u, Dir: os.Getenv("SWARM_TEST_HOST_DIR"), Workdir: os.Getenv("SWARM_TEST_HOST_WORKDIR")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// freeAddr is a loopback address nothing listens at.
// freeAddr returns an address on 127.0.0.1 free now, with a port below
// the kernel's ephemeral range: a port the kernel handed out (":0") is
// handed out again to the next outgoing connection, a host's say, and
// the swarm meant to listen there found it taken.
func freeAddr(t testing.TB) string {
	t.Helper()
	for range 1000 {
		addr := fmt.Sprintf("127.0.0.1:%d", 10000+rand.IntN(20000))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		l.Close()
		return addr
	}
	t.Fatal("no free port below 30000")
	return ""
}

func writeScript(t testing.TB, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// testMain is a main swarm run in the test's process.
type testMain struct {
	dir  string // project directory
	bus  *bus.Bus
	sup  *supervisor.Supervisor
	main *Main
	cfg  *supervisor.Config
}

// startMain starts a main swarm in dir with the swarm.toml text given
// (its [cluster] listen is filled in).
func startMain(t testing.TB, dir, listen, toml string) *testMain {
	t.Helper()
	return startMainWith(t, dir, fmt.Sprintf("listen = %q", listen), toml)
}

// startMainWith starts a main swarm whose [cluster] table has the line
// given.
func startMainWith(t testing.TB, dir, clusterLine, toml string) *testMain {
	t.Helper()
	path := filepath.Join(dir, supervisor.DefaultConfigFile)
	text := fmt.Sprintf("[cluster]\n%s\n\n%s", clusterLine, toml)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := supervisor.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bus.Open(bus.Options{Dir: filepath.Join(dir, ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(supervisor.Options{Config: cfg, Bus: b, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sup.Start(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := StartMain(ctx, MainOptions{Config: cfg, Bus: b})
	if err != nil {
		_ = sup.Shutdown(ctx)
		t.Fatal(err)
	}
	tm := &testMain{dir: dir, bus: b, sup: sup, main: m, cfg: cfg}
	t.Cleanup(tm.stop)
	return tm
}

func (tm *testMain) stop() {
	if tm.main == nil {
		return
	}
	tm.main.Close()
	_ = tm.sup.Shutdown(context.Background())
	_ = tm.bus.Close()
	tm.main = nil
}

func (tm *testMain) invite(t testing.TB, host string) string {
	t.Helper()
	u, err := Invite(tm.bus.Dir(), *tm.cfg.Cluster, host)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// hostProcess is a host run as a process of its own: this test binary.
type hostProcess struct {
	cmd    *exec.Cmd
	done   chan struct{}
	stderr strings.Builder
}

func startHost(t testing.TB, url, state, workdir string) *hostProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := &hostProcess{cmd: exec.Command(exe, "-test.run=^$"), done: make(chan struct{})}
	h.cmd.Env = append(os.Environ(), "SWARM_TEST_HOST_URL="+url, "SWARM_TEST_HOST_DIR="+state, "SWARM_TEST_HOST_WORKDIR="+workdir)
	h.cmd.Stderr = &h.stderr
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { h.kill(syscall.SIGTERM) })
	return h
}

// kill signals the host's process group (the host and its agents) and
// waits for the host to end.
func (h *hostProcess) kill(sig syscall.Signal) {
	select {
	case <-h.done:
		return
	default:
	}
	_ = syscall.Kill(-h.cmd.Process.Pid, sig)
	select {
	case <-h.done:
	case <-time.After(testrun.Patience):
		_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
		<-h.done
	}
}

// pairs returns, in the order the main bus committed them, the bodies of
// the messages from → to and their delivery states.
func (tm *testMain) pairs(t *testing.T, from, to string) (bodies []string, states []bus.DeliveryState) {
	t.Helper()
	msgs, err := tm.bus.Messages(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.From != from || m.To != to {
			continue
		}
		bodies = append(bodies, m.Body)
		for _, d := range m.Deliveries {
			states = append(states, d.State)
		}
	}
	return bodies, states
}

// ping sends the worker "ping i" from the person, for i from first to
// last: the tests' workers answer each with "@relay:lead pong i".
func (tm *testMain) ping(t *testing.T, first, last int) {
	t.Helper()
	for i := first; i <= last; i++ {
		if _, err := tm.bus.Publish(context.Background(), bus.Message{From: bus.Human, To: "worker", Body: fmt.Sprintf("ping %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
}

// answered waits until n pings are confirmed and n pongs are back, and
// returns the pongs.
func (tm *testMain) answered(t *testing.T, n int) []string {
	t.Helper()
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
	return pongs
}

func allConfirmed(states []bus.DeliveryState, n int) bool {
	if len(states) != n {
		return false
	}
	for _, s := range states {
		if s != bus.DeliveryConfirmed {
			return false
		}
	}
	return true
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + " " + strconv.Itoa(i+1)
	}
	return out
}

// The agents of the tests: lead (on the main machine) sends n pings to
// worker (on host box); worker answers each with a pong to lead and tells
// helper (on box too) about it.
const agentsTOML = `[[agent]]
name = "lead"
cmd = ["./lead.sh"]
quiet = 0

[[agent]]
name = "worker"
cmd = ["./worker.sh"]
quiet = 0
host = "box"

[[agent]]
name = "helper"
cmd = ["./helper.sh"]
quiet = 0
host = "box"
`

func writeAgents(t *testing.T, mainDir, hostDir string, n int, pace string) {
	t.Helper()
	writeScript(t, mainDir, "lead.sh", fmt.Sprintf(`i=1
while [ $i -le %d ]; do echo "@relay:worker ping $i"; i=$((i+1)); sleep %s; done
while IFS= read -r line; do echo "lead got: $line"; done
`, n, pace))
	writeScript(t, hostDir, "worker.sh", `while IFS= read -r line; do
  echo "worker got: $line"
  n=${line##* }
  case "$line" in *"from lead] ping"*) echo "@relay:lead pong $n"; echo "@relay:helper heard $n";; esac
done
`)
	writeScript(t, hostDir, "helper.sh", `while IFS= read -r line; do echo "helper got: $line"; done
`)
}

// TestMessagesAcrossHosts: an agent on the main machine and agents on a
// host (a process of its own, in a directory of its own) message each
// other both ways; every message is committed on the main bus once, in
// order per pair, and confirmed on its recipient's screen — one between
// two agents of the host too; swarm hosts sees the host.
func TestMessagesAcrossHosts(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	const n = 5
	writeAgents(t, mainDir, hostDir, n, "0.05")
	tm := startMain(t, mainDir, freeAddr(t), agentsTOML)
	startHost(t, tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host"), hostDir)

	for _, p := range []struct{ from, to, prefix string }{{"lead", "worker", "ping"}, {"worker", "lead", "pong"}, {"worker", "helper", "heard"}} {
		var bodies []string
		var states []bus.DeliveryState
		ok := testrun.Poll(testrun.Patience, func() bool {
			bodies, states = tm.pairs(t, p.from, p.to)
			return allConfirmed(states, n)
		})
		if !ok || strings.Join(bodies, "|") != strings.Join(numbered(p.prefix, n), "|") {
			t.Fatalf("%s → %s: bodies %q, states %v; want %d confirmed, in order", p.from, p.to, bodies, states, n)
		}
	}
	var hosts []HostInfo
	testrun.Within(t, testrun.Patience, "swarm hosts to show box connected", func() bool {
		var err error
		hosts, err = QueryHosts(tm.bus.Dir(), *tm.cfg.Cluster)
		return err == nil && len(hosts) == 1 && hosts[0].Connected
	})
	h := hosts[0]
	if h.Name != "box" || strings.Join(h.Agents, ",") != "worker,helper" || h.RTT <= 0 || !strings.HasPrefix(h.Addr, "127.0.0.1:") {
		t.Errorf("swarm hosts: %+v", h)
	}
}

// TestHostKilledLosesNothing: a host killed (SIGKILL, its agents with
// it) while messages flow, and started again, gets every message meant
// for its agent, and every answer reaches the main swarm.
func TestHostKilledLosesNothing(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	const n = 30
	writeAgents(t, mainDir, hostDir, n, "0.1")
	tm := startMain(t, mainDir, freeAddr(t), agentsTOML)
	url, state := tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host")
	h := startHost(t, url, state, hostDir)
	testrun.Within(t, testrun.Patience, "a few pongs before the kill", func() bool {
		bodies, _ := tm.pairs(t, "worker", "lead")
		return len(bodies) >= 3
	})
	h.kill(syscall.SIGKILL)
	before, _ := tm.pairs(t, "worker", "lead")
	startHost(t, url, state, hostDir)

	var pings []string
	var pingStates []bus.DeliveryState
	ok := testrun.Poll(testrun.Patience, func() bool {
		pings, pingStates = tm.pairs(t, "lead", "worker")
		return allConfirmed(pingStates, n)
	})
	if !ok {
		t.Fatalf("lead → worker after the kill: %d committed, states %v", len(pings), pingStates)
	}
	var pongs []string
	testrun.Within(t, testrun.Patience, "a pong for every ping", func() bool {
		pongs, _ = tm.pairs(t, "worker", "lead")
		return len(uniq(pongs)) == n
	})
	lost := n - len(uniq(pongs))
	t.Logf("killed after %d pongs; committed %d pings, %d pongs (%d duplicated: a ping typed in again after the kill), lost %d",
		len(before), len(pings), len(pongs), len(pongs)-len(uniq(pongs)), lost)
	if strings.Join(uniq(pongs), "|") != strings.Join(numbered("pong", n), "|") {
		t.Errorf("pongs out of order or missing: %q", pongs)
		logHostRecord(t, state, "worker")
	}
}

// logHostRecord logs what the host's bus in state holds of agent's
// messages, in its order, with each delivery's state and attempts, and
// the agent's output log: whether an answer missing on the main bus was
// typed, answered, read from the screen or lost on the way (this test
// failed once in CI, out of order, and was never reproduced).
func logHostRecord(t *testing.T, state, agent string) {
	t.Helper()
	hb, err := bus.Open(bus.Options{Dir: state})
	if err != nil {
		t.Logf("the host's bus: %v", err)
		return
	}
	defer hb.Close()
	msgs, err := hb.Messages(context.Background(), 0, 0)
	if err != nil {
		t.Logf("the host's messages: %v", err)
	}
	for _, m := range msgs {
		if m.From != agent && m.To != agent {
			continue
		}
		var ds []string
		for _, d := range m.Deliveries {
			ds = append(ds, fmt.Sprintf("%s %s ×%d %s", d.Recipient, d.State, d.Attempts, d.Updated.Format("15:04:05.000")))
		}
		t.Logf("host #%d %s → %s %q [%s]", m.Seq, m.From, m.To, m.Body, strings.Join(ds, "; "))
	}
	out, err := os.ReadFile(supervisor.LogPath(state, agent))
	t.Logf("%s's output log (%v):\n%s", agent, err, out)
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestRefusedHosts: a host with a wrong secret, or that reached a server
// whose certificate is not the URL's, is refused with one line saying
// which.
func TestRefusedHosts(t *testing.T) {
	t.Parallel()
	mainDir := t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\n\n[[agent]]\nname = \"w\"\ncmd = [\"sh\"]\nhost = \"box\"\n")
	u, err := ParseJoinURL(tm.invite(t, "box"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(u JoinURL) error {
		return RunHost(ctx, HostOptions{URL: u, Dir: t.TempDir(), Workdir: t.TempDir()})
	}

	wrong := u
	wrong.Secret = strings.Repeat("0", len(u.Secret))
	err = run(wrong)
	if !errors.Is(err, ErrRefused) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "swarm invite box") {
		t.Errorf("wrong secret: %v", err)
	}
	stranger := u
	stranger.Host = "stranger"
	if err := run(stranger); !errors.Is(err, ErrRefused) {
		t.Errorf("a host never invited: %v", err)
	}
	forged := u
	forged.Fingerprint = "sha256:" + strings.Repeat("ab", 32)
	err = run(forged)
	if !errors.Is(err, ErrNotTrusted) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), forged.Fingerprint) {
		t.Errorf("wrong fingerprint: %v", err)
	}
	for _, bad := range []string{"http://x:1/box", "swarm://x/box?secret=s&fp=sha256:" + strings.Repeat("ab", 32), "swarm://x:1/box?fp=" + u.Fingerprint, "swarm://x:1/b.x?secret=s&fp=" + u.Fingerprint} {
		if _, err := ParseJoinURL(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseJoinURL(%q) = %v", bad, err)
		}
	}
	// A host of another protocol (one from before hosts said theirs asks
	// with nothing) is refused, saying why, before it runs anything.
	nc, err := Dial(u, "old host")
	if err != nil {
		t.Fatal(err)
	}
	for _, ask := range [][]byte{nil, []byte(`{"protocol":1}`)} {
		reply, err := nc.Request(space(u.Space).definitions(u.Host), ask, testrun.Patience)
		var d definitions
		if err == nil {
			err = json.Unmarshal(reply.Data, &d)
		}
		if err != nil || len(d.Agents) != 0 || strings.Contains(d.Error, "\n") ||
			!strings.Contains(d.Error, "run the same version of swarm on both machines") {
			t.Errorf("a host asking with %q got %+v, %v; want a refusal naming the protocols", ask, d, err)
		}
	}
	nc.Close()
	again, err := Invite(tm.bus.Dir(), *tm.cfg.Cluster, "box")
	if err != nil || again != u.String() {
		t.Errorf("a second invitation is %q, %v; want the same URL %q", again, err, u.String())
	}
}

// TestRemoteAgentMovesItsTask: an agent on a host starts its task with a
// control message; the main swarm, which keeps the tasks, moves it, and
// the host's own swarm (no tasks) tells the agent nothing.
func TestRemoteAgentMovesItsTask(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	writeScript(t, hostDir, "worker.sh", `while IFS= read -r line; do
  case "$line" in *"from human] start "*) echo "@relay:swarm task_start ${line##* }";; esac
done
`)
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	state := filepath.Join(hostDir, ".swarm-host")
	startHost(t, tm.invite(t, "box"), state, hostDir)
	ctx := context.Background()
	task, err := tm.bus.CreateTask(ctx, bus.NewTask{Title: "build it", Assignee: "worker", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.bus.Publish(ctx, bus.Message{From: bus.Human, To: "worker", Body: "start " + task.ID}); err != nil {
		t.Fatal(err)
	}
	testrun.Within(t, testrun.Patience, "the task to be WORKING on the main bus", func() bool {
		got, err := tm.bus.Task(ctx, task.ID)
		return err == nil && got.State == bus.TaskWorking
	})
	hb, err := bus.Open(bus.Options{Dir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer hb.Close()
	testrun.Within(t, testrun.Patience, "the host's swarm to take the control message", func() bool {
		msgs, _ := hb.Messages(ctx, 0, 0)
		for _, m := range msgs {
			if m.To == bus.Swarm && m.From == "worker" {
				return len(m.Deliveries) == 1 && m.Deliveries[0].State == bus.DeliveryConfirmed
			}
		}
		return false
	})
	msgs, _ := hb.Messages(ctx, 0, 0)
	for _, m := range msgs {
		if m.From == bus.Swarm && m.To == "worker" && strings.Contains(m.Body, "fail") {
			t.Errorf("the host's swarm told worker: %s", m.Body)
		}
	}
}

// TestRevokedHostIsDisconnected: swarm invite --revoke ends a connected
// host's session; the host ends, saying why in one line, and its URL no
// longer joins.
func TestRevokedHostIsDisconnected(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, hostDir, "worker.sh", "while IFS= read -r l; do :; done\n")
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	url := tm.invite(t, "box")
	h := startHost(t, url, filepath.Join(hostDir, ".swarm-host"), hostDir)
	testrun.Within(t, testrun.Patience, "box connected", func() bool {
		hs := tm.main.Hosts()
		return len(hs) == 1 && hs[0].Connected
	})
	if err := Revoke(tm.bus.Dir(), "box"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.done:
	case <-time.After(testrun.Patience):
		t.Fatal("the revoked host still runs")
	}
	if msg := h.stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "host box refused by the main swarm") {
		t.Errorf("the revoked host said %q", msg)
	}
	if h.cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("the revoked host exited %d", h.cmd.ProcessState.ExitCode())
	}
	u, _ := ParseJoinURL(url)
	if err := RunHost(context.Background(), HostOptions{URL: u, Dir: t.TempDir(), Workdir: hostDir}); !errors.Is(err, ErrRefused) {
		t.Errorf("the revoked URL: %v", err)
	}
	if err := Revoke(tm.bus.Dir(), "box"); !errors.Is(err, ErrNotInvited) {
		t.Errorf("revoking twice: %v", err)
	}
}

// TestHostAwayGetsWhatItMissed: a host stopped (SIGTERM) is shown away;
// the messages written for its agent meanwhile wait in its stream, and it
// gets every one, once and in order, when it comes back.
func TestHostAwayGetsWhatItMissed(t *testing.T) {
	t.Parallel()
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	writeScript(t, hostDir, "worker.sh", `while IFS= read -r line; do
  case "$line" in *"from human] ping"*) echo "@relay:lead pong ${line##* }";; esac
done
`)
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	url, state := tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host")
	h := startHost(t, url, state, hostDir)
	connected := func(want bool) func() bool {
		return func() bool {
			hs := tm.main.Hosts()
			return len(hs) == 1 && hs[0].Connected == want
		}
	}
	testrun.Within(t, testrun.Patience, "box connected", connected(true))
	h.kill(syscall.SIGTERM)
	testrun.Within(t, testrun.Patience, "box shown away", connected(false))
	ctx := context.Background()
	testrun.Within(t, testrun.Patience, "worker recorded away on the main bus", func() bool {
		a, err := tm.bus.Agent(ctx, "worker")
		return err == nil && a.State == bus.AgentRemote && strings.HasPrefix(a.Reason, "on host box, away since ")
	})
	const n = 20
	tm.ping(t, 1, n)
	startHost(t, url, state, hostDir)
	testrun.Within(t, testrun.Patience, "box connected again", connected(true))
	pongs := tm.answered(t, n)
	if strings.Join(pongs, "|") != strings.Join(numbered("pong", n), "|") {
		t.Errorf("pongs: %q, want each once, in order", pongs)
	}
}

// TestWhatAHostSendsIsChecked: the main swarm commits what a host sends
// only for the agents that host runs, stamps it with its own clock (a
// host's clock 10 minutes off changes nothing), and a host cannot publish
// on another host's subjects.
func TestWhatAHostSendsIsChecked(t *testing.T) {
	t.Parallel()
	mainDir := t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	tm := startMain(t, mainDir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n"+
		"[[agent]]\nname = \"w1\"\ncmd = \"sh\"\nhost = \"box1\"\n\n[[agent]]\nname = \"w2\"\ncmd = \"sh\"\nhost = \"box2\"\n")
	u, err := ParseJoinURL(tm.invite(t, "box1"))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 10)
	nc, err := Dial(u, "test", nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	send := func(subject string, m wireMessage) error {
		data, _ := json.Marshal(outbound{Message: &m})
		_, err := js.Publish(ctx, subject, data, jetstream.WithMsgID(m.ID))
		return err
	}
	skewed := time.Now().Add(-10 * time.Minute)
	forged := wireMessage{ID: bus.NewID(), Time: skewed, From: "w2", To: "lead", Body: "from box2, says box1"}
	if err := send(tm.main.space.out("box1"), forged); err != nil {
		t.Fatal(err)
	}
	ok := wireMessage{ID: bus.NewID(), Time: skewed, From: "w1", To: "lead", Body: "from a slow clock"}
	if err := send(tm.main.space.out("box1"), ok); err != nil {
		t.Fatal(err)
	}
	var got bus.Message
	testrun.Within(t, testrun.Patience, "w1's message committed", func() bool {
		got, err = tm.bus.Message(ctx, ok.ID)
		return err == nil
	})
	if d := time.Since(got.Time); d < 0 || d > time.Minute {
		t.Errorf("committed with time %s, %s ago: the host's clock, not the main swarm's", got.Time, d)
	}
	if _, err := tm.bus.Message(ctx, forged.ID); err == nil {
		t.Errorf("a message from w2 (box2's) sent by box1 was committed")
	}
	if err := send(tm.main.space.out("box2"), wireMessage{ID: bus.NewID(), From: "w2", To: "lead", Body: "x"}); err == nil {
		t.Errorf("box1 published on box2's subject")
	}
	select {
	case err := <-errs:
		if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
			t.Errorf("publishing on box2's subject: %v", err)
		}
	case <-time.After(testrun.Patience):
		t.Errorf("no permissions violation reported for box2's subject")
	}
}
