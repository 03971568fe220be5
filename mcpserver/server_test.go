package mcpserver

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"swarm/actor"
	"swarm/bus"
)

// swarmBus is a bus in a temporary directory with agents registered as a
// running swarm registers them, each with its token.
type swarmBus struct {
	t *testing.T
	b *bus.Bus
}

func newSwarmBus(t *testing.T, agents ...string) *swarmBus {
	t.Helper()
	b, err := bus.Open(bus.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	s := &swarmBus{t: t, b: b}
	for _, a := range agents {
		s.register(bus.Agent{Name: a, Cmd: "sh", State: bus.AgentRunning})
	}
	return s
}

func (s *swarmBus) register(a bus.Agent) {
	s.t.Helper()
	if err := s.b.RegisterAgent(s.t.Context(), a); err != nil {
		s.t.Fatal(err)
	}
	if err := s.b.SetAgentToken(s.t.Context(), a.Name, tokenOf(a.Name)); err != nil {
		s.t.Fatal(err)
	}
}

func tokenOf(agent string) string { return "test-token-of-" + agent }

// env is a process environment of the variables given as name, value
// pairs, and nothing else.
func env(kv ...string) func(string) string {
	return func(name string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1]
			}
		}
		return ""
	}
}

// as is the environment swarm gives agent: its name and its token.
func as(agent string) func(string) string {
	return env("SWARM_AGENT", agent, "SWARM_TOKEN", tokenOf(agent))
}

var human = env()

// connect starts the server of s's bus in the environment getenv and
// returns a client session to it; both end with the test.
func (s *swarmBus) connect(getenv func(string) string) *client {
	s.t.Helper()
	ctx := s.t.Context()
	server := New(s.b, Options{Version: "test", Getenv: getenv, Dir: s.t.TempDir()})
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return &client{t: s.t, cs: cs}
}

