package supervisor

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/screenmodel"
	"swarm/swarmapi"
)

// needsOf is what swarmapi.NeedsYou lists for the agents as the UI sees them.
func (h *harness) needsOf() []swarmapi.Attention {
	var agents []swarmapi.AgentNeed
	for _, a := range h.sup.Agents() {
		turn := bus.StatusIdle
		if a.Turn.Known() {
			turn = a.Turn.Status
		}
		if n, ok := swarmapi.AgentNeedOf(a.Name, a.Level, a.Reason, turn, a.Turn.Note); ok {
			agents = append(agents, n)
		}
	}
	return swarmapi.NeedsYou(agents, nil, nil)
}

// A message sent while the program shows a dialog (a first start's trust
// question, whose default answer exits) waits: nothing is typed into the
// dialog, the agent goes on the "needs you" list saying what the dialog
// asks, the program is not restarted, and once the person answers the
// message is delivered.
func TestAMessageWaitsAtADialogForThePerson(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cx := composerAgent(h, "cx", map[string]string{"COMPOSER_DIALOG": "1"})
	cx.Brief = true
	cx.Restart = RestartOnFailure
	h.run(Options{}, cx)
	h.running("cx")
	m := h.send(bus.Message{To: "cx", Body: "please review auth.go"})
	h.waitFor("cx on the needs-you list", func() bool {
		n := h.needsOf()
		return len(n) == 1 && n[0].Kind == swarmapi.AttentionNeedsHuman &&
			strings.Contains(n[0].Text, "Codex asks whether to trust this folder")
	})
	in, _ := h.sup.Agent("cx")
	if in.StateWord() != bus.StatusNeedsHuman.String() || in.Screen.State != screenmodel.Dialog {
		t.Errorf("at the dialog: state word %q, screen %+v", in.StateWord(), in.Screen)
	}
	if d := h.deliveryOf(m.ID, "cx"); d.State != bus.DeliveryQueued || d.Attempts != 0 {
		t.Fatalf("typed into the dialog: %+v", d)
	}
	if n := typedTimes(h.path("cx.raw"), m.ID); n != 0 {
		t.Fatalf("the message's text reached the dialog %d times", n)
	}
	h.answerTrustYes("cx")
	h.waitFor("the message confirmed", func() bool { return h.deliveryOf(m.ID, "cx").State == bus.DeliveryConfirmed })
	got := readLines(h.path("cx.log"))
	if len(got) != 2 || !strings.Contains(got[0], "from swarm]") || !strings.Contains(got[1], "please review auth.go") {
		t.Fatalf("submissions after the dialog: %q (want the brief, then the message)", got)
	}
	h.waitFor("off the needs-you list", func() bool { return len(h.needsOf()) == 0 })
	if len(h.eventsOf(EventAgentExited)) != 0 {
		t.Fatal("the program was restarted")
	}
}

// A CLI in its own shell mode runs what is typed: a message waits, the
// agent's state says "shell mode", and the message goes once the person
// leaves it.
func TestAMessageWaitsWhileTheCLIIsInItsShellMode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, composerAgent(h, "cx", map[string]string{"SHELLLOG": h.path("shell.log")}))
	h.running("cx")
	if err := h.sup.SendKeys("cx", []byte("!")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("shell mode shown", func() bool {
		in, _ := h.sup.Agent("cx")
		return in.StateWord() == "shell mode"
	})
	// The person's "!" is not a line being typed: only the screen holds
	// the message back.
	m := h.send(bus.Message{To: "cx", Body: "line one\ntouch PWNED"})
	h.waitFor("the injector has looked", func() bool {
		in, _ := h.sup.Agent("cx")
		return time.Since(in.Screen.Since) > 2*heldRecheck
	})
	if d := h.deliveryOf(m.ID, "cx"); d.State != bus.DeliveryQueued {
		t.Fatalf("typed into the shell mode: %+v", d)
	}
	if b := readLines(h.path("shell.log")); len(b) != 0 {
		t.Fatalf("the shell mode ran %q", b)
	}
	if err := h.sup.SendKeys("cx", []byte("\x1b")); err != nil { // Esc leaves it
		t.Fatal(err)
	}
	h.waitFor("the message confirmed", func() bool { return h.deliveryOf(m.ID, "cx").State == bus.DeliveryConfirmed })
	if b := readLines(h.path("shell.log")); len(b) != 0 {
		t.Fatalf("the shell mode ran %q", b)
	}
	if got := readLines(h.path("cx.log")); len(got) != 1 || !strings.Contains(got[0], `line one\ntouch PWNED`) {
		t.Fatalf("submissions: %q", got)
	}
}

