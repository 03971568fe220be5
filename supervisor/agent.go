package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"swarm/bus"
	"swarm/screenmodel"
	"swarm/spawner"
	"swarm/swarmapi"
	"swarm/textsafe"
)

// maxBackoff caps the restart delay.
const maxBackoff = 30 * time.Second

// agent is the runtime of one configured agent.
type agent struct {
	s       *Supervisor
	cfg     AgentConfig
	profile Profile
	model   *screenmodel.Model // how to read its program's screen

	ctx    context.Context // ends at shutdown
	cancel context.CancelFunc
	wg     sync.WaitGroup

	wake    chan struct{} // injector: something may be deliverable
	control chan bool     // lifecycle: true = (re)start, false = stop

	mu         sync.Mutex
	proc       *spawner.Process
	screen     *spawner.Screen // the current process's, or the last one's
	outputSeen chan struct{}   // signalled on every output chunk (confirmation)
	looks      chan struct{}   // the injector should look at the screen: output, a turn changed
	state      AgentState
	reason     string
	pid        int
	exitCode   int
	restarts   int
	started    time.Time
	lastInput  time.Time
	// lineLen counts what a person typed since their last Enter (Ctrl-C
	// or Ctrl-U); while it is not 0, messages wait (held of them).
	lineLen int
	// keysMu is held while a person's keys are noted and written, and
	// while the injector looks at the line and types a message into it.
	keysMu     sync.Mutex
	held       int
	level      bus.Level
	rows, cols int
	briefed    bool // the brief has been typed into the current process
	turn       Turn // what the current process's hooks or screen last said
	// earlyTurn: what a hook said while the process was being started,
	// before it counted as running (a CLI given its prompt on its command
	// line runs its prompt hook at once); it becomes turn once started.
	earlyTurn Turn
	shown     ScreenState // what the current process shows (shown.go)
	// reachedPrompt: the current process has shown its prompt (or a
	// turn), past whatever it asks first; only such a run counts as
	// stable for the restart policy.
	reachedPrompt bool
	// typedInRun: swarm has typed a brief or a message into the current
	// process (the injector's; firstPromptWait).
	typedInRun bool
	// waiting: a message (or the brief) waits to be typed in; the
	// injector's.
	waiting  bool
	tools    bool          // the current process has swarm's MCP tools (its kit)
	dir      string        // where the process runs: cfg.Dir, or its task's worktree
	startSig chan struct{} // closed (and replaced) each time a process starts

	// The id marker the injector waits for; the pump reports committed
	// lines that contain it, so a marker that scrolled by is not missed.
	markerMu  sync.Mutex
	marker    string
	markerHit chan struct{}
	// echoes are how the kernel's echoes of messages typed into a
	// program reading lines begin (each one's text up to its marker),
	// oldest first, until the pump reads the line showing each: see
	// sawLine. The delivery may end before (confirmed by the screen).
	echoes []string

	moved    string    // set when a restart moves the agent to this directory
	movedAt  time.Time // when that move was asked for
	movedFor string    // the task whose worktree it moves to, if any

	retryAt time.Time // no injection before this (backoff); the injector's

	bodyWait bodyFileWait // a message whose file could not be written (bodyfile.go); the injector's

	// outLog keeps the agent's output on disk (agentlog.go): written by
	// the lifecycle between processes and by the pump while one runs.
	outLog *agentLog
	logErr string // what outLog last reported (logProblem), under mu
	// screenErr: the current process's screen panicked and was contained
	// (screenFailed); under mu, "" for a new process.
	screenErr string

	// The relay rate limit (see allow); used by the pump only.
	relayTokens  float64
	relayAt      time.Time
	relayDropped int // in all
	relayUntold  int // since the agent was last told
	relayWarned  time.Time

	// What the agent sent while the bus could not take it (see unsent.go);
	// used by the pumps, which run one after another.
	unsent unsent

	// awaitingOutput: the injector waits for the process's first output.
	awaitingOutput atomic.Bool
	// linesBehind counts the batches of committed lines given to the pump
	// and not handled yet (or waiting to be given): while it is above
	// zero the process's output waits in its terminal and its screen is
	// behind what it wrote (submit.go's waits count from when it is not).
	linesBehind atomic.Int64

	// Messages confirmed lately to the current process, those it may not
	// have read yet: when it ends, the ones it did not read go back to the
	// queue (requeueUnread).
	recent []confirmation
}

