package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Each agent's output is kept on disk as plain text, across its restarts:
// .swarm/logs/NAME.log holds the lines its screen committed (what the
// relay parser reads), with a line where each process starts and ends.
// At Options.LogMax bytes the file moves to NAME.log.1 (replacing the one
// before) and a new one starts. `swarm logs NAME` prints it.
//
// A write that fails (a full disk, a file size limit) does not end the
// log: the lines wait in memory (up to logHold bytes; those past it are
// counted) and the write is tried again each logRetry while output comes,
// until it works (into the file at the log's path then: it may have been
// removed to make room); then a line in the log says how many were lost. The
// agent's screen goes on meanwhile. The person is told when it starts
// failing and when it works again (a notice: the UI's status line), and
// `swarm status` shows the problem while it lasts (AgentInfo.LogProblem).

// DefaultLogMax is the size at which an agent's log is rotated.
const DefaultLogMax = 8 << 20

const (
	logBuffer = 32 << 10        // lines are written once this much waits (or the agent pauses)
	logHold   = 1 << 20         // what waits while writes fail; lines past it are lost, counted
	logRetry  = 1 * time.Second // between tries of a write that failed
)

// LogPath is where the output of the agent called name is logged, for the
// bus in busDir.
func LogPath(busDir, name string) string {
	return filepath.Join(busDir, "logs", name+".log")
}

// agentLog appends one agent's lines to its log file. It is used by one
// goroutine at a time: the pump of the agent's current process, and the
// lifecycle between processes.
type agentLog struct {
	path string
	max  int64
	f    *os.File // nil while the file cannot be opened
	buf  []byte   // lines not yet written
	size int64    // the file's size, with buf

	// report tells of a failure ("" when writing works again) with the
	// words for a person.
	report  func(problem, notice string)
	err     error     // the failure writing waits out; nil when it works
	retryAt time.Time // the next try while err is set
	lost    int       // lines lost (past logHold) while err was set
	gap     int       // where in buf they were lost: a line there will say so
}

func openAgentLog(path string, max int64, report func(problem, notice string)) *agentLog {
	l := &agentLog{path: path, max: max, report: report}
	if err := l.open(); err != nil {
		l.failed(err)
	}
	return l
}

func (l *agentLog) open() error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, st.Size()+int64(len(l.buf))
	return nil
}

// line appends one line.
func (l *agentLog) line(text string) {
	if l == nil {
		return
	}
	if l.size+int64(len(text))+1 > l.max && l.size > 0 && l.write() {
		l.rotate()
	}
	if l.err != nil && len(l.buf)+len(text)+1 > logHold {
		if l.lost == 0 {
			l.gap = len(l.buf)
		}
		l.lost++
		return
	}
	l.buf = append(append(l.buf, text...), '\n')
	l.size += int64(len(text)) + 1
	if len(l.buf) >= logBuffer {
		l.write()
	}
}

// mark appends a line of swarm's own about the process.
func (l *agentLog) mark(format string, args ...any) {
	l.line(markText(format, args...))
}

func markText(format string, args ...any) string {
	return fmt.Sprintf("── %s %s ──", time.Now().Format(time.DateTime), fmt.Sprintf(format, args...))
}

// rotate moves the log to NAME.log.1 and starts a new one; everything
// has been written.
func (l *agentLog) rotate() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		l.failed(err)
		return
	}
	l.size = 0
	if err := l.open(); err != nil {
		l.failed(err)
	}
}

// write writes what waits, unless a failure's retry is not due; it
// reports whether everything has been written.
func (l *agentLog) write() bool {
	if len(l.buf) == 0 && l.err == nil {
		return true
	}
	if l.err != nil && time.Now().Before(l.retryAt) {
		return false
	}
	if l.err != nil && l.f != nil {
		// A retry opens the file anew: it may have been removed to make
		// room, and the lines go to the file that is there now.
		l.f.Close()
		l.f = nil
	}
	if l.f == nil {
		if err := l.open(); err != nil {
			l.failed(err)
			return false
		}
	}
	lost := l.lost
	if lost > 0 {
		// The lines held before the lost ones, then a line saying how
		// many were lost, then those that came after.
		if !l.writeOut(l.gap) {
			return false
		}
		if _, err := l.f.WriteString(markText("%d lines were not logged here (%s)", lost, errText(l.err)) + "\n"); err != nil {
			l.failed(err)
			return false
		}
		l.lost = 0
	}
	if !l.writeOut(len(l.buf)) {
		return false
	}
	if l.err != nil {
		l.recovered(lost)
	}
	return true
}

// writeOut writes the first n bytes of buf.
func (l *agentLog) writeOut(n int) bool {
	w, err := l.f.Write(l.buf[:n])
	l.buf = l.buf[:copy(l.buf, l.buf[w:])]
	l.gap -= w
	if err != nil {
		l.failed(err)
		return false
	}
	return true
}

// failed notes that writing failed with err, and tells the person the
// first time.
func (l *agentLog) failed(err error) {
	l.retryAt = time.Now().Add(logRetry)
	if l.err != nil {
		l.err = err
		return
	}
	l.err = err
	if l.report != nil {
		l.report(fmt.Sprintf("its log cannot be written (%v); retrying", errText(err)),
			fmt.Sprintf("its log %s cannot be written (%v): its output waits in memory and is written when it can be; the screen goes on", l.path, errText(err)))
	}
}

// recovered notes that writing works again, and tells the person.
func (l *agentLog) recovered(lost int) {
	notice := "its log is written again"
	if lost > 0 {
		notice += fmt.Sprintf(" (%d lines were lost: %s)", lost, errText(l.err))
	}
	l.err = nil
	if l.report != nil {
		l.report("", notice)
	}
}

// errText is err's cause as the system says it ("no space left on
// device"), without the path.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// flush writes what is buffered to the file; true when some of it still
// waits for a failure's retry.
func (l *agentLog) flush() (waiting bool) {
	if l == nil {
		return false
	}
	return !l.write()
}

// close writes what waits (trying once more even before its retry is
// due) and closes the file; its error says what was lost.
func (l *agentLog) close() error {
	if l == nil {
		return nil
	}
	l.retryAt = time.Time{}
	l.write()
	var err error
	if len(l.buf) > 0 || l.lost > 0 {
		err = fmt.Errorf("%d bytes and %d lines of output were not logged: %w", len(l.buf), l.lost, l.err)
	}
	if l.f != nil {
		err = errors.Join(err, l.f.Close())
		l.f = nil
	}
	return err
}

// logProblem is what the agent's log tells when writing it fails
// (problem, for AgentInfo.LogProblem) and when it works again (problem
// ""): the person gets the notice.
func (a *agent) logProblem(problem, notice string) {
	a.mu.Lock()
	a.logErr = problem
	a.mu.Unlock()
	a.s.log.Warn("agent log", "agent", a.cfg.Name, "problem", problem, "notice", notice)
	a.s.hub.emit(Event{Kind: EventNotice, Agent: a.cfg.Name, Text: notice})
}

// logPath is where the agent called name logs its output.
func (s *Supervisor) logPath(name string) string {
	return LogPath(s.busDir(), name)
}
