package parser

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// describe renders an event compactly for table comparisons:
// `relay bob "body" @2` (plus type, data, topic, … when set) or
// `error ErrX @2`.
func describe(e Event) string {
	switch {
	case e.Command != nil && e.Err != nil:
		return "both command and error"
	case e.Command != nil:
		c := e.Command
		s := fmt.Sprintf("%s %s %q @%d", c.Kind, c.To, c.Body, c.Line)
		if c.Type != "message" {
			s += " type=" + c.Type
		}
		if c.Data != nil {
			s += " data=" + string(c.Data)
		}
		if c.Topic != "" {
			s += " topic=" + c.Topic
		}
		if c.CorrelationID != "" {
			s += " corr=" + c.CorrelationID
		}
		if c.InReplyTo != "" {
			s += " reply=" + c.InReplyTo
		}
		return s
	case e.Err != nil:
		for _, s := range []struct {
			name string
			err  error
		}{
			{"ErrInvalidTarget", ErrInvalidTarget}, {"ErrEmptyBody", ErrEmptyBody},
			{"ErrMalformedBlock", ErrMalformedBlock}, {"ErrTooLarge", ErrTooLarge},
			{"ErrUnterminatedBlock", ErrUnterminatedBlock},
		} {
			if errors.Is(*e.Err, s.err) {
				return fmt.Sprintf("error %s @%d", s.name, e.Err.Line)
			}
		}
		return "error without sentinel: " + e.Err.Reason
	}
	return "empty event"
}

// feedAll feeds lines numbered 1, 2, … (a line "#gap" skips a number
// instead), shown where the program wraps its rows at wrapAt (0: not
// known), and returns the events from the feeds and from the final Flush.
func feedAll(p *Parser, lines []string, wrapAt int) (fed, flushed []Event) {
	n := int64(0)
	for _, l := range lines {
		n++
		if l == "#gap" {
			continue
		}
		fed = append(fed, p.FeedLine(n, l, wrapAt)...)
	}
	return fed, p.Flush()
}

type tcase struct {
	name    string
	max     int
	wrapAt  int // the column the program wraps at; 0: not known
	lines   []string
	want    []string
	flushed int // how many of want come from Flush rather than Feed
}

func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{MaxBlock: tc.max})
			fed, flushed := feedAll(p, tc.lines, tc.wrapAt)
			var got []string
			for _, e := range append(fed, flushed...) {
				got = append(got, describe(e))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			if len(flushed) != tc.flushed {
				t.Errorf("%d events came from Flush, want %d", len(flushed), tc.flushed)
			}
			if p.Pending() {
				t.Errorf("Pending after Flush")
			}
		})
	}
}

func TestInline(t *testing.T) {
	runCases(t, []tcase{
		{name: "relay", lines: []string{"@relay:bob please review auth.go"},
			want: []string{`relay bob "please review auth.go" @1`}},
		{name: "thinking", lines: []string{"@thinking:* trying the other approach"},
			want: []string{`thinking * "trying the other approach" @1`}},
		{name: "body trimmed", lines: []string{"@relay:bob    lots of space   "},
			want: []string{`relay bob "lots of space" @1`}},
		{name: "tab separates target", lines: []string{"@relay:bob\thi"},
			want: []string{`relay bob "hi" @1`}},
		{name: "everyone", lines: []string{"@relay:* standup in 5"},
			want: []string{`relay * "standup in 5" @1`}},
		{name: "swarm", lines: []string{"@relay:swarm status please"},
			want: []string{`relay swarm "status please" @1`}},
		{name: "name characters", lines: []string{"@relay:Agent_2.b-c hi"},
			want: []string{`relay Agent_2.b-c "hi" @1`}},
		{name: "64 character name", lines: []string{"@relay:" + strings.Repeat("a", 64) + " hi"},
			want: []string{`relay ` + strings.Repeat("a", 64) + ` "hi" @1`}},
		{name: "wide characters and emoji kept", lines: []string{"@relay:bob 日本語のテキスト 🎉👍🏽 done ✅"},
			want: []string{`relay bob "日本語のテキスト 🎉👍🏽 done ✅" @1`}},
		{name: "line numbers with gaps", lines: []string{"x", "#gap", "#gap", "@relay:bob hi"},
			want: []string{`relay bob "hi" @4`}},
		{name: "two commands on two lines", lines: []string{"@relay:bob same", "@relay:bob same"},
			want: []string{`relay bob "same" @1`, `relay bob "same" @2`}},
		{name: "mid-line is text", lines: []string{"tell @relay:bob hi", "use `@relay:bob hi` to send"}},
		{name: "case-sensitive", lines: []string{"@Relay:bob hi", "@RELAY:bob hi"}},
		{name: "marker alone is text", lines: []string{"@relay:", "@relay:   ", "@thinking:"}},
		{name: "blank after marker is text", lines: []string{"@relay: bob hi"}},
		{name: "invalid target", lines: []string{"@relay:bob, please look", "@relay:<to> <body>", "@thinking:-x hi"},
			want: []string{"error ErrInvalidTarget @1", "error ErrInvalidTarget @2", "error ErrInvalidTarget @3"}},
		{name: "65 character name", lines: []string{"@relay:" + strings.Repeat("a", 65) + " hi"},
			want: []string{"error ErrInvalidTarget @1"}},
		{name: "empty body", lines: []string{"@relay:bob", "@thinking:bob    "},
			want: []string{"error ErrEmptyBody @1", "error ErrEmptyBody @2"}},
		{name: "errors then a valid command", lines: []string{"@relay:bob,", "@relay:bob", "@relay:bob fine"},
			want: []string{"error ErrInvalidTarget @1", "error ErrEmptyBody @2", `relay bob "fine" @3`}},
		{name: "escape sequences removed", lines: []string{"\x1b[1;32m@relay:bob\x1b[0m \x1b[3mhello\x1b[23m", "\x1b]0;title\x07@relay:carol hi"},
			want: []string{`relay bob "hello" @1`, `relay carol "hi" @2`}},
		{name: "control characters removed", lines: []string{"@relay:bob a\x08b\x00c\x7fd"},
			want: []string{`relay bob "abcd" @1`}},
		{name: "too large", max: 30, lines: []string{"@relay:bob " + strings.Repeat("x", 30), "@relay:bob ok"},
			want: []string{"error ErrTooLarge @1", `relay bob "ok" @2`}},
	})
}

func TestEscape(t *testing.T) {
	runCases(t, []tcase{
		{name: "escaped relay", lines: []string{`\@relay:bob hi`, `\@thinking:bob hi`}},
		{name: "escaped under a bullet", lines: []string{`⏺ \@relay:bob hi`, `  continued`, `> \@relay:bob hi`}},
		{name: "escaped block marker", lines: []string{`\[[RELAY]]`, `{"to":"bob","body":"hi"}`, `\[[/RELAY]]`, `@relay:bob after`},
			want: []string{`relay bob "after" @4`}},
		{name: "double backslash is still text", lines: []string{`\\@relay:bob hi`}},
	})
}

