package screenmodel

import (
	"slices"
	"testing"
)

func TestWrapAt(t *testing.T) {
	for _, c := range []struct {
		kind       string
		cols, want int
	}{
		{"claude", 80, 79}, // a word that would end in the last column goes to the next row
		{"codex", 80, 80},
		{"", 80, 0},      // a program of no known kind: not known
		{"vim", 80, 0},   // a kind with no layout facts
		{"claude", 1, 1}, // never below one column
	} {
		if got := Of(c.kind).WrapAt(c.cols); got != c.want {
			t.Errorf("Of(%q).WrapAt(%d) = %d, want %d", c.kind, c.cols, got, c.want)
		}
	}
	if l := Of("claude"); l.Kind != "claude" || l.Version == "" {
		t.Errorf("Of(claude) = %+v: want its kind and the version its facts were seen in", l)
	}
}

func TestInputBox(t *testing.T) {
	rule := "────────────────────"
	for _, c := range []struct {
		name     string
		kind     string
		rows     []string
		cursor   int
		top, bot int
		ok       bool
	}{
		{"claude between rules", "claude", []string{"⏺ done", "", rule, "! echo a very long", "  command", rule, "  ? for shortcuts"}, 4, 3, 4, true},
		{"codex composer and the footer under it", "codex", []string{"• You ran x", "", "› typed", "", "  footer"}, 2, 2, 4, true},
		{"the cursor on an empty row under what is typed", "gemini", []string{"", " > typed", "", ""}, 2, 1, 2, true},
		{"no box for a program of no known kind", "", []string{"$ ls", "a b"}, 1, 0, 0, false},
		{"cursor off the screen", "claude", []string{"x"}, 3, 0, 0, false},
	} {
		top, bot, ok := Of(c.kind).InputBox(c.rows, c.cursor)
		if top != c.top || bot != c.bot || ok != c.ok {
			t.Errorf("%s: InputBox = %d, %d, %v; want %d, %d, %v", c.name, top, bot, ok, c.top, c.bot, c.ok)
		}
	}
}

func TestEchoes(t *testing.T) {
	for _, c := range []struct {
		kind, start, cont string
		continues         bool
	}{
		{"claude", "! echo padding-pad", "  @relay:bob typed out", true},
		{"claude", "! cat f", "  ⎿  @relay:bob output", false}, // the command's output
		{"claude", "❯ hello", "  there", true},
		{"codex", "• You ran echo a", "  │ @relay:bob typed", true},
		{"codex", "• You ran echo a", "  └ @relay:bob output", false},
		{"gemini", " $ echo a", "   @relay:bob typed", true},
		{"gemini", " $ echo a", "    indented more", false},
		{"gemini", " $ echo a", "  @relay:bob under two blanks", false},
		// A command that wraps may squeeze out the blank after the mark.
		{"gemini", " $: f; printf '%s\\n' 'alpha", "  bravo charlie'", true},
		{"gemini", " $: f; printf '%s\\n' 'alpha", "   indented more", false},
		{"opencode", "  ┃  $ echo a", "  ┃  @relay:bob typed", true},
		{"opencode", "  ┃  $ echo a", "  ┃", false},
	} {
		e, ok := Of(c.kind).EchoStart(c.start)
		if !ok {
			t.Errorf("%s: %q starts no echo", c.kind, c.start)
			continue
		}
		if got := e.Continues(c.cont); got != c.continues {
			t.Errorf("%s: %q after %q continues it: %v, want %v", c.kind, c.cont, c.start, got, c.continues)
		}
	}
	for _, row := range []string{"@relay:bob hi", "  ⎿  output", "$ ls"} {
		if _, ok := Of("claude").EchoStart(row); ok {
			t.Errorf("claude: %q starts an echo", row)
		}
	}
	if _, ok := Of("").EchoStart("❯ hello"); ok {
		t.Error("a program of no known kind has echoes")
	}
}

