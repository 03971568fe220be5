package screenmodel

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Layout is where one kind of program draws what on its screen, as seen in
// one version of it: how wide it lets a row of its text run before it
// wraps the next word onto the next row, where its input box is, and how
// its transcript shows typed input again. The zero Layout is a program
// swarm knows nothing of: none of that is known.
type Layout struct {
	// Kind is the profile kind the facts are for ("claude", "codex",
	// "gemini", "opencode"); "" for any other program.
	Kind string
	// Version is the version of the program the facts were seen in.
	Version string
	// wrapMargin is how many columns short of its text's right edge the
	// program wraps a word that would have ended in them.
	wrapMargin int
	// panelOver and panelCols: on a screen wider than panelOver columns
	// the program shows a side panel in the last panelCols columns (its
	// margin included), beside its transcript.
	panelOver, panelCols int
	// breaksWideRuns: the program breaks a run of wide characters (CJK,
	// emoji) between rows where it wraps, with no blank there.
	breaksWideRuns bool
	// breaksAfterPunctuation: the program breaks a word after a hyphen,
	// slash, backslash, bar, colon, semicolon or opening bracket, with no
	// blank there (breaksWideRuns implies it).
	breaksAfterPunctuation bool
	// wrapsWithBlank: a word the program wraps must fit with the blank
	// after it; the last word of a line, or a word it breaks with no blank,
	// may take the column after WrapAt.
	wrapsWithBlank bool
	// paintsRows: the program paints every row of its view out to the
	// right edge (its background): a frame drawn after a change of width
	// whose rows stop short of the new edge is laid out for the old one.
	paintsRows bool
	// redrawsAfterResize: on the main screen, once it takes a change of
	// width in, the program erases the screen and draws its whole last
	// frame anew for the new width: see RedrawsAfterResize.
	redrawsAfterResize bool
	// cutsRows: the program shows a long output collapsed, its last row
	// cut short with … at the end.
	cutsRows bool
	// lossyBoxes: the program draws output in boxes whose rows are its own
	// terminal's rows cut to the box, dropping what does not fit.
	lossyBoxes bool
	// toolMarks are the marks the head row of a box it shows a command's
	// output in starts with, right inside the border ("│ ✓  Shell
	// Command ls"); runningMarks are those of a command still at work
	// (its spinner's frames). See ToolBox.
	toolMarks, runningMarks string
	// boxAtCursor: the program keeps the cursor in its input box, drawn
	// apart from the rows around it (blank rows, rules or borders).
	boxAtCursor bool
	// footerUnderBox: the rows under its input box are its own (the
	// model, the directory, hints), never its transcript.
	footerUnderBox bool
	// boxEdge is the left edge of its input box where the box is a gutter
	// down its rows, blank ones included, and boxFoot the corner of the
	// row that closes it under them: see BoxAndUnder.
	boxEdge, boxFoot rune
	// answerFooter starts, after blanks, the row it draws under each of
	// its answers (the agent and the model): see AnswerFooter.
	answerFooter string
	// echoes are how its transcript shows typed input again.
	echoes []Echo
	// pending are how it shows a line typed while it works, under its
	// transcript, until it takes the line up.
	pending []Echo
	// status are what the program's live status row holds (a spinner or
	// timer and how to interrupt it, between its transcript and its
	// input box): text in a row that makes it that row.
	status []string
	// growsWhenDone: at work, the program shows its status row and a hint
	// under its transcript, whose view follows the newest output; done, it
	// gives their rows back to the transcript, which shows more of that
	// output at the top (the first rows of an output the view cut).
	growsWhenDone bool
	// overlays are hints the program draws at the right end of a row of
	// its transcript, over it (Claude Code's "Jump to bottom" while the
	// view is scrolled back): its own, never the row's text.
	overlays []string
	// pins start the row the program pins over the top row of its view
	// while the view is scrolled back: the echo of the message the rows
	// shown answer (Claude Code's "❯ [Request interrupted by user]").
	pins []string
	// menuMark marks the chosen row of the menu of the program's own
	// commands it draws right above its input box while a "/" command is
	// typed: see Menu.
	menuMark string
	// hints are what a row holds that the program draws under its view,
	// in a row of its own, while the view is scrolled back (Codex's "↓
	// Back to bottom"): its own, never text.
	hints []string
	// previewGutter marks the first row of a tool's output ("⎿"), and
	// previewMarker starts the row that closes a preview of it ("… +"
	// and a count of lines): see Preview.
	previewGutter, previewMarker string
	// elision starts a row the program draws where it left rows of an
	// output out ("… +" and a count of lines): see Elides.
	elision string
	// expandHint is the row the program draws under an output it shows
	// collapsed to its first rows (opencode's "Click to expand"): see
	// Collapsed.
	expandHint string
	// busyBar holds the cells of the bar the program draws over the
	// agent's name in its input box while a turn runs (opencode's
	// "■■■■⬝⬝⬝⬝"): see BusyBar.
	busyBar string
}

