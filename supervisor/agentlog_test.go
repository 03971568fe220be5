package supervisor

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"swarm/internal/testrun"
)

func TestAnAgentsOutputIsLoggedAcrossRestarts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("a", "say", map[string]string{"SAY": "first line|second line"}))
	h.waitFor("a running", func() bool { in, _ := h.sup.Agent("a"); return in.State == StateRunning })
	log := filepath.Join(h.dir, ".swarm", "logs", "a.log")
	read := func() string { b, _ := os.ReadFile(log); return string(b) }
	h.waitFor("the first run logged", func() bool { return strings.Contains(read(), "second line") })
	if err := h.sup.Restart("a"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the second run logged", func() bool { return strings.Count(read(), "second line") == 2 })
	got := read()
	for _, want := range []string{"a started (pid", "a ended: ", "first line\nsecond line\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "a ended: ") > strings.LastIndex(got, "a started (pid") {
		t.Errorf("the first run's end is not before the second's start:\n%s", got)
	}
}

func TestAnAgentsLogIsRotated(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = strings.Repeat("x", 30) + " line " + string(rune('A'+i%26))
	}
	h.run(Options{LogMax: 400}, scripted("a", "say", map[string]string{"SAY": strings.Join(lines, "|") + "|last one"}))
	log := filepath.Join(h.dir, ".swarm", "logs", "a.log")
	h.waitFor("the last line logged", func() bool { b, _ := os.ReadFile(log); return strings.Contains(string(b), "last one") })
	cur, _ := os.Stat(log)
	old, err := os.Stat(log + ".1")
	if err != nil {
		t.Fatalf("no rotated log: %v", err)
	}
	if cur.Size() > 400 || old.Size() > 400 {
		t.Errorf("sizes %d and %d, over the 400-byte limit", cur.Size(), old.Size())
	}
}

// An agent's log that cannot be written (here /dev/full, a device every
// write to which fails as on a full disk) is not given up: the person is
// told, the lines wait in memory (those past what is held are lost, counted),
// and once the log can be written again (the link removed: a file is made
// at its path) it goes on, saying how many lines it lost.
func TestAnAgentsLogGoesOnAfterItCouldNotBeWritten(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	h := newHarness(t)
	log := filepath.Join(h.dir, ".swarm", "logs", "a.log")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", log); err != nil {
		t.Fatal(err)
	}
	goOn := h.path("go-on")
	script := `i=0; while [ $i -lt 2500 ]; do i=$((i+1)); printf 'line %d %0900d\n' $i 0; done; echo printed-all; ` +
		`while [ ! -e ` + goOn + ` ]; do sleep 0.05; done; echo after-recovery; exec sleep 100`
	h.run(Options{}, AgentConfig{Name: "a", Argv: []string{"sh", "-c", script}, Restart: RestartNever, Confirm: true})
	h.waitFor("the problem told", func() bool {
		in, _ := h.sup.Agent("a")
		return strings.Contains(in.LogProblem, "no space left on device") && hasNotice(h, "a", "cannot be written (no space left on device)")
	})
	// 2.3 MB through the terminal: minutes under the race detector beside
	// the package's other tests on a loaded machine (3 were not enough
	// once); the wait fails only when the lines shown stop moving.
	shown := func() string { snap, _ := h.sup.Snapshot("a"); return strings.Join(snap.Lines, "\n") }
	lineNo := regexp.MustCompile(`line (\d+) `)
	testrun.WhileProgressing(t, waitTimeout, "everything printed", func() bool { return strings.Contains(shown(), "printed-all") }, func() int {
		n := 0
		for _, m := range lineNo.FindAllStringSubmatch(shown(), -1) {
			k, _ := strconv.Atoi(m[1])
			n = max(n, k)
		}
		return n
	})
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	read := func() string { b, _ := os.ReadFile(log); return string(b) }
	h.waitFor("the log written again", func() bool {
		in, _ := h.sup.Agent("a")
		return strings.Contains(read(), "after-recovery") && in.LogProblem == "" && hasNotice(h, "a", "its log is written again")
	})
	got := read()
	mark := strings.Index(got, "lines were not logged here (no space left on device)")
	if !strings.Contains(got, "\nline 1 ") || mark < 0 || strings.Index(got, "after-recovery") < mark {
		t.Errorf("the log once it could be written again: the lines held, then how many were lost, then the next:\n%.300s…%s", got, got[max(0, len(got)-300):])
	}
	if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the log is not a file of its own: %v", err)
	}
}

func hasNotice(h *harness, agent, text string) bool {
	for _, ev := range h.eventsOf(EventNotice) {
		if ev.Agent == agent && strings.Contains(ev.Text, text) {
			return true
		}
	}
	return false
}
