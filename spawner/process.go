package spawner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"swarm/screenmodel"
)

var (
	// ErrNoCommand is returned by Start when Options.Argv is empty.
	ErrNoCommand = errors.New("no command to run")
	// ErrExited is returned by writes, resizes and signals to a process
	// that has exited.
	ErrExited = errors.New("process has exited")
)

// DefaultSettle is how long output must be quiet before the lines a
// redrawing program held back are committed, when Options.Settle is zero.
const DefaultSettle = 250 * time.Millisecond

// drainTimeout bounds the wait for the rest of the output after the
// process exited, in case something outside its process group still holds
// the terminal open.
const drainTimeout = 2 * time.Second

// Options describe a program to run in a PTY.
type Options struct {
	// Argv is the program and its arguments; Argv[0] is looked up in PATH.
	Argv []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is added to the environment swarm runs with. TERM=xterm-256color
	// and COLORTERM=truecolor are always set.
	Env []string
	// Drop says which variables of the environment swarm runs with the
	// program does not get (Env may still set them).
	Drop func(name string) bool
	// Rows and Cols are the terminal size; 24×80 when zero.
	Rows, Cols int
	// Scrollback is the screen's scrollback in rows; DefaultScrollback
	// when zero, none when negative.
	Scrollback int
	// OnLines receives the committed lines, in order, a batch at a time
	// (those of one chunk of output), from the output goroutine; the slice
	// is the receiver's. It may block briefly; output waits meanwhile.
	OnLines func([]Line)
	// OnOutput is called after each chunk of output reached the screen
	// (for a UI to redraw). Keep it cheap.
	OnOutput func()
	// Settle is how long output must be quiet before held-back lines are
	// committed (see the package documentation). Zero means DefaultSettle;
	// negative means only when the process exits.
	Settle time.Duration
	// Budget, when set, is shared with other processes to bound the CPU
	// their screens use together (see Budget and SetUrgent).
	Budget *Budget
	// Before and Separator: see ScreenOptions. A program started again
	// keeps what its last run printed in its scrollback.
	Before    *Screen
	Separator string
	// Layout: see ScreenOptions.
	Layout screenmodel.Layout
	// OnFault is told, once, that the screen's model panicked (on the
	// program's output, or while read or resized) and was contained: from
	// then on no line is committed (OnLines gets nothing more), while the
	// screen goes on showing the output as a terminal emulator alone
	// (contain.go). It is called by the goroutine that hit the panic — the
	// output goroutine, or one reading the screen — with no lock held;
	// keep it short.
	OnFault func(Fault)
}

// ExitStatus is how a process ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the process.
	Code int
	// Signal is the signal that ended the process, 0 if none did.
	Signal syscall.Signal
}

