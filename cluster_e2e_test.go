package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"swarm/bus"
	"swarm/internal/testrun"
)

// TestTwoHosts: a main swarm (swarm up --headless) and two hosts (swarm
// host), each a process in a directory of its own on this machine, over
// loopback: scripted agents on each message across in both directions,
// every message confirmed, in order per pair; swarm peek shows a remote
// agent's screen; swarm hosts lists both; a host with a wrong secret is
// refused in one line.
func TestTwoHosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	listen := freeListenAddr(t)
	box1, box2 := t.TempDir(), t.TempDir()
	script := func(dir, name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script(e.cwd, "lead.sh", `for i in 1 2 3; do echo "@relay:w1 ping $i"; echo "@relay:w2 ping $i"; sleep 0.05; done
while IFS= read -r line; do echo "lead got: $line"; done
`)
	// w1 answers lead and tells w2 (on the other host) each time.
	script(box1, "w1.sh", `while IFS= read -r line; do
  n=${line##* }
  case "$line" in *"from lead] ping"*) echo "@relay:lead pong $n"; echo "@relay:w2 hello $n";; esac
done
`)
	script(box2, "w2.sh", `swarm send lead "hello by swarm send" >/dev/null || echo "swarm send failed"
while IFS= read -r line; do
  n=${line##* }
  case "$line" in *"from lead] ping"*) echo "@relay:lead pong $n";; *"from w1] hello"*) echo "@relay:w1 thanks $n";; esac
done
`)
	toml := fmt.Sprintf(`[cluster]
listen = %q

[[agent]]
name = "lead"
cmd = ["./lead.sh"]
quiet = 0

[[agent]]
name = "w1"
cmd = ["./w1.sh"]
quiet = 0
host = "box1"

[[agent]]
name = "w2"
cmd = ["./w2.sh"]
quiet = 0
host = "box2"
`, listen)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	startTerminated(t, e.command("up", "--headless"))
	url1, url2 := strings.TrimSpace(e.ok("invite", "box1")), strings.TrimSpace(e.ok("invite", "box2"))
	if !regexp.MustCompile(`^swarm://127\.0\.0\.1:\d+/box1\?fp=sha256%3A[0-9a-f]{64}&secret=[0-9a-f]+$`).MatchString(url1) {
		t.Fatalf("swarm invite box1 printed %q", url1)
	}
	hostEnv := func(dir string) *env { return &env{t: t, cwd: dir} }
	startTerminated(t, hostEnv(box1).command("host", url1))
	// box2 in the background (--server): swarm host returns once it joined.
	out2 := hostEnv(box2).ok("host", url2, "--dir", filepath.Join(box2, "state"), "--server")
	pidText, err := os.ReadFile(filepath.Join(box2, "state", "host.pid"))
	if err != nil {
		t.Fatalf("swarm host --server printed %q and wrote no pid: %v", out2, err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if pid <= 0 || !strings.Contains(out2, fmt.Sprintf("host box2 runs in the background (pid %d)", pid)) {
		t.Fatalf("swarm host --server printed %q, pid file %q", out2, pidText)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		testrun.Within(t, testrun.Patience, "the background host to end", func() bool { return ended(pid) })
	})

	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pairs := []struct{ from, to, bodies string }{
		{"lead", "w1", "ping 1|ping 2|ping 3"}, {"lead", "w2", "ping 1|ping 2|ping 3"},
		{"w1", "lead", "pong 1|pong 2|pong 3"},
		{"w1", "w2", "hello 1|hello 2|hello 3"}, {"w2", "w1", "thanks 1|thanks 2|thanks 3"},
		{"w2", "lead", "hello by swarm send|pong 1|pong 2|pong 3"},
	}
	for _, p := range pairs {
		var got, states []string
		ok := testrun.Poll(testrun.Patience, func() bool {
			msgs, err := b.Messages(context.Background(), 0, 0)
			if err != nil {
				return false
			}
			got, states = got[:0], states[:0]
			confirmed := 0
			for _, m := range msgs {
				if m.From == p.from && m.To == p.to {
					got = append(got, m.Body)
					for _, d := range m.Deliveries {
						states = append(states, d.State.String()+" "+d.Error)
					}
					if len(m.Deliveries) == 1 && m.Deliveries[0].State == bus.DeliveryConfirmed {
						confirmed++
					}
				}
			}
			return strings.Join(got, "|") == p.bodies && confirmed == len(got)
		})
		if !ok {
			t.Fatalf("%s → %s: %q (%q), want %q, each confirmed", p.from, p.to, got, states, p.bodies)
		}
	}
	// A remote agent's screen, read on the main machine.
	var peek string
	testrun.Within(t, testrun.Patience, "swarm peek w1 to show w1's screen on box1", func() bool {
		peek, _, _ = e.run("peek", "w1")
		return strings.Contains(peek, "from lead] ping 3")
	})
	var out string
	testrun.Within(t, testrun.Patience, "swarm hosts to list both hosts connected", func() bool {
		out, _, _ = e.run("hosts")
		return strings.Count(out, " connected ") == 2
	})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^HOST +STATE +ADDRESS +AGENTS +LATENCY$`),
		regexp.MustCompile(`(?m)^box1 +connected +127\.0\.0\.1:\d+ +w1 +[0-9.]+(µs|ms)$`),
		regexp.MustCompile(`(?m)^box2 +connected +127\.0\.0\.1:\d+ +w2 +[0-9.]+(µs|ms)$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("swarm hosts:\n%s\nlacks %s", out, want)
		}
	}
	bad := regexp.MustCompile(`secret=[0-9a-f]+`).ReplaceAllString(url1, "secret=0000")
	hostEnv(t.TempDir()).fails(1, []string{"host", bad}, "host box1 refused by the main swarm", "swarm invite box1")
	// A host ended by SIGTERM says, as swarm up does, what it stops, and
	// nothing after.
	_ = syscall.Kill(pid, syscall.SIGTERM)
	testrun.Within(t, testrun.Patience, "box2's host to end on SIGTERM", func() bool { return ended(pid) })
	said, _ := os.ReadFile(filepath.Join(box2, "state", "host.out"))
	lines := strings.Split(strings.TrimSpace(string(said)), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "swarm: host box2: stopping 1 running agent (killed if still running after ") {
		t.Errorf("box2's host ended by SIGTERM printed %q last, want that it stops its 1 running agent", last)
	}
}

