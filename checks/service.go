package checks

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"swarm/bus"
	"swarm/gitrepo"
	"swarm/tasks"
)

// Options configure a Service. Bus, Tasks and Policy are required.
type Options struct {
	Bus    *bus.Bus
	Tasks  *tasks.Service
	Policy *bus.CheckPolicy
	Log    *slog.Logger // default: discard
	// PathFor names file (absolute) for agent as the agent can read it
	// and as it may be typed: absolute, or from the agent's directory; an
	// error when it cannot be. Default: the absolute path, if typable.
	PathFor func(agent, file string) (string, error)
	// Command is how a message tells an agent to run swarm (default
	// "swarm").
	Command string
}

// Service runs a swarm's checks: on the branch of each task in review,
// and the merge queue. Run owns every goroutine and process it starts.
type Service struct {
	opts   Options
	bus    *bus.Bus
	tasks  *tasks.Service
	repo   *gitrepo.Repo // nil outside a git repository: then there are no branches to check
	policy *bus.CheckPolicy
	runner *Runner
	log    *slog.Logger

	mu   sync.Mutex
	runs map[string]*branchRun // a task's branch run in progress, by task id
	told map[string]bool       // the (task, commit)s whose outcome was handed on by this process
	wg   sync.WaitGroup        // the runs
	done chan struct{}         // a run ended
}

// New returns the checks service of a swarm.
func New(opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Command == "" {
		opts.Command = "swarm"
	}
	if opts.PathFor == nil {
		opts.PathFor = func(_, file string) (string, error) { return typablePath(file) }
	}
	repo, _ := opts.Tasks.Repo()
	return &Service{opts: opts, bus: opts.Bus, tasks: opts.Tasks, repo: repo, policy: opts.Policy,
		runner: NewRunner(opts.Policy.Parallel), log: opts.Log,
		runs: map[string]*branchRun{}, told: map[string]bool{}, done: make(chan struct{}, 1)}
}

// Run checks the branches of tasks in review, and merges the tasks of the
// merge queue, until ctx ends; then it ends every check it started and
// returns once they have ended.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.watchBranches(ctx)
	}()
	go func() {
		defer wg.Done()
		NewQueue(s).Run(ctx)
	}()
	wg.Wait()
}

// Dir is where the checks' logs are: .swarm/checks.
func (s *Service) Dir() string { return filepath.Join(s.bus.Dir(), "checks") }

// logPath is the log of check n of a run of task on commit.
func (s *Service) logPath(task string, run bus.CheckRun, commit string, n int) string {
	return filepath.Join(s.Dir(), task, string(run), shortCommit(commit), strconv.Itoa(n+1)+".log")
}

// mark is the value of SWARM_CHECK for check n of a run: the bus, the
// kind of run, the task and its place, so that leftovers of a killed
// swarm's runs of a kind are found by their prefix.
func (s *Service) mark(run bus.CheckRun, task string, n int) string {
	return fmt.Sprintf("%s|%s|%d|%d", markPrefix(s.bus.Dir(), run), task, n, time.Now().UnixNano())
}

func markPrefix(busDir string, run bus.CheckRun) string { return busDir + "|" + string(run) }

func shortCommit(c string) string { return c[:min(len(c), 12)] }

// commands returns the checks of a task: its assignee's own, or [checks] run.
func (s *Service) commands(t bus.Task) []string { return s.policy.Commands(t.Assignee) }
