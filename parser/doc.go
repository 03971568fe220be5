// Package parser extracts relay commands from an agent's terminal output.
//
// Input is a stream of committed terminal lines (plain text as the screen
// shows it, each with its absolute line number); output is a stream of
// events, each either a [Command] or a [ParseError]. The package is pure: no
// I/O, no goroutines, and a [Parser] is not safe for concurrent use (one per
// agent terminal).
//
// # Where a command is recognised
//
// Only at the start of a line, after removing terminal escape sequences and
// control characters, leading whitespace, and the prompt, bullet and border
// glyphs agent CLIs draw in front of text: `>` `$` `-` `*` (Markdown, shells,
// Aider), `⏺` `●` `⎿` `│` (Claude Code), `•` `›` `└` `▌` (Codex), `✦` (Gemini
// CLI), `❯` (shell prompts) and a few other bullets (`◦` `▪` `‣` `⁃` `▎` `┃`
// `║`). A glyph counts only when whitespace follows it, so `-@relay:x` or
// `*@relay:x*` is plain text; glyphs may repeat (`> > @relay:…`). When a line
// starts with a box border (`│ > @relay:bob hi │`), a matching border at its
// end is removed too. Numbered lists (`1. @relay:…`) are not prefixes.
//
// Lines inside a Markdown code fence are never commands. A fence is a line
// that, after the same prefix removal, starts with three or more backticks or
// tildes; it closes at a line of the same character, at least as long, with
// nothing after it (CommonMark's rule, so a ```` fence can contain ``` lines).
// A fence left open hides every later line: the parser cannot tell a
// forgotten fence from a long one.
//
// # Commands
//
// Inline: `@relay:<to> <body>` on one line is a message to <to> (type
// "message"); `@thinking:<to> <body>` is the same with kind thinking. <to> is
// the text up to the first blank. When it is a valid target (see
// [ValidTarget]) the rest of the line, trimmed, is the body. When it is
// non-empty but invalid (`@relay:bob, hi`, `@relay:<to> …`) the author
// evidently meant to send something, so the result is an error event naming
// the bad target; `@relay:` followed by nothing or by a blank is plain text.
// An empty body is an error event (there is nothing to deliver). Matching is
// case-sensitive.
//
// Under a bullet (`⏺ @relay:bob …`), agent CLIs word-wrap long paragraphs
// with a hanging indent. The rows that follow with that indent (the width,
// in characters, of everything before `@relay:`, or one more: the blank at
// the wrap) and no bullet of their own continue the body, joined with one
// space. A blank row, a row with another indent, a row starting with a
// bullet glyph, a row that itself starts a command, block or fence, or a
// gap in the line numbers ends it; so does a row whose first word would
// have fitted on the row before: that is another line of output, not a
// wrap (for a program that breaks where Unicode's line breaking allows
// it, the word is that breaking's first piece where longer: a quote and
// an opening bracket after it go together). How wide a row may be is the column the program wraps at, when the
// caller knows it ([Parser.FeedLine]: the screen's width less what the
// program keeps clear at its right); else the paragraph's rows, that row
// included, show it. Where the caller gives that column, a command under
// no glyph continues the same way on the rows at its own indent: the
// program wrapped it there.
// Inside a box (`│ @relay:bob … │`, as Gemini CLI draws a command's
// output) the box wraps long rows itself: the rows that follow, between
// the same borders at the same columns, continue the body while the row
// before has no room left for their first word (or, when the program's
// boxes drop what does not fit them at a wrap, Options.LossyBoxes, room
// for at most four columns more: the word cut there was lost, and the
// next row may start with its end), and they start where the
// command's text started (or a blank or two further, the blank at the
// wrap). Borders and indentation are removed and the rows joined with one
// space — none where a lossy box wrapped a row of its terminal, as wide as
// the box, mid-word: a row with no wide character reached the box's last
// column, the next starting right inside the border, and no row of the
// command with no wide character ended two columns short of the box or
// more (which tells a wider terminal whose rows the box cut, a row at its
// edge ending with a whole word), and the box is known to be as wide as
// its terminal ([Parser.BoxSized]), or two rows of the command broke a
// word at the edge, or three filled the box (a row cut after a whole word
// ends at the edge, or a column short, about once in three rows). A row
// with wide characters says neither:
// the box draws them wider than its terminal counts them (each followed by
// a blank) and cuts the row where it overflows;
// what ends a bullet's paragraph ends this too. Where each row fed takes
// more than one line number ([Parser.RowLines]: a box drawn for a wider
// screen, each of its rows broken over lines by the terminal and fed
// whole), the next row is that many lines under the one before, no gap;
// so too under a row that alone takes more ([Parser.NextRowLines]: a row
// the terminal broke over lines as the screen narrowed). Such a row that
// filled its width, the next row fed not under it, is dropped with its
// command: the rest of its line stayed on the screen, for the program to
// draw again, and the command as held may be cut. Where that next row
// starts with the row's end (eight bytes or more of it) and goes on, it is
// that line drawn again at the new width, the row's end moved down onto
// it: the command goes on there, the end taken back from the row.
// A command under a
// bullet inside a box follows the bullet's rule, between the borders, and
// so does one down a gutter (a left border with no right one, as opencode
// draws its transcript).
//
// Such a command is held back until that happens or until [Parser.Flush]
// ([Parser.Pending] reports it). A command under no glyph where the wrap
// column is not known, or right inside a box whose row has room left, is
// returned by the [Parser.Feed] call that saw it.
//
// Block: a line that is `[[RELAY]]` (after prefix removal; the JSON may start
// on the same line, so what follows the marker must be empty or start with
// `{`, else the line is plain text) opens a block. It closes at a line that
// starts with `[[/RELAY]]` (after prefix removal; text after the marker is
// ignored), or at a line that ends with `[[/RELAY]]` where the JSON before
// the marker is a complete value and the marker is not inside a JSON string —
// so `…"body":"x"}[[/RELAY]]` closes and `"a [[/RELAY]] b"` mid-line never
// does. A whole block may sit on one line. Each block line loses its prefix
// (indentation and glyphs, as above) before it is read as JSON; this is safe
// because a JSON line never starts with a glyph followed by a blank. When a
// line ends inside a JSON string, the CLI must have word-wrapped a long
// string (JSON strings cannot hold raw newlines), so the next line loses only
// its indentation — and, when the block opened inside a box or down a gutter,
// that box's borders at their columns — and is joined with one space (none
// when the line ended in the middle of an escape: the CLI broke a word).
//
// The block holds one JSON object with the fields to (required, a valid
// target), type (default "message"), body, data (any JSON value; null is the
// same as absent), topic, correlation_id and in_reply_to (strings). Unknown
// fields, wrong types, a missing or invalid to, a message with neither body
// nor data, malformed JSON or more than [Options.MaxBlock] bytes of JSON each
// yield one error event carrying the line the block started on, and parsing
// goes on after the block. An oversized block is skipped up to its end marker
// without being buffered. A line starting `[[RELAY]]`, `@relay:` or
// `@thinking:` inside a block (never valid JSON; even where a JSON string
// was left open, as a CLI that cut the block short leaves it) means the
// end marker never came: the open block becomes an "unterminated relay block" error and
// the line is read as new input (with no error when the line is numbered at
// or above the block's first: the program drew its rows again over it). A line numbered above the block's first
// that repeats, but for its glyphs, one of the last lines read before the
// block (a CLI's header redrawn while the block streams in below it) is no
// row of the block and is skipped, but for the end marker after a whole
// JSON object, which ends the block wherever it is numbered (a view
// scrolled twice in a moment numbers the block's rows afresh). A block the program showed with rows
// left out ([Parser.Elided]: Codex's and Claude Code's "… +N lines") is
// dropped without an error: the program cut it, not the agent; so is a
// command wrapped over rows that such a row follows ([Parser.ElidedHeld]),
// unless the rows left out are away from its last row, which left room
// for any word (its line ended there), and a block in a lossy box whose
// JSON no longer parses, one of whose rows held wide characters and ended
// inside a JSON string: the box cut that row where its wide characters
// overflowed it — or that goes on in the next row inside a JSON string,
// in a box not known to be as wide as its terminal ([Parser.BoxSized]):
// the box may have cut that row after its last whole word that fit,
// dropping the rest of the terminal's row — or one of whose rows reached
// the box's last column outside a JSON string, in such a box: the box may
// have cut the terminal's row there (`"topic"` over the end marker). A
// block in a lossy
// box is read as no command at all where the box, printed done, cut a row
// of its JSON string so (what the string shows lost the text after the
// cut, though the JSON may still parse; the box of a command at work,
// [Parser.BoxAtWork], wraps such a row), or where a row of a JSON string starts
// with a word that would have fitted on the row before (a row with no
// wide character): the box did not wrap the string there, it dropped the
// rest of its terminal's row; no error either, unless its JSON parses (a
// wrong target or field is its author's, whatever the box cut).
// An open block is not [Parser.Pending] —
// agents may pause in the middle of one — and [Parser.Flush] reports it as
// unterminated.
//
// Escape: `\@relay:`, `\@thinking:`, `\[[RELAY]]` and `\[[/RELAY]]` at the
// start of a line (after prefix removal) are literal text. [EscapeLine]
// produces exactly that, so text typed into an agent and echoed back by its
// terminal is never read as a command.
//
// Rows are joined with one space, as a word wrap ate one; a program that
// breaks words where Unicode's line breaking allows it
// (Options.BreaksWideRuns: in runs of wide characters, after a hyphen,
// slash, bar, colon, semicolon or opening bracket, or a number after its
// thousands separator or decimal point, "1," then "234", "1,234." then "56";
// Options.BreaksAfterPunctuation: only after that punctuation) gets a row
// that ends there, and a next row whose first word would not have fitted
// even without a blank, joined without one (in a block's string too,
// after a backslash only before another in a full row: a row that ends
// inside an escape is broken anyway, and one that ends after a whole
// escape was broken at a blank unless the next row starts with a
// backslash too, the only break Unicode's line breaking allows there, and
// the next backslash would not have fitted; a program that breaks only
// after punctuation breaks after an escaped backslash inside a word too,
// "C:\\" then "path\\x", not after one that is a word of its own).
// In a run of wide characters the next row's first word is its first
// character with the closing punctuation after it (a quote, a bracket);
// a row that had room for a blank and that word was drawn at another
// width, and the run is taken as broken. In a block's string, a row that
// ends with a wide character and a next row that starts with an escaped
// line break ("\n") were broken there too, on the same terms: a line of
// a message rarely ends with a blank; so were a row that ends with an
// escaped line break and a next row that starts with a wide character
// (both kinds break before one), a line of a message rarely starting with
// a blank: the next row's first word is then its first character, or its
// run of them where the program moves a run whole.
// Down a gutter, the row's text counts, not the gutter. A program that
// wraps a word only with the blank after it (Options.WrapsWithBlank:
// opencode) lets a row reach the column after the one it wraps at only
// with a line's last word or a word it broke with no blank: such a row,
// the next row starting with no blank, ended its line, and inside a
// block's string it joins the next row with no blank — unless that row
// starts a column further than the block's opening row, the blank the
// program moved there along with the word before it seen.
//
// A program that cuts a row short with … at its end (Options.CutsRows:
// opencode's collapsed view of a long output, its last row cut, then
// "Click to expand") shows only the start of a command whose last row, or
// whose target, ends so: it is not read, and is no error; a block such a
// row cuts ends there, with no error either. So does a block opened in a
// box whose bottom border comes before the block's end marker: the box
// showed only so many rows of it (Gemini CLI's box of a running command's
// last rows). When the box is drawn again (the finished command's) with
// the block's first rows where they were or moved up (read already: no
// other row read since showed there) and right under them the block's
// next row (a member after a comma, the object's end, the end marker
// after the object), the block goes on there; what it then holds that
// does not read as a block is the program's cut, no error. A row of the
// box above an open block's first row is the box drawn again from higher
// up (scrolled as output pours in): the block as read so far is dropped,
// no error, and the box's rows are read afresh.
//
// Bodies keep wide characters and emoji intact. Inline commands are limited
// to [Options.MaxBlock] bytes of source text as well.
package parser
