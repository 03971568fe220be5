package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every key of the UI with its help text. The attached mode has
// exactly one key of its own, Detach; everything else typed while attached
// goes to the agent.
type KeyMap struct {
	// Selecting panes. Selection is linear, in the order of the agent
	// list; `l` is the log, so hjkl is not a set here.
	Next, Prev           key.Binding
	Attach, Detach, Zoom key.Binding
	// Filter narrows the agent list and the grid to the agents whose
	// name, state or liveness holds what is typed; NextPage and PrevPage
	// turn the grid's pages when not every pane fits.
	Filter, NextPage, PrevPage key.Binding

	// Scrollback of the selected pane.
	Scroll                         key.Binding
	LineUp, LineDown               key.Binding
	PageUp, PageDown               key.Binding
	Top, Bottom                    key.Binding
	Search, SearchNext, SearchPrev key.Binding

	// Panels.
	Inbox, Tasks, Log, Game key.Binding
	// Layout: hide or show the agent list; arrange the panes in a grid,
	// one large beside a stack, or one alone.
	ToggleList, Arrange key.Binding

	// Dialogs and agent actions.
	Send, NewAgent, Restart, Stop key.Binding
	// NextNeed shows the next thing that needs the person; Dismiss
	// closes the selected agent's question to them without an answer (Send
	// answers it).
	NextNeed, Dismiss key.Binding

	// Task actions (the task selected on the board, else the selected
	// agent's current task).
	Approve, RequestChanges, CancelTask, Merge, Retry key.Binding
	// NewTask asks for a task and creates it (for the selected agent).
	NewTask key.Binding
	// Prune deletes the branches finished tasks left behind, after asking.
	Prune key.Binding
	// Diff shows the selected task's diff on the board.
	Diff key.Binding

	// In dialogs and the search line: a confirmation's answers, and a
	// form's submit and moves between fields. Close cancels.
	Yes, No, Submit, NextField, PrevField key.Binding
	// ScrollExit also leaves scroll mode (besides Close and Bottom).
	ScrollExit key.Binding
	// Copy mode (scroll mode's cursor, as tmux's): the cursor moves a
	// column (LineUp and LineDown move it a row). Select starts selecting
	// characters at the cursor (moving the cursor extends the selection);
	// Copy copies them to the clipboard.
	CursorLeft, CursorRight key.Binding
	Select, Copy            key.Binding

	// QuitNow answers yes to the quit question (ctrl+c twice quits).
	QuitNow key.Binding
	// LeaveDetach and LeaveStop answer the question asked when a UI
	// attached to a swarm quits: detach (its agents go on), or stop it.
	LeaveDetach, LeaveStop key.Binding

	Help, Close, Quit key.Binding
}

