package supervisor

import (
	"sync"
	"time"

	"swarm/bus"
	"swarm/games"
)

// EventKind says what an Event reports.
type EventKind int

// Event kinds. Every kind except EventScreen is delivered to every
// subscriber, in order, without loss; EventScreen notices are coalesced per
// agent because a UI only needs to know that a pane changed, not how often.
const (
	EventAgentStarted    EventKind = iota // a process started (Agent, Pid)
	EventAgentExited                      // a process ended (Agent, ExitCode, Text = how)
	EventAgentRestarting                  // a restart is scheduled (Agent, Text = after how long)
	EventAgentGaveUp                      // restart policy exhausted (Agent, Text = reason)
	EventAgentStopped                     // stopped on request (Agent)
	EventMessage                          // a message was published (Message)
	EventDelivered                        // a delivery was confirmed (Message, Agent = recipient)
	EventDeliveryFailed                   // a delivery failed for good (Message, Agent = recipient, Text = reason)
	EventTask                             // a task transition (Task as it left it, TaskEvent)
	EventLevel                            // an agent's liveness level changed (Agent, Level)
	EventGame                             // a game move or result (Game)
	EventNotice                           // something a person should see (Agent, Text), e.g. a refused command
	EventScreen                           // an agent's screen changed (Agent); coalesced
	EventUnconfirmed                      // a message was typed in but not seen taken (Message, Agent = recipient, Text = why)
	EventHeld                             // messages wait for a person to finish their line (Agent, Held = how many; 0: none)
	EventTurn                             // an agent CLI's hook said where its turn is (Agent, Text = the Turn in words)
	EventChecks                           // the checks, the merge queue or the reviewers' verdicts changed (read them again)
)

var eventKindNames = [...]string{
	EventAgentStarted:    "agent_started",
	EventAgentExited:     "agent_exited",
	EventAgentRestarting: "agent_restarting",
	EventAgentGaveUp:     "agent_gave_up",
	EventAgentStopped:    "agent_stopped",
	EventMessage:         "message",
	EventDelivered:       "delivered",
	EventDeliveryFailed:  "delivery_failed",
	EventTask:            "task",
	EventLevel:           "level",
	EventGame:            "game",
	EventNotice:          "notice",
	EventScreen:          "screen",
	EventUnconfirmed:     "delivery_unconfirmed",
	EventHeld:            "held",
	EventTurn:            "turn",
	EventChecks:          "checks",
}

// String returns the kind's name as used in JSON output.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "unknown"
}

// GameState is a snapshot of a refereed game.
type GameState struct {
	X, O   string      // the players' agent names
	Board  games.Board // after the last legal move
	Turn   games.Mark  // whose move is next (Empty when over)
	Result games.Result
	// Last move: who played which cell, or the refusal reason.
	Mover   string
	Cell    int
	Illegal string
}

// Event is one thing that happened in the swarm.
type Event struct {
	Kind      EventKind
	Time      time.Time
	Agent     string
	Pid       int
	ExitCode  int
	Text      string
	Level     bus.Level
	Message   *bus.Message
	Task      *bus.Task
	TaskEvent *bus.TaskEvent
	Game      *GameState
	Held      int // EventHeld: messages waiting for a person's line
	// Planned: EventAgentExited for a process swarm ended on purpose to
	// start it again elsewhere (moved to a task's worktree or back).
	Planned bool
}

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