// Echo is how a program's transcript shows a line typed into it (a
// message, a shell command): a row that starts with Start, and after it
// the rows that start with Cont and text, where the program wrapped the
// typed line. Typed input is never the program's output.
type Echo struct {
	// Start is what the echo's first row starts with, leading blanks
	// included.
	Start string
	// Cont is what each row that continues it starts with, its text
	// following at once (not a blank).
	Cont string
	// Wrapped says the program wraps the echo where it wraps its text
	// (WrapAt): a row continues it only under a row with no room left
	// for its first word (see ContinuesAfter).
	Wrapped bool
	// Spinner holds the frames of the spinner the program shows in place
	// of Start's mark (its last character before the blank) while the
	// command typed runs: see Layout.Spinner.
	Spinner string
	// Runs says the row heads a command the program runs (Codex's "•
	// Running" and "• You ran"), not the line typed: output committed
	// after the line typed and before this row, when it is the first to
	// show the command, was that command's, read while it ran.
	Runs bool
}

// layouts are the kinds' layouts, each kept beside the recordings it was
// learnt from (testdata/cli and the corpus, at widths 50–200).
var layouts = []Layout{
	// Claude Code's word wrap keeps the blank at a wrap it made as the
	// first character of the next row, unseen: after a row that ended at
	// the edge, a word that would exactly fill the row goes to the next
	// one. Its rows may reach the edge; the last column counts as past it.
	// Its input box lies between two rules, the cursor in it (hidden in
	// the fullscreen renderer); the transcript shows a message as
	// "❯ text" and a shell command as "! command", wrapped under two
	// blanks. Its status row says "esc to interrupt".
	{Kind: "claude", Version: "2.1.332", wrapMargin: 1, boxAtCursor: true, redrawsAfterResize: true,
		echoes: []Echo{{Start: "❯ ", Cont: "  "}, {Start: "❯\u00a0", Cont: "  "}, {Start: "! ", Cont: "  "}, {Start: "!\u00a0", Cont: "  "}},
		status: []string{"esc to interrupt"}, growsWhenDone: true,
		// Scrolled back, it draws a hint to jump to the bottom at the
		// right end of the transcript's last row shown.
		overlays: []string{"Jump to bottom (ctrl+End) ↓"},
		// and pins the echo of the message the rows shown answer over
		// the top row of the view.
		pins: []string{"❯ "},
		// A "/" typed opens the menu of its commands, drawn right above
		// the box's top rule, over the transcript's last rows.
		menuMark: "❯",
		// While a command runs it shows the latest rows of its output
		// above "… +N lines (1s)"; once done, an output it does not show
		// whole is its first rows, each cut at the edge, above "… +N
		// lines (ctrl+o to expand)".
		previewGutter: "⎿", previewMarker: "… +", elision: "… +"},
	// Codex wraps at the edge, breaking words where Unicode's line
	// breaking allows it: in runs of wide characters (CJK, emoji), after
	// a hyphen, bar, colon or opening bracket. Its composer ("› ") has a blank row above
	// and below, and under it a footer (the model, the directory, hints); it shows a shell
	// command it runs as "• Running command" (its dot blinking: "◦"), the echo of a line
	// typed too, and the transcript shows a message as "› text" and a shell
	// command as "• You ran command", wrapped down a "│" gutter.
	{Kind: "codex", Version: "0.171.0", breaksWideRuns: true, boxAtCursor: true, footerUnderBox: true,
		echoes: []Echo{{Start: "› ", Cont: "  "}, {Start: "• You ran ", Cont: "  │ ", Runs: true}, {Start: "• Running ", Cont: "  │ ", Runs: true}, {Start: "◦ Running ", Cont: "  │ ", Runs: true}},
		status: []string{"esc to interrupt)"},
		// Scrolled back, it says how to go back to the bottom in a row
		// under the view.
		hints: []string{"↓ Back to bottom"},
		// A long output shows its first and last rows around "… +N lines
		// (^t to view transcript)", running or done.
		elision: "… +"},
	// Gemini CLI runs a command in a terminal of its own and shows each of
	// that terminal's rows as a row of a box, cut at the last blank that
	// fits the box: what does not fit is dropped. Its input box is shaded, a shaded blank row above and
	// below; the transcript shows a message as " > text" and a shell
	// command as " $ command", wrapped under three blanks — or, when the
	// command wraps, at times as " $command" wrapped under two: the blank
	// after the mark squeezed out by the text beside it.
	// A box's head row shows the command's state: a spinner (⊶ ⊷) while
	// it runs, then ✓, x (failed) or - (cancelled); o waiting, ? asking.
	{Kind: "gemini", Version: "0.61.0", lossyBoxes: true, boxAtCursor: true,
		toolMarks: "⊶⊷✓x-o?", runningMarks: "⊶⊷",
		echoes: []Echo{{Start: " > ", Cont: "   "}, {Start: " $ ", Cont: "   "}, {Start: " $", Cont: "  "}},
		status: []string{"(esc to cancel, "}},
	// opencode keeps two columns clear at the right of its transcript,
	// and a third for the blank after a word: only the last word of a line,
	// or a word it broke with no blank, reaches that column. It paints
	// every row of its view out to the edge. It
	// breaks words after punctuation as Codex does (a run of wide
	// characters it moves whole); a long output shows its first rows, the
	// last cut short with …, then "Click to expand";
	// wider than 120 columns it shows a side panel (the session's title,
	// context, tokens used, cost) in the last 42. Under each answer it
	// shows "▣  Build · model". Its input box is a gutter (┃) closed by a
	// row of ▀ under it, over a footer;
	// the transcript shows a shell command as "┃  $ command" in a gutter
	// box, wrapped down the same gutter, its "$" a spinner while the
	// command runs. A command typed while it works
	// waits under the transcript as "$ command", with no gutter.
	{Kind: "opencode", Version: "1.18.33", wrapMargin: 3, panelOver: 120, panelCols: 42, boxAtCursor: true, breaksAfterPunctuation: true, cutsRows: true, wrapsWithBlank: true, paintsRows: true,
		boxEdge: '┃', boxFoot: '╹', answerFooter: "▣  ",
		echoes:     []Echo{{Start: "  ┃  $ ", Cont: "  ┃  ", Wrapped: true, Spinner: "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"}},
		pending:    []Echo{{Start: "     $ ", Cont: "       "}},
		status:     []string{"esc interrupt"},
		expandHint: "Click to expand", busyBar: "■⬝"},
}

