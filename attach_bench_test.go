package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"swarm/internal/testrun"
)

// ---- the server and its clients (BENCHMARKS.md) ----

// startServer runs `swarm up --headless` in dir (the server in the
// foreground) until the benchmark ends, once its agents have started.
func startServer(b *testing.B, dir string) *exec.Cmd {
	b.Helper()
	cmd := exec.Command(swarmBin, "up", "--headless")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWARM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		told := false
		for sc.Scan() {
			if !told && strings.Contains(sc.Text(), " started (pid ") {
				close(started)
				told = true
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(testrun.Patience):
		b.Fatal("swarm up --headless did not start its agents")
	}
	testrun.Within(b, testrun.Patience, "the socket", func() bool {
		_, err := os.Stat(filepath.Join(dir, ".swarm", "swarm.sock"))
		return err == nil
	})
	return cmd
}

// detach leaves an attached UI and waits for it to exit.
func detach(b *testing.B, term *tuiTerm) {
	b.Helper()
	term.press("q")
	term.waitText("Leave the swarm?")
	term.press("d")
	if err := term.waitExit(); err != nil {
		b.Fatalf("swarm attach exited with %v", err)
	}
}

// BenchmarkAttachFirstFrame: 16 agents each writing about 1 MB/s; the time
// from starting `swarm attach` to its first complete frame (every agent
// listed and running, a writer's output in its pane), p50 and max of 5.
//
//	go test -run '^$' -bench BenchmarkAttachFirstFrame -benchtime 1x .
func BenchmarkAttachFirstFrame(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		loadConfig(b, dir, 16, 0)
		startServer(b, dir)
		time.Sleep(2 * time.Second) // the writers under way
		var took []time.Duration
		for range 5 {
			start := time.Now()
			term := startTUI(b, dir, 48, 160, "attach")
			term.waitFor("the first complete frame", func(s string) bool {
				return strings.Contains(s, "w16") && strings.Contains(s, "17/17 running") && strings.Contains(s, "build step")
			})
			took = append(took, time.Since(start))
			detach(b, term)
		}
		b.ReportMetric(float64(percentile(took, 0.5).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(slices.Max(took).Microseconds())/1000, "max-ms")
	}
}

// BenchmarkAttachKeyEcho: the time from a key to its echo in a shell's
// pane, with the UI attached to the server through the socket and with
// the swarm in the UI's own process (--foreground), in the same run;
// 60 keys each, p50 and p95.
//
//	go test -run '^$' -bench BenchmarkAttachKeyEcho -benchtime 1x .
func BenchmarkAttachKeyEcho(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		loadConfig(b, dir, 0, 0)
		fg := startTUI(b, dir, 48, 160, "up", "--foreground")
		fg.waitFor("the probe's prompt", func(s string) bool { return strings.Contains(s, "$") })
		local := keyLatencies(b, fg, 60, 20*time.Millisecond)
		if err := fg.quit(); err != nil {
			b.Fatal(err)
		}
		startServer(b, dir)
		at := startTUI(b, dir, 48, 160, "attach")
		at.waitFor("the probe's prompt", func(s string) bool { return strings.Contains(s, "$") })
		remote := keyLatencies(b, at, 60, 20*time.Millisecond)
		detach(b, at)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(percentile(local, 0.5)), "inproc-p50-ms")
		b.ReportMetric(ms(percentile(remote, 0.5)), "socket-p50-ms")
		b.ReportMetric(ms(percentile(local, 0.95)), "inproc-p95-ms")
		b.ReportMetric(ms(percentile(remote, 0.95)), "socket-p95-ms")
	}
}

