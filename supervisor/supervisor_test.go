package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/games"
	"swarm/internal/testrun"
)

// waitTimeout bounds every wait in these tests; they poll a condition and
// return as soon as it holds.
const waitTimeout = testrun.Patience

// scripted is an agent running one of the scripts of agents_test.go.
func scripted(name, script string, env map[string]string) AgentConfig {
	e := map[string]string{"SWARM_TEST_AGENT": script}
	for k, v := range env {
		e[k] = v
	}
	return AgentConfig{
		Name: name, Argv: []string{os.Args[0]}, Cmd: script, Env: e,
		Restart: RestartNever, MaxRestarts: 5, Confirm: true,
	}
}

type harness struct {
	t       *testing.T
	dir     string
	busOpts bus.Options // for the bus run opens (Dir is set there)
	bus     *bus.Bus
	sup     *Supervisor
	sub     *Subscription
	game    *Subscription // for WaitGame, when a referee runs: taken before the start, so no move is missed

	mu     sync.Mutex
	events []Event
	done   chan struct{}
}

// newHarness makes a temp dir for a swarm; run starts it.
func newHarness(t *testing.T) *harness {
	return &harness{t: t, dir: t.TempDir(), done: make(chan struct{})}
}

// run starts a swarm of the given agents on a fresh bus in h's dir.
func (h *harness) run(opts Options, agents ...AgentConfig) *harness {
	t := h.t
	t.Helper()
	bo := h.busOpts
	bo.Dir = filepath.Join(h.dir, ".swarm")
	b, err := bus.Open(bo)
	if err != nil {
		t.Fatal(err)
	}
	h.bus = b
	opts.Bus = b
	if opts.Config == nil {
		opts.Config = &Config{Agents: agents}
	}
	if opts.Backoff == 0 {
		opts.Backoff = 10 * time.Millisecond
	}
	if opts.Executable == "" {
		opts.Executable = os.Args[0]
	}
	h.sup, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.sub = h.sup.Subscribe()
	if opts.Referee != nil {
		h.game = h.sup.Subscribe()
	}
	go func() {
		defer close(h.done)
		for ev := range h.sub.Events() {
			h.mu.Lock()
			h.events = append(h.events, ev)
			h.mu.Unlock()
		}
	}()
	if err := h.sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.stop)
	return h
}

func (h *harness) stop() {
	_ = h.sup.Shutdown(context.Background())
	h.sub.Close()
	if h.game != nil {
		h.game.Close()
	}
	<-h.done
	_ = h.bus.Close()
}

func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// waitFor polls cond until it holds or the deadline passes.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	testrun.Within(h.t, waitTimeout, what, cond)
}

// eventsOf returns the events of one kind so far.
func (h *harness) eventsOf(kind EventKind) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, ev := range h.events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

func readLines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := strings.TrimRight(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// bodies returns the message bodies in lines typed in by swarm.
func bodies(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if _, body, ok := strings.Cut(l, "] "); ok {
			out = append(out, body)
		}
	}
	return out
}

// deliveryStates counts the delivery states of messages to recipient.
func (h *harness) deliveryStates(recipient string) map[bus.DeliveryState]int {
	h.t.Helper()
	msgs, err := h.bus.Messages(context.Background(), 0, 1_000_000)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[bus.DeliveryState]int{}
	for _, m := range msgs {
		for _, d := range m.Deliveries {
			if d.Recipient == recipient {
				out[d.State]++
			}
		}
	}
	return out
}

