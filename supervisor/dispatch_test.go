package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/gitrepo/gittest"
)

// The git fixtures, under the names these tests use.
var (
	gitTestEnv  = gittest.Isolate
	tgit        = gittest.Git
	newTestRepo = gittest.NewRepo
)

func TestTaskWithGitEndToEnd(t *testing.T) {
	gitTestEnv(t)
	repo := newTestRepo(t)
	h := newHarness(t)
	h.dir = repo // the bus lives in the project, as with `swarm up`
	w := scripted("w", "gitworker", map[string]string{"LOG": filepath.Join(t.TempDir(), "w.log"),
		"GIT_AUTHOR_NAME": "Agent W", "GIT_AUTHOR_EMAIL": "w@example.com", "GIT_COMMITTER_NAME": "Agent W", "GIT_COMMITTER_EMAIL": "w@example.com"})
	w.Worktree, w.Dir = true, repo
	h.run(Options{Config: &Config{Path: filepath.Join(repo, "swarm.toml"), Agents: []AgentConfig{w}}})
	ctx := context.Background()
	task, err := h.bus.CreateTask(ctx, bus.NewTask{Title: "add a feature", Assignee: "w", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	inState := func(st bus.TaskState) func() bool {
		return func() bool {
			got, err := h.bus.Task(ctx, task.ID)
			return err == nil && got.State == st
		}
	}
	h.waitFor("IN_REVIEW", inState(bus.TaskInReview))
	task, _ = h.bus.Task(ctx, task.ID)
	if a, _ := h.sup.agent("w"); a.workDir() != task.Worktree {
		t.Errorf("w runs in %s, want its task's worktree %s", a.workDir(), task.Worktree)
	}
	if stat, _, err := h.sup.Review(ctx, task.ID); err != nil || !strings.Contains(stat, "work-"+task.ID+".txt") {
		t.Errorf("diff stat %q, %v", stat, err)
	}

	if _, err := h.sup.RequestChanges(ctx, task.ID, "one more file"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("IN_REVIEW again", func() bool {
		got, _ := h.bus.Task(ctx, task.ID)
		evs, _ := h.bus.TaskEvents(ctx, task.ID)
		return got.State == bus.TaskInReview && len(evs) >= 5
	})
	msgs, err := h.bus.Messages(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	assigned := 0
	for _, m := range msgs {
		if m.Kind == "task_assigned" {
			assigned++
		}
	}
	if assigned != 1 {
		t.Errorf("%d task_assigned messages, want 1: the task is given once", assigned)
	}
	if _, err := h.sup.Approve(ctx, task.ID, ""); err != nil {
		t.Fatal(err)
	}
	done, err := h.sup.Merge(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != bus.TaskCompleted {
		t.Fatalf("after merge: %s", done.State)
	}
	for _, f := range []string{"work-" + task.ID + ".txt", "more-" + task.ID + ".txt"} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Errorf("%s is not on main: %v", f, err)
		}
	}
	if msg := tgit(t, repo, "log", "-1", "--format=%s%n%P"); !strings.Contains(msg, "Merge task "+task.ID) || len(strings.Fields(strings.Split(msg, "\n")[1])) != 2 {
		t.Errorf("merge commit: %q", msg)
	}
	if _, err := os.Stat(task.Worktree); !os.IsNotExist(err) {
		t.Errorf("worktree not removed after the merge: %v", err)
	}
	h.waitFor("w back in its own directory", func() bool {
		a, _ := h.sup.agent("w")
		return a.workDir() == repo
	})
}

func TestDispatchDoesNotRestartAStoppedWorktreeAgent(t *testing.T) {
	gitTestEnv(t)
	repo := newTestRepo(t)
	h := newHarness(t)
	h.dir = repo
	w := scripted("w", "listen", nil)
	w.Worktree, w.Dir = true, repo
	h.run(Options{Config: &Config{Path: filepath.Join(repo, "swarm.toml"), Agents: []AgentConfig{w}}})
	ctx := context.Background()
	h.waitFor("w running", func() bool { in, _ := h.sup.Agent("w"); return in.State == StateRunning })
	if err := h.sup.StopAgent("w"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("w stopped", func() bool { in, _ := h.sup.Agent("w"); return in.State == StateStopped })
	task, err := h.bus.CreateTask(ctx, bus.NewTask{Title: "while stopped", Assignee: "w", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("the task prepared and queued for w", func() bool {
		got, _ := h.bus.Task(ctx, task.ID)
		pending, _ := h.bus.Pending(ctx, "w", 10)
		return got.Worktree != "" && len(pending) == 1
	})
	// Many bus writes later (heartbeats), w is still stopped.
	for i := range 20 {
		if err := h.bus.Beat(ctx, bus.Heartbeat{Agent: "w", Progress: float64(i) / 20}); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(h.eventsOf(EventAgentStarted)); got != 1 {
		t.Errorf("w started %d times, want once: a stopped agent stays stopped", got)
	}
	if in, _ := h.sup.Agent("w"); in.State != StateStopped {
		t.Errorf("w is %s", in.State)
	}
	// Started again by a person, it runs in the task's worktree.
	if err := h.sup.Restart("w"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("w running again", func() bool { in, _ := h.sup.Agent("w"); return in.State == StateRunning })
	got, _ := h.bus.Task(ctx, task.ID)
	if a, _ := h.sup.agent("w"); a.workDir() != got.Worktree {
		t.Errorf("w runs in %s, want %s", a.workDir(), got.Worktree)
	}
}

func TestEachTaskIsToldOnceInItsWorktree(t *testing.T) {
	gitTestEnv(t)
	repo := newTestRepo(t)
	h := newHarness(t)
	h.dir = repo
	w := scripted("w", "listen", map[string]string{"LOG": h.path("w.log")})
	w.Worktree, w.Dir = true, repo
	h.run(Options{Config: &Config{Path: filepath.Join(repo, "swarm.toml"), Agents: []AgentConfig{w}}})
	ctx := context.Background()
	var tasks []bus.Task
	for _, title := range []string{"first", "second"} {
		task, err := h.bus.CreateTask(ctx, bus.NewTask{Title: title, Assignee: "w", CreatedBy: "human"})
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	told := func(id string) func() bool {
		return func() bool { return strings.Contains(strings.Join(readLines(h.path("w.log")), "\n"), "task "+id+":") }
	}
	h.waitFor("told the first", told(tasks[0].ID))
	if _, err := h.sup.tasks.Start(ctx, tasks[0].ID, "w", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := h.bus.Transition(ctx, tasks[0].ID, bus.TaskInReview, "w", ""); err != nil {
		t.Fatal(err)
	}
	// w is restarted in the second task's worktree and told that task,
	// and only that: the first is not typed into the new process again.
	h.waitFor("told the second", told(tasks[1].ID))
	second, _ := h.bus.Task(ctx, tasks[1].ID)
	if a, _ := h.sup.agent("w"); a.workDir() != second.Worktree {
		t.Errorf("w runs in %s, want %s", a.workDir(), second.Worktree)
	}
	log := strings.Join(readLines(h.path("w.log")), "\n")
	for _, task := range tasks {
		if n := strings.Count(log, "task "+task.ID+":"); n != 1 {
			t.Errorf("w was told task %s %d times:\n%s", task.Title, n, log)
		}
	}
}