// confirmation is a message confirmed to an agent's process at a time.
type confirmation struct {
	id string
	at time.Time
	// header is what the message was typed under (header, trimmed): the
	// input the process left unread holds it if it never read the line.
	header string
	typed  int // bytes typed for it (a notice that went with it: 0)
	// unsure: it was confirmed by the kernel's echo of its line (or not
	// checked), not by the program showing it: read or not, only the
	// terminal's queue tells.
	unsure bool
}

// requeueWindow: a message confirmed this shortly before its recipient
// crashed may have been read by a dying process — the kernel hands a line
// to a thread blocked in read that a kill has woken, and the thread never
// returns from the read — or, where what the process left unread is not
// known, not read at all: it is delivered again (requeueUnread). A
// program reads a line within milliseconds of its echo; a longer window
// only sends more duplicates after a crash (the fault trial saw about 35
// a crash with a second, against a reader taking 30 messages a second).
const requeueWindow = 300 * time.Millisecond

// unreadHeld bounds the input a terminal holds unread: its line
// discipline's 4 KiB and the tty layer's 64 KiB of buffers, with room to
// spare. A confirmation with more than this typed after it was read, or
// the process reads nothing and its terminal holds only what came later.
const unreadHeld = 128 << 10

func newAgent(s *Supervisor, cfg AgentConfig) *agent {
	ctx, cancel := context.WithCancel(s.ctx)
	return &agent{
		s: s, cfg: cfg, profile: cfg.Profile(), model: screenmodel.For(cfg.Profile().Kind), ctx: ctx, cancel: cancel,
		wake:       make(chan struct{}, 1),
		control:    make(chan bool, 1),
		outputSeen: make(chan struct{}, 1),
		looks:      make(chan struct{}, 1),
		markerHit:  make(chan struct{}, 1),
		rows:       s.opts.Rows, cols: s.opts.Cols,
		dir:      cfg.Dir,
		startSig: make(chan struct{}),
	}
}

func (a *agent) start() {
	a.wg.Add(2)
	go func() { defer a.wg.Done(); a.lifecycle() }()
	go func() { defer a.wg.Done(); a.injectLoop() }()
}

// shutdown stops the process and waits for the agent's goroutines.
func (a *agent) shutdown() {
	a.cancel()
	a.wg.Wait()
}

func (a *agent) info() AgentInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	in := AgentInfo{
		Name: a.cfg.Name, Cmd: a.cfg.Cmd, State: a.state, Reason: a.reason,
		Pid: a.pid, ExitCode: a.exitCode, Restarts: a.restarts, Started: a.started,
		Level: a.level, Rows: a.rows, Cols: a.cols, Worktree: a.cfg.Worktree, Held: a.held, Turn: a.turn, LogProblem: a.logErr,
		ScreenProblem: a.screenErr, Screen: a.shown,
	}
	if a.proc != nil {
		in.LastOutput = a.proc.LastOutput()
	}
	return in
}

func (a *agent) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *agent) setState(st AgentState, reason string) {
	a.mu.Lock()
	a.state, a.reason = st, reason
	status := a.busStatus()
	a.mu.Unlock()
	a.record(a.ctx, status)
}

// busStatus is the agent's state as the bus records it: a pid only while
// its process runs. a.mu must be held.
func (a *agent) busStatus() bus.AgentStatus {
	st := bus.AgentStatus{State: a.state.String(), Reason: a.reason, Restarts: a.restarts}
	if a.state == StateRunning {
		st.Pid = a.pid
	}
	return st
}

