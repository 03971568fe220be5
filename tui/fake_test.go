package tui

import (
	"context"

	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/swarmapi"
	"swarm/tasks"
)

func TestMain(m *testing.M) {
	// Golden files show clock times; make them independent of the
	// machine's zone.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// t0 is the fixed "now" of the model tests.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// fakeScreen is an agent's terminal in the fake: plain rows, a
// scrollback and a cursor.
type fakeScreen struct {
	size       int // rows of the terminal (the last Resize)
	rows       []string
	scrollback []string
	cursor     swarmapi.ScreenSnapshot
}

// visible returns the screen's rows, as many as the terminal has.
func (s *fakeScreen) visible() []string {
	out := make([]string, s.size)
	copy(out, s.rows)
	return out
}

// fakeSwarm is a Backend over a real bus in a temporary directory, with
// agents whose screens the test writes and whose inputs it records.
type fakeSwarm struct {
	b *bus.Bus

	mu       sync.Mutex
	agents   []swarmapi.AgentInfo
	screens  map[string]*fakeScreen
	keys     map[string][]swarmapi.Key
	pastes   map[string][]string
	resizes  []string // "name rows×cols"
	restarts []string
	stops    []string
	added    []swarmapi.NewAgent
	game     *swarmapi.GameState
	renders  map[string]int // Render calls per agent
	merged   []string       // Merge calls
	// queueMerges: Merge puts the task in the merge queue, as with
	// [checks] (the queue itself is package checks', tested there).
	queueMerges bool
	// prunable are the finished tasks whose branches Prune deletes (the
	// git work is the task service's, tested there); pruned records it.
	prunable []tasks.Pruned
	pruned   bool
	// configFile is what ConfigFile says; saved records SaveAgent (the
	// file is the supervisor's, tested there).
	configFile string
	saved      []string
	// sendKeyGate, when set, is waited on by SendKey (an agent that does
	// not read its input).
	sendKeyGate chan struct{}
	// renderGate holds Render of an agent until closed (a busy agent
	// whose screen lock is taken).
	renderGate map[string]chan struct{}
}

func newFakeSwarm(t *testing.T, names ...string) *fakeSwarm {
	t.Helper()
	b, err := bus.Open(bus.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	f := &fakeSwarm{
		b:       b,
		screens: map[string]*fakeScreen{},
		keys:    map[string][]swarmapi.Key{},
		pastes:  map[string][]string{},
		renders: map[string]int{},
	}
	for i, n := range names {
		f.addRunning(t, n, 1000+i)
	}
	return f
}

// addRunning registers a running agent with an empty screen.
func (f *fakeSwarm) addRunning(t *testing.T, name string, pid int) {
	t.Helper()
	if err := f.b.RegisterAgent(context.Background(), bus.Agent{Name: name, Cmd: "sh", State: bus.AgentRunning}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.agents = append(f.agents, swarmapi.AgentInfo{
		Name: name, Cmd: "sh", State: swarmapi.StateRunning, Pid: pid,
		Started: t0.Add(-time.Minute), LastOutput: t0.Add(-3 * time.Second), Level: bus.LevelOK, Rows: 24, Cols: 80,
	})
	f.screens[name] = &fakeScreen{size: 24, cursor: swarmapi.ScreenSnapshot{CursorVisible: true}}
}

// setScreen sets an agent's visible rows.
func (f *fakeSwarm) setScreen(name string, rows ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screens[name].rows = rows
}

// setScrollback sets the rows that have scrolled off an agent's screen.
func (f *fakeSwarm) setScrollback(name string, rows ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screens[name].scrollback = rows
}

func (f *fakeSwarm) setAgent(name string, fn func(*swarmapi.AgentInfo)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.agents {
		if f.agents[i].Name == name {
			fn(&f.agents[i])
		}
	}
}

func (f *fakeSwarm) Agents() []swarmapi.AgentInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.agents)
}

func (f *fakeSwarm) screen(name string) (*fakeScreen, error) {
	s, ok := f.screens[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", swarmapi.ErrUnknownAgent, name)
	}
	return s, nil
}

func (f *fakeSwarm) View(name string, top int) (swarmapi.ScreenView, error) {
	f.mu.Lock()
	gate := f.renderGate[name]
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.screen(name)
	if err != nil {
		return swarmapi.ScreenView{}, err
	}
	f.renders[name]++
	v := swarmapi.ScreenView{Scrollback: len(s.scrollback),
		Cursor: s.cursor.Cursor, CursorVisible: s.cursor.CursorVisible}
	if top >= 0 {
		v.Offset = min(max(v.Scrollback-top, 0), v.Scrollback)
	}
	all := append(slices.Clone(s.scrollback), s.visible()...)
	first := v.Scrollback - v.Offset
	v.Rows = strings.Join(all[first:first+s.size], "\n")
	return v, nil
}

func (f *fakeSwarm) Text(name string, from, to int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.screen(name)
	if err != nil {
		return "", err
	}
	rows := append(slices.Clone(s.scrollback), s.visible()...)
	var out []string
	for i := max(from, 0); i <= min(to, len(rows)-1); i++ {
		out = append(out, strings.TrimRight(ansi.Strip(rows[i]), " "))
	}
	return strings.Join(out, "\n"), nil
}

func (f *fakeSwarm) Find(name, query string) []swarmapi.ScreenMatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.screen(name)
	if err != nil || query == "" {
		return nil
	}
	// Rows here are never wrapped: a match is on one row. (Wrapped rows
	// are the screen's, tested in spawner.)
	q := strings.ToLower(query)
	var hits []swarmapi.ScreenMatch
	for i, r := range append(slices.Clone(s.scrollback), s.visible()...) {
		text := strings.ToLower(ansi.Strip(r))
		for from := 0; ; {
			j := strings.Index(text[from:], q)
			if j < 0 {
				break
			}
			col := ansi.StringWidth(text[:from+j])
			hits = append(hits, swarmapi.ScreenMatch{Row: i, Spans: []swarmapi.ScreenSpan{{Row: i, From: col, To: col + ansi.StringWidth(q)}}})
			from += j + len(q)
		}
	}
	return hits
}

