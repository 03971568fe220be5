package supervisor

import (
	"bufio"
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

// DefaultLogMax is the size at which an agent's log is rotated.
const DefaultLogMax = 8 << 20

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
	f    *os.File
	w    *bufio.Writer
	size int64
	err  error // the first failure; logging stops, the agent goes on
}

func openAgentLog(path string, max int64) *agentLog {
	l := &agentLog{path: path, max: max}
	l.err = l.open()
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
	l.f, l.w, l.size = f, bufio.NewWriterSize(f, 32<<10), st.Size()
	return nil
}

// line appends one line.
func (l *agentLog) line(text string) {
	if l == nil || l.err != nil {
		return
	}
	if l.size+int64(len(text))+1 > l.max && l.size > 0 {
		l.err = l.rotate()
		if l.err != nil {
			return
		}
	}
	n, err := l.w.WriteString(text)
	if err == nil {
		err = l.w.WriteByte('\n')
		n++
	}
	l.size += int64(n)
	l.err = err
}

// mark appends a line of swarm's own about the process.
func (l *agentLog) mark(format string, args ...any) {
	l.line(fmt.Sprintf("── %s %s ──", time.Now().Format(time.DateTime), fmt.Sprintf(format, args...)))
}

func (l *agentLog) rotate() error {
	if err := l.close(); err != nil {
		return err
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return l.open()
}

// flush writes what is buffered to the file.
func (l *agentLog) flush() {
	if l == nil || l.err != nil {
		return
	}
	l.err = l.w.Flush()
}

func (l *agentLog) close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(l.w.Flush(), l.f.Close())
	l.f, l.w = nil, nil
	return err
}

// logPath is where the agent called name logs its output.
func (s *Supervisor) logPath(name string) string {
	return LogPath(s.busDir(), name)
}
