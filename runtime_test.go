package main

// Tests of the commands that run agents: swarm up, swarm demo, swarm init,
// swarm parse. They run the swarm binary TestMain built, with real
// programs in real PTYs.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/tasks"
)

// waitUntil polls cond until it holds, failing the test after
// testrun.Patience.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, testrun.Patience, what, cond)
}

// waitWithin polls cond until it holds, failing the test after d.
func waitWithin(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testrun.Within(t, d, what, cond)
}

// background is a swarm process whose stdout is collected line by line.
type background struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  []string
	done chan struct{}
}

func (e *env) start(args ...string) *background {
	e.t.Helper()
	cmd := e.command(args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	bg := &background{cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(bg.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			bg.mu.Lock()
			bg.out = append(bg.out, sc.Text())
			bg.mu.Unlock()
		}
	}()
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-bg.done
		_ = cmd.Wait()
	})
	return bg
}

func (bg *background) has(s string) bool {
	bg.mu.Lock()
	defer bg.mu.Unlock()
	for _, l := range bg.out {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// stop sends sig and returns the exit status.
func (bg *background) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := bg.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-bg.done
	err := bg.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// gone reports whether no process with pid exists any more (zombies of
// other parents count as gone: they run nothing).
func gone(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

func TestDemoHeadlessPlaysAWholeGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := e.ok("demo", "tictactoe", "--headless", "--seed", "3", "--dir", e.dir)
	for _, want := range []string{"game: X plays", "game: O plays", "game over:", "result: ", "---+---+---"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// The same seed plays the same game; the game is on the bus.
	again := newEnv(t)
	if moves(again.ok("demo", "tictactoe", "--headless", "--seed", "3", "--dir", again.dir)) != moves(out) {
		t.Errorf("seed 3 played two different games")
	}
	log := e.ok("log", "--json")
	if !strings.Contains(log, `"kind":"game_result"`) || !strings.Contains(log, `"kind":"game_move"`) {
		t.Errorf("the game is not on the bus:\n%s", log)
	}
}

func moves(out string) string {
	var ms []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "game: "); i >= 0 {
			ms = append(ms, l[i:])
		}
	}
	return strings.Join(ms, "\n")
}

func TestDemoWithACheatingPlayerFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, errOut, code := e.run("demo", "tictactoe", "--headless", "--x", "echo '@relay:O move 12'; echo '@relay:O move 0'; echo '@relay:O move ten'; exec cat")
	if code != 1 || !strings.Contains(errOut, "forfeit") {
		t.Fatalf("exit %d, stderr %q; want 1 and a forfeit", code, errOut)
	}
	// Run from inside an agent ($SWARM_DIR set), the demo kept off that bus.
	if _, err := os.Stat(filepath.Join(e.dir, "bus.db")); !os.IsNotExist(err) {
		t.Errorf("the demo wrote into $SWARM_DIR's bus: %v", err)
	}
}

func TestInitWritesAStarterThatUpRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("init", "--builtin") // whatever agent CLIs this machine has
	e.fails(1, []string{"init"}, "swarm.toml")
	bg := e.start("up", "--headless")
	waitUntil(t, "both starter agents started", func() bool { return bg.has("X started") && bg.has("O started") })
	if code := bg.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("swarm up exited %d after SIGTERM, want 0", code)
	}
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	agents, err := b.Agents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		if a.State != "stopped" {
			t.Errorf("agent %s is %q after swarm stopped", a.Name, a.State)
		}
		if a.Pid != 0 && !gone(a.Pid) {
			t.Errorf("agent %s (pid %d) still runs", a.Name, a.Pid)
		}
	}
}

func TestUpExplainsAMissingOrBrokenConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fails(1, []string{"up", "--headless"}, "swarm init")
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte("[[agent]]\nname = \"a\"\ncmdd = \"sh\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fails(1, []string{"up", "--headless"}, "swarm.toml:3", "cmdd")
	// Worktrees need a repository: said at start, not at the first task.
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte("[[agent]]\nname = \"a\"\ncmd = \"sh\"\nworktree = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fails(1, []string{"up", "--headless"}, "agent a has worktree = true", "not a git repository")
}

func TestSigkilledSwarmDeliversEverythingWhenStartedAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// a sends 300 messages to b, once (a marker file stops a restarted a
	// from sending again). b logs every line typed into it; in the first
	// run it also prints a tick every 50 ms, so it is never quiet for its
	// 100 ms and messages pile up for it. The second run has no ticks.
	config := `
[[agent]]
name = "a"
cmd = "[ -e a.sent ] && exec cat >/dev/null; touch a.sent; i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo \"@relay:b m$i\"; sleep 0.005; done; exec cat >/dev/null"
quiet = "0s"

[[agent]]
name = "b"
cmd = "[ -e second ] || while :; do echo tick; sleep 0.05; done & while IFS= read -r line; do echo \"$line\" >> b.log; done"
quiet = "100ms"
`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	published := func() []bus.Message {
		b, err := bus.Open(bus.Options{Dir: e.dir})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		msgs, err := b.Messages(context.Background(), 0, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		var out []bus.Message
		for _, m := range msgs {
			if m.From == "a" && m.To == "b" {
				out = append(out, m)
			}
		}
		return out
	}
	first := e.start("up", "--headless")
	waitUntil(t, "messages queued for b", func() bool { return len(published()) >= 30 })
	first.stop(t, syscall.SIGKILL)
	before := published()
	if len(before) >= 300 {
		t.Fatalf("all messages were sent before the kill; the test needs the kill mid-stream")
	}

	if err := os.WriteFile(filepath.Join(e.cwd, "second"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	second := e.start("up", "--headless")
	waitUntil(t, "every message published before the kill reaches b", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
		got := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if _, body, ok := strings.Cut(l, "] "); ok {
				got[body] = true
			}
		}
		for _, m := range before {
			if !got[m.Body] {
				return false
			}
		}
		return true
	})
	waitUntil(t, "second swarm running", func() bool { return second.has("b started") })
	if code := second.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("second swarm exited %d after SIGTERM, want 0", code)
	}
}

func TestParsePrintsCommandsAsJSONLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	raw, err := filepath.Abs("testdata/transcripts/twice.raw")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/transcripts/twice.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.ok("parse", raw); got != string(want) {
		t.Errorf("swarm parse twice.raw:\n%s\nwant:\n%s", got, want)
	}
	// A plain text file on stdin: bare line feeds still end lines.
	e.stdin = "hello\n@relay:bob one\n[[RELAY]]\n{\"to\":\"carol\",\"body\":\"two\"}\n[[/RELAY]]\n[[RELAY]]\n{oops}\n[[/RELAY]]\n"
	objs := jsonLines(t, e.ok("parse"))
	if len(objs) != 3 || objs[0]["to"] != "bob" || objs[1]["to"] != "carol" || objs[2]["error"] == nil {
		t.Errorf("parse of plain text: %v", objs)
	}
	e.fails(1, []string{"parse", filepath.Join(e.cwd, "no-such-file")}, "parse: open", "no-such-file: no such file")
}

