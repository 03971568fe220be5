package supervisor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
)

// A command the live box read cut (its rows not yet all shown) and then
// showed whole goes out once, however much output follows: its cut
// reading is held no longer once the whole one went out. It was held, and
// went out again, cut, once the output had gone on past what the done box
// can show (boxReach).
func TestACommandTheLiveBoxSentIsNotSentAgainCut(t *testing.T) {
	t.Parallel()
	var b toolBox
	b.head("Shell Command sh f.sh", true, 1, 48)
	b.row(72, "", true, 0, false) // the box's head: output from line 74
	for n := int64(74); n <= 77; n++ {
		b.row(n, "│ x │", false, 0, false)
	}
	block := func(line int64, body string) parser.Event {
		return parser.Event{Command: &parser.Command{Kind: parser.KindRelay, To: "bob", Body: body, Line: line, FromBlock: true,
			Source: `[[RELAY]]{"to":"bob","body":"` + body + `"}[[/RELAY]]`}}
	}
	out := map[string]int{}
	take := func(ev parser.Event, by int64, whole bool) {
		if whole {
			b.follow(spawner.Line{N: ev.Command.Line}, true)
			for n := ev.Command.Line + 1; n <= by; n++ {
				b.follow(spawner.Line{N: n}, false)
			}
		} else {
			b.follow(spawner.Line{N: by}, true) // a new mapping since its start: not whole
		}
		for _, ev := range b.take([]parser.Event{ev}, spawner.Line{N: by}) {
			out[ev.Command.Body]++
		}
	}
	take(block(75, "cut"), 76, false)    // read across the box's slide: held
	take(block(75, "cut all"), 76, true) // shown whole: goes out
	if out["cut all"] != 1 || out["cut"] != 0 {
		t.Fatalf("after the whole reading: %v", out)
	}
	// Output goes on, each row shown, past what the done box can show
	// again, with commands shown whole in it.
	shown := int64(78)
	for k := int64(1); k <= 3; k++ {
		line := 75 + k*boxReach
		for ; shown <= line+1; shown++ {
			b.row(shown, "│ x │", false, 0, false)
		}
		take(block(line, fmt.Sprint(k)), line+1, true)
	}
	if out["cut"] != 0 {
		t.Errorf("the cut reading of a command sent whole went out too: %v", out)
	}
}

// TestABoxDrawnForAWiderScreenIsNotRead: right after the screen shrinks,
// Gemini CLI may draw a frame or two still laid out for the old width:
// its box's rows are wider than the screen, and the terminal breaks each
// over two rows, pieces of it under pieces of the one above. A reader
// sees no row of the box there; the box drawn again for the screen it
// has, done, is read. Those rows were read whole: the command on one went
// out as no row of the screen showed it, and where the screen drew the
// wider frame twice over, or its pieces, it went out more than once.
func TestABoxDrawnForAWiderScreenIsNotRead(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width before it shrank
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: cols},
		{N: 74, Text: wide("@relay:bob one two three four five"), Cols: cols}, // output row 0
		{N: 75, Text: wide("end"), Cols: cols},
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols},
		{N: 74, Text: narrow("@relay:bob one two three"), Cols: cols}, // the box cut the row
		{N: 75, Text: narrow(""), Cols: cols},
		{N: 76, Text: narrow("end"), Cols: cols},
		{N: 77, Text: boxBottom(cols), Cols: cols},
	}
	wantGeminiBox(t, lines, `bob "one two three" @74`)
}

// TestABoxCutAtTheScreensEdgeIsNotRead: right after the screen shrinks,
// Gemini CLI may draw a frame still laid out for the old width that the
// screen cuts at its right edge instead of breaking its rows: each row of
// the box shows its left part, and no row shows the box's right border. A
// reader sees pieces of a box there, the rest of each row past the edge;
// the box drawn again for the screen it has, done, is read. Those rows
// were read as a box: the command cut at the edge took the next row's
// piece for its continuation, and a command the done box shows again went
// out twice, the cut frame's rows counted from a head row laid out for
// another width (its line wrapped over fewer rows there).
func TestABoxCutAtTheScreensEdgeIsNotRead(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	cut := func(s string) string { // a row of a 48-column box, cut by the screen
		r := []rune(geminiBoxRow(s))
		return strings.TrimRight(string(r[:cols]), " ")
	}
	lines := []spawner.Line{
		{N: 72, Text: cut("⊷  Shell Command sh f.sh"), Cols: cols},
		{N: 74, Text: cut("@relay:bob one two three four five six"), Cols: cols}, // output row 0
		{N: 75, Text: cut("seven eight"), Cols: cols},
		{N: 76, Text: cut(""), Cols: cols},
		{N: 77, Text: cut("@relay:carol hi"), Cols: cols}, // output row 3 at the old width
		{N: 78, Text: cut(""), Cols: cols},
		{N: 79, Text: "╰" + strings.Repeat("─", cols-1), Cols: cols},
		// Drawn again for the screen: its terminal as narrow, the long
		// line over one more row, hidden.
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols},
		{N: 74, Text: narrow("... 3 hidden (Ctrl+O) ..."), Cols: cols},
		{N: 75, Text: narrow(""), Cols: cols},                // output row 3
		{N: 76, Text: narrow("@relay:carol hi"), Cols: cols}, // output row 4
		{N: 77, Text: narrow("end"), Cols: cols},
		{N: 78, Text: boxBottom(cols), Cols: cols},
	}
	wantGeminiBox(t, lines, `carol "hi" @76`)
}

// TestADoneBoxDrawnForAWiderScreenIsRead: Gemini CLI may print a
// command's box done still laid out for the screen's old width, right
// after the screen shrank; the terminal breaks each of its rows over two
// lines, and the box stays so in the transcript (the program prints a done
// box once). A reader reads its rows across those breaks: the commands on
// them, a command over two of its rows whole. Its box at work, drawn so, is
// drawn again at its next frame, for the screen the program has: not read.
func TestADoneBoxDrawnForAWiderScreenIsRead(t *testing.T) {
	t.Parallel()
	const cols = 30
	wide := geminiBoxRow // 48 columns: two lines of the screen each
	lines := []spawner.Line{
		{N: 81, Text: wide("⊷  Shell Command sh f.sh"), Cols: cols},
		{N: 85, Text: wide("@relay:carol hi"), Cols: cols},
		{N: 80, Text: "╭" + strings.Repeat("─", 46) + "╮", Cols: cols},
		{N: 81, Text: wide("✓  Shell Command sh f.sh"), Cols: cols},
		{N: 83, Text: wide(""), Cols: cols},
		{N: 85, Text: wide("@relay:carol hi"), Cols: cols},
		{N: 87, Text: wide("@relay:bob one two three four five six seven"), Cols: cols}, // to the box's edge
		{N: 89, Text: wide("eight nine"), Cols: cols},
		{N: 91, Text: wide("end"), Cols: cols},
		{N: 93, Text: boxBottom(48), Cols: cols},
	}
	wantGeminiBox(t, lines, `carol "hi" @85`, `bob "one two three four five six seven eight nine" @87`)
}

// TestADoneBoxDrawnWiderShowsTheLiveBoxsRows: the box at work read on the
// screen it was drawn for, before the screen shrank, and then printed done
// for that width, each row broken over two lines: a row of the done box is
// the row of the output two lines of the screen further down, not one. The
// commands the live box showed whole went out again where the done box
// showed them, taken for rows further down the output.
func TestADoneBoxDrawnWiderShowsTheLiveBoxsRows(t *testing.T) {
	t.Parallel()
	wide := geminiBoxRow // 48 columns
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50},
		{N: 74, Text: wide("@relay:carol hi"), Cols: 50}, // output row 0
		{N: 75, Text: wide("two"), Cols: 50},
		{N: 76, Text: wide("@relay:dave three"), Cols: 50}, // output row 2
		{N: 77, Text: wide("four"), Cols: 50},
		{N: 78, Text: boxBottom(48), Cols: 50},
		// The screen shrank to 30 columns; the box printed done for 50.
		{N: 80, Text: "╭" + strings.Repeat("─", 46) + "╮", Cols: 30},
		{N: 81, Text: wide("✓  Shell Command sh f.sh"), Cols: 30},
		{N: 83, Text: wide(""), Cols: 30},
		{N: 85, Text: wide("@relay:carol hi"), Cols: 30}, // output row 0
		{N: 87, Text: wide("two"), Cols: 30},
		{N: 89, Text: wide("@relay:dave three"), Cols: 30}, // output row 2
		{N: 91, Text: wide("four"), Cols: 30},
		{N: 93, Text: boxBottom(48), Cols: 30},
	}
	wantGeminiBox(t, lines, `carol "hi" @74`, `dave "three" @76`)
}

