package parser

import "strings"

// EscapeLine returns line so that it never reads as a relay command or a
// block marker: when, after the parser's prefix removal, it starts with
// `@relay:`, `@thinking:`, `[[RELAY]]` or `[[/RELAY]]`, a backslash is put
// in front of that marker (`⏺ @relay:bob hi` becomes `⏺ \@relay:bob hi`);
// other lines are returned unchanged. A line holding escape sequences or
// control characters gets the backslash in front of the whole line instead,
// which the parser also reads as literal text. line is one line: use
// [EscapeText] for text with newlines.
func EscapeLine(line string) string {
	c := clean(line)
	rest, n, _ := stripPrefix(c)
	if !strings.HasPrefix(rest, relayMarker) && !strings.HasPrefix(rest, thinkingMarker) &&
		!strings.HasPrefix(rest, blockOpen) && !strings.HasPrefix(rest, blockClose) {
		return line
	}
	if c != line {
		return `\` + line
	}
	return line[:n] + `\` + line[n:]
}

// EscapeText applies [EscapeLine] to every line of s (lines end at "\n";
// a "\r" before it stays with its line).
func EscapeText(s string) string {
	if !strings.Contains(s, "@") && !strings.Contains(s, "[[") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = EscapeLine(l)
	}
	return strings.Join(lines, "\n")
}
