// Command gen writes the raw terminal transcripts in this directory
// (NAME.raw). Run it from here with `go run gen.go`, then refresh the
// expected events with `go test ./supervisor/ -run TestTranscripts -update`
// from the module root and review the diff.
//
// Each transcript is what a program writes to its terminal (80×24, CRLF
// line ends as the tty delivers them), exercising one thing the screen and
// the relay extractor must get right together.
package main

import (
	"fmt"
	"os"
	"strings"
)

const (
	esc   = "\x1b"
	crlf  = "\r\n"
	reset = esc + "[0m"
)

// inkFrames renders frames as Ink's log-update does: erase the previous
// frame line by line going up, then write the new one.
func inkFrames(frames ...[]string) string {
	var b strings.Builder
	prev := 0
	for _, f := range frames {
		for i := range prev {
			b.WriteString(esc + "[2K")
			if i < prev-1 {
				b.WriteString(esc + "[1A")
			}
		}
		if prev > 0 {
			b.WriteString(esc + "[G")
		}
		b.WriteString(strings.Join(f, crlf))
		prev = len(f)
	}
	return b.String()
}

func transcripts() map[string]string {
	t := map[string]string{}

	t["plain"] = "$ agent --task review" + crlf +
		"Reading the repository..." + crlf +
		"@relay:bob please review auth.go" + crlf +
		"@thinking:* looking at the tests next" + crlf +
		"@relay:swarm done with the review" + crlf +
		"not a command: email me @relay:bob" + crlf +
		"$ "

	t["crlf"] = "first line" + crlf +
		"@relay:bob with CRLF" + crlf +
		"@relay:bob with CR CR LF\r" + crlf +
		"last line" + crlf

	var progress strings.Builder
	for p := 0; p <= 100; p += 5 {
		fmt.Fprintf(&progress, "\r[%-20s] %3d%%", strings.Repeat("#", p/5), p)
	}
	t["progress"] = "downloading" + crlf + progress.String() + crlf +
		"@relay:bob download finished" + crlf

	var frames [][]string
	for i := range 50 {
		spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼"}[i%5]
		frames = append(frames, []string{spin + " Working… (" + fmt.Sprint(i) + "s)", "@relay:bob status: tests pass", "> "})
	}
	t["redraw50"] = inkFrames(frames...)

	t["twice"] = "@relay:bob ping" + crlf + "other output" + crlf + "@relay:bob ping" + crlf

	t["wrapped"] = "@relay:bob this message is long enough that the terminal wraps it at eighty columns, " +
		"twice in fact, and the body must come out whole as one command" + crlf + "after" + crlf

	t["sgr"] = esc + "[1;32m@relay:bob" + reset + " " + esc + "[38;5;208mcoloured" + reset + " " +
		esc + "[4mbody" + reset + crlf +
		esc + "[2m⏺ " + reset + esc + "[1m@relay:alice" + reset + " bold bullet" + crlf

	t["altscreen"] = "@relay:bob before vim" + crlf +
		esc + "[?1049h" + esc + "[H" + esc + "[2J" + "@relay:bob drawn on the alternate screen, once" + crlf +
		"~" + crlf + "~" + crlf + esc + "[24;1H:wq" +
		esc + "[?1049l" + "@relay:bob after vim" + crlf

	t["fence"] = "Here is how to send a message:" + crlf +
		"```" + crlf + "@relay:bob inside a fence" + crlf + "```" + crlf +
		"~~~text" + crlf + "@relay:bob inside a tilde fence" + crlf + "~~~" + crlf +
		"@relay:bob after the fences" + crlf

	t["escape"] = `\@relay:bob this is literal` + crlf +
		`> \@relay:bob escaped under a prompt` + crlf +
		`@relay:bob real one mentions \@relay:x` + crlf

	t["block_marker_in_string"] = "[[RELAY]]" + crlf +
		`{"to":"bob","type":"message","body":"the end marker [[/RELAY]] may appear in a string"}` + crlf +
		"[[/RELAY]]" + crlf +
		"@relay:bob after the block" + crlf

	t["malformed"] = "[[RELAY]]" + crlf + `{"to":"bob","body": oops}` + crlf + "[[/RELAY]]" + crlf +
		"[[RELAY]]" + crlf + `{"body":"no recipient"}` + crlf + "[[/RELAY]]" + crlf +
		"@relay:bob, missing space" + crlf +
		"[[RELAY]]" + crlf + `{"to":"bob","body":"never closed"}` + crlf +
		"@relay:bob still found after the errors" + crlf +
		"[[RELAY]]" + crlf + `{"to":"alice","type":"task_done","data":{"task":"t1"}}` + crlf + "[[/RELAY]]" + crlf

	// A block over 1 MiB: its JSON is one long line the terminal wraps.
	big := strings.Repeat("x", 1<<20)
	t["oversized"] = "[[RELAY]]" + crlf + `{"to":"bob","body":"` + big + `"}` + crlf + "[[/RELAY]]" + crlf +
		"@relay:bob found after the oversized block" + crlf

	t["wide"] = "@relay:bob 你好，世界 — こんにちは 👋🏽 👨‍👩‍👧 🇫🇷 done" + crlf +
		// Wide characters across the right margin: the line wraps in the
		// middle of them.
		"@relay:alice " + strings.Repeat("界", 40) + " end" + crlf

	t["ink_grow"] = inkFrames(
		[]string{"@relay:bob ready for review", "✻ Thinking…"},
		[]string{"⏺ Read(auth.go)", "@relay:bob ready for review", "✻ Thinking…"},
		[]string{"⏺ Read(auth.go)", "⏺ Read(auth_test.go)", "@relay:bob ready for review", "✻ Thinking…"},
		[]string{"⏺ Read(auth.go)", "⏺ Read(auth_test.go)", "⏺ Bash(go test)", "@relay:bob ready for review", "✻ Thinking…"},
		[]string{"⏺ Read(auth.go)", "⏺ Read(auth_test.go)", "⏺ Bash(go test)", "@relay:bob ready for review", "> "},
	) + crlf

	// Ink's full repaint, once its live area is taller than the screen:
	// every frame clears the screen and the scrollback and writes all the
	// static output again, then the live area. The history grows to over
	// three screens; each relay line comes out once, and a new one in a
	// replayed frame too.
	var static []string
	var full strings.Builder
	for i := range 40 {
		static = append(static, fmt.Sprintf("⏺ step %d: read a file", i))
		if i%5 == 0 {
			static = append(static, fmt.Sprintf("@relay:bob progress %d", i))
		}
		full.WriteString(esc + "[2J" + esc + "[3J" + esc + "[H" + strings.Join(static, crlf) + crlf +
			"✻ Thinking…" + crlf + "> ")
	}
	t["ink_full_repaint"] = full.String() + crlf

	t["bullet"] = "⏺ @relay:bob please review auth.go — I added token refresh with a 30 s" + crlf +
		"  leeway and tests for expiry; the diff is small (12 additions, 3" + crlf +
		"  removals). 🙏" + crlf +
		crlf +
		"⏺ Done." + crlf
	return t
}

func main() {
	for name, raw := range transcripts() {
		if err := os.WriteFile(name+".raw", []byte(raw), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
