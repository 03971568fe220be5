package screenmodel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Frame is what the model reads of a program's terminal at one moment.
type Frame struct {
	// Rows are the visible rows as plain text, trailing blanks trimmed.
	Rows []string
	// CursorRow and CursorCol are where the cursor is (0-based cells).
	CursorRow, CursorCol int
	// CursorVisible: the program shows the terminal's cursor.
	CursorVisible bool
	// AltScreen: the program draws on the alternate screen.
	AltScreen bool
	// LineMode: the terminal is in canonical mode with echo, so the kernel
	// edits a line for the program (one that reads lines).
	LineMode bool
}

// State is what a program shows, as far as typing a message goes.
type State int

const (
	// Unknown: a screen the model does not know. Nothing is typed into it.
	Unknown State = iota
	// Prompt: its input takes a message (empty, or with a person's
	// half-typed line: Reading.Typed).
	Prompt
	// Busy: a turn is in progress; Reading.TakesInput says whether its
	// own queue takes a message typed now.
	Busy
	// Dialog: a trust, sign-in, API-key, permission or confirmation
	// screen, a menu or a picker: keys answer it.
	Dialog
	// ShellMode: what is typed runs as a shell command (the CLI's own `!`
	// mode, or a shell at its prompt).
	ShellMode
)