// String describes the status, e.g. "exit code 1" or "killed by signal 9
// (killed)".
func (e ExitStatus) String() string {
	if e.Signal != 0 {
		return fmt.Sprintf("killed by signal %d (%s)", int(e.Signal), e.Signal)
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// Success reports whether the process exited with code 0.
func (e ExitStatus) Success() bool { return e.Signal == 0 && e.Code == 0 }

// Process is a program running in its own session and process group on a
// PTY, with a Screen fed by its output. Everything written to the PTY goes
// through one FIFO writer.
type Process struct {
	opts   Options
	cmd    *exec.Cmd
	pid    int
	master *os.File
	screen *Screen
	w      *fifo
	// slave is swarm's own descriptor of the terminal's program side (-1
	// if it could not be had): input a program has not read waits in
	// that side's queue, which lives as long as one descriptor holds it,
	// so what none of the group read can still be told once they ended
	// (takeUnread).
	slave int

	unread      []byte // set by takeUnread, before done closes
	unreadKnown bool

	readDone chan struct{} // closed when the PTY's output has ended
	taken    chan struct{} // closed when takeUnread is done
	exited   chan struct{}
	done     chan struct{}
	status   ExitStatus
	exitedAt time.Time
	waitErr  error
	lastOut  atomic.Int64
	urgent   atomic.Bool
	closeM   sync.Once
}

// Start runs opts.Argv in a new PTY. The process leads its own session
// and process group.
func Start(opts Options) (*Process, error) {
	if len(opts.Argv) == 0 {
		return nil, ErrNoCommand
	}
	rows, cols := opts.Rows, opts.Cols
	if rows <= 0 {
		rows = 24
	}
	if cols <= 0 {
		cols = 80
	}
	rows, cols = min(rows, 0xffff), min(cols, 0xffff)
	cmd := exec.Command(opts.Argv[0], opts.Argv[1:]...)
	cmd.Dir = opts.Dir
	// The screen keeps 24-bit colour, so programs may use it (COLORTERM is
	// how they tell); the UI converts for the terminal it draws on.
	inherited := os.Environ()
	if opts.Drop != nil {
		inherited = slices.DeleteFunc(inherited, func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return opts.Drop(name)
		})
	}
	cmd.Env = append(append(inherited, opts.Env...), "TERM=xterm-256color", "COLORTERM=truecolor")
	startMu.Lock()
	ptmx, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)},
		// Pdeathsig: the program dies with swarm, however swarm dies.
		&syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL})
	if err == nil {
		started[cmd.Process.Pid] = true
	}
	startMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", opts.Argv[0], err)
	}
	// Opened before anything is typed in, so nothing could have been read
	// from it unseen; a kernel without TIOCGPTPEER (before Linux 4.13)
	// leaves the unread input unknown.
	slave, _, errno := unix.Syscall(unix.SYS_IOCTL, ptmx.Fd(), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if errno != 0 {
		slave = ^uintptr(0)
	}
	master, err := pollable(ptmx)
	if err != nil {
		if errno == 0 {
			_ = unix.Close(int(slave))
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		startMu.Lock()
		delete(started, cmd.Process.Pid)
		startMu.Unlock()
		return nil, fmt.Errorf("start %s: %w", opts.Argv[0], err)
	}
	p := &Process{
		opts:     opts,
		cmd:      cmd,
		pid:      cmd.Process.Pid,
		master:   master,
		slave:    int(slave),
		readDone: make(chan struct{}),
		taken:    make(chan struct{}),
		exited:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	p.w = newFIFO(master)
	settle := opts.Settle
	if settle < 0 {
		settle = time.Duration(1<<63 - 1) // only when the process exits
	}
	p.screen = NewScreen(ScreenOptions{Rows: rows, Cols: cols, Scrollback: opts.Scrollback, Replies: replyWriter{p.w}, Settle: settle,
		Before: opts.Before, Separator: opts.Separator, Layout: opts.Layout})
	// One agent's odd output must not end the program that runs them all:
	// a panic of this screen's model stays in it (contain.go).
	p.screen.contain, p.screen.onFault = true, opts.OnFault
	go p.output()
	go p.wait()
	return p, nil
}

// pollable returns the PTY master as a non-blocking file on Go's poller,
// so that closing it ends a blocked read or write. creack/pty hands it
// over in blocking mode.
func pollable(ptmx *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(ptmx.Fd()))
	_ = ptmx.Close()
	if err != nil {
		return nil, fmt.Errorf("dup pty: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("pty non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

// output is the output goroutine: it reads the PTY's output until it ends
// (EIO once every holder of the terminal has closed it, or the master being
// closed), feeds it to the screen and hands out the committed lines. The
// screen settles once output has been quiet for the settle time: the read
// waits that long at most. After the process exited and its output ended
// it flushes the screen, releases the PTY and closes Done.
//
// Reading and emulating in one goroutine hands nothing between goroutines
// per read; while the screen is busy (or waits for the budget), output
// waits in the PTY, whose flow control slows the program down.
func (p *Process) output() {
	defer close(p.done)
	settle := p.opts.Settle
	if settle == 0 {
		settle = DefaultSettle
	}
	buf := make([]byte, 32<<10)
	unsettled := false // output came since the screen last settled
	for {
		deadline := time.Time{}
		if unsettled && settle > 0 {
			deadline = time.Now().Add(settle)
		}
		_ = p.master.SetReadDeadline(deadline) // the master is on Go's poller (pollable)
		n, err := p.master.Read(buf)
		if n > 0 {
			c := buf[:n]
			p.lastOut.Store(time.Now().UnixNano())
			if b := p.opts.Budget; b != nil {
				b.apply(p.urgent.Load(), func() { _, _ = p.screen.Write(c) })
			} else {
				_, _ = p.screen.Write(c)
			}
			p.emit(p.screen.TakeLines())
			if p.opts.OnOutput != nil {
				p.opts.OnOutput()
			}
			unsettled = true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			unsettled = false
			p.emit(p.screen.Settle())
			continue
		}
		if err != nil {
			break
		}
	}
	close(p.readDone)
	<-p.taken // after exited: Done says the unread input is known too
	p.emit(p.screen.Flush())
	p.closeMaster()
	p.w.close()
	_ = p.screen.Close()
}

func (p *Process) emit(lines []Line) {
	if p.opts.OnLines == nil || len(lines) == 0 {
		return
	}
	p.opts.OnLines(lines)
}

func (p *Process) closeMaster() {
	p.closeM.Do(func() { _ = p.master.Close() })
}

// wait reaps the process, then ends whatever is left of its process group
// and makes sure the output goroutine finishes.
//
// What is left of the group was told already: by the hang-up of the
// terminal when its session leader ended, or by the stop's SIGTERM. It
// gets the drain's time to end on its own before SIGKILL: killing it the
// moment the leader ends would cut short what a program does on that
// first signal (an editor saving, a tool cleaning up).
func (p *Process) wait() {
	err := p.cmd.Wait()
	startMu.Lock()
	delete(started, p.pid)
	startMu.Unlock()
	p.exitedAt = time.Now()
	p.status, p.waitErr = exitStatus(p.cmd, err)
	close(p.exited)
	awaitGroup(p.pid, time.Now().Add(drainTimeout))
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	p.takeUnread()
	timer := time.NewTimer(drainTimeout)
	defer timer.Stop()
	select {
	case <-p.readDone:
	case <-timer.C:
		p.closeMaster()
	}
}

// maxUnread bounds the unread input kept: far more than a terminal
// holds (its line discipline's 4 KiB and the tty layer's 64 KiB of
// buffers), unless one write of a person's paste was under way.
const maxUnread = 1 << 20

// takeUnread reads what the terminal's input holds that no process read —
// the group is gone or killed by now — then lets go of the terminal: the
// output ends (EIO) as the last of the group closes it. Nothing is
// written from then on: a write already under way is waited for (reading
// makes room for it), so that all that was typed is either here or was
// read; one still blocked at the drain's end is cut off by closing the
// master, and the input is then unknown (what the write left may have
// been echoed, and lost).
//
// A program reading lines (canonical mode) leaves complete lines: the
// kernel echoed each as it came, read or not. A program reading keys
// echoes them itself: it read what it showed.
func (p *Process) takeUnread() {
	defer close(p.taken)
	if p.slave < 0 {
		return
	}
	defer unix.Close(p.slave)
	p.w.shut()
	deadline := time.NewTimer(drainTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(groupPoll)
	defer poll.Stop()
	var unread []byte
	buf := make([]byte, 4096)
	for {
		idle := false
		select {
		case <-p.w.done:
			idle = true
		default:
		}
		// A read finding nothing waits for what the kernel has still to
		// hand its line discipline (n_tty_read flushes it first): bytes
		// written are in the queue, or read, once it says EAGAIN.
		for {
			n, err := unix.Read(p.slave, buf)
			if n <= 0 || err != nil {
				break
			}
			if len(unread) < maxUnread {
				unread = append(unread, buf[:min(n, maxUnread-len(unread))]...)
			}
		}
		if idle {
			p.unread, p.unreadKnown = unread, true
			return
		}
		select {
		case <-p.w.done:
		case <-poll.C: // a write blocked on a full queue goes on as it is read
		case <-deadline.C:
			p.closeMaster()
			<-p.w.done
			return
		}
	}
}

// Unread returns what was typed into the terminal and read by none of the
// process's group when it ended, waiting for Done; false when swarm could
// not tell (no descriptor of its own, or a write blocked to the end).
func (p *Process) Unread() ([]byte, bool) {
	<-p.done
	return p.unread, p.unreadKnown
}

// awaitGroup waits until no live process is left in process group pgid,
// or deadline. Only the members there when it starts are watched (by pid
// and start time); what they start later ends with the caller's SIGKILL.
func awaitGroup(pgid int, deadline time.Time) {
	var members []Proc
	for _, proc := range Processes() {
		if proc.Group == pgid && proc.State != 'Z' {
			members = append(members, proc)
		}
	}
	for len(members) > 0 && time.Now().Before(deadline) {
		time.Sleep(groupPoll)
		members = slices.DeleteFunc(members, func(m Proc) bool {
			now, ok := ReadProc(m.Pid)
			return !ok || now.Start != m.Start || now.State == 'Z'
		})
	}
}

// groupPoll is how often awaitGroup looks again: /proc has no event for
// a process's end that a process other than its parent can wait on.
const groupPoll = 10 * time.Millisecond

func exitStatus(cmd *exec.Cmd, err error) (ExitStatus, error) {
	ps := cmd.ProcessState
	if ps == nil {
		return ExitStatus{Code: -1}, fmt.Errorf("wait for %s: %w", cmd.Path, err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}, nil
	}
	return ExitStatus{Code: ps.ExitCode()}, nil
}

// Write writes b to the PTY through the FIFO writer: b is written whole,
// never interleaved with another call's bytes. It returns once b is
// written, or ErrExited.
func (p *Process) Write(b []byte) error {
	return p.WriteContext(context.Background(), b)
}

// WriteContext is Write with a context. If ctx ends before b's turn comes,
// b is not written and ctx.Err() is returned; if it ends while b is being
// written (a program not reading its input), ctx.Err() is returned and the
// write still completes in the background, whole.
func (p *Process) WriteContext(ctx context.Context, b []byte) error {
	select {
	case <-p.exited:
		return ErrExited
	default:
	}
	r := &writeReq{b: bytes.Clone(b), done: make(chan error, 1)}
	if !p.w.push(r) {
		return ErrExited
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		r.state.CompareAndSwap(reqQueued, reqCancelled)
		return ctx.Err()
	}
}

// SetUrgent marks the process as one a person is watching: its output goes
// ahead of other processes' when they share a Budget.
func (p *Process) SetUrgent(urgent bool) { p.urgent.Store(urgent) }

// Screen returns the process's screen.
func (p *Process) Screen() *Screen { return p.screen }

// Resize changes the size of the PTY (the program gets SIGWINCH) and of
// the screen. After the program has exited only the screen, which a UI
// goes on showing, is resized, and the error is ErrExited.
func (p *Process) Resize(rows, cols int) error {
	rows, cols = min(max(rows, 1), 0xffff), min(max(cols, 1), 0xffff)
	p.screen.Resize(rows, cols)
	select {
	case <-p.exited:
		return ErrExited
	default:
	}
	ws := pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}
	conn, err := p.master.SyscallConn()
	if err != nil {
		return ErrExited
	}
	var ioErr error
	// Control rather than Fd: Fd would put the master back into blocking
	// mode.
	err = conn.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: ws.Rows, Col: ws.Cols})
	})
	if err != nil {
		return ErrExited
	}
	if ioErr != nil {
		return fmt.Errorf("resize pty: %w", ioErr)
	}
	return nil
}