// final records the agent's state once the supervisor stopped it: one
// that was running or about to run is stopped; one that had exited or
// given up keeps its state and reason.
func (a *agent) final(ctx context.Context) {
	a.mu.Lock()
	switch a.state {
	case StateStarting, StateRunning, StateBackoff:
		a.state, a.reason = StateStopped, "swarm stopped"
	}
	status := a.busStatus()
	a.mu.Unlock()
	a.record(ctx, status)
}

func (a *agent) record(ctx context.Context, st bus.AgentStatus) {
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	if err := a.s.bus.SetAgentState(ctx, a.cfg.Name, st); err != nil {
		a.s.log.Warn("record agent state", "agent", a.cfg.Name, "err", err)
	}
}

// lifecycle starts the process and applies the restart policy until the
// supervisor shuts down.
func (a *agent) lifecycle() {
	a.outLog = openAgentLog(a.s.logPath(a.cfg.Name), a.s.opts.LogMax, a.logProblem)
	defer func() {
		if err := a.outLog.close(); err != nil {
			a.s.log.Warn("agent log", "agent", a.cfg.Name, "err", err)
		}
	}()
	backoff := a.s.opts.Backoff
	for {
		started := time.Now()
		code, how, ran, err := a.runOnce()
		if a.ctx.Err() != nil {
			return
		}
		// A run that never got past what its program asks first (a
		// dialog, a sign-in) is no stable run, however long it lasted.
		if time.Since(started) >= a.s.opts.StableRun && a.ranToPrompt() {
			a.resetRestarts()
			backoff = a.s.opts.Backoff
		}

		// A stop or restart request while it ran decides what comes next.
		select {
		case again := <-a.control:
			if !again && !a.stopped() {
				return
			}
			a.resetRestarts()
			backoff = a.s.opts.Backoff
			continue
		default:
		}

		failed := err != nil || code != 0
		reason := how
		switch {
		case err != nil:
			reason = err.Error()
		case !failed:
			reason = bus.CleanExit // what says it ended as it should
		}
		if failed && permanent(err, code, ran) {
			why := "not restarted: " + reason
			a.setState(StateGaveUp, why)
			a.s.hub.emit(Event{Kind: EventAgentGaveUp, Agent: a.cfg.Name, Text: why})
			if !a.park() {
				return
			}
			backoff = a.s.opts.Backoff
			continue
		}
		restart := a.cfg.Restart == RestartAlways || (a.cfg.Restart == RestartOnFailure && failed)
		if !restart {
			a.setState(StateExited, reason)
			if !a.park() {
				return
			}
			backoff = a.s.opts.Backoff
			continue
		}
		a.mu.Lock()
		n := a.restarts + 1
		if n <= a.cfg.MaxRestarts {
			a.restarts = n
		}
		a.mu.Unlock()
		if n > a.cfg.MaxRestarts {
			why := fmt.Sprintf("gave up after %d restarts: %s", a.cfg.MaxRestarts, reason)
			a.setState(StateGaveUp, why)
			a.s.hub.emit(Event{Kind: EventAgentGaveUp, Agent: a.cfg.Name, Text: why})
			if !a.park() {
				return
			}
			backoff = a.s.opts.Backoff
			continue
		}
		a.setState(StateBackoff, fmt.Sprintf("%s; restart %d of %d in %s", reason, n, a.cfg.MaxRestarts, backoff))
		a.s.hub.emit(Event{Kind: EventAgentRestarting, Agent: a.cfg.Name, Text: fmt.Sprintf("%s; restart %d/%d in %s", reason, n, a.cfg.MaxRestarts, backoff)})
		t := time.NewTimer(backoff)
		select {
		case <-a.ctx.Done():
			t.Stop()
			return
		case again := <-a.control:
			t.Stop()
			if !again && !a.stopped() {
				return
			}
			a.resetRestarts()
			backoff = a.s.opts.Backoff
			continue
		case <-t.C:
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// ranToPrompt says whether the last process showed its prompt (or its
// shell mode, or a turn): past what its program asks first. A program
// whose model knows no input box (a shell, a line reader, an editor) asks
// nothing first that swarm could tell: any of its runs did.
func (a *agent) ranToPrompt() bool {
	if a.model.Input == nil {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reachedPrompt
}

func (a *agent) resetRestarts() {
	a.mu.Lock()
	a.restarts = 0
	a.mu.Unlock()
}

// stopped records a stop that a person asked for and parks the lifecycle
// until the agent is started again (true) or the supervisor shuts down.
func (a *agent) stopped() bool {
	a.setState(StateStopped, "stopped by request")
	a.s.hub.emit(Event{Kind: EventAgentStopped, Agent: a.cfg.Name})
	return a.park()
}

// park waits, with no process, for a start request (true) or shutdown
// (false). A stop request meanwhile turns an exited or given-up agent into
// a stopped one.
func (a *agent) park() bool {
	for {
		select {
		case <-a.ctx.Done():
			return false
		case again := <-a.control:
			if again {
				a.resetRestarts()
				return true
			}
			a.setState(StateStopped, "stopped by request")
			a.s.hub.emit(Event{Kind: EventAgentStopped, Agent: a.cfg.Name})
		}
	}
}

// runOnce starts the process, runs its output pump and waits until both
// are done. A stop request or shutdown stops the process.
// ran is how long the program itself ran: from its start to its end (its
// reaping), not swarm's work around it (the bus, its files, its output
// read to the end), which a loaded machine may make seconds long.
func (a *agent) runOnce() (code int, how string, ran time.Duration, err error) {
	if a.ctx.Err() != nil {
		return -1, "", 0, a.ctx.Err() // shut down before it started
	}
	// What the last run printed stays in the scrollback, under a line
	// saying why the program starts again.
	a.mu.Lock()
	before, why := a.screen, a.reason
	a.mu.Unlock()
	separator := ""
	if before != nil {
		separator = fmt.Sprintf("── %s started again at %s", a.cfg.Name, time.Now().Format("15:04:05"))
		if why = textsafe.Words(why); why != "" {
			separator += " (" + why + ")"
		}
		separator += " ──"
	}
	a.setState(StateStarting, "")
	lines := make(chan []spawner.Line, 32) // batches: a chunk of output's lines
	faults := make(chan spawner.Fault, 1)  // this process's screen's, for the pump (screenFailed)
	a.mu.Lock()
	a.earlyTurn = Turn{} // a start that failed may have left one
	rows, cols, dir := a.rows, a.cols, a.dir
	a.mu.Unlock()
	argv := a.cfg.Argv
	if len(argv) > 0 && argv[0] == "swarm" {
		// A config's "swarm" means this swarm, wherever it is installed.
		argv = append([]string{a.s.opts.Executable}, argv[1:]...)
	}
	// A new secret for each process: a command run in it is this agent's
	// (see caller.go); the last process's token stops working.
	token := newToken()
	if err := a.s.bus.SetAgentToken(a.publishCtx(), a.cfg.Name, token); err != nil {
		a.s.log.Warn("record agent token", "agent", a.cfg.Name, "err", err)
	}
	w := wire(a.cfg, argv, newKitInput(a.s.busDir(), a.s.swarmPath(), a.cfg))
	if err := w.writeFiles(); err != nil {
		a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: "swarm's MCP server and hooks are not wired: " + err.Error()})
	} else if w.Skipped != "" {
		a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: "swarm's MCP server and hooks are not wired: " + w.Skipped})
	}
	a.mu.Lock()
	a.tools = w.Tools
	a.mu.Unlock()
	proc, err := spawner.Start(spawner.Options{
		Argv: w.Argv, Dir: dir, Env: append(a.env(token), w.Env...), Drop: terminalVar,
		Rows: rows, Cols: cols, Scrollback: a.s.scrollbackOf(a.cfg),
		OnLines: func(batch []spawner.Line) {
			a.linesBehind.Add(1)
			select {
			case lines <- batch:
			case <-a.ctx.Done():
				a.linesBehind.Add(-1)
			}
		},
		OnOutput:  a.onOutput,
		OnFault:   func(f spawner.Fault) { a.screenFailed(f, faults) },
		Budget:    a.s.budget,
		Before:    before,
		Separator: separator,
		Layout:    screenmodel.Of(a.profile.Kind),
	})
	spawned := time.Now()
	if err != nil {
		a.s.hub.emit(Event{Kind: EventAgentExited, Agent: a.cfg.Name, ExitCode: -1, Text: err.Error()})
		return -1, "", 0, fmt.Errorf("%w: %w", errCannotStart, err)
	}
	proc.SetUrgent(a.s.focused(a.cfg.Name))
	if f := beforeRunning.Load(); f != nil {
		(*f)(a.cfg.Name)
	}
	pumpDone := make(chan struct{})
	a.mu.Lock()
	a.proc, a.screen = proc, proc.Screen()
	a.pid, a.started, a.exitCode, a.briefed, a.turn = proc.Pid(), time.Now(), 0, false, Turn{}
	early := a.earlyTurn
	a.earlyTurn = Turn{}
	noteRun(a.s, proc.Pid(), token) // descendants.go
	a.shown, a.reachedPrompt, a.typedInRun = ScreenState{Since: time.Now()}, false, false
	a.screenErr = ""
	close(a.startSig)
	a.startSig = make(chan struct{})
	// A UI that sized the agent while the process was being started found
	// no process to resize: the size it asked for is applied now.
	sized := a.rows != rows || a.cols != cols
	rows, cols = a.rows, a.cols
	a.mu.Unlock()
	if sized {
		_ = proc.Resize(rows, cols) // (an error: it has exited already)
	}
	a.setState(StateRunning, "")
	a.outLog.mark("%s started (pid %d) in %s", a.cfg.Name, proc.Pid(), dir)
	a.s.hub.emit(Event{Kind: EventAgentStarted, Agent: a.cfg.Name, Pid: proc.Pid()})
	if early.Known() {
		a.setTurn(early)
	}
	a.poke()

	go func() {
		defer close(pumpDone)
		a.pump(proc, lines, faults)
	}()

	stopped := false // by swarm: a stop, a restart, a move, shutdown
	select {
	case <-proc.Done():
	case <-a.ctx.Done():
		stopped = true
		askToQuit(proc, a.cfg.Argv)
		_ = proc.Stop(a.s.opts.StopGrace)
	case again := <-a.control:
		stopped = true
		askToQuit(proc, a.cfg.Argv)
		_ = proc.Stop(a.s.opts.StopGrace)
		// Put the request back for the lifecycle loop to act on, unless a
		// newer one has arrived meanwhile.
		select {
		case a.control <- again:
		default:
		}
	}
	st, werr := proc.Wait()
	<-pumpDone
	a.endLeftBehind(proc.Pid(), token)
	if err := a.s.bus.SetAgentToken(a.publishCtx(), a.cfg.Name, ""); err != nil {
		a.s.log.Warn("clear agent token", "agent", a.cfg.Name, "err", err)
	}
	a.mu.Lock()
	a.proc = nil
	a.exitCode = st.Code
	recent := a.recent
	a.recent = nil
	moved, movedAt, movedFor := a.moved, a.movedAt, a.movedFor
	a.moved = ""
	a.mu.Unlock()
	a.requeueUnread(proc, recent, !stopped && !st.Success())
	if moved != "" && movedFor != "" {
		// A move into a task's worktree: swarm ends the process the
		// moment the task comes back to the agent (sent back, in
		// conflict), and a message about that task typed in just before
		// or since goes to the process in the worktree, read or not.
		// Otherwise what a process read is not typed into the next one
		// again.
		a.requeueAbout(recent, movedAt.Add(-requeueWindow), movedFor)
	}
	how = st.String()
	switch {
	case stopped && moved != "":
		how = "moved to " + moved
	case !stopped && !st.Success():
		// What it printed last usually says why (command not found, a
		// stack trace's last line…).
		if last := lastLine(proc.Screen().Snapshot().Lines); last != "" {
			how += ": " + last
		}
	}
	a.outLog.mark("%s ended: %s", a.cfg.Name, how)
	a.outLog.flush()
	a.s.hub.emit(Event{Kind: EventAgentExited, Agent: a.cfg.Name, ExitCode: st.Code, Text: how, Planned: stopped && moved != ""})
	return st.Code, how, proc.ExitedAt().Sub(spawned), werr
}