func TestPreview(t *testing.T) {
	screen := []string{
		"! cat f1.txt",                       // 0
		"  ⎿  [[RELAY]]",                     // 1
		"     {",                             // 2
		"     … +6 lines (ctrl+o to expand)", // 3
		"",                                   // 4
		"! sh f2.sh",                         // 5
		"     latest row",                    // 6
		"     … +12 lines (3s)",              // 7
		"     (ctrl+b to run in background)", // 8
		"     … +3 lines",                    // 9: no gutter above it: the rows under the echo
		"     … +n lines (1s)",               // 10: no count
		"  ⎿  … +1 line (ctrl+o to expand)",  // 11: the gutter on the marker itself
		"     output that says … +2 lines (1s) too", // 12
	}
	for _, c := range []struct {
		y, top      int
		running, ok bool
	}{
		{0, 0, false, false}, {2, 0, false, false}, {3, 1, false, true}, {7, 6, true, true},
		{8, 0, false, false}, {9, 6, false, true}, {10, 0, false, false}, {11, 11, false, true}, {12, 0, false, false},
	} {
		top, running, ok := Of("claude").Preview(screen, c.y)
		if ok != c.ok || ok && (top != c.top || running != c.running) {
			t.Errorf("Preview(row %d %q) = %d, %v, %v; want %d, %v, %v", c.y, screen[c.y], top, running, ok, c.top, c.running, c.ok)
		}
	}
	// A preview whose first rows are above the screen's top.
	if top, _, ok := Of("claude").Preview([]string{"     @relay:bob a row cut at the e", "     … +13 lines", "  ⎿  Interrupted"}, 1); !ok || top != 0 {
		t.Errorf("Preview of a preview from above the screen = %d, %v; want 0, true", top, ok)
	}
	for _, c := range []struct {
		row         string
		running, ok bool
	}{{screen[7], true, true}, {screen[3], false, true}, {screen[12], false, false}, {screen[1], false, false}} {
		if running, ok := Of("claude").PreviewMarker(c.row); running != c.running || ok != c.ok {
			t.Errorf("PreviewMarker(%q) = %v, %v; want %v, %v", c.row, running, ok, c.running, c.ok)
		}
	}
	if _, ok := Of("codex").PreviewMarker(screen[7]); ok {
		t.Errorf("codex: a preview's marker, want none")
	}
	if _, _, ok := Of("codex").Preview(screen, 3); ok {
		t.Errorf("codex: a preview, want none (Codex shows no such previews)")
	}
}

func TestOverlay(t *testing.T) {
	claude := Of("claude")
	for _, c := range []struct {
		row, rest string
		ok        bool
	}{
		{`       "body": "raise",            Jump to bottom (ctrl+End) ↓`, `       "body": "raise",`, true},
		{"  ⎿  @thinking:bob a row it cove Jump to bottom (ctrl+End) ↓  ", "  ⎿  @thinking:bob a row it cove", true},
		{"                    Jump to bottom (ctrl+End) ↓", "", true},
		{"read the hint:Jump to bottom (ctrl+End) ↓", "read the hint:Jump to bottom (ctrl+End) ↓", false},
		// Left where it was drawn while the view under it moved: over the
		// middle of a longer row.
		{"  ⎿  @relay:qa_1 knew certain crop señ Jump to bottom (ctrl+End) ↓ vu grand don't", "  ⎿  @relay:qa_1 knew certain crop señ", true},
		{"see Jump to bottom (ctrl+End) ↓here", "see Jump to bottom (ctrl+End) ↓here", false},
		{"an ordinary row", "an ordinary row", false},
	} {
		rest, ok := claude.Overlay(c.row)
		if rest != c.rest || ok != c.ok {
			t.Errorf("Overlay(%q) = %q, %v; want %q, %v", c.row, rest, ok, c.rest, c.ok)
		}
	}
	if rest, ok := Of("codex").Overlay("x  Jump to bottom (ctrl+End) ↓"); ok {
		t.Errorf("codex has no such hint, got %q", rest)
	}
}

// TestElides: the rows Claude Code and Codex draw where they left rows of
// an output out, and rows that only look like them.
func TestElides(t *testing.T) {
	for _, c := range []struct {
		kind, row string
		want      bool
	}{
		{"claude", "     … +10 lines (ctrl+o to expand)", true},
		{"claude", "  ⎿  … +1 line (3s)", true},
		{"codex", "    … +131 lines (^t to view transcript)", true},
		{"codex", "    … +131 lines", true},
		{"codex", "    … +many lines", false},
		{"codex", "    … +3 lines of output follow", false},
		{"codex", "    @relay:bob … +3 lines", false},
		{"gemini", "    … +3 lines", false},
	} {
		if got := Of(c.kind).Elides(c.row); got != c.want {
			t.Errorf("Of(%q).Elides(%q) = %v, want %v", c.kind, c.row, got, c.want)
		}
	}
}

