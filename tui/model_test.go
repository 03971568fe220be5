package tui

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"swarm/bus"
	"swarm/games"
	"swarm/gitrepo"
	"swarm/swarmapi"
	"swarm/tasks"
)

// scenario is a small swarm: alice at a shell prompt with coloured
// output, bob working on a task with a message waiting, carol crashed.
func scenario(t *testing.T) *fakeSwarm {
	t.Helper()
	sw := newFakeSwarm(t, "alice", "bob", "carol")
	sw.setScreen("alice",
		"$ go test ./...",
		"\x1b[32mok  \x1b[0m  swarm/bus  0.412s",
		"\x1b[1;31mFAIL\x1b[0m  swarm/tui  0.100s",
		"$ ")
	sw.setScreen("bob", "● Reading auth.go…", "  └ 120 lines", "", "\x1b[7m> \x1b[0m")
	sw.setScreen("carol", "panic: runtime error: index out of range [3] with length 3", "exit status 2")
	sw.setAgent("carol", func(a *swarmapi.AgentInfo) {
		a.State, a.Reason, a.Level, a.Pid = swarmapi.StateGaveUp, "gave up after 3 restarts: exit status 2", bus.LevelDead, 0
	})
	sw.setAgent("bob", func(a *swarmapi.AgentInfo) {
		a.Level, a.LastOutput = bus.LevelWarn, t0.Add(-42*time.Second)
	})
	publish(t, sw.b, 101, "human", "bob", "please review auth.go")
	return sw
}

// normalizer replaces what differs between runs (task ids, times the
// bus stamps) so that a screen can be compared with a golden file.
type normalizer map[string]string

