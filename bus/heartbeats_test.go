package bus

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestBeatThrottlesIdenticalRepeats(t *testing.T) {
	b := openTest(t)
	t0 := time.UnixMilli(time.Now().UnixMilli())
	beat := func(hb Heartbeat) {
		t.Helper()
		if err := b.Beat(ctx, hb); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() Heartbeat {
		t.Helper()
		hbs, err := b.Heartbeats(ctx)
		if err != nil || len(hbs) != 1 {
			t.Fatalf("heartbeats %v %v", hbs, err)
		}
		return hbs[0]
	}
	register(t, b, "bob")
	task, err := b.CreateTask(ctx, NewTask{Title: "t", Assignee: "bob", CreatedBy: Human})
	if err != nil {
		t.Fatal(err)
	}
	beat(Heartbeat{Agent: "bob", Status: StatusWorking, Progress: 0.5, Task: task.ID, Time: t0})
	beat(Heartbeat{Agent: "bob", Status: StatusWorking, Progress: 0.5, Task: task.ID, Time: t0.Add(999 * time.Millisecond)})
	if got := stored(); !got.Time.Equal(t0) {
		t.Errorf("identical repeat within 1 s was written: %v", got.Time)
	}
	beat(Heartbeat{Agent: "bob", Status: StatusWorking, Progress: 0.6, Task: task.ID, Time: t0.Add(1500 * time.Millisecond)})
	if got := stored(); got.Progress != 0.6 {
		t.Errorf("progress change not written: %+v", got)
	}
	beat(Heartbeat{Agent: "bob", Status: StatusBlocked, Progress: 0.6, Task: task.ID, Time: t0.Add(1600 * time.Millisecond)})
	if got := stored(); got.Status != StatusBlocked {
		t.Errorf("status change not written: %+v", got)
	}
	beat(Heartbeat{Agent: "bob", Status: StatusBlocked, Progress: 0.6, Task: "", Time: t0.Add(1700 * time.Millisecond)})
	if got := stored(); got.Task != "" {
		t.Errorf("task change not written: %+v", got)
	}
	beat(Heartbeat{Agent: "bob", Status: StatusBlocked, Progress: 0.6, Time: t0.Add(2700 * time.Millisecond)})
	if got := stored(); !got.Time.Equal(t0.Add(2700 * time.Millisecond)) {
		t.Errorf("repeat after 1 s not written: %v", got.Time)
	}
}

func TestBeatValidates(t *testing.T) {
	b := openTest(t)
	for _, hb := range []Heartbeat{
		{Agent: "human"},
		{Agent: "bad name"},
		{Agent: "bob", Progress: 1.5},
		{Agent: "bob", Progress: math.NaN()},
		{Agent: "bob", Status: Status(7)},
	} {
		if err := b.Beat(ctx, hb); err == nil {
			t.Errorf("Beat(%+v) accepted", hb)
		}
	}
	// Out of range is the caller's mistake, which the command line reports
	// as a usage error; a task that does not exist is not found.
	if err := b.Beat(ctx, Heartbeat{Agent: "bob", Progress: 2}); !errors.Is(err, ErrInvalidHeartbeat) || !strings.Contains(err.Error(), "between 0 and 1") {
		t.Errorf("progress 2: %v", err)
	}
	if err := b.Beat(ctx, Heartbeat{Agent: "bob", Task: "nosuchtask"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	if hbs, _ := b.Heartbeats(ctx); len(hbs) != 0 {
		t.Errorf("refused beats were stored: %+v", hbs)
	}
}

func TestThresholdsLevel(t *testing.T) {
	th := DefaultThresholds
	cases := []struct {
		age  time.Duration
		act  Activity
		want Level
	}{
		{0, Working, LevelOK},
		{29 * time.Second, Working, LevelOK},
		{30 * time.Second, Working, LevelWarn},
		{99 * time.Second, Working, LevelWarn},
		{100 * time.Second, Working, LevelStale},
		{5*time.Minute - 1, Working, LevelStale},
		{5 * time.Minute, Working, LevelStuck},
		// Quiet with nothing to do is idle, however long: not a worry.
		{29 * time.Second, Waiting, LevelOK},
		{30 * time.Second, Waiting, LevelIdle},
		{time.Hour, Waiting, LevelIdle},
		{time.Second, Ended, LevelDone},
		{time.Hour, Ended, LevelDone},
		{time.Second, Died, LevelDead},
	}
	for _, c := range cases {
		if got := th.Level(c.age, c.act); got != c.want {
			t.Errorf("Level(%v, %v) = %v, want %v", c.age, c.act, got, c.want)
		}
	}
	if (Thresholds{Warn: time.Second, Stale: 2 * time.Second, Dead: 3 * time.Second}).Level(2500*time.Millisecond, Working) != LevelStale {
		t.Error("custom thresholds ignored")
	}
}

func TestHealth(t *testing.T) {
	b := openTest(t)
	ctx := ctx
	now := time.Now()
	if err := b.RegisterAgent(ctx, Agent{Name: "live", State: AgentRunning, Pid: os.Getpid(), Started: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := b.RegisterAgent(ctx, Agent{Name: "quiet", State: AgentRunning, Started: now.Add(-200 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := b.RegisterAgent(ctx, Agent{Name: "gone", State: AgentExited, Reason: "exit status 1"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Beat(ctx, Heartbeat{Agent: "live", Status: StatusWorking, Time: now.Add(-40 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	hs, err := b.Health(ctx, DefaultThresholds, now)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Level{}
	for _, h := range hs {
		got[h.Agent.Name] = h.Level
	}
	// live and quiet have work in progress; idle has none; done exited 0.
	if err := b.RegisterAgent(ctx, Agent{Name: "idle", State: AgentRunning, Started: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := b.RegisterAgent(ctx, Agent{Name: "done", State: AgentExited, Reason: CleanExit}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"live", "quiet"} {
		task, err := b.CreateTask(ctx, NewTask{Title: "t", Assignee: name, CreatedBy: Human})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Transition(ctx, task.ID, TaskWorking, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	hs, err = b.Health(ctx, DefaultThresholds, now)
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]Level{}
	for _, h := range hs {
		got[h.Agent.Name] = h.Level
	}
	want := map[string]Level{"live": LevelWarn, "quiet": LevelStale, "gone": LevelDead, "idle": LevelIdle, "done": LevelDone}
	for name, l := range want {
		if got[name] != l {
			t.Errorf("%s: %v, want %v", name, got[name], l)
		}
	}
	// A restart counts as a sign of life.
	if err := b.SetAgentState(ctx, "quiet", AgentStatus{State: AgentStopped}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetAgentState(ctx, "quiet", AgentStatus{State: AgentRunning}); err != nil {
		t.Fatal(err)
	}
	hs, _ = b.Health(ctx, DefaultThresholds, time.Now())
	for _, h := range hs {
		if h.Agent.Name == "quiet" && h.Level != LevelOK {
			t.Errorf("restarted agent: %v (age %v)", h.Level, h.Age)
		}
	}
}

func TestAgents(t *testing.T) {
	b := openTest(t)
	if err := b.RegisterAgent(ctx, Agent{Name: "swarm"}); !errors.Is(err, ErrInvalidName) {
		t.Errorf("reserved name: %v", err)
	}
	if err := b.SetAgentState(ctx, "ghost", AgentStatus{State: AgentRunning, Pid: 1}); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
	if err := b.RegisterAgent(ctx, Agent{Name: "bob", Cmd: "claude", State: AgentStarting}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetAgentState(ctx, "bob", AgentStatus{State: AgentRunning, Pid: 4242}); err != nil {
		t.Fatal(err)
	}
	if err := b.RegisterAgent(ctx, Agent{Name: "amy", Cmd: "sh", State: AgentStopped, Restarts: 2}); err != nil {
		t.Fatal(err)
	}
	as, err := b.Agents(ctx)
	if err != nil || len(as) != 2 || as[0].Name != "amy" || as[1].Name != "bob" {
		t.Fatalf("agents %+v %v", as, err)
	}
	bob := as[1]
	if bob.Cmd != "claude" || bob.State != AgentRunning || bob.Pid != 4242 || bob.Started.IsZero() || as[0].Restarts != 2 {
		t.Errorf("bob %+v", bob)
	}
	if a, err := b.Agent(ctx, "amy"); err != nil || a.Cmd != "sh" {
		t.Errorf("Agent(amy) = %+v, %v", a, err)
	}
	if _, err := b.Agent(ctx, "zed"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("Agent(zed) = %v", err)
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "Bob", "x1", "agent-2", "a.b_c", "0", strings.Repeat("A", 64)} {
		if err := ValidName(ok); err != nil {
			t.Errorf("ValidName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "*", "swarm", "human", "-a", ".a", "a b", "a/b", "é", strings.Repeat("A", 65)} {
		if err := ValidName(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidName(%q) = %v", bad, err)
		}
	}
}

func TestStatusStrings(t *testing.T) {
	for s := StatusIdle; s <= StatusBlocked; s++ {
		if got, err := ParseStatus(s.String()); err != nil || got != s {
			t.Errorf("%v: %v %v", s, got, err)
		}
	}
	if _, err := ParseStatus("sleeping"); err == nil {
		t.Error("ParseStatus(sleeping) succeeded")
	}
	if LevelStale.String() != "STALE" || TaskInReview.String() != "IN_REVIEW" || DeliveryInjected.String() != "injected" {
		t.Error("String() names")
	}
}

// Output says an agent is alive: one without a heartbeat gets the one
// given, one with a heartbeat keeps what it reported and only its time
// moves.
func TestAliveKeepsWhatAnAgentReported(t *testing.T) {
	t.Parallel()
	b := openTest(t)
	register(t, b, "a", "b")
	ctx := context.Background()
	reported := time.Now().Add(-time.Minute)
	if err := b.Beat(ctx, Heartbeat{Agent: "a", Status: StatusNeedsHuman, Note: "may I?", Time: reported}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, name := range []string{"a", "b"} {
		if err := b.Alive(ctx, Heartbeat{Agent: name, Status: StatusWorking, Time: now}); err != nil {
			t.Fatal(err)
		}
	}
	hbs, err := b.Heartbeats(ctx)
	if err != nil || len(hbs) != 2 {
		t.Fatalf("heartbeats %+v %v", hbs, err)
	}
	if a := hbs[0]; a.Status != StatusNeedsHuman || a.Note != "may I?" || a.Time.Before(now.Add(-time.Millisecond)) {
		t.Errorf("a after output: %+v, want what it reported at the time of the output", a)
	}
	if b := hbs[1]; b.Status != StatusWorking || b.Time.Before(now.Add(-time.Millisecond)) {
		t.Errorf("b after output: %+v, want the heartbeat given", b)
	}
}