// TestADoneBoxANarrowerScreenPushedOffShowsTheLiveBoxsRows: the box at
// work showed a relay under its output's first rows hidden; then the
// screen narrowed as the box was printed done, and the terminal pushed
// its rows off the top rewrapped, each over two lines (Line.Rows). A row
// of the done box is the row of the output two lines further down, not
// one: counted a line a row, the done box put the relay at another row of
// the output than the live box did, and it went out twice (issue 29:
// holdout-20261128s gemini-s14700016).
func TestADoneBoxANarrowerScreenPushedOffShowsTheLiveBoxsRows(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow // 48 columns
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh"), Cols: 50},
		{N: 74, Text: row("... first 3 lines hidden (Ctrl+O) ..."), Cols: 50},
		{N: 75, Text: row("tell"), Cols: 50},                   // output row 3
		{N: 76, Text: row("@relay:bob alpha bravo"), Cols: 50}, // output row 4
		{N: 77, Text: row("charlie"), Cols: 50},
		{N: 78, Text: boxBottom(48), Cols: 50},
		// Done, printed for 50 columns; the screen narrowed to 30 and
		// pushed its rows off, each over two lines.
		{N: 80, Text: row("✓  Shell Command sh f.sh"), Cols: 50, Rows: 2, ShownRunning: true},
		{N: 82, Text: row(""), Cols: 50, Rows: 2},
		{N: 84, Text: row("... first 4 lines hidden (Ctrl+O) ..."), Cols: 50, Rows: 2},
		{N: 86, Text: row("@relay:bob alpha bravo"), Cols: 50, Rows: 2}, // output row 4
		{N: 88, Text: row("charlie"), Cols: 50, Rows: 2},
		{N: 90, Text: boxBottom(48), Cols: 50, Rows: 2},
	}
	wantGeminiBox(t, lines, `bob "alpha bravo" @86`)
}

// TestABoxsCommandsGoOutInTheOrderOfItsRows: a command Gemini CLI's live
// box showed on a row the done box shows unchanged (the same text at the
// same position: not committed again) is read only in the live box; it
// goes out where it stands in the output, after the block above it that
// the live box showed across two frames and the done box shows whole,
// before the command under it. It went out first: what only the live box
// showed was read before everything the done box showed.
func TestABoxsCommandsGoOutInTheOrderOfItsRows(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	bottom := boxBottom(48)
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 74, Text: row("[[RELAY]]")}, // output row 0
		{N: 75, Text: row(`{"to":"bob","body":"first"}`)},
		{N: 76, Text: row("")},
		{N: 77, Text: bottom},
		// The next frame: the box one row longer, its rows above the
		// same, not committed again.
		{N: 76, Text: row("[[/RELAY]]")},
		{N: 77, Text: row("@relay:carol second")}, // output row 3
		{N: 78, Text: row("")},
		{N: 79, Text: bottom},
		// Done: the rows that changed.
		{N: 72, Text: row("✓  Shell Command sh f.sh")},
		{N: 74, Text: row("[[RELAY]]")},
		{N: 75, Text: row(`{"to":"bob","body":"first"}`)},
		{N: 76, Text: row("[[/RELAY]]")},
		{N: 78, Text: row("@relay:dave third")}, // output row 4
		{N: 79, Text: bottom},
	}
	wantGeminiBox(t, lines, `bob "first" @74`, `carol "second" @77`, `dave "third" @78`)
}

