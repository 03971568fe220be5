package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"swarm/supervisor"
	"swarm/textsafe"
)

type logsCmd struct {
	Agent  string `arg:"" help:"The agent whose output to print."`
	Lines  int    `short:"n" help:"Print only the last N lines (0: all)." default:"0" placeholder:"N"`
	Follow bool   `short:"f" help:"Keep printing what the agent writes (until interrupted)."`
}

// followPoll is how often --follow looks for more output.
const followPoll = 200 * time.Millisecond

func (c *logsCmd) Run(g *Globals) error {
	if c.Lines < 0 {
		return usageError("logs: -n %d is negative", c.Lines)
	}
	path := supervisor.LogPath(g.busDir(), c.Agent)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("logs: no output of %q in %s%s", c.Agent, filepath.Dir(path), knownLogs(filepath.Dir(path)))
	}
	if err != nil {
		return fmt.Errorf("logs: %w", err)
	}
	defer func() { f.Close() }()
	w := bufio.NewWriter(g.stdout)
	lr := &lineReader{r: bufio.NewReader(f)}
	if err := printLines(w, lr, c.Lines); err != nil {
		return err
	}
	if err := w.Flush(); err != nil || !c.Follow {
		return err
	}
	t := time.NewTicker(followPoll)
	defer t.Stop()
	for {
		select {
		case <-g.ctx.Done():
			return nil
		case <-t.C:
		}
		if err := printLines(w, lr, 0); err != nil {
			return err
		}
		// A rotated log is a new file: finish the old one, then go on from
		// the new one's start.
		if st, err := os.Stat(path); err == nil {
			if cur, err := f.Stat(); err == nil && !os.SameFile(st, cur) {
				if nf, err := os.Open(path); err == nil {
					if err := printLines(w, lr, 0); err != nil { // what was written before the move
						nf.Close()
						return err
					}
					f.Close()
					f, lr = nf, &lineReader{r: bufio.NewReader(nf)}
					if err := printLines(w, lr, 0); err != nil {
						return err
					}
				}
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// lineReader yields the whole lines of a growing file; an unfinished last
// line waits for the rest.
type lineReader struct {
	r       *bufio.Reader
	partial string
}

// printLines prints the whole lines lr has now (the last n of them when
// n > 0), made safe for the terminal.
func printLines(w *bufio.Writer, lr *lineReader, n int) error {
	var tail []string
	for {
		line, err := lr.r.ReadString('\n')
		if err == io.EOF {
			lr.partial += line
			break
		}
		if err != nil {
			return fmt.Errorf("logs: %w", err)
		}
		text := textsafe.Line(strings.TrimSuffix(lr.partial+line, "\n"))
		lr.partial = ""
		if n > 0 {
			if tail = append(tail, text); len(tail) > n {
				tail = tail[1:]
			}
			continue
		}
		if _, err := fmt.Fprintln(w, text); err != nil {
			return err
		}
	}
	for _, text := range tail {
		if _, err := fmt.Fprintln(w, text); err != nil {
			return err
		}
	}
	return nil
}

// knownLogs names the agents with logs in dir, for an error message.
func knownLogs(dir string) string {
	names, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(names) == 0 {
		return " (no agent has run with this bus yet)"
	}
	for i, n := range names {
		names[i] = strings.TrimSuffix(filepath.Base(n), ".log")
	}
	return " (agents with output: " + strings.Join(names, ", ") + ")"
}
