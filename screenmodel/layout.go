package screenmodel

// Layout is where one kind of program draws what on its screen, as seen in
// one version of it: how wide it lets a row of its text run before it
// wraps the next word onto the next row. The zero Layout is a program swarm
// knows nothing of.
type Layout struct {
	// Kind is the profile kind the facts are for ("claude", "codex",
	// "gemini", "opencode"); "" for any other program.
	Kind string
	// Version is the version of the program the facts were seen in.
	Version string
	// wrapMargin is how many columns short of the screen's edge the
	// program wraps a word that would have ended in them.
	wrapMargin int
}

// layouts are the kinds' layouts, each kept beside the recordings it was
// learnt from (testdata/cli and the corpus, at widths 50–200).
var layouts = []Layout{
	// Claude Code's word wrap keeps the blank at a wrap it made as the
	// first character of the next row, unseen: after a row that ended at
	// the edge, a word that would exactly fill the row goes to the next
	// one. Its rows may reach the edge; the last column counts as past it.
	{Kind: "claude", Version: "2.1.332", wrapMargin: 1},
	// Codex wraps at the edge.
	{Kind: "codex", Version: "0.171.0"},
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
	return max(cols-l.wrapMargin, 1)
}
