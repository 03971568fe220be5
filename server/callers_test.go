package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/supervisor"
	"swarm/wire"
)

func rawParams(s string) json.RawMessage { return json.RawMessage(s) }

// The human's methods are refused to a process inside an agent, and what
// it sends or creates is its own whatever the request says; the human (a
// process outside every agent: this test) is served the same requests.
func TestAnAgentIsNotTheHuman(t *testing.T) {
	t.Parallel()
	busDir := filepath.Join(t.TempDir(), ".swarm")
	humans := []call{
		{"Paste", rawParams(`{"Agent":"a","Text":"[relay #deadbeef from alice] typed by b\r"}`)},
		{"SendKey", rawParams(`{"Agent":"a","Key":{"Code":13}}`)},
		{"Resize", rawParams(`{"Agent":"a","Rows":10,"Cols":20}`)},
		{"AddAgent", rawParams(`{"Name":"c","Cmd":"sh"}`)},
		{"SaveAgent", rawParams(`{"Agent":"a"}`)},
		{"Restart", rawParams(`{"Agent":"a"}`)},
		{"StopAgent", rawParams(`{"Agent":"a"}`)},
		{"SetFocus", rawParams(`{"Agent":"a"}`)},
		{"Approve", rawParams(`{"ID":"t1"}`)},
		{"RequestChanges", rawParams(`{"ID":"t1"}`)},
		{"Cancel", rawParams(`{"ID":"t1"}`)},
		{"Retry", rawParams(`{"ID":"t1"}`)},
		{"Merge", rawParams(`{"ID":"t1"}`)},
		{"Prune", rawParams(`{"DryRun":true}`)},
		{wire.MethodStop, nil},
	}
	calls := append(slices.Clone(humans),
		call{"Send", rawParams(`{"From":"alice","To":"a","Body":"b says hi"}`)},
		call{"CreateTask", rawParams(`{"Title":"b's task","Assignee":"a","CreatedBy":"alice"}`)},
		call{"send", rawParams(`{"Env":{"Agent":"alice"},"To":"a","Body":"b as alice","Kind":"message"}`)},
		call{"send", rawParams(`{"Env":{},"To":"a","Body":"b without its token","Kind":"message"}`)},
		call{wire.MethodPeek, rawParams(`{"agent":"a"}`)},
		call{"Agents", nil},
	)
	b, answers := agentCalling(t, "b", calls)
	a := supervisor.AgentConfig{Name: "a", Argv: []string{"cat"}, Dir: t.TempDir(), Restart: supervisor.RestartNever}
	alice := supervisor.AgentConfig{Name: "alice", Argv: []string{"cat"}, Dir: t.TempDir(), Restart: supervisor.RestartNever}
	_, bs := startSwarmBus(t, busDir, a, alice, b)

	got := answers()
	if len(got) != len(calls) {
		t.Fatalf("%d answers to %d calls: %+v", len(got), len(calls), got)
	}
	byMethod := map[string][]answer{}
	for _, a := range got {
		byMethod[a.Method] = append(byMethod[a.Method], a)
	}
	for _, c := range humans {
		a := byMethod[c.Method][0]
		if a.Code != "human_only" || !strings.Contains(a.Error, "from inside agent b") {
			t.Errorf("%s from inside b: %+v, want it refused as the human's", c.Method, a)
		}
	}
	for _, m := range []string{"Send", "CreateTask", wire.MethodPeek, "Agents"} {
		if a := byMethod[m][0]; a.Error != "" {
			t.Errorf("%s from inside b: %s", m, a.Error)
		}
	}
	var asAlice, noToken wire.ActorResult[bus.Message]
	if err := json.Unmarshal(byMethod["send"][0].Result, &asAlice); err != nil || !strings.Contains(asAlice.Err, `"alice", but this runs inside agent b`) {
		t.Errorf("b's swarm send as alice: %+v %v", asAlice, err)
	}
	if err := json.Unmarshal(byMethod["send"][1].Result, &noToken); err != nil || noToken.Err != "" || noToken.Value.From != "b" {
		t.Errorf("b's swarm send without its token: %+v %v", noToken, err)
	}

	// On the bus: what b sent and created is b's, nothing is alice's.
	ctx := context.Background()
	msgs, err := bs.Messages(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	from := map[string]string{}
	for _, m := range msgs {
		from[m.Body] = m.From
	}
	if from["b says hi"] != "b" || from["b without its token"] != "b" {
		t.Errorf("senders: %v, want b's messages from b", from)
	}
	if _, ok := from["b as alice"]; ok {
		t.Errorf("b's message as alice was stored: %v", from)
	}
	ts, err := bs.Tasks(ctx, bus.TaskFilter{})
	if err != nil || len(ts) != 1 || ts[0].CreatedBy != "b" {
		t.Errorf("tasks: %+v %v, want b's task created by b", ts, err)
	}

	// The human is served the same requests.
	r, err := Attach(ctx, busDir, "swarm test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Paste("a", "typed by the human\r"); err != nil {
		t.Errorf("the human's Paste: %v", err)
	}
	if err := r.Resize("a", 20, 60); err != nil {
		t.Errorf("the human's Resize: %v", err)
	}
	if m, err := r.Send(ctx, bus.Message{From: "alice", To: "a", Body: "the human says hi"}); err != nil || m.From != bus.Human {
		t.Errorf("the human's Send: %+v %v", m, err)
	}
	if tk, err := r.CreateTask(ctx, bus.NewTask{Title: "the human's task", Assignee: "a", CreatedBy: "alice"}); err != nil || tk.CreatedBy != bus.Human {
		t.Errorf("the human's CreateTask: %+v %v", tk, err)
	}
	testrun.Within(t, testrun.Patience, "the human's line on a's screen", func() bool {
		res, err := r.Peek(ctx, "a")
		return err == nil && slices.ContainsFunc(res.Lines, func(l string) bool { return strings.Contains(l, "typed by the human") })
	})
	if res, _ := r.Peek(ctx, "a"); slices.ContainsFunc(res.Lines, func(l string) bool { return strings.Contains(l, "deadbeef") }) {
		t.Errorf("b's paste reached a: %q", res.Lines)
	}
}

// A process that has ended is nobody: had its connection been handed to
// another process, that one must not pass for the human (nor anyone),
// whether it asks for a method of the UI's or one of the command line's.
func TestAProcessThatEndedIsNobody(t *testing.T) {
	t.Parallel()
	srv := startSwarm(t, filepath.Join(t.TempDir(), ".swarm"))
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	proc, ok := supervisor.ProcessOf(cmd.Process.Pid)
	if !ok {
		t.Fatalf("no process %d", cmd.Process.Pid)
	}
	c := &client{proc: proc}
	if err := c.alive(); err != nil {
		t.Fatalf("a running process: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := c.alive(); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Fatalf("an ended process: %v", err)
	}
	ctx := context.WithValue(context.Background(), clientKey{}, c)
	if _, err := srv.handle(ctx, wire.Request{Method: "Paste", Params: rawParams(`{"Agent":"a","Text":"x"}`)}); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("the UI's Paste from an ended process: %v", err)
	}
	res, err := srv.handle(ctx, wire.Request{Method: "send", Params: rawParams(`{"Env":{},"To":"human","Body":"hi","Kind":"message"}`)})
	if r, ok := res.(wire.ActorResult[bus.Message]); err != nil || !ok || !strings.Contains(r.Err, "has ended") {
		t.Errorf("swarm send from an ended process: %+v, %v", res, err)
	}
	self, _ := supervisor.ProcessOf(os.Getpid())
	if err := (&client{proc: supervisor.Process{Pid: self.Pid, Start: self.Start + 1}}).alive(); err == nil {
		t.Fatal("another process of the same pid passed")
	}
}
