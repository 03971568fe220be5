package server

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
	"swarm/swarmapi"
	"swarm/wire"
)

// heldSwarm is a supervisor of one agent, a, not started yet, served by a
// Held socket in a temporary bus directory.
func heldSwarm(t *testing.T) (*supervisor.Supervisor, *Server, string) {
	t.Helper()
	dir := t.TempDir()
	busDir := filepath.Join(dir, ".swarm")
	b, err := bus.Open(bus.Options{Dir: busDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	log := slog.New(slog.DiscardHandler)
	cfg := &supervisor.Config{
		Quiet:     supervisor.DefaultQuiet,
		Heartbeat: supervisor.HeartbeatConfig{Warn: supervisor.DefaultWarn, Stale: supervisor.DefaultStale, Dead: supervisor.DefaultDead},
		Agents:    []supervisor.AgentConfig{{Name: "a", Argv: []string{"sh", "-c", "exec sleep 100"}, Dir: dir, Restart: supervisor.RestartNever}},
	}
	sup, err := supervisor.New(supervisor.Options{Config: cfg, Bus: b, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Shutdown(context.Background()) })
	srv, err := Listen(busDir, sup, Options{Program: "swarm test", Log: log, Bus: b, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return sup, srv, busDir
}

// A Held socket takes a client before the agents start, and answers its
// requests once they have: a request made meanwhile is told of the agents
// started, not of a swarm without agents.
func TestAHeldSocketAnswersOnceTheAgentsStarted(t *testing.T) {
	t.Parallel()
	sup, srv, busDir := heldSwarm(t)
	ctx, cancel := context.WithTimeout(context.Background(), testrun.Patience)
	defer cancel()
	r, err := Attach(ctx, busDir, "swarm test client")
	if err != nil {
		t.Fatalf("a client dialing before the agents start: %v", err)
	}
	defer r.Close()
	answer := make(chan []swarmapi.AgentInfo, 1)
	go func() { answer <- r.Agents() }()
	if err := sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.Open(nil)
	select {
	case agents := <-answer:
		if len(agents) != 1 || agents[0].Name != "a" {
			t.Fatalf("the request made before the agents started was answered with %+v, want agent a", agents)
		}
	case <-time.After(testrun.Patience):
		t.Fatal("no answer after Open")
	}
}

// A Held socket closed before its agents start (the swarm failed to start
// them) ends its clients' requests instead of leaving them waiting.
func TestAHeldSocketClosedEndsItsWaitingRequests(t *testing.T) {
	t.Parallel()
	_, srv, busDir := heldSwarm(t)
	ctx, cancel := context.WithTimeout(context.Background(), testrun.Patience)
	defer cancel()
	cl, err := Dial(ctx, busDir, "swarm test client")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	failed := make(chan error, 1)
	go func() { failed <- cl.call(ctx, wire.Agents.Name, wire.None{}, new([]swarmapi.AgentInfo)) }()
	srv.Close()
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("a request to a socket closed before its agents started was answered")
		}
	case <-ctx.Done():
		t.Fatal("a request still waits on a socket closed before its agents started")
	}
}