func (f *fakeSwarm) Resize(name string, rows, cols int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resizes = append(f.resizes, fmt.Sprintf("%s %d×%d", name, rows, cols))
	if s, ok := f.screens[name]; ok {
		s.size = rows
	}
	return nil
}

func (f *fakeSwarm) SendKey(name string, k swarmapi.Key) error {
	if f.sendKeyGate != nil {
		<-f.sendKeyGate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.screens[name]; !ok {
		return fmt.Errorf("%w %q", swarmapi.ErrUnknownAgent, name)
	}
	f.keys[name] = append(f.keys[name], k)
	return nil
}

func (f *fakeSwarm) Paste(name, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pastes[name] = append(f.pastes[name], text)
	return nil
}

// typed returns the keys an agent got, as keystroke names.
func (f *fakeSwarm) typed(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, k := range f.keys[name] {
		out = append(out, uv.Key{Code: k.Code, Text: k.Text, Mod: uv.KeyMod(k.Mod)}.String())
	}
	return out
}

func (f *fakeSwarm) Restart(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restarts = append(f.restarts, name)
	return nil
}

func (f *fakeSwarm) StopAgent(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stops = append(f.stops, name)
	for i := range f.agents {
		if f.agents[i].Name == name {
			f.agents[i].State = swarmapi.StateStopped
		}
	}
	return nil
}

func (f *fakeSwarm) AddAgent(ac swarmapi.NewAgent) error {
	f.mu.Lock()
	for _, a := range f.agents {
		if a.Name == ac.Name {
			f.mu.Unlock()
			return fmt.Errorf("%w: %q", swarmapi.ErrAgentExists, ac.Name)
		}
	}
	f.added = append(f.added, ac)
	f.mu.Unlock()
	return nil
}

func (f *fakeSwarm) Send(ctx context.Context, m bus.Message) (bus.Message, error) {
	m.From = bus.Human
	return f.b.Publish(ctx, m)
}

func (f *fakeSwarm) Dismiss(ctx context.Context, id string) error {
	return f.b.MarkConfirmed(ctx, id, bus.Human)
}

func (f *fakeSwarm) Game() (swarmapi.GameState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.game == nil {
		return swarmapi.GameState{}, false
	}
	return *f.game, true
}

// The Reader: the fake's real bus answers.
func (f *fakeSwarm) Inbox(ctx context.Context, agent string, limit int) ([]bus.Message, error) {
	return f.b.Inbox(ctx, agent, limit)
}
func (f *fakeSwarm) Messages(ctx context.Context, after int64, limit int) ([]bus.Message, error) {
	return f.b.Messages(ctx, after, limit)
}
func (f *fakeSwarm) LastSeq(ctx context.Context) (int64, error) { return f.b.LastSeq(ctx) }
func (f *fakeSwarm) Pending(ctx context.Context, recipient string, limit int) ([]bus.Message, error) {
	return f.b.Pending(ctx, recipient, limit)
}
func (f *fakeSwarm) Tasks(ctx context.Context, filter bus.TaskFilter) ([]bus.Task, error) {
	return f.b.Tasks(ctx, filter)
}
func (f *fakeSwarm) TaskEvents(ctx context.Context, id string) ([]bus.TaskEvent, error) {
	return f.b.TaskEvents(ctx, id)
}
func (f *fakeSwarm) AllChecks(ctx context.Context) ([]bus.Check, error) { return f.b.AllChecks(ctx) }
func (f *fakeSwarm) MergeQueue(ctx context.Context) ([]bus.QueueEntry, error) {
	return f.b.MergeQueue(ctx)
}
func (f *fakeSwarm) Reviews(ctx context.Context, id string) ([]bus.Review, error) {
	return f.b.Reviews(ctx, id)
}

func (f *fakeSwarm) Heartbeats(ctx context.Context) ([]bus.Heartbeat, error) {
	return f.b.Heartbeats(ctx)
}

func (f *fakeSwarm) ConfigFile() string { return f.configFile }

func (f *fakeSwarm) SaveAgent(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saved = append(f.saved, name)
	return nil
}

func (f *fakeSwarm) Prune(ctx context.Context, dryRun bool) ([]tasks.Pruned, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !dryRun {
		f.pruned = true
	}
	return slices.Clone(f.prunable), nil
}

func (f *fakeSwarm) CreateTask(ctx context.Context, t bus.NewTask) (bus.Task, error) {
	t.CreatedBy = bus.Human
	return f.b.CreateTask(ctx, t)
}

func (f *fakeSwarm) Approve(ctx context.Context, id, note string) (bus.Task, error) {
	return f.b.Transition(ctx, id, bus.TaskApproved, bus.Human, note)
}

func (f *fakeSwarm) RequestChanges(ctx context.Context, id, note string) (bus.Task, error) {
	return f.b.TransitionFrom(ctx, id, bus.TaskInReview, bus.TaskWorking, bus.Human, note)
}

func (f *fakeSwarm) Cancel(ctx context.Context, id, note string) (bus.Task, error) {
	return f.b.Transition(ctx, id, bus.TaskCancelled, bus.Human, note)
}

func (f *fakeSwarm) Retry(ctx context.Context, id, note string) (bus.Task, error) {
	return f.b.TransitionFrom(ctx, id, bus.TaskFailed, bus.TaskAssigned, bus.Human, note)
}

// Merge completes an approved task as a merge would, noting it.
func (f *fakeSwarm) Merge(ctx context.Context, id string) (bus.Task, error) {
	f.mu.Lock()
	f.merged = append(f.merged, id)
	queue := f.queueMerges
	f.mu.Unlock()
	if queue {
		if _, _, _, err := f.b.Enqueue(ctx, id, bus.Human); err != nil {
			return bus.Task{}, err
		}
		return f.b.Task(ctx, id)
	}
	return f.b.Transition(ctx, id, bus.TaskCompleted, bus.Human, "merged as 0123abc")
}

// harness drives a Model synchronously: every message goes to Update and
// every command it returns is run, its message fed back, until nothing is
// left.
type harness struct {
	t    *testing.T
	m    *Model
	sw   Backend
	quit bool
	// clipboard is what the UI last asked the terminal to put on its
	// clipboard (OSC 52); raw is what it wrote to the terminal itself
	// (the bell, notifications).
	clipboard string
	raw       []string
}

func newHarness(t *testing.T, sw Backend, w, h int, opts Options) *harness {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return t0 }
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := NewModel(ctx, sw, opts)
	m.manualClock = true
	hs := &harness{t: t, m: m, sw: sw}
	hs.run(m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// send delivers msg and runs what follows from it.
func (h *harness) send(msgs ...tea.Msg) {
	h.t.Helper()
	queue := slices.Clone(msgs)
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			h.t.Fatal("the model does not settle: more than 10000 messages")
		}
		msg := queue[0]
		queue = queue[1:]
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			for _, c := range msg {
				queue = append(queue, h.exec(c))
			}
			continue
		case tea.QuitMsg:
			h.quit = true
			continue
		}
		if r, ok := msg.(tea.RawMsg); ok {
			h.raw = append(h.raw, fmt.Sprint(r.Msg))
			continue
		}
		// Bubble Tea's own message for OSC 52, which it writes to the
		// terminal: the type is unexported, its value the text.
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" {
			h.clipboard = fmt.Sprint(msg)
			continue
		}
		_, cmd := h.m.Update(msg)
		queue = append(queue, h.exec(cmd))
	}
}

