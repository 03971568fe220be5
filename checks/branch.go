package checks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"swarm/bus"
	"swarm/textsafe"
)

// Checks on a task's branch. When a task enters review, and again each
// time its branch moves to another commit while it is in review, its
// checks run in its worktree. A check that fails is told to the task's
// agent at once; once all have passed, the reviewer agent (review_by), if
// any, is sent the task to review. A task that leaves review for anything
// but APPROVED (cancelled, failed, sent back) has its checks ended.

// branchPoll is how often the branches of tasks in review are looked at
// for new commits: an agent that fixes its branch in review commits in
// its worktree, which the bus does not hear of. Only while a task is in
// review.
const branchPoll = 2 * time.Second

// branchRun is the checks of a task's branch at one commit.
type branchRun struct {
	commit string
	cancel context.CancelFunc
}

// messageNamespace makes the ids of the messages the checks send
// deterministic: one said again after a restart publishes nothing new.
var messageNamespace = uuid.MustParse("3b5f6f0e-8f7d-4c7e-9a43-5d1c2e7b9a10")

func messageID(parts ...string) string {
	return uuid.NewSHA1(messageNamespace, []byte(strings.Join(parts, "/"))).String()
}

// watchBranches runs the checks of the branches in review until ctx ends,
// then ends them.
func (s *Service) watchBranches(ctx context.Context) {
	wake, unsub := s.bus.Subscribe()
	defer unsub()
	// What a killed swarm's branch checks left running.
	endMarked(func(m string) bool { return strings.HasPrefix(m, markPrefix(s.bus.Dir(), bus.RunBranch)+"|") })
	defer s.wg.Wait()
	defer s.cancelRuns(func(string) bool { return true })
	for {
		reviewing := s.reconcile(ctx)
		var poll <-chan time.Time
		var timer *time.Timer
		if reviewing {
			timer = time.NewTimer(branchPoll)
			poll = timer.C
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-s.done:
		case <-poll:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// reconcile starts the runs the tasks in review need and ends those no
// task needs; it reports whether a task is in review (with a branch).
func (s *Service) reconcile(ctx context.Context) bool {
	if s.repo == nil {
		return false
	}
	open, err := s.bus.Tasks(ctx, bus.TaskFilter{States: bus.OpenTaskStates()})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("checks: list tasks", "err", err)
		}
		return false
	}
	keep := map[string]bool{}
	reviewing := false
	for _, t := range open {
		switch {
		case t.Branch == "":
		case t.State == bus.TaskApproved:
			keep[t.ID] = true // a run started in review finishes
		case t.State == bus.TaskInReview:
			reviewing = true
			keep[t.ID] = true
			s.review(ctx, t)
		}
	}
	s.cancelRuns(func(id string) bool { return !keep[id] })
	s.mu.Lock()
	for key := range s.told {
		if id, _, _ := strings.Cut(key, "/"); !keep[id] {
			delete(s.told, key) // in review again later: handed on again (the messages' ids keep that once)
		}
	}
	s.mu.Unlock()
	return reviewing
}

// review makes sure the checks of a task in review run on the commit its
// branch is at, and that their outcome has been handed on.
func (s *Service) review(ctx context.Context, t bus.Task) {
	head, err := s.repo.BranchCommit(ctx, t.Branch)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("checks: read a task's branch", "task", t.ID, "err", err)
		}
		return
	}
	s.mu.Lock()
	run := s.runs[t.ID]
	s.mu.Unlock()
	if run != nil && run.commit == head {
		return
	}
	recorded, err := s.bus.Checks(ctx, t.ID)
	if err != nil {
		return
	}
	var branch []bus.Check
	for _, c := range recorded {
		if c.Run == bus.RunBranch {
			branch = append(branch, c)
		}
	}
	if run == nil && ranOn(branch, head, s.commands(t)) {
		s.handOn(ctx, t, head, branch) // once per process; the messages' ids make it once for good
		return
	}
	if run != nil {
		run.cancel()
	}
	s.start(ctx, t, head)
}

// ranOn reports whether checks recorded all of cmds on commit, to the end.
func ranOn(checks []bus.Check, commit string, cmds []string) bool {
	if len(checks) != len(cmds) {
		return false
	}
	for i, c := range checks {
		if c.Commit != commit || c.Cmd != cmds[i] || !c.State.Final() || c.State == bus.CheckCancelled {
			return false
		}
	}
	return true
}

