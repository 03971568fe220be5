package swarmapi

// What a client sees of an agent's terminal. The runtime reads them from
// its screens (package spawner) at one moment each.

// ScreenView is what a pane shows of an agent's screen, read at one
// moment.
type ScreenView struct {
	// Rows are the rows, styled (SGR sequences), joined by newlines.
	Rows string
	// Scrollback is the scrollback's length in rows; Offset how many rows
	// back into it the view is scrolled (0 on the alternate screen, which
	// shows none of it). The view's top row is row Scrollback-Offset in
	// the numbering of Text and Find: scrollback rows first, 0 the oldest.
	Scrollback, Offset int
	// Cursor is where the cursor is on the screen; CursorVisible whether
	// the program shows it.
	Cursor        Cursor
	CursorVisible bool
}

// Cursor is a position on a screen: column X, row Y, from 0.
type Cursor struct{ X, Y int }

// ScreenSnapshot is a copy of an agent's visible terminal state.
type ScreenSnapshot struct {
	Rows, Cols int
	// Lines are the visible rows as plain text, trailing blanks trimmed.
	Lines []string
	// Cursor is the cursor position; CursorVisible whether the program
	// shows it.
	Cursor        Cursor
	CursorVisible bool
	// AltScreen is set while the program draws on the alternate screen.
	AltScreen bool
	// BracketedPaste is set while the program asked for bracketed paste.
	BracketedPaste bool
	// Title is the window title the program set.
	Title string
}

// ScreenMatch is a search match in an agent's scrollback and screen.
type ScreenMatch struct {
	// Row is the row it starts on (scrollback rows first, 0 the oldest;
	// visible row y is the scrollback's length + y).
	Row int
	// Spans are the cells it covers, one per row: a match in a line the
	// terminal wrapped goes on over the next rows.
	Spans []ScreenSpan
}

// ScreenSpan is the cells [From, To) of one row.
type ScreenSpan struct{ Row, From, To int }