func TestThousandMessagesEachWayAllConfirmedInOrder(t *testing.T) {
	t.Parallel()
	const n = 1000
	h := newHarness(t)
	h.run(Options{},
		scripted("a", "chat", map[string]string{"PEER": "b", "PREFIX": "a", "COUNT": fmt.Sprint(n), "LOG": h.path("a.log")}),
		scripted("b", "chat", map[string]string{"PEER": "a", "PREFIX": "b", "COUNT": fmt.Sprint(n), "LOG": h.path("b.log")}),
	)
	// Waiting on the events is cheap; the bus is read once at the end
	// (reading 2,000 messages every few milliseconds cost more than the
	// deliveries under the race detector).
	// Every message between them ends (confirmed, or judged unconfirmed
	// or failed, whose notice to its sender is a message of swarm's).
	peers := func(kinds ...EventKind) (k int) {
		for _, kind := range kinds {
			for _, ev := range h.eventsOf(kind) {
				if ev.Message != nil && ev.Message.From != "swarm" {
					k++
				}
			}
		}
		return k
	}
	ended := func() int { return peers(EventDelivered, EventUnconfirmed, EventDeliveryFailed) }
	testrun.WhileProgressing(t, waitTimeout, "all messages delivered",
		func() bool { return ended() >= 2*n }, ended)
	msgs, err := h.bus.Messages(context.Background(), 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for _, d := range m.Deliveries {
			if m.From != "swarm" && d.State != bus.DeliveryConfirmed {
				t.Errorf("%s to %s (%q): %s %s", m.From, d.Recipient, m.Body, d.State, d.Error)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// The screen shows a message (confirmation) as the tty echoes it, a
	// moment before the program reads it: wait for the programs too.
	var readA, readB []string
	t.Cleanup(func() {
		if t.Failed() { // which were confirmed and never read
			t.Logf("a read %d, b read %d; the last each read: %q, %q", len(readA), len(readB), readA[max(len(readA)-3, 0):], readB[max(len(readB)-3, 0):])
		}
	})
	h.waitFor("all messages read", func() bool {
		readA, readB = unique(readLines(h.path("a.log"))), unique(readLines(h.path("b.log")))
		return len(readA) == n && len(readB) == n
	})
	for _, c := range []struct{ log, from string }{{h.path("b.log"), "a"}, {h.path("a.log"), "b"}} {
		for i, body := range bodies(unique(readLines(c.log))) {
			if want := fmt.Sprintf("%s-%d", c.from, i+1); body != want {
				t.Fatalf("%s: message %d is %q, want %q (order lost)", c.log, i+1, body, want)
			}
		}
	}
	if got := peers(EventDelivered); got != 2*n {
		t.Errorf("%d delivered events, want %d (one each)", got, 2*n)
	}
}

// allStopped reports whether every thread of process pid is stopped.
func allStopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			return false
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) == 0 || f[0] != "T" {
			return false
		}
	}
	return true
}

// unique drops repeated deliveries (same id) as agents are told to: at
// least once means a message can come twice.
func unique(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		id, _, _ := strings.Cut(l, " from ")
		if !seen[id] {
			seen[id] = true
			out = append(out, l)
		}
	}
	return out
}

func TestMessageWaitsForQuietOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	busy := scripted("b", "busy", map[string]string{"TICKS": "200", "STATE": h.path("state")})
	busy.Quiet = 600 * time.Millisecond // far above the 5 ms between ticks, even on a loaded machine
	h.run(Options{}, busy)
	ctx := context.Background()
	h.waitFor("b ticking", func() bool {
		in, _ := h.sup.Agent("b")
		return !in.LastOutput.IsZero()
	})
	const n = 3
	for i := range n {
		if _, err := h.sup.Send(ctx, bus.Message{To: "b", Body: fmt.Sprintf("hello %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("all read", func() bool { return len(readLines(h.path("state"))) >= n })
	for _, l := range readLines(h.path("state")) {
		if !strings.HasPrefix(l, "ticking=false") {
			t.Errorf("message typed in while b was still printing: %q", l)
		}
	}
}

func TestKeystrokesNeverLandInsideAMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{UserIdle: time.Nanosecond}, scripted("b", "listen", map[string]string{"LOG": h.path("b.log")}))
	ctx := context.Background()
	h.waitFor("b running", func() bool { in, _ := h.sup.Agent("b"); return in.State == StateRunning })
	stop := make(chan struct{})
	var typing sync.WaitGroup
	typing.Add(1)
	go func() {
		defer typing.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = h.sup.SendKeys("b", []byte("zzzz\r"))
			time.Sleep(time.Millisecond) // a fast typist, not a flood
		}
	}()
	const n = 50
	for i := range n {
		if _, err := h.sup.Send(ctx, bus.Message{To: "b", Body: fmt.Sprintf("message number %d, long enough to be split by a careless writer", i)}); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("all read", func() bool {
		return len(unique(readLines(h.path("b.log")))) == n
	})
	close(stop)
	typing.Wait()
	for i, l := range unique(readLines(h.path("b.log"))) {
		want := fmt.Sprintf("from human] message number %d, long enough to be split by a careless writer", i)
		if !strings.HasSuffix(l, want) {
			t.Errorf("arrival %d = %q; want it to end with %q, intact", i, l, want)
		}
	}
}

func TestRestartedAgentReceivesWhatWasQueued(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := scripted("b", "listen", map[string]string{"LOG": h.path("b.log")})
	b.Restart = RestartAlways
	h.run(Options{}, b)
	ctx := context.Background()
	send := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := h.sup.Send(ctx, bus.Message{To: "b", Body: fmt.Sprintf("m%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	send(0, 5)
	h.waitFor("first five read", func() bool { return len(unique(readLines(h.path("b.log")))) == 5 })
	in, _ := h.sup.Agent("b")
	if err := syscall.Kill(-in.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Queued while b is dead or restarting. (Typed in while it was being
	// killed, one may be echoed and never read — it comes again: see the
	// test below — or read by the kernel for a thread the kill woke, which
	// never returns from that read: swarm cannot tell that read from a
	// real one but by its time, RELIABILITY.md.)
	h.waitFor("b's process ended", func() bool { return len(h.eventsOf(EventAgentExited)) == 1 })
	send(5, 20)
	h.waitFor("b restarted", func() bool { return len(h.eventsOf(EventAgentStarted)) >= 2 })
	h.waitFor("all 20 confirmed", func() bool { return h.deliveryStates("b")[bus.DeliveryConfirmed] == 20 })
	h.waitFor("all 20 read", func() bool { return len(unique(readLines(h.path("b.log")))) == 20 })
	for i, body := range bodies(unique(readLines(h.path("b.log")))) {
		if want := fmt.Sprintf("m%d", i); body != want {
			t.Errorf("message %d is %q, want %q", i, body, want)
		}
	}
}

// A program reading lines gets each echoed by the kernel the moment it
// arrives — that echo confirms it — and may never read it: here it is
// stopped, then its process ends. The message goes back to the queue and
// comes to the next process; what the program read does not come again.
// Killed or restarted by swarm, the same.
func TestAMessageEchoedButNeverReadComesAgain(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"killed", "restarted"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			b := scripted("b", "listen", map[string]string{"LOG": h.path("b.log")})
			b.Restart = RestartAlways
			h.run(Options{StopGrace: 100 * time.Millisecond}, b)
			read := h.send(bus.Message{To: "b", Body: "read"})
			h.waitFor("the first read", func() bool { return len(readLines(h.path("b.log"))) == 1 })
			h.waitFor("the first confirmed", func() bool { return h.deliveryOf(read.ID, "b").State == bus.DeliveryConfirmed })
			in, _ := h.sup.Agent("b")
			if err := syscall.Kill(-in.Pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			// Stopped, not stopping: a thread woken in its read to stop
			// would take a line that came meanwhile.
			h.waitFor("b stopped", func() bool { return allStopped(in.Pid) })
			unread := h.send(bus.Message{To: "b", Body: "unread"})
			h.waitFor("the second confirmed", func() bool { return h.deliveryOf(unread.ID, "b").State == bus.DeliveryConfirmed })
			switch end {
			case "killed":
				// A crash also puts back what the kernel alone confirmed
				// in requeueWindow before it (RELIABILITY.md): the
				// first must be older, for the terminal's queue alone to
				// say what comes again.
				at := time.Now() // after it was confirmed
				h.waitFor("the first older than a crash puts back", func() bool { return time.Since(at) > requeueWindow })
				if err := syscall.Kill(-in.Pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			case "restarted":
				if err := h.sup.Restart("b"); err != nil {
					t.Fatal(err)
				}
			}
			h.waitFor("b started again", func() bool { return len(h.eventsOf(EventAgentStarted)) == 2 })
			h.waitFor("the second read", func() bool { return len(readLines(h.path("b.log"))) >= 2 })
			if got := bodies(readLines(h.path("b.log"))); !slices.Equal(got, []string{"read", "unread"}) {
				t.Errorf("b read %q, want each message once", got)
			}
			h.waitFor("the second confirmed again", func() bool { return h.deliveryOf(unread.ID, "b").State == bus.DeliveryConfirmed })
			if d := h.deliveryOf(unread.ID, "b"); d.Attempts != 2 {
				t.Errorf("the unread message was typed in %d times, want 2 (once per process)", d.Attempts)
			}
			if d := h.deliveryOf(read.ID, "b"); d.Attempts != 1 || d.State != bus.DeliveryConfirmed {
				t.Errorf("the message read: %s after %d attempts, want confirmed after 1", d.State, d.Attempts)
			}
		})
	}
}

// A message typed into a process again after a restart is confirmed only
// by what the new process shows: the last run's echo of it, kept in the
// scrollback above the separator, is not this one's. Here the first run
// never reads it (its echo confirmed it, and it goes back to the queue as
// unread input), and the second run reads lines without echo: nothing
// shows it, and it is unconfirmed, not confirmed by the old echo.
func TestAMessageTypedAgainIsNotConfirmedByTheLastRunsEcho(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	script := `if [ -e "$0.ran" ]; then stty -echo; echo second run; exec sleep 600; fi
: > "$0.ran"; echo first run; exec sleep 600
`
	if err := os.WriteFile(h.path("b.sh"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := AgentConfig{Name: "b", Argv: []string{h.path("b.sh")}, Cmd: "./b.sh", Restart: RestartAlways, MaxRestarts: 5, Confirm: true}
	h.run(Options{StopGrace: 100 * time.Millisecond, Patience: time.Second}, b)
	m := h.send(bus.Message{To: "b", Body: "hello"})
	h.waitFor("the kernel's echo to confirm it", func() bool { return h.deliveryOf(m.ID, "b").State == bus.DeliveryConfirmed })
	if err := h.sup.Restart("b"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("it typed into the second run and judged", func() bool {
		d := h.deliveryOf(m.ID, "b")
		return d.Attempts == 2 && d.State != bus.DeliveryQueued && d.State != bus.DeliveryInjected
	})
	if d := h.deliveryOf(m.ID, "b"); d.State != bus.DeliveryUnconfirmed {
		t.Errorf("typed into a run that never showed it: %s (%s), want unconfirmed", d.State, d.Error)
	}
}

// A message to nobody fails, and its author is told — in its inbox, not
// by a notice typed in by itself (for an AI agent each would be a turn):
// the notices go with its next message, all of them in one line.
func TestUnknownRecipientNoticesTheAuthor(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("a", "say", map[string]string{"SAY": "@relay:nobody are you there?|@relay:noone hi|@relay:nemo x", "LOG": h.path("a.log")}))
	notices := func() (queued, confirmed int) {
		msgs, err := h.bus.Messages(context.Background(), 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if bus.IsDeliveryNotice(m) && m.To == "a" {
				switch m.Deliveries[0].State {
				case bus.DeliveryQueued:
					queued++
				case bus.DeliveryConfirmed:
					confirmed++
				}
			}
		}
		return
	}
	h.waitFor("three notices for a", func() bool { q, _ := notices(); return q == 3 })
	for _, to := range []string{"nobody", "noone", "nemo"} {
		if got := h.deliveryStates(to)[bus.DeliveryFailed]; got != 1 {
			t.Errorf("failed deliveries to %s = %d, want 1", to, got)
		}
	}
	// Typed by themselves, each would come first, one line each.
	if got := readLines(h.path("a.log")); len(got) != 0 {
		t.Fatalf("typed into a by themselves: %q", got)
	}
	m := h.send(bus.Message{From: "human", To: "a", Body: "hello"})
	h.waitFor("hello confirmed", func() bool { return h.deliveryOf(m.ID, "a").State == bus.DeliveryConfirmed })
	h.waitFor("the notices confirmed with it", func() bool { _, c := notices(); return c == 3 })
	// Confirmed is the line shown in a's terminal; a writes its log after
	// it has read the line, a moment later on a busy machine.
	h.waitFor("a's log of it", func() bool { return len(readLines(h.path("a.log"))) > 0 })
	got := readLines(h.path("a.log"))
	if len(got) != 1 {
		t.Fatalf("a read %q, want one line", got)
	}
	for _, want := range []string{"hello", "to nobody failed", "to noone failed", "to nemo failed"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("a read %q, without %q", got[0], want)
		}
	}
}

func TestControlCharactersArriveAsHarmlessText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	block := `[[RELAY]]|{"to":"b","body":"\u001b[2J\u001b]0;pwned\u0007 stop \u0003 eof \u0004 del \u007f done"}|[[/RELAY]]`
	h.run(Options{},
		scripted("a", "say", map[string]string{"SAY": block}),
		scripted("b", "listen", map[string]string{"LOG": h.path("b.log")}),
	)
	h.waitFor("b got it", func() bool { return len(readLines(h.path("b.log"))) == 1 })
	got := bodies(readLines(h.path("b.log")))[0]
	if want := "[2J]0;pwned stop  eof  del  done"; got != want {
		t.Errorf("b received %q, want %q", got, want)
	}
	in, _ := h.sup.Agent("b")
	if in.State != StateRunning {
		t.Errorf("b is %s after the message; ^C/^D must not reach it as keys", in.State)
	}
}

func TestCrashLoopStopsAfterMaxRestarts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := scripted("c", "crash", nil)
	c.Restart, c.MaxRestarts = RestartOnFailure, 2
	h.run(Options{}, c)
	h.waitFor("gave up", func() bool { return len(h.eventsOf(EventAgentGaveUp)) == 1 })
	if got := len(h.eventsOf(EventAgentStarted)); got != 3 {
		t.Errorf("started %d times, want 3 (1 + 2 restarts)", got)
	}
	check := func(when string) {
		t.Helper()
		a, err := h.bus.Agent(context.Background(), "c")
		if err != nil {
			t.Fatal(err)
		}
		if a.State != StateGaveUp.String() || !strings.Contains(a.Reason, "exit code 3") {
			t.Errorf("%s, bus shows c as %s (%q); want %s with the exit code", when, a.State, a.Reason, StateGaveUp)
		}
		if a.Restarts != 2 || a.Pid != 0 {
			t.Errorf("%s, bus shows c with %d restarts and pid %d; want 2 and no pid", when, a.Restarts, a.Pid)
		}
	}
	check("once it gave up")
	// Each run's output stays in the pane's scrollback, under a line
	// saying why the program started again.
	view, err := h.sup.View("c", 0)
	if err != nil {
		t.Fatal(err)
	}
	runs, separators := 0, 0
	for _, l := range strings.Split(view.Rows, "\n") {
		if l == "crashing" {
			runs++
		}
		if strings.Contains(l, "── c started again at ") && strings.Contains(l, "exit code 3") {
			separators++
		}
	}
	if runs != 3 || separators != 2 {
		t.Errorf("the pane holds %d runs' output and %d restart lines, want 3 and 2:\n%s", runs, separators, view.Rows)
	}
	// Stopping swarm keeps the reason for `swarm status` to show.
	if err := h.sup.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after swarm stopped")
}

// playDemo runs one tic-tac-toe game on a fresh bus and returns its result.
func playDemo(t *testing.T, opts DemoOptions) (*harness, games.Result, error) {
	h := newHarness(t)
	opts.Executable = os.Args[0]
	cfg := TicTacToeConfig(opts)
	h.run(Options{Config: cfg, Referee: games.NewReferee(DemoX, DemoO), X: DemoX, O: DemoO})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := WaitGame(ctx, h.game, 0, nil)
	return h, res, err
}

// TestDemoCompletesWithALegalGameForEightSeeds plays the demo through real
// processes and the bus; the players' strategies are tried on many more
// seeds in-process by the games package.
func TestDemoCompletesWithALegalGameForEightSeeds(t *testing.T) {
	t.Parallel()
	const seeds = 8
	outcomes := map[string]int{}
	for seed := int64(1); seed <= seeds; seed++ {
		h, res, err := playDemo(t, DemoOptions{Seed: seed})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !res.Over || res.Forfeit {
			t.Fatalf("seed %d: result %v is not a complete game", seed, res)
		}
		// Replay the moves as delivered on the bus through fresh rules: every
		// one must be legal and lead to the same result.
		msgs, err := h.bus.Messages(context.Background(), 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		g := games.NewTicTacToe()
		results := 0
		for _, m := range msgs {
			switch m.Kind {
			case "game_move":
				cell, err := games.ParseMove(m.Body)
				if err != nil {
					t.Fatalf("seed %d: move %q: %v", seed, m.Body, err)
				}
				if err := g.Play(games.Mark(m.From[0]), cell); err != nil {
					t.Fatalf("seed %d: illegal move delivered: %s %s: %v", seed, m.From, m.Body, err)
				}
			case "game_illegal":
				t.Fatalf("seed %d: a built-in player made an illegal move: %s", seed, m.Body)
			case "game_result":
				results++
			}
		}
		if g.Result() != res {
			t.Errorf("seed %d: replayed result %v, announced %v", seed, g.Result(), res)
		}
		if results != 2 {
			t.Errorf("seed %d: %d result announcements on the bus, want 2", seed, results)
		}
		// Each player read the result before it exited: delivered, not left
		// pending for a process that is gone.
		h.waitFor("results confirmed", func() bool {
			msgs, _ := h.bus.Messages(context.Background(), 0, 1000)
			confirmed := 0
			for _, m := range msgs {
				if m.Kind == "game_result" && m.State() == "confirmed" {
					confirmed++
				}
			}
			return confirmed == 2
		})
		outcomes[res.String()]++
		h.stop()
	}
	t.Logf("outcomes over %d seeds: %v", seeds, outcomes)
}

func TestCheatingPlayerIsRefusedAndForfeits(t *testing.T) {
	t.Parallel()
	// X cheats three times: cells out of range, then a move out of turn.
	h := newHarness(t)
	cheat := scripted(DemoX, "say", map[string]string{
		"SAY": "@relay:O move 10|@relay:O move 0|@relay:O move 42",
		"LOG": h.path("x.log"),
	})
	cfg := TicTacToeConfig(DemoOptions{Seed: 1, Executable: os.Args[0]})
	cfg.Agents[0] = cheat
	h.run(Options{Config: cfg, Referee: games.NewReferee(DemoX, DemoO), X: DemoX, O: DemoO})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := WaitGame(ctx, h.game, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Forfeit || res.Winner != games.MarkO {
		t.Fatalf("result %v; want O to win by X's forfeit", res)
	}
	h.waitFor("X told three times", func() bool {
		n := 0
		for _, l := range readLines(h.path("x.log")) {
			if strings.Contains(l, "from swarm] illegal move") {
				n++
			}
		}
		return n == 3
	})
	// None of the cheats reached O.
	msgs, err := h.bus.Messages(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.From == DemoX && m.To == DemoO && len(m.Deliveries) > 0 {
			t.Errorf("cheat %q has deliveries %v; it must not be delivered", m.Body, m.Deliveries)
		}
	}
}

func TestTaskDispatchAndControlMessages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("a", "tasker", map[string]string{"LOG": h.path("a.log")}))
	ctx := context.Background()
	task, err := h.bus.CreateTask(ctx, bus.NewTask{Title: "write the docs", Description: "all of them", Assignee: "a", CreatedBy: "human"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("task in review", func() bool {
		got, err := h.bus.Task(ctx, task.ID)
		return err == nil && got.State == bus.TaskInReview
	})
	evs, err := h.bus.TaskEvents(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	var path []string
	for _, e := range evs {
		path = append(path, e.To.String()+" by "+e.Actor)
	}
	if want := "ASSIGNED by human, WORKING by a, IN_REVIEW by a"; strings.Join(path, ", ") != want {
		t.Errorf("history %q, want %q", strings.Join(path, ", "), want)
	}
	// The early task_done was refused and a was told why, naming the state.
	h.waitFor("refusal notice", func() bool {
		for _, l := range readLines(h.path("a.log")) {
			if strings.Contains(l, "from swarm]") && strings.Contains(l, "task_done refused: task "+task.ID+" is ASSIGNED") {
				return true
			}
		}
		return false
	})
	if !strings.Contains(readLines(h.path("a.log"))[0], "task "+task.ID+": write the docs") {
		t.Errorf("first message to a is %q, want the assignment", readLines(h.path("a.log"))[0])
	}
	h.waitFor("an event per transition", func() bool { return len(h.eventsOf(EventTask)) == 3 })
	for i, want := range []bus.TaskState{bus.TaskAssigned, bus.TaskWorking, bus.TaskInReview} {
		if ev := h.eventsOf(EventTask)[i]; ev.TaskEvent.To != want || ev.Task.State != want {
			t.Errorf("task event %d: %s (task %s), want %s", i, ev.TaskEvent.To, ev.Task.State, want)
		}
	}
}

func TestNothingIsTypedBeforeTheAgentShowsOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := scripted("b", "slowstart", map[string]string{"LOG": h.path("b.log")})
	b.Brief = true
	h.run(Options{}, b)
	if _, err := h.sup.Send(context.Background(), bus.Message{To: "b", Body: "early bird"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("brief and message read", func() bool { return len(readLines(h.path("b.log"))) == 2 })
	// The echo of what was typed reaches the screen a moment after the
	// program has read it.
	var screen string
	h.waitFor("the echo on the screen", func() bool {
		snap, err := h.sup.Snapshot("b")
		screen = strings.Join(snap.Lines, "\n")
		return err == nil && strings.Contains(screen, "early bird")
	})
	ready, typed := strings.Index(screen, "ready"), strings.Index(screen, "[relay #")
	if ready < 0 || typed < ready {
		t.Errorf("input was typed before the program was ready (its echo comes first):\n%s", screen)
	}
	if lines := readLines(h.path("b.log")); !strings.Contains(lines[0], "You are \"b\"") || !strings.Contains(lines[1], "early bird") {
		t.Errorf("b read %q; want the brief first, then the message", lines)
	}
}

func TestACommandThatCannotRunIsNotRestarted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	missing := AgentConfig{Name: "m", Argv: []string{"/no/such/binary"}, Restart: RestartAlways, MaxRestarts: 5, Confirm: true}
	typo := AgentConfig{Name: "s", Argv: []string{"/bin/sh", "-c", "nosuchcmd-swarm-test"}, Restart: RestartAlways, MaxRestarts: 5, Confirm: true}
	h.run(Options{}, missing, typo)
	h.waitFor("both given up", func() bool { return len(h.eventsOf(EventAgentGaveUp)) == 2 })
	for _, ev := range h.eventsOf(EventAgentGaveUp) {
		if !strings.Contains(ev.Text, "not restarted") || !strings.Contains(ev.Text, "not found") && !strings.Contains(ev.Text, "no such file") {
			t.Errorf("%s gave up with %q; want the reason the command cannot run", ev.Agent, ev.Text)
		}
	}
	if got := len(h.eventsOf(EventAgentRestarting)); got != 0 {
		t.Errorf("%d restarts of commands that cannot run", got)
	}
}

func TestARunawayAgentIsRateLimited(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spam := scripted("a", "chat", map[string]string{"PEER": "b", "PREFIX": "spam", "COUNT": "300", "LOG": h.path("a.log")})
	// A small budget, so that the test does not depend on how fast this
	// machine reads the agent's output.
	h.run(Options{RelayRate: 1, RelayBurst: 20}, spam, scripted("b", "listen", nil))
	h.waitFor("a told it is over the limit", func() bool {
		for _, l := range readLines(h.path("a.log")) {
			if strings.Contains(l, "relay refused: more than 1 messages a second") {
				return true
			}
		}
		return false
	})
	// Every one of the 300 is either published or counted in a notice to
	// a: the notices' counts add up to all that were dropped.
	var published, told, notices int
	h.waitFor("all 300 accounted for", func() bool {
		msgs, err := h.bus.Messages(context.Background(), 0, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		published, told, notices = 0, 0, 0
		for _, m := range msgs {
			switch {
			case m.From == "a":
				published++
			case m.From == "swarm" && m.To == "a" && strings.Contains(m.Body, "relay refused: more than 1 messages a second"):
				var dropped, all int
				if _, err := fmt.Sscanf(m.Body[strings.Index(m.Body, "; ")+2:], "%d dropped since the last notice, %d in all", &dropped, &all); err != nil {
					t.Fatalf("notice %q: %v", m.Body, err)
				}
				told += dropped
				notices++
				if all < told {
					t.Errorf("notice %q: %d in all, but the notices so far count %d", m.Body, all, told)
				}
			}
		}
		return published+told == 300
	})
	n := published
	t.Logf("%d published, %d dropped in %d notices", published, told, notices)
	if n < 20 || n >= 300 {
		t.Errorf("%d of a's 300 messages were published; want the burst of 20 (and a few more), not all", n)
	}
}

// More notices than the injector's window: the first 64 go in as one
// batch by themselves (a queue of notices alone would otherwise wait
// without end; the batch is too long to type, so its file is named), the
// rest with the next message — every one of them, each once.
func TestNoticesPastTheWindowArriveComplete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const total = noticeWindow + 6
	var say []string
	for i := 0; i < total; i++ {
		say = append(say, fmt.Sprintf("@relay:ghost%02d is anyone there", i))
	}
	h.run(Options{}, scripted("a", "say", map[string]string{"SAY": strings.Join(say, "|"), "LOG": h.path("a.log")}))
	confirmed := func() (n int) {
		msgs, err := h.bus.Messages(context.Background(), 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if bus.IsDeliveryNotice(m) && m.To == "a" && m.Deliveries[0].State == bus.DeliveryConfirmed {
				n++
			}
		}
		return n
	}
	h.waitFor("the first batch confirmed", func() bool { return confirmed() == noticeWindow })
	m := h.send(bus.Message{From: "human", To: "a", Body: "hello"})
	h.waitFor("hello confirmed", func() bool { return h.deliveryOf(m.ID, "a").State == bus.DeliveryConfirmed })
	h.waitFor("every notice confirmed", func() bool { return confirmed() == total })
	// The kernel's echo confirmed hello's line as it came, a moment before
	// the program read it: wait for the program too.
	var got []string
	h.waitFor("a to read its second line", func() bool {
		got = unique(readLines(h.path("a.log")))
		return len(got) >= 2
	})
	if len(got) != 2 {
		t.Fatalf("a read %d lines, want 2 (the batch, then hello with the rest): %q", len(got), got)
	}
	// The batch is too long to type: it is in a file named by its path
	// relative to the agent's directory (this test's, as none is set).
	_, ref, ok := strings.Cut(got[0], "too long to type: read ")
	if !ok {
		t.Fatalf("the batch %q does not name its file", got[0])
	}
	batch, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	got[0] = string(batch)
	for i := 0; i < total; i++ {
		line := got[0]
		if i >= noticeWindow {
			line = got[1]
		}
		if n := strings.Count(line, fmt.Sprintf("to ghost%02d failed", i)); n != 1 {
			t.Errorf("the notice about ghost%02d is in its line %d times, want once", i, n)
		}
	}
	if !strings.Contains(got[1], "hello") {
		t.Errorf("the second line %q is not hello's", got[1])
	}
}

// A program that reads keys shows a message itself: confirmed, it was
// read, and a crash right after does not bring it again (a program
// reading lines would get it again: its echo is the kernel's).
func TestAMessageAProgramShowedIsNotSentAgainAfterItsCrash(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cx := composerAgent(h, "cx", nil)
	cx.Restart = RestartAlways
	h.run(Options{}, cx)
	h.running("cx")
	first := h.send(bus.Message{To: "cx", Body: "first"})
	h.waitFor("the first confirmed", func() bool { return h.deliveryOf(first.ID, "cx").State == bus.DeliveryConfirmed })
	in, _ := h.sup.Agent("cx")
	if err := syscall.Kill(-in.Pid, syscall.SIGKILL); err != nil { // within requeueWindow of it, mostly
		t.Fatal(err)
	}
	h.waitFor("cx started again", func() bool { return len(h.eventsOf(EventAgentStarted)) == 2 })
	// Messages go in order: once the second is in, the first would have
	// been typed again before it.
	second := h.send(bus.Message{To: "cx", Body: "second"})
	h.waitFor("the second confirmed", func() bool { return h.deliveryOf(second.ID, "cx").State == bus.DeliveryConfirmed })
	if n := typedTimes(h.path("cx.raw"), first.ID); n != 1 {
		t.Errorf("the first was typed %d times, want once", n)
	}
	if d := h.deliveryOf(first.ID, "cx"); d.Attempts != 1 {
		t.Errorf("the first: %d attempts, want 1", d.Attempts)
	}
}
