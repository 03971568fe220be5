// Package spawner runs programs in pseudo-terminals and turns what they
// draw into a stream of committed lines.
//
// A [Process] is a program started with [Start] in its own session and
// process group on a PTY. Everything written to the PTY — keystrokes,
// pasted text, injected messages and the emulator's replies to terminal
// queries — goes through one FIFO writer, so no two writes interleave.
// [Process.Stop] sends SIGTERM to the group and SIGKILL after a grace
// period; when the program exits, whatever is left of its group is killed,
// the rest of its output is read to the end, and then [Process.Done]
// closes.
//
// Each process has a [Screen], a VT emulator (github.com/charmbracelet/x/vt)
// that a UI can snapshot and render, with bounded scrollback. A Screen also
// works without a process ([NewScreen]) for replaying recorded output.
//
// # Committed lines
//
// A committed line is one line of output as the screen shows it: carriage
// returns, erases and overwrites applied, escape sequences gone, rows the
// terminal wrapped joined back, trailing blanks trimmed. Each line a
// program writes is committed once per occurrence, so a relay command is
// extracted once however often it is repainted. The rule:
//
//  1. A line is identified by its position: rows scrolled off the top so
//     far plus its row (Line.N). Positions follow the content when the
//     screen scrolls or lines are inserted or deleted.
//  2. A line is committed when the cursor leaves it downwards (a line feed,
//     or any cursor movement to a lower row) or when it scrolls off the
//     top. Wrapping to the next row is not leaving. A blank line counts
//     only when a line feed left it: a cursor jump from an empty row is not
//     output.
//  3. If the line's text is what was last committed at its position,
//     nothing is committed: a repaint in place (spinners, progress bars, a
//     region erased and redrawn with the same text).
//  4. If the text was committed at another position that no longer shows
//     it, or was replaced there within the last two screenfuls of lines,
//     the line moved (an Ink-style region that grew or shrank above it):
//     its record moves along and nothing is committed.
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
//     cursor up have no zone: their lines are committed at once.
//  7. [Screen.Flush] commits everything still uncommitted, the cursor line
//     included.
//
// The result does not depend on how the output is cut into writes: a line
// split across reads comes out whole, and a cut inside an escape sequence
// or a character changes nothing.
//
// Resizing: a screen made shorter moves the rows above its cursor into the
// scrollback, as a terminal does, and commits the lines of rows cut under
// it; made taller again with its cursor on the bottom row, it takes its
// rows back from the scrollback, recorded as committed. A new width
// reflows the lines on the screen (reflow.go): wrapped anew, each keeping
// its state, so that nothing is committed again; lines that no longer fit
// leave at the top as if they scrolled off. The scrollback keeps its rows
// as they were. A resize that comes while the program is in the middle of
// an escape sequence or a character waits for the end of it.
//
// The alternate screen (full-screen programs such as vim, less or htop)
// is not line output: nothing drawn there is committed, and the main
// screen, untouched meanwhile, is not committed again when the program
// returns to it.
//
// Known limits: a program that stalls longer than the settle time in the
// middle of redrawing a line gets the partial line committed, and the
// complete one after it. A screen too small for the text under its cursor
// is not reflowed but cut (lines committed before keep their record, so
// they are not committed again cut short). Lines are rows of the full width; left and right
// margins (DECSLRM) are not followed. x/vt allocates a 4 MiB buffer for
// escape-sequence strings per emulator.
package spawner
