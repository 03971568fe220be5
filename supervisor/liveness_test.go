package supervisor

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"swarm/bus"
)

// Liveness alarms only when something is wrong: a quiet agent with no
// work in progress is IDLE however long it waits, one with a task WORKING
// goes WARN, STALE, STUCK; a program that exited 0 is DONE, one that
// crashed DEAD.
func TestLivenessMeansSomething(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	done, err := NewAgentConfig("done", "echo bye", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	done.Restart = RestartNever
	crash := scripted("crash", "crash", nil)
	crash.Restart = RestartNever
	// Ages are judged by a clock the test moves on: each level is
	// reached when the test says, not when a busy machine's judging loop
	// comes round (with thresholds seconds apart, a loop late by more
	// than their gap skips the warnings). Apart from that clock the
	// thresholds are far off: nothing reaches them by itself.
	var ahead atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	cfg := &Config{
		Heartbeat: HeartbeatConfig{Warn: time.Hour, Stale: 3 * time.Hour, Dead: 5 * time.Hour},
		Agents:    []AgentConfig{scripted("idle", "listen", nil), scripted("worker", "listen", nil), done, crash},
	}
	h.run(Options{Config: cfg, livenessNow: clock})
	h.running("idle")
	h.running("worker")
	task, err := h.bus.CreateTask(context.Background(), bus.NewTask{Title: "t", Assignee: "worker", CreatedBy: bus.Human})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.bus.Transition(context.Background(), task.ID, bus.TaskWorking, "worker", ""); err != nil {
		t.Fatal(err)
	}
	level := func(name string) bus.Level { in, _ := h.sup.Agent(name); return in.Level }
	for _, step := range []struct {
		ahead time.Duration
		want  bus.Level
	}{{2 * time.Hour, bus.LevelWarn}, {4 * time.Hour, bus.LevelStale}, {6 * time.Hour, bus.LevelStuck}} {
		ahead.Store(int64(step.ahead))
		h.waitFor("worker "+step.want.String(), func() bool { return level("worker") == step.want })
	}
	h.waitFor("done and dead", func() bool { return level("done") == bus.LevelDone && level("crash") == bus.LevelDead })
	h.waitFor("idle judged at the clock's last step", func() bool { return level("idle") == bus.LevelIdle })
	levels := func(name string) (seen []bus.Level) {
		for _, ev := range h.eventsOf(EventLevel) {
			if ev.Agent == name {
				seen = append(seen, ev.Level)
			}
		}
		return seen
	}
	// The worker went through each warning on its way, in order.
	h.waitFor("the worker's levels told", func() bool { return len(levels("worker")) >= 3 })
	if got, want := fmt.Sprint(levels("worker")), fmt.Sprint([]bus.Level{bus.LevelWarn, bus.LevelStale, bus.LevelStuck}); got != want {
		t.Errorf("worker's levels: %s; want %s", got, want)
	}
	// Idle, quiet with nothing to do, was never more than IDLE, however
	// old its last sign of life.
	for _, l := range levels("idle") {
		if l != bus.LevelOK && l != bus.LevelIdle {
			t.Errorf("idle's levels: %v; want no warning", levels("idle"))
			break
		}
	}
}

// What an agent last reported (a CLI's hook: it needs the person, and
// why) stands while it goes on printing: the heartbeat its output writes
// says it is alive and keeps the report.
func TestOutputKeepsWhatAnAgentReported(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("cli", "listen", nil))
	h.running("cli")
	ctx := context.Background()
	reported := time.Now().Add(-time.Minute)
	if err := h.bus.Beat(ctx, bus.Heartbeat{Agent: "cli", Status: bus.StatusNeedsHuman, Note: "may I run the tests?", Time: reported}); err != nil {
		t.Fatal(err)
	}
	if err := h.sup.SendKeys("cli", []byte("spinner\r")); err != nil { // the terminal echoes it: output
		t.Fatal(err)
	}
	var hb bus.Heartbeat
	h.waitFor("a heartbeat from the output", func() bool {
		hbs, err := h.bus.Heartbeats(ctx)
		if err != nil || len(hbs) != 1 {
			return false
		}
		hb = hbs[0]
		return hb.Time.After(reported.Add(time.Second))
	})
	if hb.Status != bus.StatusNeedsHuman || hb.Note != "may I run the tests?" {
		t.Fatalf("after output the heartbeat is %s %q; want needs-human with the reason", hb.Status, hb.Note)
	}
}