// errCannotStart: the program could not be started at all.
var errCannotStart = errors.New("cannot start")

// lastLine is the last non-blank line of a screen, shortened.
func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if r := []rune(l); len(r) > 160 {
				l = string(r[:159]) + "…"
			}
			return l
		}
	}
	return ""
}

// permanent says whether a failure will happen again however often the
// agent is restarted: the program cannot be found or run (also as the
// shell's 126/127 right after starting).
func permanent(err error, code int, ran time.Duration) bool {
	if errors.Is(err, errCannotStart) {
		return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
	}
	return (code == 126 || code == 127) && ran < 2*time.Second
}

// requeueUnread puts back in the agent's queue the messages of recent
// that proc may not have read, however it ended. Never read: their header
// is in the input its terminal held unread when the process and its
// group were gone (spawner's Unread) — a program reading lines gets each
// echoed by the kernel as it arrives, and that echo confirmed it, though
// the program may have died, or sat stopped, before reading it. A line
// that quotes another message's header puts that one back too: at least
// once. Read, perhaps, by a dying process: after a crash, what the kernel
// alone confirmed within requeueWindow of the end (a read the kernel
// completed for a killed thread looks like any read), and, where the
// unread input is not known, whatever was confirmed then. A program that
// showed a message itself had read it: it comes again only if unread.
func (a *agent) requeueUnread(proc *spawner.Process, recent []confirmation, crashed bool) {
	unread, known := proc.Unread()
	ended := proc.ExitedAt() // not when swarm got round to it: ending the group, its descendants take seconds
	var back []confirmation
	for _, c := range recent {
		switch {
		case known && bytes.Contains(unread, []byte(c.header)):
			back = append(back, c)
		case crashed && (c.unsure || !known) && !c.at.Before(ended.Add(-requeueWindow)):
			back = append(back, c)
		}
	}
	if len(back) > 0 {
		a.s.log.Info("messages its process may not have read go back to the queue", "agent", a.cfg.Name, "messages", len(back))
	}
	a.requeue(back, time.Time{})
}

