package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxSocketPath is what a socket's path may take of sun_path (108 bytes
// on Linux, with its NUL).
const maxSocketPath = 107

var errConnRefused = syscall.ECONNREFUSED

// listenUnix listens on path. A path too long for a socket address (a
// project deep in the file system) is reached through the directory's
// file descriptor: /proc/self/fd/N/swarm.sock is short.
func listenUnix(path string) (net.Listener, error) {
	var ln *net.UnixListener
	err := viaShortPath(path, func(p string) error {
		var err error
		ln, err = net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
		return err
	})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false) // the short path ends with its descriptor: Close removes the file by its own path
	return ln, nil
}

func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	var c net.Conn
	err := viaShortPath(path, func(p string) error {
		var d net.Dialer
		var err error
		c, err = d.DialContext(ctx, "unix", p)
		return err
	})
	return c, err
}

// viaShortPath calls fn with path, or with a short path to the same file
// when path is too long for a socket address.
func viaShortPath(path string, fn func(string) error) error {
	if len(path) <= maxSocketPath {
		return fn(path)
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	short := fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	if len(short) > maxSocketPath {
		return errors.New("socket path too long")
	}
	return fn(short)
}

// sameUser refuses a peer that runs as another user, and returns its pid.
func sameUser(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, credErr
	}
	if int(cred.Uid) != os.Getuid() {
		return 0, fmt.Errorf("peer pid %d runs as uid %d, not %d", cred.Pid, cred.Uid, os.Getuid())
	}
	return int(cred.Pid), nil
}