// A CLI's status follows its screen where no hook says anything: working
// while its spinner turns, idle at its prompt again (as after Esc).
func TestStatusFollowsTheScreen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, composerAgent(h, "cx", map[string]string{"COMPOSER_BUSY_MS": "4000", "COMPOSER_BURST_MS": "0"}))
	h.running("cx")
	word := func() string { in, _ := h.sup.Agent("cx"); return in.StateWord() }
	h.waitFor("idle at the prompt", func() bool { return word() == "idle" })
	if err := h.sup.SendKeys("cx", []byte("do it")); err != nil {
		t.Fatal(err)
	}
	if err := h.sup.SendKeys("cx", []byte("\r")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("working while the spinner turns", func() bool { return word() == "working" })
	h.waitFor("idle once it stops", func() bool { return word() == "idle" })
	h.waitFor("the heartbeat `swarm status` reads idle", func() bool {
		hbs, err := h.bus.Heartbeats(context.Background())
		return err == nil && len(hbs) == 1 && hbs[0].Status == bus.StatusIdle
	})
}

// A program that ends while still at what it asks first (a dialog) does
// not count as having run well, however long it ran: the restart policy
// gives up on it after max_restarts. One that reached its prompt does.
func TestARunThatNeverReachedItsPromptIsNoStableRun(t *testing.T) {
	t.Parallel()
	for _, dialog := range []string{"1", "0"} {
		t.Run("dialog="+dialog, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			cx := composerAgent(h, "cx", map[string]string{"COMPOSER_DIALOG": dialog, "COMPOSER_EXIT_MS": "1500"})
			cx.Restart, cx.MaxRestarts = RestartOnFailure, 2
			h.run(Options{StableRun: 500 * time.Millisecond}, cx)
			if dialog == "1" {
				h.waitFor("given up", func() bool { in, _ := h.sup.Agent("cx"); return in.State == StateGaveUp })
				if n := len(h.eventsOf(EventAgentStarted)); n != 3 {
					t.Fatalf("%d starts, want 3 (max_restarts 2)", n)
				}
				return
			}
			h.waitFor("five starts", func() bool { return len(h.eventsOf(EventAgentStarted)) >= 5 })
			if n := len(h.eventsOf(EventAgentGaveUp)); n != 0 {
				t.Fatalf("gave up on a program that reached its prompt each time")
			}
		})
	}
}

// opencode draws a submitted message as a user turn behind the same "┃"
// gutter as its input box: the message, gone from the box and shown in
// the transcript, is confirmed — submitted with one Enter, no notice.
func TestOpencodeConfirmsAMessageThatBecameATurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	oc := composerAgent(h, "oc", map[string]string{"COMPOSER_LOOK": "opencode", "COMPOSER_ALT": "1", "COMPOSER_BUSY_MS": "1500"})
	oc.Kind = "opencode"
	h.run(Options{}, oc)
	h.running("oc")
	h.waitFor("its prompt read", func() bool {
		in, _ := h.sup.Agent("oc")
		return in.Screen.State == screenmodel.Prompt
	})
	for i, body := range []string{"please review auth.go", "and then the tests"} {
		m := h.send(bus.Message{To: "oc", Body: body})
		h.waitFor("its delivery ended", func() bool {
			st := h.deliveryOf(m.ID, "oc").State
			return st != bus.DeliveryQueued && st != bus.DeliveryInjected
		})
		if d := h.deliveryOf(m.ID, "oc"); d.State != bus.DeliveryConfirmed {
			t.Fatalf("message %d: %s %s", i, d.State, d.Error)
		}
		if n := typedTimes(h.path("oc.raw"), m.ID); n != 1 {
			t.Errorf("message %d typed %d times", i, n)
		}
	}
	raw, _ := os.ReadFile(h.path("oc.raw"))
	if n := bytes.Count(raw, []byte("\r")); n != 2 {
		t.Errorf("Enter pressed %d times for two messages", n)
	}
	if got := readLines(h.path("oc.log")); len(got) != 2 {
		t.Errorf("submissions %q, want two", got)
	}
	if n := len(h.eventsOf(EventUnconfirmed)); n != 0 {
		t.Errorf("%d unconfirmed", n)
	}
}

