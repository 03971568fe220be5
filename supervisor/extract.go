package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"swarm/asciicast"
	"swarm/parser"
	"swarm/screenmodel"
	"swarm/spawner"
	"swarm/swarmapi"
)

// ExtractOptions configure Extract.
type ExtractOptions struct {
	// Rows and Cols are the size of the screen the output is played on;
	// 24×80 when zero. Use the size the program ran with: the terminal's
	// wrapping depends on it.
	Rows, Cols int
	// NewlineMode makes a bare line feed start a new line, for plain text
	// rather than terminal recordings (a tty turns "\n" into "\r\n").
	NewlineMode bool
	// ChunkSize is how many bytes are read at a time; 32 KiB when zero.
	ChunkSize int
	// Parser configures the relay extractor.
	Parser parser.Options
	// Settle is how long output must pause before a redrawing program's
	// screen counts as settled, in a recording with timing;
	// spawner.DefaultSettle when zero.
	Settle time.Duration
	// Kind is the profile kind of the program that wrote the output
	// ("claude", "codex", …; see ProfileByKind): where it wraps its text,
	// its input areas, gutters and borders (screenmodel.Layout). Empty:
	// a program of no known kind.
	Kind string
	// Scrollback is the rows the screen keeps once they leave its top, as
	// an agent's `scrollback` setting: spawner.DefaultScrollback when
	// zero, as a running agent has by default, none when negative. A
	// screen that grows takes rows back from it, so what is read after a
	// resize depends on it.
	Scrollback int
}

// Extract plays raw terminal output (a recording such as `script -q`
// makes, or a PTY capture) through a VT screen and the relay parser, the
// same pipeline a running agent's output goes through, and calls emit for
// every command and error in order. It returns an error only when reading
// r fails.
func Extract(r io.Reader, opts ExtractOptions, emit func(parser.Event)) error {
	if err := checkExtractSize(opts); err != nil {
		return err
	}
	size := opts.ChunkSize
	if size <= 0 {
		size = 32 << 10
	}
	x := newExtractor(opts, emit, nil, untimedFrames)
	defer x.s.Close()
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			x.write(buf[:n])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read terminal output: %w", err)
		}
	}
	x.end()
	return nil
}

// ExtractRecording is Extract for an asciicast v2 recording (see package
// asciicast): its output is played with its timing — a pause of
// opts.Settle lets the screen settle, as a running agent's does — and its
// resizes; input is ignored. The screen starts at the recording's size
// unless opts gives one.
func ExtractRecording(r io.Reader, opts ExtractOptions, emit func(parser.Event)) error {
	rec, err := asciicast.NewReader(r)
	if err != nil {
		return err
	}
	if opts.Cols <= 0 || opts.Rows <= 0 {
		opts.Cols, opts.Rows = rec.Header().Width, rec.Header().Height
	}
	if err := checkExtractSize(opts); err != nil {
		return err
	}
	settle := opts.Settle
	if settle <= 0 {
		settle = spawner.DefaultSettle
	}
	start := time.Unix(0, 0)
	now := start
	x := newExtractor(opts, emit, func() time.Time { return now }, 0)
	defer x.s.Close()
	last := time.Duration(-1)
	// unsettled: output came since the screen last settled. A quiet
	// spell settles the screen once, as a running agent's (spawner's
	// output loop) does: a resize in it is no output, and does not settle
	// it again after the resize.
	unsettled := false
	for {
		ev, err := rec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if unsettled && ev.Time-last >= settle {
			now = start.Add(last + settle)
			x.settle()
			unsettled = false
		}
		now = start.Add(max(ev.Time, last))
		switch ev.Code {
		case asciicast.Output:
			last = max(ev.Time, last)
			unsettled = true
			x.write([]byte(ev.Data))
		case asciicast.Resize:
			cols, rows, err := ev.Size()
			if err == nil {
				err = swarmapi.CheckSize(rows, cols)
			}
			if err != nil {
				return fmt.Errorf("a resize in the recording: %w", err)
			}
			x.s.Resize(rows, cols)
			x.feed(x.s.TakeLines())
		}
	}
	x.end()
	return nil
}

// checkExtractSize refuses a screen size out of bounds (a zero is the
// default's: 24 rows, 80 columns).
func checkExtractSize(opts ExtractOptions) error {
	rows, cols := opts.Rows, opts.Cols
	if rows == 0 {
		rows = 24
	}
	if cols == 0 {
		cols = 80
	}
	return swarmapi.CheckSize(rows, cols)
}

