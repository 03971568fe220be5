package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestHostActsOnlyForItsAgents: the main swarm makes a request a host
// sends (swarm task … inside its agent) only for an agent that host runs.
func TestHostActsOnlyForItsAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tm := startMain(t, dir, freeAddr(t), "[[agent]]\nname = \"lead\"\ncmd = [\"sh\"]\n\n[[agent]]\nname = \"worker\"\ncmd = [\"sh\"]\nhost = \"box\"\n")
	acted := make(chan string, 1)
	tm.main.ActFor(func(_ context.Context, agent, method string, _ json.RawMessage) (json.RawMessage, error) {
		acted <- agent + " " + method
		return json.RawMessage(`{}`), nil
	})
	u, err := ParseJoinURL(tm.invite(t, "box"))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := Dial(u, "test host")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ask := func(agent string) agentReply {
		t.Helper()
		data, _ := json.Marshal(actorCall{Agent: agent, Method: "task_move", Params: json.RawMessage(`{}`)})
		msg, err := nc.Request(tm.main.space.actor("box"), data, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var r agentReply
		if err := json.Unmarshal(msg.Data, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := ask("lead"); !strings.Contains(r.Error, `host box does not run agent "lead"`) {
		t.Errorf("box acting for lead: %+v, want a refusal", r)
	}
	if r := ask("worker"); r.Error != "" {
		t.Errorf("box acting for worker: %s", r.Error)
	}
	if got := <-acted; got != "worker task_move" {
		t.Errorf("acted: %q, want worker's request only", got)
	}
}
