package parser

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEscapeLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"@relay:bob hi", `\@relay:bob hi`},
		{"@thinking:bob hi", `\@thinking:bob hi`},
		{"⏺ @relay:bob hi", `⏺ \@relay:bob hi`},
		{"  > $ @relay:bob hi", `  > $ \@relay:bob hi`},
		{"│ @relay:bob hi │", `│ \@relay:bob hi │`},
		{"[[RELAY]]", `\[[RELAY]]`},
		{`  [[RELAY]]{"to":"bob","body":"x"}[[/RELAY]]`, `  \[[RELAY]]{"to":"bob","body":"x"}[[/RELAY]]`},
		{"[[/RELAY]]", `\[[/RELAY]]`},
		{"[[RELAY]] prose", `\[[RELAY]] prose`},
		{"@relay:", `\@relay:`},
		{"\x1b[1m@relay:bob hi", "\\\x1b[1m@relay:bob hi"},
		// Unchanged: not commands.
		{"hello @relay:bob", "hello @relay:bob"},
		{`\@relay:bob hi`, `\@relay:bob hi`},
		{"-@relay:bob hi", "-@relay:bob hi"},
		{"```", "```"},
		{"", ""},
		{"[relay #12345678 from alice] @relay:bob hi", "[relay #12345678 from alice] @relay:bob hi"},
	}
	for _, tc := range cases {
		if got := EscapeLine(tc.in); got != tc.want {
			t.Errorf("EscapeLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeText(t *testing.T) {
	in := "see below\n@relay:bob hi\r\n  [[RELAY]]\n{\"to\":\"bob\"}\n[[/RELAY]]\nplain"
	want := "see below\n\\@relay:bob hi\r\n  \\[[RELAY]]\n{\"to\":\"bob\"}\n\\[[/RELAY]]\nplain"
	if got := EscapeText(in); got != want {
		t.Errorf("EscapeText = %q, want %q", got, want)
	}
	p := New(Options{})
	for i, l := range strings.Split(strings.ReplaceAll(EscapeText(in), "\r", ""), "\n") {
		if evs := p.Feed(int64(i+1), l); len(evs) > 0 {
			t.Errorf("escaped line %q gave %v", l, evs)
		}
	}
	if evs := p.Flush(); len(evs) > 0 {
		t.Errorf("Flush after escaped text gave %v", evs)
	}
}

// escapeTokens build lines that come close to commands in many ways.
var escapeTokens = []string{
	" ", "  ", "\t", "\u00a0", "⏺ ", "● ", "> ", "$ ", "- ", "* ", "• ", "│ ", "❯ ", "›", "⎿  ", "-", "*", ">",
	"@relay:", "@thinking:", "[[RELAY]]", "[[/RELAY]]", "```", "~~~", `\`, "@", "[[", "relay:",
	"bob", "*", "swarm", "bob,", "<to>", "a.b-c_d", "日本", "🎉",
	"hi", " please review", `{"to":"bob","body":"x"}`, `{"to":"bob",`, `"body":"y"}`, "}", "{",
	"\x1b[1m", "\x1b[0m", "\x1b]0;t\x07", "\r", "\x00", "\u009b",
}

// Structured lines: prefix glyphs, a marker, a target, a body.
var (
	escapePrefixes = []string{"", " ", "⏺ ", "> > ", "$ ", "  ⎿  ", "│ ", "\x1b[32m", "- ", "\u00a0"}
	escapeMarkers  = []string{"@relay:", "@thinking:", "[[RELAY]]", "[[/RELAY]]"}
	escapeTargets  = []string{"bob", "*", "swarm", "x.y-z"}
	escapeBodies   = []string{" hi", " 日本 🎉", `{"to":"bob","body":"x"}[[/RELAY]]`, "", " │"}
)

func randomLine(r *rand.Rand) string {
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteString(pick(escapePrefixes) + pick(escapeMarkers) + pick(escapeTargets) + pick(escapeBodies))
	}
	for range r.IntN(5) {
		b.WriteString(pick(escapeTokens))
	}
	return b.String()
}

// checkEscaped fails when the escaped form of line yields anything from a
// fresh parser, or EscapeLine misbehaves otherwise.
func checkEscaped(t *testing.T, line string) {
	t.Helper()
	esc := EscapeLine(line)
	p := New(Options{})
	evs := append(p.Feed(1, esc), p.Flush()...)
	if len(evs) > 0 {
		t.Fatalf("EscapeLine(%q) = %q still yields %v", line, esc, describe(evs[0]))
	}
	if len(esc) != len(line) && len(esc) != len(line)+1 {
		t.Fatalf("EscapeLine(%q) = %q: changed more than one backslash", line, esc)
	}
	if again := EscapeLine(esc); again != esc {
		t.Fatalf("EscapeLine not idempotent: %q → %q → %q", line, esc, again)
	}
	if esc == line {
		// Unchanged lines must not have been commands either.
		p := New(Options{})
		if evs := append(p.Feed(1, line), p.Flush()...); len(evs) > 0 {
			t.Fatalf("EscapeLine left %q unchanged but it yields %v", line, describe(evs[0]))
		}
	}
}

// TestEscapeLineProperty: for any line, the escaped line fed to a parser
// yields nothing.
func TestEscapeLineProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	commands := 0
	for range 200_000 {
		line := randomLine(r)
		p := New(Options{})
		for _, e := range append(p.Feed(1, line), p.Flush()...) {
			if e.Command != nil {
				commands++
			}
		}
		checkEscaped(t, line)
	}
	// The generator must reach real commands, or the property says nothing.
	if commands < 1000 {
		t.Fatalf("only %d of the generated lines were commands", commands)
	}
}

func FuzzEscapeLine(f *testing.F) {
	for _, s := range []string{"@relay:bob hi", "⏺ @relay:bob hi", `[[RELAY]]{"to":"bob","body":"x"}[[/RELAY]]`, "\x1b[1m@relay:bob", `\@relay:x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkEscaped(t, line)
	})
}
