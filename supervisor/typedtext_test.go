package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"swarm/bus"
)

// lineReader is an agent running a real program that reads lines (the
// shell's read in a loop: the terminal in canonical mode) and appends
// each to log; bracketed makes it ask for bracketed paste first, as a
// program that reads keys at other times would have.
func lineReader(name, log, dir string, bracketed bool) AgentConfig {
	script := `echo reading; while IFS= read -r l; do printf '%s\n' "$l" >> "$LOG"; done`
	if bracketed {
		script = `printf '\033[?2004h'; ` + script
	}
	return AgentConfig{
		Name: name, Argv: []string{"sh", "-c", script}, Cmd: script, Dir: dir,
		Env: map[string]string{"LOG": log}, Restart: RestartNever, Confirm: true,
	}
}

// A program reading lines takes a message as one line, its lines joined
// with ⏎ — never its later lines as further input of its own, even when
// it asked for bracketed paste (which a terminal in canonical mode does
// not honour).
func TestALineReaderGetsAMessageAsOneLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{},
		lineReader("plain", h.path("plain.log"), h.dir, false),
		lineReader("pasty", h.path("pasty.log"), h.dir, true))
	h.running("plain")
	h.running("pasty")
	m := h.send(bus.Message{To: "*", Body: "first\nsecond\n\nthird; rm -rf x\n"})
	h.waitFor("both confirmed", func() bool {
		return h.deliveryStates("plain")[bus.DeliveryConfirmed]+h.deliveryStates("pasty")[bus.DeliveryConfirmed] == 2
	})
	want := "[relay #" + bus.ShortID(m.ID) + " from human] first ⏎ second ⏎ third; rm -rf x"
	for _, name := range []string{"plain", "pasty"} {
		h.waitFor(name+" read it", func() bool { return len(readLines(h.path(name+".log"))) > 0 })
		if got := readLines(h.path(name + ".log")); len(got) != 1 || got[0] != want {
			t.Errorf("%s read %q, want one line %q", name, got, want)
		}
	}
}

// The long body's file is named by its path from the agent's directory,
// so that a directory named with a line feed is not typed as Enter; seen
// from a directory elsewhere, where that path would cross the line feed,
// the message fails, saying why, and nothing is typed.
func TestALongBodysFileIsNamedFromTheAgentsDirectory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.dir = filepath.Join(h.dir, "proj\necho INJECTED")
	elsewhere := t.TempDir()
	if err := os.Mkdir(h.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	h.run(Options{},
		lineReader("inside", filepath.Join(logs, "inside.log"), h.dir, false),
		lineReader("outside", filepath.Join(logs, "outside.log"), elsewhere, false))
	h.running("inside")
	h.running("outside")
	body := strings.Repeat("a long body; ", 400)
	in := h.send(bus.Message{To: "inside", Body: body})
	out := h.send(bus.Message{To: "outside", Body: body})
	h.waitFor("inside confirmed", func() bool { return h.deliveryOf(in.ID, "inside").State == bus.DeliveryConfirmed })
	h.waitFor("inside read it", func() bool { return len(readLines(filepath.Join(logs, "inside.log"))) > 0 })
	got := readLines(filepath.Join(logs, "inside.log"))
	want := "5200 bytes, too long to type: read .swarm/messages/" + in.ID + ".txt"
	if len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Fatalf("inside read %q, want one line ending %q", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, ".swarm", "messages", in.ID+".txt")); err != nil || string(b) != body+"\n" {
		t.Errorf("the file read from inside: %v, %d bytes", err, len(b))
	}
	h.waitFor("outside's message failed", func() bool { return h.deliveryOf(out.ID, "outside").State == bus.DeliveryFailed })
	if d := h.deliveryOf(out.ID, "outside"); !strings.Contains(d.Error, "holds a line feed") {
		t.Errorf("outside: %+v", d)
	}
	if got := readLines(filepath.Join(logs, "outside.log")); len(got) != 0 {
		t.Errorf("typed into outside: %q", got)
	}
}