// Of returns the layout of kind; the zero Layout for a kind it has no facts
// of.
func Of(kind string) Layout {
	for _, l := range layouts {
		if l.Kind == kind {
			return l
		}
	}
	return Layout{}
}

// WrapAt returns the column the program wraps the rows of text it wraps
// itself at, on a screen cols wide: a word that would have ended past it
// went to the next row, so a row that left room for the next row's first
// word ended there and what follows is another line. 0 when not known (a
// program of no known kind).
func (l Layout) WrapAt(cols int) int {
	if l.Kind == "" {
		return 0
	}
	return max(l.TextColumns(cols)-l.wrapMargin, 1)
}

// TextColumns returns how many columns, from the left, hold the program's
// own text on a screen cols wide: a side panel it shows to their right
// (opencode's, on a wide screen) is not its output.
func (l Layout) TextColumns(cols int) int {
	if l.panelCols > 0 && cols > l.panelOver {
		return cols - l.panelCols
	}
	return cols
}

// BreaksWideRuns reports whether the program breaks words where Unicode's
// line breaking allows it (in runs of wide characters, after a hyphen, bar,
// colon or opening bracket) when it wraps text: no blank was there.
func (l Layout) BreaksWideRuns() bool { return l.breaksWideRuns }

// BreaksAfterPunctuation reports whether the program breaks a word after a
// hyphen, slash, backslash, bar, colon, semicolon or opening bracket when
// it wraps text (no blank was there), but moves a run of wide characters
// whole.
func (l Layout) BreaksAfterPunctuation() bool { return l.breaksAfterPunctuation }

// WrapsWithBlank reports whether the program wraps a word that, with the
// blank after it, would pass WrapAt: a row that ends in the column after
// WrapAt ended its line there, unless the program broke a word there with
// no blank.
func (l Layout) WrapsWithBlank() bool { return l.wrapsWithBlank }

// PaintsRows reports whether the program paints every row of its view
// out to the right edge of the screen, so that a frame whose rows stop
// short of the edge, after the screen got wider, was laid out for the
// width before.
func (l Layout) PaintsRows() bool { return l.paintsRows }

// RedrawsAfterResize reports whether the program, drawing on the main
// screen, erases it once it takes a change of width in and draws its whole
// last frame anew, from the top row, for the new width: what a frame it
// drew for the old width showed, garbled, it shows again. Claude Code
// inline does after each resize in the recordings (testdata/cli,
// claude-inline-*). Gemini CLI (Ink) does not: it writes only its live
// rows again. Codex inline draws its first frame for the new width
// already; the full-screen renderers draw on the alternate screen.
func (l Layout) RedrawsAfterResize() bool { return l.redrawsAfterResize }

// CutsRows reports whether the program shows a row it cut short with …
// at its end (a long output collapsed to its first rows): what such a
// row shows of a command is not all of it.
func (l Layout) CutsRows() bool { return l.cutsRows }

