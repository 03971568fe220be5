package main

// The checks and the merge queue end to end: a real swarm (swarm up
// --headless) with scripted worktree agents in a real git repository,
// killed with SIGKILL mid-queue; a scripted reviewer agent.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"swarm/bus"
	"swarm/internal/testrun"
)

// checkScript is the project's check, committed on main: no file says
// BAD, and x.txt and y.txt are never both there (each passes alone,
// together they break). A check of the merge of task ID (run in
// .swarm/merges/ID) is held while $HOLD/ID exists, so that a test can
// kill the swarm while it runs.
const checkScript = `case $PWD in */.swarm/merges/*) while [ -n "$HOLD" ] && [ -e "$HOLD/${PWD##*/}" ]; do sleep 0.02; done;; esac
! grep -qs BAD *.txt && ! { [ -f x.txt ] && [ -f y.txt ]; }
`

// workerScript is a scripted agent: every line typed into it goes to
// $LOGDIR/$SWARM_AGENT.told; given its task, it starts it, writes $FILE
// with $CONTENT in its worktree, commits, and reports done — once.
const workerScript = `while IFS= read -r line; do
  printf '%s\n' "$line" >> "$LOGDIR/$SWARM_AGENT.told"
  case "$line" in
  *"from swarm] task "*": "*)
    id=${line#*from swarm] task }; id=${id%%:*}
    if [ ! -e "$LOGDIR/$SWARM_AGENT.did" ]; then
      touch "$LOGDIR/$SWARM_AGENT.did"
      { swarm task start "$id" && printf "$CONTENT" > "$FILE" && git add "$FILE" && git commit -qm "$SWARM_AGENT: $FILE" &&
        swarm task done "$id"; } >> "$LOGDIR/$SWARM_AGENT.out" 2>&1
    fi;;
  esac
done
`

// checksEnv is a project in a git repository with check.sh on main, and
// its bus.
type checksEnv struct {
	*env
	logs string // the agents' $LOGDIR
	base string // main's commit before any task
	hold string // $HOLD: a file named after a task here holds its merge's check (see checkScript)
}

