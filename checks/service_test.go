package checks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"swarm/bus"
	"swarm/gitrepo/gittest"
	"swarm/internal/testrun"
	"swarm/tasks"
)

// env is a git repository with a bus in its .swarm directory and agents,
// as a swarm in that project has them, and the swarm's checks.
type env struct {
	repo  string
	bus   *bus.Bus
	tasks *tasks.Service
}

func newEnv(t *testing.T, agents ...string) *env {
	t.Helper()
	gittest.Isolate(t)
	e := &env{repo: gittest.NewRepo(t)}
	b, err := bus.Open(bus.Options{Dir: filepath.Join(e.repo, ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	for _, a := range agents {
		if err := b.RegisterAgent(context.Background(), bus.Agent{Name: a, Cmd: "sh", State: bus.AgentRunning}); err != nil {
			t.Fatal(err)
		}
	}
	e.bus = b
	e.tasks = tasks.New(context.Background(), b, e.repo, "")
	return e
}

// run runs the checks service of policy until the test ends.
func (e *env) run(t *testing.T, policy *bus.CheckPolicy) {
	t.Helper()
	if err := e.bus.SetCheckPolicy(context.Background(), policy); err != nil {
		t.Fatal(err)
	}
	svc := New(Options{Bus: e.bus, Tasks: e.tasks, Policy: policy})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		svc.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// inReview makes a task for agent whose branch commits files (name →
// content), and submits it for review.
func (e *env) inReview(t *testing.T, agent, title string, files map[string]string) bus.Task {
	t.Helper()
	ctx := context.Background()
	task, err := e.bus.CreateTask(ctx, bus.NewTask{Title: title, Assignee: agent, CreatedBy: bus.Human})
	if err != nil {
		t.Fatal(err)
	}
	if task, err = e.tasks.Prepare(ctx, task); err != nil {
		t.Fatal(err)
	}
	if task, err = e.tasks.Start(ctx, task.ID, agent, ""); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		gittest.CommitFile(t, task.Worktree, name, content, title+": "+name)
	}
	if task, err = e.tasks.Done(ctx, task.ID, agent, ""); err != nil {
		t.Fatal(err)
	}
	return task
}

// checks waits until task's checks of run on its latest commit have all
// ended, and returns them.
func (e *env) checks(t *testing.T, task string, run bus.CheckRun, commit string) []bus.Check {
	t.Helper()
	var got []bus.Check
	testrun.Within(t, testrun.Patience, "the checks of "+task+" to end", func() bool {
		all, err := e.bus.Checks(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, c := range all {
			if c.Run == run && (commit == "" || c.Commit == commit) {
				got = append(got, c)
			}
		}
		if len(got) == 0 {
			return false
		}
		for _, c := range got {
			if !c.State.Final() {
				return false
			}
		}
		return true
	})
	return got
}

// told waits for a message to agent of kind whose body holds every want.
func (e *env) told(t *testing.T, agent string, kind bus.Kind, want ...string) bus.Message {
	t.Helper()
	var found bus.Message
	testrun.Within(t, testrun.Patience, agent+" to be told "+strings.Join(want, ", "), func() bool {
		msgs, err := e.bus.Pending(context.Background(), agent, 100)
		if err != nil {
			t.Fatal(err)
		}
	next:
		for _, m := range msgs {
			if m.Kind != kind {
				continue
			}
			for _, w := range want {
				if !strings.Contains(m.Body, w) {
					continue next
				}
			}
			found = m
			return true
		}
		return false
	})
	return found
}

func (e *env) state(t *testing.T, id string) bus.TaskState {
	t.Helper()
	task, err := e.bus.Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return task.State
}

// The checks of a task in review run in its worktree; a failure is told
// to its agent with the command and its last lines; a commit that fixes
// the branch is checked again, and once all pass the reviewer gets the
// task, with the diff in a file it can read.
func TestBranchChecksTellTheAgentAndHandTheTaskToTheReviewer(t *testing.T) {
	e := newEnv(t, "w", "rev")
	e.run(t, &bus.CheckPolicy{Run: []string{"test -f b.txt", "for i in 1 2 3; do echo noise $i; done; grep -q fixed a.txt"},
		Timeout: time.Minute, Parallel: 2, ReviewBy: "rev"})
	task := e.inReview(t, "w", "make a fixed", map[string]string{"a.txt": "broken\n"})
	first := gittest.Git(t, task.Worktree, "rev-parse", "HEAD")

	got := e.checks(t, task.ID, bus.RunBranch, first)
	if got[0].State != bus.CheckPassed || got[1].State != bus.CheckFailed || got[1].Exit != 1 {
		t.Fatalf("checks: %+v", got)
	}
	if !strings.HasPrefix(got[1].Log, filepath.Join(e.repo, ".swarm", "checks", task.ID)+"/") {
		t.Errorf("log %s is not under .swarm/checks/%s", got[1].Log, task.ID)
	}
	if b, err := os.ReadFile(got[1].Log); err != nil || !strings.Contains(string(b), "noise 3") {
		t.Errorf("log: %q %v", b, err)
	}
	e.told(t, "w", bus.KindTaskChecks, "grep -q fixed a.txt", "failed (exit status 1)", "noise 1\nnoise 2\nnoise 3", task.Worktree)
	if msgs, _ := e.bus.Pending(context.Background(), "rev", 10); len(msgs) != 0 {
		t.Errorf("the reviewer got a task whose checks failed: %v", msgs[0].Body)
	}
	if st := e.state(t, task.ID); st != bus.TaskInReview {
		t.Errorf("a failed check on the branch moved the task to %s", st)
	}

	// The agent fixes its branch in review.
	fixed := gittest.CommitFile(t, task.Worktree, "a.txt", "fixed\n", "fix")
	got = e.checks(t, task.ID, bus.RunBranch, fixed)
	for _, c := range got {
		if c.State != bus.CheckPassed || c.Duration(time.Now()) < 0 || c.Started.IsZero() {
			t.Errorf("after the fix: %+v", c)
		}
	}
	m := e.told(t, "rev", bus.KindTaskReview, "review task "+task.ID, "a.txt", "task review "+task.ID+" --approve")
	path := m.Body[strings.Index(m.Body, "The whole diff: ")+len("The whole diff: "):]
	path = path[:strings.IndexByte(path, '\n')]
	if diff, err := os.ReadFile(path); err != nil || !strings.Contains(string(diff), "+fixed") {
		t.Errorf("the diff file %q: %q %v", path, diff, err)
	}
}

// runShell runs a shell command line in dir.
func runShell(dir, line string) (string, error) {
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A task cancelled while its checks run has them ended, with every
// process they started.
func TestCancellingATaskEndsItsChecks(t *testing.T) {
	e := newEnv(t, "w")
	pids := filepath.Join(t.TempDir(), "pids")
	e.run(t, &bus.CheckPolicy{Run: []string{"echo $$ >> " + pids + "; sleep 300 & echo $! >> " + pids + "; wait"}, Timeout: time.Hour, Parallel: 1})
	task := e.inReview(t, "w", "slow", map[string]string{"s.txt": "s\n"})
	var ps []int
	testrun.Within(t, testrun.Patience, "the check to start", func() bool {
		b, _ := os.ReadFile(pids)
		ps = nil
		for _, f := range strings.Fields(string(b)) {
			var p int
			fmt.Sscan(f, &p)
			ps = append(ps, p)
		}
		return len(ps) == 2
	})
	if _, err := e.tasks.Cancel(context.Background(), task.ID, bus.Human, ""); err != nil {
		t.Fatal(err)
	}
	got := e.checks(t, task.ID, bus.RunBranch, "")
	if got[0].State != bus.CheckCancelled {
		t.Errorf("check after cancel: %+v", got[0])
	}
	for _, p := range ps {
		testrun.Within(t, testrun.Patience, fmt.Sprintf("process %d to end", p), func() bool { return !running(p) })
	}
}