// Collapsed reports whether row is the one the program draws under an
// output it shows collapsed to its first rows (its hint to expand it,
// after its gutter): a block in that output shows no end marker, cut by
// the program, not left open by the agent.
func (l Layout) Collapsed(row string) bool {
	return l.expandHint != "" && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(row), "┃│")) == l.expandHint
}

// BusyBar reports whether row is the status row of the program's input box
// while a turn runs: the busy bar drawn right after the box's gutter, over
// the agent's name ("  ┃■■■■⬝⬝⬝⬝· model"). The transcript's rows and the
// box's own text sit two blanks inside the gutter; only this row touches
// it. A reader sees the program's status there, never output, even where
// the row is caught between a block's rows (a frame drawn mid-resize).
func (l Layout) BusyBar(row string) bool {
	if l.busyBar == "" || l.boxEdge == 0 {
		return false
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(row, " "), string(l.boxEdge))
	if !ok {
		return false
	}
	first, _ := utf8.DecodeRuneInString(rest)
	return strings.ContainsRune(l.busyBar, first)
}

// LossyBoxes reports whether the program shows output in boxes whose rows
// are another terminal's rows cut to the box: a row may lose its end.
func (l Layout) LossyBoxes() bool { return l.lossyBoxes }

// ToolBox reports whether row heads a box the program shows a command's
// output in ("│ ✓  Shell Command ls │", Gemini CLI): a mark of the
// command's state right inside the left border, two blanks, its title.
// title is that title, running whether the mark says the command is still
// at work.
func (l Layout) ToolBox(row string) (title string, running, ok bool) {
	mark, title, ok := l.toolBox(row)
	return title, ok && strings.ContainsRune(l.runningMarks, mark), ok
}

// toolBox returns the mark and title of the box row heads (ToolBox).
func (l Layout) toolBox(row string) (mark rune, title string, ok bool) {
	if l.toolMarks == "" {
		return 0, "", false
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(row, " "), "│ ")
	if !ok {
		return 0, "", false
	}
	mark, w := utf8.DecodeRuneInString(rest)
	if w == 0 || !strings.ContainsRune(l.toolMarks, mark) || !strings.HasPrefix(rest[w:], "  ") {
		return 0, "", false
	}
	title = strings.TrimSpace(strings.TrimSuffix(strings.TrimRight(rest[w:], " "), "│"))
	if title == "" {
		return 0, "", false
	}
	return mark, title, true
}