var stateNames = [...]string{"unknown", "prompt", "busy", "dialog", "shell mode"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Reading is what a kind's model reads from a frame.
type Reading struct {
	State State
	// Typed: the input holds text before the cursor (a person's
	// half-typed line, or a message not yet submitted).
	Typed bool
	// Input is what the input shows before the cursor, its prompt glyph,
	// gutter and indents left out, rows joined with newlines; "" when no
	// input shows.
	Input string
	// TakesInput: a message typed now is taken (at a prompt; while busy,
	// where the kind's queue takes it).
	TakesInput bool
	// What says what the program shows, for a person: "Claude Code asks
	// whether to trust this folder". Empty at an ordinary prompt.
	What string
	// Screen names the known screen that matched ("claude/trust"), or
	// "KIND/prompt"; empty for an unknown screen.
	Screen string
}

// Model is what swarm knows of one kind of program's screens.
type Model struct {
	// Kind is the profile kind it serves: "claude", "shell", "reader"…
	Kind string
	// Program names the program for a person: "Claude Code".
	Program string
	// Input is how its input box looks; nil for programs with none.
	Input *InputBox
	// BusyTakesInput: while a turn runs, a message typed and submitted
	// waits in the program's own queue (and shows there) or joins the
	// turn: it may be typed then.
	BusyTakesInput bool
	// Screens are its known screens, tried in order.
	Screens []Screen
	// Otherwise says what an unknown screen of the program is, for a
	// person ("vim shows a file"); empty: "shows a screen swarm does not
	// know".
	Otherwise string
	// ModeOnly: the model reads the terminal's mode alone (a line
	// reader's), not its rows: any frame, whole or half drawn, will do.
	ModeOnly bool
	// classify, when set, reads frames that phrases cannot: a shell's
	// prompt, a line reader's terminal mode.
	classify func(Frame) (Reading, bool)
}

// InputBox is how an agent CLI draws its input: a prompt glyph on the
// first row (another in its shell mode), continuation rows indented,
// perhaps a gutter on every row, bounded by borders.
type InputBox struct {
	// Glyphs start the input's first row at its prompt (after blanks and
	// the gutter).
	Glyphs []string
	// ShellGlyphs start it in the CLI's shell mode.
	ShellGlyphs []string
	// Gutter starts every row of the box (opencode's "┃"); the box is
	// the run of such rows around the cursor.
	Gutter string
	// Bottom starts the row that closes the box (opencode's "╹▀"), which
	// must follow the cursor's row within a few rows; "" for none.
	Bottom string
	// RuleAbove: a rule (a row of box-drawing characters) is right above
	// the input's first row (Claude Code's box), which tells it from the
	// prompts in the transcript.
	RuleAbove bool
	// CursorShown: the program shows the cursor at its prompt, and hides
	// it in its pickers (Codex, opencode); Claude Code and Gemini CLI
	// draw their own cursor and keep the terminal's hidden.
	CursorShown bool
}

// Where says which rows a screen's phrases are looked for in.
type Where int

const (
	// OnScreen: any visible row.
	OnScreen Where = iota
	// NearInput: the input's rows, the few rows above them and every row
	// below (spinners, footers, popups); only when an input shows.
	NearInput
	// NoInput: any visible row, when no input shows (a dialog that takes
	// the input's place).
	NoInput
)

// Screen is one known screen of a program: the phrases that tell it,
// where they show, and what it is.
type Screen struct {
	// Name names it within its kind: "trust", "mcp", "retrying".
	Name  string
	State State
	// What it shows, after the program's name: "asks whether to trust
	// this folder".
	What string
	// Seen is the program's version it was seen in, recorded in
	// testdata/screens/KIND-STATE-NAME*.cast.
	Seen  string
	Where Where
	// All must show, each in one row; Any, when set, at least one.
	All, Any []string
}

// aboveInput is how many rows above an input belong to it: a spinner, a
// status line, a queue.
const aboveInput = 6

// Read classifies a frame.
func (m *Model) Read(f Frame) Reading {
	if m.classify != nil {
		if r, ok := m.classify(f); ok {
			return r
		}
	}
	in, ok := m.findInput(f)
	for _, s := range m.Screens {
		rows := f.Rows
		switch s.Where {
		case NearInput:
			if !ok {
				continue
			}
			rows = f.Rows[max(in.top-aboveInput, 0):]
		case NoInput:
			// Where something reads as an input box, a dialog's phrases
			// in it still make it the dialog: a picker's "› 1. Sign in
			// with ChatGPT" with the cursor on it is no prompt (above it,
			// in the transcript, they are a quote).
			if ok {
				if s.State != Dialog || in.top > f.CursorRow {
					continue
				}
				rows = f.Rows[in.top : f.CursorRow+1]
			}
		}
		if !s.matches(rows) {
			continue
		}
		r := Reading{State: s.State, What: m.Program + " " + s.What, Screen: m.Kind + "/" + s.Name}
		if ok && s.State != Dialog {
			r.Input, r.Typed = in.text, in.text != ""
		}
		if s.State == Busy && m.BusyTakesInput && ok && !in.shell {
			r.TakesInput = true
		}
		return r
	}
	if ok {
		r := Reading{State: Prompt, Input: in.text, Typed: in.text != "", TakesInput: true, Screen: m.Kind + "/prompt"}
		if in.shell {
			r = Reading{State: ShellMode, Input: in.text, Typed: in.text != "", Screen: m.Kind + "/shell",
				What: m.Program + " is in its shell mode: what is typed runs as a command"}
		}
		return r
	}
	what := m.Otherwise
	if what == "" {
		what = "shows a screen swarm does not know"
	}
	return Reading{State: Unknown, What: m.Program + " " + what}
}

func (s Screen) matches(rows []string) bool {
	for _, p := range s.All {
		if !anyRowHas(rows, p) {
			return false
		}
	}
	if len(s.Any) == 0 {
		return true
	}
	for _, p := range s.Any {
		if anyRowHas(rows, p) {
			return true
		}
	}
	return false
}

func anyRowHas(rows []string, p string) bool {
	for _, r := range rows {
		if strings.Contains(r, p) {
			return true
		}
	}
	return false
}

// input is an input box found around the cursor.
type input struct {
	top   int    // its first row
	text  string // what it holds before the cursor
	shell bool   // it starts with a shell glyph
}

// maxInputRows bounds how far above the cursor an input's first row is
// looked for.
const maxInputRows = 40

// findInput finds the input box the cursor is in.
func (m *Model) findInput(f Frame) (input, bool) {
	b := m.Input
	if b == nil || f.CursorRow < 0 || f.CursorRow >= len(f.Rows) {
		return input{}, false
	}
	if b.CursorShown && !f.CursorVisible {
		return input{}, false
	}
	if b.Bottom != "" && !bottomBelow(f, b.Bottom) {
		return input{}, false
	}
	if b.Gutter != "" {
		return gutterBox(f, b.Gutter)
	}
	var parts []string // rows' text, last row first
	for y := f.CursorRow; y >= 0 && y > f.CursorRow-maxInputRows; y-- {
		t := strings.TrimLeft(f.Rows[y], " \u00a0")
		if y == f.CursorRow {
			t = strings.TrimLeft(cut(f.Rows[y], f.CursorCol), " \u00a0")
		}
		if border(t) && y != f.CursorRow {
			return input{}, false
		}
		if b.RuleAbove && (y == 0 || !border(f.Rows[y-1])) {
			parts = append(parts, strings.TrimSpace(t))
			continue
		}
		for _, g := range b.ShellGlyphs {
			if rest, ok := glyphed(t, g); ok {
				return input{top: y, text: joinUp(append(parts, rest)), shell: true}, true
			}
		}
		for _, g := range b.Glyphs {
			if rest, ok := glyphed(t, g); ok {
				return input{top: y, text: joinUp(append(parts, rest))}, true
			}
		}
		parts = append(parts, strings.TrimSpace(t))
	}
	return input{}, false
}

// gutterBox finds an input drawn as a run of rows that start with a
// gutter, the cursor's row among them.
func gutterBox(f Frame, gutter string) (input, bool) {
	var parts []string
	top := -1
	for y := f.CursorRow; y >= 0 && y > f.CursorRow-maxInputRows; y-- {
		t := strings.TrimLeft(f.Rows[y], " \u00a0")
		if y == f.CursorRow {
			t = strings.TrimLeft(cut(f.Rows[y], f.CursorCol), " \u00a0")
		}
		rest, ok := strings.CutPrefix(t, gutter)
		if !ok {
			break
		}
		parts = append(parts, strings.TrimSpace(rest))
		top = y
	}
	if top < 0 {
		return input{}, false
	}
	return input{top: top, text: joinUp(parts)}, true
}

// glyphed reports whether t starts with the prompt glyph g followed by a
// blank or nothing, and returns what follows.
func glyphed(t, g string) (string, bool) {
	rest, ok := strings.CutPrefix(t, g)
	if !ok {
		return "", false
	}
	if rest != "" && rest[0] != ' ' && !strings.HasPrefix(rest, "\u00a0") {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// joinUp joins rows collected from the bottom up, blank rows at the ends
// left out.
func joinUp(parts []string) string {
	var rows []string
	for i := len(parts) - 1; i >= 0; i-- {
		rows = append(rows, strings.TrimRight(parts[i], " "))
	}
	return strings.Trim(strings.Join(rows, "\n"), "\n ")
}

// bottomBelow reports whether a row starting with bottom follows the
// cursor's row within a few rows.
func bottomBelow(f Frame, bottom string) bool {
	for y := f.CursorRow + 1; y < len(f.Rows) && y <= f.CursorRow+aboveInput; y++ {
		if strings.HasPrefix(strings.TrimLeft(f.Rows[y], " "), bottom) {
			return true
		}
	}
	return false
}

// cut returns the part of row before cell col (cells, not bytes: a wide
// character takes two).
func cut(row string, col int) string {
	w := 0
	for i, r := range row {
		if w >= col {
			return row[:i]
		}
		w += runeWidth(r)
	}
	return row
}

// runeWidth is the cells a rune takes: two for East Asian wide ones.
func runeWidth(r rune) int {
	if r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) || (r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe6f) || (r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) || (r >= 0x1f300 && r <= 0x1faff) || (r >= 0x20000 && r <= 0x3fffd)) {
		return 2
	}
	return 1
}

// border reports whether a row shows only box-drawing and block
// characters (a rule, a box's edge): no text.
func border(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	for len(t) > 0 {
		r, n := utf8.DecodeRuneInString(t)
		t = t[n:]
		if !(r >= 0x2500 && r <= 0x259f) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
