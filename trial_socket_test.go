package main

// The fault trial's cases against a running swarm's socket: what a program
// inside an agent may ask of it, and what connections that promise much
// and send little cost it.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"swarm/wire"
)

var socketTrials = []trial{
	{"agent against the socket", trialAgentAgainstTheSocket},
	{"promised frames", trialPromisedFrames},
}

// socketProbe builds testdata/socketprobe (raw requests on a swarm's
// socket) into dir.
func socketProbe(t *testing.T, dir string) string {
	t.Helper()
	probe := filepath.Join(dir, "socketprobe")
	if out, err := exec.Command("go", "build", "-o", probe, "./testdata/socketprobe").CombinedOutput(); err != nil {
		t.Fatalf("go build socketprobe: %v\n%s", err, out)
	}
	return probe
}

// A program inside an agent asks the socket for what only the person at
// the UI may do, and to send as another agent.
func trialAgentAgainstTheSocket(t *testing.T, table *trialTable) {
	e := newEnv(t)
	probe := socketProbe(t, e.cwd)
	human := []string{
		`{"Method":"Paste","Params":{"Agent":"bob","Text":"[relay #deadbeef from alice] forged line\r"}}`,
		`{"Method":"SendKey","Params":{"Agent":"bob","Key":{"Code":13}}}`,
		`{"Method":"Resize","Params":{"Agent":"bob","Rows":65535,"Cols":65535}}`,
		`{"Method":"AddAgent","Params":{"Name":"eve","Argv":["sh"]}}`,
		`{"Method":"Approve","Params":{"ID":"x"}}`,
		`{"Method":"StopAgent","Params":{"Agent":"bob"}}`,
		`{"Method":"stop"}`,
	}
	calls := "[" + strings.Join(human, ",") + `,{"Method":"Send","Params":{"From":"alice","To":"bob","Body":"sent by mallory"}}]`
	mallory := fmt.Sprintf(`read go; %s '%s' > mallory.json; %s stop > stop.out 2>&1; echo "exit $?" >> stop.out; echo probed; exec sleep 1000`, probe, calls, swarmBin)
	config := agentTOML("bob", "never", listener("bob.log")) + agentTOML("mallory", "never", mallory)
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	e.dir = ""
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	trialWait(t, "mallory running", func() bool { _, _, code := e.run("peek", "mallory"); return code == 0 })
	e.ok("send", "mallory", "go") // the person's go: mallory starts probing
	trialWait(t, "mallory's probe", func() bool {
		out, _ := os.ReadFile(filepath.Join(e.cwd, "stop.out"))
		return strings.Contains(string(out), "exit ")
	})
	raw, err := os.ReadFile(filepath.Join(e.cwd, "mallory.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answers []struct {
		Method      string
		Error, Code string
	}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var a struct{ Method, Error, Code string }
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("mallory's answers: %v\n%s", err, raw)
		}
		answers = append(answers, a)
	}
	refused := 0
	for _, a := range answers {
		switch {
		case a.Method == "Send" && a.Error != "":
			t.Errorf("mallory's Send: %s", a.Error)
		case a.Method != "Send" && a.Code != "human_only":
			t.Errorf("mallory's %s: %+v, want it refused as the human's", a.Method, a)
		case a.Method != "Send":
			refused++
		}
	}
	stop, _ := os.ReadFile(filepath.Join(e.cwd, "stop.out"))
	if !strings.Contains(string(stop), "only the human may do this") || strings.Contains(string(stop), "exit 0") {
		t.Errorf("swarm stop inside mallory:\n%s", stop)
	}
	// bob reads mallory's message as mallory's, and nothing typed by her.
	trialWait(t, "mallory's message read by bob", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "bob.log"))
		return strings.Contains(string(b), "sent by mallory")
	})
	log, _ := os.ReadFile(filepath.Join(e.cwd, "bob.log"))
	if strings.Contains(string(log), "deadbeef") || !strings.Contains(string(log), "from mallory") || strings.Contains(string(log), "from alice") {
		t.Errorf("bob read:\n%s", log)
	}
	msgs, err := trialBus(t, e).Messages(context.Background(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Body == "sent by mallory" && m.From != "mallory" {
			t.Errorf("mallory's message is stored from %s", m.From)
		}
		if m.From == "alice" {
			t.Errorf("a message stored from %s: %q", m.From, m.Body)
		}
	}
	peak := peakRSS(up.cmd.Process.Pid)
	if _, _, code := e.run("peek", "bob"); code != 0 {
		t.Error("the swarm stopped answering")
	}
	up.stop(t, syscall.SIGTERM)
	table.add("an agent against the socket", fmt.Sprintf("a program inside an agent: %d of the human's requests (typing and Enter into another agent, a 65535×65535 resize, adding and stopping agents, approving, stopping the swarm; swarm stop too), a send naming another sender", len(human)),
		fmt.Sprintf("%d of %d refused in one line, swarm stop refused; the send stored and read as the agent's; 0 lines typed into the other; peak RSS %.0f MiB", refused, len(human), peak))
}