// HiddenAbove reports whether row is the row of a box of a command's
// output (ToolBoxes) that says how many of the output's first rows the box
// does not show, above the rest ("│ ... first 11 lines hidden (Ctrl+O to
// show) ... │", narrower "│ ... 21 hidden (Ctrl+O) ... │"): n is that
// count.
func (l Layout) HiddenAbove(row string) (n int, ok bool) {
	if l.runningMarks == "" {
		return 0, false
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(row, " "), "│ ... ")
	if !ok {
		return 0, false
	}
	rest = strings.TrimPrefix(rest, "first ")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if digits == 0 || digits > 9 {
		return 0, false
	}
	after := rest[digits:]
	if !strings.HasPrefix(after, " hidden") && !strings.HasPrefix(after, " line hidden") && !strings.HasPrefix(after, " lines hidden") {
		return 0, false
	}
	for _, c := range rest[:digits] {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// RunningMark reports whether cell, the text of one cell of the screen, is
// the mark a box's head row shows while its command is at work (ToolBox).
func (l Layout) RunningMark(cell string) bool {
	return cell != "" && l.runningMarks != "" && strings.Contains(l.runningMarks, cell)
}

// HasToolBoxes reports whether the program shows commands' output in
// boxes ToolBox knows the head row of (ToolBoxes).
func (l Layout) HasToolBoxes() bool { return l.runningMarks != "" }

// BoxHead is the head row of a box a program shows a command's output in
// (ToolBox), as a screen shows it.
type BoxHead struct {
	// Title is the command's title; Running says the head row shows it at
	// work.
	Title   string
	Running bool
	// Mark is the mark the head row shows: a running box's turns (a
	// spinner) while its command is at work.
	Mark rune
	// Output says a row under the head row, between the box's borders,
	// holds text already (before its bottom border or the screen's last
	// row).
	Output bool
}

// ToolBoxes returns the head rows of the boxes rows show (ToolBox), top
// down, appended to heads. Gemini CLI runs a command in a terminal of its
// own as wide as the screen, and makes it as wide as the box once the box
// shows the command at work, if the command still runs then: a box that
// showed output while the command was at work, or whose mark turned while
// it was (the command still ran a frame after the box first showed it),
// shows that terminal's rows whole, at the box's width.
func (l Layout) ToolBoxes(rows []string, heads []BoxHead) []BoxHead {
	if l.runningMarks == "" {
		return heads
	}
	for y, r := range rows {
		mark, title, ok := l.toolBox(r)
		if ok {
			running := strings.ContainsRune(l.runningMarks, mark)
			heads = append(heads, BoxHead{Title: title, Running: running, Mark: mark, Output: boxText(rows[y+1:])})
		}
	}
	return heads
}

// boxText reports whether the rows, from the first, are rows between a
// box's borders and one of them holds text before the box's bottom border
// or the last row.
func boxText(rows []string) bool {
	for _, r := range rows {
		inside, text := BoxRow(r)
		if !inside || text {
			return text // the bottom border, or no more of the box: false
		}
	}
	return false
}

// WiderBoxRow reports whether row, a line shown on a screen cols wide, is
// a row of a box (ToolBox) wider than that screen: the program drew it for
// a wider screen (a frame it drew after the screen shrank, before it knew)
// and the terminal broke it over rows, each holding a piece of it, or the
// screen cut it at its edge, the box's right border past it (the program
// always draws that border: a row without it is cut). A reader sees no
// row of the box there, only pieces of its rows.
func (l Layout) WiderBoxRow(row string, cols int) bool {
	if !l.HasToolBoxes() || cols <= 0 {
		return false
	}
	inside, _ := BoxRow(row)
	if !inside {
		return false
	}
	return len(row) > cols && ansi.StringWidth(row) > cols || !strings.HasSuffix(strings.TrimRight(row, " "), "│")
}

// BoxRowLines returns how many lines of a screen cols wide row, a line
// shown there, takes: more than one for a row of a box wider than the
// screen that the terminal broke over lines (WiderBoxRow), else one.
func (l Layout) BoxRowLines(row string, cols int) int64 {
	if cols <= 0 || len(row) <= cols {
		return 1
	}
	return int64(max(1, (ansi.StringWidth(row)+cols-1)/cols))
}

// BoxRow reports whether row is a row between a box's borders (ToolBox),
// and whether it holds text there.
func BoxRow(row string) (inside, text bool) {
	in, inside := strings.CutPrefix(strings.TrimLeft(row, " "), "│")
	return inside, inside && strings.Trim(in, " │") != ""
}

// Status reports whether row is the program's live status row (a spinner
// or timer while it works, and how to interrupt it): the program's own,
// never output.
func (l Layout) Status(row string) bool {
	for _, s := range l.status {
		if strings.Contains(row, s) {
			return true
		}
	}
	return false
}

// GrowsWhenDone reports whether the program's transcript view takes back,
// once the program is done, the rows its status row and hints took while
// it worked: the top of the view may then show the first rows of an output
// it cut while the program worked.
func (l Layout) GrowsWhenDone() bool { return l.growsWhenDone }

// HasStatus reports whether the program has a status row Status knows.
func (l Layout) HasStatus() bool { return len(l.status) > 0 }

// Hint reports whether row is a row the program draws under its view
// while the view is scrolled back, saying how to go back: its own, never
// text.
func (l Layout) Hint(row string) bool {
	for _, h := range l.hints {
		if strings.HasPrefix(strings.TrimLeft(row, " "), h) {
			return true
		}
	}
	return false
}

// Pinned reports whether row, the top row of the program's view while the
// view is scrolled back (Overlay), is the echo of a message the program
// pins there over its transcript: its own row, not a turn typed above the
// rows under it, which are history the view shows again.
func (l Layout) Pinned(row string) bool {
	for _, p := range l.pins {
		if strings.HasPrefix(row, p) {
			return true
		}
	}
	return false
}

// Overlay reports whether the program drew a hint over row (between
// blanks, or alone) and returns what is left of the row before it, its
// trailing blanks trimmed: the text the hint covers is hidden, so the row
// is not whole. The program draws such a hint while its view is scrolled
// back: what it shows then is history. The hint stays where it was drawn
// while the view under it is redrawn, so it can cover the middle of a
// longer row as well as its right end.
func (l Layout) Overlay(row string) (rest string, ok bool) {
	for _, o := range l.overlays {
		for from := 0; ; {
			i := strings.Index(row[from:], o)
			if i < 0 {
				break
			}
			i += from
			before, after := row[:i], row[i+len(o):]
			if (before == "" || strings.HasSuffix(before, " ")) && (after == "" || after[0] == ' ') {
				return strings.TrimRight(before, " "), true
			}
			from = i + len(o)
		}
	}
	return row, false
}

// Echoes returns how the program's transcript shows typed input again:
// rows that are input, never output.
func (l Layout) Echoes() []Echo { return l.echoes }

// HasInputBox reports whether the program keeps an input box InputBox
// can find.
func (l Layout) HasInputBox() bool { return l.boxAtCursor }

// InputBox returns the rows [top, bottom] of a screen that are the
// program's input box: what is being typed, never output. rows are the
// screen's rows as text, cursor the cursor's row. A program that keeps its
// cursor in its box draws the box apart from what surrounds it: the box is
// the cursor's row and the rows right above and below it that show text,
// up to a row that shows none (blank, or only rules and borders), and the
// rows under it where the program keeps a footer there. ok is false when
// the program has no such box, or the cursor is off the screen.
func (l Layout) InputBox(rows []string, cursor int) (top, bottom int, ok bool) {
	if !l.boxAtCursor || cursor < 0 || cursor >= len(rows) {
		return 0, 0, false
	}
	top, bottom = cursor, cursor
	for top > 0 && hasText(rows[top-1]) {
		top--
	}
	for bottom < len(rows)-1 && hasText(rows[bottom+1]) {
		bottom++
	}
	if l.footerUnderBox {
		bottom = len(rows) - 1 // and the program's footer under it
	}
	return top, bottom, true
}

// Menu returns the rows [from, to] of the menu of the program's own
// commands it draws right above its input box's top rule while a command
// is typed ("/ex"): a row for each command, its name and what it does
// ("  ❯ /exit     Exit the CLI", the chosen one marked). The menu is what
// is being typed, not output, and it covers the transcript's last rows:
// they are hidden, not gone. ok is false where no menu shows.
func (l Layout) Menu(rows []string) (from, to int, ok bool) {
	if l.menuMark == "" {
		return 0, 0, false
	}
	from, marked := -1, false
	for y, row := range rows {
		chosen, in := l.menuRow(row)
		switch {
		case in:
			if from < 0 {
				from, marked = y, false
			}
			marked = marked || chosen
		case from >= 0 && marked && row != "" && !hasText(row):
			return from, y - 1, true // the box's rule under it
		default:
			from = -1
		}
	}
	return 0, 0, false
}

// menuRow reports whether row is a row of the program's menu of commands
// (see Menu), and whether it is the chosen one: after two blanks, the mark
// or two blanks more, "/" and the command's name, two blanks at least, and
// what the command does.
func (l Layout) menuRow(row string) (chosen, ok bool) {
	rest, in := strings.CutPrefix(row, "  ")
	if !in {
		return false, false
	}
	if r, mark := strings.CutPrefix(rest, l.menuMark+" "); mark {
		rest, chosen = r, true
	} else if rest, in = strings.CutPrefix(rest, "  "); !in {
		return false, false
	}
	name, what, two := strings.Cut(rest, "  ")
	if !two || !strings.HasPrefix(name, "/") || len(name) < 2 || strings.ContainsRune(name, ' ') {
		return false, false
	}
	return chosen, strings.TrimLeft(what, " ") != ""
}

// BoxAndUnder returns the first row of the program's input box where it is
// drawn as a gutter (boxEdge) closed under it (boxFoot), the cursor's row
// in it: the box and every row under it (the program's footer) are the
// program's own, never its transcript. ok is false where the program draws
// no such box, or the cursor is not in it. The box is the rows that show
// its edge where the cursor's row does, blank ones included; a gutter not
// closed so is not the box (the program shows outputs in gutters too).
func (l Layout) BoxAndUnder(rows []string, cursor int) (top int, ok bool) {
	if l.boxEdge == 0 || cursor < 0 || cursor >= len(rows) {
		return 0, false
	}
	indent, ok := edgeAt(rows[cursor], l.boxEdge, -1)
	if !ok {
		return 0, false
	}
	top, bottom := cursor, cursor
	for top > 0 && startsAt(rows[top-1], l.boxEdge, indent) {
		top--
	}
	for bottom < len(rows)-1 && startsAt(rows[bottom+1], l.boxEdge, indent) {
		bottom++
	}
	if bottom == len(rows)-1 || !startsAt(rows[bottom+1], l.boxFoot, indent) {
		return 0, false
	}
	return top, true
}

// AnswerFooter reports whether row is the row the program draws under each
// of its answers (the agent and the model): its own, never output.
func (l Layout) AnswerFooter(row string) bool {
	return l.answerFooter != "" && strings.HasPrefix(strings.TrimLeft(row, " "), l.answerFooter)
}

// edgeAt reports whether row's first character after its indent is edge,
// and returns the indent (blanks); with indent ≥ 0, only after that many.
func edgeAt(row string, edge rune, indent int) (int, bool) {
	rest := strings.TrimLeft(row, " ")
	n := len(row) - len(rest)
	r, _ := utf8.DecodeRuneInString(rest)
	return n, r == edge && (indent < 0 || n == indent)
}

// startsAt reports whether row shows edge after indent blanks.
func startsAt(row string, edge rune, indent int) bool {
	_, ok := edgeAt(row, edge, indent)
	return ok
}

// hasText reports whether a row shows anything but blanks, rules and
// borders (box-drawing and block characters).
func hasText(row string) bool {
	for _, r := range row {
		if !unicode.IsSpace(r) && !(r >= 0x2500 && r <= 0x259f) {
			return true
		}
	}
	return false
}

// maxPreview bounds how many rows above its marker a preview holds.
const maxPreview = 12

// Preview reports whether row y of a screen closes a preview of a tool's
// output, and returns the preview's first row: the program shows some rows
// of an output and, under them, a row that says how many it does not
// show. While the command runs (running: the row counts its seconds) they
// are its latest rows, and they slide as more comes; once it is done, an
// output the program does not show whole is its first rows, each cut at
// the screen's edge. The preview starts at the row above that marks the
// output's first row, or under the echo of the command, or above the
// screen's top. rows are the screen's rows as text.
func (l Layout) Preview(rows []string, y int) (top int, running, ok bool) {
	if l.previewMarker == "" {
		return 0, false, false
	}
	if running, ok = l.previewMarkerRow(rows[y]); !ok {
		return 0, false, false
	}
	for top = y; top >= 0 && y-top < maxPreview; top-- {
		row := strings.TrimLeft(rows[top], " ")
		if strings.HasPrefix(row, l.previewGutter) {
			return top, running, true
		}
		if _, echo := l.EchoStart(rows[top]); echo {
			return top + 1, running, true
		}
	}
	if top < 0 {
		return 0, running, true // it starts above the screen's top
	}
	return y, running, true
}

// OutputRow returns row with the mark of an output's first row (the
// preview's gutter, and the no-break space the program draws after it)
// blanked: a running command's preview slides, and each of its rows moves
// up into the first row's place, where it shows with the mark; as further
// down, it is the same row of the output.
func (l Layout) OutputRow(row string) string {
	if l.previewGutter == "" {
		return row
	}
	lead := len(row) - len(strings.TrimLeft(row, " "))
	rest, ok := strings.CutPrefix(row[lead:], l.previewGutter)
	if !ok {
		return row
	}
	pad := strings.Repeat(" ", ansi.StringWidth(l.previewGutter))
	if after, ok := strings.CutPrefix(rest, " \u00a0"); ok {
		pad, rest = pad+"  ", after
	}
	return row[:lead] + pad + rest
}

// PreviewMarker reports whether row is a row that closes a preview (see
// Preview), and whether it counts the seconds of a command still running.
func (l Layout) PreviewMarker(row string) (running, ok bool) {
	if l.previewMarker == "" {
		return false, false
	}
	return l.previewMarkerRow(row)
}

// previewMarkerRow reports whether row is the row closing a preview (the
// marker, a number, "line" or "lines", and nothing or a parenthesis
// after), and whether it counts the seconds of a command still running.
func (l Layout) previewMarkerRow(row string) (running, ok bool) {
	return l.countRow(row, l.previewMarker)
}

// Elides reports whether row is one the program draws where it left rows
// of an output out (the elision, a number, "line" or "lines", and nothing
// or a parenthesis after): a preview's marker, or a long output shown with
// its middle left out. Whatever was cut there is not the agent's output
// cut short.
func (l Layout) Elides(row string) bool {
	if l.elision == "" {
		return false
	}
	_, ok := l.countRow(row, l.elision)
	return ok
}

// countRow reports whether row, after the preview's gutter, is marker and
// a count of lines (see previewMarkerRow), and whether it counts seconds.
func (l Layout) countRow(row, marker string) (running, ok bool) {
	row = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(row, " "), l.previewGutter), " ")
	rest, ok := strings.CutPrefix(row, marker)
	if !ok {
		return false, false
	}
	n := digits(rest)
	if n == 0 {
		return false, false
	}
	rest, ok = strings.CutPrefix(strings.TrimRight(rest[n:], " "), " line")
	rest = strings.TrimPrefix(rest, "s")
	if !ok || rest != "" && !strings.HasPrefix(rest, " (") {
		return false, false
	}
	rest = strings.TrimPrefix(rest, " (")
	n = digits(rest)
	return n > 0 && strings.HasPrefix(rest[n:], "s"), true
}

