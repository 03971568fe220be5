package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"swarm/asciicast"
	"swarm/parser"
	"swarm/supervisor"
	"swarm/textsafe"
)

// parseCmd's "line" numbers are screen lines: see the README.
type parseCmd struct {
	File string `arg:"" optional:"" help:"Raw terminal output (e.g. a 'script -q' recording) or an asciicast v2 recording (.cast: timing and resizes are played too); stdin when absent or -."`
	Cols int    `help:"Terminal width the output was written for (default 80, or the recording's)."`
	Rows int    `help:"Terminal height the output was written for (default 24, or the recording's)."`
	Kind string `help:"Kind of program that wrote the output (claude, codex, gemini, opencode, …): where it wraps its text, its input areas and borders. Default: what a recording's NAME.json beside it says, else none."`
}

func (c *parseCmd) Run(g *Globals) error {
	in := g.stdin
	if c.File != "" && c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return fmt.Errorf("parse: %w", err)
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("parse: read input: %w", err)
	}
	if c.Cols < 0 || c.Rows < 0 || (c.Cols == 0) != (c.Rows == 0) {
		return usageError("--cols and --rows go together and must be at least 1")
	}
	kind := c.Kind
	if kind != "" {
		if _, ok := supervisor.ProfileByKind(kind); !ok {
			var kinds []string
			for _, p := range supervisor.Profiles {
				kinds = append(kinds, p.Kind)
			}
			return usageError("--kind %q: not a kind of program swarm knows (%s)", kind, strings.Join(kinds, ", "))
		}
	} else if c.File != "" && c.File != "-" {
		if kind, err = supervisor.RecordingKind(c.File); err != nil {
			return fmt.Errorf("parse: %w", err)
		}
	}
	w := bufio.NewWriter(g.stdout)
	var werr error
	emit := func(ev parser.Event) {
		b, err := json.Marshal(ev)
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", textsafe.JSON(b))
		}
		werr = errors.Join(werr, err)
	}
	opts := supervisor.ExtractOptions{Cols: c.Cols, Rows: c.Rows, Kind: kind}
	if asciicast.Is(data) {
		err = supervisor.ExtractRecording(bytes.NewReader(data), opts, emit)
		if err != nil {
			err = fmt.Errorf("parse: %w", err)
		}
	} else {
		if opts.Cols == 0 {
			opts.Cols, opts.Rows = 80, 24
		}
		// Output captured from a terminal has CR LF line ends; a plain
		// text file has bare LFs, which a terminal would not return to
		// column 0.
		opts.NewlineMode = !bytes.Contains(data, []byte("\r"))
		err = supervisor.Extract(bytes.NewReader(data), opts, emit)
	}
	return errors.Join(err, werr, w.Flush())
}
