package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrLocked means another swarm already runs agents on the same bus.
var ErrLocked = errors.New("another swarm is running on this bus")

// dirLock is an exclusive advisory lock on <bus dir>/swarm.lock: two
// swarms delivering from one bus would type every message twice.
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, "swarm.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flockExclusive(f); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			const what = "swarm attach shows it, swarm stop ends it"
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b[:n]))); perr == nil {
				return nil, fmt.Errorf("%w (pid %d, %s): %s", ErrLocked, pid, dir, what)
			}
			return nil, fmt.Errorf("%w (%s): %s", ErrLocked, dir, what)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &dirLock{f: f}, nil
}

// flockExclusive takes f's exclusive lock without waiting for a swarm that
// holds it, but past a SwarmRunning probe: a probe holds a shared lock for
// a moment, and a swarm starting in that moment must not take it for a
// running one.
func flockExclusive(f *os.File) error {
	const tries = 20
	for i := 1; ; i++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || i == tries {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (l *dirLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
	l.f = nil
}

// SwarmRunning reports whether a swarm runs on the bus in dir (it holds
// the bus's lock), and its pid when known: 0 for a swarm that has taken
// the lock and not yet written its pid.
func SwarmRunning(dir string) (pid int, running bool) {
	f, err := os.Open(filepath.Join(dir, "swarm.lock"))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, false
	}
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid, true
}
