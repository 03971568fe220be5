package screenmodel

import "strings"

// The models of the kinds swarm knows. Each screen names the version of
// the program it was seen in; its recordings are
// testdata/screens/KIND-STATE-NAME*.cast (README there), and
// TestRecordedScreens classifies the last screen of each.

const (
	claudeSeen   = "Claude Code 2.1.332"
	codexSeen    = "Codex 0.171.0"
	geminiSeen   = "Gemini CLI 0.61.0"
	opencodeSeen = "opencode 1.18.33"
	bashSeen     = "bash 5.2"
)

// Claude Code: fullscreen (alternate screen) by default, or Ink on the
// main screen; its input is "❯ " between two rules, "! " in its shell
// mode; it keeps the terminal's cursor hidden and draws its own. Its
// queue takes a message while a turn runs ("Queued").
var claude = &Model{
	Kind: "claude", Program: "Claude Code",
	Input:          &InputBox{Glyphs: []string{"❯"}, ShellGlyphs: []string{"!"}, RuleAbove: true},
	BusyTakesInput: true,
	Screens: []Screen{
		{Name: "trust", State: Dialog, What: "asks whether to trust this folder", Seen: claudeSeen,
			Where: NoInput, All: []string{"Yes, I trust this folder"}},
		{Name: "apikey", State: Dialog, What: "asks whether to use the API key in its environment", Seen: claudeSeen,
			Where: NoInput, All: []string{"Do you want to use this API key?"}},
		{Name: "mcp", State: Dialog, What: "shows its MCP servers menu (/mcp)", Seen: claudeSeen,
			Where: NoInput, All: []string{"MCP servers", "Esc to close"}},
		{Name: "commands", State: Dialog, What: "shows its / command menu", Seen: claudeSeen,
			Where: NearInput, Any: []string{"❯ /"}},
		{Name: "busy", State: Busy, What: "is working on a turn", Seen: claudeSeen,
			Where: NearInput, All: []string{"esc to interrupt"}},
	},
}

// Codex: alternate screen by default, or inline; its input is "› ", "! "
// in its shell mode; the cursor shows at its prompt and hides in its
// pickers and first screens. A message typed while a turn runs joins it.
var codex = &Model{
	Kind: "codex", Program: "Codex",
	Input:          &InputBox{Glyphs: []string{"›"}, ShellGlyphs: []string{"!"}, CursorShown: true},
	BusyTakesInput: true,
	Screens: []Screen{
		{Name: "signin", State: Dialog, What: "asks how to sign in", Seen: codexSeen,
			Where: NoInput, All: []string{"Sign in with ChatGPT"}},
		{Name: "apikey", State: Dialog, What: "asks for an API key", Seen: codexSeen,
			Where: NoInput, All: []string{"Paste or type your API key"}},
		{Name: "trust", State: Dialog, What: "asks whether to trust this folder", Seen: codexSeen,
			Where: NoInput, All: []string{"Trust this folder?"}},
		{Name: "model", State: Dialog, What: "shows its model picker (/model)", Seen: codexSeen,
			Where: NoInput, All: []string{"Select Model"}},
		{Name: "commands", State: Dialog, What: "shows its / command menu", Seen: codexSeen,
			Where: NearInput, Any: []string{"› /"}},
		{Name: "busy", State: Busy, What: "is working on a turn", Seen: codexSeen,
			Where: NearInput, All: []string{"esc to interrupt"}},
	},
}

// Gemini CLI: main screen; its input is " > ", " ! " in its persistent
// shell mode; it keeps the terminal's cursor hidden. Its first screens
// are boxes that take the input's place. Its queue takes a message while
// a turn runs ("Queued").
var gemini = &Model{
	Kind: "gemini", Program: "Gemini CLI",
	Input:          &InputBox{Glyphs: []string{">"}, ShellGlyphs: []string{"!"}},
	BusyTakesInput: true,
	Screens: []Screen{
		{Name: "trust", State: Dialog, What: "asks whether to trust this folder", Seen: geminiSeen,
			Where: NoInput, All: []string{"Do you trust the files in this folder?"}},
		{Name: "auth", State: Dialog, What: "asks how to sign in", Seen: geminiSeen,
			Where: NoInput, All: []string{"How would you like to authenticate"}},
		{Name: "apikey", State: Dialog, What: "asks for an API key", Seen: geminiSeen,
			Where: NoInput, All: []string{"Enter Gemini API Key"}},
		{Name: "commands", State: Dialog, What: "shows its / command menu", Seen: geminiSeen,
			Where: NearInput, Any: []string{" > /"}},
		{Name: "busy", State: Busy, What: "is working on a turn", Seen: geminiSeen,
			Where: NearInput, All: []string{"esc to cancel"}},
	},
}

