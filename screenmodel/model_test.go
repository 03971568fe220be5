package screenmodel

import (
	"strings"
	"testing"
)

// frame makes a frame of rows with the cursor at the first "▮" (which
// is taken out), shown.
func frame(rows ...string) Frame {
	f := Frame{CursorVisible: true}
	for y, r := range rows {
		if i := strings.Index(r, "▮"); i >= 0 {
			f.CursorRow, f.CursorCol = y, len([]rune(r[:i]))
			r = r[:i] + r[i+len("▮"):]
		}
		f.Rows = append(f.Rows, strings.TrimRight(r, " "))
	}
	return f
}

func TestInputBoxes(t *testing.T) {
	t.Parallel()
	rule := strings.Repeat("─", 40)
	for _, tc := range []struct {
		kind  string
		f     Frame
		state State
		input string
	}{
		{"codex", frame("› hello", "", "› ▮", "", "  ? for shortcuts"), Prompt, ""},
		{"codex", frame("", "› half typed▮", "", "  ? for shortcuts"), Prompt, "half typed"},
		{"codex", frame("", "› line one", "  line two▮"), Prompt, "line one\nline two"},
		// A placeholder after the cursor is not typed.
		{"codex", frame("", "› ▮Ask Codex to do anything"), Prompt, ""},
		{"codex", frame("", "! ▮", "", "  Shell mode"), ShellMode, ""},
		{"claude", frame(rule, "❯ ▮", rule), Prompt, ""},
		{"claude", frame(rule, "❯ line one", "  line two▮", rule), Prompt, "line one\nline two"},
		{"claude", frame(rule, "! ls -la▮", rule, "  ! for shell mode"), ShellMode, "ls -la"},
		// A prompt in Claude Code's transcript is not its input.
		{"claude", frame("❯ /mcp", "  ⎿  No MCP servers", "", "  something▮"), Unknown, ""},
		{"gemini", frame(rule, " Shift+Tab to accept edits", "", " > ▮  Type your message"), Prompt, ""},
		{"gemini", frame("", " ! cat gemini.txt▮", "", " workspace"), ShellMode, "cat gemini.txt"},
		{"opencode", frame("  ┃", "  ┃  ▮Ask anything", "  ┃", "  ┃  Build · GPT", "  ╹▀▀▀▀▀▀▀▀"), Prompt, ""},
		{"opencode", frame("  ┃", "  ┃  hello▮", "  ┃", "  ┃  Build · GPT", "  ╹▀▀▀▀▀▀▀▀"), Prompt, "hello"},
		// opencode's transcript has the gutter too, but no box's bottom.
		{"opencode", frame("  ┃", "  ┃  hello▮", "  ┃", "", "     ▣  Build"), Unknown, ""},
		// Codex hides the cursor in its pickers: a "›" there is a pointer.
		{"codex", Frame{Rows: []string{"", "› 1. GPT-6", "  2. GPT-5"}, CursorRow: 1, CursorCol: 2}, Unknown, ""},
	} {
		got := For(tc.kind).Read(tc.f)
		if got.State != tc.state || got.Input != tc.input || got.Typed != (tc.input != "") {
			t.Errorf("%s %q: read %v input %q typed %v, want %v %q", tc.kind, tc.f.Rows, got.State, got.Input, got.Typed, tc.state, tc.input)
		}
		if got.State == Prompt && !got.TakesInput || got.State != Prompt && got.TakesInput {
			t.Errorf("%s %q: %v takes input %v", tc.kind, tc.f.Rows, got.State, got.TakesInput)
		}
	}
}

func TestShellAndReaders(t *testing.T) {
	t.Parallel()
	prompt := frame("user@host:~$ ls", "a b", "user@host:~$ ▮")
	if r := For("shell").Read(prompt); r.State != ShellMode || r.Typed || r.TakesInput {
		t.Errorf("a shell at its prompt reads %+v", r)
	}
	typed := frame("user@host:~$ rm -r▮")
	if r := For("shell").Read(typed); r.State != ShellMode || r.Input != "rm -r" {
		t.Errorf("a shell with a half-typed command reads %+v", r)
	}
	running := frame("user@host:~$ sleep 9", "▮")
	running.LineMode = true
	if r := For("shell").Read(running); r.State != Busy || r.TakesInput {
		t.Errorf("a shell running a command reads %+v", r)
	}
	// dash has no line editor: at its prompt the terminal is in line mode.
	dash := prompt
	dash.LineMode = true
	if r := For("shell").Read(dash); r.State != ShellMode || r.TakesInput {
		t.Errorf("a shell without a line editor at its prompt reads %+v", r)
	}
	if r := For("shell").Read(frame("compiling…", "▮")); r.State != Unknown || r.What == "" {
		t.Errorf("a shell's unknown screen reads %+v", r)
	}
	// A program swarm knows nothing of is a line reader.
	lines := frame("name? ▮")
	lines.LineMode = true
	if r := For("").Read(lines); r.State != Prompt || !r.TakesInput {
		t.Errorf("a line reader reads %+v", r)
	}
	lines.LineMode = false
	if r := For("").Read(lines); r.State != Unknown || r.TakesInput || !strings.Contains(r.What, "keys") {
		t.Errorf("a program reading keys reads %+v", r)
	}
	for _, k := range []string{"editor", "viewer", "crush"} {
		if r := For(k).Read(frame("~", "▮")); r.State != Unknown || r.What == "" {
			t.Errorf("%s reads %+v", k, r)
		}
	}
}

// TestDialogsTakeThePromptsPlace: phrases of a dialog that takes the
// input's place do not count while an input shows (a transcript quoting
// them), and a busy screen's phrase counts near the input only.
func TestPhrasesWhereTheyShow(t *testing.T) {
	t.Parallel()
	rule := strings.Repeat("─", 40)
	quoted := frame("● Claude said: Yes, I trust this folder", "", rule, "❯ ▮", rule)
	if r := For("claude").Read(quoted); r.State != Prompt {
		t.Errorf("a transcript quoting a dialog reads %+v", r)
	}
	// A picker whose selection glyph is the prompt's, the cursor on it:
	// typed into, Enter would pick "Sign in with ChatGPT".
	picker := frame("  Welcome to Codex", "", "› 1. Sign in with ChatGPT▮", "  2. Provide your own API key")
	if r := For("codex").Read(picker); r.State != Dialog || r.TakesInput {
		t.Errorf("a sign-in picker with the cursor on its choice reads %+v", r)
	}
	far := []string{"the log says esc to interrupt"}
	for range 10 {
		far = append(far, "")
	}
	far = append(far, "› ▮")
	if r := For("codex").Read(frame(far...)); r.State != Prompt {
		t.Errorf("a busy phrase far above the input reads %+v", r)
	}
	busy := frame("• Working (3s • esc to interrupt)", "", "› ▮")
	if r := For("codex").Read(busy); r.State != Busy || !r.TakesInput || r.What != "Codex is working on a turn" {
		t.Errorf("codex at work reads %+v", r)
	}
	busyTyped := frame("• Working (3s • esc to interrupt)", "", "› more▮")
	if r := For("codex").Read(busyTyped); r.State != Busy || !r.Typed {
		t.Errorf("codex at work with text typed reads %+v", r)
	}
}