// extractor is the screen and parser pipeline Extract runs.
type extractor struct {
	s    *spawner.Screen
	r    *commandReader
	emit func(parser.Event)
}

// untimedFrames is how many frames in a row settle a row of the alternate
// screen in output replayed without its timing (see
// spawner.ScreenOptions.SettleFrames): a program repaints a few times a
// second, so a few frames stand for the settle time.
const untimedFrames = 3

func newExtractor(opts ExtractOptions, emit func(parser.Event), clock func() time.Time, frames int) *extractor {
	layout := screenmodel.Of(opts.Kind)
	return &extractor{
		s: spawner.NewScreen(spawner.ScreenOptions{
			Rows: opts.Rows, Cols: opts.Cols, NewlineMode: opts.NewlineMode,
			Scrollback: opts.Scrollback,
			Settle:     opts.Settle, Clock: clock, SettleFrames: frames,
			Layout: layout,
		}),
		r:    newCommandReader(opts.Parser, layout),
		emit: emit,
	}
}

func (x *extractor) feed(lines []spawner.Line) {
	for _, l := range lines {
		for _, ev := range x.r.read(l) {
			x.emit(ev)
		}
	}
}

// commandReader reads a program's committed lines for relay commands, as its
// kind lays out its screen: the parser is told where the program wraps its
// text on the screen each line was shown on, and the transcript's echo of
// typed input (screenmodel.Layout.Echoes) is not read at all: what was
// typed into a program is not what it printed. An agent's pump and Extract
// read lines alike.
type commandReader struct {
	p      *parser.Parser
	layout screenmodel.Layout
	// echo is the echo of typed input the last line read belonged to,
	// while inEcho; last is that line's number.
	echo     screenmodel.Echo
	inEcho   bool
	last     int64
	lastText string
	// box is the box of a command's output the lines read are in
	// (screenmodel.Layout.ToolBox), from its head row at work to the end
	// of it printed done.
	box toolBox
	// collapsed: since the last echo, the program showed an output
	// collapsed (screenmodel.Layout.Collapsed); carried: it did before
	// that echo, and no block was open there. output: a line of output
	// was read since the last row of an echo.
	collapsed, carried, output bool
	// blockAt is the number of the line the open block began on, and
	// blockRow its text.
	blockAt  int64
	blockRow string
	// fed is the number of the last line read; stayed, the text last
	// read on each line of the box the lines are in.
	fed    int64
	stayed map[int64]string
	// wider is the lines each row takes of a box printed done for a
	// wider screen whose rows are read (staysWider), 0 while none.
	wider int64
	// cols is the width of the screen the last line read was shown on;
	// resizedAt is when a line was first read on one of another width
	// (resized: one was), which unsettles a box at work (toolBox).
	cols      int
	resized   bool
	resizedAt time.Time
	// late reads the Late and Again lines (spawner.Line.Late) apart from
	// the others, while lateOn; lates are the Late lines' numbers there,
	// ascending: the commands that begin on one of them are new. Not
	// those that begin between two of them, on an Again line: a view
	// grown after a resize shows history above and under a paragraph
	// read already, and that paragraph's rows again in between.
	late     *parser.Parser
	lateOpts parser.Options
	lateOn   bool
	lates    []int64
}

func newCommandReader(opts parser.Options, layout screenmodel.Layout) *commandReader {
	opts.LossyBoxes = layout.LossyBoxes()
	opts.BreaksWideRuns = layout.BreaksWideRuns()
	opts.BreaksAfterPunctuation = layout.BreaksAfterPunctuation()
	opts.CutsRows = layout.CutsRows()
	opts.WrapsWithBlank = layout.WrapsWithBlank()
	r := &commandReader{p: parser.New(opts), lateOpts: opts, layout: layout, stayed: map[int64]string{}}
	r.box.cutAtEdge = r.p.CutAtEdge
	return r
}

// readLate reads a Late or Again line (spawner.Line.Late) apart from the
// other lines: history the program shows only now, above a paragraph read
// already, and that paragraph's rows again. The lines read before went
// on without it, and what the parser holds of them is not its to finish;
// a command found that begins on a Late line is new, one that begins on
// an Again line was read already. Echoes of typed input are not read.
func (r *commandReader) readLate(l spawner.Line) []parser.Event {
	var out []parser.Event
	if l.Late && r.lateOn && l.N <= r.lates[len(r.lates)-1] {
		out = r.endLate() // another paragraph's history
	}
	if !r.lateOn {
		if l.Again {
			return out // no history to go on: read already, with its lines
		}
		// Each paragraph's history is read from a parser's start.
		r.late, r.lateOn, r.lates = parser.New(r.lateOpts), true, r.lates[:0]
	}
	if l.Late {
		r.lates = append(r.lates, l.N)
	}
	if _, echo := r.layout.EchoStart(l.Text); echo {
		return out
	}
	wrapAt := 0
	if l.Cols > 0 {
		wrapAt = r.layout.WrapAt(l.Cols)
	}
	return append(out, r.lateCommands(r.late.FeedLine(l.N, l.Text, wrapAt))...)
}

