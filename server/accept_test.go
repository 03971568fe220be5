package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"swarm/internal/testrun"
)

// After the server ran out of descriptors once, it stopped accepting for
// good and swarm stop timed out: accept errors are waited out, and the
// server answers again once descriptors are free.
func TestTheServerAcceptsAgainAfterDescriptorsRunOut(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	server := startServer(t, busDir)
	pid := server.pid
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	// A few descriptors more than it holds now.
	var was unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &was); err != nil {
		t.Fatal(err)
	}
	limit := unix.Rlimit{Cur: uint64(len(fds) + 4), Max: was.Max} // the hard limit kept, to give the soft one back
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &limit, nil); err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for range 40 {
		c, err := net.Dial("unix", filepath.Join(busDir, SocketName))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// Out of them: with 40 connections waiting, an accept fails, and the
	// server says so.
	testrun.Within(t, testrun.Patience, "the server out of descriptors", func() bool {
		return strings.Contains(server.log.String(), "too many open files")
	})
	for _, c := range conns {
		c.Close()
	}
	// Descriptors free again, as when whatever held them ends: the limit
	// back (at the limit, the server could not read who connects, in
	// /proc, and would refuse the stop below as from someone unknown).
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &was, nil); err != nil {
		t.Fatal(err)
	}
	testrun.Within(t, testrun.Patience, "the server answering again", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cl, err := Dial(ctx, busDir, "swarm test")
		if err != nil {
			return false
		}
		cl.Close()
		return true
	})
	if log := server.log.String(); !strings.Contains(log, "cannot accept a connection; trying again") || !strings.Contains(log, "too many open files") {
		t.Errorf("the server's log does not say it ran out of descriptors:\n%s", log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Stop(ctx, busDir, "swarm test"); err != nil {
		t.Fatalf("swarm stop: %v", err)
	}
	select {
	case <-server.exited:
		if server.err != nil {
			t.Fatalf("the server after stop: %v\n%s", server.err, server.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server runs on after swarm stop")
	}
}

// The server serves as many connections as it takes, refuses the next
// in words, and serves again when one ends; a refused connection may
// still stop the swarm.
func TestConnectionsAreCapped(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	stopped := make(chan struct{})
	var sw *testSwarm
	sw, err := runSwarm(busDir, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), func() {
		close(stopped)
		go sw.close()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-stopped:
		default:
			sw.close()
		}
	})
	ctx := context.Background()
	var clients []*Client
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	for range maxConns {
		cl, err := Dial(ctx, busDir, "swarm test")
		if err != nil {
			t.Fatalf("connection %d: %v", len(clients)+1, err)
		}
		clients = append(clients, cl)
	}
	_, err = Dial(ctx, busDir, "swarm test")
	if want := "refused the connection: it serves 128 connections already"; !errorsContain(err, want) {
		t.Fatalf("connection %d: %v, want %q", maxConns+1, err, want)
	}
	clients[0].Close()
	clients = clients[1:]
	testrun.Within(t, testrun.Patience, "a connection served again", func() bool {
		cl, err := Dial(ctx, busDir, "swarm test")
		if err != nil {
			return false
		}
		clients = append(clients, cl)
		return true
	})
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := Stop(sctx, busDir, "swarm test"); err != nil {
		t.Fatalf("swarm stop with every connection taken: %v", err)
	}
	<-stopped
}

// A client that connects and says nothing is dropped after the
// handshake's time: it cannot hold a connection, nor its memory.
func TestAClientThatSaysNothingIsDropped(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	startSwarm(t, busDir)
	c, err := net.Dial("unix", filepath.Join(busDir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(3 * handshakeTimeout))
	_, err = c.Read(make([]byte, 1))
	if !errors.Is(err, io.EOF) {
		t.Fatalf("a silent client's connection: %v, want it closed by the server", err)
	}
}