func newChecksEnv(t *testing.T) *checksEnv {
	e := &checksEnv{env: newEnv(t), logs: t.TempDir(), hold: t.TempDir()}
	repo := e.cwd
	gitconfig := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Agent\n\temail = agent@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.extra = []string{"GIT_CONFIG_GLOBAL=" + gitconfig, "GIT_CONFIG_NOSYSTEM=1", "HOLD=" + e.hold}
	git(t, repo, "init", "-q", "-b", "main")
	for name, content := range map[string]string{"a.txt": "one\ntwo\nthree\n", "check.sh": checkScript} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "initial")
	e.base = git(t, repo, "rev-parse", "HEAD")
	e.dir = filepath.Join(repo, ".swarm")
	for name, script := range map[string]string{"worker.sh": workerScript, "reviewer.sh": reviewerScript} {
		if err := os.WriteFile(filepath.Join(e.logs, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// worker is a scripted agent's table: it commits file with content.
func (e *checksEnv) worker(name, file, content string) string {
	return fmt.Sprintf(`
[[agent]]
name = %q
cmd = "sh %s/worker.sh"
worktree = true
quiet = "0s"
env = { LOGDIR = %q, FILE = %q, CONTENT = %q }
`, name, e.logs, e.logs, file, content)
}

func (e *checksEnv) config(text string) {
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// tasks reads every task from the bus.
func (e *checksEnv) tasks() map[string]bus.Task {
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		e.t.Fatal(err)
	}
	defer b.Close()
	ts, err := b.Tasks(context.Background(), bus.TaskFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]bus.Task{}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out
}

// queue reads the merge queue from the bus, and the checks of its first
// entry.
func (e *checksEnv) queue() ([]bus.QueueEntry, []bus.Check) {
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		e.t.Fatal(err)
	}
	defer b.Close()
	q, err := b.MergeQueue(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	var cs []bus.Check
	if len(q) > 0 {
		if cs, err = b.Checks(context.Background(), q[0].Task); err != nil {
			e.t.Fatal(err)
		}
	}
	return q, cs
}

// told is what was typed into agent.
func (e *checksEnv) told(agent string) string {
	b, _ := os.ReadFile(filepath.Join(e.logs, agent+".told"))
	return string(b)
}

// up starts the swarm and waits until its agents have started.
func (e *checksEnv) up(agents ...string) *background {
	sw := e.start("up", "--headless")
	for _, a := range agents {
		waitUntil(e.t, a+" started", func() bool { return sw.has(a + " started") })
	}
	return sw
}

// addTasks gives each agent a task and waits until each has been
// submitted for review: it is in review, or a reviewer agent has sent it
// back already.
func (e *checksEnv) addTasks(agents ...string) []string {
	var ids []string
	for _, a := range agents {
		ids = append(ids, strings.TrimSpace(e.ok("task", "add", "--to", a, "task of "+a)))
	}
	waitUntil(e.t, "every task in review", func() bool {
		ts := e.tasks()
		for _, id := range ids {
			if st := ts[id].State; st != bus.TaskInReview && st != bus.TaskChangesRequested {
				return false
			}
		}
		return true
	})
	return ids
}

// checkedHistory checks that main's first-parent commits since the start
// are merges of exactly the tasks want, in that order (oldest first),
// each passing the check, and that the main worktree is clean at main.
func (e *checksEnv) checkedHistory(want ...string) {
	t := e.t
	t.Helper()
	log := strings.Fields(git(t, e.cwd, "rev-list", "--reverse", "--first-parent", e.base+"..main"))
	var got []string
	for _, c := range log {
		got = append(got, git(t, e.cwd, "log", "-1", "--format=%s", c))
		scratch := filepath.Join(t.TempDir(), "at")
		git(t, e.cwd, "worktree", "add", "-q", "--detach", scratch, c)
		cmd := exec.Command("sh", "check.sh")
		cmd.Dir = scratch
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("main's first-parent commit %s (%s) fails the check: %v %s", c, got[len(got)-1], err, out)
		}
		git(t, e.cwd, "worktree", "remove", "--force", scratch)
	}
	var wantSubjects []string
	for _, id := range want {
		wantSubjects = append(wantSubjects, "Merge task "+id+": task of "+e.tasks()[id].Assignee)
	}
	if strings.Join(got, "\n") != strings.Join(wantSubjects, "\n") {
		t.Errorf("main's first-parent history since the start:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSubjects, "\n"))
	}
	if st := git(t, e.cwd, "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("the main worktree did not follow main: %q", st)
	}
	if wts := git(t, e.cwd, "worktree", "list"); strings.Contains(wts, "merges") {
		t.Errorf("a scratch worktree is left:\n%s", wts)
	}
}

// leftChecks returns the processes of this user still marked as checks of
// the bus (SWARM_CHECK).
func leftChecks(busDir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, en := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", en.Name(), "environ"))
		if err == nil && strings.Contains(string(env), "SWARM_CHECK="+busDir+"|") {
			var pid int
			fmt.Sscan(en.Name(), &pid)
			if !gone(pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// fiveTasks is the config of the five tasks' agents: w1 adds x.txt, w2 a
// file that says BAD (the check fails on its own branch), w3 edits a.txt,
// w4 edits the same line (it conflicts once w3's is merged), w5 adds y.txt
// (it passes alone, fails combined with w1's x.txt).
func (e *checksEnv) fiveTasks() string {
	return "[checks]\nrun = [\"sh check.sh\"]\ntimeout = \"2m\"\n" +
		e.worker("w1", "x.txt", `x\n`) + e.worker("w2", "bad.txt", `BAD\n`) +
		e.worker("w3", "a.txt", `one\nTHREE\nthree\n`) + e.worker("w4", "a.txt", `one\nFOUR\nthree\n`) +
		e.worker("w5", "y.txt", `y\n`)
}

// approveAndMerge approves every task, then queues every one, at once,
// their merges' checks held until release.
func (e *checksEnv) approveAndMerge(ids []string) {
	for _, id := range ids {
		if err := os.WriteFile(filepath.Join(e.hold, id), nil, 0o600); err != nil {
			e.t.Fatal(err)
		}
		e.ok("task", "approve", id)
	}
	for i, id := range ids {
		if out := e.ok("task", "merge", id); !strings.Contains(out, fmt.Sprintf("task %s: queued to merge into main (%d of ", id, i+1)) {
			e.t.Errorf("task merge %s printed %q", id, out)
		}
	}
}

// holdTheBase holds the next move of main, once it is made (a
// reference-transaction hook of the repository waits while
// $HOLD/advance exists, after writing $HOLD/advancing): what a swarm
// killed then leaves is main moved, the main worktree not following and
// the task not yet COMPLETED.
func (e *checksEnv) holdTheBase() {
	hook := `[ "$1" = committed ] || exit 0
while read -r old new ref; do
  if [ "$ref" = refs/heads/main ] && [ -e "$HOLD/advance" ]; then
    touch "$HOLD/advancing"
    while [ -e "$HOLD/advance" ]; do sleep 0.02; done
  fi
done
`
	if err := os.WriteFile(filepath.Join(e.cwd, ".git", "hooks", "reference-transaction"), []byte(hook), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.hold, "advance"), nil, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// release lets the checks of the merges of tasks ids go on.
func (e *checksEnv) release(ids ...string) {
	for _, id := range ids {
		if err := os.Remove(filepath.Join(e.hold, id)); err != nil {
			e.t.Fatal(err)
		}
	}
}

// outcome checks where the five tasks ended and that their agents were
// told.
func (e *checksEnv) outcome(ids []string) {
	t := e.t
	t.Helper()
	waitUntil(t, "the merge queue to empty", func() bool {
		q, _ := e.queue()
		return len(q) == 0
	})
	ts := e.tasks()
	want := []bus.TaskState{bus.TaskCompleted, bus.TaskChangesRequested, bus.TaskCompleted, bus.TaskConflicted, bus.TaskChangesRequested}
	for i, id := range ids {
		if ts[id].State != want[i] {
			t.Errorf("task %s of %s is %s, want %s", id, ts[id].Assignee, ts[id].State, want[i])
		}
	}
	e.checkedHistory(ids[0], ids[2])
	for agent, want := range map[string][]string{
		"w2": {"the check `sh check.sh` failed", "is CHANGES_REQUESTED: the check `sh check.sh` failed (exit status 1) on the merge of swarm/"},
		"w4": {"is CONFLICTED", "a.txt"},
		"w5": {"is CHANGES_REQUESTED: the check `sh check.sh` failed (exit status 1) on the merge of swarm/"},
	} {
		if !testrun.Poll(testrun.Patience, func() bool {
			told := e.told(agent)
			for _, w := range want {
				if !strings.Contains(told, w) {
					return false
				}
			}
			return true
		}) {
			inbox, _, _ := e.run("inbox", agent)
			t.Fatalf("%s was not told %q; typed into it:\n%s\nits inbox:\n%s", agent, want, e.told(agent), inbox)
		}
	}
	show := e.ok("task", "show", ids[4])
	for _, want := range []string{"CHANGES_REQUESTED  swarm  the check `sh check.sh` failed (exit status 1) on its merge with main",
		"checks on its merge with the base (the merge queue) at", "failed (exit 1)"} {
		if !strings.Contains(show, want) {
			t.Errorf("task show %s lacks %q:\n%s", ids[4], want, show)
		}
	}
	if pids := leftChecks(e.dir); len(pids) > 0 {
		t.Errorf("check processes left running: %v", pids)
	}
}

// Five tasks approved and queued at once: the base ends with exactly the
// good merges, each first-parent commit passing the checks; the others
// are back with their agents, who are told why.
func TestTheMergeQueueKeepsTheBaseGreen(t *testing.T) {
	t.Parallel()
	e := newChecksEnv(t)
	e.config(e.fiveTasks())
	sw := e.up("w1", "w2", "w3", "w4", "w5")
	ids := e.addTasks("w1", "w2", "w3", "w4", "w5")
	e.approveAndMerge(ids)
	e.release(ids...)
	e.outcome(ids)

	show := jsonLines(t, e.ok("task", "show", ids[0], "--json"))[0]
	checks, _ := show["checks"].([]any)
	if len(checks) == 0 {
		t.Fatalf("task show --json has no checks: %v", show)
	}
	for _, c := range checks {
		c := c.(map[string]any)
		if c["cmd"] != "sh check.sh" || c["state"] != "passed" || c["seconds"] == nil || !strings.HasPrefix(c["log"].(string), filepath.Join(e.dir, "checks", ids[0])) {
			t.Errorf("a check of %s: %v", ids[0], c)
		}
	}
	if code := sw.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm exited %d after SIGTERM", code)
	}
}

// The same, with the swarm killed (SIGKILL) at several points of the
// queue: each time the next swarm takes the queue up where it was, and
// the outcome is the same.
func TestTheMergeQueueSurvivesKills(t *testing.T) {
	t.Parallel()
	e := newChecksEnv(t)
	e.config(e.fiveTasks())
	sw := e.up("w1", "w2", "w3", "w4", "w5")
	ids := e.addTasks("w1", "w2", "w3", "w4", "w5")
	e.approveAndMerge(ids)

	// Kill it while the queue checks its first entry, then while it checks
	// the second (after one outcome), then the third (after two).
	for i, what := range []string{"the first merge's check running", "the second's", "the third's"} {
		waitUntil(t, what, func() bool {
			q, cs := e.queue()
			return len(q) == len(ids)-i && q[0].Task == ids[i] && checkRunning(q[0], cs)
		})
		sw.stop(t, syscall.SIGKILL)
		if wts := git(t, e.cwd, "worktree", "list"); !strings.Contains(wts, filepath.Join(".swarm", "merges", ids[i])) {
			t.Errorf("killed with %s: no scratch worktree:\n%s", what, wts)
		}
		sw = e.start("up", "--headless")
		if i == 2 {
			e.holdTheBase()
		}
		e.release(ids[i])
	}

	// Then once more as the third's merge has moved main, before the main
	// worktree follows it and the task is COMPLETED: the next swarm
	// finishes that move.
	waitUntil(t, "main moved to the third's merge", func() bool {
		_, err := os.Stat(filepath.Join(e.hold, "advancing"))
		return err == nil
	})
	sw.stop(t, syscall.SIGKILL)
	merge := git(t, e.cwd, "rev-parse", "main")
	if subject := git(t, e.cwd, "log", "-1", "--format=%s", merge); subject != "Merge task "+ids[2]+": task of w3" {
		t.Fatalf("killed as main moved, main is at %q", subject)
	}
	if st := e.tasks()[ids[2]].State; st != bus.TaskApproved {
		t.Errorf("killed as main moved, the task is already %s", st)
	}
	e.release("advance")
	sw = e.start("up", "--headless")
	e.release(ids[3:]...)
	e.outcome(ids)
	if got := git(t, e.cwd, "rev-list", "--first-parent", "-n", "1", merge); got != merge {
		t.Errorf("main's merge of %s is gone", ids[2])
	}
	if code := sw.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm exited %d after SIGTERM", code)
	}
}

// checkRunning says whether the queue entry e is checking its merge and
// a check of it runs.
func checkRunning(e bus.QueueEntry, cs []bus.Check) bool {
	if e.Phase != bus.PhaseChecking {
		return false
	}
	for _, c := range cs {
		if c.Run == bus.RunMerge && c.Commit == e.New && c.State == bus.CheckRunning {
			return true
		}
	}
	return false
}

// reviewerScript is a scripted reviewer agent: sent a task to review, it
// reads the diff from the file the message names, and asks for changes
// if it adds a TODO, else approves.
const reviewerScript = `while IFS= read -r line; do
  printf '%s\n' "$line" >> "$LOGDIR/$SWARM_AGENT.told"
  case "$line" in
  *"from swarm] review task "*)
    id=${line#*review task }; id=${id%% *}
    diff=${line#*The whole diff: }; diff=${diff%% *}
    if grep -q '^+.*TODO' "$diff"; then
      swarm task review "$id" --request-changes --note "no TODO, please" >> "$LOGDIR/$SWARM_AGENT.out" 2>&1
    elif [ -s "$diff" ]; then
      swarm task review "$id" --approve --note "looks good" >> "$LOGDIR/$SWARM_AGENT.out" 2>&1
    fi;;
  esac
done
`

// A reviewer agent approves one task and asks for changes on another,
// once their checks pass; its approval does not approve a task: the
// person's approval is still needed, and review_required makes the
// reviewer's a condition of merging.
func TestAReviewerAgentReviewsAndThePersonDecides(t *testing.T) {
	t.Parallel()
	e := newChecksEnv(t)
	e.config("[checks]\nrun = [\"sh check.sh\"]\nreview_by = \"rev\"\nreview_required = true\n" +
		e.worker("w1", "x.txt", `x\n`) + e.worker("w2", "todo.txt", `TODO\n`) +
		fmt.Sprintf("\n[[agent]]\nname = \"rev\"\ncmd = \"sh %s/reviewer.sh\"\nquiet = \"0s\"\nenv = { LOGDIR = %q }\n", e.logs, e.logs))
	sw := e.up("w1", "w2", "rev")
	ids := e.addTasks("w1", "w2")
	good, todo := ids[0], ids[1]

	waitUntil(t, "the reviewer to ask for changes on "+todo, func() bool { return e.tasks()[todo].State == bus.TaskChangesRequested })
	waitUntil(t, "w2 to be told", func() bool {
		return strings.Contains(e.told("w2"), "is CHANGES_REQUESTED: the reviewer rev asks for changes: no TODO, please")
	})
	waitUntil(t, "the reviewer to approve "+good, func() bool { return strings.Contains(e.ok("task", "show", good), "rev approve at") })
	if st := e.tasks()[good].State; st != bus.TaskInReview {
		t.Errorf("the reviewer's approval moved %s to %s: approving is the person's", good, st)
	}
	show := e.ok("task", "show", good)
	if !strings.Contains(show, ": looks good") {
		t.Errorf("task show lacks the reviewer's note:\n%s", show)
	}
	e.fails(1, []string{"task", "merge", good}, "IN_REVIEW")
	e.fails(1, []string{"task", "review", good, "--approve"}, "task review is the reviewer agent's (rev)")
	if rev := e.told("rev"); !strings.Contains(rev, "review task "+good) || !strings.Contains(rev, "review task "+todo) {
		t.Errorf("the reviewer was not sent both tasks:\n%s", rev)
	}

	e.ok("task", "approve", good)
	e.ok("task", "merge", good, "--wait")
	if st := e.tasks()[good].State; st != bus.TaskCompleted {
		t.Errorf("after the person's approval and merge, %s is %s", good, st)
	}
	e.checkedHistory(good)
	if code := sw.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm exited %d after SIGTERM", code)
	}
}

// swarm doctor finds each program the checks run, as their shell would,
// and fails on one that is not there.
func TestDoctorFindsTheChecksPrograms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conf := "[checks]\nrun = [\"sh check.sh && nosuch-prog-zz --all\", \"cd sub; true\"]\n" +
		"[[agent]]\nname = \"a\"\ncmd = \"cat\"\nchecks = [\"env FOO=1 git status\"]\n"
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out := e.fails(1, []string{"doctor"}, "doctor: 1 problem(s)")
	for _, want := range []string{"checks (timeout 10m0s, ", "ok    sh is ", `FAIL  nosuch-prog-zz (in "sh check.sh && nosuch-prog-zz --all"): not found by the shell`,
		"ok    cd is cd", "ok    true is true", "ok    git is "} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// With no swarm running, `swarm task merge` runs the merge queue itself
// until its task is merged (exit 0) or not (exit 1, saying why); `swarm
// task queue` shows the queue.
func TestMergeWithNoSwarmRunningRunsTheQueue(t *testing.T) {
	t.Parallel()
	e := newChecksEnv(t)
	e.config("[checks]\nrun = [\"sh check.sh\"]\n" + e.worker("w1", "x.txt", `x\n`) + e.worker("w2", "bad.txt", `BAD\n`))
	sw := e.up("w1", "w2")
	ids := e.addTasks("w1", "w2")
	for _, id := range ids {
		e.ok("task", "approve", id)
	}
	if code := sw.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("swarm exited %d", code)
	}
	if out := e.ok("task", "queue"); out != "the merge queue is empty\n" {
		t.Errorf("task queue: %q", out)
	}
	out := e.ok("task", "merge", ids[0])
	for _, want := range []string{"task " + ids[0] + ": queued to merge into main (1 of 1 in the merge queue)",
		"no swarm runs on " + e.dir + ": the merge queue runs in this process", "task " + ids[0] + " is COMPLETED: merged as "} {
		if !strings.Contains(out, want) {
			t.Errorf("task merge printed %q, lacking %q", out, want)
		}
	}
	e.fails(1, []string{"task", "merge", ids[1], "--wait"}, "task "+ids[1]+" was not merged, it is CHANGES_REQUESTED: the check `sh check.sh` failed (exit status 1) on its merge with main")
	e.checkedHistory(ids[0])
}

// Uncommitted changes in the person's checkout of the base hold the
// queue, which says why (task queue, task show), and never touch them;
// once they are committed away, the merge goes on.
func TestTheQueueWaitsForThePersonsCheckout(t *testing.T) {
	t.Parallel()
	e := newChecksEnv(t)
	e.config("[checks]\nrun = [\"sh check.sh\"]\n" + e.worker("w1", "x.txt", `x\n`))
	sw := e.up("w1")
	id := e.addTasks("w1")[0]
	e.ok("task", "approve", id)
	if err := os.WriteFile(filepath.Join(e.cwd, "a.txt"), []byte("my edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.ok("task", "merge", id)
	var queue string
	waitUntil(t, "the merge to wait", func() bool {
		queue = e.ok("task", "queue")
		return strings.Contains(queue, "1. "+id+" task of w1 (w1) — waiting")
	})
	if !strings.Contains(queue, "main is checked out in "+e.cwd+", which has uncommitted changes (a.txt): commit or stash them, and the merge goes on") {
		t.Errorf("task queue does not say why:\n%s", queue)
	}
	if show := e.ok("task", "show", id); !strings.Contains(show, "merge queue  waiting for") {
		t.Errorf("task show:\n%s", show)
	}
	if b, _ := os.ReadFile(filepath.Join(e.cwd, "a.txt")); string(b) != "my edit\n" {
		t.Errorf("the person's edit was touched: %q", b)
	}
	git(t, e.cwd, "stash", "-q")
	if out := e.ok("task", "merge", id, "--wait"); !strings.Contains(out, "task "+id+" is COMPLETED: merged as ") {
		t.Errorf("task merge --wait printed %q", out)
	}
	e.checkedHistory(id)
	if code := sw.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm exited %d", code)
	}
}

// `swarm task merge --wait` waits for the running swarm's merge queue;
// when that swarm stops first, it says so and exits 1, and the task stays
// in the queue for the next swarm, queued.
func TestMergeWaitEndsWhenTheSwarmStops(t *testing.T) {
	t.Parallel()
	e := newChecksEnv(t)
	e.config("[checks]\nrun = [\"sh check.sh\"]\n" + e.worker("w1", "x.txt", `x\n`))
	sw := e.up("w1")
	id := e.addTasks("w1")[0]
	e.ok("task", "approve", id)
	// The person's uncommitted edit holds the queue.
	if err := os.WriteFile(filepath.Join(e.cwd, "a.txt"), []byte("my edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("task", "merge", id, "--wait")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	waitUntil(t, "the merge to wait", func() bool { return strings.Contains(e.ok("task", "queue"), "1. "+id+" task of w1 (w1) — waiting") })
	if code := sw.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("swarm exited %d after SIGTERM", code)
	}
	waitUntil(t, "task merge --wait to end", func() bool {
		select {
		case <-exited:
			return true
		default:
			return false
		}
	})
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) || ee.ExitCode() != 1 {
		t.Errorf("task merge --wait ended with %v, want exit status 1", waitErr)
	}
	if want := "swarm: the swarm on " + e.dir + " stopped before task " + id + " was merged: it stays in the merge queue for the next swarm\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("task merge --wait printed %q, want it to end with %q", out.String(), want)
	}
	// Queued again, not waiting: nothing waits for it until a swarm runs.
	if q := e.ok("task", "queue"); !strings.Contains(q, "1. "+id+" task of w1 (w1) — queued") {
		t.Errorf("after the swarm stopped, the queue is:\n%s", q)
	}
}