// TestReadingsThroughBoxesOfTwoWidthsAreOneCommand: Gemini CLI's box drops
// what does not fit it where it wraps a row of its terminal; the screen
// widened while the command ran, and the live box, drawn wider, showed a
// word of a relay line the narrower one had dropped. Both readings start
// on the same row of the output: one command, read once, as the reading
// that shows the most shows it. The one that lost the word went out too.
func TestReadingsThroughBoxesOfTwoWidthsAreOneCommand(t *testing.T) {
	t.Parallel()
	boxRow := func(width int) func(string) string {
		return func(s string) string {
			return "│ " + s + strings.Repeat(" ", width-4-utf8.RuneCountInString(s)) + " │"
		}
	}
	narrow, wide := boxRow(44), boxRow(52)
	lines := []spawner.Line{
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh")},
		{N: 74, Text: narrow("... first 6 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: narrow("@relay:bob alpha beta gamma delta")}, // output row 6
		{N: 76, Text: narrow("zeta")},                              // "epsilon" dropped at the wrap
		{N: 77, Text: narrow("")},
		{N: 78, Text: "╰" + strings.Repeat("─", 42) + "╯"},
		// Wider, the next frame.
		{N: 72, Text: wide("⊷  Shell Command sh f.sh")},
		{N: 74, Text: wide("... first 6 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: wide("@relay:bob alpha beta gamma delta epsilon")},
		{N: 76, Text: wide("zeta")},
		{N: 77, Text: wide("")},
		{N: 78, Text: wide("more output")},
		{N: 79, Text: "╰" + strings.Repeat("─", 50) + "╯"},
		// Done, the output's last rows.
		{N: 72, Text: wide("✓  Shell Command sh f.sh")},
		{N: 74, Text: wide("... first 9 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: wide("more output")},
		{N: 76, Text: wide("end")},
		{N: 77, Text: "╰" + strings.Repeat("─", 50) + "╯"},
	}
	wantGeminiBox(t, lines, `bob "alpha beta gamma delta epsilon zeta" @75`)
}

// TestAHiddenRowThatStayedStillMapsTheBox: Gemini CLI's live box draws a
// frame whose head row changed (its spinner turned) but whose "first N
// lines hidden" row stayed as it was, and the spawner commits only the
// rows that changed. The rows under it are still the output's rows from
// N on, not from its first: a command the frame showed more of is the
// same command, read once. Its rows were taken for the output's first
// rows, and the command went out twice, cut and whole.
func TestAHiddenRowThatStayedStillMapsTheBox(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	bottom := boxBottom(48)
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 74, Text: row("... first 6 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("@relay:bob one")}, // output row 6, cut by the box's bottom
		{N: 76, Text: bottom},
		// The next frame: the head row's mark turned, the hidden row stayed.
		{N: 72, Text: row("⊶  Shell Command sh f.sh")},
		{N: 75, Text: row("@relay:bob one two")},
		{N: 76, Text: row("")},
		{N: 77, Text: bottom},
		// Done, from further down.
		{N: 72, Text: row("✓  Shell Command sh f.sh")},
		{N: 74, Text: row("... first 8 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("end")},
		{N: 76, Text: bottom},
	}
	wantGeminiBox(t, lines, `bob "one two" @75`)
}

// TestABlockGoesOnThroughBoxRowsThatStayed: Gemini CLI's live box showed
// a block's first rows, cut by its bottom border, and drew them again;
// done, the box shows the block whole. The spawner commits only the rows
// that changed (the head row's mark, the opening marker drawn anew, the
// end marker where a blank row was): the block's JSON row stayed as it
// was, on the screen, and the block is read through it. The block was
// read with that row missing, and lost.
func TestABlockGoesOnThroughBoxRowsThatStayed(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	bottom := boxBottom(48)
	lines := []spawner.Line{
		{N: 72, Text: row("⊶  Shell Command sh f.sh")},
		{N: 73, Text: row("")},
		{N: 74, Text: row("[[RELAY]]")},
		{N: 75, Text: row(`{"to":"bob","body":"mind\nover"}`)},
		{N: 76, Text: row("")},
		{N: 77, Text: bottom},
		// The next frame, drawn anew after a resize: the spawner commits
		// the head row and the marker again, not the row under it.
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 74, Text: row("[[RELAY]]")},
		{N: 76, Text: row("")},
		{N: 77, Text: bottom},
		// Done: the rows that changed.
		{N: 72, Text: row("✓  Shell Command sh f.sh")},
		{N: 76, Text: row("[[/RELAY]]")},
		{N: 77, Text: row("end")},
		{N: 78, Text: bottom},
	}
	wantGeminiBox(t, lines, `bob "mind\nover" @74`)
}

// readGeminiBox reads lines as committed from Gemini CLI's screen and
// returns each command as `to "body" @line`, and each error's text, in
// the order the reader gives them, flushed at the end.
// wantGeminiBox checks that reading lines as Gemini CLI's rows finds
// exactly the commands want, in order.
func wantGeminiBox(t *testing.T, lines []spawner.Line, want ...string) {
	t.Helper()
	if got := readGeminiBox(lines); !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
}

func readGeminiBox(lines []spawner.Line) []string {
	r := newCommandReader(parser.Options{}, screenmodel.Of("gemini"))
	var got []string
	take := func(evs []parser.Event) {
		for _, ev := range evs {
			if ev.Command != nil {
				got = append(got, fmt.Sprintf("%s %q @%d", ev.Command.To, ev.Command.Body, ev.Command.Line))
			} else {
				got = append(got, ev.Err.Error())
			}
		}
	}
	for _, l := range lines {
		take(r.read(l))
	}
	take(r.flush(true))
	return got
}

// TestABoxPrintedDoneNarrowerThanItRanIsCut: Gemini CLI made the terminal
// a command ran in as wide as its box at work; the screen shrank before
// the command ended, and the box printed done for the new width shows
// each row of that terminal cut at the last blank that fits, the rest
// dropped. A row cut so may reach the box's last column after a whole
// word: it broke no word, and the next row is the terminal's next, after
// what was dropped. The command the live box showed whole is read as it
// showed it, once. The done box's rows were read as the terminal's rows
// whole (the box seen at work), the words at the cut joined into one
// ("fifteenseven"), and that reading went out too.
func TestABoxPrintedDoneNarrowerThanItRanIsCut(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width while it ran
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50},
		{N: 73, Text: wide(""), Cols: 50},
		{N: 74, Text: wide("@relay:bob one two fifteen four five six ab"), Cols: 50}, // output row 0, the blank at the edge
		{N: 75, Text: wide("seven eight"), Cols: 50},
		{N: 76, Text: wide(""), Cols: 50},
		{N: 77, Text: boxBottom(48), Cols: 50},
		// The screen shrank; the box printed done for it.
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, ShownRunning: true},
		{N: 73, Text: narrow(""), Cols: cols},
		{N: 74, Text: narrow("@relay:bob one two fifteen"), Cols: cols}, // cut after a whole word, at the edge
		{N: 75, Text: narrow("seven eight"), Cols: cols},
		{N: 76, Text: narrow("end"), Cols: cols},
		{N: 77, Text: boxBottom(cols), Cols: cols},
	}
	wantGeminiBox(t, lines, `bob "one two fifteen four five six ab seven eight" @74`)
}

// TestALiveBoxRightAfterAResizeIsReadOnceLaidOut: the screen shrank while
// a command ran; Gemini CLI draws its box at work for the new width at
// once, but for a frame or a few it shows the rows of the command's
// terminal still as wide as the old box, each cut at the last blank that
// fits ("three", its line's end dropped), counted as that terminal counts
// them; then it makes the terminal as wide as the box, whose rows wrap
// the line whole, counted anew. A reader who saw the box settle reads the
// line as it shows then, once. The cut reading went out at once, the rows
// under it read, and the whole one was taken for the same command read
// again.
func TestALiveBoxRightAfterAResizeIsReadOnceLaidOut(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width before it shrank
	at := msAfterStart
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
		{N: 73, Text: wide(""), Cols: 50, Time: at(0)},
		{N: 74, Text: wide("... 2 hidden (Ctrl+O) ..."), Cols: 50, Time: at(0)},
		{N: 75, Text: wide("progress 10%"), Cols: 50, Time: at(0)}, // output row 2
		{N: 76, Text: boxBottom(48), Cols: 50, Time: at(0)},
		// Shrunk: the old terminal's rows, cut.
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols, Time: at(1000)},
		{N: 73, Text: narrow(""), Cols: cols, Time: at(1000)},
		{N: 74, Text: narrow("... 2 hidden (Ctrl+O) ..."), Cols: cols, Time: at(1000)},
		{N: 75, Text: narrow("progress 10%"), Cols: cols, Time: at(1000)},
		{N: 76, Text: narrow("@relay:bob one two three"), Cols: cols, Time: at(1000)}, // output row 3
		{N: 77, Text: narrow("progress 50%"), Cols: cols, Time: at(1000)},
		{N: 78, Text: boxBottom(cols), Cols: cols, Time: at(1000)},
		// The terminal made as wide as the box: its rows counted anew.
		{N: 74, Text: narrow("... 4 hidden (Ctrl+O) ..."), Cols: cols, Time: at(1300)},
		{N: 75, Text: narrow("@relay:bob one two three f"), Cols: cols, Time: at(1300)}, // output row 4
		{N: 76, Text: narrow("our five"), Cols: cols, Time: at(1300)},
		{N: 77, Text: narrow("progress 50%"), Cols: cols, Time: at(1300)},
		// Done.
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
		{N: 78, Text: narrow("end"), Cols: cols, Time: at(1500)},
		{N: 79, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
	}
	wantGeminiBox(t, lines, `bob "one two three four five" @75`)
}

// TestALiveBoxReadBeforeItsHeadRightAfterAResize: as in
// TestALiveBoxRightAfterAResizeIsReadOnceLaidOut, but the rows of the box
// drawn anew for the new width are read before its head row (the spawner
// commits the head only when it next changes, its spinner turning), and
// no row of it was read before the resize: they are the box's at work,
// cut as the old terminal's rows. They were read as rows of no box, and
// the cut reading went out at once.
func TestALiveBoxReadBeforeItsHeadRightAfterAResize(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	at := msAfterStart
	lines := []spawner.Line{
		{N: 70, Text: " $ sh f.sh", Cols: 50, Time: at(0)}, // its box at work not read at this width
		// Shrunk: the box's rows, the old terminal's cut, its head not read.
		{N: 80, Text: "", Cols: cols, Time: at(1000)},
		{N: 82, Text: narrow("@relay:bob one two three"), Cols: cols, Time: at(1100)},
		{N: 83, Text: narrow("progress 50%"), Cols: cols, Time: at(1100)},
		{N: 84, Text: boxBottom(cols), Cols: cols, Time: at(1100)},
		// Its head, the spinner turned; then the terminal laid out anew.
		{N: 79, Text: narrow("⊶  Shell Command sh f.sh"), Cols: cols, Time: at(1150)},
		{N: 81, Text: narrow("progress 10%"), Cols: cols, Time: at(1300)},
		{N: 82, Text: narrow("@relay:bob one two three f"), Cols: cols, Time: at(1300)},
		{N: 83, Text: narrow("our five"), Cols: cols, Time: at(1300)},
		{N: 84, Text: narrow("progress 50%"), Cols: cols, Time: at(1300)},
		{N: 85, Text: boxBottom(cols), Cols: cols, Time: at(1300)},
		// Done.
		{N: 79, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
		{N: 85, Text: narrow("end"), Cols: cols, Time: at(1500)},
		{N: 86, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
	}
	wantGeminiBox(t, lines, `bob "one two three four five" @82`)
}

// TestABoxDoneAtAnotherWidthKeepsTheOrderOfItsLines: the screen widened
// while a command ran; the box printed done for the new width counts the
// output's rows anew (a line the narrow box wrapped over two rows takes
// one). A command only the live box showed (the done box's row that shows
// it was not committed again) goes out where it stands among the lines
// the done box shows, after the command above it (read at both widths),
// before the one under it. By its row in the narrow box's count it came
// after the command under it.
func TestABoxDoneAtAnotherWidthKeepsTheOrderOfItsLines(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width once it widened
	lines := []spawner.Line{
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols},
		{N: 73, Text: narrow(""), Cols: cols},
		{N: 74, Text: narrow("@relay:erin first"), Cols: cols}, // output row 0
		{N: 75, Text: narrow(""), Cols: cols},
		{N: 76, Text: narrow("long plain words here and"), Cols: cols},
		{N: 77, Text: narrow("then more"), Cols: cols},
		{N: 78, Text: narrow("another plain line that wr"), Cols: cols},
		{N: 79, Text: narrow("aps too"), Cols: cols},
		{N: 80, Text: narrow("@relay:carol hi"), Cols: cols}, // output row 6 here
		{N: 81, Text: narrow(""), Cols: cols},
		{N: 82, Text: boxBottom(cols), Cols: cols},
		// Widened; printed done.
		{N: 72, Text: wide("✓  Shell Command sh f.sh"), Cols: 50, ShownRunning: true},
		{N: 73, Text: wide(""), Cols: 50},
		{N: 74, Text: wide("@relay:erin first"), Cols: 50},
		{N: 75, Text: wide(""), Cols: 50},
		{N: 76, Text: wide("long plain words here and then more"), Cols: 50},
		{N: 77, Text: wide("another plain line that wraps too"), Cols: 50},
		// 78, carol's row, not committed again
		{N: 79, Text: wide("@relay:dave bye"), Cols: 50}, // output row 5
		{N: 80, Text: wide("end"), Cols: 50},
		{N: 81, Text: boxBottom(48), Cols: 50},
	}
	wantGeminiBox(t, lines, `erin "first" @74`, `carol "hi" @80`, `dave "bye" @79`)
}

// TestABoxDoneAtAnotherWidthKeepsAnotherMessageThatStartsAlike: as in
// TestABoxDoneAtAnotherWidthKeepsTheOrderOfItsLines, the screen widened
// while a command ran, and the narrow box showed "@relay:carol hi" with
// room left on its row (its line ended there), a row only it read. The
// done box shows "@relay:carol hi again": another message to carol that
// only starts alike, not the first one's rest cut at the narrow box's
// edge. Both go out, the narrow box's after the command above it.
// (Reviewer repro s12.)
func TestABoxDoneAtAnotherWidthKeepsAnotherMessageThatStartsAlike(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width once it widened
	lines := []spawner.Line{
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols},
		{N: 73, Text: narrow(""), Cols: cols},
		{N: 74, Text: narrow("@relay:erin first"), Cols: cols},
		{N: 75, Text: narrow(""), Cols: cols},
		{N: 76, Text: narrow("long plain words here and"), Cols: cols},
		{N: 77, Text: narrow("then more"), Cols: cols},
		{N: 78, Text: narrow("another plain line that wr"), Cols: cols},
		{N: 79, Text: narrow("aps too"), Cols: cols},
		{N: 80, Text: narrow("@relay:carol hi"), Cols: cols},
		{N: 81, Text: narrow(""), Cols: cols},
		{N: 82, Text: boxBottom(cols), Cols: cols},
		// Widened; printed done.
		{N: 72, Text: wide("✓  Shell Command sh f.sh"), Cols: 50, ShownRunning: true},
		{N: 73, Text: wide(""), Cols: 50},
		{N: 74, Text: wide("@relay:erin first"), Cols: 50},
		{N: 75, Text: wide(""), Cols: 50},
		{N: 76, Text: wide("long plain words here and then more"), Cols: 50},
		{N: 77, Text: wide("another plain line that wraps too"), Cols: 50},
		// 78, carol's first message's row, not committed again
		{N: 79, Text: wide("@relay:carol hi again"), Cols: 50},
		{N: 80, Text: wide("end"), Cols: 50},
		{N: 81, Text: boxBottom(48), Cols: 50},
	}
	wantGeminiBox(t, lines, `erin "first" @74`, `carol "hi" @80`, `carol "hi again" @79`)
}

// TestABoxDoneAtAnotherWidthReadsACommandCutAtTheEdgeOnce: the narrow box
// at work showed carol's message on its last row, cut at its right edge
// in the middle of a word (the rest below the box's view); the done box,
// drawn for the widened screen, shows it whole on a row counted anew. The
// cut reading is that command's start, not another message: it goes out
// once, whole.
func TestABoxDoneAtAnotherWidthReadsACommandCutAtTheEdgeOnce(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width once it widened
	lines := []spawner.Line{
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols},
		{N: 73, Text: narrow(""), Cols: cols},
		{N: 74, Text: narrow("@relay:erin first"), Cols: cols},
		{N: 75, Text: narrow(""), Cols: cols},
		{N: 76, Text: narrow("long plain words here and"), Cols: cols},
		{N: 77, Text: narrow("then more"), Cols: cols},
		{N: 78, Text: narrow("@relay:carol hi there my f"), Cols: cols}, // reaches the edge
		{N: 79, Text: boxBottom(cols), Cols: cols},
		// Widened; printed done.
		{N: 72, Text: wide("✓  Shell Command sh f.sh"), Cols: 50, ShownRunning: true},
		{N: 73, Text: wide(""), Cols: 50},
		{N: 74, Text: wide("@relay:erin first"), Cols: 50},
		{N: 75, Text: wide(""), Cols: 50},
		{N: 76, Text: wide("long plain words here and then more"), Cols: 50},
		{N: 77, Text: wide("@relay:carol hi there my friend"), Cols: 50},
		{N: 78, Text: wide("end"), Cols: 50},
		{N: 79, Text: boxBottom(48), Cols: 50},
	}
	wantGeminiBox(t, lines, `erin "first" @74`, `carol "hi there my friend" @77`)
}

// TestALiveBoxRightAfterAResizeKeepsAnotherMessageThatStartsAlike: as in
// TestALiveBoxRightAfterAResizeIsReadOnceLaidOut, the screen shrank while
// a command ran, and the box at work, not laid out anew yet, showed
// "@relay:carol hi" with room left on its row: its line ended there. The
// output went on, that row slid out of the box's view, and the box, laid
// out anew, showed "@relay:carol hi yo": another message to carol that only
// starts alike, not the first one laid out anew. Both go out. The
// held reading gave way to it, and carol's first message was lost.
func TestALiveBoxRightAfterAResizeKeepsAnotherMessageThatStartsAlike(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width before it shrank
	at := msAfterStart
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
		{N: 73, Text: wide(""), Cols: 50, Time: at(0)},
		{N: 74, Text: wide("... 2 hidden (Ctrl+O) ..."), Cols: 50, Time: at(0)},
		{N: 75, Text: wide("progress 10%"), Cols: 50, Time: at(0)}, // output row 2
		{N: 76, Text: boxBottom(48), Cols: 50, Time: at(0)},
		// Shrunk: the old terminal's rows, cut; carol's line ends on its row.
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols, Time: at(1000)},
		{N: 73, Text: narrow(""), Cols: cols, Time: at(1000)},
		{N: 74, Text: narrow("... 2 hidden (Ctrl+O) ..."), Cols: cols, Time: at(1000)},
		{N: 75, Text: narrow("progress 10%"), Cols: cols, Time: at(1000)},
		{N: 76, Text: narrow("@relay:carol hi"), Cols: cols, Time: at(1000)}, // output row 3
		{N: 77, Text: narrow("ok"), Cols: cols, Time: at(1000)},
		{N: 78, Text: boxBottom(cols), Cols: cols, Time: at(1000)},
		// Laid out anew, the output gone on: carol's first row slid away.
		{N: 74, Text: narrow("... 9 hidden (Ctrl+O) ..."), Cols: cols, Time: at(2500)},
		{N: 75, Text: narrow("@relay:carol hi yo"), Cols: cols, Time: at(2500)}, // output row 9
		{N: 76, Text: narrow("ok"), Cols: cols, Time: at(2500)},
		{N: 77, Text: narrow("progress 95%"), Cols: cols, Time: at(2500)},
		// Done.
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(3000), ShownRunning: true},
		{N: 78, Text: narrow("end"), Cols: cols, Time: at(3000)},
		{N: 79, Text: boxBottom(cols), Cols: cols, Time: at(3000)},
	}
	wantGeminiBox(t, lines, `carol "hi" @76`, `carol "hi yo" @75`)
}

