package main

import (
	"debug/buildinfo"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"swarm/internal/serverbin"
	"swarm/supervisor"
)

// serverBuilds are the binaries of this tree as a person builds them from
// a clean checkout: swarm and swarm-server of one `go build` (in dir), and
// two swarm-servers of other builds of the same commit: one with other
// -ldflags, one from the tree with a change.
type serverBuilds struct {
	dir, ldflags, modified string
}

// buildClean commits a copy of this tree (what git would take of it: the
// tracked files and the new ones not ignored, without tests and test
// data) to a repository of its own, so that its builds are stamped with a
// revision and no changes whatever the state of the tree the tests run
// in, and builds it.
func buildClean(t *testing.T) serverBuilds {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	tree := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/") {
			continue
		}
		st, err := os.Lstat(name)
		if err != nil || !st.Mode().IsRegular() {
			continue // removed from the tree, not yet from the index
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(tree, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, name), b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = tree
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run("git", "init", "-q")
	run("git", "add", "-A")
	run("git", "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "the tree under test")
	b := serverBuilds{dir: t.TempDir(), ldflags: t.TempDir(), modified: t.TempDir()}
	// -buildvcs=true: a GOFLAGS of -buildvcs=false (set on some machines
	// to spare builds the git calls) would leave every build unstamped.
	run("go", "build", "-buildvcs=true", "-o", b.dir+"/", ".", "./cmd/swarm-server")
	run("go", "build", "-buildvcs=true", "-ldflags=-s", "-o", b.ldflags+"/", "./cmd/swarm-server")
	f, err := os.OpenFile(filepath.Join(tree, "cmd", "swarm-server", "main.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\n// A change not committed.\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	run("go", "build", "-buildvcs=true", "-o", b.modified+"/", "./cmd/swarm-server")
	return b
}

// swarmBeside copies swarm into a directory of its own with server beside
// it, and returns the copy's path.
func swarmBeside(t *testing.T, swarm, server string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range [][2]string{{swarm, "swarm"}, {server, serverbin.Name}} {
		src, err := os.Open(f[0])
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.OpenFile(filepath.Join(dir, f[1]), os.O_CREATE|os.O_WRONLY, 0o755)
		if err == nil {
			_, err = io.Copy(dst, src)
			if cerr := dst.Close(); err == nil {
				err = cerr
			}
		}
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "swarm")
}

// exeOf is the binary process pid runs.
func exeOf(pid int) string {
	exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	return exe
}

// A swarm whose swarm-server beside it is of its very build runs its
// swarms in it: `up --headless` becomes it (the same process), `swarm`
// starts it as its server; the agents still call swarm. Beside a
// swarm-server of another build (other -ldflags, a tree with changes), or
// beside swarm itself under that name,
// swarm refuses it, saying why, and serves in its own process.
func TestServerBinary(t *testing.T) {
	t.Parallel()
	b := buildClean(t)
	swarm := filepath.Join(b.dir, "swarm")
	self, err := buildinfo.ReadFile(swarm)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(b.dir, serverbin.Name)
	if got, err := serverbin.Find(self, swarm); got != small || err != nil {
		t.Fatalf("serverbin.Find beside a swarm of the same build: %q, %v; want %s", got, err, small)
	}
	// An agent that calls swarm at once: it reaches the swarm binary, not
	// the server, and the server answers it on the bus.
	const config = "[[agent]]\nname = \"a\"\nrestart = \"never\"\ncmd = \"swarm send human from-a && exec sleep 300\"\n"
	headless := func(t *testing.T, bin string) (exe string) {
		t.Helper()
		e := newEnv(t)
		e.bin = bin
		if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		bg := e.start("up", "--headless")
		waitUntil(t, "a's message on the bus", func() bool {
			out, _, _ := e.run("log")
			return strings.Contains(out, "from-a")
		})
		exe = exeOf(bg.cmd.Process.Pid)
		if code := bg.stop(t, syscall.SIGTERM); code != 0 {
			t.Errorf("up --headless ended with %d on SIGTERM", code)
		}
		return exe
	}
	t.Run("headless", func(t *testing.T) {
		if exe := headless(t, swarm); exe != small {
			t.Errorf("up --headless runs %s, want %s", exe, small)
		}
	})
	t.Run("server", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "swarm.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		ui := startTUIOf(t, swarm, []string{"TERM=xterm-256color"}, dir, 30, 120)
		busDir := filepath.Join(dir, ".swarm")
		e := newEnv(t)
		e.bin, e.dir = swarm, busDir
		waitUntil(t, "a's message on the bus", func() bool {
			out, _, _ := e.run("log")
			return strings.Contains(out, "from-a")
		})
		pid, running := supervisor.SwarmRunning(busDir)
		if !running || pid == 0 {
			t.Fatalf("no swarm runs on %s", busDir)
		}
		if exe := exeOf(pid); exe != small {
			t.Errorf("swarm's server (pid %d) runs %s, want %s", pid, exe, small)
		}
		ui.press("q")
		ui.waitText("Leave the swarm?")
		ui.press("d")
		if err := ui.waitExit(); err != nil {
			t.Errorf("swarm exited with %v on detaching", err)
		}
		if out := e.ok("stop"); strings.TrimSpace(out) != "stopped" {
			t.Errorf("swarm stop printed %q", out)
		}
		waitUntil(t, "the server's end", func() bool { return gone(pid) })
	})
	for _, c := range []struct{ name, server, why string }{
		{"ldflags", filepath.Join(b.ldflags, serverbin.Name), "build setting -ldflags"},
		{"modified", filepath.Join(b.modified, serverbin.Name), "uncommitted changes (vcs.modified)"},
		{"swarm itself", swarm, "the program swarm, not swarm/cmd/swarm-server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := swarmBeside(t, swarm, c.server)
			got, err := serverbin.Find(self, bin)
			if got != "" || err == nil || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("serverbin.Find beside a swarm-server of another build: %q, %v; want an error saying %q", got, err, c.why)
			}
			if exe := headless(t, bin); exe != bin {
				t.Errorf("up --headless runs %s, want swarm itself (%s)", exe, bin)
			}
		})
	}
}