// TestParseTakesTheKind: a recording of a CLI is read as that kind's
// screen, named by --kind or by the sidecar NAME.json beside NAME.cast;
// an unknown kind or a broken sidecar is one clear error.
func TestParseTakesTheKind(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Claude Code's fullscreen renderer, 2.1.332: a short row, then a row
	// at the same hanging indent that is another line of output; below,
	// its input box between two rules, the cursor in it.
	rule := strings.Repeat("─", 80)
	rec := "{\"version\": 2, \"width\": 80, \"height\": 24}\n" +
		"[0.1, \"o\", \"\\u001b[?1049h\\u001b[H  ⎿  @relay:bob same again\\r\\n     ordinary\\r\\n" +
		"\\u001b[20H" + rule + "\\r\\n❯ \\r\\n" + rule + "\\u001b[21;3H\"]\n"
	cast := filepath.Join(e.cwd, "claude-1.cast")
	if err := os.WriteFile(cast, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := jsonLines(t, e.ok("parse", cast)); len(got) != 1 || got[0]["body"] != "same again ordinary" {
		t.Errorf("no kind: %v, want the rows joined as the paragraph's widths say", got)
	}
	if got := jsonLines(t, e.ok("parse", "--kind", "claude", cast)); len(got) != 1 || got[0]["body"] != "same again" {
		t.Errorf("--kind claude: %v, want %q", got, "same again")
	}
	side := filepath.Join(e.cwd, "claude-1.json")
	if err := os.WriteFile(side, []byte(`{"kind": "claude", "version": "2.1.332 (Claude Code)"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := jsonLines(t, e.ok("parse", cast)); len(got) != 1 || got[0]["body"] != "same again" {
		t.Errorf("kind from the sidecar: %v, want %q", got, "same again")
	}
	e.fails(2, []string{"parse", "--kind", "clod", cast}, `--kind "clod": not a kind`, "claude, codex")
	if err := os.WriteFile(side, []byte(`{"kind": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fails(1, []string{"parse", cast}, "parse: claude-1.json:")
}

// git runs git in dir with a fixed identity and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Tester", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=Tester", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestTaskReviewAndMergeFromTheCommandLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	repo := e.cwd
	git(t, repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "README")
	git(t, repo, "commit", "-q", "-m", "initial")
	e.dir = filepath.Join(repo, ".swarm")
	e.register("w")
	id := strings.TrimSpace(e.ok("task", "add", "--to", "w", "add a greeting"))

	// What a running swarm does when it dispatches the task to a worktree agent.
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	task, err := b.Task(context.Background(), id)
	if err == nil {
		task, err = tasks.New(context.Background(), b, repo, "").Prepare(context.Background(), task)
	}
	b.Close()
	if err != nil {
		t.Fatal(err)
	}

	// The agent works in its worktree and reports from its own shell.
	w := e.as("w")
	w.cwd = task.Worktree
	w.ok("task", "start")
	if err := os.WriteFile(filepath.Join(task.Worktree, "greeting.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, task.Worktree, "add", "greeting.txt")
	git(t, task.Worktree, "commit", "-q", "-m", "greet")
	if out := w.ok("task", "done"); !strings.Contains(out, "WORKING → IN_REVIEW") {
		t.Errorf("task done printed %q", out)
	}

	review := e.ok("task", "show", id, "--diff")
	for _, want := range []string{"greeting.txt", "1 file changed", "+hi"} {
		if !strings.Contains(review, want) {
			t.Errorf("task show --diff lacks %q:\n%s", want, review)
		}
	}
	// Merged before it is approved: the refusal says what to do first.
	e.fails(1, []string{"task", "merge", id}, "task "+id+" is IN_REVIEW: merge applies to a task APPROVED; approve it first")
	e.ok("task", "approve", id)

	// A dirty main worktree is refused, naming the file; nothing changes.
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fails(1, []string{"task", "merge", id}, "task "+id, "uncommitted changes", "README")
	git(t, repo, "checkout", "README")

	if out := e.ok("task", "merge", id); !strings.Contains(out, "APPROVED → COMPLETED") {
		t.Errorf("task merge printed %q", out)
	}
	// Merged again (a retry, a script run twice): it says so, and succeeds.
	if out := e.ok("task", "merge", id, "--wait"); out != "task "+id+" is already merged into main (COMPLETED)\n" {
		t.Errorf("a second task merge printed %q", out)
	}
	if got := git(t, repo, "log", "-1", "--format=%s"); !strings.Contains(got, "Merge task "+id) {
		t.Errorf("last commit on main: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "greeting.txt")); err != nil {
		t.Errorf("the change is not on main: %v", err)
	}
	if _, err := os.Stat(task.Worktree); !os.IsNotExist(err) {
		t.Errorf("the worktree was not removed: %v", err)
	}
	if got := git(t, repo, "branch", "--list", "swarm/"+id); got == "" {
		t.Errorf("the task branch was not kept")
	}
	e.fails(1, []string{"task", "merge", "zzzzzz"}, "zzzzzz")

	// The merged branch is pruned: not without asking (no terminal here),
	// shown first with --dry-run, then deleted with --yes.
	e.fails(2, []string{"task", "prune"}, "add --yes")
	if out := e.ok("task", "prune", "--dry-run"); !strings.Contains(out, "would delete swarm/"+id) {
		t.Errorf("task prune --dry-run printed %q", out)
	}
	if got := git(t, repo, "branch", "--list", "swarm/"+id); got == "" {
		t.Fatal("the dry run deleted the branch")
	}
	if out := e.ok("task", "prune", "--yes"); !strings.Contains(out, "deleted swarm/"+id) {
		t.Errorf("task prune --yes printed %q", out)
	}
	if got := git(t, repo, "branch", "--list", "swarm/"+id); got != "" {
		t.Errorf("the merged branch is still there: %q", got)
	}
	if out := e.ok("task", "prune", "--yes"); !strings.Contains(out, "nothing to delete") {
		t.Errorf("a second prune printed %q", out)
	}
}

// A headless swarm whose agents have all ended for good exits by itself,
// failing when one gave up, so that a script is not left waiting.
func TestUpHeadlessEndsWithItsAgents(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, config string
		code         int
		stderr       string
	}{
		{"finished", "[[agent]]\nname = \"a\"\ncmd = \"echo hello\"\n", 0, "every agent has ended"},
		{"gave up", "[[agent]]\nname = \"a\"\ncmd = \"echo hello\"\n\n[[agent]]\nname = \"b\"\ncmd = \"exit 3\"\nmax_restarts = 1\n",
			1, "gave up: b (gave up after 1 restarts: exit code 3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := e.command("up", "--headless")
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// A swarm that does not end is killed, and fails the test.
			kill := time.AfterFunc(testrun.Patience, func() { _ = cmd.Process.Kill() })
			defer kill.Stop()
			_ = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.code || !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), c.code, c.stderr)
			}
			events := out.String()
			if !strings.Contains(events, "a exited: exit code 0") {
				t.Errorf("the events lack a's exit:\n%s", events)
			}
			if c.code != 0 && !strings.Contains(events, "b stopped: gave up after 1 restarts") {
				t.Errorf("the events lack the last one, b giving up:\n%s", events)
			}
			// Not yet started is neither late nor dead.
			if i := strings.Index(events, "a liveness"); i >= 0 && i < strings.Index(events, "a started") {
				t.Errorf("a's liveness was judged before it started:\n%s", events)
			}
		})
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestTheNextSwarmEndsWhatAKilledOneLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = "" // the bus in ./.swarm, where up keeps it
	// An agent whose worker ignores the hang-up and SIGTERM: it outlives a
	// killed swarm unless something ends it.
	pidFile := filepath.Join(e.cwd, "worker.pid")
	cfg := "[[agent]]\nname = \"w\"\nrestart = \"never\"\ncmd = \"sh -c 'trap \\\"\\\" HUP TERM; echo $$ > worker.pid; exec sleep 300' & echo started; wait\"\n"
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	first := e.start("up", "--headless")
	var worker int
	waitUntil(t, "the worker", func() bool {
		b, _ := os.ReadFile(pidFile)
		worker, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return worker > 0
	})
	t.Cleanup(func() { _ = syscall.Kill(worker, syscall.SIGKILL) })
	// Killed before it recorded the agent's process on the bus, swarm
	// would leave nothing the next one could find: wait for the record.
	e.dir = filepath.Join(e.cwd, ".swarm")
	waitUntil(t, "w's process on the bus", func() bool {
		out, _, _ := e.run("status", "--json")
		return strings.Contains(out, `"name":"w"`) && strings.Contains(out, `"state":"running","pid":`)
	})
	e.dir = ""
	_ = first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.done
	_ = first.cmd.Wait()
	if !alive(worker) {
		t.Fatal("the worker died with swarm: this test needs a leftover")
	}
	// swarm status says the agent's swarm is gone, and what lives on.
	if out := e.ok("status"); !strings.Contains(out, "orphaned") || !strings.Contains(out, "swarm is not running") {
		t.Errorf("status after the kill:\n%s", out)
	}
	second := e.start("up", "--headless")
	waitUntil(t, "the leftover ended", func() bool { return !alive(worker) })
	waitUntil(t, "the notice", func() bool { return second.has("the last swarm ended without stopping w") })
	// The next swarm runs w again, and its worker ignores the signals that
	// end the swarm too: end it here, or it outlives the test.
	var again int
	waitUntil(t, "w's worker started again", func() bool {
		b, _ := os.ReadFile(pidFile)
		again, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return again > 0 && again != worker
	})
	t.Cleanup(func() { _ = syscall.Kill(again, syscall.SIGKILL) })
}

// Inside an agent's process, unsetting swarm's variables does not make a
// command the human's: it runs under the agent's process.
func TestInsideAnAgentTheHumansCommandsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	script := `env -u SWARM_AGENT -u SWARM_TOKEN swarm task approve zzzzzz 2>> out.txt; ` +
		`env -u SWARM_TOKEN SWARM_AGENT=human swarm send human forged 2>> out.txt; ` +
		`(setsid env -u SWARM_AGENT -u SWARM_TOKEN swarm send human detached 2>> out.txt; echo done >> out.txt) & wait`
	cfg := fmt.Sprintf("[[agent]]\nname = \"w\"\nrestart = \"never\"\ncmd = %q\n", script)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	<-up.done
	_ = up.cmd.Wait()
	b, err := os.ReadFile(filepath.Join(e.cwd, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{
		"only the human reviewer moves tasks this way; this runs as agent w",
		`$SWARM_AGENT is "human", but this runs inside agent w`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("out.txt lacks %q:\n%s", want, out)
		}
	}
	e.dir = filepath.Join(e.cwd, ".swarm")
	log := e.ok("log", "--json")
	if strings.Contains(log, `"body":"forged"`) {
		t.Errorf("a forged message was stored:\n%s", log)
	}
	// A command that left the agent's session still runs under its
	// process: it is the agent's, not the human's.
	found := false
	for _, m := range jsonLines(t, log) {
		if m["body"] == "detached" {
			found = true
			if m["from"] != "w" {
				t.Errorf("the detached command's message is from %v, want w", m["from"])
			}
		}
	}
	if !found {
		t.Errorf("no message from the detached command:\n%s\nout.txt:\n%s", log, out)
	}
}

func TestLogsPrintsAnAgentsOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.dir = ""
	cfg := "[[agent]]\nname = \"a\"\ncmd = \"echo hello from a; i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.1; done\"\n"
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	waitUntil(t, "a few ticks logged", func() bool {
		out, _ := e.command("logs", "a").Output()
		return strings.Contains(string(out), "tick 3\n")
	})
	out := e.ok("logs", "a")
	if !strings.Contains(out, "a started (pid") || !strings.HasPrefix(strings.SplitN(out, "\n", 3)[1], "hello from a") {
		t.Errorf("logs a:\n%s", out)
	}
	if last := e.ok("logs", "a", "-n", "1"); strings.Count(last, "\n") != 1 || !strings.HasPrefix(last, "tick ") {
		t.Errorf("logs -n 1: %q", last)
	}
	e.fails(1, []string{"logs", "nobody"}, `no output of "nobody"`, "agents with output: a")
	// --follow prints what comes after it started.
	follow := e.start("logs", "a", "--follow")
	n := strings.Count(e.ok("logs", "a"), "tick ")
	want := fmt.Sprintf("tick %d", n+3)
	waitUntil(t, "a later tick followed", func() bool { return follow.has(want) })
	if code := follow.stop(t, syscall.SIGINT); code != 0 {
		t.Errorf("logs --follow exited %d after SIGINT", code)
	}
	up.stop(t, syscall.SIGTERM)
}