// TestALiveBoxRightAfterAResizeKeepsALinePrintedTwice: the box at work,
// the first frame after the screen shrank, shows one line printed twice,
// on two rows one under the other. Rows of one frame read one after the
// other are two lines a reader sees; only a reading of a later frame
// tells what an earlier one cut. The first gave way to the second, the
// same command on the next row, and was lost (the done box drew those
// rows as the live box last did: not committed again).
func TestALiveBoxRightAfterAResizeKeepsALinePrintedTwice(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width before it shrank
	at := msAfterStart
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
		{N: 73, Text: wide(""), Cols: 50, Time: at(0)},
		{N: 74, Text: boxBottom(48), Cols: 50, Time: at(0)},
		// Shrunk: the box drawn anew, the line on two rows.
		{N: 72, Text: narrow("⊶  Shell Command sh f.sh"), Cols: cols, Time: at(1000)},
		{N: 73, Text: narrow(""), Cols: cols, Time: at(1000)},
		{N: 74, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
		{N: 75, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
		{N: 76, Text: narrow(""), Cols: cols, Time: at(1000)},
		{N: 77, Text: boxBottom(cols), Cols: cols, Time: at(1000)},
		// Done, its rows of output as they were.
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
		{N: 76, Text: narrow("end"), Cols: cols, Time: at(1500)},
		{N: 77, Text: narrow(""), Cols: cols, Time: at(1500)},
		{N: 78, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
	}
	wantGeminiBox(t, lines, `bob "same" @74`, `bob "same" @75`)
}

// TestALiveBoxRightAfterAResizeKeepsALinePrintedAgainAFrameLater: as
// TestALiveBoxRightAfterAResizeKeepsALinePrintedTwice, but the second
// copy comes a frame later, still in the second after the resize: the
// first copy's row stays as it was (not committed again) and the copy is
// on the row under it. A reader sees both lines; a reading gives way to a
// later one only once its row was drawn anew. The first copy gave way to
// the second, read in a later run of rows, and was lost (review s13).
func TestALiveBoxRightAfterAResizeKeepsALinePrintedAgainAFrameLater(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow
	at := msAfterStart
	lines := []spawner.Line{
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
		{N: 73, Text: wide(""), Cols: 50, Time: at(0)},
		{N: 74, Text: boxBottom(48), Cols: 50, Time: at(0)},
		// Shrunk: the box drawn anew, the line once.
		{N: 72, Text: narrow("⊶  Shell Command sh f.sh"), Cols: cols, Time: at(1000)},
		{N: 73, Text: narrow(""), Cols: cols, Time: at(1000)},
		{N: 74, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
		{N: 75, Text: narrow(""), Cols: cols, Time: at(1000)},
		{N: 76, Text: boxBottom(cols), Cols: cols, Time: at(1000)},
		// A frame later: printed again under it.
		{N: 75, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1100)},
		{N: 76, Text: narrow(""), Cols: cols, Time: at(1100)},
		{N: 77, Text: boxBottom(cols), Cols: cols, Time: at(1100)},
		// Done, its rows of output as they were.
		{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
		{N: 76, Text: narrow("end"), Cols: cols, Time: at(1500)},
		{N: 77, Text: narrow(""), Cols: cols, Time: at(1500)},
		{N: 78, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
	}
	wantGeminiBox(t, lines, `bob "same" @74`, `bob "same" @75`)
}

// TestADoneBoxShowsALinePrintedAgainWhereTheLiveBoxShowedIt: a relay line
// printed twice in a row. The live box showed the first copy, then slid a
// row (its rows not committed again: they moved up); the output went on,
// and the box printed done shows more of its first rows hidden, the
// second copy on the line where the live box last showed the first. The
// spawner commits no row that shows what it showed there before: that
// line, and the one under it, are never read in the done box. A reader
// sees both copies; the second was lost (fresh gemini-s94400016).
func TestADoneBoxShowsALinePrintedAgainWhereTheLiveBoxShowedIt(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	border := boxBottom(48)
	at := msAfterStart
	// The output's rows: 0 a0, 1 a, 2 b, 3 c, 4 d, 5 up, 6 x, 7 relay,
	// 8 ok, 9 relay again, 10 ok, 11 end.
	lines := []spawner.Line{
		{N: 51, Text: row("⊶  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
		{N: 52, Text: row(""), Cols: 50, Time: at(0)},
		{N: 53, Text: row("... 1 hidden (Ctrl+O) ..."), Cols: 50, Time: at(0)},
		{N: 54, Text: row("a"), Cols: 50, Time: at(0)},
		{N: 55, Text: row("b"), Cols: 50, Time: at(0)},
		{N: 56, Text: row("c"), Cols: 50, Time: at(0)},
		{N: 57, Text: row("d"), Cols: 50, Time: at(0)},
		{N: 58, Text: row("up"), Cols: 50, Time: at(0)},
		{N: 59, Text: row("x"), Cols: 50, Time: at(0)},
		{N: 60, Text: row("@relay:bob same"), Cols: 50, Time: at(0)},
		{N: 61, Text: row("ok"), Cols: 50, Time: at(0)},
		{N: 62, Text: border, Cols: 50, Time: at(0)},
		// Slid a row: only the count of rows hidden changed.
		{N: 53, Text: row("... 2 hidden (Ctrl+O) ..."), Cols: 50, Time: at(100)},
		// Done: rows 4 to 11; 59 and 60 show what they showed.
		{N: 51, Text: row("✓  Shell Command sh f.sh"), Cols: 50, Time: at(300), ShownRunning: true},
		{N: 53, Text: row("... 4 hidden (Ctrl+O) ..."), Cols: 50, Time: at(300)},
		{N: 54, Text: row("d"), Cols: 50, Time: at(300)},
		{N: 55, Text: row("up"), Cols: 50, Time: at(300)},
		{N: 56, Text: row("x"), Cols: 50, Time: at(300)},
		{N: 57, Text: row("@relay:bob same"), Cols: 50, Time: at(300)},
		{N: 58, Text: row("ok"), Cols: 50, Time: at(300)},
		{N: 61, Text: row("end"), Cols: 50, Time: at(300)},
		{N: 63, Text: "", Cols: 50, Time: at(300)},
	}
	wantGeminiBox(t, lines, `bob "same" @57`, `bob "same" @59`)
	// Printed once: the done box draws other rows there, read.
	once := slices.Clone(lines[:len(lines)-2])
	once = append(once,
		spawner.Line{N: 59, Text: row("y"), Cols: 50, Time: at(300)},
		spawner.Line{N: 60, Text: row("z"), Cols: 50, Time: at(300)},
		lines[len(lines)-2], lines[len(lines)-1])
	wantGeminiBox(t, once, `bob "same" @57`)
}

// TestABlockWithWideLettersIsWholeInTheLiveBox: Gemini CLI's box at work
// wraps its terminal's rows at the box's edge (each wide letter drawn
// with a blank after it) and drops nothing, where the box printed done
// cuts such a row. A block whose JSON string holds wide letters and wraps
// shows whole in the live box, read row after row with the next line
// under it: a reader reads it. Every such row of a lossy box was taken
// for one the box cut, and no command read (review s13, on e3094b6).
func TestABlockWithWideLettersIsWholeInTheLiveBox(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := func(s string) string { return "│ " + s + strings.Repeat(" ", cols-4-ansi.StringWidth(s)) + " │" }
	at := msAfterStart
	// `{"to":"bob","body":"北 京 ` is 26 columns drawn: the box's edge.
	lines := []spawner.Line{
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols, Time: at(0)},
		{N: 73, Text: narrow(""), Cols: cols, Time: at(0)},
		{N: 74, Text: narrow("[[RELAY]]"), Cols: cols, Time: at(0)},
		{N: 75, Text: narrow(`{"to":"bob","body":"北 京 `), Cols: cols, Time: at(0)},
		{N: 76, Text: narrow(`カ タ カ ナ hello"}`), Cols: cols, Time: at(0)},
		{N: 77, Text: narrow("[[/RELAY]]"), Cols: cols, Time: at(0)},
		{N: 78, Text: narrow("more output"), Cols: cols, Time: at(0)},
		{N: 79, Text: boxBottom(cols), Cols: cols, Time: at(0)},
		{N: 72, Text: narrow("⊶  Shell Command sh f.sh"), Cols: cols, Time: at(2000)},
	}
	wantGeminiBox(t, lines, `bob "北 京 カ タ カ ナ hello" @74`)
}

// TestALiveBoxRightAfterAResizeKeepsALinePrintedTwiceThenSlidPast: one
// line printed twice, both copies in the box's first frame after the
// screen shrank; the box then slides past both in that second (its rows
// drawn anew with later output). Each copy was read beside the other in
// one run of rows: two lines a reader saw. The first gave way to the
// second, a reading its line's row drawn anew came before; and the second
// counted as read in the run of the head row that ended it (review s13).
func TestALiveBoxRightAfterAResizeKeepsALinePrintedTwiceThenSlidPast(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	at := msAfterStart
	// Shrunk: the box drawn anew, the line twice.
	lines := append(liveBoxShrunkTo(cols), []spawner.Line{
		{N: 9, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
		{N: 10, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
		// Slid past both.
		{N: 5, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols, Time: at(1200)},
		{N: 7, Text: narrow("... 5 hidden (Ctrl+O) ..."), Cols: cols, Time: at(1200)},
		{N: 9, Text: narrow("progress 50%"), Cols: cols, Time: at(1200)},
		{N: 10, Text: narrow("progress 60%"), Cols: cols, Time: at(1200)},
		{N: 11, Text: narrow("progress 70%"), Cols: cols, Time: at(1200)},
		// Done.
		{N: 5, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
		{N: 12, Text: narrow("end"), Cols: cols, Time: at(1500)},
		{N: 13, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
	}...)
	wantGeminiBox(t, lines, `bob "same" @9`, `bob "same" @10`)
}

// boxRowOf draws rows of Gemini CLI's box cols columns wide, each around
// an ASCII text (as geminiBoxRow does for the 48-column box).
func boxRowOf(cols int) func(string) string {
	return func(s string) string { return "│ " + s + strings.Repeat(" ", cols-4-len(s)) + " │" }
}

// boxBottom draws the bottom border of Gemini CLI's box cols columns wide.
func boxBottom(cols int) string { return "╰" + strings.Repeat("─", cols-2) + "╯" }

// msAfterStart is the time ms milliseconds into a recording: the times
// the box tables give their rows.
func msAfterStart(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }

// TestADoneBoxDrawnOverTheHiddenRowShowsItsOutputThere: the live box hid
// its output's first 5 rows and showed a relay cut by its bottom border;
// the done box, drawn over it with its head on the same line, shows the
// output from its first row on the line that said how many were hidden.
// The head row was mapped as if that count row stayed (a row not
// committed again), so the done box's rows were counted from 5 too far
// down, and the relay, read in both, went out twice, the first time
// before the relay above it.
func TestADoneBoxDrawnOverTheHiddenRowShowsItsOutputThere(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	bottom := boxBottom(48)
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 74, Text: row("... first 5 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("@relay:* key")}, // output row 5, cut by the box's bottom
		{N: 76, Text: bottom},
		// Done, drawn over it: the output's rows from its first.
		{N: 72, Text: row("✓  Shell Command sh f.sh")},
		{N: 74, Text: row("alpha")},
		{N: 75, Text: row("beta")},
		{N: 76, Text: row("gamma")},
		{N: 77, Text: row("delta")},
		{N: 78, Text: row("@relay:bob pound")},
		{N: 79, Text: row("@relay:* key")},
		{N: 80, Text: row("end")},
		{N: 81, Text: bottom},
	}
	wantGeminiBox(t, lines, `bob "pound" @78`, `* "key" @79`)
}

// TestACutRowOfALiveBoxDrawnAnewAfterAResizeIsNotRead: right after a
// shrink the live box shows the old terminal's row cut at its edge
// ("@relay:bob one two three f", the row full) over another line's row;
// the next frame lays the output out anew a row higher, and the spawner,
// seeing the same text there, takes it for the cut row moved: it commits
// only the rows under it, drawing the cut row's line anew ("our five").
// The screen never gives the laid-out reading, and the cut one ("one two
// three fprogress 50%", or "one two three f") is a body no reader saw:
// nothing goes out.
func TestACutRowOfALiveBoxDrawnAnewAfterAResizeIsNotRead(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	at := msAfterStart
	for _, under := range []string{"progress 50%", ""} { // another line's row under it, or the border
		lines := append(liveBoxShrunkTo(cols),
			spawner.Line{N: 9, Text: narrow("@relay:bob one two three f"), Cols: cols, Time: at(1000)})
		if under != "" {
			lines = append(lines, spawner.Line{N: 10, Text: narrow(under), Cols: cols, Time: at(1000)})
		} else {
			lines = append(lines, spawner.Line{N: 10, Text: boxBottom(cols), Cols: cols, Time: at(1000)})
		}
		lines = append(lines,
			spawner.Line{N: 7, Text: narrow("... 4 hidden (Ctrl+O) ..."), Cols: cols, Time: at(1300)},
			spawner.Line{N: 9, Text: narrow("our five"), Cols: cols, Time: at(1300)},
			spawner.Line{N: 5, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
			spawner.Line{N: 11, Text: narrow("end"), Cols: cols, Time: at(1500)},
			spawner.Line{N: 12, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
		)
		if got := readGeminiBox(lines); len(got) != 0 {
			t.Errorf("under %q: commands %q, want none", under, got)
		}
	}
}

// liveBoxShrunkTo is a live box at work on a screen 50 columns wide (its
// rows 48), then
// its head drawn anew a second later on one shrunk to cols.
func liveBoxShrunkTo(cols int) []spawner.Line {
	narrow, wide, at := boxRowOf(cols), geminiBoxRow, msAfterStart
	return []spawner.Line{
		{N: 2, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
		{N: 3, Text: wide(""), Cols: 50, Time: at(0)},
		{N: 4, Text: wide("... 2 hidden (Ctrl+O) ..."), Cols: 50, Time: at(0)},
		{N: 5, Text: wide("progress 10%"), Cols: 50, Time: at(0)},
		{N: 6, Text: boxBottom(48), Cols: 50, Time: at(0)},
		{N: 5, Text: narrow("⊶  Shell Command sh f.sh"), Cols: cols, Time: at(1000)},
		{N: 6, Text: narrow(""), Cols: cols, Time: at(1000)},
	}
}

// TestARelayLaidOutByWordsAfterAShrinkIsReadWhole: right after a shrink
// the live box lays a relay out anew for its new width, by words, its
// first row ending a few columns short of the edge because the next word
// did not fit ("@relay:bob one two three" / "four five"); then the box
// slides on and the done box shows only the output's last rows. A reader
// read it whole: only a row whose text reaches the box's last column is
// one the edge cut (review s14, on 03affc8, which dropped this one too).
func TestARelayLaidOutByWordsAfterAShrinkIsReadWhole(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	at := msAfterStart
	for _, first := range []string{"@relay:bob one two three", "@relay:bob one two th"} {
		lines := append(liveBoxShrunkTo(cols),
			spawner.Line{N: 7, Text: narrow("progress 20%"), Cols: cols, Time: at(1000)},
			spawner.Line{N: 8, Text: narrow(first), Cols: cols, Time: at(1000)},
			spawner.Line{N: 9, Text: narrow("four five"), Cols: cols, Time: at(1000)},
			spawner.Line{N: 10, Text: boxBottom(cols), Cols: cols, Time: at(1000)},
			// The box slides on: later output drawn over the relay's rows.
			spawner.Line{N: 7, Text: narrow("... 6 hidden (Ctrl+O) ..."), Cols: cols, Time: at(3000)},
			spawner.Line{N: 8, Text: narrow("progress 60%"), Cols: cols, Time: at(3000)},
			spawner.Line{N: 9, Text: narrow("progress 70%"), Cols: cols, Time: at(3000)},
			spawner.Line{N: 5, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(4000), ShownRunning: true},
			spawner.Line{N: 9, Text: narrow("progress 80%"), Cols: cols, Time: at(4000)},
			spawner.Line{N: 10, Text: narrow("end"), Cols: cols, Time: at(4000)},
			spawner.Line{N: 11, Text: boxBottom(cols), Cols: cols, Time: at(4000)},
		)
		want := strings.TrimPrefix(first, "@relay:")
		want = `bob "` + strings.TrimPrefix(want, "bob ") + ` four five" @8`
		if got := readGeminiBox(lines); len(got) != 1 || got[0] != want {
			t.Errorf("first row %q: commands %q, want [%s]", first, got, want)
		}
	}
}

// TestALiveBoxCutBeforeAResizeGivesWayToTheLineLaidOutAnew: the live box
// shows a relay line's first rows down to its bottom border (the line
// may go on under it), the rows of a terminal wider than the box, each
// cut where the box ends ("f" of "four", the rest of that row dropped).
// The screen grows; the box drawn anew for the new width shows the line
// laid out anew, from the same row of the screen, whole. A reader read the
// line once, as the box showed it laid out: the cut reading, rows counted
// at another width, went out too, before it, a body no one saw whole
// (gemini-s10500036).
func TestALiveBoxCutBeforeAResizeGivesWayToTheLineLaidOutAnew(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width after it grew
	at := msAfterStart
	lines := []spawner.Line{
		{N: 2, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols, Time: at(0)},
		{N: 3, Text: narrow(""), Cols: cols, Time: at(0)},
		{N: 4, Text: narrow("... 2 hidden (Ctrl+O) ..."), Cols: cols, Time: at(0)},
		{N: 5, Text: narrow("@relay:bob one two three f"), Cols: cols, Time: at(0)},
		{N: 6, Text: narrow("five six"), Cols: cols, Time: at(0)},
		{N: 7, Text: boxBottom(cols), Cols: cols, Time: at(0)},
		// Grown: the box drawn anew, the line laid out for its width.
		{N: 2, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(500)},
		{N: 3, Text: wide(""), Cols: 50, Time: at(500)},
		{N: 4, Text: wide("... 2 hidden (Ctrl+O) ..."), Cols: 50, Time: at(500)},
		{N: 5, Text: wide("@relay:bob one two three four five six seven"), Cols: 50, Time: at(500)},
		{N: 6, Text: wide(""), Cols: 50, Time: at(500)},
		{N: 7, Text: boxBottom(48), Cols: 50, Time: at(500)},
		// Done, its rows as they were, one more under them.
		{N: 2, Text: wide("✓  Shell Command sh f.sh"), Cols: 50, Time: at(900), ShownRunning: true},
		{N: 7, Text: wide("end"), Cols: 50, Time: at(900)},
		{N: 8, Text: boxBottom(48), Cols: 50, Time: at(900)},
	}
	wantGeminiBox(t, lines, `bob "one two three four five six seven" @5`)
}

// TestALineShownTwiceRightAfterAResizeGivesWayOnceACopy: the box at work,
// the first frame after the screen shrank, shows a line printed twice on
// two rows; its hidden count, drawn anew where it stood, was not
// committed again, so those rows are counted from the head row as if
// none were hidden. The next frame slides the box (its count committed)
// and shows one copy, or both. Each reading of that frame stands for one
// of the first frame's: both of the first frame's gave way to the one
// copy it showed, and a copy a reader saw was lost (review s13's
// TestReviewTwiceThenSlideEndToEnd, once the box's rows that slid are
// committed).
func TestALineShownTwiceRightAfterAResizeGivesWayOnceACopy(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow
	at := msAfterStart
	for _, slide := range []int{1, 2} {
		lines := []spawner.Line{
			{N: 2, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
			{N: 3, Text: wide(""), Cols: 50, Time: at(0)},
			{N: 4, Text: wide("... 2 hidden (Ctrl+O) ..."), Cols: 50, Time: at(0)},
			{N: 5, Text: wide("progress 10%"), Cols: 50, Time: at(0)},
			{N: 6, Text: boxBottom(48), Cols: 50, Time: at(0)},
			// Shrunk: its count on line 7 and "progress 10%" on 8 not committed.
			{N: 5, Text: narrow("⊶  Shell Command sh f.sh"), Cols: cols, Time: at(1000)},
			{N: 6, Text: narrow(""), Cols: cols, Time: at(1000)},
			{N: 9, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
			{N: 10, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1000)},
			// Slid.
			{N: 5, Text: narrow("⊷  Shell Command sh f.sh"), Cols: cols, Time: at(1200)},
			{N: 7, Text: narrow(fmt.Sprintf("... %d hidden (Ctrl+O) ...", 2+slide)), Cols: cols, Time: at(1200)},
			{N: 8, Text: narrow("@relay:bob same"), Cols: cols, Time: at(1200)},
		}
		if slide == 2 {
			lines = append(lines, spawner.Line{N: 9, Text: narrow(""), Cols: cols, Time: at(1200)})
		}
		lines = append(lines,
			spawner.Line{N: 10, Text: narrow(""), Cols: cols, Time: at(1200)},
			spawner.Line{N: 11, Text: narrow("progress 50%"), Cols: cols, Time: at(1200)},
			// Done, its rows as they were.
			spawner.Line{N: 5, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(1500), ShownRunning: true},
			spawner.Line{N: 12, Text: narrow("end"), Cols: cols, Time: at(1500)},
			spawner.Line{N: 13, Text: boxBottom(cols), Cols: cols, Time: at(1500)},
		)
		if got := readGeminiBox(lines); len(got) != 2 {
			t.Errorf("slid %d: commands %q, want bob \"same\" twice", slide, got)
		}
	}
}

// TestACommandSentBeforeAResizeIsNotReadAgainInTheDoneBox: the box at
// work showed erin's relay whole (a line of text under it) and it went
// out; then the screen shrank and the box printed done for the new width
// counts the output's rows anew (the line above it now wraps over two
// rows), so it shows erin's relay a row further down. A reader who saw
// it in the wide box sees the same line among the same lines in the
// narrow one, not a new one: it is placed by what the rows around it say,
// as a reading held at the old width is (placeByContent), and not read
// again. The same text printed again after the resize, under carol's, is
// another line, and goes out (new gemini-s11700036: the live box at 195
// columns sent two relays, the done box at 104 read both again).
func TestACommandSentBeforeAResizeIsNotReadAgainInTheDoneBox(t *testing.T) {
	t.Parallel()
	const cols = 30
	narrow := boxRowOf(cols)
	wide := geminiBoxRow // 48 columns: the screen's width before it shrank
	at := msAfterStart
	for _, again := range []bool{false, true} {
		lines := []spawner.Line{
			{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 50, Time: at(0)},
			{N: 73, Text: wide(""), Cols: 50, Time: at(0)},
			{N: 74, Text: wide("long plain words here and then more"), Cols: 50, Time: at(0)}, // output row 0
			{N: 75, Text: wide("@relay:erin first"), Cols: 50, Time: at(0)},                   // row 1
			{N: 76, Text: wide("@relay:carol hi"), Cols: 50, Time: at(0)},                     // row 2: erin's line ended
			{N: 77, Text: wide(""), Cols: 50, Time: at(0)},
			{N: 78, Text: boxBottom(48), Cols: 50, Time: at(0)},
			// Shrunk; printed done, settled, for the new width.
			{N: 72, Text: narrow("✓  Shell Command sh f.sh"), Cols: cols, Time: at(2500), ShownRunning: true},
			{N: 73, Text: narrow(""), Cols: cols, Time: at(2500)},
			{N: 74, Text: narrow("long plain words here and"), Cols: cols, Time: at(2500)},
			{N: 75, Text: narrow("then more"), Cols: cols, Time: at(2500)},
			{N: 76, Text: narrow("@relay:erin first"), Cols: cols, Time: at(2500)}, // row 2
			{N: 77, Text: narrow("@relay:carol hi"), Cols: cols, Time: at(2500)},
		}
		want := []string{`erin "first" @75`, `carol "hi" @77`}
		if again {
			lines = append(lines, spawner.Line{N: 78, Text: narrow("@relay:erin first"), Cols: cols, Time: at(2500)})
			want = append(want, `erin "first" @78`)
		}
		n := lines[len(lines)-1].N
		lines = append(lines,
			spawner.Line{N: n + 1, Text: narrow("end"), Cols: cols, Time: at(2500)},
			spawner.Line{N: n + 2, Text: boxBottom(cols), Cols: cols, Time: at(2500)})
		if got := readGeminiBox(lines); !slices.Equal(got, want) {
			t.Errorf("printed again %v: commands %q, want %q", again, got, want)
		}
	}
}

// TestABoxAtWorkDrawnHigherIsReadFromItsOutputsFirstRow: the box at work
// was drawn a line higher (the screen scrolled under it), its head row and
// the blank row under it the same text a line up: the spawner took them
// for rows moved and committed neither at its new line; the first row of
// output, on the line the blank row was on, is committed. The box never
// shows text under its head row: the output starts there. Counted from
// the head row where it was last committed, each row of the live box
// was one too high in the output, and the commands the done box (its
// head committed where it stands) reads on the same lines went out a
// second time (fresh gemini-s99200018: two blocks twice).
func TestABoxAtWorkDrawnHigherIsReadFromItsOutputsFirstRow(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	lines := []spawner.Line{
		{N: 55, Text: row("⊷  Shell Command sh f.sh")},
		{N: 56, Text: row("")},
		{N: 57, Text: boxBottom(48)},
		// Drawn a line higher, with output: its head on 54, blank on 55.
		{N: 56, Text: row("plain output")},
		{N: 57, Text: row("[[RELAY]]")},
		{N: 58, Text: row(`{"to":"bob","body":"one"}`)},
		{N: 59, Text: row("[[/RELAY]]")},
		{N: 60, Text: row("@relay:carol hi")},
		{N: 61, Text: row("more output")},
		{N: 62, Text: boxBottom(48)},
		// Done, drawn where it stands.
		{N: 54, Text: row("✓  Shell Command sh f.sh"), ShownRunning: true},
		{N: 55, Text: row("")},
		{N: 56, Text: row("plain output")},
		{N: 57, Text: row("[[RELAY]]")},
		{N: 58, Text: row(`{"to":"bob","body":"one"}`)},
		{N: 59, Text: row("[[/RELAY]]")},
		{N: 60, Text: row("@relay:carol hi")},
		{N: 61, Text: row("more output")},
		{N: 62, Text: row("end")},
		{N: 63, Text: boxBottom(48)},
	}
	wantGeminiBox(t, lines, `bob "one" @57`, `carol "hi" @60`)
}

// TestADoneBoxBrokenByAResizeBeforeItSettledIsRead: Gemini CLI printed a
// command's box done for the screen it had, and the screen shrank before
// the box's lines were committed: its head row was committed as it was
// shown, where the box fit, and its rows under it as the terminal broke
// them for the new width, each over two lines, counted at that width. A
// reader reads the box the program printed once: the command only the
// done box showed, and the one the live box showed already once. The
// rows were dropped as a frame still laid out for the old width, and the
// command under them was lost (holdout-20261128p gemini-s12900032).
func TestADoneBoxBrokenByAResizeBeforeItSettledIsRead(t *testing.T) {
	t.Parallel()
	wide := geminiBoxRow               // 48 columns
	head := func(mark string) string { // as wide as the rows: the mark is one column
		return "│ " + mark + "  Shell Command sh f.sh" + strings.Repeat(" ", 44-3-len("Shell Command sh f.sh")) + " │"
	}
	lines := []spawner.Line{
		{N: 72, Text: head("⊷"), Cols: 50},
		{N: 74, Text: wide("@relay:carol hi"), Cols: 50}, // output row 0
		{N: 75, Text: wide("two"), Cols: 50},
		{N: 76, Text: wide(""), Cols: 50},
		{N: 77, Text: boxBottom(48), Cols: 50},
		{N: 72, Text: head("✓"), Cols: 50},
		// The screen shrank to 30 columns: the done box's rows, each
		// over two lines, numbered as the new width lays them out.
		{N: 91, Text: wide("@relay:carol hi"), Cols: 30},
		{N: 93, Text: wide("two"), Cols: 30},
		{N: 95, Text: wide("@relay:dave three"), Cols: 30},
		{N: 97, Text: wide("four"), Cols: 30},
		{N: 99, Text: boxBottom(48), Cols: 30},
	}
	wantGeminiBox(t, lines, `carol "hi" @74`, `dave "three" @95`)
}

// TestADoneBoxsFirstRowOverTheHiddenRowGoesOutFirst: the live box hid the
// output's first 5 rows and showed none under them; the done box, drawn
// over it with its head on the same line, shows the output from its
// first row on the line that said how many were hidden. A relay alone on
// that row ends there (its row had room left): it is placed as the done
// box maps its rows once that row is read, row 0 of the output, first.
// Placed before that row remapped the box, it counted as a row under the
// hidden ones and went out last.
func TestADoneBoxsFirstRowOverTheHiddenRowGoesOutFirst(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	bottom := boxBottom(48)
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh"), Cols: 50},
		{N: 74, Text: row("... first 5 lines hidden (Ctrl+O) ..."), Cols: 50},
		{N: 75, Text: row(""), Cols: 50},
		{N: 76, Text: bottom, Cols: 50},
		// Done, drawn over it: the output's rows from its first.
		{N: 72, Text: row("✓  Shell Command sh f.sh"), Cols: 50},
		{N: 74, Text: row("@relay:bob hi"), Cols: 50},
		{N: 75, Text: row("@relay:carol two"), Cols: 50},
		{N: 76, Text: row("@relay:dave three"), Cols: 50},
		{N: 77, Text: row("end"), Cols: 50},
		{N: 78, Text: bottom, Cols: 50},
	}
	wantGeminiBox(t, lines, `bob "hi" @74`, `carol "two" @75`, `dave "three" @76`)
}

// TestALiveBoxGrownOverLinesNotCommittedIsHeld: the live box, first drawn
// empty, grew: the screen committed the rows under its output's first
// ones but not those (taken for rows moved: text it showed before, as
// when a command prints what the last one did), the count of rows hidden
// among them. A reader of the screen saw that count; the rows read
// under it are not the output's first rows, as the head row maps them.
// The relay went out at once at that row, and again where the done box
// showed it (q/gemini-s13500022's extra).
func TestALiveBoxGrownOverLinesNotCommittedIsHeld(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	bottom := boxBottom(48)
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh"), Cols: 50},
		{N: 73, Text: row(""), Cols: 50},
		{N: 74, Text: bottom, Cols: 50},
		// Grown: "... 8 hidden" on line 74 and a blank row on 75, not
		// committed; output rows 9 and 10 under them.
		{N: 76, Text: row("@relay:carol hi"), Cols: 50},
		{N: 77, Text: row("two"), Cols: 50},
		{N: 78, Text: bottom, Cols: 50},
		// Done: its count row committed, the rows one line up.
		{N: 72, Text: row("✓  Shell Command sh f.sh"), Cols: 50},
		{N: 74, Text: row("... 9 hidden (Ctrl+O) ..."), Cols: 50},
		{N: 75, Text: row("@relay:carol hi"), Cols: 50},
		{N: 76, Text: row("two"), Cols: 50},
		{N: 77, Text: row("end"), Cols: 50},
		{N: 78, Text: bottom, Cols: 50},
	}
	wantGeminiBox(t, lines, `carol "hi" @75`)
}

// TestARelayoutFrameOfALineReadBeforeTheResizeIsNotReadAgain: the live
// box showed a relay to its edge, the rest of its line on the next row
// (Gemini CLI lost a word at the wrap). The screen widened, and for a
// frame the box, drawn for the new width, showed that line's first row
// laid out anew higher up (more of it on the row, the row under it
// blank) before it slid out of the box's view; no later frame showed it.
// A reader read the line before the resize, and reads that frame's row
// as the same line: it went out twice (holdout-20261128r
// gemini-s14100000).
func TestARelayoutFrameOfALineReadBeforeTheResizeIsNotReadAgain(t *testing.T) {
	t.Parallel()
	narrow, wide := geminiBoxRow, boxRowOf(58)
	lines := []spawner.Line{
		{N: 72, Text: narrow("⊷  Shell Command sh f.sh"), Cols: 50},
		{N: 74, Text: narrow("one"), Cols: 50},
		{N: 75, Text: narrow("two"), Cols: 50},
		{N: 76, Text: narrow("@relay:* alpha bravo charlie delta echo ox"), Cols: 50}, // no room for "kilo"
		{N: 77, Text: narrow("kilo lima"), Cols: 50},
		{N: 78, Text: narrow(""), Cols: 50},
		{N: 79, Text: boxBottom(48), Cols: 50},
		// Widened: the box drawn for 60 columns, its first frame; the
		// lines under it not committed again.
		{N: 72, Text: wide("⊷  Shell Command sh f.sh"), Cols: 60},
		{N: 74, Text: wide("@relay:* alpha bravo charlie delta echo ox hotel"), Cols: 60},
		{N: 75, Text: wide(""), Cols: 60},
		// The next frame: the line slid out of the box's view.
		{N: 74, Text: wide("... 4 hidden (Ctrl+O) ..."), Cols: 60},
		{N: 75, Text: wide("end"), Cols: 60},
		{N: 72, Text: wide("✓  Shell Command sh f.sh"), Cols: 60},
		{N: 81, Text: "next", Cols: 60},
	}
	wantGeminiBox(t, lines, `* "alpha bravo charlie delta echo ox kilo lima" @76`)
}

// TestABlockOpenAboveACountRowIsTheBoxsCut: Gemini CLI's box at work
// showed a block's first rows, cut where the box ended; resized, it
// wrote the box again, its count of rows hidden first, under the block's
// first row, then printed it done with the block whole. The block read
// from the first drawing is the program's cut, no command and no error:
// the count row is the box drawn again, not a row of the block (it ran
// into the block as read: a malformed block, and the block the done box
// showed whole was lost — holdout-20261128s gemini-s14700020 made
// again).
func TestABlockOpenAboveACountRowIsTheBoxsCut(t *testing.T) {
	t.Parallel()
	row := geminiBoxRow
	lines := []spawner.Line{
		{N: 72, Text: row("⊷  Shell Command sh f.sh")},
		{N: 73, Text: row("")},
		{N: 74, Text: row("... first 2 lines hidden (Ctrl+O) ...")},
		{N: 75, Text: row("[[RELAY]]")},
		{N: 76, Text: row("{")},
		{N: 77, Text: row(`  "to": "bob",`)},
		{N: 78, Text: row(`  "body": "hi there",`)},
		// Written again, done, after the screen was cleared: its head
		// row is read after its count row.
		{N: 92, Text: row("... first 2 lines hidden (Ctrl+O) ...")},
		{N: 90, Text: row("✓  Shell Command sh f.sh")},
		{N: 93, Text: row("[[RELAY]]")},
		{N: 94, Text: row("{")},
		{N: 95, Text: row(`  "to": "bob",`)},
		{N: 96, Text: row(`  "body": "hi there",`)},
		{N: 97, Text: row(`  "topic": "t1"`)},
		{N: 98, Text: row("}")},
		{N: 99, Text: row("[[/RELAY]]")},
		{N: 100, Text: row("end of the output")},
		{N: 101, Text: boxBottom(48)},
	}
	wantGeminiBox(t, lines, `bob "hi there" @93`)
}
