package supervisor

import (
	"sync"
	"time"
)

// Subscription receives a supervisor's events until Close.
type Subscription struct {
	c    chan Event
	hub  *hub
	mu   sync.Mutex
	q    []Event
	dirt map[string]bool // agents with an unsent screen notice
	wake chan struct{}
	done chan struct{}
	wg   sync.WaitGroup
}

// Events returns the channel events arrive on. It is closed after Close.
func (s *Subscription) Events() <-chan Event { return s.c }

// Close ends the subscription and waits for its goroutine.
func (s *Subscription) Close() {
	s.hub.remove(s)
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if ev.Kind == EventScreen {
		s.dirt[ev.Agent] = true
	} else {
		s.q = append(s.q, ev)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued event; screen notices come after the queue
// is empty so that they never delay a lifecycle or delivery event.
func (s *Subscription) next() (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.q) > 0 {
		ev := s.q[0]
		s.q[0] = Event{}
		s.q = s.q[1:]
		return ev, true
	}
	for name := range s.dirt {
		delete(s.dirt, name)
		return Event{Kind: EventScreen, Agent: name, Time: time.Now()}, true
	}
	return Event{}, false
}

func (s *Subscription) run() {
	defer s.wg.Done()
	defer close(s.c)
	for {
		ev, ok := s.next()
		if !ok {
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		select {
		case s.c <- ev:
		case <-s.done:
			return
		}
	}
}

// hub fans events out to subscriptions.
type hub struct {
	mu   sync.Mutex
	subs map[*Subscription]bool
}

func (h *hub) subscribe() *Subscription {
	s := &Subscription{
		c:    make(chan Event),
		hub:  h,
		dirt: map[string]bool{},
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[*Subscription]bool{}
	}
	h.subs[s] = true
	h.mu.Unlock()
	s.wg.Add(1)
	go s.run()
	return s
}

func (h *hub) remove(s *Subscription) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

func (h *hub) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.push(ev)
	}
}
