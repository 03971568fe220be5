package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"swarm/internal/testrun"
	"swarm/swarmapi"
)

// runTestNATS runs a NATS server with JetStream at addr, its store in
// dir, with one user (swarm, password pw), until SIGTERM: the existing
// NATS server a user of [cluster] nats runs, in a process of its own.
func runTestNATS(addr, dir string) int {
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	ns, err := server.NewServer(&server.Options{Host: host, Port: port, JetStream: true, StoreDir: dir,
		Username: "swarm", Password: "pw", NoSigs: true, NoLog: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	ns.Start()
	<-stop
	ns.Shutdown()
	ns.WaitForShutdown()
	return 0
}

// startNATS starts the test's existing NATS server and waits until it
// takes connections.
func startNATS(t *testing.T) (url string) {
	t.Helper()
	addr := freeAddr(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &hostProcess{cmd: exec.Command(exe, "-test.run=^$"), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "SWARM_TEST_NATS_ADDR="+addr, "SWARM_TEST_NATS_DIR="+t.TempDir())
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill(syscall.SIGTERM) })
	url = "nats://swarm:pw@" + addr
	testrun.Within(t, testrun.Patience, "the NATS server up", func() bool {
		nc, err := nats.Connect(url)
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	return url
}

// TestExistingNATS: with [cluster] nats, the main swarm embeds no server
// and it and its host meet on the NATS server given (one started apart,
// with a password): messages go both ways, each once and in order, the
// remote agent is a pane, swarm hosts lists the host, and a host with
// wrong credentials is refused saying so.
func TestExistingNATS(t *testing.T) {
	t.Parallel()
	natsURL := startNATS(t)
	mainDir, hostDir := t.TempDir(), t.TempDir()
	writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	writeScript(t, hostDir, "worker.sh", `echo "worker on the existing NATS"
while IFS= read -r line; do
  case "$line" in *"from human] ping"*) echo "@relay:lead pong ${line##* }";; esac
done
`)
	tm := startMainWith(t, mainDir, fmt.Sprintf("nats = %q", natsURL),
		"[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
	if tm.main.ns != nil {
		t.Fatal("the main swarm embeds a NATS server though [cluster] names an existing one")
	}
	if got := tm.main.Addr(); strings.Contains(got, "pw") || !strings.Contains(got, "swarm:xxxxx@") {
		t.Errorf("Addr() = %q: the password is to be hidden", got)
	}
	url := tm.invite(t, "box")
	if _, err := os.Stat(filepath.Join(Dir(tm.bus.Dir()), hostsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an invitation on an existing NATS wrote a secret of swarm's own (%v)", err)
	}
	startHost(t, url, filepath.Join(hostDir, ".swarm-host"), hostDir)
	testrun.Within(t, testrun.Patience, "box connected", func() bool {
		hs, err := QueryHosts(tm.bus.Dir(), *tm.cfg.Cluster)
		return err == nil && len(hs) == 1 && hs[0].Name == "box" && hs[0].Connected
	})

	const n = 10
	tm.ping(t, 1, n)
	pongs := tm.answered(t, n)
	if strings.Join(pongs, "|") != strings.Join(numbered("pong", n), "|") {
		t.Errorf("pongs: %q, want each once, in order", pongs)
	}
	testrun.Within(t, testrun.Patience, "the worker's pane", func() bool {
		v, err := tm.main.View("worker", -1)
		a, _ := agentNamed(tm.main.Agents(), "worker")
		return err == nil && strings.Contains(v.Rows, "worker on the existing NATS") && a.State == swarmapi.StateRunning
	})

	bad, err := ParseJoinURL(url)
	if err != nil {
		t.Fatal(err)
	}
	bad.NATS = strings.Replace(bad.NATS, ":pw@", ":wrong@", 1)
	if _, err := Dial(bad, "wrong credentials"); !errors.Is(err, ErrRefused) || strings.Contains(err.Error(), "wrong@") {
		t.Errorf("a host with wrong credentials: %v, want %v without the password", err, ErrRefused)
	}
}

// TestTwoSwarmsOnOneNATS: two main swarms on one existing NATS server, on
// the same account, with a host of the same name and agents of the same
// names, each in its own space: each one's messages go to its own host
// and come back to it alone, each once and in order.
func TestTwoSwarmsOnOneNATS(t *testing.T) {
	t.Parallel()
	natsURL := startNATS(t)
	var mains []*testMain
	for range 2 {
		mainDir, hostDir := t.TempDir(), t.TempDir()
		writeScript(t, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
		writeScript(t, hostDir, "worker.sh", `while IFS= read -r line; do
  case "$line" in *"from human] ping"*) echo "@relay:lead pong ${line##* }";; esac
done
`)
		tm := startMainWith(t, mainDir, fmt.Sprintf("nats = %q", natsURL),
			"[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n\n[[agent]]\nname = \"worker\"\ncmd = [\"./worker.sh\"]\nquiet = 0\nhost = \"box\"\n")
		startHost(t, tm.invite(t, "box"), filepath.Join(hostDir, ".swarm-host"), hostDir)
		mains = append(mains, tm)
	}
	if a, b := mains[0].main.space, mains[1].main.space; a == "" || a == b {
		t.Fatalf("the two swarms' spaces: %q and %q, want two of their own", a, b)
	}
	const n = 10
	mains[0].ping(t, 1, n)
	mains[1].ping(t, 1, n)
	for i, tm := range mains {
		pongs := tm.answered(t, n)
		if strings.Join(pongs, "|") != strings.Join(numbered("pong", n), "|") {
			t.Errorf("swarm %d's pongs: %q, want each once, in order", i, pongs)
		}
	}
}