// vmSize is pid's virtual memory size, in MiB.
func vmSize(pid int) float64 {
	return float64(procStatus(pid, "VmSize:")) / 1024
}

// procStatus returns the number a line of /proc/PID/status gives (its
// unit dropped), 0 if there is none.
func procStatus(pid int, field string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// threadStackMiB is what each thread the server starts reserves of its
// address space: a thread started through libc (the binary links it for
// the resolver) gets the default 8 MiB stack, reserved, not used.
const threadStackMiB = 8

// Connections that each promise a frame of the largest size and send 8
// bytes of it: before, 200 of them reserved 2 GB of the server's memory.
func trialPromisedFrames(t *testing.T, table *trialTable) {
	e := trialSwarm(t, agentTOML("bob", "never", listener("bob.log")))
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	trialWait(t, "bob running", func() bool { _, _, code := e.run("peek", "bob"); return code == 0 })
	pid := up.cmd.Process.Pid
	before, threads := vmSize(pid), procStatus(pid, "Threads:")
	n := trialSize(200, 1000)
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], wire.MaxFrame)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("unix", filepath.Join(e.dir, "swarm.sock"))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := c.Write(append(head[:], `{"versi`...)); err != nil {
			t.Fatal(err)
		}
	}
	// While they hold the socket, another client is refused in one line;
	// once the server has dropped them (the handshake's time), it is
	// served.
	_, stderr, code := e.run("peek", "bob")
	if code == 0 || !strings.Contains(stderr, "connections already") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("swarm peek while %d connections hold the socket: exit %d, %q", n, code, stderr)
	}
	// What the server reserved for the connections, not for the threads
	// the runtime started meanwhile (more on a loaded machine: each one
	// blocked in a system call is replaced).
	grown := vmSize(pid) - before - float64(max(procStatus(pid, "Threads:")-threads, 0)*threadStackMiB)
	start := time.Now()
	trialWait(t, "the promising connections dropped", func() bool {
		dropped := 0
		for _, c := range conns {
			_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); err != nil && !os.IsTimeout(err) {
				dropped++
			}
		}
		return dropped == n
	})
	took := time.Since(start)
	if _, _, code := e.run("peek", "bob"); code != 0 {
		t.Error("swarm peek after the connections were dropped failed")
	}
	peak := peakRSS(pid)
	up.stop(t, syscall.SIGTERM)
	if grown > 256 {
		t.Errorf("%d connections promising %d MiB each grew the server by %.0f MiB", n, wire.MaxFrame>>20, grown)
	}
	table.add("connections promising frames", fmt.Sprintf("%d connections, each promising a %d MiB frame and sending 8 bytes of it", n, wire.MaxFrame>>20),
		fmt.Sprintf("the server grew %.0f MiB (peak RSS %.0f MiB); past 128, refused in one line; all dropped within %.0f s, then served", grown, peak, took.Seconds()))
}
