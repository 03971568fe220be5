package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
)

// swarmBin is the swarm binary built once for these tests: the CLI is
// tested as users run it, as separate processes.
var swarmBin string

func TestMain(m *testing.M) {
	if kind := os.Getenv(fakeCLIVar); kind != "" {
		os.Exit(runFakeCLI(kind))
	}
	testrun.WaitersInParallel(6) // most tests here wait on processes
	dir, err := os.MkdirTemp("", "swarm-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Both binaries, as the README builds them: from a clean checkout
	// (CI) swarm runs its servers as swarm-server; from a tree with
	// changes it serves them itself (internal/serverbin).
	swarmBin = filepath.Join(dir, "swarm")
	if out, err := exec.Command("go", "build", "-o", dir+"/", ".", "./cmd/swarm-server").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// go keeps its build cache in the user's cache directory, which is
	// about to change: the builds the tests make (TestServerBinary) keep
	// using this one, not an empty one (compiling everything again).
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	// What swarm keeps in the user's cache directory (the notes of running
	// swarms, Gemini's kit files) stays in the test's own.
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one user's environment: a bus directory and an identity.
type env struct {
	t     *testing.T
	bin   string // the swarm binary; empty: swarmBin
	cwd   string
	dir   string // $SWARM_DIR; empty: unset
	agent string // $SWARM_AGENT; empty: unset
	token string // $SWARM_TOKEN; empty: unset
	stdin string
	extra []string // more variables, after the others (KEY=VALUE)
}

func newEnv(t *testing.T) *env {
	cwd := t.TempDir()
	return &env{t: t, cwd: cwd, dir: filepath.Join(cwd, "bus")}
}

// as is agent's environment, as swarm gives it: its name and its token.
func (e *env) as(agent string) *env {
	c := *e
	c.agent, c.token = agent, testToken(agent)
	return &c
}

// claiming names agent in $SWARM_AGENT without its token: a process that
// is not the agent's, pretending.
func (e *env) claiming(agent string) *env {
	c := *e
	c.agent, c.token = agent, ""
	return &c
}

// testToken is the token register gives agent.
func testToken(agent string) string { return "test-token-of-" + agent }

func (e *env) command(args ...string) *exec.Cmd {
	bin := swarmBin
	if e.bin != "" {
		bin = e.bin
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.cwd
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWARM_DIR=") && !strings.HasPrefix(kv, "SWARM_AGENT=") && !strings.HasPrefix(kv, "SWARM_TOKEN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if e.dir != "" {
		cmd.Env = append(cmd.Env, "SWARM_DIR="+e.dir)
	}
	if e.agent != "" {
		cmd.Env = append(cmd.Env, "SWARM_AGENT="+e.agent)
	}
	if e.token != "" {
		cmd.Env = append(cmd.Env, "SWARM_TOKEN="+e.token)
	}
	cmd.Env = append(cmd.Env, e.extra...)
	cmd.Stdin = strings.NewReader(e.stdin)
	return cmd
}

// run runs swarm and returns stdout, stderr and the exit status.
func (e *env) run(args ...string) (string, string, int) {
	e.t.Helper()
	cmd := e.command(args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// ok runs swarm, requires success and returns stdout.
func (e *env) ok(args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run(args...)
	if code != 0 {
		e.t.Fatalf("swarm %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// fails runs swarm, requires exit status code and a one-line error on
// stderr containing every want, and returns stdout.
func (e *env) fails(code int, args []string, want ...string) string {
	e.t.Helper()
	out, errOut, got := e.run(args...)
	if got != code {
		e.t.Fatalf("swarm %s: exit %d, want %d (stderr %q)", strings.Join(args, " "), got, code, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "swarm: ") {
		e.t.Errorf("swarm %s: stderr is not one error line: %q", strings.Join(args, " "), errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			e.t.Errorf("swarm %s: stderr %q lacks %q", strings.Join(args, " "), errOut, w)
		}
	}
	return out
}

// holdSwarmLock holds the bus's swarm lock as a running swarm does, until
// the test ends: status then takes the agents' records as current.
func (e *env) holdSwarmLock() {
	e.t.Helper()
	f, err := os.OpenFile(filepath.Join(e.dir, "swarm.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { f.Close() })
}

// register registers agents in the env's bus, as a running swarm would.
func (e *env) register(names ...string) {
	e.t.Helper()
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		e.t.Fatal(err)
	}
	defer b.Close()
	for _, n := range names {
		if err := b.RegisterAgent(e.t.Context(), bus.Agent{Name: n, Cmd: "sh", State: bus.AgentRunning}); err != nil {
			e.t.Fatal(err)
		}
		if err := b.SetAgentToken(e.t.Context(), n, testToken(n)); err != nil {
			e.t.Fatal(err)
		}
	}
}

func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

var uuidLine = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\n$`)

func TestSendInboxAndLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("alice", "bob")
	id := e.as("alice").ok("send", "bob", "please", "review", "auth.go")
	if !uuidLine.MatchString(id) {
		t.Fatalf("send printed %q, want a UUIDv7 line", id)
	}
	id = strings.TrimSpace(id)
	e.ok("send", "--type", "notice", "--data", `{"file":"auth.go","lines":[1,2]}`, "--topic", "review", "alice", "looks", "good")
	bobStdin := e.as("bob")
	bobStdin.stdin = "line one\nline two\n"
	bobStdin.ok("send", "alice", "-")

	out := e.ok("inbox", "bob")
	if !strings.Contains(out, "#"+bus.ShortID(id)) || !strings.Contains(out, "please review auth.go") ||
		!strings.Contains(out, "queued") || !strings.Contains(out, "alice") {
		t.Errorf("inbox bob:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d  #[0-9a-f]{8}  `).MatchString(out) {
		t.Errorf("inbox lines should start with HH:MM:SS and a short id:\n%s", out)
	}
	if !strings.Contains(out, "line one⏎line two") {
		t.Errorf("multi-line body not shown on one line:\n%s", out)
	}
	if strings.Contains(out, "looks good") {
		t.Errorf("bob's inbox shows a message between human and alice:\n%s", out)
	}

	lines := jsonLines(t, e.ok("inbox", "bob", "--json"))
	if len(lines) != 2 {
		t.Fatalf("bob --json: %d lines", len(lines))
	}
	for _, k := range []string{"id", "seq", "ts", "from", "to", "kind", "body", "state"} {
		if _, ok := lines[0][k]; !ok {
			t.Errorf("inbox --json line lacks %q: %v", k, lines[0])
		}
	}
	if lines[0]["id"] != id || lines[0]["from"] != "alice" || lines[0]["state"] != "queued" || lines[1]["body"] != "line one\nline two" {
		t.Errorf("bob --json: %v", lines)
	}

	// Identity defaults: $SWARM_AGENT, else human.
	alice := jsonLines(t, e.as("alice").ok("inbox", "--json"))
	if len(alice) != 3 {
		t.Fatalf("alice's inbox: %v", alice)
	}
	notice := alice[1]
	if notice["kind"] != "notice" || notice["topic"] != "review" || notice["from"] != "human" {
		t.Errorf("notice line: %v", notice)
	}
	if data, _ := json.Marshal(notice["data"]); string(data) != `{"file":"auth.go","lines":[1,2]}` {
		t.Errorf("data: %s", data)
	}
	if human := jsonLines(t, e.ok("inbox", "--json")); len(human) != 1 || human[0]["body"] != "looks good" {
		t.Errorf("human's inbox: %v", human)
	}

	all := jsonLines(t, e.ok("log", "--json"))
	if len(all) != 3 || all[0]["seq"].(float64) != 1 || all[2]["seq"].(float64) != 3 {
		t.Errorf("log --json: %v", all)
	}
	if out := e.ok("log", "--limit", "1"); strings.Count(out, "\n") != 1 || !strings.Contains(out, "line one") {
		t.Errorf("log --limit 1:\n%s", out)
	}
	e.register("quiet")
	if out := e.ok("inbox", "quiet"); !strings.Contains(out, "no messages to or from quiet") {
		t.Errorf("empty inbox: %q", out)
	}
	e.fails(1, []string{"inbox", "nobody"}, `unknown agent "nobody"`)
}

func TestSendErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("bob")
	e.fails(2, []string{"send", "--data", `{"a":`, "bob", "hi"}, "--data is not valid JSON")
	e.fails(2, []string{"send", "bob", " "}, "the message is empty")
	e.as("swarm").fails(1, []string{"send", "bob", "hi"}, "only swarm itself")
	e.fails(1, []string{"send", "swarm", "hi"}, "swarm takes control messages only", `unknown control message type "hi"`)
	e.claiming("zed").fails(1, []string{"send", "bob", "hi"}, `$SWARM_AGENT: unknown agent "zed"`)
	// A recipient that is no agent (a typo, most likely) is refused before
	// anything is stored, with the nearest name: no id on stdout.
	if out := e.fails(1, []string{"send", "carol", "hi"}, `unknown agent "carol"`); out != "" {
		t.Errorf("a refused message printed %q on stdout", out)
	}
	if out := e.fails(1, []string{"send", "bbo", "hi"}, `unknown agent "bbo" (did you mean "bob"?)`); out != "" {
		t.Errorf("a refused message printed %q on stdout", out)
	}
	e.fails(1, []string{"task", "add", "--to", "bbo", "x"}, `unknown agent "bbo" (did you mean "bob"?)`)
	e.claiming("bad name!").fails(1, []string{"send", "bob", "hi"}, "name")
	if log := e.ok("log"); strings.Contains(log, "carol") || strings.Contains(log, "bbo") {
		t.Errorf("a refused message was stored:\n%s", log)
	}
	// One stored as failed (an agent that takes no messages) still has
	// its id printed, and its author a notice.
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RegisterAgent(t.Context(), bus.Agent{Name: "notes", Cmd: "vim", State: bus.AgentRunning, NoMessages: true}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	out := e.fails(1, []string{"send", "notes", "hi"}, `takes no messages`, "stored as failed")
	if !uuidLine.MatchString(out) {
		t.Errorf("the failed message's id should still be printed: %q", out)
	}
	if in := e.ok("inbox"); !strings.Contains(in, `to notes failed: agent "notes" takes no messages`) {
		t.Errorf("human inbox:\n%s", in)
	}
}

func TestBrokenBusGivesOneClearLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(e.dir, "bus.db")
	if err := os.WriteFile(db, bytes.Repeat([]byte("not sqlite "), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fails(1, []string{"log"}, db, "corrupt or not a swarm bus")
	e.fails(1, []string{"send", "human", "x"}, db, "corrupt or not a swarm bus")

	// Damage past the header shows only when a page is read.
	damaged := newEnv(t)
	for i := range 50 {
		damaged.ok("send", "human", fmt.Sprint("message ", i))
	}
	f, err := os.OpenFile(filepath.Join(damaged.dir, "bus.db"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt(bytes.Repeat([]byte{0xff}, 3*4096), 2*4096)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	damaged.fails(1, []string{"log"}, filepath.Join(damaged.dir, "bus.db")+" is damaged", "move it away")

	newer := newEnv(t)
	newer.ok("send", "human", "x")
	b, err := sql.Open("sqlite", filepath.Join(newer.dir, "bus.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Exec(`UPDATE meta SET value = '42' WHERE key = 'schema_version'`)
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	newer.fails(1, []string{"status"}, "schema version 42", "upgrade swarm")
}

func TestBusDirPrecedence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	flagDir := filepath.Join(e.cwd, "flagdir")
	e.ok("send", "human", "to the default")
	e.ok("--dir", flagDir, "send", "human", "to the flag dir")
	if out := e.ok("log"); !strings.Contains(out, "to the default") || strings.Contains(out, "flag dir") {
		t.Errorf("default .swarm:\n%s", out)
	}
	if fi, err := os.Stat(filepath.Join(e.cwd, ".swarm")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf(".swarm: %v %v", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(e.cwd, ".swarm", "bus.db")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("bus.db: %v %v", fi, err)
	}
	e.dir = filepath.Join(e.cwd, "envdir")
	e.ok("send", "human", "to the env dir")
	// $SWARM_DIR wins over --dir.
	if out := e.ok("--dir", flagDir, "log"); !strings.Contains(out, "to the env dir") || strings.Contains(out, "flag dir") {
		t.Errorf("$SWARM_DIR should win:\n%s", out)
	}
}

func TestLogFollow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("alice", "bob")
	e.ok("send", "bob", "before")
	cmd := e.command("log", "--follow", "--json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("log --follow ended early: %s", stderr.String())
			}
			return jsonLines(t, l)[0]
		case <-time.After(testrun.Patience):
			cmd.Process.Kill()
			t.Fatal("timed out waiting for log --follow output")
		}
		return nil
	}
	if m := next(); m["body"] != "before" {
		t.Errorf("first line %v", m)
	}
	e.as("alice").ok("send", "bob", "while following")
	if m := next(); m["body"] != "while following" || m["from"] != "alice" {
		t.Errorf("followed line %v", m)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("log --follow after SIGINT: %v (%s)", err, stderr.String())
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("alice", "bob")
	e.holdSwarmLock()
	id := strings.TrimSpace(e.ok("task", "add", "--to", "bob", "Fix", "login"))
	e.as("bob").ok("task", "start")
	e.as("bob").ok("heartbeat", "--status", "blocked", "--progress", "0.25", "--task", id)
	out := e.ok("status")
	for _, want := range []string{"AGENT", "alice", "bob", "blocked 25%", id + " WORKING", "WORKING (1)", "Fix login", "OK"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	var st struct {
		Agents []struct {
			Name      string  `json:"name"`
			Level     string  `json:"level"`
			AgeS      float64 `json:"age_s"`
			Heartbeat *struct {
				Status   string  `json:"status"`
				Progress float64 `json:"progress"`
				Task     string  `json:"task"`
			} `json:"heartbeat"`
			Task *struct{ ID, State string } `json:"task"`
		} `json:"agents"`
		Tasks []struct{ ID, Title, Assignee, State string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(e.ok("status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Agents) != 2 || len(st.Tasks) != 1 {
		t.Fatalf("status --json: %+v", st)
	}
	bob := st.Agents[1]
	if bob.Name != "bob" || bob.Level != "OK" || bob.AgeS < 0 || bob.Heartbeat == nil || bob.Heartbeat.Status != "blocked" ||
		bob.Heartbeat.Progress != 0.25 || bob.Heartbeat.Task != id || bob.Task == nil || bob.Task.State != "WORKING" {
		t.Errorf("bob: %+v", bob)
	}
	if st.Tasks[0].ID != id || st.Tasks[0].Title != "Fix login" || st.Tasks[0].Assignee != "bob" {
		t.Errorf("tasks: %+v", st.Tasks)
	}
	if out := e.ok("status"); strings.Contains(out, "needs you") {
		t.Errorf("nothing waits for the person, but status says so:\n%s", out)
	}
	// A task in review waits for the person: status says so first.
	review := strings.TrimSpace(e.ok("task", "add", "--to", "alice", "Write", "docs"))
	e.as("alice").ok("task", "start")
	e.as("alice").ok("task", "done")
	if out := e.ok("status"); !strings.HasPrefix(out, "needs you (1)\n  task "+review+" (Write docs) of alice waits for your review") {
		t.Errorf("status does not start with what needs the person:\n%s", out)
	}
	if out := e.ok("status", "--json"); !strings.Contains(out, `"needs_you":["task `+review+` (Write docs) of alice waits for your review"]`) {
		t.Errorf("status --json: %s", out)
	}
	empty := newEnv(t)
	empty.ok("send", "human", "x")
	if out := empty.ok("status"); !strings.Contains(out, "no agents registered") || !strings.Contains(out, "no tasks") {
		t.Errorf("empty status:\n%s", out)
	}
	if out := empty.ok("status", "--json"); !strings.Contains(out, `"agents":[]`) || !strings.Contains(out, `"tasks":[]`) {
		t.Errorf("empty status --json: %s", out)
	}
}

var taskIDLine = regexp.MustCompile(`^[a-z2-7]{6}\n$`)

func TestTaskLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("bob")
	bob := e.as("bob")
	out := e.ok("task", "add", "--to", "bob", "--desc", "Users cannot log in", "Fix", "login")
	if !taskIDLine.MatchString(out) {
		t.Fatalf("task add printed %q, want the id alone", out)
	}
	id := strings.TrimSpace(out)
	e.fails(1, []string{"task", "add", "--to", "ghost", "x"}, `unknown agent "ghost"`)

	steps := []struct {
		who  *env
		args []string
		want string
	}{
		{bob, []string{"task", "start"}, "task " + id + ": ASSIGNED → WORKING"},
		{bob, []string{"task", "start"}, "task " + id + " is already WORKING"},
		{bob, []string{"task", "done", "--note", "fixed the cookie"}, "WORKING → IN_REVIEW"},
		{e, []string{"task", "request-changes", id, "--note", "add a test"}, "IN_REVIEW → WORKING"},
		{bob, []string{"task", "done", id[:4]}, "WORKING → IN_REVIEW"},
		{e, []string{"task", "approve", id}, "IN_REVIEW → APPROVED"},
	}
	for _, s := range steps {
		if got := s.who.ok(s.args...); !strings.Contains(got, s.want) {
			t.Errorf("%v: %q, want %q", s.args, got, s.want)
		}
	}
	// Review is the human's: an agent cannot approve or merge, even its own
	// task; and it cannot report on another agent's task.
	bob.fails(1, []string{"task", "merge", id}, "only the human reviewer", "this runs as agent bob")
	e.register("carol")
	e.as("carol").fails(1, []string{"task", "fail", id}, "assigned to bob, not carol")
	// An invalid move names the task, its state and the states it can go to.
	e.fails(1, []string{"task", "retry", id}, "task "+id+" is APPROVED", "retry applies to a task FAILED", "COMPLETED, CONFLICTED, FAILED, CANCELLED")
	e.fails(1, []string{"task", "request-changes", id}, "request changes applies to a task IN_REVIEW")
	e.fails(1, []string{"task", "show", "zzzzzz"}, "task zzzzzz: not found")

	var shown struct {
		ID, Title, Description, Assignee, State string
		Events                                  []struct{ From, To, Actor, Note string }
	}
	if err := json.Unmarshal([]byte(e.ok("task", "show", id, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.ID != id || shown.Title != "Fix login" || shown.Description != "Users cannot log in" || shown.Assignee != "bob" || shown.State != "APPROVED" {
		t.Errorf("show --json: %+v", shown)
	}
	var path []string
	for _, ev := range shown.Events {
		path = append(path, ev.From+">"+ev.To+" "+ev.Actor+" "+ev.Note)
	}
	want := []string{">ASSIGNED human ", "ASSIGNED>WORKING bob ", "WORKING>IN_REVIEW bob fixed the cookie",
		"IN_REVIEW>WORKING human add a test", "WORKING>IN_REVIEW bob ", "IN_REVIEW>APPROVED human "}
	if strings.Join(path, "|") != strings.Join(want, "|") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(path, "\n"), strings.Join(want, "\n"))
	}
	human := e.ok("task", "show", id)
	for _, w := range []string{"Fix login", "APPROVED", "history", "created → ASSIGNED", "IN_REVIEW → WORKING", "add a test"} {
		if !strings.Contains(human, w) {
			t.Errorf("task show lacks %q:\n%s", w, human)
		}
	}

	// fail --reason, retry, cancel.
	id2 := strings.TrimSpace(e.ok("task", "add", "--to", "bob", "Second"))
	bob.ok("task", "start", id2)
	if got := bob.ok("task", "fail", "--reason", "cannot reproduce"); !strings.Contains(got, "WORKING → FAILED") {
		t.Errorf("fail: %q", got)
	}
	if got := e.ok("task", "retry", id2, "--note", "try again"); !strings.Contains(got, "FAILED → ASSIGNED") {
		t.Errorf("retry: %q", got)
	}
	if got := e.ok("task", "cancel", id2); !strings.Contains(got, "ASSIGNED → CANCELLED") {
		t.Errorf("cancel: %q", got)
	}
	e.fails(1, []string{"task", "start", id2}, "is CANCELLED, which is final")
	e.fails(1, []string{"task", "done"}, "no task id given and human has no current task")

	list := e.ok("task", "list")
	for _, w := range []string{"ID", "STATE", id, "APPROVED", id2, "CANCELLED", "Second"} {
		if !strings.Contains(list, w) {
			t.Errorf("task list lacks %q:\n%s", w, list)
		}
	}
	if lines := jsonLines(t, e.ok("task", "list", "--json", "--state", "cancelled")); len(lines) != 1 || lines[0]["id"] != id2 {
		t.Errorf("task list --json --state cancelled: %v", lines)
	}
	if out := e.ok("task", "list", "--agent", "nobody"); out != "no tasks\n" {
		t.Errorf("empty list: %q", out)
	}
}

func TestExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("bob")
	for i := range 3 {
		e.ok("send", "bob", fmt.Sprint("m", i))
	}
	def := filepath.Join(e.dir, "export.jsonl")
	if out := e.ok("export"); out != "exported 3 messages to "+def+"\n" {
		t.Errorf("export: %q", out)
	}
	if out := e.ok("export"); out != "exported 0 messages to "+def+"\n" {
		t.Errorf("second export: %q", out)
	}
	e.ok("send", "bob", "m3")
	custom := filepath.Join(e.cwd, "out.jsonl")
	if out := e.ok("export", "--out", custom); !strings.HasPrefix(out, "exported 4 messages") {
		t.Errorf("export --out: %q", out)
	}
	data, _ := os.ReadFile(def)
	if lines := jsonLines(t, string(data)); len(lines) != 3 || lines[2]["body"] != "m2" {
		t.Errorf("default export file: %v", lines)
	}
}

func TestConcurrentPublishersAcrossProcesses(t *testing.T) {
	t.Parallel()
	// 8 goroutines in this process and 4 separate processes running
	// `swarm send` one message at a time, all at once: nothing is lost and
	// every sender's messages stay in order.
	e := newEnv(t)
	e.register("sink", "p0", "p1", "p2", "p3")
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const goroutines, perGoroutine = 8, 50
	const processes, perProcess = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, goroutines+processes)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				from := fmt.Sprintf("g%d", g)
				if _, err := b.Publish(t.Context(), bus.Message{From: from, To: "sink", Body: fmt.Sprintf("%s %d", from, i)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for p := range processes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := fmt.Sprintf("p%d", p)
			for i := range perProcess {
				cmd := e.as(from).command("send", "sink", fmt.Sprintf("%s %d", from, i))
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("%s: %v: %s", from, err, out)
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
	pending, err := b.Pending(t.Context(), "sink", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := goroutines*perGoroutine + processes*perProcess; len(pending) != want {
		t.Fatalf("%d messages pending for sink, want %d", len(pending), want)
	}
	next := map[string]int{}
	for _, m := range pending {
		want := fmt.Sprintf("%s %d", m.From, next[m.From])
		if m.Body != want {
			t.Fatalf("got %q, want %q next from %s", m.Body, want, m.From)
		}
		next[m.From]++
	}
	if len(next) != goroutines+processes {
		t.Errorf("%d senders seen", len(next))
	}
}

func TestADamagedBodyCostsOnlyThatBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("bob")
	e.ok("send", "bob", strings.Repeat("long ", 2000))
	e.ok("send", "bob", "short and fine")
	blobs, err := os.ReadDir(filepath.Join(e.dir, "blobs"))
	if err != nil || len(blobs) != 1 {
		t.Fatalf("blobs: %v %v", blobs, err)
	}
	if err := os.Remove(filepath.Join(e.dir, "blobs", blobs[0].Name())); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"log"}, {"inbox", "bob"}} {
		out := e.ok(args...)
		if !strings.Contains(out, "[body unreadable: blob ") || !strings.Contains(out, "short and fine") {
			t.Errorf("swarm %v:\n%s", args, out)
		}
	}
	recs := jsonLines(t, e.ok("log", "--json"))
	if len(recs) != 2 || !strings.Contains(fmt.Sprint(recs[0]["body_error"]), "is missing from") || recs[1]["body"] != "short and fine" {
		t.Errorf("log --json: %v", recs)
	}
	e.ok("export", "--out", filepath.Join(e.cwd, "all.jsonl"))
}

func TestBadInputGetsOneClearLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("bob")
	e.fails(2, []string{"send", "--type", "x y", "bob", "hi"}, `--type: invalid message: kind "x y" is not a word`)
	huge := strings.Repeat("n", 100<<10) // within what exec allows for one argument
	_, errOut, code := e.run("send", huge, "hi")
	if code != 1 || len(errOut) > 500 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "characters)") {
		t.Errorf("a 100 KiB name: exit %d, %d bytes of error: %.200q", code, len(errOut), errOut)
	}
	empty := newEnv(t)
	if err := os.MkdirAll(empty.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty.dir, "bus.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	empty.fails(1, []string{"send", "human", "x"}, "bus.db", "is empty (0 bytes), not a bus")
	empty.fails(1, []string{"log"}, "is empty (0 bytes)")
}

func TestNoCommandActsAsAnAgentItIsNot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.register("alice", "bob")
	send := []string{"send", "alice", "hi"}
	// Naming bob is not being bob: the process has no token of bob's.
	e.claiming("bob").fails(1, send, `$SWARM_AGENT is "bob", but this is not agent bob's process`)
	// alice's token with another name, or the human's, is refused.
	forged := e.as("alice")
	for _, name := range []string{"bob", "human"} {
		forged.agent = name
		forged.fails(1, send, fmt.Sprintf(`$SWARM_AGENT is %q, but $SWARM_TOKEN is agent alice's`, name))
	}
	// The token alone says who it is.
	forged.agent = ""
	forged.ok("send", "bob", "from the token")
	if out := e.ok("log", "--json"); !strings.Contains(out, `"from":"alice","to":"bob"`) {
		t.Errorf("the message is not from alice:\n%s", out)
	}
	// A token from an earlier process of alice's, or made up, is no one's.
	stale := e.as("alice")
	stale.token = "an-old-token"
	stale.fails(1, send, "$SWARM_TOKEN is no agent's token in this swarm")
	// An agent does not review: not with its token, whatever name it gives.
	id := strings.TrimSpace(e.ok("task", "add", "--to", "bob", "review me"))
	reviewer := e.as("bob")
	reviewer.agent = ""
	reviewer.fails(1, []string{"task", "approve", id}, "only the human reviewer", "this runs as agent bob")
}
