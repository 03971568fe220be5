package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A swarm that serves the bus directory already is the one attached to,
// since its socket was made; nothing is started.
func TestStartFindsTheRunningSwarm(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	startSwarm(t, busDir)
	before := time.Now()
	s, err := Start(context.Background(), busDir, "swarm test", t.TempDir(), "/nonexistent/swarm", "up", "--server")
	if err != nil {
		t.Fatal(err)
	}
	if s.Since.IsZero() || s.Since.After(before) || s.proc != nil {
		t.Fatalf("started %+v, want the running swarm (since before %s)", s, before)
	}
	if err := s.Abandon(); !errorsContain(err, "the swarm runs on") {
		t.Fatalf("abandoning a swarm that was running: %v", err)
	}
}

// An interrupt that comes while the running swarm is still being asked
// (ctrl+c in the first moments of swarm) leaves it running, and says so.
func TestStartInterruptedWhileAskingTheRunningSwarm(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	startSwarm(t, busDir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Start(ctx, busDir, "swarm test", t.TempDir(), "/nonexistent/swarm", "up", "--server")
	if err == nil || s.proc != nil {
		t.Fatalf("an interrupted start: %+v %v", s, err)
	}
	if err := s.Abandon(); !errorsContain(err, "the swarm runs on") {
		t.Fatalf("abandoning a swarm that was running: %v", err)
	}
}

// A server that ends at once is an error with the last line it printed,
// not a wait for its socket.
//
// Not parallel: a swarm run in this test process ends, at its shutdown,
// what it finds below the process that no agent of another swarm here
// owns — the server this test starts in a session of its own would be
// among it.
func TestStartSaysWhyTheServerEnded(t *testing.T) {
	busDir := filepath.Join(t.TempDir(), ".swarm")
	_, err := Start(context.Background(), busDir, "swarm test", t.TempDir(), "/bin/sh", "-c", `echo starting; echo "swarm: swarm.toml: no agents" >&2; exit 2`)
	if want := "the server ended at once (exit status 2): swarm.toml: no agents"; !errorsContain(err, want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
