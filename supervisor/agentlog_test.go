package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