// pending reports whether lines read wait for more (parser.Parser.Pending),
// or Late and Again lines are being read apart: a pause ends them (flush).
func (r *commandReader) pending() bool { return r.p.Pending() || r.lateOn }

// endLate ends the Late and Again lines read apart (readLate).
func (r *commandReader) endLate() []parser.Event {
	if !r.lateOn {
		return nil
	}
	out := r.lateCommands(r.late.Flush())
	r.lateOn = false
	return out
}

// lateCommands keeps the commands of evs that begin on a Late line.
func (r *commandReader) lateCommands(evs []parser.Event) []parser.Event {
	var out []parser.Event
	for _, ev := range evs {
		if c := ev.Command; c != nil {
			if _, late := slices.BinarySearch(r.lates, c.Line); late {
				out = append(out, ev)
			}
		}
	}
	return out
}

// read takes one committed line and returns the events it completes.
// Inside a box, where a block is open and lines were skipped since the
// last one read, the rows there that stayed as they were read last (the
// spawner commits a row again only when it changed) are read again first:
// they are still on the screen, and the block goes on through them.
func (r *commandReader) read(l spawner.Line) []parser.Event {
	if r.layout.BusyBar(l.Text) {
		return nil // the input box's status, not a row of output: no gap either
	}
	if l.Late || l.Again {
		return r.readLate(l)
	}
	out := r.endLate()
	if r.p.InBlock() && (r.box.live || r.box.done) && l.N > r.fed+1 && l.N-r.fed <= maxStayed {
		for n := r.fed + 1; n < l.N; n++ {
			if _, ok := r.stayed[n]; !ok {
				break
			}
			if n == l.N-1 {
				for k := r.fed + 1; k < l.N; k++ {
					out = append(out, r.readLine(spawner.Line{N: k, Text: r.stayed[k], Time: l.Time, Cols: l.Cols})...)
				}
			}
		}
	}
	out = append(out, r.readLine(l)...)
	if r.box.live || r.box.done {
		if _, in := screenmodel.BoxRow(l.Text); in {
			r.stayed[l.N] = l.Text
		}
		if len(r.stayed) > 2*maxStayed {
			// A box that runs long, its rows far above: never read again.
			maps.DeleteFunc(r.stayed, func(n int64, _ string) bool { return n < l.N-maxStayed })
		}
	} else {
		clear(r.stayed)
	}
	return out
}

// maxStayed bounds the rows read again where lines were skipped: a box's
// rows, at most a screen.
const maxStayed = 200