// TestToolBoxes: Gemini CLI heads the box it shows a command's output in
// with the command's state (its mark, a spinner while it is at work); a box
// seen running with output under its head row already is one whose
// terminal it had sized to the box.
func TestToolBoxes(t *testing.T) {
	g := Of("gemini")
	for _, c := range []struct {
		row, title  string
		running, ok bool
	}{
		{"│ ⊶  Shell Command sh f01.sh                 │", "Shell Command sh f01.sh", true, true},
		{"│ ⊷  Shell Command sh f01.sh                 │", "Shell Command sh f01.sh", true, true},
		{"│ ✓  Shell Command cat notes.txt             │", "Shell Command cat notes.txt", false, true},
		{"│ x  Shell Command false                     │", "Shell Command false", false, true},
		{"│ ✓ one blank after the mark: output         │", "", false, false},
		{"│ @relay:bob ✓  done                         │", "", false, false},
		{"│ ✓                                          │", "", false, false},
	} {
		title, running, ok := g.ToolBox(c.row)
		if title != c.title || running != c.running || ok != c.ok {
			t.Errorf("ToolBox(%q) = %q, %v, %v; want %q, %v, %v", c.row, title, running, ok, c.title, c.running, c.ok)
		}
	}
	if _, _, ok := Of("claude").ToolBox("│ ✓  Shell Command ls │"); ok {
		t.Error("Claude Code has no such boxes")
	}
	top := "╭────────────────────────────────────────────╮"
	bottom := "╰────────────────────────────────────────────╯"
	blank := "│                                            │"
	for _, c := range []struct {
		name string
		rows []string
		want []BoxHead
	}{
		{"running, nothing shown yet", []string{top, "│ ⊶  Shell Command cat f.txt                 │", blank, bottom, "", " > prompt"},
			[]BoxHead{{Title: "Shell Command cat f.txt", Running: true, Mark: '⊶'}}},
		{"running with output", []string{top, "│ ⊷  Shell Command sh f.sh                   │", blank, "│ first line of output                       │", bottom},
			[]BoxHead{{Title: "Shell Command sh f.sh", Running: true, Mark: '⊷', Output: true}}},
		{"running, its output past the last row", []string{"", top, "│ ⊶  Shell Command sh f.sh                   │", blank, "│ ... first 9 lines hidden (Ctrl+O to show) ."},
			[]BoxHead{{Title: "Shell Command sh f.sh", Running: true, Mark: '⊶', Output: true}}},
		{"done with output", []string{top, "│ ✓  Shell Command cat f.txt                 │", blank, "│ first line of output                       │", bottom},
			[]BoxHead{{Title: "Shell Command cat f.txt", Mark: '✓', Output: true}}},
		{"running, the output under another box", []string{"│ ⊶  Shell Command sh f.sh                   │", blank, bottom, top, "│ other output                               │"},
			[]BoxHead{{Title: "Shell Command sh f.sh", Running: true, Mark: '⊶'}}},
	} {
		if got := g.ToolBoxes(c.rows, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: ToolBoxes = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestHiddenAbove: Gemini CLI's box of a long output says how many of its
// first rows it does not show, in two forms as wide as the box allows.
func TestHiddenAbove(t *testing.T) {
	g := Of("gemini")
	for _, c := range []struct {
		row string
		n   int
		ok  bool
	}{
		{"│ ... first 11 lines hidden (Ctrl+O to show) ...          │", 11, true},
		{"│ ... first 1 line hidden (Ctrl+O to show) ...            │", 1, true},
		{"│ ... 21 hidden (Ctrl+O) ...                              │", 21, true},
		{"│ ... first lines hidden                                  │", 0, false},
		{"│ 11 lines hidden                                         │", 0, false},
		{"│ ... 3 rows of output                                    │", 0, false},
	} {
		if n, ok := g.HiddenAbove(c.row); n != c.n || ok != c.ok {
			t.Errorf("HiddenAbove(%q) = %d, %v; want %d, %v", c.row, n, ok, c.n, c.ok)
		}
	}
	if _, ok := Of("codex").HiddenAbove("│ ... first 11 lines hidden (Ctrl+O to show) ... │"); ok {
		t.Error("Codex shows no such row")
	}
}

// opencode's input box is a gutter, blank rows included, closed by a row
// of ▀; its outputs are in gutters too, at the same column, but not closed
// so: only the box and what is under it are the program's own.
func TestBoxAndUnder(t *testing.T) {
	l := Of("opencode")
	rows := []string{"  ┃  output", "  ┃", "", "  ┃", "  ┃  Build · Model", "  ╹▀▀▀▀", "  ~/work"}
	for _, c := range []struct {
		cursor, top int
		ok          bool
	}{
		{3, 3, true},  // the cursor in the box: the box and the footer under it
		{0, 0, false}, // the cursor in an output's gutter
		{6, 0, false}, // the cursor in the footer
	} {
		if top, ok := l.BoxAndUnder(rows, c.cursor); top != c.top || ok != c.ok {
			t.Errorf("BoxAndUnder(cursor %d) = %d, %v; want %d, %v", c.cursor, top, ok, c.top, c.ok)
		}
	}
	if _, ok := Of("claude").BoxAndUnder(rows, 3); ok {
		t.Errorf("Claude Code's box is no gutter")
	}
	if !l.AnswerFooter("     ▣  Build · Model · 1.2s") || l.AnswerFooter("  ┃  ▣  said in the output") {
		t.Errorf("AnswerFooter: the row under an answer starts with ▣ after blanks only")
	}
}
