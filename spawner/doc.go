// Package spawner runs programs in pseudo-terminals and turns what they
// draw into a stream of committed lines.
//
// A [Process] is a program started with [Start] in its own session and
// process group on a PTY. Everything written to the PTY — keystrokes,
// pasted text, injected messages and the emulator's replies to terminal
// queries — goes through one FIFO writer, so no two writes interleave.
// [Process.Stop] sends SIGTERM to the group and SIGKILL after a grace
// period; when the program exits, what is left of its group (told by the
// terminal's hang-up or the stop) gets a short grace to end on its own
// while the rest of its output is read, then SIGKILL; then
// [Process.Done] closes. Swarm holds a descriptor of the terminal's program
// side from the start, so what was typed in and read by none of the group
// is still in the terminal when they are gone: [Process.Unread] has it (a
// program reading lines got it echoed by the kernel, read or not).
//
// Each process has a [Screen], a VT emulator (github.com/charmbracelet/x/vt)
// that a UI can snapshot and render, with bounded scrollback. A Screen also
// works without a process ([NewScreen]) for replaying recorded output.
// A process's screen contains a panic of its model (contain.go): it goes
// on as the emulator alone, commits no line again, and tells
// [Options.OnFault] once ([Fault]); one without a process lets the panic
// through.
//
// # Committed lines
//
// A committed line is one line of output as the screen shows it: carriage
// returns, erases and overwrites applied, escape sequences gone, rows the
// terminal wrapped joined back, trailing blanks trimmed. Each line a
// program writes is committed once per occurrence, so a relay command is
// extracted once however often it is repainted. The rule (mainLines in
// lines.go, the main screen's line committer):
//
//  1. A line is identified by its position: rows scrolled off the top so
//     far plus its row (Line.N). Positions follow the content when the
//     screen scrolls or lines are inserted or deleted — but blank rows
//     inserted among rows that show nothing move nothing a reader sees:
//     the positions stay (Codex inline erases its live area and inserts
//     rows there before writing the finished output on the same rows).
//  2. A line is committed when the cursor leaves it downwards (a line feed,
//     or any cursor movement to a lower row) or when it scrolls off the
//     top. Wrapping to the next row is not leaving. A line whose first
//     rows scrolled off goes on into the top row until the program erases
//     that row whole: what it writes there then is a line of its own. A blank line counts
//     only when a line feed left it: a cursor jump from an empty row is not
//     output.
//  3. If the line's text is what was last committed at its position,
//     nothing is committed: a repaint in place (spinners, progress bars, a
//     region erased and redrawn with the same text).
//  4. If the text was committed at another position that no longer shows
//     it, or was replaced there within the last two screenfuls of lines,
//     the line moved (an Ink-style region that grew or shrank above it):
//     its record moves along and nothing is committed. Text shorter than
//     12 characters (without blanks), right after a new line, is more of
//     the new output: a "}" or "[[/RELAY]]" occurs in every block. Lines
//     that move in one redraw keep their order: a line does not move
//     past the line that moved just before it, one way or the other
//     (Claude Code collapses an output and draws the next one below it;
//     the next block's "{" is not the collapsed block's, moved down past
//     the rows that moved up); a line shown again where it was takes no
//     part in that. Nor does a line move down past two echoes of lines
//     typed: only its own command's echo, printed late over its place,
//     pushes it down past one (a transcript grows at its end: Claude Code
//     inline prints a block whose rows are those of one it collapsed
//     above). Nor is a row of that redraw under a line that moved
//     up, above where the line was, the line committed for its position,
//     though it shows its text: that line was above the one that moved,
//     and this row is new (a program that draws only the cells that
//     changed leaves it alone: Claude Code draws a block where an older
//     block's "[[RELAY]]" and "{" were) — unless that text was the moved
//     line's, or, where the moved line's text was committed for another
//     line too (the move found may be that one's), below the row, up to
//     where the line was: an equal line may have moved into it. A line
//     that gave way to one moving into its place moved as far with its
//     region, and counts as replaced only near
//     where that puts it: Gemini CLI's live box scrolls a row under
//     "… N hidden" and shows it again a frame later, a row lower. A row
//     of the box a command ran in (Layout.ToolBoxes), printed done under
//     its head row, is that box's row, moved from nowhere: the program
//     prints the box afresh in the place of the box at work, from fewer
//     rows hidden, each row lower than the box at work showed it. Nor
//     does a box's count of the rows it hides ("… first 2 lines hidden",
//     Layout.HiddenAbove) move: every box at work counts up through the
//     same rows, and the one the box above showed is that box's.
//  5. Otherwise the line is new output and is committed — also when the
//     same text is on the screen elsewhere: printing a message twice
//     commits it twice.
//  6. When the cursor goes back up (a program redrawing the area it owns,
//     as Ink/React terminal apps do on every frame), the rows from the
//     highest one it reaches down are the redraw zone. Lines left inside
//     the zone are held back instead of committed, because the next frame
//     may change them (text streaming in word by word). A held-back line is
//     committed with the text it then shows when the next trip up stays
//     below it, when it scrolls off, when output has been quiet for
//     Options.Settle ([Screen.Settle]), or at the end ([Screen.Flush]).
//     A line erased before that is dropped. Programs that never move the
//     cursor up have no zone: their lines are committed at once. A frame
//     drawn in a synchronized update (mode 2026) is one trip, however
//     often it goes up and down, and it commits no line above it: a
//     program that draws so draws only the cells that changed (Codex
//     inline), and the rows it left alone are still its live area. Rows
//     of a running command's output that such frames move up under the
//     row that elides its middle ("… +N lines", Layout.Elides) and out of
//     the view there were shown and are shown nowhere else: they are
//     committed as they leave, after the output's first rows above that
//     row, numbered on from the last row that left (mainLines.slid) —
//     unless read already, while output paused as they showed: a row's
//     record moves up with it, frame by frame. An output taller than the
//     screen, whose bottom rows the view shows, slides as a whole: the
//     rows over the elision moved up with the view, and those that left
//     at its top show again when the output is printed whole. With the
//     elision above the screen (the view's top row blank, no row that
//     elides in view: mainLines.tallView), the rows that leave at the
//     top may be rows it leaves out: a paragraph that has left whole (a
//     blank row under it left too) is committed then, in its order; the
//     program prints such an output whole only after clearing the screen
//     and the scrollback, the transcript again (rule 10), where the rows
//     read so are taken as read. A paragraph cut by the view's top when
//     output ends is read where it is printed whole, not in part, and so
//     is one leaving while the screen was resized (laid out anew, rows of
//     it left unseen) — unless the resize itself takes its rest off the
//     top with the blank row under it, as they were shown: it left whole
//     (mainLines.leftWhole).
//  7. [Screen.Flush] commits everything still uncommitted, the cursor line
//     included.
//  8. A line that replaces a committed line in place and is a piece of the
//     paragraph that was there, wrapped or indented anew, is that paragraph
//     redrawn, not new output: Claude Code redraws a tool's output with
//     another wrap, and collapsed, once the tool is done. Its text without
//     blanks and box-drawing characters starts where one of the lines just
//     replaced, or still below it, starts, or goes on where the piece
//     before it (a line or two before) ended, keeping the order of rule 4
//     (the two turns counted from the line that holds the text, not from a
//     rule drawn above it, which holds none). Text found in the middle of
//     a line that was there is new: Gemini CLI draws a command's output
//     where the command, holding the same words, was typed a moment
//     before.
//  9. The program's input box (ScreenOptions.Layout: an agent CLI keeps its
//     cursor in it) is what is being typed, not output: when output
//     settles, the lines of the box around the cursor are taken as seen,
//     never committed; so is the program's live status row ("esc to
//     interrupt"), wherever it shows. A running command's latest output
//     rows, held back in the redraw zone above "… +N lines (1s)"
//     (Layout.Preview), are a preview: not committed when output settles;
//     the output is read where the program prints it whole. Drawn afresh
//     (after a resize), its rows are left before the count under them is
//     drawn: the count takes back those not taken yet, and the replay
//     rule forgets them (drawn again whole, they are new).
//     A box a command ran in (Layout.ToolBoxes: Gemini CLI's) that the
//     screen showed at work with output under its head row, as a write
//     ended, or at work as two writes ended with its mark turned between
//     them (still at work a frame after it showed), is remembered by its
//     title: the head row committed once the
//     command is done says so (Line.ShownRunning), for the box's rows were
//     then its terminal's rows whole, at the box's width.
//  10. Replays: after the program clears the scrollback (ESC[3J, as Ink does
//     when it repaints everything: clear, all its static output again, the
//     live area), and until output pauses, a line that repeats what was
//     committed before, in the same order, is not committed again, however
//     long the history; a line that repeats nothing is committed, and the
//     replay goes on after it, from wherever the next line is found — but
//     a line as common as "{" or "[[/RELAY]]" right after such a new line
//     takes it on only where the replay expected it (or where the program
//     draws again after a resize; not in lines it drew before, held back
//     and committed after): else it is more of the new output, not an old
//     block's row; nor does
//     such a line begin a replay after a long line that repeated nothing,
//     under a clear that kept the scrollback. A line that goes on from
//     where the replay is, over whole committed lines, into a row where
//     the program left rows out ("… +N lines") is those lines and the
//     rows left out, shown now (Codex inline writing its transcript again
//     for a new size); the line after it may end with the lines committed
//     after that row. Once the
//     replay repeated the echo of the command typed last, a line under it
//     repeats only lines committed since: older text is that command
//     printing it again (a file printed twice); so does a line right
//     after a new one there, or right under that echo, however common,
//     also after a resize (a new block's "type" row is not that of an
//     older block shown collapsed above, nor its "[[RELAY]]" that of one
//     cut off above). The rows under an echo
//     of typed input that repeats nothing (a command the replay has not
//     seen) repeat no line above where the replay got to, however
//     common, after a resize too: they are that command's output. An
//     echo counts from when the transcript shows it, also one that
//     committed nothing (moved there out of the input box), and so do
//     the rows that continue it, also those that committed nothing
//     (drawn where the input box showed them typed). A new line a
//     replay at a new width shows amid history, in the synchronized
//     update that draws it, and that leaves the screen before the update
//     ends with history after it, was shown only in passing (Codex
//     inline shows a long output's last rows, as many as fit at the new
//     width): it is not committed. Rows the update left on the screen
//     were shown, whatever scrolls them off later, and so is new output
//     after the history; nothing is held outside an update (a busy
//     program never pauses). A screen whose rows the program erased one
//     by one before drawing from its top (Claude Code, when its live
//     area grows taller than the screen: it draws the area's last rows)
//     and that, drawn, shows no echo of a line typed, fits the screen
//     and was not resized, shows rows under the echo of the command
//     typed last: they repeat only lines committed since that echo (a
//     file printed again, its first rows and echo cut off above) — a row
//     of it that shows the text of an older line at that row, or a few
//     rows under it, too, where new output goes on under it: not that
//     line shown again or moved up (another block's "[[RELAY]]" was
//     there); the rows under the last new one are the program's own (its
//     rules, the input box), drawn again. A box a command ran in whose
//     head row was committed done since the clear (Gemini CLI writes its
//     transcript again, the box at work in it, then prints the box done)
//     is printed for the first time: its rows repeat no line, though
//     they say what the box at work's rows said (mainLines.newDoneBox).
//
// The result does not depend on how the output is cut into writes: a line
// split across reads comes out whole, and a cut inside an escape sequence
// or a character changes nothing.
//
// Resizing: a screen made shorter moves the rows above its cursor into the
// scrollback, as a terminal does, and commits the lines of rows cut under
// it; made taller, it takes rows back from the scrollback, recorded as
// committed, as tmux does: what is on the screen, the cursor too, moves
// down by the rows that come back. A new width
// reflows the lines on the screen (reflow.go): wrapped anew, each keeping
// its state, so that nothing is committed again, the cursor where it was
// in its line (after a character that fills the new row, waiting to wrap); lines that no longer fit
// leave at the top as if they scrolled off. The scrollback is laid out
// again too, a line at a time; a line that straddles it and the screen is
// laid out whole. A resize that comes while the program is in the middle of
// an escape sequence waits for the end of it; a character cut short is
// held back, and printed after the resize where the cursor then is.
//
// A screen resized and back with nothing drawn between commits what one
// never resized commits. The rules above read rows around a line (a line
// moved from a row that no longer shows it, a paragraph drawn anew goes on
// into the rows under it), and a resize takes rows off that a screen of the
// old size would still have: rows under the cursor a shorter screen cuts or
// a reflow gives up, erased rows a reflow sends off the top. Those rows,
// with the text committed for their lines, are kept as what a screen never
// resized would still show (unresized in unresized.go), and read as the
// screen's own rows are, until the program writes: then it draws for the
// size it has, and an erased row among them is a line that left erased, as
// one that scrolls off erased is (rule 4's lines replaced).
//
// A program that draws only the cells that changed since its last frame
// (Claude Code inline) may draw one more frame for the old width right
// after a change of width, before it takes the resize in: up as many rows
// as its last frame had, over rows laid out anew, keeping cells that are
// no longer those it drew there. A reader sees garbled rows, until the
// program erases the screen and draws anew for the new width. A trip up
// since a change of width, before output pauses or a frame reaches the new
// edge and stops there, that runs text past the new edge and moves the
// cursor over cells that show text is such a frame: the lines it holds
// and draws are not committed, as it leaves them or as they scroll off
// (mainLines.oldFrameFound). That counts on the program drawing them again
// once it takes the resize in: the rule holds only for a program known to
// (screenmodel.Layout.RedrawsAfterResize); for any other, what the frame
// showed is read. A program that writes its rows whole (Ink) keeps no
// cells: its rows the terminal wrapped are its text.
//
// # The alternate screen
//
// Full-screen chat views (Claude Code's default renderer, Codex, opencode)
// draw their whole session on the alternate screen, where nothing scrolls
// with line feeds: the view is repainted, scrolled by redrawing, items
// collapse and expand, everything is redrawn on resize and when the user
// scrolls back. The screen reads it as a view of a document the program
// keeps and commits each row of that document once (altView in
// altscreen.go, with its aligner in frames.go):
//
//  1. A frame is read when one is complete: at the end of a synchronized
//     update (mode 2026), before the view is erased or the cursor sent
//     home, when the cursor goes back up (a program redrawing what changed
//     from the top down starts its next frame), when output pauses
//     (Options.Settle), on resize, on leaving, at the end. Rows that
//     scroll off in between are read with the next frame. An erased view,
//     read as the program starts drawing anew, showing no row, is no
//     frame: the next one is read against the last that showed rows.
//  2. Rows are compared by their key: the text without blanks and
//     box-drawing characters, so that gutters, borders and indents do not
//     count. Blank rows and rules take no part. The program's own rows
//     around its transcript (opencode's input box, the footer under it,
//     "▣  Build · model" under an answer: Layout.BoxAndUnder,
//     Layout.AnswerFooter) are aligned as any row, for where they are
//     tells where the transcript ends, but never committed: the output
//     grows above them. An echo whose mark is a spinner while the command
//     runs (Layout.Spinner) is read as the echo where it heads its box,
//     or its mark turns at its row, the rest the same; a row of output of
//     that shape (a file printed) is text, read as shown. On the view's
//     top row the spinner may hide part of another row, read only where
//     shown whole; alone there after the gutter (over a blank row), it is
//     no text at all (Layout.BareSpinner); in front of text, it hides
//     the row's first cell (Layout.SpinnerOver: the blank kept at a wrap).
//     The hint under an output shown collapsed (Layout.Collapsed) reads
//     the same under every output: taken for the row of one read before,
//     it is read again where the rows above it are others than then,
//     rows counted from the last long row above it: with that row out of
//     view (scrolled off the top) the rows above say nothing, and the
//     hint is not read again. Where rows among those show for the first
//     time (a view too short for them, grown), read after the hint, it is
//     read again under them as they settle: what they open was cut. A
//     hint shown further down than the last frame showed one, alone (the
//     row that frame showed above it shows other text), the view not laid
//     out anew, is a new output's: a view's text moves up as output comes
//     under it (any other row alone may be pushed down by the paragraph
//     above it growing, in a view not yet full).
//  3. The frame is aligned with the document: the longest chain of its rows
//     that equal document rows in the same order, preferring rows that stay
//     together, then the newest. Rows of the chain that cannot be taken
//     (below) are left out and the chain chosen again, up to twice: short
//     rows of an older block may outweigh the rows a view scrolled up; the
//     choice that keeps the most rows stands. Chosen again, rows are taken
//     only in a run that stands on its own (below): a row alone, or short
//     rows that moved together, as every block's "[[RELAY]]" and "{" do,
//     are no support — but a long row the last frame showed is, while the
//     program lays its view out anew after a resize (its rows wrapped
//     anew match nothing around it). A row matched alone, away from its neighbours, or
//     with neighbours that are all shorter than 12 characters ("{", "}",
//     "[[RELAY]]": every block has them), is taken only if the last frame
//     showed it: the same text printed again is new output. A short row,
//     there too: where the last frame showed it, or moved as far as rows
//     matched with support moved (a view that scrolls moves its rows
//     together; a new output's "[[/RELAY]]" among new rows is not an old
//     one's the last frame showed elsewhere) — where it showed it, only in
//     a view that stayed (a long row showing where it showed too, or
//     changed in place there, keeping its start and end, or showing a piece
//     of the last frame's text wrapped anew; not long rows all replaced by
//     unrelated text), and where the document rows right above and under
//     it, shown then, show there still (or out of the frame): a new output
//     drawn where the view showed an older one has its "[[/RELAY]]" where
//     the older one's was, also under a notice that stays at the view's
//     bottom while the output scrolls up past it. Short rows the
//     last frame showed that moved together as far are taken where the
//     document rows right above and under them, shown then, moved as far
//     too (or out of the frame): a view that moves takes a block's "}" and
//     "[[/RELAY]]" with the rows around them. A row the last frame showed
//     counts more than one it did not: a long output printed again below
//     the old one is new, not the old one scrolled into view — unless that
//     frame was only what the terminal kept of the view through a resize,
//     the program having drawn nothing since: its view laid out anew shows
//     rows wherever it puts them. Of rows alike (a "⎿  Interrupted" under
//     each turn's output), in a view that stayed, or what a resize left of
//     one, the one the last frame showed where this one shows it counts
//     more. A row that by its look continues no echo of a line typed
//     (its indent, a mark: output) is no row shown continuing one (a
//     command that prints what it was given: keys leave the indent out).
//     A row that would show (at the same size,
//     or once the program has laid its view out for a new one and its
//     output settled) under more echoes of typed input
//     (ScreenOptions.Layout) than the document holds there, or under as
//     many with the nearest one of another line than the document's
//     nearest, is not taken: a transcript grows at its end, and rows under
//     a new turn are its output (a file printed again, a block whose rows
//     are those of the block before), not old rows moved, even when an
//     older output collapsed above moves them up. Nor is a row above the
//     echo the last frame showed of a line typed once a document row
//     under that echo that no frame has shown since the echo first
//     showed: the turn's rows went in above it (opencode's output shown
//     collapsed at one width and whole at a wider one keeps its collapsed
//     rows, and the view laid out narrow again shows them above the
//     turns read between). An echo above the rows
//     the last frame showed, all shown again moved down as far (the view
//     scrolled back, or grown taller above them; all that still fit above
//     the program's input box: opencode pages back half its view, the
//     lower half behind the box; from the first the last frame showed
//     whole: a spinner alone on its top row is gone once the view moves),
//     is no new turn: it is history the view shows now, as a new turn
//     moves the rows above it up — unless the frame shows more of the
//     last frame's rows moved up together than moved down: the view
//     followed new output up (a file printed again, its last rows alike
//     those of its first print the last frame showed at its top).
//     Nor is any echo a view scrolled back shows: one the document lacks
//     is that of a turn whose first rows a short view had cut.
//     When the last frame showed the echo of the latest turn with only its
//     own rows under it, and this one, not scrolled back (its rows all
//     shown again lower down say it was, with no hint), no longer shows
//     it, the view followed that turn's output down past it: a row the last
//     frame did not show is no row above that echo (a file printed again,
//     its rows those of its first print), nor is one it showed, shown
//     lower down where more of the long rows around it show other text
//     than show moved along: a view that follows an output down moves
//     what it showed up (a new output's "Click to expand" lower than the
//     older one's). So too when the program, at work
//     on a turn (its status row shows), neither scrolled back nor laying
//     its view out anew, shows none of the transcript rows the last frame
//     showed: a program takes its view back a part of it at a time (a page
//     is half a view), so the view moved on past all it showed, to the
//     turn's output, whose echo it may never have shown (opencode): a row
//     the last frame did not show is no document row, nor the text of one
//     wrapped anew. An echo drawn in the place of a
//     row that showed the line it echoes (opencode's spinner before the
//     command it runs) is that row changed, not a new turn — first seen
//     later too, when the document holds that row and no echo of the line
//     yet (the view moved on while the line ran, and shows the echo when
//     scrolled back to it). The same holds once the turn is in the
//     document: when the last frame showed the echo of the latest turn and
//     this one shows it again, every row under it is after it in the
//     document (typed once: an echo typed twice leaves it to the
//     alignment). When it does not show it again, rows the last frame
//     showed above it, shown lower now (the same size), are taken only if
//     the rows that were between them and it moved down as far: rows above
//     the latest echo move down only with it (scrolled back) or stay (an
//     output collapsed between), so lower down, with the echo gone and the
//     rows between showing other text there (not rows that stay whatever
//     the view shows, a footer), they are a new output's rows like them
//     ("{", "to", "type"), the view having moved on past the echo. Rows the
//     last frame did not show, matched in a paragraph between rows that are
//     new (text the document holds nowhere near them, not the same text
//     wrapped anew), are new too: a paragraph is drawn whole (the view
//     follows a long output, its echo scrolled off, and a block's "{",
//     "to", "type" rows are those of an older block) — except while the
//     program lays its text out anew after a resize, until its output
//     settles. Rows alike the rows of a paragraph whose first row the
//     view showed as it left its top, where the frame's paragraph goes on
//     otherwise than the document's from there, are another paragraph's
//     (a new block to the same recipient, its "to" and "type" rows those
//     of the block before, over another body); so are short rows ("}",
//     "[[/RELAY]]") right under new text where the document holds other
//     text above them, with only rows across a blank to stand for them or
//     the document's rows shown elsewhere in the frame. So are the view's
//     first rows, alike rows the last frame showed, where the two rows
//     that were under those, moved as far, show long new text (not theirs
//     changed in place): a view that moves takes a paragraph's rows with
//     the rows under them, and a block to the same recipient printed again,
//     its "[[RELAY]]" and "{" above the view's top, shows its "to" and
//     "type" rows over another body — not while the program lays its view
//     out anew after a resize; nor are those rows the older ones wrapped
//     anew (rule 4). Aligned rows are old, wherever they show: scrolled,
//     repainted, scrolled back.
//  4. Between aligned rows, rows whose keys, joined, are the joined keys of
//     document rows there are the same text wrapped anew (a resize, a
//     collapsed item showing its first rows) — not under a new turn, nor
//     amid new text in a paragraph the last frame did not show (new text
//     on one side, new text or the paragraph's end on the other: a new
//     block's "[[RELAY]]", "{", "to", "type" rows, a new output's last
//     row, join as an older one's), as in rule 3, and text shorter than
//     12 characters only where the last frame showed that row: a new
//     block's "[[RELAY]]" is not an older block's shown again; so too the
//     hint under an output shown collapsed (opencode's "Click to expand"),
//     the same under every such output, however long: a new output taller
//     than the view, its echo above the view's top, ends with its own
//     hint, not an older output's. Nor is a
//     row alone, while the program lays its text out anew, a document row
//     with echoes of typed input under it, down to the aligned row under
//     it, that the frame does not show there: a view shows every turn's
//     echo between two rows it shows (a new block's "type" row is not an
//     older block's two turns back). Rows that
//     join as only the start of a document row are that row collapsed
//     only where their paragraph ends there or goes on with the row's
//     text cut short (…), that row too (the rest of the row shown
//     collapsed, no row of its own: taken for new, it would go into the
//     document amid the row's text): a block printed pretty, whose first
//     rows join as the start of an older compact one, goes on with its
//     own body.
//     Text shown twice there is the document's where it goes on as the
//     document does, to a row's end (the other is text alike: an older
//     block's "type" row above the block read); shown as far, it is the
//     document's where the other ends with the rows read from the top of
//     the view (that paragraph's history, rule 6: a line printed twice).
//     The view's
//     first rows, above every aligned row, are matched so with the
//     nearest such text however far back the document holds it: a view
//     laid out anew for a new size shows its history again above outputs
//     it has collapsed since, whose rows lie between in the document —
//     but not rows right above the first aligned row (no blank between:
//     one paragraph) with a turn between the two in the document: a
//     paragraph is one turn's (a file printed again shows its first row,
//     which the view cut while the program worked, once it is done). A
//     frame that aligns with nothing while the program lays its text out
//     anew is matched so from the first row the last frame showed: the
//     view laid out anew and scrolled at once shows none of its rows as
//     they were. So is one that shows the rows the last frame showed,
//     itself text laid out anew, moved down (paged back after a resize:
//     history laid out anew above them), from as far above those rows as
//     the frame could show: history, not a new turn's rows.
//  5. The other rows are new, or changed in place: they pair, in order,
//     with the uncommitted rows the document has there (text streaming in,
//     a spinner) and take their text — above every aligned row, only those
//     with no more turns under them than those rows show (the first rows
//     of an older output shown collapsed, never read, stay pending: a view
//     that followed the latest output down shows that turn's rows); the rest are inserted where they
//     show — as read already while the view is scrolled back (the
//     program's hint to go back to the bottom shows, over a row or in
//     one of its own: Layout.Overlay, Layout.Hint), or, where the
//     program shows no hint, above the rows the last frame showed, all
//     moved down, with the echo of an older turn (one the document holds
//     with a later turn under it) above them, down to the latest turn's
//     echo: it shows history then, laid out anew after a resize, and new
//     output goes on under it, out of view. Rows first shown above the
//     echo of a line typed, read already, while that turn's output may
//     still go on (the program's status row shows, or rows under the echo
//     are not read yet), are history the view shows now (grown, laid out
//     anew), which read in order would land amid that output (an older
//     echo and block inside a block still printing): they are given at
//     once as Line.Late lines, read apart (rule 6), so that a block whole
//     only there is read once. New rows right above an aligned row, under
//     document rows all read that the frame no longer shows, the hint
//     under an output shown collapsed among them, go after those rows: the
//     output's rows its collapse hides (the next turn, shown under the
//     hint, is under all of them).
//  6. A new row is committed once it has shown the same text for the
//     settle time, a paragraph (rows with no blank between them) at a time,
//     and not before the paragraphs above it, down from the echo of the
//     latest turn above it, have settled (an output is read in its order);
//     when it scrolls off or the program hides it, with the text it showed
//     last; when shown again with another wrap, as first shown, after the
//     rows of its paragraph right above it (a paragraph is read in its
//     order, and a new layout leaves short rows as they were). A row's
//     line keeps, from the line of the document row right above it, the
//     distance the frame that showed both last shows between them: a
//     blank row between two paragraphs, one read before the view
//     scrolled and one after, still parts them. While a
//     program whose view grows back when it is done (Claude Code: its
//     status row and hint give their rows back,
//     screenmodel.Layout.GrowsWhenDone) is at work, the paragraph the top
//     of the view cuts waits: its first rows may show once it is done;
//     so do the paragraphs under it, down to the echo of a new turn (the
//     rest of that output, read after it).
//     Once such a paragraph is read from the first row the view showed
//     (at its top, settled there or as it left the view),
//     rows shown later right above that row (the view scrolled back, grown,
//     or laid out anew for a new size, that row wrapped another way) are
//     its history, not new output: a program adds text at a paragraph's
//     end, and read now they would follow its end. So are rows laid out
//     anew that, joined, hold the rows read from that row on at their end,
//     after the part the view cut (that row maybe split between two of
//     them), and the rows right above them. Under a row read as it left
//     the view's top (output streaming through it), they are only where
//     the frame's paragraph goes on from that row as the document does,
//     and shows it: rows alike an older block's "to" and "type" over
//     another body, or cut by the view's bottom edge with nothing under
//     them, are a new block's, not the old one scrolled back (a view at
//     the bottom shows new output). Such history, never read
//     (a block whose "[[RELAY]]" the view cut, whole only now), is given
//     at once as Line.Late lines, followed by the rows of its paragraph
//     read already, again (Line.Again): a reader reads them apart from
//     the lines in order, and a block printed once is read once. Rows of
//     the document that no longer show are kept (a collapsed item that
//     expands again is not new), up to a bound.
//  7. A row a resize cut (the terminal keeps what fits a narrower screen),
//     while the program has not drawn it again, is not read: what is left
//     of a line is not a new line; but the program's row is still there,
//     not hidden: not committed before the rows above it. A row the
//     program wrote since is drawn
//     again, even when it shows just what the resize left. A row the terminal kept through a
//     resize is, until the program draws it again, the row laid out for
//     the old width: its side panel is where that width put it, and its
//     line wraps where that width wrapped it (Line.Cols). A frame drawn
//     after a change of width whose text runs past the right edge, before
//     the program has drawn one that reaches the new edge and stops there,
//     is laid out for the old width (the program has not taken the resize
//     in yet): the rows it drew are not read until the program draws them
//     again. A program that paints its rows out to the edge
//     (ScreenOptions.Layout: opencode) and, after a change of width, paints
//     a frame that stops short of the new edge lays it out for the width
//     it last painted for: its rows wrap where that width wrapped them.
//  8. The rows of the program's input box around the cursor, where the
//     program left it at the end of the frame (ScreenOptions.Layout), are
//     what is being typed: they are no part of the frame; nor is the
//     footer some programs keep under it (Codex's model and directory),
//     nor the menu of its commands a program draws right above its box while
//     one is typed, over the transcript's last rows (Claude Code's "/exit":
//     Layout.Menu; the rows it covers are hidden, not gone),
//     nor the program's live status row, nor the hint it draws under its view
//     while the view is scrolled back (Codex's "↓ Back to bottom"), nor the
//     echo of a message it pins over the view's top row then (Claude
//     Code's: Layout.Pinned), no turn above the rows under it, nor a
//     side panel the program shows beside its text on a wide screen (the
//     box is the rows around the cursor that show text in the program's
//     own columns: the panel shows text beside the transcript's rows), nor
//     a line typed while the program
//     works, waiting under its transcript until the program takes it up
//     (opencode's "$ command"): the transcript shows it where it runs.
//  9. A preview of a tool's output (ScreenOptions.Layout: Claude Code's
//     rows above "… +N lines") is not text to read: while the command
//     runs, its latest rows are no part of the frame (the output is read
//     where the program shows it whole, in its order); once it is done,
//     its first rows, cut at the edge, align with rows read before but
//     are never committed themselves. But the rows the running preview
//     showed for the settle time as it slid by are stitched into the
//     output they belong to (glimpses.go), and once the command is done
//     those of lines the view does not show whole (an output collapsed,
//     or shown whole with the view at its end) are committed, in the
//     output's order, before the frame's rows: a reader saw them there
//     and nowhere else. They go into the document, read already, under
//     the latest turn: a view that shows the output whole later
//     (expanded, or a screen grown) aligns with them. The row read right
//     after rows that slid by too briefly says so (Line.Elided): what
//     was open there, a block whose end a reader never saw, is the
//     program's cut.
//
// A program that is not a chat view (vim, less, htop) commits each row it
// shows once, and a row again only when its text changes: repainting,
// scrolling and paging commit nothing. The main screen, untouched while
// the alternate one is in use, is not committed again when the program
// returns to it. Output replayed without its timing (a raw capture) has no
// settle time: rows settle by frames instead (ScreenOptions.SettleFrames).
//
// Known limits: a program that stalls longer than the settle time in the
// middle of redrawing a line gets the partial line committed, and the
// complete one after it. A screen too small for the text under its cursor
// is not reflowed but cut (lines committed before keep their record, so
// they are not committed again cut short). Lines are rows of the full width; left and right
// margins (DECSLRM) are not followed. x/vt allocates a 64 KiB buffer for
// escape-sequence strings per emulator (a longer OSC or DCS string is cut:
// third_party/vt/SWARM.md, patch 5). On the alternate screen, a row is
// new when no row seen before had its text: a program that shows the same
// text again in a fresh view, with nothing around it that was there too,
// is taken to show the old row; a view scrolled back past the 20,000 rows
// the screen keeps shows rows that are committed again; over 10,000 rows
// pushed off by text that wraps with no control character between two
// frames lose the oldest. A replay is matched against the last 20,000
// lines committed, and one that begins with a line that matches nothing in
// its first 64 lines is no replay. The lines held in one synchronized
// update for a replay at a new width are at most 4096: past that they
// are decided as if the update ended.
package spawner