// LineMode reports whether the program reads its terminal a line at a
// time (canonical mode: the kernel edits and echoes the line and hands it
// over at Enter, at most 4,095 bytes of it), rather than key by key as
// shells with line editing and full-screen programs do.
func (p *Process) LineMode() (bool, error) {
	conn, err := p.master.SyscallConn()
	if err != nil {
		return false, ErrExited
	}
	var t *unix.Termios
	var ioErr error
	err = conn.Control(func(fd uintptr) {
		t, ioErr = unix.IoctlGetTermios(int(fd), unix.TCGETS)
	})
	if err != nil {
		return false, ErrExited
	}
	if ioErr != nil {
		return false, fmt.Errorf("terminal mode: %w", ioErr)
	}
	return t.Lflag&unix.ICANON != 0, nil
}

// CanonicalLineMax is the longest line a program in line mode can read:
// the kernel's line buffer holds 4,096 bytes, the newline included, and
// drops what does not fit.
const CanonicalLineMax = 4095

// Signal sends sig to the process group.
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return ErrExited
	default:
	}
	if err := syscall.Kill(-p.pid, sig); err != nil {
		return fmt.Errorf("signal %d: %w", p.pid, err)
	}
	return nil
}

// Stop sends SIGTERM to the process group and SIGKILL if the process has
// not exited after grace, then waits until Done. A program that ignores
// SIGTERM — an interactive shell does — also gets SIGHUP, what its
// terminal closing would tell it (and what tmux sends a pane it kills),
// instead of waiting out the grace to be killed.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.exited:
	default:
		_ = syscall.Kill(-p.pid, syscall.SIGTERM)
		if ignoresSignal(p.pid, syscall.SIGTERM) {
			_ = syscall.Kill(-p.pid, syscall.SIGHUP)
		}
		timer := time.NewTimer(grace)
		select {
		case <-p.exited:
		case <-timer.C:
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
			<-p.exited
		}
		timer.Stop()
	}
	<-p.done
	return nil
}