// BenchmarkServerCPU: 16 agents each writing about 1 MB/s; the server's
// CPU (cores) and what the writers got out, over 10 s each with no client,
// one and two attached (each measured from 5 s after it attached).
//
//	go test -run '^$' -bench BenchmarkServerCPU -benchtime 1x .
func BenchmarkServerCPU(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		loadConfig(b, dir, 16, 0)
		server := startServer(b, dir)
		time.Sleep(2 * time.Second)
		var clients []*tuiTerm
		for n := range 3 {
			if n > 0 {
				term := startTUI(b, dir, 48, 160, "attach")
				term.waitText("17/17 running")
				clients = append(clients, term)
				// The first client resizes every agent to its panes, which
				// rewraps 16 full scrollbacks once: measure after that.
				time.Sleep(5 * time.Second)
			}
			pid := server.Process.Pid
			cpu0, t0, bytes0 := procCPU(b, pid), time.Now(), writtenBytes(b, dir)
			time.Sleep(10 * time.Second)
			period := time.Since(t0).Seconds()
			b.ReportMetric((procCPU(b, pid)-cpu0).Seconds()/period, fmt.Sprintf("cores-%d-clients", n))
			b.ReportMetric((writtenBytes(b, dir)-bytes0)/period/16/1e6, fmt.Sprintf("MBps-per-writer-%d-clients", n))
		}
		for _, term := range clients {
			detach(b, term)
		}
	}
}

// BenchmarkSocketBytes: one agent writing about 1 MB/s, its pane shown;
// the bytes per second the server sends an attached UI, and the bytes per
// second a tmux client gets for the same load (when tmux is installed),
// each over 10 s in a 160×48 terminal.
//
//	go test -run '^$' -bench BenchmarkSocketBytes -benchtime 1x .
func BenchmarkSocketBytes(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		loadConfig(b, dir, 1, 0)
		startServer(b, dir)
		term := startTUI(b, dir, 48, 160, "attach")
		term.waitText("w1 · running", "build step")
		time.Sleep(10 * time.Second)
		detach(b, term)
		// The server logs each connection's bytes as it ends.
		var out, secs float64
		testrun.Within(b, testrun.Patience, "the connections' lines in swarm.log", func() bool {
			log, _ := os.ReadFile(filepath.Join(dir, ".swarm", "swarm.log"))
			out, secs = 0, 0
			n := 0
			for _, m := range regexp.MustCompile(`seconds=([0-9.]+) bytes_in=\d+ bytes_out=(\d+)`).FindAllStringSubmatch(string(log), -1) {
				s, _ := strconv.ParseFloat(m[1], 64)
				o, _ := strconv.ParseFloat(m[2], 64)
				if s > 5 { // the UI's two connections, not the probes' before it
					out += o
					secs = max(secs, s)
					n++
				}
			}
			return n >= 2
		})
		b.ReportMetric(out/secs/1e3, "swarm-socket-kBps")
		if _, err := exec.LookPath("tmux"); err != nil {
			b.Log("tmux is not installed: no tmux figure")
			continue
		}
		b.ReportMetric(tmuxClientBytes(b, dir, 10*time.Second)/1e3, "tmux-client-kBps")
	}
}

// tmuxClientBytes runs the writer in a tmux server of its own and returns
// the bytes per second its client, attached in a 160×48 terminal, writes
// to that terminal.
func tmuxClientBytes(b *testing.B, dir string, period time.Duration) float64 {
	b.Helper()
	sock := fmt.Sprintf("swarm-bench-%d", os.Getpid())
	run := func(args ...string) {
		if out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("tmux %v: %v %s", args, err, out)
		}
	}
	run("new-session", "-d", "-x", "160", "-y", "48", "-c", dir, "SWARM_AGENT=w1 exec python3 writer.py")
	b.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	client := exec.Command("tmux", "-L", sock, "attach")
	client.Env = append(os.Environ(), "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(client, &pty.Winsize{Rows: 48, Cols: 160})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = client.Process.Kill()
		_ = client.Wait()
		ptmx.Close()
	}()
	var got atomic.Int64
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := ptmx.Read(buf)
			got.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second) // attached, its first frame drawn
	n0, t0 := got.Load(), time.Now()
	time.Sleep(period)
	return float64(got.Load()-n0) / time.Since(t0).Seconds()
}
