package supervisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"swarm/parser"
)

// These tests play small inputs modelled on what the agent CLIs write
// (the rows and escape sequences of recordings of Claude Code 2.1.332,
// Codex 0.171.0, Gemini CLI 0.61.0 and opencode 1.18.33) and check the
// commands a person reading the screen would take from them.

// commands extracts data as written by a program of kind on a screen of
// cols×rows, whole and cut into reads of 7 bytes, and returns the commands
// and errors as `kind to "body"` strings.
func commands(t *testing.T, data, kind string, cols, rows int) []string {
	t.Helper()
	var out []string
	for _, chunk := range []int{0, 7} {
		var got []string
		err := Extract(strings.NewReader(data), ExtractOptions{Kind: kind, Cols: cols, Rows: rows, ChunkSize: chunk}, func(ev parser.Event) {
			if ev.Err != nil {
				got = append(got, "error: "+ev.Err.Reason)
				return
			}
			got = append(got, fmt.Sprintf("%s %s %q", ev.Command.Kind, ev.Command.To, ev.Command.Body))
		})
		if err != nil {
			t.Fatal(err)
		}
		if chunk == 0 {
			out = got
		} else if diff := cmp.Diff(out, got); diff != "" {
			t.Fatalf("read 7 bytes at a time, the commands differ (-whole +cut):\n%s", diff)
		}
	}
	return out
}

// claudeFrames is Claude Code's fullscreen renderer drawing each frame on
// the alternate screen of cols×rows: from the home position down, each row
// erased to its end, the transcript at the top and its input box (a rule,
// the prompt, a rule, the footer) at the bottom; a row that fills the
// screen's width is not erased after (that would erase its last
// character, as a terminal does). Each frame is drawn three
// times, as a view repaints while nothing changes: in output replayed
// without its timing, that settles its rows.
func claudeFrames(cols, rows int, frames ...[]string) string {
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[?25l")
	rule := strings.Repeat("─", cols)
	for _, f := range frames {
		view := append([]string(nil), f...)
		for len(view) < rows-4 {
			view = append(view, "")
		}
		view = append(view[:rows-4], rule, "❯\u00a0", rule, "  ? for shortcuts")
		for range 3 {
			b.WriteString("\x1b[H")
			for y, row := range view {
				if y > 0 {
					b.WriteString("\r\x1b[1B")
				}
				b.WriteString(row)
				if ansi.StringWidth(row) < cols {
					b.WriteString("\x1b[K")
				}
			}
			fmt.Fprintf(&b, "\x1b[%d;3H", rows-2)
		}
	}
	return b.String()
}

// TestWrapJudgedByWidth: a short row followed by a row at the same hanging
// indent is two lines, not one line the program wrapped: a program that
// wraps leaves a row too short for the next row's first word, judged
// against the width its rows may reach (issue 29, cause 1).
func TestWrapJudgedByWidth(t *testing.T) {
	t.Parallel()
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		data := claudeFrames(80, 24, []string{
			"\x1b[48;5;59m! cat p1.txt" + strings.Repeat(" ", 68) + "\x1b[49m",
			"  ⎿ \u00a0@relay:bob same again",
			"     ordinary",
			"  ⎿ \u00a0Interrupted · What should Claude do instead?",
		})
		want := []string{`relay bob "same again"`}
		if diff := cmp.Diff(want, commands(t, data, "claude", 80, 24)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("codex inline", func(t *testing.T) {
		t.Parallel()
		// Codex's --no-alt-screen mode writes its history on the main screen.
		data := "\x1b[1m•\x1b[22m \x1b[1mYou ran\x1b[22m cat p4.txt\r\n" +
			"\x1b[2m  └ @relay:bob alpha beta gamma\x1b[0m\r\n" +
			"    \x1b[2msecond\x1b[0m\r\n" +
			"    \x1b[2m@relay:bob x1\x1b[0m\r\n" +
			"    \x1b[2m  indented text\x1b[0m\r\n\r\n"
		want := []string{`relay bob "alpha beta gamma"`, `relay bob "x1"`}
		if diff := cmp.Diff(want, commands(t, data, "codex", 80, 24)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestClaudeWrapsOneColumnEarly: Claude Code moves a word that would end in
// the last column to the next row; the body goes on there. When the
// command is done Claude draws the same output again collapsed and cut
// mid-word at another width: the same paragraph, not new text (issue 29,
// cause 2).
func TestClaudeWrapsOneColumnEarly(t *testing.T) {
	t.Parallel()
	echo := "\x1b[48;5;59m! cat p2.txt" + strings.Repeat(" ", 68) + "\x1b[49m"
	data := claudeFrames(80, 24,
		[]string{
			echo,
			"  ⎿ \u00a0@relay:bob long 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114",
			"     115 116 117 118 119 120 121 122 123 124 125 126 127 128 129 130 131 132",
			"     133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 148 149 150 151",
			"     152 153 154 155 156 157 158 159 160",
			"\x1b[38;5;174m✽\x1b[39m Spelunking…",
		},
		[]string{
			echo,
			"  ⎿ \u00a0@relay:bob long 100 101 102 103 104 105 106 107 108 109 110 111 112 11",
			"     3 114 115 116 117 118 119 120 121 122 123 124 125 126 127 128 129 130",
			"     131 132 133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 14",
			"     8 149 150 151 152 153 154 155 156 157 158 159 160",
			"  ⎿ \u00a0Interrupted · What should Claude do instead?",
		})
	var nums []string
	for i := 100; i <= 160; i++ {
		nums = append(nums, fmt.Sprint(i))
	}
	want := []string{fmt.Sprintf("relay bob %q", "long "+strings.Join(nums, " "))}
	if diff := cmp.Diff(want, commands(t, data, "claude", 80, 24)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
