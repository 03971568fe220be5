package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"swarm/supervisor"
	"swarm/textsafe"
)

// Timeouts of starting a server: how long a running one has to answer,
// how long a new one may take to, and how long an interrupted start waits
// for the server it started to stop its agents (each has the stop grace
// of 3 s).
const (
	answerTimeout   = 10 * time.Second
	startTimeout    = 30 * time.Second
	abandonTimeout  = 10 * time.Second
	startPollPeriod = 20 * time.Millisecond
)

// Started is the swarm a UI attaches to: one that was running already
// (since when), or one this process started (proc), which it ends again
// if the person interrupts before the UI runs.
type Started struct {
	Since  time.Time // when a swarm that was running started; zero for a new one
	proc   *os.Process
	exited <-chan error
}

// Starting says whether this process started the swarm (Abandon stops it).
func (s Started) Starting() bool { return s.proc != nil }

// Abandon answers an interrupt that came before the UI ran: a server this
// process started is stopped, with its agents, so that nothing the person
// did not see keeps running; one that was running already goes on, and the
// error says how to reach it.
func (s Started) Abandon() error {
	switch {
	case s.proc == nil && s.Since.IsZero():
		return errors.New("interrupted")
	case s.proc == nil:
		return errors.New("interrupted; the swarm runs on: `swarm attach` shows it, `swarm stop` ends it")
	}
	_ = s.proc.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(abandonTimeout):
		_ = s.proc.Kill() // its agents get SIGKILL with it
		<-s.exited
	}
	return errors.New("interrupted: the swarm it was starting is stopped")
}

// Start returns the swarm serving busDir (absolute): the one that runs
// there already, or a server started as argv in dir, once it answers on
// its socket. The server runs in a session of its own, so that neither
// the terminal's hang-up nor the UI's end reaches it; what it prints goes
// to server.log in busDir. An error with ctx ended is an interrupt: the
// server is returned, for Abandon. program names the caller in its Hello.
func Start(ctx context.Context, busDir, program, dir string, argv ...string) (started Started, err error) {
	dctx, cancel := context.WithTimeout(ctx, answerTimeout)
	cl, err := Dial(dctx, busDir, program)
	cancel()
	if err == nil {
		cl.Close()
		// Running: attach to it.
		return Started{Since: socketAge(busDir)}, nil
	}
	if !errors.Is(err, ErrNotRunning) {
		if _, running := supervisor.SwarmRunning(busDir); running && ctx.Err() != nil {
			// Interrupted while asking a swarm that runs: it runs on,
			// and Abandon says so.
			return Started{Since: socketAge(busDir)}, err
		}
		return started, err
	}
	if pid, running := supervisor.SwarmRunning(busDir); running {
		who := "a swarm"
		if pid != 0 {
			who = fmt.Sprintf("a swarm (pid %d)", pid)
		}
		return started, fmt.Errorf("%s runs on %s without a socket: attach to it where it runs, or stop it", who, busDir)
	}
	if err := os.MkdirAll(busDir, 0o700); err != nil {
		return started, err
	}
	logPath := filepath.Join(busDir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return started, err
	}
	defer logFile.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return started, fmt.Errorf("start the server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaped if it ends while the UI runs
	started = Started{proc: cmd.Process, exited: exited}
	deadline := time.Now().Add(startTimeout)
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		cl, err := Dial(dctx, busDir, program)
		cancel()
		if err == nil {
			cl.Close()
			return started, nil
		}
		select {
		case werr := <-exited:
			return Started{}, fmt.Errorf("the server ended at once (%v): %s", werr, LastLine(logPath))
		case <-ctx.Done():
			return started, ctx.Err()
		case <-time.After(startPollPeriod):
		}
		if time.Now().After(deadline) {
			return started, fmt.Errorf("the server started (pid %d) but did not answer in %s; see %s", cmd.Process.Pid, startTimeout, logPath)
		}
	}
}

// socketAge is when the swarm serving busDir started: its socket is as
// old as it is (now, if the socket cannot be read).
func socketAge(busDir string) time.Time {
	if st, err := os.Stat(filepath.Join(busDir, SocketName)); err == nil {
		return st.ModTime()
	}
	return time.Now()
}

// LastLine returns the last non-empty line of the file at path (a log),
// as one line for a terminal, without a leading "swarm: ".
func LastLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return textsafe.Line(strings.TrimPrefix(lines[len(lines)-1], "swarm: "))
}
