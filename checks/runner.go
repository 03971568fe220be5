package checks

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"swarm/bus"
)

// TailLines is how many of a check's last output lines are kept with it:
// what the agent is told and the task board shows.
const TailLines = 30

// niceness is how much lower than swarm's own a check's CPU priority is:
// a test suite must not starve the agents' terminals, the UI or the
// person's editor.
const niceness = 10

// stopGrace is how long a check that is ended (its timeout, a cancel)
// has between SIGTERM and SIGKILL: long enough for a test runner to say
// which test it was in.
const stopGrace = 3 * time.Second

// markVar names the variable in each check's environment that marks its
// processes, so that what leaves its process group is found and ended too
// (endMarked), after the check and after a killed swarm.
const markVar = "SWARM_CHECK"

// Runner runs checks: shell commands in a directory, at most a number of
// them at once, each at a lower CPU priority than swarm's, in a process
// group of its own, with a timeout, its output going to a log file.
type Runner struct {
	slots chan struct{}
}

// NewRunner returns a runner of at most parallel checks at once (at
// least one).
func NewRunner(parallel int) *Runner {
	return &Runner{slots: make(chan struct{}, max(parallel, 1))}
}

// DefaultParallel is how many checks run at once unless [checks] says: half
// the cores, at least one.
func DefaultParallel() int { return max(runtime.NumCPU()/2, 1) }

// Command is one check to run.
type Command struct {
	Dir     string        // where it runs
	Cmd     string        // a shell command (/bin/sh -c)
	Timeout time.Duration // 0: none
	Log     string        // the file its output goes to, made anew
	Mark    string        // the value of SWARM_CHECK in its environment (see endMarked)
}

// Outcome is how a check ended.
type Outcome struct {
	State   bus.CheckState // passed, failed, timed_out or cancelled
	Exit    int            // exit status; -1 when it was killed or never ran
	Started time.Time      // zero if it never started
	Ended   time.Time
	Tail    string // the last TailLines lines of its output
}

// Run runs c once a slot is free, calling started (if not nil) as it
// starts, and returns how it ended. Ending ctx cancels it: a check that
// waits for a slot does not start, a running one is asked to stop
// (SIGTERM to its process group) and killed after a grace period. Every
// process it started is gone when Run returns.
func (r *Runner) Run(ctx context.Context, c Command, started func(time.Time)) Outcome {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return Outcome{State: bus.CheckCancelled, Exit: -1, Ended: time.Now()}
	}
	defer func() { <-r.slots }()
	if ctx.Err() != nil {
		return Outcome{State: bus.CheckCancelled, Exit: -1, Ended: time.Now()}
	}
	return run(ctx, c, started)
}

func run(ctx context.Context, c Command, started func(time.Time)) Outcome {
	o := Outcome{Exit: -1}
	fail := func(err error) Outcome {
		o.State, o.Ended, o.Tail = bus.CheckFailed, time.Now(), err.Error()
		return o
	}
	if err := os.MkdirAll(filepath.Dir(c.Log), 0o700); err != nil {
		return fail(fmt.Errorf("cannot make its log: %w", err))
	}
	log, err := os.OpenFile(c.Log, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fail(fmt.Errorf("cannot make its log: %w", err))
	}
	defer log.Close()
	if info, err := os.Stat(c.Dir); err != nil || !info.IsDir() {
		err = fmt.Errorf("its directory %s is not there: %w", c.Dir, cmp.Or[error](err, syscall.ENOTDIR))
		fmt.Fprintf(log, "swarm: %v\n", err)
		return fail(err)
	}
	cmd := exec.Command("/bin/sh", "-c", c.Cmd)
	cmd.Dir = c.Dir
	cmd.Env = append(environ(), markVar+"="+c.Mark)
	cmd.Stdout, cmd.Stderr = log, log // a file: no copying goroutine, Wait returns when the shell ends
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := startLowered(cmd); err != nil {
		fmt.Fprintf(log, "swarm: %v\n", err)
		return fail(err)
	}
	o.Started = time.Now()
	if started != nil {
		started(o.Started)
	}
	pgid := cmd.Process.Pid

	tctx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-tctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		t := time.NewTimer(stopGrace)
		select {
		case werr = <-waited:
		case <-t.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			werr = <-waited
		}
		t.Stop()
	}
	o.Ended = time.Now()
	// What the shell left running in its group, and what left the group.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	endMarked(func(v string) bool { return v == c.Mark })

	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		o.State = bus.CheckCancelled
	case tctx.Err() != nil:
		o.State = bus.CheckTimedOut
		fmt.Fprintf(log, "\nswarm: ended after its timeout of %s\n", c.Timeout)
	case werr == nil:
		o.State, o.Exit = bus.CheckPassed, 0
	case errors.As(werr, &ee):
		o.State, o.Exit = bus.CheckFailed, ee.ExitCode()
	default:
		o.State = bus.CheckFailed
		fmt.Fprintf(log, "\nswarm: %v\n", werr)
	}
	o.Tail = tail(log)
	return o
}

// starter is the goroutine every check is started from, locked to an OS
// thread of its own whose CPU priority is lowered once, for the life of
// the process. On Linux a priority is a thread's and a child starts with
// its parent thread's, so a check is niced before its first instruction;
// the thread cannot get its priority back (that needs privilege), so it
// serves nothing else. And it never ends: a parent-death signal comes
// when the thread that started a child ends, so a thread that ended with
// a check would kill what swarm had started from it before (an agent),
// and a check's own parent-death signal (its shell dies with swarm) must
// not come while it runs.
var starter struct {
	once  sync.Once
	start chan startRequest
}

type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// startLowered starts cmd from the starter's thread.
func startLowered(cmd *exec.Cmd) error {
	starter.once.Do(func() {
		starter.start = make(chan startRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: see starter
			lowerPriority()
			for r := range starter.start {
				r.done <- r.cmd.Start()
			}
		}()
	})
	r := startRequest{cmd: cmd, done: make(chan error, 1)}
	starter.start <- r
	return <-r.done
}

// lowerPriority lowers the calling thread's CPU priority by niceness
// (to at most 19, the lowest).
func lowerPriority() {
	// The kernel's getpriority returns 20 - nice.
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	_ = unix.Setpriority(unix.PRIO_PROCESS, 0, min(20-raw+niceness, 19))
}

// dropVars are variables of swarm's environment a check does not get:
// they would make a swarm or a git the check runs act on swarm's bus, or
// on another repository than the tree being checked.
var dropVars = map[string]bool{
	"SWARM_DIR": true, "SWARM_AGENT": true, "SWARM_TOKEN": true, "SWARM_BIN": true, markVar: true,
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
}

func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !dropVars[k] {
			env = append(env, kv)
		}
	}
	return env
}

// tail returns the last TailLines lines of the file f.
func tail(f *os.File) string {
	const window = 64 << 10
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(info.Size()-window, 0)
	b := make([]byte, info.Size()-off)
	n, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return lastLines(string(b[:n]), TailLines)
}

// lastLines returns the last n lines of s, without its final newline.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// endMarked kills every process of this user whose environment's
// SWARM_CHECK value matches: a check's processes that left its process
// group (a daemon it started), or those a killed swarm left running.
func endMarked(match func(mark string) bool) {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	prefix := []byte(markVar + "=")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or another user's
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok && match(string(v)) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}