// readLine takes one line and returns the events it completes.
func (r *commandReader) readLine(l spawner.Line) []parser.Event {
	r.fed = l.N
	if l.Cols > 0 {
		if r.cols > 0 && l.Cols != r.cols {
			r.resized, r.resizedAt = true, l.Time
		}
		r.cols = l.Cols
	}
	if !r.layout.WiderBoxRow(l.Text, l.Cols) {
		r.wider = 0 // the box drawn wider ended
	} else if !r.staysWider(l.Text, r.layout.BoxRowLines(l.Text, l.Cols)) {
		// Pieces of a box drawn for a wider screen: not read, and what
		// the parser holds does not go on into it (a gap).
		return nil
	}
	if r.typed(l) {
		var out []parser.Event
		if r.layout.CutsRows() && r.output {
			// The next line typed ends the output. A program that shows a
			// long output collapsed (its first rows, then "…" and its
			// hint to expand it) shows no end marker of a block in it,
			// and on a short view it may show the hint before the rows
			// above it: a block still open there was cut by the program.
			// The hint may even be read before the echo of the output
			// it is under: a view that scrolls a new output, drawn where
			// the last one's hint was, into place shows the old hint
			// above as if new. Where it showed no output collapsed,
			// around the block, the agent left the block open.
			open := r.p.InBlock()
			if open && !r.cutByProgram() {
				out = r.flush(false)
			} else {
				r.p.Elided()
			}
			r.carried = r.collapsed && !open
			r.collapsed = false
		}
		r.output = false
		return out // the parser sees a gap: what it held ends there
	}
	r.output = true
	r.collapsed = r.collapsed || r.layout.Collapsed(l.Text)
	if l.Elided {
		// Rows right before this one slid by unread: a block open there
		// is the program's cut, as under "… +N lines" (no reader read it
		// whole), not one its author left open. The line itself is read.
		// A command held over rows is not dropped: the line, numbered
		// past the rows unread, continues none, and the rows it took
		// were read (a row with room left ended its line: dropping it
		// lost relays whose last row was short).
		r.p.Elided()
	}
	if r.layout.Elides(l.Text) && (r.p.ElidedHeld(l.N) || r.p.Elided()) {
		// A block, or a command wrapped over rows, the program showed
		// with rows left out: it is read where the program shows it
		// whole, if anywhere.
		return nil
	}
	title, running, head := r.layout.ToolBox(l.Text)
	width := 0
	if head {
		// The rows of a box a command's output was seen in while it ran
		// are its terminal's rows whole, at the box's width — printed
		// done as wide as it ran.
		width = ansi.StringWidth(strings.TrimRight(l.Text, " "))
		r.p.BoxSized(running || l.ShownRunning && r.box.drawnAsAtWork(title, width))
	}
	wrapAt := 0
	if l.Cols > 0 {
		wrapAt = r.layout.WrapAt(l.Cols)
	}
	r.p.RowLines(r.wider) // 0 out of a box drawn wider: one line
	if r.wider == 0 && l.Rows > 1 && ansi.StringWidth(l.Text) <= l.Cols {
		// A row a narrower screen pushed off, rewrapped: the next row of
		// its paragraph is under all its lines. A line wider than the
		// screen it was shown on was never a row the program wrapped (the
		// terminal broke it there): the lines under it stay apart.
		r.p.NextRowLines(int64(l.Rows))
	}
	if r.p.InBlock() && l.N == r.blockAt && l.Text != r.blockRow && r.cutByProgram() {
		// The open block's first row drawn over with other text, in an
		// output the program shows collapsed: its view shows the next
		// output's last rows where the block was (that output's echo
		// above the view), and the "…" under the block, unchanged, was
		// never read again. The block as read is the program's cut, as
		// at the next line typed.
		r.p.Elided()
	}
	hidden, isHidden := r.layout.HiddenAbove(l.Text)
	if isHidden && r.p.InBlock() {
		// A box's count of the rows it hides is its first row of output:
		// read under a block's first row, it is the box drawn again, its
		// rows counted anew (Gemini CLI, resized, writes the box at work
		// again, then prints it done). The block as read is the rows of
		// an earlier drawing cut where that one ended: the program's cut,
		// no command and no error; the rows under the count show it again
		// (holdout-20261128s gemini-s14700020 made again: the block read
		// from the box laid out for the old width ran into the done box's
		// count row, a malformed block, and the block the done box showed
		// whole was lost).
		r.p.Elided()
	}
	inBlock := r.p.InBlock()
	r.box.unsettled = r.resized && l.Time.Sub(r.resizedAt) < relayout && r.layout.HasToolBoxes()
	if r.box.unsettled && !head {
		if inside, _ := screenmodel.BoxRow(l.Text); inside {
			r.box.adopt(l.N)
		}
	}
	r.box.follow(l, head || isHidden)
	r.box.remap(l.N, l.Text, head, isHidden)
	r.p.BoxAtWork(r.box.live)
	// What a row ends was read in the box the row is in, or before it.
	out := r.box.take(r.p.FeedLine(l.N, l.Text, wrapAt), l)
	if !inBlock && r.p.InBlock() {
		r.blockAt, r.blockRow = l.N, l.Text
	}
	switch {
	case head:
		// A row's width is measured only here and for a box drawn wider:
		// measuring every line's was a seventh of extraction's work.
		span := r.layout.BoxRowLines(l.Text, l.Cols)
		if span == 1 && l.Rows > 1 {
			// A head a narrower screen pushed off as it rewrapped it: the
			// box's rows under it went the same way, each that many lines
			// (a done box counted a line a row would put a command it
			// shows at another row of the output than the live box did,
			// and a command both showed would go out twice).
			span = int64(l.Rows)
		}
		out = append(out, r.box.head(title, running, span, width)...)
	case r.box.done && !strings.HasPrefix(strings.TrimLeft(l.Text, " "), "│"):
		out = append(out, r.box.release()...) // the done box ended
	}
	return append(out, r.box.row(l.N, l.Text, head, hidden, isHidden)...)
}