// digits returns how many ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// HasElision reports whether the program shows rows Elides knows.
func (l Layout) HasElision() bool { return l.elision != "" }

// HasPreviews reports whether the program shows previews Preview knows.
func (l Layout) HasPreviews() bool { return l.previewMarker != "" }

// EchoStart returns the echo a row starts, if it starts one.
func (l Layout) EchoStart(row string) (Echo, bool) { return startOf(l.echoes, row) }

// PendingStart returns how a row shows a line typed while the program
// works, waiting under its transcript until the program takes it up (the
// rows that continue it start with Cont), if it starts one: typed input,
// never output, and no turn of the transcript yet.
func (l Layout) PendingStart(row string) (Echo, bool) { return startOf(l.pending, row) }

// Spinner returns row as the program shows it once the command typed is
// done, when the row starts an echo whose mark is a spinner's frame
// (Echo.Spinner), and whether it did: the program shows the command at
// work so. The spinner is live, not text. It goes with the echo's row;
// while that row is above the view, the program draws it over the view's
// top row. A row of output may have the same shape (a file printed that
// starts with such a character): the shape alone does not tell them
// apart; the reader tells them by where the row is and whether its mark
// turns.
func (l Layout) Spinner(row string) (echo string, ok bool) {
	for _, e := range l.echoes {
		gutter, mark, after, ok := e.spinnerIn(row)
		if ok && strings.HasPrefix(after, " ") {
			return gutter + string(mark) + after, true
		}
	}
	return row, false
}

