package checks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
)

func TestMain(m *testing.M) {
	testrun.WaitersInParallel(6)
	os.Exit(m.Run())
}

// command is a check of script in a temporary directory, its log there.
func command(t *testing.T, script string) Command {
	dir := t.TempDir()
	return Command{Dir: dir, Cmd: script, Log: filepath.Join(dir, "logs", "check.log"), Mark: "test|" + t.Name()}
}

func TestAPassingCheckKeepsItsOutput(t *testing.T) {
	t.Parallel()
	c := command(t, `echo out; echo err >&2; pwd`)
	var startedAt time.Time
	o := NewRunner(1).Run(context.Background(), c, func(at time.Time) { startedAt = at })
	if o.State != bus.CheckPassed || o.Exit != 0 {
		t.Fatalf("outcome %+v", o)
	}
	if startedAt.IsZero() || !startedAt.Equal(o.Started) || o.Ended.Before(o.Started) {
		t.Errorf("started %v, outcome %v → %v", startedAt, o.Started, o.Ended)
	}
	log, err := os.ReadFile(c.Log)
	if err != nil {
		t.Fatal(err)
	}
	want := "out\nerr\n" + c.Dir + "\n"
	if string(log) != want || o.Tail != strings.TrimSuffix(want, "\n") {
		t.Errorf("log %q, tail %q; want %q", log, o.Tail, want)
	}
	if info, err := os.Stat(c.Log); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("log mode: %v %v", info.Mode(), err)
	}
}

