package supervisor

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What an agent left in its session was told by the stop (here the
// terminal's hang-up reaches a job in the foreground): it gets the grace
// to finish (here longer than the drain of its terminal), never a second signal, which would cut short what it does on
// the first (vim saving its swap file gives up at a second one).
func TestWhatTheStopToldIsNotSignalledAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sigs := h.path("sigs")
	job := `trap "echo sig >> ` + sigs + `; sleep 3; echo done >> ` + sigs + `; exit 0" HUP TERM; ` +
		`echo $$ > ` + h.path("job.pid") + `; while :; do sleep 0.05; done`
	// set -m: the job gets a process group of its own, the terminal's
	// foreground, in the agent's session.
	script := `set -m; sh -c '` + job + `'; echo after`
	h.run(Options{StopGrace: 5 * time.Second}, AgentConfig{Name: "a", Argv: []string{"sh", "-c", script}, Restart: RestartNever, Confirm: true})
	h.waitFor("the job in the terminal's foreground", func() bool {
		b, _ := os.ReadFile(h.path("job.pid"))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		return pid > 0 && len(f) > 5 && f[2] == strconv.Itoa(pid) && f[5] == f[2] // its own group, the terminal's
	})
	if err := h.sup.StopAgent("a"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the job done", func() bool { b, _ := os.ReadFile(sigs); return strings.Contains(string(b), "done") })
	h.waitFor("a stopped", func() bool { in, _ := h.sup.Agent("a"); return in.State == StateStopped })
	if b, _ := os.ReadFile(sigs); strings.Count(string(b), "sig") != 1 {
		t.Errorf("the job got %d signals, want 1:\n%s", strings.Count(string(b), "sig"), b)
	}
}
