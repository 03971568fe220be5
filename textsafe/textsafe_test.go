package textsafe

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBodyAndLine(t *testing.T) {
	for _, tc := range []struct{ in, body, line string }{
		{"plain text", "plain text", "plain text"},
		{"two\nlines", "two\nlines", "two⏎lines"},
		{"crlf\r\nand cr\rend", "crlf\nand cr\nend", "crlf⏎and cr⏎end"},
		{"tab\there", "tab here", "tab here"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m", "[31mred[0m"},
		{"osc52 \x1b]52;c;aGk=\a!", "osc52 ]52;c;aGk=!", "osc52 ]52;c;aGk=!"},
		{"nul\x00bel\x07del\x7f", "nulbeldel", "nulbeldel"},
		{"c1 \u009b31m \u0085", "c1 31m ", "c1 31m "},
		{"raw c1 \x9b31m", "raw c1 \ufffd31m", "raw c1 \ufffd31m"},
		{"bidi \u202egnp.exe", "bidi gnp.exe", "bidi gnp.exe"},
		{"isolate \u2066x\u2069 mark \u200f", "isolate x mark ", "isolate x mark "},
		{"zero\u200bwidth\u2060word\ufeff", "zerowidthword", "zerowidthword"},
		{"family 👨\u200d👩\u200d👧 kept", "family 👨\u200d👩\u200d👧 kept", "family 👨\u200d👩\u200d👧 kept"},
		{"invalid \xff\xfe", "invalid \ufffd\ufffd", "invalid \ufffd\ufffd"},
	} {
		if got := Body(tc.in); got != tc.body {
			t.Errorf("Body(%q) = %q, want %q", tc.in, got, tc.body)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if Safe(Body(tc.in)) != true {
			t.Errorf("Body(%q) is not safe", tc.in)
		}
	}
}

func TestJSON(t *testing.T) {
	in := map[string]string{"body": "c1 \u009b31m esc \x1b[0m bidi \u202e del \x7f ok é 👍"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	for _, bad := range []string{"\u009b", "\x1b", "\u202e", "\x7f"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("%q left in %s", bad, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["body"] != in["body"] {
		t.Errorf("round trip: %v %q", err, back["body"])
	}
}

func FuzzBody(f *testing.F) {
	f.Add("\x1b]52;c;aGk=\a\u202e\r\n\t\x9b")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Body(s), Line(s)} {
			if !Safe(out) {
				t.Fatalf("%q is not safe", out)
			}
		}
		if strings.Contains(Line(s), "\n") {
			t.Fatalf("Line(%q) has a line feed", s)
		}
		var v, w string
		b, _ := json.Marshal(s)
		if err := json.Unmarshal(JSON(b), &v); err != nil || json.Unmarshal(b, &w) != nil || v != w {
			t.Fatalf("JSON of %q: %v %q", s, err, v)
		}
	})
}

func TestLineAndWords(t *testing.T) {
	if got := Line("a\nb\tc\x1b[31md\x07e\u009bf"); got != "a⏎b c[31mdef" {
		t.Errorf("Line = %q", got)
	}
	if got := Words(" a\n\n b\t\x1b[31mc  "); got != "a b [31mc" {
		t.Errorf("Words = %q", got)
	}
}