// requeue puts the messages confirmed since a back in the agent's queue.
func (a *agent) requeue(recent []confirmation, since time.Time) {
	for _, c := range recent {
		if c.at.Before(since) {
			continue
		}
		if err := a.s.bus.Requeue(a.publishCtx(), c.id, a.cfg.Name); err != nil {
			a.s.log.Error("requeue", "agent", a.cfg.Name, "id", c.id, "err", err)
		}
	}
}

// requeueAbout requeues the messages about task (their data's "task")
// of recent confirmed since.
func (a *agent) requeueAbout(recent []confirmation, since time.Time, task string) {
	var about []confirmation
	for _, c := range recent {
		if a.about(c.id, task) {
			about = append(about, c)
		}
	}
	a.requeue(about, since)
}

// about reports whether message id is about task (its data's "task").
func (a *agent) about(id, task string) bool {
	m, err := a.s.bus.Message(a.publishCtx(), id)
	if err != nil {
		return false
	}
	var d struct{ Task string }
	return json.Unmarshal(m.Data, &d) == nil && d.Task == task
}

func (a *agent) env(token string) []string {
	env := []string{
		"SWARM_AGENT=" + a.cfg.Name,
		"SWARM_TOKEN=" + token,
		"SWARM_DIR=" + a.s.busDir(),
		"SWARM_BIN=" + a.s.swarmPath(),
		// swarm's link goes last on PATH so agents can run `swarm task
		// done` without it shadowing anything the user installed.
		"PATH=" + os.Getenv("PATH") + string(os.PathListSeparator) + filepath.Dir(a.s.swarmPath()),
	}
	for k, v := range a.cfg.Env {
		env = append(env, k+"="+v)
	}
	return env
}

