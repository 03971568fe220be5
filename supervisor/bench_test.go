package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/games"
	"swarm/internal/testrun"
)

// BenchmarkRelayLatency measures the whole relay path: agent a writes
// `@relay:b t=<now>` in its terminal; swarm reads it from a's PTY, plays it
// through a's screen and the parser, commits it to the bus, routes it and
// types it into b's PTY (quiet = 0); b reads it and logs now - t. 500
// messages at 100 msg/s per iteration; run with -benchtime=1x.
func BenchmarkRelayLatency(b *testing.B) {
	b.Run("line-reader", func(b *testing.B) {
		relayLatency(b, 500, 100, func(lat string) AgentConfig {
			return scripted("b", "timer", map[string]string{"LAT": lat})
		})
	})
	// Into a composer (an agent CLI's input box: composer_test.go), a
	// message is typed, shown, submitted after the profile's pause and
	// seen to leave the box: that costs about the pause per message, so
	// they come a few a second.
	// hundred: the line reader's relay while 98 more agents run beside
	// the two, 88 idle shells and 10 printing 100 KB/s (issue 34's hundred
	// agents on one machine).
	b.Run("hundred", func(b *testing.B) {
		var others []AgentConfig
		for i := range 10 {
			others = append(others, AgentConfig{Name: fmt.Sprintf("printer%d", i), Restart: RestartNever,
				Argv: []string{"sh", "-c", "while :; do head -c 7500 /dev/urandom | base64 -w 100; sleep 0.1; done"}})
		}
		for i := range 88 {
			others = append(others, AgentConfig{Name: fmt.Sprintf("idle%d", i), Argv: []string{"sh"}, Restart: RestartNever})
		}
		relayLatency(b, 500, 100, func(lat string) AgentConfig {
			return scripted("b", "timer", map[string]string{"LAT": lat})
		}, others...)
	})
	b.Run("composer", func(b *testing.B) {
		relayLatency(b, 20, 2, func(lat string) AgentConfig {
			a := scripted("b", "composer", map[string]string{"LAT": lat})
			a.Kind = "codex"
			return a
		})
	})
}

// relayLatency measures n messages sent at rate per second from a pinger
// to the recipient made by to, each from the moment it was printed to the
// moment the recipient read it (written to the file lat).
func relayLatency(b *testing.B, n, rate int, to func(lat string) AgentConfig, others ...AgentConfig) {
	// Neither the second a first prompt must show before anything is
	// typed into it nor the others' start is what is measured.
	delay := "1500"
	if len(others) > 0 {
		delay = "3000"
	}
	var all []time.Duration
	for range b.N {
		dir := b.TempDir()
		bs, err := bus.Open(bus.Options{Dir: filepath.Join(dir, ".swarm")})
		if err != nil {
			b.Fatal(err)
		}
		lat := filepath.Join(dir, "lat")
		agents := []AgentConfig{
			scripted("a", "pinger", map[string]string{"PEER": "b", "COUNT": strconv.Itoa(n), "RATE": strconv.Itoa(rate), "DELAY_MS": delay}),
			to(lat),
		}
		agents = append(agents, others...)
		sup, err := New(Options{Config: &Config{Agents: agents}, Bus: bs, Executable: os.Args[0]})
		if err != nil {
			b.Fatal(err)
		}
		if err := sup.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		var got []time.Duration
		testrun.Poll(time.Minute, func() bool { got = readDurations(lat); return len(got) >= n })
		_ = sup.Shutdown(context.Background())
		bs.Close()
		if len(got) < n {
			b.Fatalf("%d of %d messages arrived", len(got), n)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}

func readDurations(path string) []time.Duration {
	data, _ := os.ReadFile(path)
	var out []time.Duration
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if v, err := strconv.ParseInt(l, 10, 64); err == nil {
			out = append(out, time.Duration(v))
		}
	}
	return out
}

// BenchmarkDemoGame plays one whole headless tic-tac-toe game per
// iteration at pace 0, starting both player processes each time.
func BenchmarkDemoGame(b *testing.B) {
	for i := range b.N {
		dir := b.TempDir()
		bs, err := bus.Open(bus.Options{Dir: filepath.Join(dir, ".swarm")})
		if err != nil {
			b.Fatal(err)
		}
		cfg := TicTacToeConfig(DemoOptions{Seed: int64(i), Executable: os.Args[0]})
		sup, err := New(Options{Config: cfg, Bus: bs, Referee: games.NewReferee(DemoX, DemoO), X: DemoX, O: DemoO})
		if err != nil {
			b.Fatal(err)
		}
		sub := sup.Subscribe()
		if err := sup.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		res, err := WaitGame(context.Background(), sub, time.Minute, nil)
		_ = sup.Shutdown(context.Background())
		sub.Close()
		bs.Close()
		if err != nil || !res.Over {
			b.Fatal(fmt.Errorf("game %d: %v %v", i, res, err))
		}
	}
}