// opencode: alternate screen; its input is a box of rows behind a "┃"
// gutter closed by a "╹▀▀" row, with the agent's name under the text
// ("Shell" in its shell mode); the cursor shows in it. Its queue takes a
// message while a turn runs ("QUEUED").
var opencode = &Model{
	Kind: "opencode", Program: "opencode",
	Input:          &InputBox{Gutter: "┃", Bottom: "╹", CursorShown: true},
	BusyTakesInput: true,
	Screens: []Screen{
		{Name: "shell", State: ShellMode, What: "is in its shell mode: what is typed runs as a command", Seen: opencodeSeen,
			Where: NearInput, All: []string{"exit shell mode"}},
		{Name: "commands", State: Dialog, What: "shows its / command menu", Seen: opencodeSeen,
			Where: NearInput, Any: []string{"┃  /"}},
		{Name: "busy", State: Busy, What: "is working on a turn", Seen: opencodeSeen,
			Where: NearInput, Any: []string{"esc interrupt", "[retrying"}},
		{Name: "palette", State: Dialog, What: "shows its command palette (ctrl+p)", Seen: opencodeSeen,
			Where: NoInput, All: []string{"Commands", "Search", "Suggested"}},
	},
}

// aider could not be run where these models were made (it installs from
// PyPI only): what is here is its prompt_toolkit prompt as documented,
// "> " (or "MODE> ") on the cursor's row, and its yes/no questions.
var aider = &Model{
	Kind: "aider", Program: "aider",
	Input: &InputBox{Glyphs: []string{">", "ask>", "code>", "architect>", "context>", "help>", "multi>"}},
	Screens: []Screen{
		{Name: "confirm", State: Dialog, What: "asks a yes/no question", Seen: "not recorded (aider documentation)",
			Where: OnScreen, Any: []string{"(Y)es/(N)o"}},
	},
}

// crush could not be run where these models were made (its npm package
// downloads its binary at install): no screen of it is known, and so
// none is typed into.
var crush = &Model{
	Kind: "crush", Program: "crush",
	Otherwise: "shows a screen swarm has not learnt (crush's screens are not known yet)",
}

// A shell: at its prompt what is typed runs as a command; while a command
// runs the terminal is usually back in line mode, and what is typed is
// that command's input. A shell without a line editor (dash, a plain sh)
// reads its own commands in line mode too: its prompt on the cursor's
// row tells it from a command's input.
var shell = &Model{
	Kind: "shell", Program: "the shell",
	classify: func(f Frame) (Reading, bool) {
		if atShellPrompt(f) {
			return Reading{State: ShellMode, What: "the shell is at its prompt: what is typed runs as a command",
				Screen: "shell/prompt", Typed: afterShellPrompt(f) != "", Input: afterShellPrompt(f)}, true
		}
		if f.LineMode {
			return Reading{State: Busy, What: "the shell runs a command", Screen: "shell/command"}, true
		}
		return Reading{}, false
	},
}

// shellPromptEnds end the prompts of shells: bash's and sh's "$ " and
// "# ", zsh's "% ", fish's and others' "> ", and the glyphs of themed
// prompts.
var shellPromptEnds = []string{"$ ", "# ", "% ", "> ", "❯ ", "➜ ", "λ "}

// atShellPrompt: the cursor's row shows a shell prompt before the cursor
// (and perhaps a half-typed command after the prompt).
func atShellPrompt(f Frame) bool { return shellPromptAt(f) >= 0 }

func shellPromptAt(f Frame) int {
	if f.CursorRow < 0 || f.CursorRow >= len(f.Rows) {
		return -1
	}
	before := cut(f.Rows[f.CursorRow], f.CursorCol) + " "
	// The prompt ends at the first prompt end on the row (a typed command
	// may hold another).
	at, end := -1, -1
	for _, e := range shellPromptEnds {
		if i := strings.Index(before, e); i >= 0 && (at < 0 || i < at) {
			at, end = i, i+len(e)
		}
	}
	return end
}

func afterShellPrompt(f Frame) string {
	i := shellPromptAt(f)
	before := cut(f.Rows[f.CursorRow], f.CursorCol)
	if i < 0 || i > len(before) {
		return ""
	}
	return strings.TrimSpace(before[i:])
}

// A program reading lines: while the terminal is in line mode the kernel
// takes a line for it; a program that reads keys instead is not known.
var reader = &Model{
	Kind: "reader", Program: "the program", ModeOnly: true,
	classify: func(f Frame) (Reading, bool) {
		if f.LineMode {
			return Reading{State: Prompt, TakesInput: true, Screen: "reader/line"}, true
		}
		return Reading{}, false
	},
	Otherwise: "reads keys, not lines: swarm does not know its screens",
}

var editor = &Model{
	Kind: "editor", Program: "the editor",
	Otherwise: "shows a file: keys typed edit it",
}

var viewer = &Model{
	Kind: "viewer", Program: "the viewer",
	Otherwise: "shows a page: keys typed drive it",
}

// Models are the kinds' models.
var Models = []*Model{claude, codex, gemini, opencode, aider, crush, shell, reader, editor, viewer}

// For returns the model of a profile kind; a kind with none (a program
// swarm knows nothing of) gets the line reader's.
func For(kind string) *Model {
	for _, m := range Models {
		if m.Kind == kind {
			return m
		}
	}
	return reader
}