func TestAFailingCheckKeepsItsLastLinesAndStatus(t *testing.T) {
	t.Parallel()
	c := command(t, `i=0; while [ $i -lt 100 ]; do i=$((i+1)); echo "line $i"; done; exit 3`)
	o := NewRunner(1).Run(context.Background(), c, nil)
	if o.State != bus.CheckFailed || o.Exit != 3 {
		t.Fatalf("outcome %+v", o)
	}
	lines := strings.Split(o.Tail, "\n")
	if len(lines) != TailLines || lines[0] != "line 71" || lines[len(lines)-1] != "line 100" {
		t.Errorf("tail: %d lines, %q … %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestACheckThatCannotStartFails(t *testing.T) {
	t.Parallel()
	c := command(t, "true")
	c.Dir = filepath.Join(c.Dir, "gone")
	o := NewRunner(1).Run(context.Background(), c, nil)
	if o.State != bus.CheckFailed || !strings.Contains(o.Tail, "gone") {
		t.Errorf("outcome %+v", o)
	}
}

// pidsIn reads the pids a check wrote to file, one a line, once it has
// written want of them.
func pidsIn(t *testing.T, file string, want int) []int {
	t.Helper()
	var pids []int
	testrun.Within(t, testrun.Patience, "the check's processes", func() bool {
		b, _ := os.ReadFile(file)
		pids = nil
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		return len(pids) >= want
	})
	return pids
}

func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// A check past its timeout is ended with everything it started: what
// stays in its process group and what left it (setsid).
func TestACheckPastItsTimeoutIsEndedWithItsProcesses(t *testing.T) {
	t.Parallel()
	c := command(t, `sleep 300 & echo $! >> pids; setsid sleep 300 & echo $! >> pids; echo $$ >> pids; wait`)
	c.Timeout = 300 * time.Millisecond
	o := NewRunner(1).Run(context.Background(), c, nil)
	if o.State != bus.CheckTimedOut || o.Exit != -1 {
		t.Fatalf("outcome %+v", o)
	}
	for _, pid := range pidsIn(t, filepath.Join(c.Dir, "pids"), 3) {
		testrun.Within(t, testrun.Patience, fmt.Sprintf("process %d to end", pid), func() bool { return !running(pid) })
	}
	if !strings.Contains(o.Tail, "timeout of 300ms") {
		t.Errorf("tail %q", o.Tail)
	}
}

// Cancelling ends a running check (a shell that ignores SIGTERM too) and
// keeps a queued one from starting.
func TestCancelEndsARunningCheckAndAQueuedOne(t *testing.T) {
	t.Parallel()
	r := NewRunner(1)
	first := command(t, `trap '' TERM; echo $$ > pids; while :; do sleep 0.05; done`)
	second := command(t, `touch started`)
	ctx, cancel := context.WithCancel(context.Background())
	outcomes := make(chan Outcome, 2)
	go func() { outcomes <- r.Run(ctx, first, nil) }()
	pid := pidsIn(t, filepath.Join(first.Dir, "pids"), 1)[0]
	go func() { outcomes <- r.Run(ctx, second, nil) }()
	cancel()
	for range 2 {
		if o := <-outcomes; o.State != bus.CheckCancelled {
			t.Errorf("outcome %+v", o)
		}
	}
	if running(pid) {
		t.Errorf("the cancelled check's shell %d still runs", pid)
	}
	if _, err := os.Stat(filepath.Join(second.Dir, "started")); err == nil {
		t.Error("the queued check ran")
	}
}

// At most the runner's number of checks run at once; the rest wait.
func TestChecksBeyondTheBoundWait(t *testing.T) {
	t.Parallel()
	r := NewRunner(1)
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	first := command(t, fmt.Sprintf(`touch started; while [ ! -e %q ]; do sleep 0.01; done`, release))
	second := command(t, `true`)
	secondStarted := make(chan struct{})
	done := make(chan Outcome, 2)
	go func() { done <- r.Run(context.Background(), first, nil) }()
	testrun.Within(t, testrun.Patience, "the first check to start", func() bool {
		_, err := os.Stat(filepath.Join(first.Dir, "started"))
		return err == nil
	})
	go func() { done <- r.Run(context.Background(), second, func(time.Time) { close(secondStarted) }) }()
	select {
	case <-secondStarted:
		t.Fatal("the second check started while the first ran, with one slot")
	case o := <-done:
		t.Fatalf("a check ended early: %+v", o)
	default:
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if o := <-done; o.State != bus.CheckPassed {
			t.Errorf("outcome %+v", o)
		}
	}
	<-secondStarted
}

// A check runs at a lower priority than swarm, without swarm's bus in its
// environment.
func TestAChecksPriorityAndEnvironment(t *testing.T) {
	t.Setenv("SWARM_DIR", "/nowhere/.swarm")
	own, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := command(t, `cut -d' ' -f19 /proc/self/stat; echo "dir=$SWARM_DIR mark=$SWARM_CHECK"`)
	o := NewRunner(1).Run(context.Background(), c, nil)
	if o.State != bus.CheckPassed {
		t.Fatalf("outcome %+v", o)
	}
	want := fmt.Sprintf("%d\ndir= mark=%s", min(20-own+niceness, 19), c.Mark)
	if o.Tail != want {
		t.Errorf("the check printed %q, want %q", o.Tail, want)
	}
}

// Running checks ends none of swarm's other children. The agents are
// started with a parent-death signal, which Linux sends when the thread
// that started them ends, not the process: a check must not end a thread
// of swarm's (as a goroutine that exits locked to its thread does), or an
// agent started from that thread would be killed.
func TestChecksEndNoOtherChildOfSwarm(t *testing.T) {
	// A child started as the spawner starts an agent, from the thread
	// this goroutine is on, which a check started next may then use.
	runtime.LockOSThread()
	child := exec.Command("sleep", "300")
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	err := child.Start()
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = child.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = child.Process.Kill()
		<-exited
	})
	r := NewRunner(1)
	for i := range 20 {
		if o := r.Run(context.Background(), command(t, "true"), nil); o.State != bus.CheckPassed {
			t.Fatalf("check %d: outcome %+v", i, o)
		}
		select {
		case <-exited:
			t.Fatalf("after %d checks, another child of swarm ended: %v", i+1, waitErr)
		default:
		}
	}
}
