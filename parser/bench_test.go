package parser

import (
	"fmt"
	"strings"
	"testing"
)

// mixedOutput returns about size bytes of committed lines shaped like a
// session of agent CLIs: Claude Code paragraphs wrapped under ⏺ bullets,
// tool calls with ⎿ results, fenced code, Codex • bullets with └ output,
// shell output, and now and then an inline relay command (some wrapped
// under a bullet) or a block. Commands are about 2% of the lines.
func mixedOutput(size int) []string {
	prose := "The refresh path now retries once with a fresh token and the tests cover expiry, clock skew and a revoked grant"
	var lines []string
	total := 0
	add := func(ls ...string) {
		for _, l := range ls {
			lines = append(lines, l)
			total += len(l)
		}
	}
	for i := 0; total < size; i++ {
		switch i % 10 {
		case 0, 5:
			add("⏺ "+prose[:76], "  "+prose[:70]+" ·", "  "+prose[:40], "")
		case 1:
			add(fmt.Sprintf("⏺ Read(internal/auth/token_%d.go)", i), "  ⎿  Read 214 lines (ctrl+r to expand)", "")
		case 2:
			add("  ```go")
			for j := range 12 {
				add(fmt.Sprintf("  func (c *Client) step%d(ctx context.Context) error { return c.do(ctx, %q) }", j, "GET /v1/items"))
			}
			add("  ```", "")
		case 3:
			add("• Ran go test ./...", "  └ ok  example.com/project/auth   0.412s",
				"    ok  example.com/project/store  0.120s", "    ok  example.com/project/api    1.003s", "")
		case 4:
			add("$ git status --short", " M internal/auth/token.go", "?? internal/auth/token_test.go", "")
		case 6:
			add(fmt.Sprintf("⏺ Update(store/store_%d.go)", i), "  ⎿  Updated store.go with 3 additions and 1 removal",
				"     40    func (s *Store) Put(k string, v []byte) error {", "     41 -    return nil", "     41 +    return s.db.Put(k, v)", "")
		case 7:
			if i%20 == 7 {
				add(fmt.Sprintf("@relay:bob move %d — your turn 🎲", i%9))
			} else {
				add("⏺ @relay:alice reviewed auth.go: the leeway constant should be configurable",
					"  and Refresh should hold the mutex while swapping the token.", "")
			}
		case 8:
			if i%50 == 8 {
				add("⏺ [[RELAY]]", `  {"to":"swarm","type":"heartbeat","data":{"status":"working","progress":0.5,`,
					`  "task":"T-12"},"body":"halfway through the refactor of the auth package"}`, "  [[/RELAY]]", "")
			} else {
				add("• "+prose[:60], "  "+prose[60:], "")
			}
		case 9:
			add("│ > "+strings.Repeat(" ", 60)+"│", "  ? for shortcuts", "")
		}
	}
	return lines
}

// BenchmarkParser measures throughput over committed lines of realistic
// mixed agent output (bytes of line text; line ends not counted).
func BenchmarkParser(b *testing.B) {
	lines := mixedOutput(4 << 20)
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	commands := 0
	for b.Loop() {
		p := New(Options{})
		commands = 0
		for i, l := range lines {
			commands += len(p.Feed(int64(i+1), l))
		}
		commands += len(p.Flush())
	}
	b.ReportMetric(float64(commands), "events/op")
}

// BenchmarkParserPlain is the common case: lines that are no command at all.
func BenchmarkParserPlain(b *testing.B) {
	line := "  ⎿  ok     example.com/project/auth    0.412s and some more text to make it realistic"
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	p := New(Options{})
	n := int64(0)
	for b.Loop() {
		n++
		p.Feed(n, line)
	}
}

// TestMixedOutputCommands keeps the benchmark honest: its input must hold
// the commands it claims to.
func TestMixedOutputCommands(t *testing.T) {
	lines := mixedOutput(64 << 10)
	p := New(Options{})
	var cmds, errs int
	for i, l := range lines {
		for _, e := range p.Feed(int64(i+1), l) {
			if e.Command != nil {
				cmds++
			} else {
				errs++
			}
		}
	}
	p.Flush()
	if cmds == 0 || errs != 0 || cmds*100 < len(lines) {
		t.Fatalf("%d lines gave %d commands and %d errors; want commands on at least 1%% of lines, no errors", len(lines), cmds, errs)
	}
}
