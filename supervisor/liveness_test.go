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
	// The worker went through the warnings on its way. Before its task
	// was WORKING it was IDLE: a busy machine may judge it then.
	var seen []bus.Level
	for _, ev := range h.eventsOf(EventLevel) {
		if ev.Agent == "worker" && (len(seen) > 0 || ev.Level != bus.LevelIdle) {
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
