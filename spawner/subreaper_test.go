package spawner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// pidFrom waits until file holds a pid and returns it.
func pidFrom(t *testing.T, file string) int {
	t.Helper()
	var pid int
	eventually(t, "a pid in "+filepath.Base(file), func() bool {
		b, _ := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

// A daemon a program starts (setsid and a double fork: its parent ends at
// once) is adopted by the subreaper, stays below it, and is reaped when it
// ends; meanwhile the programs Start started and os/exec's children are
// still waited for by their own, with their own exit statuses.
func TestTheSubreaperAdoptsDaemonsAndReapsThem(t *testing.T) {
	release, err := Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	dir := t.TempDir()
	pidFile, fifo := filepath.Join(dir, "daemon.pid"), filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The daemon waits for a line on the fifo, then ends.
	script := `setsid sh -c 'echo $$ > ` + pidFile + `.new; mv ` + pidFile + `.new ` + pidFile + `; read x < ` + fifo + `' & ` +
		`while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done`
	p := start(t, Options{Argv: []string{"sh", "-c", script}}, nil)
	if st := waitDone(t, p); !st.Success() {
		t.Fatalf("the program: %s", st)
	}
	daemon := pidFrom(t, pidFile)
	eventually(t, "the daemon adopted", func() bool {
		d, ok := ReadProc(daemon)
		return ok && d.Parent == os.Getpid()
	})
	if d, _ := ReadProc(daemon); d.Session != daemon {
		t.Fatalf("the daemon is in session %d, not one of its own", d.Session)
	}
	if below := Below(Processes(), os.Getpid()); !hasPid(below, daemon) {
		t.Errorf("the daemon %d is not below this process: %v", daemon, below)
	}

	// Children ending meanwhile keep their statuses: the reaper wakes at
	// each of their SIGCHLDs and takes none of them.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			code := 3 + i%5
			q, err := Start(Options{Argv: []string{"sh", "-c", "exit " + strconv.Itoa(code)}})
			if err != nil {
				t.Error(err)
				return
			}
			if st, err := q.Wait(); err != nil || st.Code != code {
				t.Errorf("a program's status: %s, %v; want exit code %d", st, err, code)
			}
		}()
		go func() {
			defer wg.Done()
			code := 10 + i%5
			err := exec.Command("sh", "-c", "exit "+strconv.Itoa(code)).Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != code {
				t.Errorf("os/exec's child: %v; want exit status %d", err, code)
			}
		}()
	}
	wg.Wait()

	if err := os.WriteFile(fifo, []byte("end\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the daemon reaped", func() bool {
		_, ok := ReadProc(daemon)
		return !ok
	})
}

func hasPid(ps []Proc, pid int) bool {
	for _, p := range ps {
		if p.Pid == pid {
			return true
		}
	}
	return false
}

func TestParseStatReadsNamesWithBlanksAndParentheses(t *testing.T) {
	stat := []byte("4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 10 18446744073709551615")
	p, ok := parseStat(4242, stat)
	if !ok || p.Name != "a (b) c" || p.State != 'S' || p.Parent != 1 || p.Group != 4242 || p.Session != 4242 || p.Start != 123456 {
		t.Errorf("parseStat = %+v, %v", p, ok)
	}
	if _, ok := parseStat(1, []byte("1 (init")); ok {
		t.Error("a truncated stat was read")
	}
}
