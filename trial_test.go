package main

// The fault trial: swarm as a user runs it (the built binary, `swarm up
// --headless`, shell agents in real terminals), put through kills, locks,
// floods, crash loops and hostile input. Each trial checks what must hold
// and adds a row to a table that says what was tried and what held.
//
// The suite runs short in CI (`go test`); SWARM_TRIAL=full runs it at the
// sizes of the original trial (minutes). scripts/trial.sh runs it and
// prints the table; RELIABILITY.md keeps the last full run's.

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"swarm/bus"
	"swarm/internal/testrun"
)

// trialSize picks the short (CI) or the full size of a trial.
func trialSize(short, full int) int {
	if os.Getenv("SWARM_TRIAL") == "full" {
		return full
	}
	return short
}

type trialRow struct{ trial, tried, held string }

// trial is one case of the fault trial: it adds its row to the table.
type trial struct {
	name string
	run  func(*testing.T, *trialTable)
}

type trialTable struct {
	mu   sync.Mutex
	rows []trialRow
}

func (tt *trialTable) add(trial, tried, held string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.rows = append(tt.rows, trialRow{trial, tried, held})
}

func (tt *trialTable) String() string {
	slices.SortFunc(tt.rows, func(a, b trialRow) int { return strings.Compare(a.trial, b.trial) })
	var b strings.Builder
	b.WriteString("| trial | tried | held |\n|---|---|---|\n")
	for _, r := range tt.rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.trial, r.tried, r.held)
	}
	return b.String()
}

func TestTrial(t *testing.T) {
	t.Parallel()
	table := &trialTable{}
	t.Run("group", func(t *testing.T) {
		for _, tr := range append([]trial{
			{"kill swarm", trialKillSwarm},
			{"kill recipient", trialKillRecipient},
			{"locked bus", trialLockedBus},
			{"byte flood", trialByteFlood},
			{"relay flood", trialRelayFlood},
			{"crash loop", trialCrashLoop},
			{"hostile bodies", trialHostileBodies},
			{"corrupt bus", trialCorruptBus},
			{"concurrent sends", trialConcurrentSends},
			{"malformed blocks", trialMalformedBlocks},
			{"escapes to the human", trialEscapes},
			{"daemons", trialDaemons},
			{"bus changed", trialBusChanged},
			{"log on a full disk", trialLogFull},
			{"fresh directory race", trialFreshRace},
		}, socketTrials...) {
			t.Run(tr.name, func(t *testing.T) {
				t.Parallel()
				tr.run(t, table)
			})
		}
	})
	t.Logf("fault trial (%s):\n%s", map[bool]string{true: "full", false: "short"}[os.Getenv("SWARM_TRIAL") == "full"], table)
	if path := os.Getenv("SWARM_TRIAL_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(table.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// trialWait polls cond until it holds, failing the trial after three
// minutes (ten at full size: a 50 MB flood takes a while to emulate).
func trialWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, time.Duration(trialSize(3, 10))*time.Minute, what, cond)
}

