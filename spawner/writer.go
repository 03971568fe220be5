package spawner

import (
	"io"
	"sync"
	"sync/atomic"
)

// maxReplyBacklog bounds the emulator replies waiting for the PTY. A
// program that floods terminal queries without reading its input loses
// replies beyond it rather than growing memory.
const maxReplyBacklog = 64 << 10

const (
	reqQueued int32 = iota
	reqStarted
	reqCancelled
)

type writeReq struct {
	b     []byte
	done  chan error // nil for replies: nobody waits for them
	state atomic.Int32
}

// fifo is the single writer of a PTY: requests are written whole, one
// after the other, in the order they were queued.
type fifo struct {
	w       io.Writer
	mu      sync.Mutex
	queue   []*writeReq
	backlog int // bytes of replies queued
	closed  bool
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

func newFIFO(w io.Writer) *fifo {
	f := &fifo{w: w, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go f.run()
	return f
}

// push queues a request; false when the writer is closed.
func (f *fifo) push(r *writeReq) bool {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return false
	}
	if r.done == nil {
		if f.backlog+len(r.b) > maxReplyBacklog {
			f.mu.Unlock()
			return true // dropped
		}
		f.backlog += len(r.b)
	}
	f.queue = append(f.queue, r)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
	return true
}

func (f *fifo) pop() *writeReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queue) == 0 {
		return nil
	}
	r := f.queue[0]
	f.queue[0] = nil
	f.queue = f.queue[1:]
	if r.done == nil {
		f.backlog -= len(r.b)
	}
	return r
}

func (f *fifo) run() {
	defer close(f.done)
	for {
		select {
		case <-f.stop:
			f.fail()
			return
		default:
		}
		r := f.pop()
		if r == nil {
			select {
			case <-f.wake:
				continue
			case <-f.stop:
				f.fail()
				return
			}
		}
		if !r.state.CompareAndSwap(reqQueued, reqStarted) {
			continue // cancelled while queued
		}
		_, err := f.w.Write(r.b)
		if err != nil {
			err = ErrExited
		}
		if r.done != nil {
			r.done <- err
		}
		if err != nil {
			f.fail()
			return
		}
	}
}

// fail closes the writer and fails everything still queued.
func (f *fifo) fail() {
	f.mu.Lock()
	f.closed = true
	q := f.queue
	f.queue = nil
	f.mu.Unlock()
	for _, r := range q {
		if r.done != nil && r.state.CompareAndSwap(reqQueued, reqStarted) {
			r.done <- ErrExited
		}
	}
}

// close stops the writer once it is idle or its write fails (the caller
// closes the PTY to end a blocked write) and waits for it.
func (f *fifo) close() {
	f.shut()
	<-f.done
}

// shut is close without the wait: done closes once a write under way
// ended; what is queued fails.
func (f *fifo) shut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
}

// replyWriter queues the emulator's replies without waiting for them.
type replyWriter struct{ f *fifo }

func (r replyWriter) Write(b []byte) (int, error) {
	r.f.push(&writeReq{b: append([]byte(nil), b...)})
	return len(b), nil
}