// Wait waits until Done and returns how the process ended. The error is
// set only when waiting for it failed.
func (p *Process) Wait() (ExitStatus, error) {
	<-p.done
	return p.status, p.waitErr
}

// Exited is closed as soon as the process has been reaped, before the
// rest of its output is read. A write asked for from then on is refused:
// it would reach nobody.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitedAt returns when the process was reaped, waiting for Exited.
func (p *Process) ExitedAt() time.Time {
	<-p.exited
	return p.exitedAt
}

// Done is closed once the process has exited, every line of its output
// was handed to OnLines and its unread input was taken (Unread).
func (p *Process) Done() <-chan struct{} { return p.done }

// Pid returns the process id, which is also its process group id.
func (p *Process) Pid() int { return p.pid }

// LastOutput returns when the process last wrote output; zero if never.
func (p *Process) LastOutput() time.Time {
	n := p.lastOut.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// The processes of the machine, as /proc shows them (Linux), and the
// subreaper. A program an agent runs may start others that leave it: a
// daemon (setsid, a double fork) is re-parented when its parent ends,
// normally to init, beyond the reach of whoever started the agent.
// Subreaper makes this process the one they are re-parented to instead
// (PR_SET_CHILD_SUBREAPER), so that every descendant of every program it
// started stays below it, where it can be found and ended; and it reaps
// them as they end, since they are its children now.

// Proc is a process as /proc/PID/stat shows it.
type Proc struct {
	Pid, Parent, Group, Session int
	State                       byte   // R, S, D, Z (a zombie: ended, not yet reaped)…
	Start                       uint64 // when it started, in clock ticks after boot
	Name                        string // the program's name, as the kernel keeps it (15 bytes at most)
}

// ReadProc reads process pid from /proc; false when it does not exist.
func ReadProc(pid int) (Proc, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	return parseStat(pid, stat)
}

// parseStat reads the fields of /proc/PID/stat that Proc keeps. The
// name, in parentheses, may hold blanks and parentheses: the fields
// count from after its last closing parenthesis.
func parseStat(pid int, stat []byte) (Proc, bool) {
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Proc{}, false
	}
	f := strings.Fields(string(stat[end+1:]))
	if len(f) < 20 {
		return Proc{}, false
	}
	p := Proc{Pid: pid, Name: string(stat[open+1 : end])}
	var err1, err2, err3, err4 error
	p.Parent, err1 = strconv.Atoi(f[1])
	p.Group, err2 = strconv.Atoi(f[2])
	p.Session, err3 = strconv.Atoi(f[3])
	p.Start, err4 = strconv.ParseUint(f[19], 10, 64)
	if len(f[0]) != 1 || errors.Join(err1, err2, err3, err4) != nil {
		return Proc{}, false
	}
	p.State = f[0][0]
	return p, true
}

