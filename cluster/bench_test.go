package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/swarmapi"
	"swarm/wire"
)

// BenchmarkRelayLatency measures how long a message takes from its
// commit on its author's bus to its confirmation on its recipient's
// screen as the main bus records it, at 100 messages a second, for each
// kind of pair: both agents on the main machine, main → a host's agent,
// two agents of one host (confirmed on the host: what the main bus
// records comes a report later), a host's agent → main, and agents of two
// hosts. The agents read lines (quiet = 0), so the times are swarm's, not
// an agent CLI's. The bus keeps milliseconds; p50 and p99 are in ms.
// Run: go test -run '^$' -bench RelayLatency -benchtime 300x ./cluster/
func BenchmarkRelayLatency(b *testing.B) {
	mainDir, box1, box2 := b.TempDir(), b.TempDir(), b.TempDir()
	reader := "while IFS= read -r l; do :; done\n"
	for _, s := range []struct{ dir, name string }{{mainDir, "lead"}, {mainDir, "mate"}, {box1, "w1"}, {box1, "helper"}, {box2, "w2"}} {
		writeScript(b, s.dir, s.name+".sh", reader)
	}
	var agents string
	for _, a := range []struct{ name, host string }{{"lead", ""}, {"mate", ""}, {"w1", "box1"}, {"helper", "box1"}, {"w2", "box2"}} {
		agents += fmt.Sprintf("[[agent]]\nname = %q\ncmd = [\"./%s.sh\"]\nquiet = 0\n", a.name, a.name)
		if a.host != "" {
			agents += fmt.Sprintf("host = %q\n", a.host)
		}
	}
	tm := startMain(b, mainDir, freeAddr(b), agents)
	state1, state2 := filepath.Join(box1, ".swarm-host"), filepath.Join(box2, ".swarm-host")
	startHost(b, tm.invite(b, "box1"), state1, box1)
	startHost(b, tm.invite(b, "box2"), state2, box2)
	ctx := context.Background()
	var hostBus *bus.Bus
	testrun.Within(b, testrun.Patience, "box1's bus", func() bool {
		var err error
		hostBus, err = bus.Open(bus.Options{Dir: state1})
		return err == nil
	})
	defer hostBus.Close()
	testrun.Within(b, testrun.Patience, "both hosts connected", func() bool {
		hs := tm.main.Hosts()
		return len(hs) == 2 && hs[0].Connected && hs[1].Connected
	})

	pairs := []struct {
		name, from, to string
		on, record     *bus.Bus // where the author commits, where the end is read
	}{
		{"local-local", "lead", "mate", tm.bus, tm.bus},
		{"local-remote", "lead", "w1", tm.bus, tm.bus},
		{"remote-remote-same-host", "w1", "helper", hostBus, hostBus},
		{"remote-local", "w1", "lead", hostBus, tm.bus},
		{"remote-remote-two-hosts", "w1", "w2", hostBus, tm.bus},
	}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			ids := make([]string, 0, b.N)
			tick := time.NewTicker(10 * time.Millisecond) // 100 a second
			defer tick.Stop()
			for i := range b.N {
				<-tick.C
				m, err := p.on.Publish(ctx, bus.Message{From: p.from, To: p.to, Body: fmt.Sprintf("%s %d", p.name, i)})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, m.ID)
			}
			lat := make([]time.Duration, 0, len(ids))
			testrun.Within(b, testrun.Patience, "every message confirmed", func() bool {
				lat = lat[:0]
				for _, id := range ids {
					m, err := p.record.Message(ctx, id)
					if err != nil || len(m.Deliveries) != 1 || m.Deliveries[0].State != bus.DeliveryConfirmed {
						return false
					}
					lat = append(lat, m.Deliveries[0].Updated.Sub(m.Time))
				}
				return true
			})
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
	// Throughput: a burst to one agent, all committed at once, until the
	// main bus records every one confirmed; here and on a host.
	for _, p := range []struct{ name, to string }{{"burst-local-local", "mate"}, {"burst-local-remote", "w2"}} {
		b.Run(p.name, func(b *testing.B) {
			msgs := make([]bus.Message, b.N)
			for i := range msgs {
				msgs[i] = bus.Message{From: "lead", To: p.to, Body: fmt.Sprintf("burst %d", i)}
			}
			start := time.Now()
			out, err := tm.bus.PublishBatch(ctx, msgs)
			if err != nil {
				b.Fatal(err)
			}
			testrun.Within(b, testrun.Patience, "the burst confirmed", func() bool {
				m, err := tm.bus.Message(ctx, out[len(out)-1].ID)
				return err == nil && len(m.Deliveries) == 1 && m.Deliveries[0].State == bus.DeliveryConfirmed
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
		})
	}
}

// BenchmarkScale: 10 hosts × 20 agents (line readers), each host a
// process of its own, and the main swarm in the benchmark's process; b.N
// messages from the main machine's lead to the hosts' agents in turn, 100
// a second, once every agent has taken one. It reports the latency (commit → confirmation recorded on the
// main bus) and the CPU and memory of the benchmark's process: the main
// swarm, its NATS server, and the benchmark's own publishing and polling.
// Run: go test -run '^$' -bench Scale -benchtime 1000x ./cluster/
func BenchmarkScale(b *testing.B) {
	const hosts, perHost = 10, 20
	mainDir := b.TempDir()
	writeScript(b, mainDir, "lead.sh", "while IFS= read -r l; do :; done\n")
	toml := "[[agent]]\nname = \"lead\"\ncmd = [\"./lead.sh\"]\nquiet = 0\n"
	var names []string
	for h := range hosts {
		for a := range perHost {
			name := fmt.Sprintf("a%d-%d", h, a)
			names = append(names, name)
			toml += fmt.Sprintf("[[agent]]\nname = %q\ncmd = [\"./reader.sh\"]\nquiet = 0\nhost = \"h%d\"\n", name, h)
		}
	}
	tm := startMain(b, mainDir, freeAddr(b), toml)
	for h := range hosts {
		dir := b.TempDir()
		writeScript(b, dir, "reader.sh", "while IFS= read -r l; do :; done\n")
		startHost(b, tm.invite(b, fmt.Sprintf("h%d", h)), filepath.Join(dir, ".swarm-host"), dir)
	}
	testrun.Within(b, testrun.Patience, "every host connected", func() bool {
		n := 0
		for _, h := range tm.main.Hosts() {
			if h.Connected {
				n++
			}
		}
		return n == hosts
	})
	ctx := context.Background()
	// Warm up: one message to every agent, so that every agent has
	// started and taken one (what is measured is the steady state).
	warm := make([]bus.Message, len(names))
	for i, n := range names {
		warm[i] = bus.Message{From: "lead", To: n, Body: "warm up"}
	}
	out, err := tm.bus.PublishBatch(ctx, warm)
	if err != nil {
		b.Fatal(err)
	}
	testrun.Within(b, testrun.Patience, "every agent warmed up", func() bool {
		for _, m := range out {
			got, err := tm.bus.Message(ctx, m.ID)
			if err != nil || got.Deliveries[0].State != bus.DeliveryConfirmed {
				return false
			}
		}
		return true
	})
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	ids := make([]string, 0, b.N)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := range b.N {
		<-tick.C
		m, err := tm.bus.Publish(ctx, bus.Message{From: "lead", To: names[i%len(names)], Body: fmt.Sprintf("m %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	confirmed := func(id string) (time.Duration, bool) {
		m, err := tm.bus.Message(ctx, id)
		if err != nil || len(m.Deliveries) != 1 || m.Deliveries[0].State != bus.DeliveryConfirmed {
			return 0, false
		}
		return m.Deliveries[0].Updated.Sub(m.Time), true
	}
	testrun.Within(b, testrun.Patience, "the last message confirmed", func() bool { _, ok := confirmed(ids[len(ids)-1]); return ok })
	wall := time.Since(start)
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	lat := make([]time.Duration, 0, len(ids))
	testrun.Within(b, testrun.Patience, "every message confirmed", func() bool {
		lat = lat[:0]
		for _, id := range ids {
			d, ok := confirmed(id)
			if !ok {
				return false
			}
			lat = append(lat, d)
		}
		return true
	})
	slices.Sort(lat)
	cpu := time.Duration(after.Utime.Nano()-before.Utime.Nano()) + time.Duration(after.Stime.Nano()-before.Stime.Nano())
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(cpu.Seconds()/wall.Seconds(), "main-cores")
	b.ReportMetric(float64(after.Maxrss)/1024, "main-maxrss-MiB")
}

// BenchmarkRemoteView: a UI on the main machine following a busy remote
// agent's pane, a view per screen notice: what one view carries from the
// host (the rows changed since the last) beside the whole screen, and
// its round trip (ns/op is the time between notices: a frame). One agent redraws a status line in place (a spinner, a
// progress count), the other scrolls a line at a time.
func BenchmarkRemoteView(b *testing.B) {
	for _, c := range []struct{ name, script string }{
		{"status-line", `i=0; printf 'working\n'; while sleep 0.01; do i=$((i+1)); printf '\rstep %d of a long task' $i; done`},
		{"scrolling", `i=0; while sleep 0.01; do i=$((i+1)); echo "line $i of a busy agent's output"; done`},
	} {
		b.Run(c.name, func(b *testing.B) {
			mainDir, hostDir := b.TempDir(), b.TempDir()
			writeScript(b, hostDir, "busy.sh", c.script+"\n")
			tm := startMain(b, mainDir, freeAddr(b), "[[agent]]\nname = \"busy\"\ncmd = [\"./busy.sh\"]\nquiet = 0\nhost = \"box\"\n")
			startHost(b, tm.invite(b, "box"), filepath.Join(hostDir, ".swarm-host"), hostDir)
			changed := make(chan struct{}, 1)
			defer tm.main.Watch(func(ev swarmapi.Event) {
				if ev.Kind == swarmapi.EventScreen {
					select {
					case changed <- struct{}{}:
					default:
					}
				}
			})()
			testrun.Within(b, testrun.Patience, "the busy agent's screen", func() bool {
				_, err := tm.main.View("busy", -1)
				return err == nil
			})
			var held sentScreen
			var sent, whole int
			var took time.Duration
			b.ResetTimer()
			for range b.N {
				<-changed
				start := time.Now()
				res, err := call(tm.main, "busy", wire.View, wire.ViewParams{Agent: "busy", Top: -1, Gen: held.gen})
				took += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if held, err = held.apply(res.Rows); err != nil {
					b.Fatal(err)
				}
				raw, _ := json.Marshal(res.Rows)
				sent += len(raw)
				all := map[int]string{}
				for i, row := range held.rows {
					all[i] = row
				}
				full, _ := json.Marshal(wire.RenderResult{Gen: held.gen, N: len(held.rows), Changed: all})
				whole += len(full)
			}
			b.ReportMetric(float64(sent)/float64(b.N), "B/view")
			b.ReportMetric(float64(whole)/float64(b.N), "B/screen")
			b.ReportMetric(float64(took.Microseconds())/float64(b.N), "µs/view")
		})
	}
}
