package testrun

import (
	"fmt"
	"strings"
)

// AgentOutput returns about size bytes of ANSI-heavy terminal output of the
// kind agent CLIs produce: coloured log lines (some wider than the
// screen), a progress bar redrawn with carriage returns, an Ink-style
// region redrawn with cursor-up and erase, relay lines and blocks, wide
// characters and emoji, all with CRLF line ends: the load of the screen and
// extraction benchmarks.
func AgentOutput(size int) []byte {
	var b strings.Builder
	spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\x1b[2m%02d:%02d\x1b[0m \x1b[1;32mINFO\x1b[0m \x1b[36mbuild\x1b[0m compiling \x1b[33mgithub.com/example/module%d/pkg\x1b[0m with flags \x1b[35m-race -count=1\x1b[0m in %d ms\r\n", i/60%60, i%60, i, i*7%1000)
		switch i % 8 {
		case 0:
			for p := 0; p <= 100; p += 10 {
				fmt.Fprintf(&b, "\r\x1b[36m[%-20s]\x1b[0m %3d%%", strings.Repeat("=", p/5), p)
			}
			b.WriteString("\r\n")
		case 1:
			// Ink: three frames of a four-line region.
			for f := range 3 {
				if f > 0 {
					b.WriteString("\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G")
				}
				fmt.Fprintf(&b, "\x1b[35m%s\x1b[0m Thinking… \x1b[2m(%ds · esc to interrupt)\x1b[0m\r\n", spin[(i+f)%len(spin)], f)
				b.WriteString("⏺ \x1b[1m@relay:bob\x1b[0m please review auth.go and reply\r\n")
				b.WriteString("\x1b[2m╭────────────────────────────────────────╮\x1b[0m\r\n")
				b.WriteString("\x1b[2m│\x1b[0m > ")
			}
			b.WriteString("\r\n")
		case 2:
			fmt.Fprintf(&b, "@relay:alice build %d is green 你好 👍🏽\r\n", i)
		case 3:
			fmt.Fprintf(&b, "[[RELAY]]\r\n{\"to\":\"bob\",\"type\":\"message\",\"body\":\"step %d done\",\"data\":{\"n\":%d}}\r\n[[/RELAY]]\r\n", i, i)
		case 4:
			fmt.Fprintf(&b, "\x1b[31m  --- FAIL: TestSomething/case_%d (0.00s)\x1b[0m a long explanation that wraps past the right margin of an eighty column terminal\r\n", i)
		}
	}
	return []byte(b.String())
}