type client struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func (c *client) call(tool string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.cs.CallTool(c.t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// ok calls tool, requires success and decodes its structured result into out.
func (c *client) ok(tool string, args map[string]any, out any) {
	c.t.Helper()
	res := c.call(tool, args)
	if res.IsError {
		c.t.Fatalf("%s %v: %s", tool, args, text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		c.t.Fatalf("%s: %v in %s", tool, err, raw)
	}
}

// refused calls tool, requires a tool error and returns its text.
func (c *client) refused(tool string, args map[string]any) string {
	c.t.Helper()
	res := c.call(tool, args)
	if !res.IsError {
		c.t.Fatalf("%s %v was not refused: %s", tool, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestTheServerNamesItselfAndItsTools(t *testing.T) {
	c := newSwarmBus(t).connect(human)
	init := c.cs.InitializeResult()
	if init.ServerInfo.Name != "swarm" || init.ServerInfo.Version != "test" || init.Instructions == "" {
		t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	list, err := c.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		// No argument can name the sender, and none it does not list
		// is taken.
		if strings.Contains(string(schema), `"from"`) || !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("%s's input schema: %s", tool.Name, schema)
		}
	}
	slices.Sort(names)
	want := []string{"agents", "heartbeat", "inbox", "send", "task_create", "task_done", "task_fail", "task_start"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

type sent struct {
	ID         string `json:"id"`
	Deliveries []struct {
		To, State, Error string
	} `json:"deliveries"`
}

type unread struct {
	Messages []struct {
		ID, From, To, Kind, Body, Topic, State, Error string
		Data                                          json.RawMessage
		CorrelationID                                 string `json:"correlation_id"`
		InReplyTo                                     string `json:"in_reply_to"`
	} `json:"messages"`
	More bool `json:"more"`
}

func TestSendAndInboxActAsTheAgentWhoseEnvironmentItIs(t *testing.T) {
	s := newSwarmBus(t, "alice", "bob")
	alice, bob := s.connect(as("alice")), s.connect(as("bob"))

	// Data is kept as sent: key order and a number past 2^53 included.
	const data = `{"z":1,"a":[true,null],"n":12345678901234567891}`
	var out sent
	alice.ok("send", map[string]any{"to": "bob", "body": "please review\nauth.go", "type": "review", "data": json.RawMessage(data),
		"topic": "auth", "correlation_id": "c-1", "in_reply_to": "m-0"}, &out)
	if len(out.Deliveries) != 1 || out.Deliveries[0].To != "bob" || out.Deliveries[0].State != "queued" {
		t.Errorf("send: %+v", out)
	}
	m, err := s.b.Message(t.Context(), out.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.From != "alice" || m.Kind != "review" || m.Body != "please review\nauth.go" || string(m.Data) != data ||
		m.Topic != "auth" || m.CorrelationID != "c-1" || m.InReplyTo != "m-0" {
		t.Errorf("stored: %+v (data %s)", m, m.Data)
	}
	alice.ok("send", map[string]any{"to": "*", "body": "hello all"}, &out)

	var in unread
	bob.ok("inbox", nil, &in)
	if len(in.Messages) != 2 || in.More {
		t.Fatalf("bob's inbox: %+v", in)
	}
	first := in.Messages[0]
	if first.ID != m.ID || first.From != "alice" || first.To != "bob" || first.Kind != "review" || first.Body != m.Body ||
		first.Topic != "auth" || first.CorrelationID != "c-1" || first.InReplyTo != "m-0" || first.State != "queued" {
		t.Errorf("first message: %+v", first)
	}
	var got, want any
	if json.Unmarshal(first.Data, &got) != nil || json.Unmarshal([]byte(data), &want) != nil || !jsonEqual(got, want) {
		t.Errorf("data %s, want %s", first.Data, data)
	}
	if in.Messages[1].To != "*" || in.Messages[1].Body != "hello all" {
		t.Errorf("broadcast: %+v", in.Messages[1])
	}
	// Read is read: the next call returns only what came since.
	bob.ok("inbox", nil, &in)
	if len(in.Messages) != 0 {
		t.Errorf("second inbox: %+v", in)
	}
	for _, body := range []string{"one", "two", "three"} {
		alice.ok("send", map[string]any{"to": "bob", "body": body}, &out)
	}
	bob.ok("inbox", map[string]any{"limit": 2}, &in)
	if len(in.Messages) != 2 || !in.More || in.Messages[0].Body != "one" {
		t.Errorf("a page of 2: %+v", in)
	}
	bob.ok("inbox", map[string]any{"limit": 2}, &in)
	if len(in.Messages) != 1 || in.More || in.Messages[0].Body != "three" {
		t.Errorf("the rest: %+v", in)
	}
	// alice's inbox is hers: the broadcast was not to her, a notice is.
	alice.ok("inbox", nil, &in)
	if len(in.Messages) != 0 {
		t.Errorf("alice's inbox: %+v", in)
	}
	// A name that is no agent is refused before it is stored: no notice.
	alice.refused("send", map[string]any{"to": "carol", "body": "hi"})
	alice.ok("inbox", nil, &in)
	if len(in.Messages) != 0 {
		t.Errorf("alice's inbox after a refused send: %+v", in)
	}
	// One stored as failed (an agent that takes no messages) gets one.
	s.register(bus.Agent{Name: "vim", Cmd: "vim", State: bus.AgentRunning, NoMessages: true})
	alice.refused("send", map[string]any{"to": "vim", "body": "hi"})
	alice.ok("inbox", nil, &in)
	if len(in.Messages) != 1 || in.Messages[0].From != "swarm" || in.Messages[0].Kind != "notice" {
		t.Errorf("alice's notice: %+v", in)
	}
	// The inbox tool reads; it delivers nothing: swarm still types all
	// of bob's messages into his terminal.
	if pending, err := s.b.Pending(t.Context(), "bob", 0); err != nil || len(pending) != 5 {
		t.Errorf("pending for bob: %d (%v)", len(pending), err)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestNoArgumentOrVariableMakesTheSenderAnother(t *testing.T) {
	s := newSwarmBus(t, "alice", "bob")
	alice := s.connect(as("alice"))
	// The schema has no "from", and a field it does not list is refused.
	if msg := alice.refused("send", map[string]any{"to": "bob", "body": "hi", "from": "bob"}); !strings.Contains(msg, "from") {
		t.Errorf("an extra from: %q", msg)
	}
	// Naming bob without bob's token, or with alice's, is refused as the
	// command line refuses it.
	forged := env("SWARM_AGENT", "bob", "SWARM_TOKEN", tokenOf("alice"))
	if msg := s.connect(forged).refused("send", map[string]any{"to": "alice", "body": "hi"}); msg !=
		`swarm: send: $SWARM_AGENT is "bob", but $SWARM_TOKEN is agent alice's` {
		t.Errorf("alice's token as bob: %q", msg)
	}
	if msg := s.connect(env("SWARM_AGENT", "bob")).refused("send", map[string]any{"to": "alice", "body": "hi"}); msg !=
		`swarm: send: $SWARM_AGENT is "bob", but this is not agent bob's process: it has no $SWARM_TOKEN and does not run inside bob` {
		t.Errorf("bob without a token: %q", msg)
	}
	// The token alone says who it is.
	var out sent
	s.connect(env("SWARM_TOKEN", tokenOf("alice"))).ok("send", map[string]any{"to": "bob", "body": "from the token"}, &out)
	ms, err := s.b.Messages(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, m := range ms {
		from = append(from, m.From+":"+m.Body)
	}
	if !slices.Equal(from, []string{"alice:from the token"}) {
		t.Errorf("messages on the bus: %q", from)
	}
	// Without an agent's environment the caller is the human.
	s.connect(human).ok("send", map[string]any{"to": "bob", "body": "from the person"}, &out)
	if m, err := s.b.Message(t.Context(), out.ID); err != nil || m.From != bus.Human {
		t.Errorf("human's message: %+v %v", m, err)
	}
}

func TestRefusalsAreTheCommandLinesLines(t *testing.T) {
	s := newSwarmBus(t, "bob", "carol")
	bob, person := s.connect(as("bob")), s.connect(human)
	var task struct{ ID string }
	person.ok("task_create", map[string]any{"to": "bob", "title": "Fix login"}, &task)
	for _, c := range []struct {
		who  *client
		tool string
		args map[string]any
		want string // the line the command line prints for the same mistake; #xxxxxxxx: a message id
	}{
		{bob, "send", map[string]any{"to": "carol", "body": " \n"}, `swarm: send: the message is empty`},
		{bob, "send", map[string]any{"to": "carol", "body": "hi", "type": "x y"}, `swarm: send: --type: invalid message: kind "x y" is not a word (letters, digits, _ . -)`},
		{bob, "send", map[string]any{"to": "swarm", "body": "hi"}, `swarm: send: swarm takes control messages only: unknown control message type "hi" (want task_start, task_done, task_fail, task_create, heartbeat, turn)`},
		{bob, "send", map[string]any{"to": "nobody", "body": "hi"}, `swarm: send: unknown agent "nobody"`},
		{bob, "send", map[string]any{"to": "carl", "body": "hi"}, `swarm: send: unknown agent "carl" (did you mean "carol"?)`},
		{person, "heartbeat", nil, `swarm: heartbeat: only agents send heartbeats, and this runs outside any agent`},
		{bob, "heartbeat", map[string]any{"progress": 1.5}, `swarm: heartbeat: progress 1.5 is not between 0 and 1: invalid heartbeat`},
		{bob, "heartbeat", map[string]any{"status": "sleeping"}, `swarm: heartbeat: unknown status "sleeping" (want idle, working, blocked or needs-human)`},
		{bob, "heartbeat", map[string]any{"task": "zzz"}, `swarm: heartbeat bob: task zzz: not found`},
		{person, "task_done", nil, `swarm: no task id given and human has no current task (none WORKING, CONFLICTED, ASSIGNED or IN_REVIEW): not found`},
		{s.connect(as("carol")), "task_fail", map[string]any{"id": task.ID}, `swarm: task ` + task.ID + ` is assigned to bob, not carol`},
		{person, "task_create", map[string]any{"to": "ghost", "title": "x"}, `swarm: create task: unknown agent "ghost"`},
		{person, "task_create", map[string]any{"to": "bbo", "title": "x"}, `swarm: create task: unknown agent "bbo" (did you mean "bob"?)`},
		{person, "task_create", map[string]any{"to": "bob", "title": "  "}, `swarm: create task: the title is empty`},
	} {
		if got := shortID.ReplaceAllString(c.who.refused(c.tool, c.args), "#xxxxxxxx"); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.tool, c.args, got, c.want)
		}
	}
	// Data that is not JSON cannot come from the tool (its data is a JSON
	// value); the command line's --data is checked by the same rule.
	_, err := actor.SendRequest{To: "bob", Body: "hi", Kind: "message", Data: json.RawMessage(`{"a":`)}.Message()
	if err == nil || err.Error() != "send: --data is not valid JSON: unexpected end of JSON input" || !errors.Is(err, actor.ErrUsage) {
		t.Errorf("bad data: %v", err)
	}
}

var shortID = regexp.MustCompile(`#[0-9a-f]{8}\b`)

type moved struct{ ID, Title, From, To string }

func TestTaskToolsMoveTheCallersTask(t *testing.T) {
	s := newSwarmBus(t, "alice", "bob")
	bob := s.connect(as("bob"))
	var created struct{ ID, Title, Assignee, State string }
	bob.ok("task_create", map[string]any{"to": "alice", "title": "Write the docs", "description": "all of them"}, &created)
	task, err := s.b.Task(t.Context(), created.ID)
	if err != nil || task.CreatedBy != "bob" || task.Assignee != "alice" || task.Description != "all of them" ||
		created.State != "ASSIGNED" || created.Title != "Write the docs" {
		t.Fatalf("created %+v: %+v %v", created, task, err)
	}
	s.connect(human).ok("task_create", map[string]any{"to": "bob", "title": "Fix login"}, &created)

	var m moved
	for _, step := range []struct {
		tool     string
		args     map[string]any
		from, to string
	}{
		{"task_start", nil, "ASSIGNED", "WORKING"},
		{"task_start", nil, "WORKING", "WORKING"}, // a repeat is no move
		{"task_done", map[string]any{"note": "fixed the cookie"}, "WORKING", "IN_REVIEW"},
	} {
		bob.ok(step.tool, step.args, &m)
		if m.ID != created.ID || m.Title != "Fix login" || m.From != step.from || m.To != step.to {
			t.Errorf("%s: %+v, want %s → %s", step.tool, m, step.from, step.to)
		}
	}
	s.connect(human).ok("task_create", map[string]any{"to": "bob", "title": "Second"}, &created)
	bob.ok("task_fail", map[string]any{"id": created.ID[:4], "reason": "cannot reproduce"}, &m)
	if m.From != "ASSIGNED" || m.To != "FAILED" {
		t.Errorf("fail: %+v", m)
	}
	events, err := s.b.TaskEvents(t.Context(), created.ID)
	if err != nil || len(events) != 2 || events[1].Actor != "bob" || events[1].Note != "cannot reproduce" {
		t.Errorf("events %+v %v", events, err)
	}
}

func TestAgentsShowsStatesTasksAndHeartbeats(t *testing.T) {
	s := newSwarmBus(t, "alice", "bob")
	s.register(bus.Agent{Name: "notes", Cmd: "vim", State: bus.AgentRunning, NoMessages: true})
	s.register(bus.Agent{Name: "gone", Cmd: "sh", State: bus.AgentRemoved})
	bob := s.connect(as("bob"))
	var task struct{ ID string }
	s.connect(human).ok("task_create", map[string]any{"to": "bob", "title": "Fix login"}, &task)
	var m moved
	bob.ok("task_start", nil, &m)
	var beat struct {
		Status   string
		Progress float64
		Task     string
	}
	bob.ok("heartbeat", map[string]any{"status": "blocked", "progress": 0.25, "task": task.ID}, &beat)
	if beat.Status != "blocked" || beat.Progress != 0.25 || beat.Task != task.ID {
		t.Errorf("heartbeat: %+v", beat)
	}

	var out struct {
		SwarmRunning bool `json:"swarm_running"`
		Agents       []struct {
			Name, State, Liveness string
			TakesMessages         bool `json:"takes_messages"`
			Heartbeat             *struct {
				Status   string
				Progress float64
				Task     string
			}
			Task *struct{ ID, Title, State string }
		}
	}
	s.connect(as("alice")).ok("agents", nil, &out)
	var names []string
	for _, a := range out.Agents {
		names = append(names, a.Name)
	}
	if out.SwarmRunning || !slices.Equal(names, []string{"alice", "bob", "notes"}) {
		t.Fatalf("agents: %+v", out)
	}
	alice, b, notes := out.Agents[0], out.Agents[1], out.Agents[2]
	if alice.State != "running" || alice.Liveness != "OK" || !alice.TakesMessages || alice.Task != nil || alice.Heartbeat != nil {
		t.Errorf("alice: %+v", alice)
	}
	if b.Task == nil || b.Task.ID != task.ID || b.Task.Title != "Fix login" || b.Task.State != "WORKING" ||
		b.Heartbeat == nil || b.Heartbeat.Status != "blocked" || b.Heartbeat.Progress != 0.25 || b.Heartbeat.Task != task.ID {
		t.Errorf("bob: %+v (task %+v, heartbeat %+v)", b, b.Task, b.Heartbeat)
	}
	if notes.TakesMessages {
		t.Errorf("notes takes no messages: %+v", notes)
	}
	// The default heartbeat is "working", also with arguments sent as
	// null (nil here), which the SDK's defaults would not survive.
	bob.ok("heartbeat", nil, &beat)
	if beat.Status != "working" || beat.Progress != 0 {
		t.Errorf("default heartbeat: %+v", beat)
	}
}