var clockRE = regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`)

func (n normalizer) apply(s string, clock bool) string {
	for from, to := range n {
		s = strings.ReplaceAll(s, from, to)
	}
	if clock {
		s = clockRE.ReplaceAllString(s, "hh:mm:ss")
	}
	return s
}

func createTask(t *testing.T, b *bus.Bus, title, assignee string, path ...bus.TaskState) bus.Task {
	t.Helper()
	ctx := context.Background()
	tk, err := b.CreateTask(ctx, bus.NewTask{Title: title, Assignee: assignee, CreatedBy: "human", Description: "about " + title})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range path {
		actor := assignee
		if s == bus.TaskApproved || s == bus.TaskCancelled {
			actor = "human"
		}
		if tk, err = b.Transition(ctx, tk.ID, s, actor, ""); err != nil {
			t.Fatal(err)
		}
	}
	return tk
}

func taskState(t *testing.T, b *bus.Bus, id string) bus.TaskState {
	t.Helper()
	tk, err := b.Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tk.State
}

func requireContains(t *testing.T, screen string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(screen, w) {
			t.Fatalf("screen does not show %q:\n%s", w, screen)
		}
	}
}

func TestLayout(t *testing.T) {
	t.Run("80x24", func(t *testing.T) {
		sw := scenario(t)
		createTask(t, sw.b, "fix login", "bob", bus.TaskWorking)
		h := newHarness(t, sw, 80, 24, Options{Title: "demo"})
		ids := normalizer{}
		for _, md := range h.m.meta {
			if md.task != nil {
				ids[md.task.ID] = "TASK01"
			}
		}
		golden.RequireEqual(t, ids.apply(h.screen(), false))
	})
	t.Run("200x60", func(t *testing.T) {
		names := []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan"}
		sw := newFakeSwarm(t, names...)
		for i, n := range names {
			rows := []string{fmt.Sprintf("%s $ make test", n)}
			for j := range i {
				rows = append(rows, fmt.Sprintf("step %d of %d done", j+1, i))
			}
			sw.setScreen(n, rows...)
		}
		h := newHarness(t, sw, 200, 60, Options{})
		golden.RequireEqual(t, h.screen())
		// Nine panes tile as three rows of three.
		if len(h.m.lay.rows) != 3 || len(h.m.lay.rows[0]) != 3 {
			t.Fatalf("grid = %d rows, first of %d; want 3×3", len(h.m.lay.rows), len(h.m.lay.rows[0]))
		}
	})
}

func TestTooSmallWindow(t *testing.T) {
	h := newHarness(t, scenario(t), 30, 8, Options{})
	requireContains(t, h.screen(), "terminal too small", "at least 40×10")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	requireContains(t, h.screen(), "alice", "bob", "carol")
}

func TestPanesResizeAgentTerminals(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	want := map[string]string{}
	for _, row := range h.m.lay.rows {
		for _, c := range row {
			r, cl := inner(c.r)
			want[c.name] = fmt.Sprintf("%s %d×%d", c.name, r, cl)
		}
	}
	got := slices.Clone(sw.resizes)
	slices.Sort(got)
	wantList := []string{want["alice"], want["bob"], want["carol"]}
	slices.Sort(wantList)
	if !slices.Equal(got, wantList) {
		t.Fatalf("resizes = %q, want %q", got, wantList)
	}

	// The same size again resizes nothing.
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if len(sw.resizes) != 3 {
		t.Fatalf("resizes after an unchanged size = %q", sw.resizes)
	}

	// Zooming gives the selected agent the whole area; unzooming gives
	// it its grid size back. The others keep theirs.
	h.keys("z")
	rows, cols := inner(h.m.lay.panes)
	if last := sw.resizes[len(sw.resizes)-1]; last != fmt.Sprintf("alice %d×%d", rows, cols) {
		t.Fatalf("after zoom the last resize is %q, want alice %d×%d", last, rows, cols)
	}
	h.keys("z")
	if last := sw.resizes[len(sw.resizes)-1]; last != want["alice"] {
		t.Fatalf("after unzoom the last resize is %q, want %q", last, want["alice"])
	}
	if len(sw.resizes) != 5 {
		t.Fatalf("resizes = %q, want 3 + zoom + unzoom", sw.resizes)
	}

	// A bigger window resizes every pane.
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	if len(sw.resizes) != 8 {
		t.Fatalf("resizes after a new window size = %q", sw.resizes)
	}
}

func TestAttachAndDetach(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("enter")
	if h.m.Mode() != ModeAttached {
		t.Fatalf("mode after enter = %v, want ATTACHED", h.m.Mode())
	}
	golden.RequireEqual(t, h.screen())

	// The attached pane shows the agent's cursor.
	if v := h.m.View(); v.Cursor == nil {
		t.Fatal("no cursor shown in the attached pane")
	}

	h.typeText("echo hi")
	h.keys("enter", "ctrl+c", "up", "f5", "alt+x", "esc", "tab", "q", "?", "ctrl+d")
	h.send(tea.PasteMsg{Content: "line one\nline two"})
	want := []string{"e", "c", "h", "o", "space", "h", "i", "enter", "ctrl+c", "up", "f5", "alt+x", "esc", "tab", "q", "?", "ctrl+d"}
	if got := sw.typed("alice"); !slices.Equal(got, want) {
		t.Fatalf("alice got keys %q, want %q", got, want)
	}
	if got := sw.pastes["alice"]; !slices.Equal(got, []string{"line one\nline two"}) {
		t.Fatalf("alice got pastes %q", got)
	}
	if h.m.Mode() != ModeAttached || h.quit {
		t.Fatal("a key other than ctrl+] left attached mode")
	}

	h.keys("ctrl+]")
	if h.m.Mode() != ModeNormal {
		t.Fatalf("mode after ctrl+] = %v, want NORMAL", h.m.Mode())
	}
	if v := h.m.View(); v.Cursor != nil {
		t.Fatal("cursor still shown after detaching")
	}
	// The next key is the UI's again.
	h.keys("?")
	if h.m.Mode() != ModeHelp {
		t.Fatalf("? after detaching: mode %v, want HELP", h.m.Mode())
	}
	if n := len(sw.typed("alice")); n != len(want) {
		t.Fatalf("alice got %d keys after detaching, want %d", n, len(want))
	}
}

func TestAttachRefusedWhenNotRunning(t *testing.T) {
	h := newHarness(t, scenario(t), 80, 24, Options{})
	h.keys("tab", "tab", "enter")
	if h.m.Mode() != ModeNormal {
		t.Fatalf("attached to a crashed agent: mode %v", h.m.Mode())
	}
	requireContains(t, h.screen(), "cannot attach: carol is gave-up")
}

// An agent that exits while attached keeps the keyboard: what the person
// goes on typing must not turn into UI commands.
func TestAgentExitKeepsItAttached(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 120, 24, Options{})
	h.keys("enter")
	// Its exit event comes while its state still reads running.
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentExited, Agent: "alice", ExitCode: 1, Text: "exit status 1", Time: t0}})
	h.keys("b")
	requireContains(t, h.screen(), "alice has exited: input dropped")
	sw.setAgent("alice", func(a *swarmapi.AgentInfo) { a.State, a.Reason = swarmapi.StateExited, "exit status 1" })
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentExited, Agent: "alice", ExitCode: 1, Text: "exit status 1", Time: t0}})
	if h.m.Mode() != ModeAttached {
		t.Fatalf("mode %v after the attached agent exited; want still attached", h.m.Mode())
	}
	requireContains(t, h.screen(), "alice exited: exit status 1 — still attached", "ATTACHED alice · exited")
	h.keys("a", "q") // approve and quit, were they UI keys
	if h.m.Mode() != ModeAttached {
		t.Fatalf("mode %v after typing; want still attached", h.m.Mode())
	}
	requireContains(t, h.screen(), "alice is exited: input dropped")
	if got := sw.typed("alice"); len(got) != 0 {
		t.Fatalf("keys %q reached an agent that is not running", got)
	}
	// Restarted, it gets the keys again.
	sw.setAgent("alice", func(a *swarmapi.AgentInfo) { a.State = swarmapi.StateRunning })
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentStarted, Agent: "alice", Pid: 99, Time: t0}})
	h.keys("x")
	if got := sw.typed("alice"); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("after the restart alice got %q, want the x typed then", got)
	}
	h.keys("ctrl+]")
	if h.m.Mode() != ModeNormal {
		t.Fatalf("ctrl+] left mode %v", h.m.Mode())
	}
}

func TestKeysForOneAgentStayInOrder(t *testing.T) {
	sw := scenario(t)
	sw.sendKeyGate = make(chan struct{})
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("enter")

	// The first key starts a write that blocks (the agent does not read);
	// the next keys queue behind it without starting another write.
	typed := func(k tea.KeyPressMsg) swarmapi.Key {
		key, ok := typedKey(tea.Key(k))
		if !ok {
			t.Fatalf("%v cannot be typed", k)
		}
		return key
	}
	first := h.m.queueInput("alice", inputItem{key: typed(keyPress("a"))})
	if first == nil {
		t.Fatal("no write started")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- first() }()
	for _, k := range []string{"b", "c", "enter"} {
		if cmd := h.m.queueInput("alice", inputItem{key: typed(keyPress(k))}); cmd != nil {
			t.Fatalf("a second write started while the first is in flight (key %s)", k)
		}
	}
	close(sw.sendKeyGate) // the agent reads again
	h.send(<-done)
	if got, want := sw.typed("alice"), []string{"a", "b", "c", "enter"}; !slices.Equal(got, want) {
		t.Fatalf("keys = %q, want %q", got, want)
	}
}

func TestZoom(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("tab", "z")
	golden.RequireEqual(t, h.screen())
	// The zoomed pane has the whole window, and its terminal that size.
	sw.mu.Lock()
	last := sw.resizes[len(sw.resizes)-1]
	sw.mu.Unlock()
	if last != "bob 20×78" {
		t.Errorf("last resize %q, want bob 20×78 (the window but borders, status and help)", last)
	}
	h.keys("shift+tab") // zoomed, selection shows the other pane
	requireContains(t, h.screen(), "▶ alice · running")
	h.keys("z")
	requireContains(t, h.screen(), "alice · running", "bob · running", "carol · gave-up")
}

func TestScrollbackAndSearch(t *testing.T) {
	sw := scenario(t)
	var back []string
	for i := range 200 {
		back = append(back, fmt.Sprintf("build step %03d ok", i))
	}
	sw.setScrollback("alice", back...)
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("[")
	if h.m.Mode() != ModeScroll {
		t.Fatalf("mode after [ = %v", h.m.Mode())
	}
	h.keys("pgup")
	page := h.m.paneRows("alice") - 1
	requireContains(t, h.screen(), fmt.Sprintf("SCROLL ↑%d", page), fmt.Sprintf("build step %d ok", 200-page))

	h.keys("/")
	if h.m.Mode() != ModeSearch {
		t.Fatalf("mode after / = %v", h.m.Mode())
	}
	h.typeText("STEP 042")
	h.keys("enter")
	golden.RequireEqual(t, h.screen())
	requireContains(t, h.screen(), "↑161 1/1", `1 match for "STEP 042" in alice`, "build step 042 ok")
	// The match is highlighted, not its whole line, with the copy cursor
	// on its first character.
	if raw := h.m.Render(); !strings.Contains(raw, styleCopyCursor.Render("s")) || !strings.Contains(raw, styleSelRow.Render("tep 042")) || strings.Contains(raw, styleSelRow.Render("build step 042")) {
		t.Errorf("the match is not highlighted alone, under the cursor:\n%q", raw)
	}

	h.keys("/")
	h.typeText("step 1")
	h.keys("enter")
	p := h.m.panes["alice"]
	if len(p.hits) != 100 || p.hits[p.hit].Row != 199 {
		t.Fatalf("search step 1: %d hits, current row %d; want 100 hits, newest (199) first", len(p.hits), p.hits[p.hit].Row)
	}
	h.keys("n", "n")
	requireContains(t, h.screen(), "98/100", "build step 197 ok")
	h.keys("N")
	requireContains(t, h.screen(), "99/100")

	h.keys("g")
	requireContains(t, h.screen(), "build step 000 ok")
	h.keys("G")
	if h.m.Mode() != ModeNormal {
		t.Fatalf("G did not leave scroll mode: %v", h.m.Mode())
	}
	requireContains(t, h.screen(), "FAIL")
	if strings.Contains(h.screen(), "n/N to move") {
		t.Error("out of scroll mode, the status line still offers n/N (n is new agent there)")
	}

	h.keys("[", "/")
	h.typeText("nothing like this")
	h.keys("enter")
	requireContains(t, h.screen(), `"nothing like this" not found in alice`)
}

func TestMouse(t *testing.T) {
	sw := scenario(t)
	var back []string
	for i := range 50 {
		back = append(back, fmt.Sprintf("old line %d", i))
	}
	sw.setScrollback("bob", back...)
	h := newHarness(t, sw, 80, 24, Options{})
	bob, _ := h.m.lay.cellNamed("bob")
	h.send(tea.MouseClickMsg{X: bob.r.x + 3, Y: bob.r.y + 3, Button: tea.MouseLeft})
	if h.m.selected != "bob" {
		t.Fatalf("click on bob's pane selected %q", h.m.selected)
	}
	carolRow := -1
	_, owners := h.m.agentRows(h.m.lay.agents.w - 2)
	carolRow = slices.Index(owners, "carol")
	h.send(tea.MouseClickMsg{X: 3, Y: h.m.lay.agents.y + 1 + carolRow, Button: tea.MouseLeft})
	if h.m.selected != "carol" {
		t.Fatalf("click on carol in the list selected %q", h.m.selected)
	}

	h.send(tea.MouseWheelMsg{X: bob.r.x + 3, Y: bob.r.y + 3, Button: tea.MouseWheelUp})
	if h.m.selected != "bob" || h.m.Mode() != ModeScroll {
		t.Fatalf("wheel over bob: selected %q, mode %v", h.m.selected, h.m.Mode())
	}
	requireContains(t, h.screen(), "SCROLL ↑3", "old line 47")
	h.send(tea.MouseWheelMsg{X: bob.r.x + 3, Y: bob.r.y + 3, Button: tea.MouseWheelDown})
	if h.m.Mode() != ModeNormal {
		t.Fatalf("wheel back to the bottom: mode %v", h.m.Mode())
	}
}

func TestScreensMsgRendersOnlyChangedPanes(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.m.Render()
	before := map[string]int{"alice": sw.renders["alice"], "bob": sw.renders["bob"], "carol": sw.renders["carol"]}
	h.m.Render()
	h.m.Render()
	sw.setScreen("bob", "new output")
	h.send(ScreensMsg{Agents: []string{"bob"}})
	screen := h.screen()
	requireContains(t, screen, "new output")
	if sw.renders["alice"] != before["alice"] || sw.renders["carol"] != before["carol"] {
		t.Fatalf("unchanged panes rendered again: %v → %v", before, sw.renders)
	}
	if sw.renders["bob"] != before["bob"]+1 {
		t.Fatalf("bob rendered %d times for one change", sw.renders["bob"]-before["bob"])
	}
}

func TestInboxPanel(t *testing.T) {
	sw := scenario(t)
	ctx := context.Background()
	publish(t, sw.b, 102, "bob", "alice", "auth.go looks fine, one nit in line 40")
	m := publish(t, sw.b, 103, "alice", "bob", "can you also check session.go?")
	if err := sw.b.MarkFailed(ctx, m.ID, "bob", "not confirmed after 3 attempts"); err != nil {
		t.Fatal(err)
	}
	if err := sw.b.MarkConfirmed(ctx, publish(t, sw.b, 104, "alice", "bob", "thanks").ID, "bob"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sw, 120, 30, Options{})
	h.keys("tab", "i")
	golden.RequireEqual(t, h.screen())
	requireContains(t, h.screen(), "failed to bob: not confirmed after 3 attempts")

	// A new message shows when the supervisor reports it.
	nm := publish(t, sw.b, 105, "carol", "bob", "ping")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventMessage, Message: &nm}})
	requireContains(t, h.screen(), "← carol", "ping")

	// Selecting another agent shows its inbox.
	h.keys("shift+tab")
	requireContains(t, h.screen(), "inbox of alice", "→ bob", "can you also check session.go?")
	h.keys("i")
	if h.m.panel != panelNone {
		t.Fatal("i did not close the inbox")
	}
}

func TestTaskBoard(t *testing.T) {
	sw := scenario(t)
	review := createTask(t, sw.b, "fix login", "bob", bus.TaskWorking, bus.TaskInReview)
	approved := createTask(t, sw.b, "add tests", "alice", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	failed := createTask(t, sw.b, "port to windows", "carol", bus.TaskWorking, bus.TaskFailed)
	other := createTask(t, sw.b, "write docs", "alice")
	norm := normalizer{review.ID: "TASK01", approved.ID: "TASK02", failed.ID: "TASK03", other.ID: "TASK04"}

	h := newHarness(t, sw, 120, 30, Options{})
	h.keys("t")
	golden.RequireEqual(t, norm.apply(h.screen(), true))

	// The board selects by state order: ASSIGNED, WORKING, …, IN_REVIEW.
	h.keys("down")
	if tk, _ := h.m.tasks.selectedTask(); tk.ID != review.ID {
		t.Fatalf("selected %s after down, want the task in review", tk.ID)
	}
	requireContains(t, norm.apply(h.screen(), true), "TASK01 IN_REVIEW fix login", "WORKING → IN_REVIEW by bob", "a approve · r request changes")

	// r asks for a note and sends the task back to work with it.
	h.keys("r")
	if h.m.Mode() != ModeDialog {
		t.Fatal("r opened no dialog")
	}
	h.keys("enter")
	requireContains(t, h.screen(), "the note is empty")
	h.typeText("handle the empty password")
	h.keys("enter")
	if got := taskState(t, sw.b, review.ID); got != bus.TaskWorking {
		t.Fatalf("after request changes the task is %s", got)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	requireContains(t, h.screen(), "IN_REVIEW → WORKING by human:", "handle the empty password")

	// a approves; c cancels after a confirmation; y retries a failed one.
	if _, err := sw.b.Transition(context.Background(), review.ID, bus.TaskInReview, "bob", ""); err != nil {
		t.Fatal(err)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	h.keys("a")
	if got := taskState(t, sw.b, review.ID); got != bus.TaskApproved {
		t.Fatalf("after a the task is %s", got)
	}
	requireContains(t, norm.apply(h.screen(), true), "approved task TASK01 (fix login) of bob")

	h.keys("a") // approving again is refused with the bus's reason
	requireContains(t, h.screen(), "approve task")

	h.selectTask(failed.ID)
	h.press(h.m.keys.Retry)
	if got := taskState(t, sw.b, failed.ID); got != bus.TaskAssigned {
		t.Fatalf("after retry the failed task is %s", got)
	}

	h.selectTask(other.ID)
	h.keys("c")
	requireContains(t, norm.apply(h.screen(), true), "Cancel task TASK04 (write docs, ASSIGNED)?")
	h.keys("n")
	if got := taskState(t, sw.b, other.ID); got != bus.TaskAssigned {
		t.Fatalf("n cancelled the task: %s", got)
	}
	h.keys("c", "y")
	if got := taskState(t, sw.b, other.ID); got != bus.TaskCancelled {
		t.Fatalf("after c y the task is %s", got)
	}
	// The cancelled task leaves for the bottom of the board; the cursor
	// stays on its row, now the next task's.
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	selected := ""
	for _, line := range strings.Split(norm.apply(h.screen(), true), "\n") {
		if i := strings.Index(line, "▶ TASK"); i >= 0 {
			selected = line[i:]
		}
	}
	if selected == "" || strings.Contains(selected, "write docs") {
		t.Errorf("after the cancel the board's selection is %q, want the task that took its row", selected)
	}
}

// TestMergeAsksFirst: m changes the base branch, so it names the task
// and its branch → base and waits for y; the status line then shows the
// merge's result.
func TestMergeAsksFirst(t *testing.T) {
	sw := scenario(t)
	tk := createTask(t, sw.b, "add tests", "alice", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	if err := sw.b.SetTaskGit(context.Background(), tk.ID, "swarm/"+tk.ID, ".swarm/worktrees/"+tk.ID, "main"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sw, 100, 30, Options{})
	// The board is closed: m applies to alice's current task, and says so.
	h.keys("m")
	if h.m.Mode() != ModeDialog {
		t.Fatal("m merged without asking")
	}
	requireContains(t, h.screen(), "Merge task "+tk.ID+" (add tests): swarm/"+tk.ID+" → main?")
	h.keys("n")
	if len(sw.merged) != 0 || taskState(t, sw.b, tk.ID) != bus.TaskApproved {
		t.Fatalf("n merged: %q", sw.merged)
	}
	h.keys("t", "m", "y")
	if !slices.Equal(sw.merged, []string{tk.ID}) {
		t.Fatalf("merged %q, want %s", sw.merged, tk.ID)
	}
	requireContains(t, h.screen(), "task "+tk.ID+" (add tests) completed: merged as 0123abc")

	// A task without a branch completes with nothing to merge; the
	// question says so.
	plain := createTask(t, sw.b, "write docs", "bob", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	h.selectTask(plain.ID)
	h.keys("m")
	requireContains(t, h.screen(), "Complete task "+plain.ID+" (write docs)? It has no branch: nothing to")
	h.keys("esc")
	if taskState(t, sw.b, plain.ID) != bus.TaskApproved {
		t.Fatal("esc merged")
	}

	// A move the task's state does not allow is refused before asking.
	waiting := createTask(t, sw.b, "later", "bob")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	h.selectTask(waiting.ID)
	h.keys("m")
	if h.m.Mode() == ModeDialog {
		t.Fatal("m asked about merging an ASSIGNED task")
	}
	requireContains(t, h.screen(), "task "+waiting.ID+" is ASSIGNED: merge applies to a task APPROVED")
	h.selectTask(tk.ID) // COMPLETED
	h.keys("c")
	if h.m.Mode() == ModeDialog {
		t.Fatal("c asked about cancelling a COMPLETED task")
	}
	requireContains(t, h.screen(), "task "+tk.ID+" is COMPLETED, which is final: cancel applies")
}

// TestTaskActionWithoutBoardUsesCurrentTask: with the board closed a and
// c act on the selected agent's current task, and the status line or the
// question names it.
func TestTaskActionWithoutBoardUsesCurrentTask(t *testing.T) {
	sw := scenario(t)
	tk := createTask(t, sw.b, "fix login", "bob", bus.TaskWorking, bus.TaskInReview)
	h := newHarness(t, sw, 100, 24, Options{})
	h.keys("a") // alice has no task
	requireContains(t, h.screen(), "no task selected")
	h.keys("tab", "a")
	if got := taskState(t, sw.b, tk.ID); got != bus.TaskApproved {
		t.Fatalf("a on bob approved nothing: %s", got)
	}
	requireContains(t, h.screen(), "approved task "+tk.ID+" (fix login) of bob")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	h.keys("c")
	requireContains(t, h.screen(), "Cancel task "+tk.ID+" (fix login, APPROVED)?")
}

func TestLogPanel(t *testing.T) {
	sw := scenario(t)
	publish(t, sw.b, 102, "bob", "alice", "auth.go looks fine")
	publish(t, sw.b, 103, "alice", "*", "lunch break")
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("l")
	golden.RequireEqual(t, h.screen())
	h.keys("l")
	if h.m.panel != panelNone {
		t.Fatal("l did not close the log")
	}
}

func TestGameBoard(t *testing.T) {
	sw := newFakeSwarm(t, "X", "O")
	sw.setScreen("X", "tic-tac-toe: I am X, playing O", "", " 1 | 2 | 3", "@relay:O move 5")
	sw.setScreen("O", "tic-tac-toe: I am O, playing X")
	g := swarmapi.GameState{X: "X", O: "O", Turn: games.MarkX}
	sw.game = &g
	h := newHarness(t, sw, 100, 30, Options{Title: "tic-tac-toe", Game: true, Pace: 500 * time.Millisecond})
	requireContains(t, h.screen(), "no move yet", "X to move")

	board := games.Board{games.MarkX, games.MarkO, games.Empty, games.Empty, games.MarkX, games.MarkO, games.Empty, games.Empty, games.Empty}
	g1 := swarmapi.GameState{X: "X", O: "O", Board: board, Turn: games.MarkX, Mover: "O", Cell: 6}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventGame, Game: &g1}})
	golden.RequireEqual(t, h.screen())

	board[8] = games.MarkX
	g2 := swarmapi.GameState{X: "X", O: "O", Board: board, Mover: "X", Cell: 9, Result: board.Result()}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventGame, Game: &g2}})
	requireContains(t, h.screen(), "X wins (1-5-9)", "last: X → 9")

	h.keys("g")
	if strings.Contains(h.screen(), "tic-tac-toe ─") {
		t.Fatal("g did not hide the board")
	}
}

func TestSendDialog(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("tab", "s")
	golden.RequireEqual(t, h.screen())
	h.keys("enter")
	requireContains(t, h.screen(), "the message is empty")
	h.typeText("rebase on main please")
	h.keys("enter")
	if h.m.Mode() == ModeDialog {
		t.Fatal("the dialog stayed open after sending")
	}
	inbox, err := sw.b.Inbox(context.Background(), "bob", 10)
	if err != nil {
		t.Fatal(err)
	}
	last := inbox[len(inbox)-1]
	if last.From != "human" || last.To != "bob" || last.Body != "rebase on main please" {
		t.Fatalf("last message to bob: %+v", last)
	}
	requireContains(t, h.screen(), "sent #"+bus.ShortID(last.ID)+" to bob")

	// esc cancels without sending.
	h.keys("s")
	h.typeText("never mind")
	h.keys("esc")
	if inbox2, _ := sw.b.Inbox(context.Background(), "bob", 10); len(inbox2) != len(inbox) {
		t.Fatal("esc sent the message")
	}
}

func TestNewAgentDialog(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{Dir: "/work/project"})
	h.keys("n")
	h.typeText("bad name!")
	h.keys("tab")
	h.typeText("claude")
	h.keys("enter")
	golden.RequireEqual(t, h.screen())
	if len(sw.added) != 0 {
		t.Fatal("an invalid name was started")
	}
	// The name field has the keys again.
	for range len("bad name!") {
		h.keys("backspace")
	}
	h.typeText("dave")
	h.keys("tab", "enter")
	if len(sw.added) != 1 {
		t.Fatalf("added %d agents", len(sw.added))
	}
	ac := sw.added[0]
	if ac != (swarmapi.NewAgent{Name: "dave", Cmd: "claude", Dir: "/work/project"}) {
		t.Fatalf("new agent %+v", ac)
	}
	requireContains(t, h.screen(), "started agent dave")

	// A name that is taken keeps the dialog open with what was typed, as
	// an invalid one does, with the name field to edit.
	h.keys("n")
	h.typeText("alice")
	h.keys("tab")
	h.typeText("sh")
	h.keys("enter")
	if h.m.Mode() != ModeDialog {
		t.Fatal("the dialog closed on a name that is taken")
	}
	requireContains(t, h.screen(), `an agent named "alice" already exists: choose`, "name: alice", "command: sh")
	for range len("alice") {
		h.keys("backspace")
	}
	h.typeText("erin")
	h.keys("enter")
	if h.m.Mode() == ModeDialog || len(sw.added) != 2 || sw.added[1].Name != "erin" || sw.added[1].Cmd != "sh" {
		t.Fatalf("after renaming: dialog open %v, added %+v", h.m.Mode() == ModeDialog, sw.added)
	}
	requireContains(t, h.screen(), "started agent erin")

	// Closed while the agent was being added, the dialog comes back with
	// the error and what was typed.
	h.keys("n")
	h.typeText("bob")
	h.keys("tab")
	h.typeText("sh")
	_, add := h.m.Update(keyPress("enter"))
	requireContains(t, h.screen(), "starting bob…")
	h.keys("esc")
	if h.m.Mode() == ModeDialog {
		t.Fatal("esc did not close the dialog")
	}
	h.run(add)
	if h.m.Mode() != ModeDialog {
		t.Fatal("the dialog did not come back with the error")
	}
	requireContains(t, h.screen(), `an agent named "bob" already exists`, "name: bob", "command: sh")
}

func TestRestartAndStopConfirm(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("tab", "R")
	golden.RequireEqual(t, h.screen())
	h.keys("n")
	if len(sw.restarts) != 0 {
		t.Fatal("n restarted the agent")
	}
	h.keys("R", "y")
	if !slices.Equal(sw.restarts, []string{"bob"}) {
		t.Fatalf("restarts = %q", sw.restarts)
	}
	requireContains(t, h.screen(), "restarting bob")
	h.keys("x")
	requireContains(t, h.screen(), "Stop agent bob?")
	h.keys("enter")
	if !slices.Equal(sw.stops, []string{"bob"}) {
		t.Fatalf("stops = %q", sw.stops)
	}
}

// TestStatusSaysOnlyWhatIsSo: "restarting bob" goes when bob has started,
// "detached from alice" when the panes leave normal mode.
func TestStatusSaysOnlyWhatIsSo(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 100, 24, Options{})
	h.keys("tab", "R", "y")
	requireContains(t, h.screen(), "restarting bob")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentStarted, Agent: "bob", Pid: 99, Time: t0}})
	if strings.Contains(h.screen(), "restarting bob") {
		t.Errorf("the status still says bob is restarting after it started:\n%s", h.screen())
	}

	h.keys("shift+tab", "enter", "ctrl+]")
	requireContains(t, h.screen(), "detached from alice")
	h.keys("pgup")
	if strings.Contains(h.screen(), "detached from alice") {
		t.Errorf("scroll mode still says detached:\n%s", h.screen())
	}
}

func TestQuit(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 80, 24, Options{})
	h.keys("q")
	if h.quit {
		t.Fatal("q quit at once while agents run")
	}
	golden.RequireEqual(t, h.screen())
	h.keys("esc")
	if h.quit || h.m.Mode() == ModeDialog {
		t.Fatal("esc did not cancel quitting")
	}
	h.keys("ctrl+c", "y")
	if !h.quit {
		t.Fatal("ctrl+c then y did not quit")
	}

	// With nothing running, q quits at once.
	idle := newFakeSwarm(t, "solo")
	idle.setAgent("solo", func(a *swarmapi.AgentInfo) { a.State = swarmapi.StateExited })
	h2 := newHarness(t, idle, 80, 24, Options{})
	h2.keys("q")
	if !h2.quit {
		t.Fatal("q did not quit with no agent running")
	}
}

// TestTheQuitQuestionStaysTrue: the count of agents to stop follows them
// while the question is up, and ctrl+c pressed again quits.
func TestTheQuitQuestionStaysTrue(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 100, 24, Options{})
	h.keys("ctrl+c")
	requireContains(t, h.screen(), "Quit swarm? 2 running agents will be stopped.")
	for _, name := range []string{"alice", "bob"} {
		sw.setAgent(name, func(a *swarmapi.AgentInfo) { a.State, a.Reason = swarmapi.StateExited, "exit status 0" })
		h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentExited, Agent: name, Text: "exit status 0", Time: t0}})
	}
	requireContains(t, h.screen(), "Quit swarm? No agent runs any more.")
	if h.quit {
		t.Fatal("quit before an answer")
	}
	h.keys("ctrl+c")
	if !h.quit {
		t.Fatal("ctrl+c at the quit question did not quit")
	}
}

// TestHelpUsesTheWidth: on a wide window the key groups stand side by
// side in a box no taller than they need, the panes showing below it.
func TestHelpUsesTheWidth(t *testing.T) {
	h := newHarness(t, scenario(t), 160, 48, Options{})
	h.keys("?")
	rows := strings.Split(h.screen(), "\n")
	// Most groups side by side on the first row: the width is used.
	side := 0
	for _, g := range h.m.keys.fullHelp() {
		if strings.Contains(rows[1], " "+g.title+" ") {
			side++
		}
	}
	if side < 5 {
		t.Errorf("the first row of the key list has %d group titles, want at least 5:\n%s", side, rows[1])
	}
	bottom := slices.IndexFunc(rows, func(r string) bool { return strings.HasPrefix(r, "╚") })
	if bottom < 0 || bottom > 24 {
		t.Errorf("the key list ends on row %d of 48; want a short box:\n%s", bottom, h.screen())
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	h := newHarness(t, scenario(t), 80, 24, Options{})
	h.keys("?")
	screen := h.screen()
	golden.RequireEqual(t, screen)
	for _, g := range h.m.keys.fullHelp() {
		for _, b := range g.bindings {
			requireContains(t, screen, b.Help().Key+" ", b.Help().Desc)
		}
	}
	h.keys("esc")
	if h.m.Mode() != ModeNormal {
		t.Fatalf("esc left the help in mode %v", h.m.Mode())
	}
}

func TestEventsReachTheStatusLine(t *testing.T) {
	sw := scenario(t)
	var logged bytes.Buffer
	h := newHarness(t, sw, 100, 24, Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	m := publish(t, sw.b, 102, "alice", "bob", "hello")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventDeliveryFailed, Agent: "bob", Message: &m, Text: "not confirmed after 3 attempts", Time: t0}})
	requireContains(t, h.screen(), "delivery of #000a0102 to bob failed: not confirmed after 3 attempts")
	// Errors also go to the log.
	requireContains(t, logged.String(), "delivery of #000a0102 to bob failed")

	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventNotice, Agent: "alice", Text: "malformed relay block: missing \"to\"", Time: t0}})
	requireContains(t, h.screen(), `alice: malformed relay block: missing "to"`)

	sw.setAgent("bob", func(a *swarmapi.AgentInfo) { a.Level = bus.LevelStale })
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventLevel, Agent: "bob", Level: bus.LevelStale}})
	requireContains(t, h.screen(), "bob · running · STALE")

	// A new agent gets a pane.
	sw.addRunning(t, "dave", 2000)
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventAgentStarted, Agent: "dave", Pid: 2000}})
	requireContains(t, h.screen(), "dave · running")

	h.send(swarmGoneMsg{})
	requireContains(t, h.screen(), "the swarm stopped")
	h.keys("q")
	if !h.quit {
		t.Fatal("q did not quit after the swarm stopped")
	}
}

func TestStatusExpires(t *testing.T) {
	now := t0
	h := newHarness(t, scenario(t), 80, 24, Options{Now: func() time.Time { return now }})
	h.keys("enter", "ctrl+]")
	requireContains(t, h.screen(), "detached from alice")
	now = now.Add(statusTTL + time.Second)
	h.send(tickMsg(now))
	if strings.Contains(h.screen(), "detached from alice") {
		t.Fatal("an informational message did not expire")
	}
}

func TestTaskDiff(t *testing.T) {
	sw := scenario(t)
	tk := createTask(t, sw.b, "fix login", "bob", bus.TaskWorking, bus.TaskInReview)
	if err := sw.b.SetTaskGit(context.Background(), tk.ID, "swarm/"+tk.ID, ".swarm/worktrees/"+tk.ID, "main"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sw, 120, 30, Options{})
	h.keys("t")
	requireContains(t, h.screen(), "changes (d: diff)", "auth.go | 3 ++-", "1 file changed, 2 insertions(+), 1 deletion(-)")
	h.keys("d")
	golden.RequireEqual(t, normalizer{tk.ID: "TASK01"}.apply(h.screen(), false))
	requireContains(t, h.screen(), "+// Login checks fix login.", "-func Login() {}")
	h.keys("esc")
	requireContains(t, h.screen(), "task board")

}

// TestCompletedTaskShowsItsMerge: a merged task's changes are in its base
// now, so the board shows how it was merged instead of an empty diff; a
// task without a branch says so.
func TestCompletedTaskShowsItsMerge(t *testing.T) {
	sw := scenario(t)
	ctx := context.Background()
	done := createTask(t, sw.b, "fix login", "bob", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved)
	if err := sw.b.SetTaskGit(ctx, done.ID, "swarm/"+done.ID, "", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := sw.b.Transition(ctx, done.ID, bus.TaskCompleted, bus.Human, "merged as 0123abc"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sw, 120, 30, Options{})
	h.keys("t")
	under := func(heading string) string {
		t.Helper()
		rows := strings.Split(h.screen(), "\n")
		for i, r := range rows {
			if j := strings.Index(r, "│"+heading); j >= 0 && i+1 < len(rows) {
				rest := []rune(rows[i+1])
				return strings.TrimSpace(strings.Trim(string(rest[len([]rune(r[:j]))+1:]), "│"))
			}
		}
		t.Fatalf("no %q heading in the task detail:\n%s", heading, h.screen())
		return ""
	}
	if got := under("changes"); got != "merged as 0123abc" {
		t.Fatalf("under changes of a merged task: %q, want the merge note\n%s", got, h.screen())
	}
	if strings.Contains(h.screen(), "none yet") {
		t.Fatalf("a merged task shows no changes:\n%s", h.screen())
	}

	// Completed without a note: "merged".
	quiet := createTask(t, sw.b, "add tests", "alice", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved, bus.TaskCompleted)
	if err := sw.b.SetTaskGit(ctx, quiet.ID, "swarm/"+quiet.ID, "", "main"); err != nil {
		t.Fatal(err)
	}
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	h.selectTask(quiet.ID)
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	if got := under("changes"); got != "merged" {
		t.Fatalf("under changes of a task completed without a note: %q\n%s", got, h.screen())
	}

	// No branch.
	nb := createTask(t, sw.b, "write docs", "carol")
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	h.selectTask(nb.ID)
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	if got := under("assignee carol"); got != "no branch" {
		t.Fatalf("under the assignee of a task without a branch: %q, want \"no branch\"\n%s", got, h.screen())
	}
}

// A task is created from the UI: for the selected agent unless the person
// names another, with a title it cannot do without. Enter creates it from
// any field, as the hint says (the other fields are optional); tab moves
// between fields; a field that must be filled gets the keys with the error.
func TestNewTaskDialog(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 100, 30, Options{})
	created := func(title string) bus.Task {
		t.Helper()
		ts, err := sw.b.Tasks(context.Background(), bus.TaskFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ts {
			if tk.Title == title {
				return tk
			}
		}
		t.Fatalf("no task %q was created; screen:\n%s", title, h.screen())
		return bus.Task{}
	}
	h.press(h.m.keys.Next) // bob
	h.press(h.m.keys.NewTask)
	if h.m.Mode() != ModeDialog {
		t.Fatal("no dialog for a new task")
	}
	requireContains(t, h.screen(), "New task", "enter create · tab next field · esc cancel")
	h.press(h.m.keys.Submit)
	requireContains(t, h.screen(), "the task needs a title")
	// The title field still has the keys.
	h.typeText("write the changelog")
	h.press(h.m.keys.Submit)
	if h.m.Mode() == ModeDialog {
		t.Fatalf("enter in the title field did not create the task:\n%s", h.screen())
	}
	made := created("write the changelog")
	if made.Assignee != "bob" || made.Description != "" || made.CreatedBy != bus.Human || made.State != bus.TaskAssigned {
		t.Fatalf("created %+v", made)
	}
	requireContains(t, h.screen(), "created task "+made.ID+" (write the changelog) for bob")

	// Details through tab; the assignee emptied: enter says so and gives
	// that field the keys.
	h.press(h.m.keys.NewTask)
	h.typeText("review the release")
	h.press(h.m.keys.NextField)
	for range len("bob") {
		h.keys("backspace")
	}
	h.press(h.m.keys.NextField)
	h.typeText("since 1.2")
	h.press(h.m.keys.Submit)
	requireContains(t, h.screen(), "say which agent the task is for")
	h.typeText("alice")
	h.press(h.m.keys.Submit)
	if h.m.Mode() == ModeDialog {
		t.Fatalf("the dialog stayed open after creating:\n%s", h.screen())
	}
	made = created("review the release")
	if made.Assignee != "alice" || made.Description != "since 1.2" {
		t.Fatalf("created %+v", made)
	}
}

// P on the board asks before deleting the branches merges left behind,
// saying how many and how many are kept; n deletes nothing.
func TestPruneAsksFirst(t *testing.T) {
	sw := scenario(t)
	done := createTask(t, sw.b, "add tests", "alice", bus.TaskWorking, bus.TaskInReview, bus.TaskApproved, bus.TaskCompleted)
	gone := createTask(t, sw.b, "old idea", "bob", bus.TaskCancelled)
	sw.prunable = []tasks.Pruned{{Task: done, Deleted: true}, {Task: gone, Kept: gitrepo.ErrUnmerged}}
	h := newHarness(t, sw, 120, 30, Options{})
	h.press(h.m.keys.Tasks)
	h.press(h.m.keys.Prune)
	if h.m.Mode() != ModeDialog {
		t.Fatalf("P pruned without asking:\n%s", h.screen())
	}
	requireContains(t, h.screen(), "Delete 1 merged task branch? (1 kept: work not on its base)")
	h.press(h.m.keys.No)
	if sw.pruned {
		t.Fatal("no pruned the branches")
	}
	h.press(h.m.keys.Prune)
	h.press(h.m.keys.Yes)
	if !sw.pruned {
		t.Fatal("yes did not prune")
	}
	requireContains(t, h.screen(), "deleted 1 merged task branch")
}

// An agent started from the UI is offered to the config file: yes saves
// it, no leaves the file alone. A swarm without a config file does not ask.
func TestNewAgentIsOfferedToTheConfig(t *testing.T) {
	sw := scenario(t)
	sw.configFile = "/work/project/swarm.toml"
	h := newHarness(t, sw, 100, 30, Options{Dir: "/work/project"})
	start := func(name string) {
		h.press(h.m.keys.NewAgent)
		h.typeText(name)
		h.press(h.m.keys.NextField)
		h.typeText("sh")
		h.press(h.m.keys.Submit)
	}
	start("dave")
	if h.m.Mode() != ModeDialog {
		t.Fatalf("no offer to save dave:\n%s", h.screen())
	}
	requireContains(t, h.screen(), "Save agent dave to swarm.toml, so the next swarm starts it too?")
	h.press(h.m.keys.Yes)
	if !slices.Equal(sw.saved, []string{"dave"}) {
		t.Fatalf("saved %q", sw.saved)
	}
	requireContains(t, h.screen(), "saved agent dave to /work/project/swarm.toml")

	start("erin")
	h.press(h.m.keys.No)
	if len(sw.saved) != 1 || h.m.Mode() == ModeDialog {
		t.Fatalf("no saved %q or left a dialog open", sw.saved)
	}

	sw.configFile = ""
	start("frank")
	if h.m.Mode() == ModeDialog {
		t.Fatalf("asked to save into no config file:\n%s", h.screen())
	}
}

// The agent list can be hidden (a one-line summary takes its place, as it
// does by itself in a narrow window), and the panes arranged in a grid,
// one large beside a stack, or one alone.
func TestLayoutsAndTheAgentList(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 120, 30, Options{})
	requireContains(t, h.screen(), "agents 3")
	h.press(h.m.keys.ToggleList)
	first := strings.Split(h.screen(), "\n")[0]
	if strings.Contains(h.screen(), "agents 3") || !strings.Contains(first, "▶ alice") || !strings.Contains(first, "bob") {
		t.Fatalf("with the list hidden, the first row is %q:\n%s", first, h.screen())
	}
	widths := func() map[string]int {
		out := map[string]int{}
		for _, row := range h.m.lay.rows {
			for _, c := range row {
				out[c.name] = c.r.w
			}
		}
		return out
	}
	grid := widths()
	h.press(h.m.keys.Arrange)
	requireContains(t, h.screen(), "layout: main + stack")
	mainStack := widths()
	if len(mainStack) != 3 || mainStack["alice"] <= grid["alice"] || mainStack["bob"] >= mainStack["alice"] {
		t.Fatalf("main + stack widths %v (grid %v): want alice, selected, widest", mainStack, grid)
	}
	h.press(h.m.keys.Next) // bob becomes the large one
	if w := widths(); w["bob"] <= w["alice"] {
		t.Fatalf("after selecting bob, widths %v: want bob widest", w)
	}
	h.press(h.m.keys.Arrange)
	requireContains(t, h.screen(), "layout: one pane")
	if w := widths(); len(w) != 1 || w["bob"] != 120 {
		t.Fatalf("one pane: %v", w)
	}
	h.press(h.m.keys.Arrange)
	h.press(h.m.keys.ToggleList)
	requireContains(t, h.screen(), "layout: grid", "agents 3")

	// A narrow window shows the summary by itself.
	narrow := newHarness(t, scenario(t), 60, 15, Options{})
	if s := narrow.screen(); strings.Contains(s, "agents 3") || !strings.Contains(strings.Split(s, "\n")[0], "▶ alice") {
		t.Fatalf("at 60×15:\n%s", s)
	}
}

// Copy mode: in scroll mode, v selects from the bottom row, the scroll keys
// extend it, y copies the lines to the terminal's clipboard (OSC 52); esc
// drops a selection.
// Copy mode is tmux's: a cursor that the line keys move up and down and
// ←→ along its row, v selecting characters from it, y copying them; after
// a search the cursor is on the match.
func TestCopyMode(t *testing.T) {
	sw := scenario(t)
	var back []string
	for i := range 100 {
		back = append(back, fmt.Sprintf("build step %03d ok", i))
	}
	sw.setScrollback("alice", back...)
	h := newHarness(t, sw, 80, 24, Options{})
	copyWith := func(keys ...key.Binding) string {
		t.Helper()
		h.clipboard = ""
		h.press(h.m.keys.Select)
		for _, k := range keys {
			h.press(k)
		}
		h.press(h.m.keys.Copy)
		return h.clipboard
	}
	right := h.m.keys.CursorRight
	h.press(h.m.keys.Scroll)
	h.press(h.m.keys.Top) // the cursor on the first character
	requireContains(t, h.screen(), "build step 000 ok")
	if got := copyWith(right, right, right, right); got != "build" {
		t.Errorf("v and four → copied %q, want %q", got, "build")
	}
	requireContains(t, h.screen(), "copied 1 line (5 characters) of alice to the clipboard")
	if h.m.Mode() != ModeScroll {
		t.Errorf("after copying the mode is %v, want scroll", h.m.Mode())
	}
	// From the cursor (on the d of build) through a row down and five to
	// the right: across a line end.
	h.press(h.m.keys.LineDown)
	h.press(h.m.keys.LineDown)
	if got, want := copyWith(h.m.keys.LineDown, right, right, right, right, right), "d step 002 ok\nbuild step"; got != want {
		t.Errorf("copied %q, want %q", got, want)
	}
	// Backwards from the cursor: the same characters, in reading order.
	if got, want := copyWith(h.m.keys.CursorLeft, h.m.keys.CursorLeft, h.m.keys.LineUp), "tep 002 ok\nbuild step"; got != want {
		t.Errorf("copied backwards %q, want %q", got, want)
	}
	// After a search the cursor is on the match: v and y take it.
	h.press(h.m.keys.Search)
	h.typeText("step 042")
	h.press(h.m.keys.Submit)
	if got := copyWith(right, right, right, right, right, right, right); got != "step 042" {
		t.Errorf("from the match, copied %q, want %q", got, "step 042")
	}
	// esc drops a selection, and stays in scroll mode; y then copies
	// nothing.
	h.clipboard = ""
	h.press(h.m.keys.Select)
	h.press(h.m.keys.Close)
	requireContains(t, h.screen(), "selection dropped")
	h.keys("y")
	if h.clipboard != "" || h.m.Mode() != ModeScroll {
		t.Errorf("after esc, y copied %q (mode %v)", h.clipboard, h.m.Mode())
	}
}

// Dragging over a pane with the left button selects the characters from
// where it went down to where it is, and letting go copies them.
func TestDragSelectsAndCopies(t *testing.T) {
	sw := scenario(t)
	h := newHarness(t, sw, 100, 30, Options{})
	bob, _ := h.m.lay.cellNamed("bob")
	top, left := bob.r.y+1, bob.r.x+1 // the pane's first cell, inside its border
	h.send(tea.MouseClickMsg{X: left + 2, Y: top, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: left + 6, Y: top + 1, Button: tea.MouseLeft})
	if h.m.Mode() != ModeScroll {
		t.Fatalf("dragging did not select (mode %v)", h.m.Mode())
	}
	h.send(tea.MouseReleaseMsg{X: left + 6, Y: top + 1, Button: tea.MouseLeft})
	if want := "Reading auth.go…\n  └ 120"; h.clipboard != want {
		t.Fatalf("clipboard %q, want %q", h.clipboard, want)
	}
	requireContains(t, h.screen(), "copied 2 lines (24 characters) of bob")
}

// What needs the person — an agent that died, a task in review — is
// counted on the agent list, ! goes to each in turn (a task on the board),
// and what starts to need the person rings the bell and notifies; what
// already did when the UI started does not.
func TestNeedsYou(t *testing.T) {
	sw := scenario(t)                                                            // carol gave up
	old := createTask(t, sw.b, "port", "alice", bus.TaskWorking, bus.TaskFailed) // failed before the UI started
	h := newHarness(t, sw, 120, 30, Options{Bell: true, Desktop: true})
	requireContains(t, h.screen(), "⚑ 2")
	if len(h.raw) != 0 {
		t.Fatalf("announced at start: %q", h.raw)
	}
	review := createTask(t, sw.b, "fix login", "bob", bus.TaskWorking, bus.TaskInReview)
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	requireContains(t, h.screen(), "⚑ 3")
	if strings.Contains(strings.Join(h.raw, ""), old.ID) {
		t.Errorf("announced what waited before the UI started: %q", h.raw)
	}
	joined := strings.Join(h.raw, "")
	if !strings.Contains(joined, "\a") || !strings.Contains(joined, "\x1b]9;swarm: task "+review.ID+" (fix login) of bob waits for your review\a") ||
		!strings.Contains(joined, "\x1b]777;notify;swarm;task "+review.ID) {
		t.Errorf("the new task was not announced: %q", h.raw)
	}
	h.press(h.m.keys.NextNeed)
	requireContains(t, h.screen(), "1/3: agent carol died: gave up after 3 restarts")
	if h.m.selected != "carol" {
		t.Errorf("! selected %q, want carol", h.m.selected)
	}
	h.press(h.m.keys.NextNeed)
	requireContains(t, h.screen(), "2/3: task "+old.ID+" (port) of alice failed")
	h.press(h.m.keys.NextNeed)
	requireContains(t, h.screen(), "3/3: task "+review.ID+" (fix login) of bob waits for your review")
	if tk, ok := h.m.tasks.selectedTask(); !ok || tk.ID != review.ID || h.m.panel != panelTasks {
		t.Fatalf("! did not show the task on the board (selected %v)", tk.ID)
	}
	// Announced once: the same task reloaded rings nothing more.
	n := len(h.raw)
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTask}})
	if len(h.raw) != n {
		t.Errorf("announced again: %q", h.raw[n:])
	}
}

func TestAnAgentWhoseCLIWaitsForYouIsListedAndAnnounced(t *testing.T) {
	sw := scenario(t) // carol gave up
	h := newHarness(t, sw, 120, 30, Options{Bell: true, Desktop: true})
	requireContains(t, h.screen(), "⚑ 1")
	sw.setAgent("bob", func(a *swarmapi.AgentInfo) {
		a.Turn = swarmapi.Turn{Status: bus.StatusNeedsHuman, Hook: "notification", Note: "Claude needs your permission to use Bash", At: time.Now()}
	})
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTurn, Agent: "bob"}})
	screen := h.screen()
	requireContains(t, screen, "⚑ 2")
	requireContains(t, screen, "bob · needs-human") // its pane's title
	if joined := strings.Join(h.raw, ""); !strings.Contains(joined, "\x1b]9;swarm: agent bob needs you: Claude needs your permission to use Bash\a") {
		t.Errorf("not announced: %q", h.raw)
	}
	h.press(h.m.keys.NextNeed)
	requireContains(t, h.screen(), "1/2: agent bob needs you: Claude needs your permission to use Bash") // agents in list order
	if h.m.selected != "bob" {
		t.Errorf("! selected %q, want bob", h.m.selected)
	}
	// Its turn goes on: no longer listed.
	sw.setAgent("bob", func(a *swarmapi.AgentInfo) { a.Turn = swarmapi.Turn{Status: bus.StatusWorking, At: time.Now()} })
	h.send(EventMsg{swarmapi.Event{Kind: swarmapi.EventTurn, Agent: "bob"}})
	requireContains(t, h.screen(), "bob · working")
	requireContains(t, h.screen(), "⚑ 1")
}

// TestRemotePaneNamesItsHost: an agent another machine runs shows as a
// pane like any other, its host in the title; while its host is away it
// is unreachable, not dead.
func TestRemotePaneNamesItsHost(t *testing.T) {
	sw := newFakeSwarm(t, "alice", "builder", "tester")
	sw.setScreen("builder", "$ make")
	sw.setAgent("builder", func(a *swarmapi.AgentInfo) { a.Host = "buildbox" })
	sw.setAgent("tester", func(a *swarmapi.AgentInfo) {
		a.Host, a.State, a.Pid, a.Reason = "laptop", swarmapi.StateUnreachable, 0, "host laptop away since 2026-11-27 01:00:00"
	})
	h := newHarness(t, sw, 100, 30, Options{})
	requireContains(t, h.screen(), "alice · running", "builder@buildbox · running", "$ make",
		"tester@laptop · unreachable: host laptop away since")
	h.press(h.m.keys.Next) // builder
	h.press(h.m.keys.Attach)
	requireContains(t, h.screen(), "ATTACHED builder@buildbox")
}

// TestPaneTitleSaysTheScreenFailed: a pane whose agent's screen failed
// says so on its edge, where the person looks.
func TestPaneTitleSaysTheScreenFailed(t *testing.T) {
	a := swarmapi.AgentInfo{Name: "a", State: swarmapi.StateRunning}
	if got := paneTitle(a, false); strings.Contains(got, "screen failed") {
		t.Fatalf("title %q of a sound agent", got)
	}
	a.ScreenProblem = "its screen failed"
	if got := paneTitle(a, false); !strings.Contains(got, "screen failed: not relaying, restart it") {
		t.Fatalf("title %q does not say its screen failed", got)
	}
}