// spinnerIn splits row where it shows a frame of e's spinner right after
// the gutter of e's start (Echo.Spinner): the gutter, the mark e's start
// shows in the frame's place, and the text after the frame. ok is false
// when e has no spinner or row shows none there. Spinner, BareSpinner and
// SpinnerOver differ only in what they ask of the text after the frame.
func (e Echo) spinnerIn(row string) (gutter string, mark rune, after string, ok bool) {
	if e.Spinner == "" {
		return "", 0, "", false
	}
	start := strings.TrimSuffix(e.Start, " ")
	mark, w := utf8.DecodeLastRuneInString(start)
	gutter = start[:len(start)-w]
	rest, ok := strings.CutPrefix(row, gutter)
	spin, n := utf8.DecodeRuneInString(rest)
	if !ok || n == 0 || !strings.ContainsRune(e.Spinner, spin) {
		return "", 0, "", false
	}
	return gutter, mark, rest[n:], true
}

// BareSpinner reports whether row is a frame of an echo's spinner
// (Echo.Spinner) after its gutter and nothing else: the program draws the
// spinner of a command at work on the view's top row once the echo it
// marks is above the view, and over a blank row of the transcript it
// shows no text at all.
func (l Layout) BareSpinner(row string) bool {
	for _, e := range l.echoes {
		if _, _, after, ok := e.spinnerIn(row); ok && after == "" {
			return true
		}
	}
	return false
}