func (a *agent) onOutput() {
	if a.awaitingOutput.CompareAndSwap(true, false) {
		a.poke()
	}
	select {
	case a.outputSeen <- struct{}{}:
	default:
	}
	a.lookSoon()
	a.s.hub.emit(Event{Kind: EventScreen, Agent: a.cfg.Name})
}

// lookSoon has the injector look at the screen in a moment (see injectLoop).
func (a *agent) lookSoon() {
	select {
	case a.looks <- struct{}{}:
	default:
	}
}

// running returns the current process, or nil.
func (a *agent) running() *spawner.Process {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.proc
}

// typing returns the running process for a person's input and notes the
// time, so that injection waits until they pause, and what the input does
// to their line (see typed).
func (a *agent) typing(line lineEdit, write func(p *spawner.Process) error) error {
	// The person's keys and what they do to the line go out together: the
	// injector, which looks at the line before it types a message (under
	// the same lock), never comes between them — a Ctrl-U noted but not
	// yet written would let a message join the line it was to clear.
	a.keysMu.Lock()
	a.mu.Lock()
	if a.proc == nil {
		a.mu.Unlock()
		a.keysMu.Unlock()
		return fmt.Errorf("%s: %w", a.cfg.Name, ErrNotRunning)
	}
	a.lastInput = time.Now()
	was := a.lineLen
	a.lineLen = line.apply(a.lineLen)
	cleared := was > 0 && a.lineLen == 0
	p := a.proc
	a.mu.Unlock()
	err := write(p)
	a.keysMu.Unlock()
	if cleared {
		a.poke() // what waited for the line goes now
	}
	return err
}