// startTerminated starts cmd and, when the test ends, ends it as a person
// would (SIGTERM) and waits for it.
func startTerminated(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
}

// TestMainKilledLosesNothing: the main swarm killed (SIGKILL) while
// messages flow to and from a host, and started again, loses none: every
// message written for the host's agent while the main swarm was down is
// delivered, and each answer is committed on the main bus.
func TestMainKilledLosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	listen := freeListenAddr(t)
	box := t.TempDir()
	if err := os.WriteFile(filepath.Join(box, "worker.sh"), []byte(`#!/bin/sh
while IFS= read -r line; do
  case "$line" in *"from human] ping"*) sleep 0.1; echo "@relay:lead pong ${line##* }";; esac
done
`), 0o755); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf("[cluster]\nlisten = %q\n\n[[agent]]\nname = \"lead\"\ncmd = \"cat >/dev/null\"\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n", listen)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	up := e.command("up", "--headless")
	up.Stderr = os.Stderr
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	url := strings.TrimSpace(e.ok("invite", "box"))
	startTerminated(t, (&env{t: t, cwd: box}).command("host", url))

	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	pongs := func() []string {
		msgs, _ := b.Messages(ctx, 0, 0)
		var out []string
		for _, m := range msgs {
			if m.From == "worker" && m.To == "lead" {
				out = append(out, m.Body)
			}
		}
		return out
	}
	const n = 30
	ping := func(i int) {
		if _, err := b.Publish(ctx, bus.Message{From: bus.Human, To: "worker", Body: fmt.Sprintf("ping %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A message for an agent the bus does not know yet fails: swarm up,
	// slow on a busy machine, registers worker first.
	testrun.Within(t, testrun.Patience, "swarm up to register worker", func() bool {
		_, err := b.Agent(ctx, "worker")
		return err == nil
	})
	for i := 1; i <= 20; i++ {
		ping(i)
	}
	testrun.Within(t, testrun.Patience, "a few pongs before the kill", func() bool { return len(pongs()) >= 3 })
	_ = up.Process.Kill()
	_ = up.Wait()
	before := len(pongs())
	for i := 21; i <= n; i++ { // written while the main swarm is down
		ping(i)
	}
	startTerminated(t, e.command("up", "--headless"))
	var got []string
	ok := testrun.Poll(testrun.Patience, func() bool {
		got = pongs()
		return len(uniqStrings(got)) == n
	})
	t.Logf("killed after %d pongs; committed %d pongs, %d duplicated, lost %d", before, len(got), len(got)-len(uniqStrings(got)), n-len(uniqStrings(got)))
	if !ok {
		t.Fatalf("pongs: %q", got)
	}
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("pong %d", i+1)
	}
	if strings.Join(uniqStrings(got), "|") != strings.Join(want, "|") {
		t.Errorf("pongs out of order: %q", got)
	}
}

func uniqStrings(ss []string) []string {
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

// ended reports whether process pid has ended: gone, or a zombie (its
// parent has not reaped it: this test binary may be a subreaper).
func ended(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

// freeListenAddr returns an address on 127.0.0.1 free now, with a port
// below the kernel's ephemeral range: a port the kernel handed out (":0")
// is handed out again to the next outgoing connection, a host's say, and
// the swarm meant to listen there found it taken.
func freeListenAddr(t *testing.T) string {
	t.Helper()
	for range 1000 {
		addr := fmt.Sprintf("127.0.0.1:%d", 10000+rand.IntN(20000))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatal("no free port below 30000")
	return ""
}

// TestTaskInsideARemoteAgent: swarm heartbeat, swarm task start and swarm
// mcp's task_done run inside an agent on a host act on the main swarm's
// bus, where its task is, as that agent; swarm task list and show and
// swarm mcp's agents tool there read the main swarm's bus; a heartbeat
// the agent sends as it starts is answered (the host's socket listens
// before its agents start).
func TestTaskInsideARemoteAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	box := t.TempDir()
	if err := os.WriteFile(filepath.Join(e.cwd, "lead.sh"), []byte("#!/bin/sh\nwhile IFS= read -r l; do :; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The task is finished through swarm mcp, as an agent CLI's MCP
	// client would: JSON-RPC lines on its stdin, until the answer.
	worker := `#!/bin/sh
mcp_done() {
  rm -f mcp.in mcp.out; mkfifo mcp.in
  swarm mcp <mcp.in >mcp.out 2>mcp.err &
  exec 3>mcp.in
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}' >&3
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
  echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task_done","arguments":{"id":"'"$1"'"}}}' >&3
  while ! grep -q '"id":2' mcp.out; do sleep 0.05; done
  echo '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"agents","arguments":{}}}' >&3
  while ! grep -q '"id":3' mcp.out; do sleep 0.05; done
  exec 3>&-
  wait
  grep '"id":3' mcp.out >agents.out
  grep '"id":2' mcp.out | grep -q '"to":"IN_REVIEW"'
}
swarm heartbeat --status idle >hb0.out 2>&1 || echo "@relay:lead heartbeat at start failed: $(head -c 200 hb0.out)"
while IFS= read -r line; do
  case "$line" in *"from human] go "*)
    id=${line##* }
    swarm heartbeat --status working --progress 0.5 --task "$id" >hb.out 2>&1 || echo "@relay:lead heartbeat failed: $(head -c 200 hb.out)"
    if swarm task start "$id" >start.out 2>&1 && mcp_done "$id"; then
      swarm task list >list.out 2>&1
      swarm task show "$id" >show.out 2>&1
      echo "@relay:lead finished $id"
    else
      echo "@relay:lead task failed: $(cat start.out mcp.out 2>/dev/null | tr '\n' ' ' | head -c 300)"
    fi;;
  esac
done
`
	if err := os.WriteFile(filepath.Join(box, "worker.sh"), []byte(worker), 0o755); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf("[cluster]\nlisten = %q\n\n[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n"+
		"[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n", freeListenAddr(t))
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	startTerminated(t, e.command("up", "--headless"))
	url := strings.TrimSpace(e.ok("invite", "box"))
	testrun.Within(t, testrun.Patience, "swarm hosts to list box, not joined yet", func() bool {
		out, _, code := e.run("hosts")
		return code == 0 && regexp.MustCompile(`(?m)^box\s+not joined yet\s+-\s+worker\s+-$`).MatchString(out)
	})
	startTerminated(t, (&env{t: t, cwd: box}).command("host", url))
	var id string
	testrun.Within(t, testrun.Patience, "the main swarm to take a task for worker", func() bool {
		out, _, code := e.run("task", "add", "--to", "worker", "build", "it") // refused until the swarm registered worker
		id = strings.TrimSpace(out)
		return code == 0
	})
	e.ok("send", "worker", "go "+id)

	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	var said []string
	testrun.Within(t, testrun.Patience, "worker to say how its task went", func() bool {
		msgs, _ := b.Messages(ctx, 0, 0)
		said = said[:0]
		for _, m := range msgs {
			if m.From == "worker" && m.To == "lead" {
				said = append(said, m.Body)
			}
		}
		return len(said) > 0
	})
	if strings.Join(said, "|") != "finished "+id {
		t.Fatalf("worker said %q, want %q", said, "finished "+id)
	}
	task, err := b.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if task.State != bus.TaskInReview {
		t.Errorf("task %s is %s on the main bus, want IN_REVIEW", id, task.State)
	}
	events, err := b.TaskEvents(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, ev := range events {
		moves = append(moves, ev.Actor+" "+ev.To.String())
	}
	if j := strings.Join(moves, ", "); !strings.Contains(j, "worker WORKING, worker IN_REVIEW") {
		t.Errorf("the task's moves on the main bus: %s, want worker's start and done", j)
	}
	hbs, err := b.Heartbeats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hbs {
		found = found || (h.Agent == "worker" && h.Task == id && h.Progress == 0.5)
	}
	if !found {
		t.Errorf("no heartbeat of worker for %s on the main bus: %+v", id, hbs)
	}
	// What the worker read: the main bus's task, its history, and every
	// agent as the main swarm records it (lead running; worker's
	// heartbeat and current task), none of which the host's bus holds.
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(box, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if list := read("list.out"); !regexp.MustCompile(id + `\s+IN_REVIEW\s+worker\s+\S+\s+build it`).MatchString(list) {
		t.Errorf("swarm task list inside the remote agent printed:\n%s", list)
	}
	if show := read("show.out"); !regexp.MustCompile(`state\s+IN_REVIEW`).MatchString(show) ||
		!regexp.MustCompile(`ASSIGNED → WORKING\s+worker`).MatchString(show) || !regexp.MustCompile(`WORKING → IN_REVIEW\s+worker`).MatchString(show) {
		t.Errorf("swarm task show inside the remote agent printed:\n%s", show)
	}
	var reply struct {
		Result struct {
			StructuredContent struct {
				Agents []struct {
					Name, State string
					Heartbeat   *struct {
						Status   string
						Progress float64
						Task     string
					}
					Task *struct{ ID, State string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(read("agents.out")), &reply); err != nil {
		t.Fatalf("swarm mcp's agents tool inside the remote agent: %v", err)
	}
	var agents []string
	for _, a := range reply.Result.StructuredContent.Agents {
		s := a.Name + " " + a.State
		if h := a.Heartbeat; h != nil {
			s += fmt.Sprintf(" beat %s %g %s", h.Status, h.Progress, h.Task)
		}
		if a.Task != nil {
			s += " task " + a.Task.ID + " " + a.Task.State
		}
		agents = append(agents, s)
	}
	if got, want := strings.Join(agents, "|"), "lead running|worker remote beat working 0.5 "+id+" task "+id+" IN_REVIEW"; got != want {
		t.Errorf("swarm mcp's agents tool inside the remote agent answered %s, want %s", got, want)
	}
	// In the host's directory, the command line reads the main swarm's
	// tasks through the host, and says so when the host is not running.
	if out := (&env{t: t, cwd: box}).ok("task", "list", "--dir", ".swarm-host"); !strings.Contains(out, id) {
		t.Errorf("swarm task list --dir .swarm-host printed:\n%s", out)
	}
}

// TestForegroundUIShowsRemoteAgents: a UI in the main swarm's own process
// (swarm up --foreground) shows a host's agent as an attached UI does: a
// pane titled with its host, its screen live (a message to it shows
// there as it is typed in on the host).
func TestForegroundUIShowsRemoteAgents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	box := t.TempDir()
	if err := os.WriteFile(filepath.Join(e.cwd, "lead.sh"), []byte("#!/bin/sh\necho lead ready\nwhile IFS= read -r l; do :; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(box, "worker.sh"), []byte("#!/bin/sh\necho worker ready on box\nwhile IFS= read -r line; do echo \"worker got $line\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf("[cluster]\nlisten = %q\n\n[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n"+
		"[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n", freeListenAddr(t))
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	ui := startTUIIn(t, []string{"TERM=xterm-256color", "SWARM_DIR=" + e.dir}, e.cwd, 30, 120, "up", "--foreground")
	ui.waitText("lead ready")
	url := strings.TrimSpace(e.ok("invite", "box"))
	startTerminated(t, (&env{t: t, cwd: box}).command("host", url))
	ui.waitText("worker@box", "worker ready on box")
	e.ok("send", "worker", "hello from main")
	ui.waitText("worker got [relay")
	if err := ui.quit(); err != nil {
		t.Fatalf("swarm up --foreground ended with %v; screen:\n%s", err, ui.lastScreen())
	}
}
