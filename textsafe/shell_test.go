package textsafe

import (
	"strings"
	"testing"
)

func TestShellComment(t *testing.T) {
	for _, tc := range []struct {
		style ShellStyle
		ascii bool
		in    string
		want  string
	}{
		{HashComment, false, "please review", " # please review"},
		{HashComment, false, "one\ntwo\r\nthree\rfour", " # one ⏎ two ⏎ three ⏎ four"},
		{HashComment, false, "\n\n  padded  \n\n", " # padded"},
		{HashComment, false, "a; b && c | d > e < f", " # a； b ＆＆ c ｜ d ＞ e ＜ f"},
		{HashComment, false, "$(x) `y` ${z} 'q' \"d\" \\ !!", " # ＄（x） ｀y｀ ＄｛z｝ ＇q＇ ＂d＂ ＼ ！！"},
		{HashComment, false, "[relay #ab12 from x] #tag ~ ^ % * ? = é 👍", " # [relay #ab12 from x] #tag ~ ^ % * ? = é 👍"},
		{HashComment, false, "esc\x1b[201~ tab\tbel\a", " # esc[201~ tab bel"},
		{NullCommand, false, "it's $HOME; ok", " : 'it＇s ＄HOME； ok'"},
		{NullCommand, false, "", " : ''"},
		{HashComment, true, "naïve 👍; $x\nnext", " # na?ve ?_ _x / next"},
	} {
		if got := ShellComment(tc.style, tc.in, tc.ascii); got != tc.want {
			t.Errorf("ShellComment(%v, %q, %v) = %q, want %q", tc.style, tc.in, tc.ascii, got, tc.want)
		}
	}
}

// FuzzShellCommentIsOneInertLine checks the form of every line: one line,
// nothing a terminal acts on, none of the characters a shell takes for
// syntax, and the style's opening (the real shells read what this makes in
// supervisor's FuzzShellsRunNothingOfAMessage).
func FuzzShellCommentIsOneInertLine(f *testing.F) {
	for _, s := range []string{"hi\ntouch x", "a\\\nb", "'\"`$(){}!;&|<>", "\x1b[201~\r\n", "é\u2028x"} {
		f.Add(s, false, false)
	}
	f.Fuzz(func(t *testing.T, text string, null, ascii bool) {
		style := HashComment
		if null {
			style = NullCommand
		}
		got := ShellComment(style, text, ascii)
		if strings.ContainsAny(got, "\n\r") || !Safe(got) {
			t.Fatalf("not one safe line: %q", got)
		}
		inner := strings.TrimPrefix(got, " # ")
		if null {
			inner = strings.TrimSuffix(strings.TrimPrefix(got, " : '"), "'")
		}
		if len(inner) == len(got) || strings.ContainsAny(inner, ";&|<>(){}$`'\"\\!") {
			t.Fatalf("%q holds shell syntax", got)
		}
		if ascii && strings.ContainsFunc(got, func(r rune) bool { return r > 0x7e }) {
			t.Fatalf("%q is not ASCII", got)
		}
	})
}
