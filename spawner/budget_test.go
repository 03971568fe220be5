package spawner

import (
	"sync"
	"testing"
	"time"

	"swarm/internal/testrun"
)

func TestBudgetServesUrgentFirstAndBoundsConcurrency(t *testing.T) {
	b := NewBudget(1, 1)
	b.acquire(false) // held by "someone busy"
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	start := func(name string, urgent bool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.acquire(urgent)
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			b.release(urgent, 0)
		}()
	}
	queued := func(n int) {
		got := 0
		if !testrun.Poll(testrun.Patience, func() bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			got = len(b.urgent) + len(b.waiting)
			return got == n
		}) {
			t.Fatalf("%d waiters, want %d", got, n)
		}
	}
	start("busy-1", false)
	queued(1)
	start("busy-2", false)
	queued(2)
	start("watched", true)
	queued(3)
	b.release(false, 0)
	wg.Wait()
	if want := []string{"watched", "busy-1", "busy-2"}; len(order) != 3 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Errorf("order %v, want %v", order, want)
	}
	if b.free != 1 {
		t.Errorf("%d free slots after everyone released, want 1", b.free)
	}
}

func TestBudgetRestsOnceTheShareIsUsedButNotForUrgent(t *testing.T) {
	b := NewBudget(1, 0.5) // 50 ms of work per 100 ms window
	b.acquire(false)
	b.release(false, 10*time.Millisecond) // within the share: handed on
	b.mu.Lock()
	if b.free != 1 || b.resting != 0 {
		t.Errorf("within the share: free %d, resting %d", b.free, b.resting)
	}
	b.mu.Unlock()
	b.acquire(false)
	b.release(false, time.Hour) // over the share: the slot rests
	b.mu.Lock()
	if b.free != 0 || b.resting != 1 {
		t.Errorf("over the share: free %d, resting %d; want it resting", b.free, b.resting)
	}
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		b.acquire(true) // an urgent process takes the resting slot at once
		b.release(true, time.Hour)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testrun.Patience):
		t.Fatal("an urgent process waited for a resting slot")
	}
	waited := make(chan struct{})
	go func() {
		b.acquire(false)
		close(waited)
		b.release(false, 0)
	}()
	select {
	case <-waited: // after the window's rest, or at once if the slot was free
	case <-time.After(testrun.Patience):
		t.Fatal("the rest never ended")
	}
}
