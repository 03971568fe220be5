package supervisor

import (
	"errors"
	"fmt"
	"io"

	"swarm/parser"
	"swarm/spawner"
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
}

// Extract plays raw terminal output (a recording such as `script -q`
// makes, or a PTY capture) through a VT screen and the relay parser, the
// same pipeline a running agent's output goes through, and calls emit for
// every command and error in order. It returns an error only when reading
// r fails.
func Extract(r io.Reader, opts ExtractOptions, emit func(parser.Event)) error {
	size := opts.ChunkSize
	if size <= 0 {
		size = 32 << 10
	}
	s := spawner.NewScreen(spawner.ScreenOptions{
		Rows: opts.Rows, Cols: opts.Cols, NewlineMode: opts.NewlineMode,
		Scrollback: -1, // nobody scrolls back here
	})
	defer s.Close()
	p := parser.New(opts.Parser)
	feed := func(lines []spawner.Line) {
		for _, l := range lines {
			for _, ev := range p.Feed(l.N, l.Text) {
				emit(ev)
			}
		}
	}
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = s.Write(buf[:n])
			feed(s.TakeLines())
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read terminal output: %w", err)
		}
	}
	feed(s.Flush())
	for _, ev := range p.Flush() {
		emit(ev)
	}
	return nil
}
