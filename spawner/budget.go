package spawner

import (
	"sync"
	"time"
)

// Budget shares the CPU that terminal emulation may use among processes.
// At most Slots chunks of output are applied to screens at once, and work
// for processes that are not urgent may keep the slots busy for at most
// Duty of the time: once it has used its share of a 100 ms window, the
// slots rest until the window ends. When output arrives faster than that,
// the rest waits in the PTYs and the programs writing it are slowed down by
// the terminal's flow control, as a real terminal that cannot keep up slows
// them. Urgent processes (the one a person watches or types into) are
// served first and may use a resting slot, so their screens keep up however
// busy the others are.
type Budget struct {
	mu      sync.Mutex
	free    int
	resting int // slots resting until the window ends
	share   time.Duration
	winEnd  time.Time     // end of the current window
	busy    time.Duration // non-urgent work in the current window
	urgent  []chan struct{}
	waiting []chan struct{}
}

// budgetWindow is the period over which Duty is kept.
const budgetWindow = 100 * time.Millisecond

// NewBudget returns a budget of slots concurrent chunks (at least 1) of
// which non-urgent work may use duty (0 < duty ≤ 1) of the time.
func NewBudget(slots int, duty float64) *Budget {
	slots = max(slots, 1)
	b := &Budget{free: slots}
	if duty > 0 && duty < 1 {
		b.share = time.Duration(duty * float64(slots) * float64(budgetWindow))
	}
	return b
}

// acquire waits for a slot.
func (b *Budget) acquire(urgent bool) {
	b.mu.Lock()
	switch {
	case b.free > 0:
		b.free--
		b.mu.Unlock()
		return
	case urgent && b.resting > 0:
		b.resting-- // wake finds one slot fewer to hand over
		b.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	if urgent {
		b.urgent = append(b.urgent, ch)
	} else {
		b.waiting = append(b.waiting, ch)
	}
	b.mu.Unlock()
	<-ch // the slot is handed over by release or wake
}

// release gives back a slot that was used for busy: to the next waiter,
// unless non-urgent work has used its share of the window, in which case
// the slot rests (urgent waiters still get it at once).
func (b *Budget) release(urgent bool, busy time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if urgent && b.share > 0 && len(b.urgent) == 0 && b.busy >= b.share && now.Before(b.winEnd) {
		// It came from a resting slot (or the window is resting anyway):
		// the slot goes back to rest rather than to waiting non-urgent work.
		b.resting++
		return
	}
	if b.share == 0 || urgent {
		b.handOver()
		return
	}
	if now.After(b.winEnd) {
		b.winEnd, b.busy = now.Add(budgetWindow), 0
	}
	b.busy += busy
	if b.busy < b.share || len(b.urgent) > 0 {
		b.handOver()
		return
	}
	b.resting++
	if b.resting == 1 {
		time.AfterFunc(b.winEnd.Sub(now), b.wake)
	}
}

// wake ends the window's rest: resting slots go to waiters or are freed.
func (b *Budget) wake() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.winEnd, b.busy = time.Now().Add(budgetWindow), 0
	for ; b.resting > 0; b.resting-- {
		b.handOver()
	}
}

// handOver passes a slot to the next waiter, urgent ones first, or frees
// it. b.mu is held.
func (b *Budget) handOver() {
	for _, q := range []*[]chan struct{}{&b.urgent, &b.waiting} {
		if len(*q) > 0 {
			ch := (*q)[0]
			*q = (*q)[1:]
			close(ch)
			return
		}
	}
	b.free++
}

// apply runs f holding a slot.
func (b *Budget) apply(urgent bool, f func()) {
	b.acquire(urgent)
	start := time.Now()
	f()
	b.release(urgent, time.Since(start))
}