// trialSwarm is a swarm.toml in a fresh directory, its bus in ./.swarm.
func trialSwarm(t *testing.T, config string) *env {
	t.Helper()
	e := newEnv(t)
	e.dir = ""
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// agentTOML is one [[agent]] running a shell script. The quiet period is
// short: the listeners print nothing but the echo of what they read.
func agentTOML(name, restart, script string) string {
	return fmt.Sprintf("[[agent]]\nname = %q\nrestart = %q\nquiet = \"20ms\"\ncmd = %q\n\n", name, restart, script)
}

// listener logs each line it reads to FILE, and its pid to FILE.pid.
func listener(file string) string {
	return fmt.Sprintf(`echo $$ > %[1]s.pid; echo ready; while IFS= read -r l; do printf '%%s\n' "$l" >> %[1]s; done`, file)
}

// trialBus opens e's bus (for reading) and closes it when the test ends.
func trialBus(t *testing.T, e *env) *bus.Bus {
	t.Helper()
	b, err := bus.Open(bus.Options{Dir: filepath.Join(e.cwd, ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// fromAgent returns the short ids of the messages from `from`, in bus order.
func fromAgent(t *testing.T, b *bus.Bus, from string) []string {
	t.Helper()
	msgs, err := b.Messages(context.Background(), 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range msgs {
		if m.From == from && m.Kind == bus.KindMessage && m.Body != "m-end" { // the end marker is not counted
			ids = append(ids, bus.ShortID(m.ID))
		}
	}
	return ids
}

var relayHeader = regexp.MustCompile(`\[relay #([0-9a-f]{8}) from ([^\]]+)\]`)

// arrivals returns the short ids of the messages from `from` in the order
// a listener logged them, repeats included.
func arrivals(file, from string) []string {
	b, _ := os.ReadFile(file)
	var ids []string
	for _, m := range relayHeader.FindAllStringSubmatch(string(b), -1) {
		if m[2] == from {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// tally compares what was committed with what arrived: lost (committed,
// never arrived), duplicates (arrivals beyond the first) and reordered
// (ids that arrived before one committed earlier).
type tally struct{ committed, delivered, lost, duplicates, reordered int }

func count(committed, arrived []string) tally {
	order := map[string]int{}
	for i, id := range committed {
		order[id] = i
	}
	seen := map[string]bool{}
	var first []string
	repeats := 0
	for _, id := range arrived {
		if _, ok := order[id]; !ok {
			continue // not counted (the end marker)
		}
		if seen[id] {
			repeats++
			continue
		}
		seen[id] = true
		first = append(first, id)
	}
	r := tally{committed: len(committed), delivered: len(first), duplicates: repeats}
	for _, id := range committed {
		if !seen[id] {
			r.lost++
		}
	}
	for i := 1; i < len(first); i++ {
		if order[first[i]] < order[first[i-1]] {
			r.reordered++
		}
	}
	return r
}

// counter is a sender that prints N relay lines to b, keeping its place in
// a file so that a restarted process goes on where the last one stopped.
func counter(n, pauseEvery int) string {
	return fmt.Sprintf(`i=$(cat sent 2>/dev/null); i=${i:-0}; while [ "$i" -lt %d ]; do i=$((i+1)); echo "@relay:b m$i"; echo "$i" > sent.new; mv sent.new sent; `+
		`if [ $((i %% %d)) -eq 0 ]; then sleep 0.05; fi; done; echo "@relay:b m-end"; exec sleep 100000`, n, pauseEvery)
}

func sentCount(e *env) int {
	b, _ := os.ReadFile(filepath.Join(e.cwd, "sent"))
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// settled waits until the sender's last line ("m-end", printed after its
// numbers) has reached b — delivery is in order, so everything committed
// before it has been delivered by then, requeued copies included — and
// returns the tally.
func settled(t *testing.T, e *env, b *bus.Bus, n int) tally {
	t.Helper()
	log := filepath.Join(e.cwd, "b.log")
	trialWait(t, "the sender's last line delivered", func() bool {
		data, _ := os.ReadFile(log)
		return sentCount(e) == n && strings.Contains(string(data), "] m-end\n")
	})
	arrived := arrivals(log, "a") // first: what arrived was committed before
	got := count(fromAgent(t, b, "a"), arrived)
	if got.lost != 0 {
		t.Errorf("%d committed messages never arrived: %+v", got.lost, got)
	}
	return got
}

func trialKillSwarm(t *testing.T, table *trialTable) {
	kills, n := trialSize(3, 16), trialSize(300, 2000)
	e := trialSwarm(t, agentTOML("a", "always", counter(n, 20))+agentTOML("b", "always", listener("b.log")))
	for k := 0; k < kills; k++ {
		up := e.start("up", "--headless")
		// Kill it mid-stream: after some of this run's lines arrived.
		before := len(arrivals(filepath.Join(e.cwd, "b.log"), "a"))
		trialWait(t, "progress", func() bool {
			return len(arrivals(filepath.Join(e.cwd, "b.log"), "a")) > before+rand.IntN(n/kills/2+1) || sentCount(e) == n
		})
		_ = up.cmd.Process.Signal(syscall.SIGKILL)
		<-up.done
		_ = up.cmd.Wait()
	}
	up := e.start("up", "--headless")
	got := settled(t, e, trialBus(t, e), n)
	up.stop(t, syscall.SIGTERM)
	if got.lost != 0 || got.reordered != 0 {
		t.Errorf("after %d kills: %+v", kills, got)
	}
	table.add("kill -9 of swarm up mid-stream", fmt.Sprintf("%d kills while an agent prints %d relay lines", kills, n),
		fmt.Sprintf("%d committed, %d delivered, 0 lost, %d duplicates, %d reordered",
			got.committed, got.delivered, got.duplicates, got.reordered))
}

func trialKillRecipient(t *testing.T, table *trialTable) {
	kills, n := trialSize(2, 4), trialSize(300, 2000)
	e := trialSwarm(t, agentTOML("a", "always", counter(n, 10))+agentTOML("b", "always", listener("b.log")))
	up := e.start("up", "--headless")
	log := filepath.Join(e.cwd, "b.log")
	for k := 0; k < kills; k++ {
		before := len(arrivals(log, "a"))
		trialWait(t, "progress", func() bool { return len(arrivals(log, "a")) > before+n/kills/3 || sentCount(e) == n })
		pid, _ := os.ReadFile(log + ".pid")
		p, err := strconv.Atoi(strings.TrimSpace(string(pid)))
		if err != nil {
			t.Fatal(err)
		}
		_ = syscall.Kill(-p, syscall.SIGKILL)
		trialWait(t, "b restarted", func() bool {
			again, _ := os.ReadFile(log + ".pid")
			return strings.TrimSpace(string(again)) != strconv.Itoa(p)
		})
	}
	got := settled(t, e, trialBus(t, e), n)
	up.stop(t, syscall.SIGTERM)
	if got.lost != 0 {
		t.Errorf("after %d kills of b: %+v", kills, got)
	}
	table.add("kill -9 of the recipient mid-stream", fmt.Sprintf("%d kills, %d relay lines", kills, n),
		fmt.Sprintf("%d committed, %d delivered, 0 lost, %d duplicates, %d reordered", got.committed, got.delivered, got.duplicates, got.reordered))
}

func trialLockedBus(t *testing.T, table *trialTable) {
	hold := time.Duration(trialSize(6, 12)) * time.Second    // past the bus's 5 s busy timeout
	n := int(hold/(200*time.Millisecond)) + trialSize(5, 20) // and some after it
	sender := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do i=$((i+1)); echo "@relay:b m$i"; echo $i > sent; sleep 0.2; done; echo "@relay:b m-end"; exec sleep 100000`, n)
	e := trialSwarm(t, agentTOML("a", "never", sender)+agentTOML("b", "always", listener("b.log")))
	up := e.start("up", "--headless")
	trialWait(t, "the first message", func() bool { return len(arrivals(filepath.Join(e.cwd, "b.log"), "a")) > 0 })
	db, err := sql.Open("sqlite", filepath.Join(e.cwd, ".swarm", "bus.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(hold) // the lock is the load: another process holds it this long
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	got := settled(t, e, trialBus(t, e), n)
	up.stop(t, syscall.SIGTERM)
	if got.committed != n || got.lost != 0 || got.reordered != 0 {
		t.Errorf("%d relay lines around a %s lock: %+v", n, hold, got)
	}
	table.add("bus.db locked by another process (BEGIN EXCLUSIVE)", fmt.Sprintf("%s lock, a relay line every 0.2 s, %d lines", hold, n),
		fmt.Sprintf("%d of %d committed in order, %d delivered, 0 lost", got.committed, n, got.delivered))
}

// peakRSS is the high-water mark of pid's resident memory, in MiB.
func peakRSS(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

// controlBytes counts the bytes of s a terminal would act on: C0 controls
// but newline, DEL, C1 (UTF-8 or bare), and what is not UTF-8.
func controlBytes(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			n++
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f:
			n += size
		case r == 0x202e || r == 0x202d || r == 0x2066 || r == 0x2067 || r == 0x2068 || r == 0x2069 || r == 0x200b:
			n += size
		}
		s = s[size:]
	}
	return n
}

func trialByteFlood(t *testing.T, table *trialTable) {
	mb := trialSize(1, 50) // the race detector makes emulation slow
	// After the flood, what `reset` would do: random bytes may leave an
	// escape string open (OSC, DCS…) that swallows what follows in any
	// terminal; CAN cancels it, ST ends it, RIS resets.
	flood := fmt.Sprintf(`head -c %d /dev/urandom; printf '\030\033\\\033c\n'; echo "@relay:b after-flood"; exec sleep 100000`, mb<<20)
	e := trialSwarm(t, agentTOML("a", "never", flood)+agentTOML("b", "always", listener("b.log")))
	up := e.start("up", "--headless")
	trialWait(t, "the line after the flood", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
		return strings.Contains(string(b), "after-flood")
	})
	peak := peakRSS(up.cmd.Process.Pid)
	e.dir = filepath.Join(e.cwd, ".swarm")
	e.ok("send", "b", "still-answering")
	trialWait(t, "a send after the flood", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
		return strings.Contains(string(b), "still-answering")
	})
	up.stop(t, syscall.SIGTERM)
	b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
	up.mu.Lock()
	out := strings.Join(up.out, "\n")
	up.mu.Unlock()
	crossed := controlBytes(string(b)) + controlBytes(out)
	if crossed != 0 {
		t.Errorf("%d control bytes reached b or the operator", crossed)
	}
	table.add("random bytes from an agent", fmt.Sprintf("%d MB of /dev/urandom, then a relay line", mb),
		fmt.Sprintf("the line after it delivered; swarm answers; peak RSS %.0f MiB; %d control bytes crossed", peak, crossed))
}

func trialRelayFlood(t *testing.T, table *trialTable) {
	n := trialSize(20_000, 100_000)
	flood := fmt.Sprintf(`seq 1 %d | sed 's/^/@relay:b f/'; echo flood-done; exec sleep 100000`, n)
	e := trialSwarm(t, agentTOML("a", "never", flood)+agentTOML("b", "always", `echo ready; exec cat > /dev/null`))
	up := e.start("up", "--headless")
	b := trialBus(t, e)
	var published, told int
	trialWait(t, "every line published or told as dropped", func() bool {
		msgs, err := b.Messages(context.Background(), 0, 10_000_000)
		if err != nil {
			t.Fatal(err)
		}
		published, told = 0, 0
		for _, m := range msgs {
			switch {
			case m.From == "a":
				published++
			case m.From == "swarm" && m.To == "a" && strings.HasPrefix(m.Body, "relay refused: more than"):
				var dropped, all int
				if _, err := fmt.Sscanf(m.Body[strings.Index(m.Body, "; ")+2:], "%d dropped since the last notice, %d in all", &dropped, &all); err == nil {
					told += dropped
				}
			}
		}
		return published+told == n
	})
	peak := peakRSS(up.cmd.Process.Pid)
	up.stop(t, syscall.SIGTERM)
	table.add("relay flood from one agent", fmt.Sprintf("%d relay lines at once", n),
		fmt.Sprintf("%d published (rate limit), %d refused and all %d told; peak RSS %.0f MiB", published, told, told, peak))
}

func trialCrashLoop(t *testing.T, table *trialTable) {
	e := trialSwarm(t, agentTOML("crasher", "always", "echo crashing; exit 1")+"max_restarts = 3\n\n"+agentTOML("b", "always", listener("b.log")))
	up := e.start("up", "--headless")
	trialWait(t, "the crash loop given up", func() bool { return up.has("crasher") && up.has("gave up") })
	e.dir = filepath.Join(e.cwd, ".swarm")
	e.ok("send", "b", "beside-the-crashes")
	trialWait(t, "b still served", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
		return strings.Contains(string(b), "beside-the-crashes")
	})
	status := e.ok("status")
	up.stop(t, syscall.SIGTERM)
	if !strings.Contains(status, "crasher") {
		t.Errorf("status:\n%s", status)
	}
	table.add("crash loop", "an agent that exits 1 at once, restart = always, max_restarts = 3",
		"given up after its restarts, said why; the other agent served")
}

// hostile are bodies that would act on a terminal if they reached one.
var hostile = []string{
	"\x1b[2J\x1b[H", "\x1b]52;c;aGVsbG8=\x07", "\x1b]0;title\x07", "\x1bP+q544e\x1b\\", "\x1b[6n", "\x1b[?1049h",
	"\x07\x07", "\x00", "\x08\x08\x08", "\x15\x17", "\x03", "\x04", "\x1a", "\r", "\t\t", "\x7f",
	"\u0085", "\u009b2J", "\u009d0;x\u009c", "\x9b2J", "\x9d0;x\x9c", "\xc2\x9b", "\xff\xfe",
	"\u202eevil\u202c", "\u2066x\u2069", "a\u200bb", "\ufeff", "\x1bc",
}

func trialHostileBodies(t *testing.T, table *trialTable) {
	var script strings.Builder
	script.WriteString("printf '")
	for i, h := range hostile {
		fmt.Fprintf(&script, `@relay:b hostile-%d `, i)
		for _, c := range []byte(h) {
			fmt.Fprintf(&script, `\%03o`, c)
		}
		fmt.Fprintf(&script, ` end-%d\n`, i)
	}
	script.WriteString("@relay:b hostile-end\\n'; exec sleep 100000")
	e := trialSwarm(t, agentTOML("a", "never", script.String())+agentTOML("b", "always", `echo ready; exec cat > b.raw`))
	up := e.start("up", "--headless", "--json")
	last := "hostile-end" // some bodies erase their own line on a's screen (ESC c, CR…): what is left of it is delivered
	var got []byte
	if !testrun.Poll(time.Minute, func() bool {
		got, _ = os.ReadFile(filepath.Join(e.cwd, "b.raw"))
		return strings.Contains(string(got), last)
	}) {
		t.Fatalf("not all delivered: b read %q", got)
	}
	e.dir = filepath.Join(e.cwd, ".swarm")
	cli := e.ok("log") + e.ok("inbox", "b") + e.ok("log", "--json")
	up.stop(t, syscall.SIGTERM)
	raw, _ := os.ReadFile(filepath.Join(e.cwd, "b.raw"))
	up.mu.Lock()
	out := strings.Join(up.out, "\n")
	up.mu.Unlock()
	toB, toOperator := controlBytes(string(raw)), controlBytes(out)+controlBytes(cli)
	if toB != 0 || toOperator != 0 {
		t.Errorf("control bytes crossed: %d to b, %d to the operator", toB, toOperator)
	}
	table.add("hostile bodies", fmt.Sprintf("%d bodies: ESC/CSI/OSC 52/DCS, C0, DEL, C1 (UTF-8 and bare), bad UTF-8, bidi, zero-width", len(hostile)),
		fmt.Sprintf("%d control bytes reached the recipient, %d the operator (headless --json, log, inbox)", toB, toOperator))
}

func trialCorruptBus(t *testing.T, table *trialTable) {
	e := trialSwarm(t, agentTOML("b", "always", listener("b.log")))
	if err := os.MkdirAll(filepath.Join(e.cwd, ".swarm"), 0o700); err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 8192)
	for i := range junk {
		junk[i] = byte(rand.IntN(256))
	}
	db := filepath.Join(e.cwd, ".swarm", "bus.db")
	if err := os.WriteFile(db, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("up", "--headless")
	out, err := cmd.CombinedOutput()
	after, _ := os.ReadFile(db)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err == nil || !strings.Contains(string(out), "corrupt") || len(lines) != 1 || sha256.Sum256(after) != sha256.Sum256(junk) {
		t.Errorf("up on a corrupt bus: %v\n%s", err, out)
	}
	empty := trialSwarm(t, agentTOML("b", "always", listener("b.log")))
	if err := os.MkdirAll(filepath.Join(empty.cwd, ".swarm"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty.cwd, ".swarm", "bus.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out2, err2 := empty.command("up", "--headless").CombinedOutput()
	if err2 == nil || !strings.Contains(string(out2), "empty") {
		t.Errorf("up on an empty bus.db: %v\n%s", err2, out2)
	}
	table.add("corrupt and emptied bus.db", "8 KiB of random bytes; a 0-byte file",
		"each refused in one line, the file untouched")
}

func trialConcurrentSends(t *testing.T, table *trialTable) {
	n := trialSize(120, 4000) // 32 at a time: contention either way; each is a process start
	e := newEnv(t)
	e.register("b")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if out, err := e.command("send", "b", fmt.Sprintf("c%d", i)).CombinedOutput(); err != nil {
				errs <- fmt.Errorf("send %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	b, err := bus.Open(bus.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	msgs, err := b.Messages(context.Background(), 0, n*2)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]int{}
	for _, m := range msgs {
		bodies[m.Body]++
	}
	twice := 0
	for _, c := range bodies {
		if c > 1 {
			twice++
		}
	}
	if len(bodies) != n || twice != 0 {
		t.Errorf("%d concurrent sends: %d distinct stored, %d twice", n, len(bodies), twice)
	}
	table.add("concurrent CLI sends", fmt.Sprintf("%d `swarm send` processes, 32 at a time", n),
		fmt.Sprintf("%d stored, each once", len(bodies)))
}

// trialMalformedBlocks: broken and oversized relay blocks and a block that
// names another sender; each is refused with a notice to its author, and
// the relay line after them goes through from the agent that printed it.
func trialMalformedBlocks(t *testing.T, table *trialTable) {
	script := `printf '[[RELAY]]\n{"to":"b","body":\n[[/RELAY]]\n'; ` + // broken JSON
		`printf '[[RELAY]]{"to":"b","body":"no end"}\n'; ` + // never closed (ends at the next block)
		`printf '[[RELAY]]\n{"to":"b","body":"'; head -c 2097152 /dev/zero | tr '\0' x; printf '"}\n[[/RELAY]]\n'; ` + // 2 MiB
		`printf '[[RELAY]]{"to":"b","from":"human","body":"forged"}[[/RELAY]]\n'; ` + // a sender field
		`echo "@relay:b after-the-blocks"; exec sleep 100000`
	e := trialSwarm(t, agentTOML("a", "never", script)+agentTOML("b", "always", listener("b.log")))
	up := e.start("up", "--headless")
	trialWait(t, "the line after the blocks", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
		return strings.Contains(string(b), "after-the-blocks")
	})
	b := trialBus(t, e)
	msgs, err := b.Messages(context.Background(), 0, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	up.stop(t, syscall.SIGTERM)
	notices, forged := 0, 0
	for _, m := range msgs {
		if m.From == "swarm" && m.To == "a" && strings.HasPrefix(m.Body, "relay error") {
			notices++
		}
		if m.Body == "forged" && m.From != "a" {
			forged++
		}
		if len(m.Body) > 1<<20 {
			t.Errorf("a %d-byte body was stored from %s", len(m.Body), m.From)
		}
	}
	if notices < 2 || forged != 0 {
		t.Errorf("%d relay-error notices to a (want the broken and the oversized block), %d forged messages", notices, forged)
	}
	table.add("malformed and oversized relay blocks", "broken JSON, an unclosed block, a 2 MiB block, a block naming another sender",
		fmt.Sprintf("%d refused with a notice to their author; 0 stored under another sender; the next line delivered", notices))
}