// SpinnerOver returns row with a blank for the frame of an echo's spinner
// (Echo.Spinner) it shows right after its gutter, text right after the
// frame, and whether it shows one so: the program draws the spinner of a
// command at work on the view's top row once the echo it marks is above
// the view, over the cell a row of text shows there — a blank where the
// program kept the blank at a wrap (a row that goes on a line wrapped on
// the row above), else the row's first character, hidden.
func (l Layout) SpinnerOver(row string) (under string, ok bool) {
	for _, e := range l.echoes {
		if gutter, _, after, ok := e.spinnerIn(row); ok && after != "" && after[0] != ' ' {
			return gutter + " " + after, true
		}
	}
	return row, false
}

// startOf returns the first of echoes that row starts.
func startOf(echoes []Echo, row string) (Echo, bool) {
	for _, e := range echoes {
		if strings.HasPrefix(row, e.Start) {
			return e, true
		}
	}
	return Echo{}, false
}

// ContinuesAfter is Continues for a row under prev, the echo's row before
// it, on a screen where the program wraps its text at wrapAt (0: not
// known). Where it wraps the echo there too (Wrapped), a row it wrapped
// left no room for the next row's first word, so a row under a shorter one
// is not the echo going on but what came after it (opencode's output,
// right under the echo of a command once the view scrolled).
func (e Echo) ContinuesAfter(prev, row string, wrapAt int) bool {
	if !e.Continues(row) {
		return false
	}
	if !e.Wrapped || wrapAt <= 0 {
		return true
	}
	word, _, _ := strings.Cut(strings.TrimPrefix(row, e.Cont), " ")
	return ansi.StringWidth(strings.TrimRight(prev, " "))+1+ansi.StringWidth(word) > wrapAt
}

// ContinuesAnEcho reports whether row, by its look, may continue the echo
// of a line typed (Echo.Continues, for any of the program's echoes): a
// row that does not is no row of typed input.
func (l Layout) ContinuesAnEcho(row string) bool {
	for _, e := range l.echoes {
		if e.Continues(row) {
			return true
		}
	}
	return len(l.echoes) == 0
}

// Continues reports whether row continues the echo: it starts with Cont
// and then text, not a blank and not a mark with a blank after it (the
// program's own bullet: what follows the echo, as Claude Code's "⎿" over
// a command's output).
func (e Echo) Continues(row string) bool {
	rest, ok := strings.CutPrefix(row, e.Cont)
	if !ok || rest == "" {
		return false
	}
	r, w := utf8.DecodeRuneInString(rest)
	if unicode.IsSpace(r) {
		return false
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		next, _ := utf8.DecodeRuneInString(rest[w:])
		return !unicode.IsSpace(next)
	}
	return true
}
