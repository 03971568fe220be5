package supervisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"swarm/bus"
)

// A probe (swarm status, swarm up, the MCP server asking whether a swarm
// runs) holds the lock for a moment; a swarm starting in that moment must
// not take the probe for a running swarm.
func TestASwarmStartsPastProbesOfItsLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stop := make(chan struct{})
	var probes sync.WaitGroup
	probes.Add(1)
	go func() {
		defer probes.Done()
		for {
			select {
			case <-stop:
				return
			default:
				SwarmRunning(dir)
			}
		}
	}()
	defer func() { close(stop); probes.Wait() }()
	for range 200 {
		l, err := lockDir(dir)
		if err != nil {
			t.Fatalf("lock with only probes about: %v", err)
		}
		if pid, running := SwarmRunning(dir); !running || pid != os.Getpid() {
			t.Fatalf("SwarmRunning = %d, %v while this process holds the lock", pid, running)
		}
		l.release()
	}
	held, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	if _, err := lockDir(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock: %v, want ErrLocked", err)
	}
}

// A swarm that serves its socket takes the bus's lock before its agents
// start (Lock, then Start): while it holds it another swarm is refused, and
// one that never started its agents lets it go at Shutdown.
func TestLockBeforeStartHoldsTheBus(t *testing.T) {
	t.Parallel()
	b, err := bus.Open(bus.Options{Dir: filepath.Join(t.TempDir(), ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first, err := New(Options{Config: &Config{}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Lock(); err != nil {
		t.Fatal(err)
	}
	if _, running := SwarmRunning(b.Dir()); !running {
		t.Error("SwarmRunning says no swarm holds the bus after Lock")
	}
	second, err := New(Options{Config: &Config{}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Start(context.Background()); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second swarm's Start while the first holds the lock: %v, want ErrLocked", err)
	}
	if err := first.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, running := SwarmRunning(b.Dir()); running {
		t.Error("the lock is still held after Shutdown of a swarm that never started")
	}
	third, err := New(Options{Config: &Config{}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := third.Start(context.Background()); err != nil {
		t.Fatalf("Start after the first swarm let the lock go: %v", err)
	}
	if err := third.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