// run runs a command and delivers its message.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	h.send(h.exec(cmd))
}

// exec runs a command, failing the test if it does not return in time.
func (h *harness) exec(cmd tea.Cmd) tea.Msg {
	h.t.Helper()
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(testrun.Patience):
		h.t.Fatalf("a command did not return within %s", testrun.Patience)
		return nil
	}
}

// keys sends key presses named as in tea.Key.String: "a", "enter",
// "ctrl+]", "space"…
func (h *harness) keys(names ...string) {
	h.t.Helper()
	for _, n := range names {
		h.send(keyPress(n))
	}
}

// press presses a binding's first key, as a person would.
func (h *harness) press(b key.Binding) {
	h.t.Helper()
	h.keys(b.Keys()[0])
}

// selectTask moves the task board's selection to id by pressing down
// (after up to the top), as a person would.
func (h *harness) selectTask(id string) {
	h.t.Helper()
	for range len(h.m.tasks.tasks) {
		h.keys("up")
	}
	for range len(h.m.tasks.tasks) {
		if h.m.tasks.sel == id {
			return
		}
		h.keys("down")
	}
	if h.m.tasks.sel != id {
		h.t.Fatalf("task %s cannot be selected on the board (selected: %s)", id, h.m.tasks.sel)
	}
}