// DefaultKeyMap returns the default keys (the README lists them).
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Next: b("tab/→/↓/j", "next pane", "right", "down", "j", "tab"),
		Prev: b("S-tab/←/↑/k", "previous pane", "left", "up", "k", "shift+tab"),

		Attach: b("enter", "attach", "enter"),
		Detach: b("ctrl+]", "detach", "ctrl+]"),
		Zoom:   b("z", "zoom pane", "z"),

		Filter:   b("/", "filter agents", "/"),
		NextPage: b(">", "next page of panes", ">"),
		PrevPage: b("<", "previous page of panes", "<"),

		ToggleList: b("b", "agent list on/off", "b"),
		Arrange:    b("L", "next layout", "L"),

		Scroll:     b("[/pgup", "scroll mode", "[", "pgup"),
		LineUp:     b("↑/k", "line up", "up", "k"),
		LineDown:   b("↓/j", "line down", "down", "j"),
		PageUp:     b("pgup/^u", "page up", "pgup", "ctrl+u"),
		PageDown:   b("pgdn/^d", "page down", "pgdown", "ctrl+d", "space"),
		Top:        b("g/home", "oldest", "g", "home"),
		Bottom:     b("G", "newest, leave", "G", "end"),
		Search:     b("/", "search", "/"),
		SearchNext: b("n", "next match", "n"),
		SearchPrev: b("N", "prev match", "N"),

		Inbox: b("i", "inbox", "i"),
		Tasks: b("t", "task board", "t"),
		Log:   b("l", "message log", "l"),
		Game:  b("g", "game board", "g"),

		Send:     b("s", "send message", "s"),
		NewAgent: b("n", "new agent", "n"),
		Restart:  b("R", "restart agent", "R"),
		Stop:     b("x", "stop agent", "x"),
		NextNeed: b("!", "next that needs you", "!"),
		Dismiss:  b("D", "dismiss its question", "D"),

		Approve:        b("a", "approve task", "a"),
		RequestChanges: b("r", "request changes", "r"),
		CancelTask:     b("c", "cancel task", "c"),
		Merge:          b("m", "merge task", "m"),
		// Not y, which answers yes in every dialog.
		Retry:   b("e", "retry task", "e"),
		Diff:    b("d", "task diff", "d"),
		NewTask: b("+", "new task", "+"),
		Prune:   b("P", "prune branches", "P"),

		Yes:         b("y", "yes", "y", "Y", "enter"),
		No:          b("n", "no", "n", "N", "esc", "q"),
		Submit:      b("enter", "submit", "enter"),
		NextField:   b("tab", "next field", "tab", "down"),
		PrevField:   b("S-tab", "previous field", "shift+tab", "up"),
		ScrollExit:  b("q", "leave scroll mode", "q"),
		CursorLeft:  b("←/h", "cursor left", "left", "h"),
		CursorRight: b("→/l", "cursor right", "right", "l"),
		Select:      b("v", "select text", "v"),
		Copy:        b("y/enter", "copy selection", "y", "enter"),

		QuitNow:     b("ctrl+c", "quit (at the quit question)", "ctrl+c"),
		LeaveDetach: b("d", "detach: the agents go on", "d"),
		LeaveStop:   b("s", "stop the swarm and its agents", "s"),

		Help:  b("?", "all keys", "?"),
		Close: b("esc", "close, back", "esc"),
		Quit:  b("q", "quit", "q", "ctrl+c"),
	}
}

// helpGroup is a titled column of the full help.
type helpGroup struct {
	title    string
	bindings []key.Binding
}

// fullHelp lists every key, grouped, for the `?` screen, in the order
// the groups are laid out in columns.
func (k KeyMap) fullHelp() []helpGroup {
	return []helpGroup{
		{"panes", []key.Binding{k.Next, k.Prev, k.Attach, k.Detach, k.Filter}},
		{"layout", []key.Binding{k.Zoom, k.Arrange, k.ToggleList, k.NextPage, k.PrevPage}},
		{"panels", []key.Binding{k.Inbox, k.Tasks, k.Log, k.Game}},
		{"agents", []key.Binding{k.Send, k.NewAgent, k.Restart, k.Stop, k.NextNeed, k.Dismiss}},
		{"tasks", []key.Binding{k.NewTask, k.Approve, k.RequestChanges, k.CancelTask, k.Merge, k.Retry, k.Diff, k.Prune}},
		{"scrollback", []key.Binding{k.Scroll, k.LineUp, k.LineDown, k.CursorLeft, k.CursorRight, k.PageUp, k.PageDown, k.Top, k.Bottom, k.ScrollExit, k.Search, k.SearchNext, k.SearchPrev, k.Select, k.Copy}},
		{"general", []key.Binding{k.Help, k.Close, k.Quit}},
	}
}

// scrollBy is how many rows a line or page key moves (a page being page
// rows); ok is false for other keys.
func (k KeyMap) scrollBy(msg tea.KeyPressMsg, page int) (d int, ok bool) {
	switch {
	case key.Matches(msg, k.LineUp):
		return -1, true
	case key.Matches(msg, k.LineDown):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	}
	return 0, false
}
