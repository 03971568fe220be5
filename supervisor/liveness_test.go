package supervisor

import (
	"context"
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
	cfg := &Config{
		// Levels are judged once a second: thresholds two seconds apart.
		Heartbeat: HeartbeatConfig{Warn: time.Second, Stale: 3 * time.Second, Dead: 5 * time.Second},
		Agents:    []AgentConfig{scripted("idle", "listen", nil), scripted("worker", "listen", nil), done, crash},
	}
	h.run(Options{Config: cfg})
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
	h.waitFor("worker stuck", func() bool { return level("worker") == bus.LevelStuck })
	h.waitFor("done and dead", func() bool { return level("done") == bus.LevelDone && level("crash") == bus.LevelDead })
	if l := level("idle"); l != bus.LevelIdle {
		t.Errorf("idle, quiet with nothing to do, is %s; want IDLE", l)
	}
	// The worker went through the warnings on its way.
	var seen []bus.Level
	for _, ev := range h.eventsOf(EventLevel) {
		if ev.Agent == "worker" {
			seen = append(seen, ev.Level)
		}
	}
	warned := false
	for i, l := range seen {
		warned = warned || l == bus.LevelWarn || l == bus.LevelStale
		if i > 0 && l < seen[i-1] {
			t.Errorf("worker's levels went back: %v", seen)
		}
	}
	if !warned {
		t.Errorf("worker's levels: %v; want a warning before STUCK", seen)
	}
}