// A screen its kind's model does not know is never typed into: a message
// waits, and the agent goes on the "needs you" list saying what it shows;
// a person who makes it known (here: the program's screens are not known
// at all) decides.
func TestAMessageWaitsAtAnUnknownScreen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := scripted("u", "listen", map[string]string{"LOG": h.path("u.log")})
	u.Kind = "crush" // swarm has learnt none of crush's screens
	h.run(Options{}, u)
	h.running("u")
	m := h.send(bus.Message{To: "u", Body: "please review auth.go"})
	h.waitFor("u on the needs-you list", func() bool {
		n := h.needsOf()
		return len(n) == 1 && n[0].Kind == swarmapi.AttentionNeedsHuman && strings.Contains(n[0].Text, "has not learnt")
	})
	if d := h.deliveryOf(m.ID, "u"); d.State != bus.DeliveryQueued || d.Attempts != 0 {
		t.Fatalf("typed into an unknown screen: %+v", d)
	}
	if got := readLines(h.path("u.log")); len(got) != 0 {
		t.Fatalf("u read %q", got)
	}
}

// A program that draws its prompt and replaces it with a dialog a moment
// later (Codex on a fresh HOME: its prompt, then its sign-in question)
// does not get the brief typed into that moment: what it first shows as
// its prompt is trusted once it has stayed a while, and the brief's Enter
// never answers the dialog.
func TestTheFirstPromptOfARunIsTrustedOnceItStays(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cx := composerAgent(h, "cx", map[string]string{"COMPOSER_DIALOG_AFTER_MS": "300"})
	cx.Brief = true
	cx.Restart = RestartOnFailure
	h.run(Options{}, cx)
	h.running("cx")
	h.waitFor("cx on the needs-you list", func() bool {
		n := h.needsOf()
		return len(n) == 1 && strings.Contains(n[0].Text, "Codex asks whether to trust this folder")
	})
	raw, _ := os.ReadFile(h.path("cx.raw"))
	if n := bytes.Count(raw, []byte("from swarm]")); n != 0 {
		t.Fatalf("the brief was typed %d times before the dialog", n)
	}
	h.answerTrustYes("cx")
	h.waitFor("the brief submitted once the person answered", func() bool {
		got := readLines(h.path("cx.log"))
		return len(got) == 1 && strings.Contains(got[0], "from swarm]")
	})
}

// answerTrustYes checks that the composer agent name still shows its
// trust dialog (nothing answered it, so it did not exit) and answers it
// as the person would: Down to "Yes", Enter.
func (h *harness) answerTrustYes(name string) {
	h.t.Helper()
	if len(h.eventsOf(EventAgentExited)) != 0 {
		h.t.Fatal("the program exited: something answered its dialog")
	}
	for _, key := range []string{"\x1b[B", "\r"} {
		if err := h.sup.SendKeys(name, []byte(key)); err != nil {
			h.t.Fatal(err)
		}
	}
}

// A CLI given its prompt on its command line runs its prompt hook at
// once: the turn it reports can arrive before swarm counts the process as
// the agent's running one, and is that process's turn all the same (it
// was dropped, and the agent showed no turn until the next hook).
func TestATurnReportedWhileTheAgentStartsIsItsTurn(t *testing.T) {
	h := newHarness(t)
	name := "early-hook"
	hook := func(agent string) {
		if agent != name {
			return
		}
		if err := h.sup.turn(context.Background(), agent, controlData{Status: "working", Hook: "prompt"}); err != nil {
			t.Errorf("turn: %v", err)
		}
	}
	beforeRunning.Store(&hook)
	t.Cleanup(func() { beforeRunning.Store(nil) })
	h.run(Options{}, scripted(name, "listen", nil))
	h.waitFor("the agent's turn working, from its prompt hook", func() bool {
		a, err := h.sup.Agent(name)
		return err == nil && a.Turn.Known() && a.Turn.Status == bus.StatusWorking && a.Turn.Hook == "prompt"
	})
}
