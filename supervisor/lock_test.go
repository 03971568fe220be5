package supervisor

import (
	"errors"
	"os"
	"sync"
	"testing"
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