// Processes returns every process /proc shows, by pid.
func Processes() map[int]Proc {
	ents, _ := os.ReadDir("/proc")
	out := make(map[int]Proc, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := ReadProc(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// Below returns the processes of table below pid (its children, theirs…),
// not pid itself.
func Below(table map[int]Proc, pid int) []Proc {
	children := map[int][]Proc{}
	for _, p := range table {
		children[p.Parent] = append(children[p.Parent], p)
	}
	var out []Proc
	for next := []int{pid}; len(next) > 0; {
		cur := next[0]
		next = next[1:]
		for _, c := range children[cur] {
			if c.Pid != pid { // a loop only a race could show
				out = append(out, c)
				next = append(next, c.Pid)
			}
		}
	}
	return out
}

// subreaper is this process's subreaper state: how many hold it, and the
// goroutine that reaps adopted processes while any does.
var subreaper struct {
	mu    sync.Mutex
	users int
	stop  chan struct{}
	done  chan struct{}
	nudge chan struct{} // Reap
}

// Subreaper makes this process the child subreaper of the programs it
// starts, and reaps the processes it adopts as they end (a SIGCHLD wakes
// it). It is held until the release it returns is called, by as many
// callers as like; the last release reaps what has ended and stops. A
// process adopted then and still running is reaped by whoever adopts
// this process's orphans when it exits.
func Subreaper() (release func(), err error) {
	subreaper.mu.Lock()
	defer subreaper.mu.Unlock()
	if subreaper.users == 0 {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return nil, fmt.Errorf("become a child subreaper: %w", err)
		}
		subreaper.stop, subreaper.done, subreaper.nudge = make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
		go reapAdopted(subreaper.stop, subreaper.done, subreaper.nudge)
	}
	subreaper.users++
	return sync.OnceFunc(func() {
		subreaper.mu.Lock()
		defer subreaper.mu.Unlock()
		if subreaper.users--; subreaper.users > 0 {
			return
		}
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		close(subreaper.stop)
		<-subreaper.done
	}), nil
}

// Reap has the subreaper look for ended adopted processes now: one held
// by a pidfd when it ended (its SIGCHLD came and went while someone was
// about to wait for it) is reaped once the pidfd is closed.
func Reap() {
	subreaper.mu.Lock()
	defer subreaper.mu.Unlock()
	if subreaper.users > 0 {
		select {
		case subreaper.nudge <- struct{}{}:
		default:
		}
	}
}

// reapAdopted reaps, at each SIGCHLD (or Reap), the adopted processes
// that ended, until stop closes.
func reapAdopted(stop, done, nudge chan struct{}) {
	defer close(done)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGCHLD)
	defer signal.Stop(sig)
	for {
		reapZombies()
		select {
		case <-sig:
		case <-nudge:
		case <-stop:
			reapZombies()
			return
		}
	}
}

// started holds the programs Start started, whose end Process.wait reaps;
// startMu is held while one starts, so that the reaper never takes a
// program that ended the moment it started for an adopted one.
var (
	startMu sync.Mutex
	started = map[int]bool{}
)

// Running returns the pids of the programs Start started that have not
// been waited for yet.
func Running() []int {
	startMu.Lock()
	defer startMu.Unlock()
	out := make([]int, 0, len(started))
	for pid := range started {
		out = append(out, pid)
	}
	return out
}

// reapZombies reaps this process's children that have ended and that
// nobody else in it waits for: not a program Start started, nor a child
// os/exec waits for. Go's os/exec holds a pidfd for each child it
// started until it has waited for it, so a child held by no pidfd is an
// adopted one. Where Go cannot use pidfds, an adopted one is told by its
// session: every program swarm starts leads a session of its own, and a
// process that left one never joins this process's.
func reapZombies() {
	self := os.Getpid()
	var zombies []Proc
	for _, p := range Processes() {
		if p.Parent == self && p.State == 'Z' {
			zombies = append(zombies, p)
		}
	}
	if len(zombies) == 0 {
		return
	}
	startMu.Lock()
	defer startMu.Unlock()
	held, pidfds := heldByPidfd()
	own, _ := ReadProc(self)
	for _, z := range zombies {
		if started[z.Pid] || held[z.Pid] || !pidfds && z.Session == own.Session {
			continue
		}
		var ws unix.WaitStatus
		_, _ = unix.Wait4(z.Pid, &ws, unix.WNOHANG, nil)
	}
}

// heldByPidfd returns the pids this process holds a pidfd of, and whether
// os/exec uses pidfds here at all.
func heldByPidfd() (map[int]bool, bool) {
	if !pidfdsWork() {
		return nil, false
	}
	held := map[int]bool{}
	fds, _ := os.ReadDir("/proc/self/fdinfo")
	for _, fd := range fds {
		b, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue
		}
		// A pidfd's fdinfo has a "Pid:" line, and no other file's does.
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					held[pid] = true
				}
			}
		}
	}
	return held, true
}

// pidfdsWork tells whether Go's os/exec waits for its children through
// pidfds here (Linux 5.4 on), by the checks it makes itself.
var pidfdsWork = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var info unix.Siginfo
	err = unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil)
	return errors.Is(err, unix.ECHILD) && unix.PidfdSendSignal(fd, 0, nil, 0) == nil
})

// ignoresSignal reports whether process pid ignores sig, from the SigIgn
// mask of /proc/PID/status; false when that cannot be read.
func ignoresSignal(pid int, sig syscall.Signal) bool {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(status)) {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}