// staysWider reports whether text, a row of a box drawn for a wider
// screen that the terminal broke over span lines (WiderBoxRow), is a row
// of a box printed done: the program prints that box once, where it stays
// until the screen is drawn anew, and a reader reads its rows across the
// terminal's breaks (the terminal broke them mid-row, as it wraps any
// line). A box at work it draws again at its next frame, for the screen it
// has, and a row the screen cut at its edge is never whole. It follows
// the head rows read, done ones drawn wider starting such a box. A done
// box whose head row was read where the box fit, and whose rows now come
// broken over lines, each as wide as its box at work was drawn, is such a
// box too: the screen shrank right after the program printed it, before
// its lines were committed, the head as it was shown and the rows under
// it as the terminal broke them for the new width. Those rows were
// dropped as a frame still laid out for the old width, and a command
// only the done box showed was lost; their lines, counted at the new
// width, are placed among the live box's readings by what they say
// (toolBox.release).
func (r *commandReader) staysWider(text string, span int64) bool {
	if _, running, head := r.layout.ToolBox(text); head {
		r.wider = 0
		if !running && span > 1 {
			r.wider = span
		}
	} else if r.wider == 0 && span > 1 && r.box.done && r.box.width == ansi.StringWidth(strings.TrimRight(text, " ")) {
		r.wider = span
	}
	return span > 1 && span == r.wider
}

// flush returns what the parser held (parser.Parser.Flush), and at the
// end of the output what the box held too.
func (r *commandReader) flush(end bool) []parser.Event {
	if end && r.output && r.cutByProgram() {
		// The session ends in an output shown collapsed: a block open
		// there was cut by the program, as at the next line typed.
		r.p.Elided()
	}
	out := append(r.endLate(), r.box.take(r.p.Flush(), spawner.Line{})...)
	if end {
		out = append(out, r.box.release()...)
	}
	return out
}

// cutByProgram reports whether a block open where an output ends (the next
// line typed, or the end of the session) was cut by the program, not left
// open by its author: the program shows a long output collapsed, with no
// end marker of a block in it, and showed one around the block (see read).
func (r *commandReader) cutByProgram() bool {
	return r.layout.CutsRows() && (r.collapsed || r.carried)
}

// typed reports whether the line is the transcript's echo of typed input:
// a row that starts one, or the next row when it continues it (the row
// before it had no room for its first word: Echo.ContinuesAfter).
func (r *commandReader) typed(l spawner.Line) bool {
	wrapAt := 0
	if l.Cols > 0 {
		wrapAt = r.layout.WrapAt(l.Cols)
	}
	if r.inEcho && l.N == r.last+1 && r.echo.ContinuesAfter(r.lastText, l.Text, wrapAt) {
		r.last, r.lastText = l.N, l.Text
		return true
	}
	r.echo, r.inEcho = r.layout.EchoStart(l.Text)
	r.last, r.lastText = l.N, l.Text
	return r.inEcho
}

func (x *extractor) write(b []byte) {
	_, _ = x.s.Write(b)
	x.feed(x.s.TakeLines())
}

// settle is what an agent's process and pump do when its output pauses.
func (x *extractor) settle() {
	x.feed(x.s.Settle())
	if x.r.pending() {
		for _, ev := range x.r.flush(false) {
			x.emit(ev)
		}
	}
}

func (x *extractor) end() {
	x.feed(x.s.Flush())
	for _, ev := range x.r.flush(true) {
		x.emit(ev)
	}
}

// RecordingKind returns the kind of program a recording holds, as its
// sidecar says: NAME.json beside NAME.cast (or NAME.cast.gz), whose "kind"
// names a profile ("claude", "codex", …), as the CLI recordings in
// testdata/cli and the corpus generator's have. "" when there is no
// sidecar or it names no kind.
func RecordingKind(path string) (string, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".cast")
	if base == path {
		return "", nil // not a recording's name
	}
	data, err := os.ReadFile(base + ".json")
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the recording's sidecar: %w", err)
	}
	var side struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &side); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Base(base+".json"), err)
	}
	if side.Kind != "" {
		if _, ok := ProfileByKind(side.Kind); !ok {
			return "", fmt.Errorf("%s: unknown kind %q", filepath.Base(base+".json"), side.Kind)
		}
	}
	return side.Kind, nil
}