func TestPrefixes(t *testing.T) {
	runCases(t, []tcase{
		{name: "indentation only: not a bullet", lines: []string{"    @relay:bob hi", "    more"},
			want: []string{`relay bob "hi" @1`}},
		{name: "quote", lines: []string{"> @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "nested quote", lines: []string{"> > @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "shell prompt", lines: []string{"$ @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "markdown dash", lines: []string{"- @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "markdown star", lines: []string{"  * @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "claude bullet macOS", lines: []string{"⏺ @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "claude bullet linux", lines: []string{"● @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "claude tool result", lines: []string{"  ⎿  @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "codex bullet", lines: []string{"• @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "codex prompt", lines: []string{"› @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "codex exec output", lines: []string{"  └ @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "codex composer", lines: []string{"▌ @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "gemini", lines: []string{"✦ @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "starship prompt", lines: []string{"❯ @relay:bob hi"}, want: []string{`relay bob "hi" @1`}, flushed: 1},
		{name: "no-break space", lines: []string{"\u00a0\u00a0@relay:bob hi"}, want: []string{`relay bob "hi" @1`}},
		{name: "box border both sides", lines: []string{"│ @relay:bob hi there        │"},
			want: []string{`relay bob "hi there" @1`}, flushed: 1},
		{name: "box with room left", lines: []string{"│ @relay:bob hi there                          │"},
			want: []string{`relay bob "hi there" @1`}},
		{name: "claude input box", lines: []string{"╭──────────────────────────╮", "│ > @relay:bob hi          │", "╰──────────────────────────╯"},
			want: []string{`relay bob "hi" @2`}},
		{name: "border kept when not opened by one", lines: []string{"@relay:bob a │"},
			want: []string{`relay bob "a │" @1`}},
		{name: "glyph needs a blank after it", lines: []string{"-@relay:bob hi", "*@relay:bob hi*", ">@relay:bob hi", "⏺@relay:bob hi"}},
		{name: "numbered list is not a prefix", lines: []string{"1. @relay:bob hi"}},
		{name: "other text before", lines: []string{"# @relay:bob hi", "x @relay:bob hi", "`@relay:bob hi`"}},
	})
}

func TestBulletContinuation(t *testing.T) {
	runCases(t, []tcase{
		{name: "claude wrapped paragraph",
			lines: []string{"⏺ @relay:bob please review auth.go, especially the token", "  refresh path, and tell me whether the tests cover", "  expiry.", ""},
			want:  []string{`relay bob "please review auth.go, especially the token refresh path, and tell me whether the tests cover expiry." @1`}},
		{name: "separate lines under one bullet are not a wrap", lines: []string{"  └ @relay:bob tick 1", "    filler 1.1 of the traffic", "    filler 1.2"},
			want: []string{`relay bob "tick 1" @1`}},
		{name: "codex wrapped", lines: []string{"• @relay:alice the migration is done and the", "  benchmarks are in BENCHMARKS.md"},
			want: []string{`relay alice "the migration is done and the benchmarks are in BENCHMARKS.md" @1`}, flushed: 1},
		{name: "tool result hang of five", lines: []string{"  ⎿  @relay:bob first part", "     second part", "  ⎿  other"},
			want: []string{`relay bob "first part second part" @1`}},
		{name: "body starts on the next row", lines: []string{"⏺ @relay:bob", "  please review"},
			want: []string{`relay bob "please review" @1`}, flushed: 1},
		{name: "nothing follows: empty", lines: []string{"⏺ @relay:bob", "other"},
			want: []string{"error ErrEmptyBody @1"}},
		{name: "nothing follows at flush: empty", lines: []string{"⏺ @relay:bob"},
			want: []string{"error ErrEmptyBody @1"}, flushed: 1},
		{name: "blank row ends", lines: []string{"⏺ @relay:bob one", "", "  two"},
			want: []string{`relay bob "one" @1`}},
		{name: "gap ends", lines: []string{"⏺ @relay:bob one", "#gap", "  two"},
			want: []string{`relay bob "one" @1`}},
		{name: "deeper indent ends", lines: []string{"⏺ @relay:bob one", "    two"},
			want: []string{`relay bob "one" @1`}},
		{name: "shallower indent ends", lines: []string{"⏺ @relay:bob one", " two"},
			want: []string{`relay bob "one" @1`}},
		{name: "new bullet ends", lines: []string{"⏺ @relay:bob one", "⏺ Done.", "  two"},
			want: []string{`relay bob "one" @1`}},
		{name: "bullet at the hang ends", lines: []string{"- @relay:bob one", "  - sub item"},
			want: []string{`relay bob "one" @1`}},
		{name: "dash word continues", lines: []string{"⏺ @relay:bob run it with", "  --force and -v"},
			want: []string{`relay bob "run it with --force and -v" @1`}, flushed: 1},
		{name: "command row ends and counts", lines: []string{"⏺ @relay:bob one", "  @relay:carol two"},
			want: []string{`relay bob "one" @1`, `relay carol "two" @2`}},
		{name: "fence row ends", lines: []string{"⏺ @relay:bob one", "  ```", "  @relay:bob hidden", "  ```"},
			want: []string{`relay bob "one" @1`}},
		{name: "block row ends", lines: []string{"⏺ @relay:bob one", `  [[RELAY]]{"to":"carol","body":"two"}[[/RELAY]]`},
			want: []string{`relay bob "one" @1`, `relay carol "two" @2`}},
		{name: "stray end marker row ends", lines: []string{"⏺ @relay:bob one", "  [[/RELAY]]"},
			want: []string{`relay bob "one" @1`}},
		{name: "escaped row continues as text", lines: []string{"⏺ @relay:bob write", `  \@relay:x to quote one`},
			want: []string{`relay bob "write \\@relay:x to quote one" @1`}, flushed: 1},
		{name: "held until a line ends it", lines: []string{"⏺ @relay:bob one", "plain"},
			want: []string{`relay bob "one" @1`}},
		{name: "wide characters joined", lines: []string{"⏺ @relay:bob 日本語 🎉", "  続き ✅"},
			want: []string{`relay bob "日本語 🎉 続き ✅" @1`}, flushed: 1},
		{name: "thinking continues too", lines: []string{"✦ @thinking:* first", "  second"},
			want: []string{`thinking * "first second" @1`}, flushed: 1},
		{name: "invalid target is not held", lines: []string{"⏺ @relay:bob: hi", "  more"},
			want: []string{"error ErrInvalidTarget @1"}},
		{name: "too large", max: 40, lines: []string{"⏺ @relay:bob first row", "  second row that is long", "  third", "@relay:bob next"},
			want: []string{"error ErrTooLarge @1", `relay bob "next" @4`}},
		{name: "first row too large", max: 16, lines: []string{"⏺ @relay:bob first row", "  second", "@relay:bob ok"},
			want: []string{"error ErrTooLarge @1", `relay bob "ok" @3`}},
	})
}

// TestWrapColumn: where the program wraps its rows is known, so a row is
// judged a wrap by whether the next row's first word would have fitted
// before that column, not by the widths of the paragraph's own rows.
func TestWrapColumn(t *testing.T) {
	runCases(t, []tcase{
		{name: "a short row, then a shorter one at the hang", wrapAt: 79,
			lines: []string{"  ⎿  @relay:bob same again", "     ordinary", "  ⎿  Interrupted"},
			want:  []string{`relay bob "same again" @1`}},
		{name: "a word that would end past the column wrapped", wrapAt: 79,
			lines: []string{"  ⎿  @relay:bob long 115 116 117 118 119 120 121 122 123 124 125 126 127 128", "     133 134", ""},
			want:  []string{`relay bob "long 115 116 117 118 119 120 121 122 123 124 125 126 127 128 133 134" @1`}},
		{name: "a word that would end at the column fitted", wrapAt: 80,
			lines: []string{"  ⎿  @relay:bob long 115 116 117 118 119 120 121 122 123 124 125 126 127 128", "     133 134", ""},
			want:  []string{`relay bob "long 115 116 117 118 119 120 121 122 123 124 125 126 127 128" @1`}},
		{name: "a row past the column is full", wrapAt: 79,
			lines: []string{"  ⎿  @relay:bob long 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114", "     115", ""},
			want:  []string{`relay bob "long 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115" @1`}},
		{name: "under no glyph, a row the program wrapped continues", wrapAt: 57,
			lines: []string{"    @relay:alice went über above create school don't", "    column time happen area", "    next line"},
			want:  []string{`relay alice "went über above create school don't column time happen area" @1`}},
		{name: "under no glyph, a row with room ended", wrapAt: 80,
			lines: []string{"@relay:alice short", "next line"},
			want:  []string{`relay alice "short" @1`}},
		{name: "a gutter's rows", wrapAt: 76,
			lines: []string{"  ┃  @relay:bob alpha beta gamma", "  ┃  second ordinary line follows here", "  ┃"},
			want:  []string{`relay bob "alpha beta gamma" @1`}},
	})
}

func TestBoxContinuation(t *testing.T) {
	// Gemini CLI 0.61.0 draws a shell command's output in a box, cutting
	// each row of an 80-column terminal to the box (it drops what does not
	// fit: w012 and w013 never reach the screen).
	gemini := []string{
		"╭──────────────────────────────────────────────────────────────────────────╮",
		"│ ✓  Shell Command cat m3.txt                                              │",
		"│                                                                          │",
		"│ @relay:bob long w001 w002 w003 w004 w005 w006 w007 w008 w009 w010 w011   │",
		"│  w014 w015 w016 w017 w018 w019 w020 w021 w022 w023 w024 w025 w026 w027   │",
		"│  w030 w031 w032 w033 w034 w035 w036 w037 w038 w039 w040 w041 w042 w043   │",
		"│  w046 w047 w048 w049 w050 w051 w052 w053 w054 w055 w056 w057 w058 w059   │",
		"│                                                                          │",
		"╰──────────────────────────────────────────────────────────────────────────╯",
	}
	runCases(t, []tcase{
		{name: "gemini shell output", lines: gemini,
			want: []string{`relay bob "long w001 w002 w003 w004 w005 w006 w007 w008 w009 w010 w011 ` +
				`w014 w015 w016 w017 w018 w019 w020 w021 w022 w023 w024 w025 w026 w027 ` +
				`w030 w031 w032 w033 w034 w035 w036 w037 w038 w039 w040 w041 w042 w043 ` +
				`w046 w047 w048 w049 w050 w051 w052 w053 w054 w055 w056 w057 w058 w059" @4`}},
		{name: "word-wrapped in the box", lines: []string{
			"│ @relay:bob please review the token refresh │",
			"│ path in auth.go                            │",
			"╰────────────────────────────────────────────╯"},
			want: []string{`relay bob "please review the token refresh path in auth.go" @1`}},
		{name: "a row with room left is not wrapped", lines: []string{
			"│ @relay:bob short one                       │",
			"│ other output                               │"},
			want: []string{`relay bob "short one" @1`}, flushed: 0},
		{name: "a word that would have fitted is not a wrap", lines: []string{
			"│ @relay:bob please review the token     │",
			"│ ok                                     │"},
			want: []string{`relay bob "please review the token" @1`}},
		{name: "another box ends it", lines: []string{
			"│ @relay:bob please review the token refresh │",
			"┃ path in auth.go                            ┃"},
			want: []string{`relay bob "please review the token refresh" @1`}},
		{name: "a row without its right border ends it", lines: []string{
			"│ @relay:bob please review the token refresh │",
			"│ path in auth.go"},
			want: []string{`relay bob "please review the token refresh" @1`}},
		{name: "a command in the next row ends it", lines: []string{
			"│ @relay:bob please review the token refresh │",
			"│ @relay:carol and you too                   │"},
			want: []string{`relay bob "please review the token refresh" @1`, `relay carol "and you too" @2`}, flushed: 1},
		{name: "bullet inside a box keeps its hanging indent", lines: []string{
			"│ • @relay:bob please review the token │",
			"│   refresh path                       │",
			"│ • next item                          │"},
			want: []string{`relay bob "please review the token refresh path" @1`}},
		{name: "opencode gutter", lines: []string{
			"  ┃  @relay:bob long w001 w002 w003 w004 w005 w006 w007 w008 w009 w010 w011",
			"  ┃  w012 w013 w014",
			"  ┃",
			"  ┃  done"},
			want: []string{`relay bob "long w001 w002 w003 w004 w005 w006 w007 w008 w009 w010 w011 w012 w013 w014" @1`}},
		{name: "gutter then another gutter ends", lines: []string{
			"  ┃  @relay:bob one",
			"  │  two"},
			want: []string{`relay bob "one" @1`}},
		{name: "held until flushed", lines: []string{
			"│ @relay:bob please review the token refresh │"},
			want: []string{`relay bob "please review the token refresh" @1`}, flushed: 1},
	})
}

// TestLossyBox: Gemini CLI 0.61.0 shows each row of the terminal a
// command ran in as a row of its box, cut at the last blank that fits;
// what does not fit is lost, so a row the box wrapped may end short.
func TestLossyBox(t *testing.T) {
	rows := []string{
		"│ @relay:bob two port wheel picture smørrebrød wrong just temperature     │",
		"│ ss meat grand food                                                      │",
		"╰─────────────────────────────────────────────────────────────────────────╯",
	}
	p := New(Options{LossyBoxes: true})
	fed, flushed := feedAll(p, rows, 0)
	got := describe(append(fed, flushed...)[0])
	if want := `relay bob "two port wheel picture smørrebrød wrong just temperature ss meat grand food" @1`; got != want {
		t.Errorf("lossy box: %s, want %s", got, want)
	}
	// Boxes that drop nothing: the row before had room for "ss".
	fed, flushed = feedAll(New(Options{}), rows, 0)
	got = describe(append(fed, flushed...)[0])
	if want := `relay bob "two port wheel picture smørrebrød wrong just temperature" @1`; got != want {
		t.Errorf("a box that drops nothing: %s, want %s", got, want)
	}
}

// TestLossyBoxCutWord: Gemini CLI cuts a row of its terminal that does not
// fit its box at the last blank that fits and drops the rest: the word that
// crossed the box's edge, whose end starts the next row. A row that left
// room for the next row's first word and up to three columns more was cut
// there, four in a command holding a wide character (drawn wider than the
// terminal counts it: the golden gemini-s1200066's "spot" / "rn
// carry" under a rocket); with more room left, the next row is a line of
// its own (fresh gemini-s124400008: "thousand" / "end of the output").
func TestLossyBoxCutWord(t *testing.T) {
	for _, c := range []struct {
		name string
		rows []string
		want string
	}{
		{"room for the next word and three columns more", []string{"@relay:qa_1 dow sys spott", "rn carry dog"},
			`relay qa_1 "dow sys spott rn carry dog" @1`},
		{"room for the next word and four columns more", []string{"@relay:qa_1 dow sys spot", "rn carry dog"},
			`relay qa_1 "dow sys spot" @1`},
		{"a wide character, room for the next word and four columns more", []string{"@relay:qa_1 🚀 war insect", "dow system so q? vu spot", "rn carry dog"},
			`relay qa_1 "🚀 war insect dow system so q? vu spot rn carry dog" @1`},
		{"a wide character, room for the next word and five columns more", []string{"@relay:qa_1 🚀 war insect", "dow system so q? vu sp", "rn carry dog"},
			`relay qa_1 "🚀 war insect dow system so q? vu sp" @1`},
	} {
		if got := readLossyBox(c.rows); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestLossyBoxBrokeAtEdge: a lossy box (Gemini CLI's) shows the rows of a
// terminal as wide as the box — a row with no wide character ending in the
// box's last column broke a word there, and the next row goes on with no
// blank — unless a row of the command with no wide character ended with
// room left: then the terminal was wider and the box cut its rows, and a
// row at the edge ended with a word that fitted, what followed dropped. A
// row with wide characters, which the box draws wider than its terminal
// counts them, may be cut wherever it overflowed: it tells neither. A
// single row at the edge says the box's width only in a box known to be
// sized to it (Parser.BoxSized); two rows that broke a word at the edge,
// or three that filled the box, say it anyway.
func TestLossyBoxBrokeAtEdge(t *testing.T) {
	for _, c := range []struct {
		name  string
		sized bool
		rows  []string
		want  string
	}{
		{"rows that fill the box", false, []string{"@relay:qa_1 you last fell desc", "ribe gray how locate direct fo", "od caught lift all the robins", "raph ago {brace} want to see a", " bird here"},
			`relay qa_1 "you last fell describe gray how locate direct food caught lift all the robins raph ago {brace} want to see a bird here" @1`},
		{"a row with room left", true, []string{"@relay:qa_1 you last fell", "ble gray how locate direct foo", "d here"},
			`relay qa_1 "you last fell ble gray how locate direct foo d here" @1`},
		{"a row a column short: the blank at the wrap", true, []string{"@relay:qa_1 you last fell bac", "erial gray how locate direct f", "ood here"},
			`relay qa_1 "you last fell bac erial gray how locate direct food here" @1`},
		{"two rows", true, []string{"@relay:qa_1 bank salt pull cre", "ase office"},
			`relay qa_1 "bank salt pull crease office" @1`},
		{"two rows in a box not known to be sized: cut after a whole word", false, []string{"@relay:qa_1 bank salt pull cre", "ase office"},
			`relay qa_1 "bank salt pull cre ase office" @1`},
		{"a row at the edge, another a column short, in a box not known to be sized", false, []string{"@relay:qa_1 you last fell bac", "erial gray how locate direct f", "ood here"},
			`relay qa_1 "you last fell bac erial gray how locate direct f ood here" @1`},
		{"three rows that fill a box not known to be sized", false, []string{"@relay:qa_1 you last fell bac", "erial gray how locate direct f", "ood here and there to see them", " bird"},
			`relay qa_1 "you last fell bac erial gray how locate direct food here and there to see them bird" @1`},
		{"wide characters at the edge", true, []string{"@relay:qa_1 you last fel 中 文", "京 か な カ タ locate direct f", "ood here"},
			`relay qa_1 "you last fel 中 文 京 か な カ タ locate direct f ood here" @1`},
		{"a row wide characters cut short", true, []string{"@relay:qa_1 just 👍👍 you", "ard last fell describe gray ho", "w locate"},
			`relay qa_1 "just 👍👍 you ard last fell describe gray how locate" @1`},
	} {
		if got := readLossyBoxSized(c.rows, c.sized); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestBrokenWideRuns: Codex 0.171.0 breaks words where Unicode's line
// breaking allows it: anywhere in a run of wide characters (CJK, emoji;
// not inside a run of pictographs of class AL, "✅✅"),
// after a bar or an opening bracket, after a wide character before an
// escaped line break in a block's string: no blank was there.
func TestBrokenWideRuns(t *testing.T) {
	for _, c := range []struct {
		name   string
		wrapAt int
		lines  []string
		want   string
	}{
		{"broken in a run", 40, []string{"  └ @relay:bob ok 東京テスト漢字北京カタカナ", "    字符 more"}, `relay bob "ok 東京テスト漢字北京カタカナ字符 more" @1`},
		{"a character would have fitted: a blank was there", 46, []string{"  └ @relay:bob ok 東京テスト漢字北京カタカナ", "    字符 more"}, `relay bob "ok 東京テスト漢字北京カタカナ 字符 more" @1`},
		{"a row drawn at another width: a run broken", 47, []string{"  └ @relay:bob ok 東京テスト漢字北京カタカナ", "    字符 more"}, `relay bob "ok 東京テスト漢字北京カタカナ字符 more" @1`},
		{"emoji", 23, []string{"    @relay:bob go 🚀🚀", "    🚀 now"}, `relay bob "go 🚀🚀🚀 now" @1`},
		// ✅ is of class AL: "✅✅" is not broken, and would have fitted in
		// the 4 columns left without a blank.
		{"pictographs kept together would have fitted: a blank was there", 26, []string{"    @relay:bob go 北京", "    ✅✅ now"}, `relay bob "go 北京 ✅✅ now" @1`},
		{"pictographs kept together", 25, []string{"    @relay:bob go 北京", "    ✅✅ now"}, `relay bob "go 北京✅✅ now" @1`},
		{"after a bar", 24, []string{"    @relay:bob take pipe|", "    bar temperature"}, `relay bob "take pipe|bar temperature" @1`},
		{"after an opening bracket", 26, []string{"    @relay:bob phrase (", "    paren) now"}, `relay bob "phrase (paren) now" @1`},
		{"a word that fits without the blank had one", 28, []string{"    @relay:bob take pipe|", "    bar temperature"}, `relay bob "take pipe| bar temperature" @1`},
		{"down a gutter (opencode)", 33, []string{"  ┃  @relay:bob at bottom C:\\", "  ┃  path\\x safe"}, `relay bob "at bottom C:\\path\\x safe" @1`},
		{"down a gutter, a word that fits without the blank had one", 35, []string{"  ┃  @relay:bob at bottom C:\\", "  ┃  path\\x safe"}, `relay bob "at bottom C:\\ path\\x safe" @1`},
		{"in a block's string, after a bracket", 28, []string{"[[RELAY]]", `{"to":"bob","body":"know (`, `paren) month"}`, "[[/RELAY]]"}, `relay bob "know (paren) month" @1`},
		{"in a block's string, a word that fits without the blank had one", 40, []string{"[[RELAY]]", `{"to":"bob","body":"know (`, `paren) month"}`, "[[/RELAY]]"}, `relay bob "know ( paren) month" @1`},
		{"in a block's string", 40, []string{"[[RELAY]]", `{"to":"bob","body":"测试北京中文 字符测`, `试"}`, "[[/RELAY]]"}, `relay bob "测试北京中文 字符测试" @1`},
		{"in a block's string, with the quote after it the character would not have fitted", 41, []string{"[[RELAY]]", `{"to":"bob","body":"测试北京中文 字符测`, `试"}`, "[[/RELAY]]"}, `relay bob "测试北京中文 字符测试" @1`},
		{"in a block's string, a character would have fitted: a blank was there", 43, []string{"[[RELAY]]", `{"to":"bob","body":"测试北京中文 字符测`, `试"}`, "[[/RELAY]]"}, `relay bob "测试北京中文 字符测 试" @1`},
		{"in a block's string, before an escaped line break", 40, []string{"[[RELAY]]", `{"to":"bob","body":"测试北京中文 字符测`, `\nmore"}`, "[[/RELAY]]"}, `relay bob "测试北京中文 字符测\nmore" @1`},
		{"in a block's string, between two escaped backslashes", 27, []string{"[[RELAY]]", `{"to":"bob","body":"sky a\\`, `\\b more"}`, "[[/RELAY]]"}, `relay bob "sky a\\\\b more" @1`},
		{"in a block's string, between two escaped backslashes, a row with room left: a blank was there", 28, []string{"[[RELAY]]", `{"to":"bob","body":"sky a\\`, `\\b more"}`, "[[/RELAY]]"}, `relay bob "sky a\\ \\b more" @1`},
		{"in a block's string, an escaped backslash before a letter: a blank was there", 27, []string{"[[RELAY]]", `{"to":"bob","body":"sky a\\`, `end more"}`, "[[/RELAY]]"}, `relay bob "sky a\\ end more" @1`},
		{"in a block's string, before an escaped line break that would have fitted: a blank was there", 47, []string{"[[RELAY]]", `{"to":"bob","body":"测试北京中文 字符测`, `\nmore"}`, "[[/RELAY]]"}, `relay bob "测试北京中文 字符测 \nmore" @1`},
	} {
		fed, flushed := feedAll(New(Options{BreaksWideRuns: true}), c.lines, c.wrapAt)
		if evs := append(fed, flushed...); len(evs) != 1 || describe(evs[0]) != c.want {
			var got []string
			for _, e := range evs {
				got = append(got, describe(e))
			}
			t.Errorf("%s: got %q, want %s", c.name, got, c.want)
		}
	}
	// opencode 1.18.33 breaks after punctuation, but moves a run of wide
	// characters whole: a full row before one had a blank after it.
	punct := New(Options{BreaksAfterPunctuation: true})
	fed, flushed := feedAll(punct, []string{"  ┃  @relay:bob at bottom C:\\", "  ┃  path\\x ab 北京ｆｕｌｌ京ｆｕ", "  ┃  测试 end"}, 33)
	if evs := append(fed, flushed...); len(evs) != 1 || describe(evs[0]) != `relay bob "at bottom C:\\path\\x ab 北京ｆｕｌｌ京ｆｕ 测试 end" @1` {
		t.Errorf("a program that breaks after punctuation only: %v", evs)
	}
	// It breaks before a run of wide characters too: after an escaped
	// line break in a block's string, where the run would not have fitted,
	// no blank was there; where it would have fitted right after the row
	// but not after a blank, one was.
	for _, c := range []struct {
		name   string
		wrapAt int
		want   string
	}{
		{"a run that would not have fitted", 40, `relay bob "end of a line\n東京字符 next" @1`},
		{"a run that would have fitted after the row", 43, `relay bob "end of a line\n 東京字符 next" @1`},
	} {
		fed, flushed = feedAll(New(Options{BreaksAfterPunctuation: true}), []string{"[[RELAY]]", `{"to":"bob","body":"end of a line\n`, `東京字符 next"}`, "[[/RELAY]]"}, c.wrapAt)
		if evs := append(fed, flushed...); len(evs) != 1 || describe(evs[0]) != c.want {
			t.Errorf("%s: got %v, want %s", c.name, evs, c.want)
		}
	}
	// A program that wraps only at blanks (Claude Code) moved the word.
	fed, flushed = feedAll(New(Options{}), []string{"  ⎿  @relay:bob ok 東京テスト漢字北京カタカナ", "     字符 more"}, 40)
	if evs := append(fed, flushed...); len(evs) != 1 || describe(evs[0]) != `relay bob "ok 東京テスト漢字北京カタカナ 字符 more" @1` {
		t.Errorf("a program that wraps at blanks: %v", evs)
	}
}

// TestRowPastTheWrapColumn: opencode 1.18.33 wraps a word that would not
// fit with the blank after it, so only a line's last word, or a word it
// broke with no blank, reaches the column after the one it wraps at: a
// row that ends there ended its line, though the next row's first word
// would not have fitted after it either (issue 29: a relay line joined
// the output line under it). Where the program kept the blank at the start
// of the next row, or broke a word after punctuation, the line goes on.
func TestRowPastTheWrapColumn(t *testing.T) {
	const wrapAt = 34 // the rows below end at 35
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"a line's last word", []string{"  ┃  @relay:bob the end of the line", "  ┃  another line of output"},
			[]string{`relay bob "the end of the line" @1`}},
		{"the blank kept at the start of the next row", []string{"  ┃  @relay:bob the end of the line", "  ┃   goes on"},
			[]string{`relay bob "the end of the line goes on" @1`}},
		{"a word broken after punctuation", []string{"  ┃  @relay:bob at the very end C:\\", "  ┃  path\\x safe"},
			[]string{`relay bob "at the very end C:\\path\\x safe" @1`}},
		{"in a block's string", []string{"[[RELAY]]", `{"to":"bob","body":"a string ends ö`, `n"}`, "[[/RELAY]]"},
			[]string{`relay bob "a string ends ön" @1`}},
		// The blank after a word at the row's end moved to the next row,
		// which starts a column further than the block's rows: the blank
		// is there to see (fresh opencode-s105400000, seed 1054: "produce
		// \\" then " end" read "produce \\end").
		{"in a block's string down a gutter, the blank kept at the start of the next row", []string{"  ┃  [[RELAY]]", `  ┃  {"to":"bob","body":"ends at \\`, `  ┃   end"}`, "  ┃  [[/RELAY]]"},
			[]string{`relay bob "ends at \\ end" @1`}},
		{"in a block's string down a gutter, a word broken", []string{"  ┃  [[RELAY]]", `  ┃  {"to":"bob","body":"ends at öö`, `  ┃  n"}`, "  ┃  [[/RELAY]]"},
			[]string{`relay bob "ends at öön" @1`}},
	} {
		fed, flushed := feedAll(New(Options{BreaksAfterPunctuation: true, WrapsWithBlank: true}), c.lines, wrapAt)
		var got []string
		for _, e := range append(fed, flushed...) {
			got = append(got, describe(e))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNumberBrokenAfterItsComma: opencode 1.18.33 breaks a number after
// its thousands separator ("1," at the end of a row, "234.56" at the start
// of the next), or its decimal point ("1,234." and "56",
// opencode-s6300020): a reader reads one number, with no blank in it,
// where the rest would not have fitted on the row (issue 29). Where it
// would have fitted, a blank was there.
func TestNumberBrokenAfterItsComma(t *testing.T) {
	for _, c := range []struct {
		name   string
		wrapAt int
		lines  []string
		want   string
	}{
		{"a line", 30, []string{"  ┃  @relay:bob it costs 1,", "  ┃  234.56 in all"}, `relay bob "it costs 1,234.56 in all" @1`},
		{"in a block's string", 34, []string{"[[RELAY]]", `{"to":"bob","body":"it costs 1,`, `234.56 in all"}`, "[[/RELAY]]"}, `relay bob "it costs 1,234.56 in all" @1`},
		{"the number would have fitted", 60, []string{"[[RELAY]]", `{"to":"bob","body":"it costs 1,`, `234.56 in all"}`, "[[/RELAY]]"}, `relay bob "it costs 1, 234.56 in all" @1`},
		{"after its point", 32, []string{"  ┃  @relay:bob it costs 1,234.", "  ┃  56 in all"}, `relay bob "it costs 1,234.56 in all" @1`},
		{"after its point, in a block's string", 35, []string{"[[RELAY]]", `{"to":"bob","body":"it costs 1,234.`, `56 in all"}`, "[[/RELAY]]"}, `relay bob "it costs 1,234.56 in all" @1`},
		{"after its point, the rest would have fitted: the line ended", 40, []string{"  ┃  @relay:bob it costs 1,234.", "  ┃  56 in all"}, `relay bob "it costs 1,234." @1`},
	} {
		fed, flushed := feedAll(New(Options{BreaksAfterPunctuation: true}), c.lines, c.wrapAt)
		var got []string
		for _, e := range append(fed, flushed...) {
			got = append(got, describe(e))
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: got %q, want %s", c.name, got, c.want)
		}
	}
}

// TestWordBrokenAfterAnEscapedBackslash: opencode 1.18.33 breaks words
// after punctuation, not where Unicode's line breaking allows, a backslash
// among them: in a block's string a row that ends with an escaped
// backslash inside a word ("C:\\") and a next row whose first word would
// not have fitted even without a blank ("path\\x") are one word
// (opencode-s8700000, s8100000). Where it would have fitted, a blank was
// there; an escape that is a word of its own (" \\ end") ends no word
// broken.
func TestWordBrokenAfterAnEscapedBackslash(t *testing.T) {
	for _, c := range []struct {
		name   string
		wrapAt int
		lines  []string
		want   string
	}{
		{"broken after it", 28, []string{"[[RELAY]]", `{"to":"bob","body":"at C:\\`, `path\\x safe"}`, "[[/RELAY]]"}, `relay bob "at C:\\path\\x safe" @1`},
		{"the next word would have fitted", 40, []string{"[[RELAY]]", `{"to":"bob","body":"at C:\\`, `path\\x safe"}`, "[[/RELAY]]"}, `relay bob "at C:\\ path\\x safe" @1`},
		{"an escape on its own", 28, []string{"[[RELAY]]", `{"to":"bob","body":"mark \\`, `end"}`, "[[/RELAY]]"}, `relay bob "mark \\ end" @1`},
	} {
		fed, flushed := feedAll(New(Options{BreaksAfterPunctuation: true}), c.lines, c.wrapAt)
		var got []string
		for _, e := range append(fed, flushed...) {
			got = append(got, describe(e))
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: got %q, want %s", c.name, got, c.want)
		}
	}
}

// TestAWordLongerThanARow: a program that wraps words moves a word that
// fits a row to the next row whole, and breaks one longer than a row at
// the row's end, with no blank: a block's string row that is one word out
// past the column the program wraps at was such a word (Claude Code 2.1.332
// inline, a compact block on a 50-column screen: its first row is one
// word, the body's first word with it; fresh claude-inline-s104700002 read
// "separa te"). A row of several words out to the edge, or one word that
// ends at the wrap column or short of it, ended at a blank
// (claude-inline-s14700018: "bright" at the wrap column).
func TestAWordLongerThanARow(t *testing.T) {
	const wrapAt = 49 // a 50-column screen
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"one word out to the edge", []string{"     [[RELAY]]", `     {"to":"alice","type":"message","body":"separa`, `     te \"q\" x<y>z"}`, "     [[/RELAY]]"},
			`relay alice "separate \"q\" x<y>z" @1`},
		{"one word short of the edge", []string{"     [[RELAY]]", `     {"to":"alice","type":"message","body":"sep`, `     arate"}`, "     [[/RELAY]]"},
			`relay alice "sep arate" @1`},
		{"one word to the wrap column", []string{"     [[RELAY]]", `     {"to":"qa_1","type":"message","body":"bright`, `     \"q\" law"}`, "     [[/RELAY]]"},
			`relay qa_1 "bright \"q\" law" @1`},
		{"several words out to the edge", []string{"     [[RELAY]]", `     {"to":"alice","body":"separate four word ends`, `     here"}`, "     [[/RELAY]]"},
			`relay alice "separate four word ends here" @1`},
	} {
		fed, flushed := feedAll(New(Options{}), c.lines, wrapAt)
		var got []string
		for _, e := range append(fed, flushed...) {
			got = append(got, describe(e))
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: got %q, want %s", c.name, got, c.want)
		}
	}
}

func TestFences(t *testing.T) {
	runCases(t, []tcase{
		{name: "fence hides commands", lines: []string{"```", "@relay:bob hidden", "[[RELAY]]", `{"to":"bob","body":"x"}`, "[[/RELAY]]", "```", "@relay:bob seen"},
			want: []string{`relay bob "seen" @7`}},
		{name: "fence with info string", lines: []string{"```sh", "@relay:bob hidden", "```", "@relay:bob seen"},
			want: []string{`relay bob "seen" @4`}},
		{name: "fence with prefixes", lines: []string{"⏺ Here is how:", "  ```go", "  @relay:bob hidden", "  ```", "⏺ @relay:bob seen"},
			want: []string{`relay bob "seen" @5`}, flushed: 1},
		{name: "fence in a quote", lines: []string{"> ```", "> @relay:bob hidden", "> ```", "@relay:bob seen"},
			want: []string{`relay bob "seen" @4`}},
		{name: "tilde fence", lines: []string{"~~~", "@relay:bob hidden", "```", "@relay:bob hidden", "~~~", "@relay:bob seen"},
			want: []string{`relay bob "seen" @6`}},
		{name: "nested: longer outer fence", lines: []string{"````markdown", "```", "@relay:bob hidden", "```", "@relay:bob hidden", "````", "@relay:bob seen"},
			want: []string{`relay bob "seen" @7`}},
		{name: "info string does not close", lines: []string{"```", "```python", "@relay:bob hidden", "```", "@relay:bob seen"},
			want: []string{`relay bob "seen" @5`}},
		{name: "longer closer closes", lines: []string{"```", "@relay:bob hidden", "`````", "@relay:bob seen"},
			want: []string{`relay bob "seen" @4`}},
		{name: "inline code span is not a fence", lines: []string{"```@relay:bob```", "@relay:bob seen"},
			want: []string{`relay bob "seen" @2`}},
		{name: "two backticks are not a fence", lines: []string{"``", "@relay:bob seen"},
			want: []string{`relay bob "seen" @2`}},
		{name: "unclosed fence hides the rest", lines: []string{"```", "@relay:bob hidden", "[[RELAY]]"}},
		{name: "fence survives flush", lines: []string{"```"}},
		{name: "escaped fence-like marker inside", lines: []string{"```", `\@relay:bob x`, "```", "@relay:bob seen"},
			want: []string{`relay bob "seen" @4`}},
	})
}

func TestBlocks(t *testing.T) {
	runCases(t, []tcase{
		{name: "basic", lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}`, "[[/RELAY]]"},
			want: []string{`relay bob "hi" @1`}},
		{name: "all fields", lines: []string{"[[RELAY]]", `{"to":"swarm","type":"task_done","body":"done","data":{ "reason" : [1, 2] },`,
			`"topic":"auth","correlation_id":"c1","in_reply_to":"m9"}`, "[[/RELAY]]"},
			want: []string{`relay swarm "done" @1 type=task_done data={"reason":[1,2]} topic=auth corr=c1 reply=m9`}},
		{name: "pretty-printed", lines: []string{"[[RELAY]]", "{", `  "to": "bob",`, `  "body": "line one\nline two"`, "}", "[[/RELAY]]"},
			want: []string{`relay bob "line one\nline two" @1`}},
		{name: "body kept as written", lines: []string{`[[RELAY]]{"to":"bob","body":"  indented\n"}[[/RELAY]]`},
			want: []string{`relay bob "  indented\n" @1`}},
		{name: "JSON on the marker line", lines: []string{`[[RELAY]] {"to":"bob",`, `"body":"hi"}`, "[[/RELAY]]"},
			want: []string{`relay bob "hi" @1`}},
		{name: "one line", lines: []string{`[[RELAY]]{"to":"bob","body":"hi"}[[/RELAY]]`, "@relay:carol next"},
			want: []string{`relay bob "hi" @1`, `relay carol "next" @2`}},
		{name: "end marker after the JSON", lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}[[/RELAY]]`, "@relay:carol next"},
			want: []string{`relay bob "hi" @1`, `relay carol "next" @3`}},
		{name: "end marker inside a string mid-line", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a [[/RELAY]] b"}`, "[[/RELAY]]"},
			want: []string{`relay bob "a [[/RELAY]] b" @1`}},
		{name: "string ending in the marker is not the end", lines: []string{"[[RELAY]]", `{"to":"bob","body":"x[[/RELAY]]"}`, "[[/RELAY]]"},
			want: []string{`relay bob "x[[/RELAY]]" @1`}},
		{name: "marker at end of an incomplete object is content", lines: []string{"[[RELAY]]", `{"to":"bob", "a":[[/RELAY]]`, "[[/RELAY]]", "@relay:bob next"},
			want: []string{"error ErrMalformedBlock @1", `relay bob "next" @4`}},
		{name: "text after the end marker ignored", lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}`, "[[/RELAY]] sent!"},
			want: []string{`relay bob "hi" @1`}},
		{name: "default type and no body with type", lines: []string{`[[RELAY]]{"to":"swarm","type":"task_start"}[[/RELAY]]`},
			want: []string{`relay swarm "" @1 type=task_start`}},
		{name: "data without body", lines: []string{`[[RELAY]]{"to":"bob","data":{"move":5}}[[/RELAY]]`},
			want: []string{`relay bob "" @1 data={"move":5}`}},
		{name: "data null is absent", lines: []string{`[[RELAY]]{"to":"bob","body":"x","data":null}[[/RELAY]]`},
			want: []string{`relay bob "x" @1`}},
		{name: "data any value", lines: []string{`[[RELAY]]{"to":"bob","body":"x","data":[1, "two"]}[[/RELAY]]`, `[[RELAY]]{"to":"bob","body":"x","data":7}[[/RELAY]]`},
			want: []string{`relay bob "x" @1 data=[1,"two"]`, `relay bob "x" @2 data=7`}},
		{name: "wide characters and emoji", lines: []string{`[[RELAY]]{"to":"bob","body":"日本語 🎉 \u2705"}[[/RELAY]]`},
			want: []string{`relay bob "日本語 🎉 ✅" @1`}},
		{name: "claude indents under the bullet", lines: []string{"⏺ [[RELAY]]", "  {", `    "to": "bob",`, `    "body": "hi"`, "  }", "  [[/RELAY]]", "⏺ @relay:carol next"},
			want: []string{`relay bob "hi" @1`, `relay carol "next" @7`}, flushed: 1},
		{name: "quoted on every line", lines: []string{"> [[RELAY]]", `> {"to":"bob",`, `> "body":"hi"}`, "> [[/RELAY]]"},
			want: []string{`relay bob "hi" @1`}},
		{name: "box borders on every line", lines: []string{"│ [[RELAY]]                  │", `│ {"to":"bob","body":"hi"}   │`, "│ [[/RELAY]]                 │"},
			want: []string{`relay bob "hi" @1`}},
		{name: "wrapped long string joined", lines: []string{"⏺ [[RELAY]]", `  {"to":"bob","body":"this is a long body that`, `  the CLI wrapped at the width"}`, "  [[/RELAY]]"},
			want: []string{`relay bob "this is a long body that the CLI wrapped at the width" @1`}},
		{name: "wrapped in the middle of an escape", lines: []string{"[[RELAY]]", `{"to":"bob","body":"C:\`, `\path"}`, "[[/RELAY]]"},
			want: []string{`relay bob "C:\\path" @1`}},
		{name: "wrapped string ending in the marker", lines: []string{"[[RELAY]]", `{"to":"bob","body":"see [[/RELAY]]`, `more"}`, "[[/RELAY]]"},
			want: []string{`relay bob "see [[/RELAY]] more" @1`}},
		{name: "line numbers: block line is its start", lines: []string{"x", "#gap", "[[RELAY]]", "#gap", `{"to":"bob","body":"hi"}`, "[[/RELAY]]"},
			want: []string{`relay bob "hi" @3`}},
		{name: "block then inline on the next line", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a"}`, "[[/RELAY]]", "@relay:carol b"},
			want: []string{`relay bob "a" @1`, `relay carol "b" @4`}},
		{name: "inline then block", lines: []string{"@relay:carol b", "[[RELAY]]", `{"to":"bob","body":"a"}`, "[[/RELAY]]"},
			want: []string{`relay carol "b" @1`, `relay bob "a" @2`}},
		{name: "prose after the marker is not a block", lines: []string{"[[RELAY]] blocks carry JSON", "@relay:bob next"},
			want: []string{`relay bob "next" @2`}},
		{name: "stray end marker is text", lines: []string{"[[/RELAY]]", "@relay:bob next"},
			want: []string{`relay bob "next" @2`}},
		{name: "empty one-line block is text", lines: []string{"[[RELAY]][[/RELAY]]"}},
		{name: "escape sequences in block lines", lines: []string{"\x1b[2m[[RELAY]]\x1b[0m", "\x1b[36m{\"to\":\"bob\",\"body\":\"hi\"}\x1b[0m", "\x1b[2m[[/RELAY]]\x1b[0m"},
			want: []string{`relay bob "hi" @1`}},
	})
}

// TestBlockWrappedInABox: a block whose JSON string a CLI wraps across
// rows of a box or down a gutter loses the borders of every row, not only
// of the rows that start a JSON line (issue 29, cause 5). The rows are as
// opencode 1.18.33 and Gemini CLI 0.61.0 drew them at 80 columns.
func TestBlockWrappedInABox(t *testing.T) {
	runCases(t, []tcase{
		{name: "opencode gutter", lines: []string{
			"  ┃  [[RELAY]]",
			`  ┃  {"to":"bob","type":"message","body":"b000 b001 b002 b003 b004 b005 b006`,
			"  ┃  b007 b008 b009 b010 b011 b012 b013 b014 b015 b016 b017 b018 b019 b020",
			`  ┃  b021 b022 b023"}`,
			"  ┃  [[/RELAY]]",
			"  ┃"},
			want: []string{`relay bob "b000 b001 b002 b003 b004 b005 b006 b007 b008 b009 b010 b011 b012 b013 b014 b015 b016 b017 b018 b019 b020 b021 b022 b023" @1`}},
		{name: "gemini box", lines: []string{
			"│ [[RELAY]]                                                                │",
			`│ {"to":"bob","type":"message","body":"b000 b001 b002 b003 b004 b005 b006  │`,
			"│ 8 b009 b010 b011 b012 b013 b014 b015 b016 b017 b018 b019 b020 b021 b022  │",
			`│ 4 b025 b026"}                                                            │`,
			"│ [[/RELAY]]                                                               │",
			"│                                                                          │",
			"╰──────────────────────────────────────────────────────────────────────────╯"},
			// Gemini dropped what did not fit its box: the body is what it shows.
			want: []string{`relay bob "b000 b001 b002 b003 b004 b005 b006 8 b009 b010 b011 b012 b013 b014 b015 b016 b017 b018 b019 b020 b021 b022 4 b025 b026" @1`}},
		{name: "a border inside the string is text", lines: []string{
			"[[RELAY]]",
			`{"to":"bob","body":"a table: a │ b │ c, and`,
			`│ the rest"}`,
			"[[/RELAY]]"},
			want: []string{`relay bob "a table: a │ b │ c, and │ the rest" @1`}},
		{name: "another box's row keeps its border", lines: []string{
			"  ┃  [[RELAY]]",
			`  ┃  {"to":"bob","body":"one`,
			`│ two"}`,
			"  ┃  [[/RELAY]]"},
			want: []string{`relay bob "one │ two" @1`}},
	})
}

func TestBlockErrors(t *testing.T) {
	runCases(t, []tcase{
		{name: "malformed JSON, then a command", lines: []string{"[[RELAY]]", `{"to":"bob","body":}`, "[[/RELAY]]", "@relay:bob next"},
			want: []string{"error ErrMalformedBlock @1", `relay bob "next" @4`}},
		{name: "not an object", lines: []string{"[[RELAY]]", `["to","bob"]`, "[[/RELAY]]"},
			want: []string{"error ErrMalformedBlock @1"}},
		{name: "two objects", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a"}`, `{"to":"bob","body":"b"}`, "[[/RELAY]]"},
			want: []string{"error ErrMalformedBlock @1"}},
		{name: "text after the object", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a"} thanks`, "[[/RELAY]]"},
			want: []string{"error ErrMalformedBlock @1"}},
		{name: "empty", lines: []string{"[[RELAY]]", "[[/RELAY]]"},
			want: []string{"error ErrMalformedBlock @1"}},
		{name: "missing to", lines: []string{`[[RELAY]]{"body":"hi"}[[/RELAY]]`},
			want: []string{"error ErrMalformedBlock @1"}},
		{name: "invalid to", lines: []string{`[[RELAY]]{"to":"bob smith","body":"hi"}[[/RELAY]]`, `[[RELAY]]{"to":"","body":"hi"}[[/RELAY]]`},
			want: []string{"error ErrInvalidTarget @1", "error ErrInvalidTarget @2"}},
		{name: "wrong types", lines: []string{
			`[[RELAY]]{"to":7,"body":"hi"}[[/RELAY]]`, `[[RELAY]]{"to":"bob","body":{"a":1}}[[/RELAY]]`,
			`[[RELAY]]{"to":"bob","body":"x","type":null}[[/RELAY]]`, `[[RELAY]]{"to":"bob","body":"x","topic":["a"]}[[/RELAY]]`,
			`[[RELAY]]{"to":"bob","body":"x","correlation_id":1}[[/RELAY]]`, `[[RELAY]]{"to":"bob","body":"x","in_reply_to":true}[[/RELAY]]`},
			want: []string{"error ErrMalformedBlock @1", "error ErrMalformedBlock @2", "error ErrMalformedBlock @3",
				"error ErrMalformedBlock @4", "error ErrMalformedBlock @5", "error ErrMalformedBlock @6"}},
		{name: "unknown field", lines: []string{`[[RELAY]]{"to":"bob","message":"hi"}[[/RELAY]]`},
			want: []string{"error ErrMalformedBlock @1"}},
		{name: "message with nothing to say", lines: []string{`[[RELAY]]{"to":"bob"}[[/RELAY]]`, `[[RELAY]]{"to":"bob","type":"message","body":""}[[/RELAY]]`},
			want: []string{"error ErrEmptyBody @1", "error ErrEmptyBody @2"}},
		{name: "oversized, then commands", max: 64, lines: []string{"[[RELAY]]", `{"to":"bob",`, `"body":"` + strings.Repeat("x", 100) + `",`,
			`"topic":"` + strings.Repeat("y", 100) + `"}`, "[[/RELAY]]", "@relay:bob next", `[[RELAY]]{"to":"bob","body":"small"}[[/RELAY]]`},
			want: []string{"error ErrTooLarge @1", `relay bob "next" @6`, `relay bob "small" @7`}},
		{name: "oversized on one line", max: 64, lines: []string{`[[RELAY]]{"to":"bob","body":"` + strings.Repeat("x", 100) + `"}[[/RELAY]]`, "@relay:bob next"},
			want: []string{"error ErrTooLarge @1", `relay bob "next" @2`}},
		{name: "oversized with a string marker mid-line", max: 64, lines: []string{"[[RELAY]]", `{"to":"bob","body":"` + strings.Repeat("x", 100) + ` [[/RELAY]] still in"}`, "@relay:bob not a command: inside the block", "[[/RELAY]]", "@relay:bob next"},
			want: []string{"error ErrTooLarge @1", `relay bob "not a command: inside the block" @3`, `relay bob "next" @5`}},
		{name: "exactly at the limit", max: 24, lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}`, "[[/RELAY]]"},
			want: []string{"error ErrTooLarge @1"}},
		{name: "just under the limit", max: 25, lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}`, "[[/RELAY]]"},
			want: []string{`relay bob "hi" @1`}},
		{name: "unterminated at flush", lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}`},
			want: []string{"error ErrUnterminatedBlock @1"}, flushed: 1},
		{name: "oversized and unterminated reports once", max: 8, lines: []string{"[[RELAY]]", `{"to":"bob","body":"hi"}`},
			want: []string{"error ErrTooLarge @1"}},
		{name: "new block ends an unterminated one", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a"}`, "[[RELAY]]", `{"to":"bob","body":"b"}`, "[[/RELAY]]"},
			want: []string{"error ErrUnterminatedBlock @1", `relay bob "b" @3`}},
		{name: "inline ends one whose string was left open", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a long body the CLI cut`, "@relay:carol b"},
			want: []string{"error ErrUnterminatedBlock @1", `relay carol "b" @3`}},
		{name: "inline ends an unterminated one", lines: []string{"[[RELAY]]", `{"to":"bob","body":"a"}`, "@relay:carol b", "[[/RELAY]]"},
			want: []string{"error ErrUnterminatedBlock @1", `relay carol "b" @3`}},
		{name: "errors then valid commands", lines: []string{"[[RELAY]]", "not json", "[[/RELAY]]", `[[RELAY]]{"to":"bob"}[[/RELAY]]`, "@relay:bob,", `[[RELAY]]{"to":"bob","body":"ok"}[[/RELAY]]`, "@relay:bob fine"},
			want: []string{"error ErrMalformedBlock @1", "error ErrEmptyBody @4", "error ErrInvalidTarget @5", `relay bob "ok" @6`, `relay bob "fine" @7`}},
	})
}

// TestCommandAboveAnOpenBlock: a command on a line numbered at or above
// the first line of a block still open (the program drew rows above it
// again: Codex inline prints a finished output's first rows, then "… +N
// lines" where the block's first rows were, after those rows slid out of
// its live view) ends the block as the program's own cut, not the agent's
// mistake: no error, and the command is read. Below it, a command cuts
// the block short, which is the agent's.
func TestCommandAboveAnOpenBlock(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int64
		want []string
	}{
		{"above", 5, []string{`relay carol "b" @5`}},
		{"same line", 10, []string{`relay carol "b" @10`}},
		{"below", 12, []string{"error ErrUnterminatedBlock @10", `relay carol "b" @12`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{})
			var got []string
			for _, l := range []struct {
				n    int64
				text string
			}{{10, "[[RELAY]]"}, {11, `{"to":"bob","body":"a"}`}, {tc.n, "@relay:carol b"}} {
				for _, e := range p.FeedLine(l.n, l.text, 0) {
					got = append(got, describe(e))
				}
			}
			for _, e := range p.Flush() {
				got = append(got, describe(e))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCutRows: opencode 1.18.33 shows a long output collapsed to its
// first rows, the last of them cut short with … (then "Click to expand"):
// what shows of a command or block there is not read, and is no error.
func TestCutRows(t *testing.T) {
	rows := []string{
		"  ┃  @relay:qa_1 whole line shown here",
		"  ┃  @relay:bob sharp…",
		"  ┃  …",
		"#gap",
		"  ┃  Click to expand",
		"#gap",
		"  ┃  quite block start cook meet",
		"  ┃  @relay:al…",
		"  ┃  …",
		"#gap",
		"  ┃  back\\slash",
		"  ┃  [[RELAY]]",
		`  ┃  {"to":"alice","type":"message","body":"children their city rest skin felt north`,
		`  ┃  atom skin\nh…`,
		"#gap",
		"  ┃  Click to expand",
		"#gap",
		"  ┃  [[RELAY]]",
		`  ┃  {"to":"bob","type":"message","body"…`,
		"#gap",
		"  ┃  Click to expand",
		"#gap",
		"  ┃  [[RELAY]]",
		"  ┃  {",
		`  ┃    "to": "bob",`,
		`  ┃    "body": "pipe|bar…`,
		"#gap",
		"  ┃  Click to expand",
		"#gap",
		"  ┃  @relay:alice wrong circle",
		"  ┃  @relay:bob cut",
	}
	fed, flushed := feedAll(New(Options{CutsRows: true}), rows, 97)
	var got []string
	for _, e := range append(fed, flushed...) {
		got = append(got, describe(e))
	}
	want := []string{`relay qa_1 "whole line shown here" @1`, `relay alice "wrong circle" @30`, `relay bob "cut" @31`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cut rows:\n got %q\nwant %q", got, want)
	}
	// A program that cuts nothing: … is the author's.
	fed, flushed = feedAll(New(Options{}), []string{"  ┃  @relay:bob wait…", "#gap", "@relay:al…"}, 97)
	got = got[:0]
	for _, e := range append(fed, flushed...) {
		got = append(got, describe(e))
	}
	if want := []string{`relay bob "wait…" @1`, "error ErrInvalidTarget @3"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a program that cuts nothing:\n got %q\nwant %q", got, want)
	}
}

// TestBlockCutByItsBox: Gemini CLI 0.61.0 shows a running command's
// output in a box of its last rows; a block in it may be cut by the box's
// bottom border before its end marker shows: no command, and no error.
func TestBlockCutByItsBox(t *testing.T) {
	runCases(t, []tcase{
		{name: "cut by the bottom border", lines: []string{
			"│ [[RELAY]]                │",
			"│ {                        │",
			`│   "to": "qa_1",          │`,
			"╰──────────────────────────╯",
			"│ @relay:bob next          │"},
			want: []string{`relay bob "next" @5`}, flushed: 1},
		{name: "a border elsewhere is not the box's", lines: []string{
			"│ [[RELAY]]                │",
			`│ {"to": "qa_1",           │`,
			"  ╰──╯",
			`│ "body": "hi"}            │`,
			"│ [[/RELAY]]               │"},
			want: []string{"error ErrMalformedBlock @1"}},
	})
}

// TestBlockCutByItsBoxGoesOnWhereItWas: Gemini CLI 0.61.0 shows a
// running command's last rows in a box; a block's first rows show there,
// cut by the box's bottom border. Once the command is done it draws the
// box again, whole: the block's first rows where they were (moved up a
// row or more, read already, not committed again) and under them the
// block's rest, new. Read together they are the block; the rest under
// other rows ("… N hidden" where the first rows were) never showed with
// them: no command, and no error either way. A block cut right under its
// opening marker goes on with its object.
func TestBlockCutByItsBoxGoesOnWhereItWas(t *testing.T) {
	type row struct {
		n    int64
		text string
	}
	live := []row{
		{20, "│ [[RELAY]]                      │"},
		{21, "│ {                              │"},
		{22, `│   "to": "bob",                 │`},
		{23, "│                                │"},
		{24, "╰────────────────────────────────╯"},
		{26, " shell mode enabled"},
	}
	// Cut right under its opening marker, a blank row of the box under it.
	marker := []row{
		{20, "│ [[RELAY]]                      │"},
		{21, "│                                │"},
		{22, "╰────────────────────────────────╯"},
		{24, " shell mode enabled"},
	}
	for _, tc := range []struct {
		name       string
		live, done []row
		want       []string
	}{
		{"the rest under the rows moved up", live, []row{
			{17, "│ ✓  Shell Command sh f.sh       │"},
			{19, "│ ... 2 hidden (Ctrl+O) ...      │"},
			{23, `│   "type": "message",           │`},
			{24, `│   "body": "hi there"           │`},
			{25, "│ }                              │"},
			{26, "│ [[/RELAY]]                     │"},
			{27, "│ @relay:alice after             │"}},
			[]string{`relay bob "hi there" @20`, `relay alice "after" @27`}},
		{"the rest under other rows", live, []row{
			{19, "│ ... 5 hidden (Ctrl+O) ...      │"},
			{20, `│   "body": "hi there"           │`},
			{21, "│ }                              │"},
			{22, "│ [[/RELAY]]                     │"},
			{23, "│ @relay:alice after             │"}},
			[]string{`relay alice "after" @23`}},
		{"cut under its marker, the object under it", marker, []row{
			{15, "│ ✓  Shell Command sh f.sh       │"},
			{21, `│ {"to": "bob", "body": "hi"}    │`},
			{22, "│ [[/RELAY]]                     │"}},
			[]string{`relay bob "hi" @20`}},
		{"cut under its marker, no object under it", marker, []row{
			{15, "│ ✓  Shell Command sh f.sh       │"},
			{21, "│ @relay:alice after             │"}},
			[]string{`relay alice "after" @21`}},
		{"not the next member", live, []row{
			{19, "│ ... 2 hidden (Ctrl+O) ...      │"},
			{23, "│ }                              │"},
			{24, "│ [[/RELAY]]                     │"},
			{25, "│ @relay:alice after             │"}},
			[]string{`relay alice "after" @25`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{LossyBoxes: true})
			var got []string
			for _, r := range append(slices.Clone(tc.live), tc.done...) {
				for _, e := range p.FeedLine(r.n, r.text, 0) {
					got = append(got, describe(e))
				}
			}
			for _, e := range p.Flush() {
				got = append(got, describe(e))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestRowLines: a program drew its box for a wider screen and the terminal
// broke each row over two lines; the caller feeds each row whole, numbered
// by its first line (RowLines(2)). A command's next row, two lines under
// it, goes on with it; fed without RowLines, the lines between are a gap
// that ends it; and a row one line under it is laid out for another screen
// (RowLines back to one), no row of it.
func TestRowLines(t *testing.T) {
	row := func(s string) string { return "│ " + s + strings.Repeat(" ", 20-len(s)) + " │" }
	read := func(step int64, rows map[int64]string) []string {
		p := New(Options{LossyBoxes: true})
		var got []string
		for n := int64(10); n <= 16; n++ {
			if text, ok := rows[n]; ok {
				p.RowLines(step)
				if n == 11 {
					p.RowLines(1)
				}
				for _, e := range p.FeedLine(n, text, 0) {
					got = append(got, describe(e))
				}
			}
		}
		for _, e := range p.Flush() {
			got = append(got, describe(e))
		}
		return got
	}
	broken := map[int64]string{10: row("@relay:bob one three"), 12: row("four"), 14: row("")}
	if got, want := read(2, broken), []string{`relay bob "one three four" @10`}; !slices.Equal(got, want) {
		t.Errorf("rows two lines each: got %q, want %q", got, want)
	}
	if got, want := read(1, broken), []string{`relay bob "one three" @10`}; !slices.Equal(got, want) {
		t.Errorf("rows one line each: got %q, want %q", got, want)
	}
	other := map[int64]string{10: row("@relay:bob one three"), 11: row("four")}
	if got, want := read(2, other), []string{`relay bob "one three" @10`}; !slices.Equal(got, want) {
		t.Errorf("a row laid out for another screen: got %q, want %q", got, want)
	}
}

// TestRowLinesChangeInABox: a program printed a box for a wider screen
// and the screen narrowed while its rows were committed: the rows before
// take one line each, the later ones two (the terminal broke them). A
// row with the box's right border where the box has it is the box's
// row, laid out as wide: the command held over the change goes on into
// it, then two lines a row. A row whose border stands elsewhere is
// another box's, laid out for another screen: the command ended.
func TestRowLinesChangeInABox(t *testing.T) {
	row := func(s string) string { return "│ " + s + strings.Repeat(" ", 20-len(s)) + " │" }
	type fed struct {
		n     int64
		lines int64
		text  string
	}
	read := func(rows ...fed) []string {
		p := New(Options{LossyBoxes: true})
		var got []string
		for _, r := range rows {
			p.RowLines(r.lines)
			for _, e := range p.FeedLine(r.n, r.text, 0) {
				got = append(got, describe(e))
			}
		}
		for _, e := range p.Flush() {
			got = append(got, describe(e))
		}
		return got
	}
	got := read(fed{10, 1, row("@relay:bob one three")}, fed{11, 2, row("four five six seven")}, fed{13, 2, row("eight")}, fed{15, 2, row("")})
	if want := []string{`relay bob "one three four five six seven eight" @10`}; !slices.Equal(got, want) {
		t.Errorf("rows of the box: got %q, want %q", got, want)
	}
	other := "│ four" + strings.Repeat(" ", 30) + " │"
	got = read(fed{10, 1, row("@relay:bob one three")}, fed{11, 2, other})
	if want := []string{`relay bob "one three" @10`}; !slices.Equal(got, want) {
		t.Errorf("a row of a box of another width: got %q, want %q", got, want)
	}
}

// TestNextRowLines: a program wrapped a paragraph at 40 columns and the
// screen narrowed to 30, so the terminal broke each of its longer rows over
// two lines as they left; each is fed whole, numbered by its first line,
// with NextRowLines saying how many it takes. The rows go on with each
// other across the lines between, a short row taking one line; fed without
// NextRowLines, the lines between are a gap that ends the command; and a
// row further under it than the row above takes is another line: the
// command's row, full, is cut there (TestPushedOffFullRowAtAGap).
func TestNextRowLines(t *testing.T) {
	type row struct {
		n     int64
		lines int64
		text  string
	}
	read := func(told bool, rows []row) []string {
		p := New(Options{})
		var got []string
		for _, r := range rows {
			if told {
				p.NextRowLines(r.lines)
			}
			for _, e := range p.FeedLine(r.n, r.text, 40) {
				got = append(got, describe(e))
			}
		}
		for _, e := range p.Flush() {
			got = append(got, describe(e))
		}
		return got
	}
	rewrapped := []row{
		{10, 2, "@relay:bob one two three four five six"},
		{12, 2, "seven eight nine ten eleven twelve"},
		{14, 1, "thirteen"},
		{15, 1, "end of the output, 3 lines"},
	}
	whole := `relay bob "one two three four five six seven eight nine ten eleven twelve thirteen" @10`
	if got, want := read(true, rewrapped), []string{whole}; !slices.Equal(got, want) {
		t.Errorf("rows two lines each: got %q, want %q", got, want)
	}
	if got, want := read(false, rewrapped), []string{`relay bob "one two three four five six" @10`}; !slices.Equal(got, want) {
		t.Errorf("rows fed as one line each: got %q, want %q", got, want)
	}
	apart := []row{{10, 2, "@relay:bob one two three four five six"}, {13, 1, "seven eight"}}
	if got := read(true, apart); len(got) != 0 {
		t.Errorf("a row past the lines the row above takes: got %q, want nothing", got)
	}
}

// TestPushedOffFullRowAtAGap: Codex 0.171.0 wrote a relay's first row to
// the edge of a 40-column screen; the screen narrowed, pushing that row off
// the top broken over two lines (NextRowLines 2), and the row under it, the
// line's rest, stayed on the screen and was drawn again at the new width
// with the line's start. The next row fed is not under the pushed-off row:
// the command as held may be cut, and is dropped — unless that row starts
// with the pushed-off row's end and goes on: the line drawn again, the
// row's end moved down onto it, and the command goes on there. A row that left room
// for a long word ended its line and is read; so is a full row fed with
// no word of the narrowing (one line: a gap ends a command as ever), and a
// command on the row after the gap.
func TestPushedOffFullRowAtAGap(t *testing.T) {
	type row struct {
		n     int64
		lines int64
		text  string
	}
	read := func(rows ...row) []string {
		p := New(Options{})
		var got []string
		for _, r := range rows {
			p.NextRowLines(r.lines)
			for _, e := range p.FeedLine(r.n, r.text, 40) {
				got = append(got, describe(e))
			}
		}
		for _, e := range p.Flush() {
			got = append(got, describe(e))
		}
		return got
	}
	full := "@relay:bob one two three four five six" // ends at 38 of 40
	for _, c := range []struct {
		name string
		rows []row
		want []string
	}{
		{"full, pushed off, gap", []row{{10, 2, full}, {20, 1, "fill those fight"}}, nil},
		{"full, pushed off, next row under it", []row{{10, 2, full}, {12, 1, "seven"}},
			[]string{`relay bob "one two three four five six seven" @10`}},
		{"full, pushed off, a command after the gap", []row{{10, 2, full}, {20, 1, "@relay:carol hi"}},
			[]string{`relay carol "hi" @20`}},
		{"room left, pushed off, gap", []row{{10, 2, "@relay:bob one two"}, {20, 1, "seven"}},
			[]string{`relay bob "one two" @10`}},
		{"full, one line, gap", []row{{10, 1, full}, {20, 1, "seven"}},
			[]string{`relay bob "one two three four five six" @10`}},
		// The line drawn again at the new width: the row's start there
		// (taken for the row read, not fed), its end moved down and the
		// rest of the line under it; the same rows again under it (a
		// second print) have no start.
		{"full, pushed off, its end and the rest at a gap", []row{{10, 2, full}, {20, 1, "four five six seven eight nine ten elf"}, {21, 1, "twelve"}, {24, 1, "four five six seven eight nine ten elf"}, {25, 1, "twelve"}},
			[]string{`relay bob "one two three four five six seven eight nine ten elf twelve" @10`}},
		{"full, pushed off, a short end at a gap", []row{{10, 2, full}, {20, 1, "six seven eight"}}, nil},
		{"full, pushed off, the whole body at a gap", []row{{10, 2, full}, {20, 1, "one two three four five six seven"}}, nil},
		{"full, pushed off, its end alone at a gap", []row{{10, 2, full}, {20, 1, "four five six"}}, nil},
	} {
		if got := read(c.rows...); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestBoxRedrawnAboveAnOpenBlock: Gemini CLI 0.61.0 scrolls the box of a
// running command's last rows as output pours in, drawing it again from
// its top: a row of the box above an open block's first row means the
// block's rows moved up with the rest. The block as read so far is not
// the block (its next row would be the box's "… N hidden"); the box's rows
// are read afresh, the block whole among them.
func TestBoxRedrawnAboveAnOpenBlock(t *testing.T) {
	p := New(Options{LossyBoxes: true})
	var got []string
	for _, r := range []struct {
		n    int64
		text string
	}{
		{10, "│ ... first 20 lines hidden ...  │"},
		{11, "│ some output                    │"},
		{12, "│ [[RELAY]]                      │"},
		{13, "│ {                              │"},
		{10, "│ ... first 22 lines hidden ...  │"},
		{11, "│ [[RELAY]]                      │"},
		{12, "│ {                              │"},
		{13, `│   "to": "bob",                 │`},
		{14, `│   "body": "hi there"           │`},
		{15, "│ }                              │"},
		{16, "│ [[/RELAY]]                     │"},
	} {
		for _, e := range p.FeedLine(r.n, r.text, 0) {
			got = append(got, describe(e))
		}
	}
	for _, e := range p.Flush() {
		got = append(got, describe(e))
	}
	if want := []string{`relay bob "hi there" @11`}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestRowRedrawnAboveABlock: Codex 0.171.0 blinks the bullet of a running
// command's header ("• Running" / "◦ Running") while the command's output
// streams in below it; the header, committed again, comes between the
// rows of a block in that output, where the view shows it then. It is
// not a row of the block.
func TestRowRedrawnAboveABlock(t *testing.T) {
	p := New(Options{})
	var evs []Event
	for _, l := range []struct {
		n    int64
		text string
	}{
		{2, "• Running sh f1.sh"},
		{3, "  └ @relay:alice before the block"},
		{4, "    [[RELAY]]"},
		{5, `    {"to":"bob","type":"message","body":"hi there"}`},
		{1, "◦ Running sh f1.sh"}, // the view scrolled a row too
		{6, "    [[/RELAY]]"},
		{7, "    @relay:alice after"},
		{8, "    [[RELAY]]"},
		{3, `    {"to":"bob","body":"a row above, not seen there"}`},
		{9, "    [[/RELAY]]"},
	} {
		evs = append(evs, p.FeedLine(l.n, l.text, 80)...)
	}
	evs = append(evs, p.Flush()...)
	var got []string
	for _, e := range evs {
		got = append(got, describe(e))
	}
	want := []string{`relay alice "before the block" @3`, `relay bob "hi there" @4`, `relay alice "after" @7`,
		`relay bob "a row above, not seen there" @8`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestBlockEndNumberedAboveItsHead: Codex 0.171.0 scrolls its view a few
// rows twice in a few milliseconds while a block streams in; the rows under
// the block's head are then numbered afresh, above the head's number. The
// end marker right after a whole JSON object ends the block even when the
// same marker was read just before (the end of an earlier block whose head
// had left the view): a reader sees the block end there, and no row redrawn
// above a block can make a whole object more than it is.
func TestBlockEndNumberedAboveItsHead(t *testing.T) {
	p := New(Options{})
	var evs []Event
	for _, l := range []struct {
		n    int64
		text string
	}{
		{0, "    [[/RELAY]]"}, // an earlier block, its head out of view
		{1, "    @relay:* class"},
		{12, "• Running sh f04.sh"},
		{13, "  └ tube"},
		{14, "    [[RELAY]]"},
		{0, `    {"to":"alice","type":"message","body":"excite`},
		{1, `    now","topic":"t652"}`},
		{2, "    [[/RELAY]]"},
		{3, "    mother arm"},
		{14, "• Running sh f05.sh"},
		{16, "    [[RELAY]]"},
		{17, `    {"to":"alice","type":"message","body":"again"}`},
		{18, "    [[/RELAY]]"},
	} {
		evs = append(evs, p.FeedLine(l.n, l.text, 122)...)
	}
	evs = append(evs, p.Flush()...)
	var got []string
	for _, e := range evs {
		got = append(got, describe(e))
	}
	want := []string{`relay * "class" @1`, `relay alice "excite now" @14 topic=t652`, `relay alice "again" @16`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestPending(t *testing.T) {
	p := New(Options{})
	if evs := p.Feed(1, "@relay:bob now"); len(evs) != 1 || p.Pending() {
		t.Fatalf("command not under a bullet: %d events, Pending %v; want 1 event, not pending", len(evs), p.Pending())
	}
	if evs := p.Feed(2, "⏺ @relay:bob held"); len(evs) != 0 || !p.Pending() {
		t.Fatalf("command under a bullet: %d events, Pending %v; want 0 events, pending", len(evs), p.Pending())
	}
	if evs := p.Feed(3, "  more"); len(evs) != 0 || !p.Pending() {
		t.Fatalf("continuation: %d events, Pending %v; want 0 events, pending", len(evs), p.Pending())
	}
	evs := p.Flush()
	if len(evs) != 1 || evs[0].Command == nil || evs[0].Command.Body != "held more" || p.Pending() {
		t.Fatalf("Flush = %v, Pending %v; want the held command with body %q", evs, p.Pending(), "held more")
	}
	if evs := p.Flush(); len(evs) != 0 {
		t.Fatalf("second Flush = %v, want nothing", evs)
	}
	p.Feed(4, "[[RELAY]]")
	if p.Pending() {
		t.Fatalf("an open block counts as pending")
	}
}

// A command's Source is the text it was read from; FromBlock says whether
// that was a block, set by the parser and never guessed from Source's text
// (an inline command may say anything, a block's markers too).
func TestSource(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
		block bool
	}{
		{"inline", []string{"  $ @relay:bob hi"}, "  $ @relay:bob hi", false},
		{"inline without escapes", []string{"\x1b[1m@relay:bob hi\x1b[0m"}, "@relay:bob hi", false},
		{"continued", []string{"⏺ @relay:bob a", "  b"}, "⏺ @relay:bob a\n  b", false},
		{"inline holding a block", []string{`@relay:bob [[RELAY]]{"to":"al","body":"x"}[[/RELAY]]`}, `@relay:bob [[RELAY]]{"to":"al","body":"x"}[[/RELAY]]`, false},
		{"block", []string{"⏺ [[RELAY]]", `  {"to":"bob",`, `  "body":"hi"}`, "  [[/RELAY]]"}, "[[RELAY]]\n{\"to\":\"bob\",\n\"body\":\"hi\"}\n[[/RELAY]]", true},
		{"one-line block", []string{`[[RELAY]]{"to":"bob","body":"hi"}[[/RELAY]]`}, `[[RELAY]]{"to":"bob","body":"hi"}[[/RELAY]]`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fed, flushed := feedAll(New(Options{}), tc.lines, 0)
			evs := append(fed, flushed...)
			if len(evs) != 1 || evs[0].Command == nil {
				t.Fatalf("events %v, want one command", evs)
			}
			if got := evs[0].Command.Source; got != tc.want {
				t.Errorf("Source = %q, want %q", got, tc.want)
			}
			if got := evs[0].Command.FromBlock; got != tc.block {
				t.Errorf("FromBlock = %v, want %v", got, tc.block)
			}
		})
	}
}

func TestMarshalJSON(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"inline", []string{"@relay:bob <b> & 🎉"},
			`{"kind":"relay","to":"bob","type":"message","body":"<b> & 🎉","line":1}`},
		{"thinking", []string{"@thinking:* hmm"},
			`{"kind":"thinking","to":"*","type":"message","body":"hmm","line":1}`},
		{"block with everything", []string{`[[RELAY]]{"to":"swarm","type":"heartbeat","body":"b","data":{"status": "idle"},"topic":"t","correlation_id":"c","in_reply_to":"r"}[[/RELAY]]`},
			`{"kind":"relay","to":"swarm","type":"heartbeat","body":"b","data":{"status":"idle"},"topic":"t","correlation_id":"c","in_reply_to":"r","line":1}`},
		{"empty fields omitted", []string{`[[RELAY]]{"to":"swarm","type":"task_start"}[[/RELAY]]`},
			`{"kind":"relay","to":"swarm","type":"task_start","body":"","line":1}`},
		{"error", []string{"x", "@relay:bob"},
			`{"error":"empty relay message: nothing after @relay:bob","line":2}`},
		{"malformed", []string{"[[RELAY]]", `{"to":"bob","body":}`, "[[/RELAY]]"},
			`{"error":"malformed relay block: invalid character '}' looking for beginning of value","line":1}`},
		{"unknown field", []string{`[[RELAY]]{"to":"bob","from":"alice","body":"x"}[[/RELAY]]`},
			`{"error":"malformed relay block: unknown field \"from\" (fields: to, type, body, data, topic, correlation_id, in_reply_to)","line":1}`},
		{"unterminated", []string{"[[RELAY]]"},
			`{"error":"unterminated relay block","line":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fed, flushed := feedAll(New(Options{}), tc.lines, 0)
			evs := append(fed, flushed...)
			if len(evs) != 1 {
				t.Fatalf("%d events, want 1", len(evs))
			}
			b, err := evs[0].MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("MarshalJSON =\n  %s\nwant\n  %s", b, tc.want)
			}
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(evs[0]); err != nil || buf.String() != tc.want+"\n" {
				t.Errorf("json.Encoder = %q, %v; want the same", buf.String(), err)
			}
		})
	}
	if _, err := json.Marshal(Event{}); err == nil {
		t.Errorf("marshalling an empty event succeeded")
	}
}

func TestParseError(t *testing.T) {
	_, flushed := feedAll(New(Options{}), []string{"a", "b", "[[RELAY]]"}, 0)
	if len(flushed) != 1 || flushed[0].Err == nil {
		t.Fatalf("Flush = %v, want one error", flushed)
	}
	var err error = flushed[0].Err
	if got, want := err.Error(), "line 3: unterminated relay block"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrUnterminatedBlock) {
		t.Errorf("errors.Is(%v, ErrUnterminatedBlock) = false", err)
	}
	var pe *ParseError
	if !errors.As(fmt.Errorf("agent bob: %w", err), &pe) || pe.Line != 3 {
		t.Errorf("errors.As through a wrap failed: %v", pe)
	}
}

func TestValidTarget(t *testing.T) {
	valid := []string{"*", "swarm", "human", "a", "A1", "bob", "x.y_z-1", "0", strings.Repeat("n", 64)}
	invalid := []string{"", "**", "-a", "_a", ".a", "a b", "a/b", "a:b", "bob,", "é", "a\n", strings.Repeat("n", 65), "@bob"}
	for _, s := range valid {
		if !ValidTarget(s) {
			t.Errorf("ValidTarget(%q) = false, want true", s)
		}
	}
	for _, s := range invalid {
		if ValidTarget(s) {
			t.Errorf("ValidTarget(%q) = true, want false", s)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindRelay: "relay", KindThinking: "thinking", Kind(0): "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

// TestElidedBlock: a block the program showed with rows left out is cut
// short by the program, not left unterminated by the agent: dropped
// without an error, and what follows is read as usual.
func TestElidedBlock(t *testing.T) {
	p := New(Options{})
	var got []Event
	for i, l := range []string{"[[RELAY]]", "{", `"to": "bob",`} {
		got = append(got, p.FeedLine(int64(i+1), l, 0)...)
	}
	if !p.Elided() {
		t.Fatalf("Elided() with a block open = false, want true")
	}
	if p.Elided() {
		t.Errorf("Elided() with no block open = true, want false")
	}
	got = append(got, p.FeedLine(5, "@relay:bob hi", 0)...)
	got = append(got, p.Flush()...)
	if len(got) != 1 || got[0].Err != nil || got[0].Command.Body != "hi" {
		t.Errorf("events = %v, want only the command after the cut block", got)
	}
}

// readLossyBox draws rows inside a 30-column box as Gemini CLI does (a
// "│ " gutter, the right edge, the bottom border), reads them with the
// lossy-box rule, and describes the first command.
func readLossyBox(boxRows []string) string { return readLossyBoxSized(boxRows, false) }

// readLossyBoxSized is readLossyBox in a box known to be sized to its
// terminal, or not (Parser.BoxSized).
func readLossyBoxSized(boxRows []string, sized bool) string {
	var rows []string
	for _, r := range boxRows {
		rows = append(rows, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
	}
	rows = append(rows, "╰"+strings.Repeat("─", 32)+"╯")
	p := New(Options{LossyBoxes: true})
	p.BoxSized(sized)
	fed, flushed := feedAll(p, rows, 0)
	return describe(append(fed, flushed...)[0])
}

// TestABlockStringCutByALossyBoxIsNoError: Gemini CLI draws a wide
// character wider than the terminal it ran the command in counts it, and
// cuts the row of its box where it overflows: a block's row that ends
// inside a JSON string among wide characters may have lost the string's
// rest, and the block that then reads as no JSON is the program's cut,
// not its author's mistake: no error. The same rows not in a lossy box
// are a malformed block.
func TestABlockStringCutByALossyBoxIsNoError(t *testing.T) {
	read := func(lossy bool, body string) []Event {
		var rows []string
		for _, r := range []string{"[[RELAY]]", "{", `  "to": "bob",`, `  "body": "` + body, `  "topic": "t1"`, "}", "[[/RELAY]]"} {
			rows = append(rows, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
		}
		fed, flushed := feedAll(New(Options{LossyBoxes: lossy}), rows, 0)
		return append(fed, flushed...)
	}
	if got := read(true, "hi 漢 字 漢 字"); len(got) != 0 {
		t.Errorf("a string cut among wide characters in a lossy box: %v, want nothing", got)
	}
	if got := read(false, "hi 漢 字 漢 字"); len(got) != 1 || got[0].Err == nil {
		t.Errorf("the same rows in a box that is not lossy: %v, want one error", got)
	}
	// A block whose JSON parses was not cut by the box: a wrong target
	// or field is its author's mistake, reported.
	for _, first := range []string{`  "to": "bob smith!",`, `  "to": "bob", "bdy": "x",`} {
		var rows []string
		for _, r := range []string{"[[RELAY]]", "{", first, `  "body": "hi 漢 字 漢 字 漢`, `  字 end",`, `  "topic": "t1"`, "}", "[[/RELAY]]"} {
			rows = append(rows, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
		}
		fed, flushed := feedAll(New(Options{LossyBoxes: true}), rows, 0)
		if got := append(fed, flushed...); len(got) != 1 || got[0].Err == nil {
			t.Errorf("%s: %v, want one error", first, got)
		}
	}
}

// TestABlockStringCutAmongWideCharactersIsNoCommand: a block's JSON
// string row in a lossy box (Gemini CLI's) that holds wide characters and
// ends inside the string was cut where they overflowed the box: the
// string's next row goes on after text the box dropped ("ｆ ｕ" then
// "ng", of "ｆ ｕ ｌ ｌ  ring"), and the JSON still parses. What shows is
// no command the agent wrote: nothing is read (it was read with the text
// gone). The same rows where the box is not lossy are the command, and so
// are they in the box of a command at work, which wraps such a row.
func TestABlockStringCutAmongWideCharactersIsNoCommand(t *testing.T) {
	read := func(lossy, atWork bool) []Event {
		var rows []string
		for _, r := range []string{"[[RELAY]]", `{"to":"b","body":"北 京 ｆ ｕ`, `ng noun"}`, "[[/RELAY]]"} {
			rows = append(rows, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
		}
		p := New(Options{LossyBoxes: lossy})
		p.BoxAtWork(atWork)
		fed, flushed := feedAll(p, rows, 0)
		return append(fed, flushed...)
	}
	if got := read(true, false); len(got) != 0 {
		t.Errorf("a string cut among wide characters in a lossy box: %v, want nothing", got)
	}
	if got := read(false, false); len(got) != 1 || got[0].Command == nil {
		t.Errorf("the same rows in a box that is not lossy: %v, want one command", got)
	}
	if got := read(true, true); len(got) != 1 || got[0].Command == nil {
		t.Errorf("the same rows in a lossy box at work: %v, want one command", got)
	}
}

// TestABlockWhoseStringLostTextInALossyBoxIsNoCommand: in a lossy box
// (Gemini CLI's, its terminal wider than the box), a row of a block's
// JSON string that starts with a word that would have fitted on the row
// before was not wrapped there: the box dropped the text between, the
// rest of its terminal's row. What shows is no command the agent wrote,
// and no mistake of its: nothing is read. A string the box wrapped, each
// row with no room left for the next one's first word, is read.
func TestABlockWhoseStringLostTextInALossyBoxIsNoCommand(t *testing.T) {
	read := func(rows ...string) []Event {
		var boxed []string
		for _, r := range rows {
			boxed = append(boxed, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
		}
		fed, flushed := feedAll(New(Options{LossyBoxes: true}), boxed, 0)
		return append(fed, flushed...)
	}
	if got := read("[[RELAY]]", `{"to":"b","body":"alpha`, `r bravo"}`, "[[/RELAY]]"); len(got) != 0 {
		t.Errorf("a string that lost text at the box's edge: %v, want nothing", got)
	}
	got := read("[[RELAY]]", `{"to":"b","body":"alpha bravo`, `charlie"}`, "[[/RELAY]]")
	if len(got) != 1 || got[0].Command == nil || got[0].Command.Body != "alpha bravo charlie" {
		t.Errorf("a string the box wrapped: %v, want the command with body %q", got, "alpha bravo charlie")
	}
}

// TestABlockStringBrokenInABoxNotSizedIsNoError: Gemini CLI shows a
// command that ended before its box showed it at work in a box narrower
// than the terminal it ran in (not sized to it: Parser.BoxSized), each
// of that terminal's rows cut to the box after its last whole word that
// fits, the rest dropped. A block's JSON string that goes on in the next
// row there may have lost text at the break — a closing quote and a key
// ("correct" then `pic":"t148"}`, of `correct über","topic":"t148"}`) —
// and the block that then reads as no JSON is the box's cut, not its
// author's mistake: no error (holdout-20261128s gemini-s14700012). In a
// box sized to its terminal the rows are the terminal's, whole: the same
// rows are a malformed block.
func TestABlockStringBrokenInABoxNotSizedIsNoError(t *testing.T) {
	read := func(sized bool) []Event {
		var boxed []string
		for _, r := range []string{"[[RELAY]]", `{"to":"b","body":"alpha bravo`, `pic":"t1"}`, "[[/RELAY]]"} {
			boxed = append(boxed, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
		}
		p := New(Options{LossyBoxes: true})
		p.BoxSized(sized)
		fed, flushed := feedAll(p, boxed, 0)
		return append(fed, flushed...)
	}
	if got := read(false); len(got) != 0 {
		t.Errorf("a string broken in a box not sized to its terminal: %v, want nothing", got)
	}
	if got := read(true); len(got) != 1 || got[0].Err == nil {
		t.Errorf("the same rows in a box sized to its terminal: %v, want one error", got)
	}
}

// TestABlockRowCutAtALossyBoxsEdgeIsNoError: Gemini CLI shows a command
// that ended before its box showed it at work in a box narrower than the
// terminal it ran in (not sized to it: Parser.BoxSized), each of that
// terminal's rows cut at the box's edge. A block's row that reaches the
// box's last column outside a JSON string, the end marker under it
// (`{"to":"bob",…,"topic"` of `…,"topic":"t950"}`), lost its rest there:
// the block that then reads as no JSON is the box's cut, not its author's
// mistake: no error (gemini-s105300006, seed 1053). A row that ends short
// of the edge, or the same rows in a box sized to its terminal (whose rows
// are the terminal's, whole), are a malformed block.
func TestABlockRowCutAtALossyBoxsEdgeIsNoError(t *testing.T) {
	read := func(sized bool, row string) []Event {
		var boxed []string
		for _, r := range []string{"[[RELAY]]", row, "[[/RELAY]]"} {
			boxed = append(boxed, "│ "+r+strings.Repeat(" ", 30-ansi.StringWidth(r))+" │")
		}
		p := New(Options{LossyBoxes: true})
		p.BoxSized(sized)
		fed, flushed := feedAll(p, boxed, 0)
		return append(fed, flushed...)
	}
	const edge = `{"to":"bo","body":"hi","topic"` // 30 columns: to the box's last
	if got := read(false, edge); len(got) != 0 {
		t.Errorf("a row cut at the edge of a box not sized to its terminal: %v, want nothing", got)
	}
	if got := read(true, edge); len(got) != 1 || got[0].Err == nil {
		t.Errorf("the same rows in a box sized to its terminal: %v, want one error", got)
	}
	if got := read(false, `{"to":"bob","body":"hi",`); len(got) != 1 || got[0].Err == nil {
		t.Errorf("a row that ends short of the edge: %v, want one error", got)
	}
	if got := read(false, `{"to":"bob","body":"hi","x":1}`); len(got) != 1 || got[0].Err == nil {
		t.Errorf("JSON that parses, its row at the edge: %v, want one error (an unknown field is its author's)", got)
	}
}

// A body with two blanks between two words ("aaaa  xy"), wrapped by the
// box at those blanks where the second word fits after one blank but not
// after the two the string holds: nothing was dropped, and a reader reads
// the command (the review of 27787dd: dropped with no error).
func TestAStringWrappedAtTwoBlanksInALossyBoxIsRead(t *testing.T) {
	const inner = 30 // the box's width inside its borders, as the parser tests draw it
	word := `xy"}`
	for k := 1; k < 20; k++ {
		first := `{"to":"b","body":"` + strings.Repeat("a", k)
		// Wrapped only where "first" + two blanks + word overflows, and
		// "first" + one blank + word does not.
		if ansi.StringWidth(first)+2+len(word) != inner+1 {
			continue
		}
		var boxed []string
		for _, r := range []string{"[[RELAY]]", first, word, "[[/RELAY]]"} {
			boxed = append(boxed, "│ "+r+strings.Repeat(" ", inner-ansi.StringWidth(r))+" │")
		}
		fed, flushed := feedAll(New(Options{LossyBoxes: true}), boxed, 0)
		got := append(fed, flushed...)
		if len(got) != 1 || got[0].Command == nil {
			t.Errorf("first row %q: %v, want one command", first, got)
		}
		return
	}
	t.Fatal("no row length found")
}

// TestCodexKeepsAQuoteWithTheBracketAfterIt: Codex 0.171.0 breaks where
// Unicode's line breaking allows it, which keeps a closing quote and an
// opening bracket after it together across the blank between (UAX #14
// LB15): "'single' (paren)" went to the next row whole where "'single'"
// alone would have fitted (r/codex-s14100008). The row before had no room
// for that piece: the line goes on. Where it had room for it, or the next
// row starts with a quote and a word, the row ended its line; a program
// that breaks only at blanks gives no such piece.
func TestCodexKeepsAQuoteWithTheBracketAfterIt(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   Options
		wrapAt int
		lines  []string
		want   string
	}{
		{"no room for the quote and the bracket", Options{BreaksWideRuns: true}, 40,
			[]string{"    @relay:bob alpha bravo", "    'single' (paren) end"}, `relay bob "alpha bravo 'single' (paren) end" @1`},
		{"room for the quote and the bracket", Options{BreaksWideRuns: true}, 44,
			[]string{"    @relay:bob alpha bravo", "    'single' (paren) end"}, `relay bob "alpha bravo" @1`},
		{"a quote and a word", Options{BreaksWideRuns: true}, 40,
			[]string{"    @relay:bob alpha bravo", "    'single' count end"}, `relay bob "alpha bravo" @1`},
		{"a program that breaks at blanks only", Options{}, 40,
			[]string{"    @relay:bob alpha bravo", "    'single' (paren) end"}, `relay bob "alpha bravo" @1`},
	} {
		fed, flushed := feedAll(New(c.opts), c.lines, c.wrapAt)
		if evs := append(fed, flushed...); len(evs) != 1 || describe(evs[0]) != c.want {
			var got []string
			for _, e := range evs {
				got = append(got, describe(e))
			}
			t.Errorf("%s: got %q, want %s", c.name, got, c.want)
		}
	}
}

// TestCodexDoesNotBreakANumberAfterItsPoint: Codex breaks words where
// Unicode's line breaking allows (UAX #14), which never breaks inside a
// number: a Codex row ending "2." over a row starting "56" was broken at a
// blank, the next word not fitting ("step 2. 56 files"), not a number
// broken after its point as opencode breaks one (review s13, on a2b6d67).
func TestCodexDoesNotBreakANumberAfterItsPoint(t *testing.T) {
	for _, c := range []struct {
		row    string
		wrapAt int
		want   string
	}{
		{"  └ @relay:bob done with step 2.", 33, `relay bob "done with step 2. 56 files changed" @1`},
		// Nor after a comma: "1," over "56" is two numbers.
		{"  └ @relay:bob done with steps 1,", 34, `relay bob "done with steps 1, 56 files changed" @1`},
	} {
		lines := []string{c.row, "    56 files changed"}
		fed, flushed := feedAll(New(Options{BreaksWideRuns: true}), lines, c.wrapAt)
		var got []string
		for _, e := range append(fed, flushed...) {
			got = append(got, describe(e))
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: got %q, want %s", c.row, got, c.want)
		}
	}
}