// cancelRuns ends the runs of the tasks drop selects.
func (s *Service) cancelRuns(drop func(task string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, r := range s.runs {
		if drop(id) {
			r.cancel()
		}
	}
}

// start runs the checks of task t's branch at commit, in a goroutine the
// service owns.
func (s *Service) start(ctx context.Context, t bus.Task, commit string) {
	cmds := s.commands(t)
	logs := make([]string, len(cmds))
	for i := range cmds {
		logs[i] = s.logPath(t.ID, bus.RunBranch, commit, i)
	}
	// The logs of the commits before this one go.
	_ = os.RemoveAll(filepath.Join(s.Dir(), t.ID, string(bus.RunBranch)))
	if err := s.bus.StartChecks(ctx, t.ID, bus.RunBranch, commit, cmds, logs); err != nil {
		if ctx.Err() == nil {
			s.log.Error("checks: record a run", "task", t.ID, "err", err)
		}
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	run := &branchRun{commit: commit, cancel: cancel}
	s.mu.Lock()
	s.runs[t.ID] = run
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		checks := s.runAll(rctx, t, bus.RunBranch, commit, t.Worktree, cmds, logs, false, func(c bus.Check) {
			if c.State == bus.CheckFailed || c.State == bus.CheckTimedOut {
				s.tellFailure(ctx, t, c)
			}
		})
		s.mu.Lock()
		if s.runs[t.ID] == run {
			delete(s.runs, t.ID)
		}
		s.mu.Unlock()
		if rctx.Err() == nil {
			s.handOn(ctx, t, commit, checks)
		}
		select {
		case s.done <- struct{}{}:
		default:
		}
	}()
}

// runAll runs cmds in dir, each through the runner (so at most the
// swarm's number of checks at once in all), recording each state change
// on the bus, and returns the checks as they ended. ended is called as
// each ends. With failFast, a check that fails ends the others.
func (s *Service) runAll(ctx context.Context, t bus.Task, run bus.CheckRun, commit, dir string, cmds, logs []string,
	failFast bool, ended func(bus.Check)) []bus.Check {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]bus.Check, len(cmds))
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		out[i] = bus.Check{Task: t.ID, Run: run, N: i, Cmd: cmd, Commit: commit, State: bus.CheckQueued, Log: logs[i]}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := out[i]
			o := s.runner.Run(ctx, Command{Dir: dir, Cmd: cmd, Timeout: s.policy.Timeout, Log: logs[i], Mark: s.mark(run, t.ID, i)},
				func(at time.Time) {
					c.State, c.Started = bus.CheckRunning, at
					s.record(c)
				})
			c.State, c.Exit, c.Started, c.Ended, c.Tail = o.State, o.Exit, o.Started, o.Ended, o.Tail
			s.record(c)
			out[i] = c
			if ended != nil {
				ended(c)
			}
			if failFast && c.State != bus.CheckPassed {
				cancel()
			}
		}()
	}
	wg.Wait()
	return out
}

// record writes a check's state to the bus; it is written even as the
// swarm stops, so that the bus does not say running for a check that is
// not.
func (s *Service) record(c bus.Check) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.bus.UpdateCheck(ctx, c); err != nil {
		s.log.Error("checks: record a check", "task", c.Task, "check", c.Cmd, "err", err)
	}
}

// tellFailure tells a task's agent that a check failed on its branch:
// the command, how it ended and the last lines of its output.
func (s *Service) tellFailure(ctx context.Context, t bus.Task, c bus.Check) {
	how := fmt.Sprintf("failed (exit status %d)", c.Exit)
	if c.State == bus.CheckTimedOut {
		how = fmt.Sprintf("ran past its timeout of %s", s.policy.Timeout)
	}
	body := fmt.Sprintf("task %s (%s): the check `%s` %s on your branch %s at %s. %s\n"+
		"Fix it in %s and commit: the checks run again on each new commit while the task is in review (full output: %s).",
		t.ID, textsafe.Words(t.Title), c.Cmd, how, t.Branch, shortCommit(c.Commit), lastLinesSaid(c.Tail), t.Worktree, c.Log)
	data := fmt.Sprintf(`{"task":%q,"cmd":%q,"state":%q,"commit":%q}`, t.ID, c.Cmd, c.State, c.Commit)
	_, err := s.bus.Publish(context.WithoutCancel(ctx), bus.Message{ID: messageID(t.ID, "branch", c.Commit, fmt.Sprint(c.N)),
		From: bus.Swarm, To: t.Assignee, Kind: bus.KindTaskChecks, Body: body, Data: []byte(data)})
	if err != nil {
		s.log.Error("checks: tell an agent", "task", t.ID, "err", err)
	}
}

// lastLinesSaid introduces a check's last lines of output in a message.
func lastLinesSaid(tail string) string {
	if strings.TrimSpace(tail) == "" {
		return "It printed nothing."
	}
	return "Its last lines:\n" + tail
}

// handOn does what follows checks that ended on a task's branch at
// commit, once per process: when they all passed, the reviewer agent is
// sent the task to review.
func (s *Service) handOn(ctx context.Context, t bus.Task, commit string, checks []bus.Check) {
	key := t.ID + "/" + commit
	s.mu.Lock()
	told := s.told[key]
	s.told[key] = true
	s.mu.Unlock()
	if told {
		return
	}
	for _, c := range checks {
		if c.State != bus.CheckPassed {
			return
		}
	}
	if s.policy.ReviewBy != "" {
		s.askReview(ctx, t, commit)
	}
}