func (a *agent) sendKeys(b []byte) error {
	return a.typing(editOfBytes(b), func(p *spawner.Process) error { return p.Write(b) })
}

func (a *agent) resize(rows, cols int) error {
	if err := swarmapi.CheckSize(rows, cols); err != nil {
		return fmt.Errorf("resize %s: %w", a.cfg.Name, err)
	}
	a.mu.Lock()
	a.rows, a.cols = rows, cols
	p, last := a.proc, a.screen
	a.mu.Unlock()
	if p == nil {
		// Not running: the screen its last process left is still shown,
		// and is rewrapped like a live one.
		if last != nil {
			last.Resize(rows, cols)
		}
		return nil
	}
	if err := p.Resize(rows, cols); !errors.Is(err, spawner.ErrExited) {
		return err
	}
	return nil // it has just exited: its screen has the size
}

func (a *agent) request(again bool) {
	// The newest request wins: drop an unread older one.
	select {
	case <-a.control:
	default:
	}
	select {
	case a.control <- again:
	default:
	}
}

func (a *agent) restart() { a.request(true) }

// moveTo makes the agent run in dir from now on. A running (or starting)
// agent is restarted there, and moveTo waits until the new process has
// started; an agent waiting to restart starts there; one that exited is
// started there. A stopped agent, or one given up after a crash loop, only
// has its directory changed: a person starts it again. Nothing happens when
// dir is where it runs already, so a repeated move never restarts anything.
//
// task is the task whose worktree dir is ("" for none): what was typed
// into the process about it just before is typed again into the next one.
func (a *agent) moveTo(ctx context.Context, dir, task string) error {
	a.mu.Lock()
	if a.dir == dir {
		a.mu.Unlock()
		return nil
	}
	a.dir = dir
	state, started := a.state, a.startSig
	if state == StateRunning || state == StateStarting {
		a.moved, a.movedAt, a.movedFor = dir, time.Now(), task // its exit is not a failure worth showing
	}
	a.mu.Unlock()
	switch state {
	case StateStopped, StateGaveUp, StateBackoff:
		return nil
	}
	a.restart()
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-started:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("%s did not start in %s within 10s", a.cfg.Name, dir)
	}
}

// workDir returns where the agent's process runs.
func (a *agent) workDir() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dir
}

// stop asks the lifecycle to stop the process and keep it stopped.
func (a *agent) stop() { a.request(false) }

// beforeRunning, when a test sets it, runs between an agent's process
// starting and the agent counting it as its running process.
var beforeRunning atomic.Pointer[func(name string)]