// typeText sends each character of s as a key press.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		if r == ' ' {
			h.send(keyPress("space"))
			continue
		}
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen is the window as a person reads it.
func (h *harness) screen() string {
	return ansi.Strip(h.m.Render())
}

// keyPress builds the key press a terminal would report for a name.
func keyPress(name string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"enter":     {Code: tea.KeyEnter},
		"esc":       {Code: tea.KeyEscape},
		"tab":       {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"space":     {Code: tea.KeySpace, Text: " "},
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"left":      {Code: tea.KeyLeft},
		"right":     {Code: tea.KeyRight},
		"pgup":      {Code: tea.KeyPgUp},
		"pgdown":    {Code: tea.KeyPgDown},
		"backspace": {Code: tea.KeyBackspace},
		"f5":        {Code: tea.KeyF5},
		"ctrl+]":    {Code: ']', Mod: tea.ModCtrl},
		"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
		"ctrl+d":    {Code: 'd', Mod: tea.ModCtrl},
		"alt+x":     {Code: 'x', Mod: tea.ModAlt},
	}
	if k, ok := special[name]; ok {
		return tea.KeyPressMsg(k)
	}
	r := []rune(name)
	if len(r) != 1 {
		panic("keyPress: unknown key " + name)
	}
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// publish stores a message with a fixed id and time.
func publish(t *testing.T, b *bus.Bus, n int, from, to, body string) bus.Message {
	t.Helper()
	m, err := b.Publish(context.Background(), bus.Message{
		ID:   fmt.Sprintf("01900000-0000-7000-8000-0000000a%04d", n),
		Time: t0.Add(time.Duration(n-100) * time.Second),
		From: from, To: to, Body: body,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reviewingSwarm is a fake with the optional diff of a task.
// Review shows a made-up change of the task's, none once it is merged.
func (f *fakeSwarm) Review(ctx context.Context, id string) (string, string, error) {
	t, err := f.b.Task(ctx, id)
	if err != nil {
		return "", "", err
	}
	if t.State == bus.TaskCompleted {
		return "", "", nil // merged: base...branch is empty
	}
	stat := " auth.go | 3 ++-\n 1 file changed, 2 insertions(+), 1 deletion(-)\n"
	diff := "diff --git a/auth.go b/auth.go\n--- a/auth.go\n+++ b/auth.go\n@@ -1,3 +1,4 @@\n package auth\n-func Login() {}\n+// Login checks " + t.Title + ".\n+func Login() error { return nil }\n"
	return stat, diff, nil
}
