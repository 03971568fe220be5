// Command corpus-score replays every recording of a corpus of real agent
// CLI sessions (made by scripts/record-cli/generate.py) through swarm's own
// extraction pipeline and scores the commands found against the ones the
// generator printed.
//
//	go run ./scripts/corpus-score [-v] [-raw] [-j N] DIR...
//
// Each recording is NAME.cast (or NAME.cast.gz) with NAME.want, the
// expected commands one JSON object per line (as testdata/cli/*.want), and
// NAME.json, which names the configuration ("config": claude,
// claude-inline, codex, codex-inline, gemini, opencode) and the kind of
// program. A recording without NAME.json is scored under its name's first
// part. The recording is played with its timing and resizes
// (supervisor.ExtractRecording) as the kind of program NAME.json names
// (supervisor.RecordingKind), as TestCLIRecordings plays testdata/cli.
//
// Per configuration and in total it prints: recordings exact (the commands
// found are exactly the .want, in order), commands found (of those
// expected, matched in order), extra (commands found that were not
// expected, garbled ones included) and errors (parse errors, such as a
// malformed block). A command the CLI showed only in part, changed, only
// later or only for a moment is listed in NAME.json as unsure: it is not
// expected, and one found in its place is counted under unsure, not extra
// (internal/wantfile, as TestCLIRecordings counts). -raw also replays each recording's
// output up to its first resize without timing, as TestCLIRecordings does
// too, and counts the recordings whose commands there are exactly those
// expected before that resize ("raw exact"). -v adds the
// differences of each recording that is not exact.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"swarm/asciicast"
	"swarm/internal/wantfile"
	"swarm/parser"
	"swarm/supervisor"
)

// result is one recording's score.
type result struct {
	name, config string
	want, got    []string
	found        int // expected commands matched in order
	errors       int // parse errors among got
	unsure       int // found commands where the CLI showed one only in part
	// rawExact: the output up to the first resize, replayed raw (no
	// timing), gives exactly the commands expected before that resize (as
	// TestCLIRecordings also checks); set with -raw.
	rawExact, rawDone bool
	err               error
}

func (r result) exact() bool {
	return r.err == nil && strings.Join(r.want, "\n") == strings.Join(r.got, "\n")
}

// extra counts the commands found that were not expected (garbled ones
// too); parse errors are counted apart.
func (r result) extra() int { return len(r.got) - r.errors - r.found }

func main() {
	verbose := flag.Bool("v", false, "print the differences of every recording that is not exact")
	raw := flag.Bool("raw", false, "also replay each recording's output up to its first resize raw, as TestCLIRecordings does, and count those exact")
	jobs := flag.Int("j", max(1, runtime.NumCPU()/2), "recordings replayed at once")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: corpus-score [-v] [-raw] [-j N] DIR...\n\nScores swarm's extraction on a corpus of recorded CLI sessions (NAME.cast, NAME.want, NAME.json).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var casts []string
	for _, dir := range flag.Args() {
		found, err := recordings(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "corpus-score:", err)
			os.Exit(1)
		}
		casts = append(casts, found...)
	}
	if len(casts) == 0 {
		fmt.Fprintln(os.Stderr, "corpus-score: no recordings (NAME.cast with NAME.want) in", strings.Join(flag.Args(), " "))
		os.Exit(1)
	}

	results := make([]result, len(casts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *jobs))
	for i, path := range casts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = score(path, *raw)
		}()
	}
	wg.Wait()

	report(os.Stdout, results, *verbose)
	for _, r := range results {
		if r.err != nil {
			os.Exit(1)
		}
	}
}

// recordings lists the recordings under dir (its subdirectories too), in
// name order.
func recordings(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		base := strings.TrimSuffix(path, ".gz")
		if strings.HasSuffix(base, ".cast") {
			if _, err := os.Stat(strings.TrimSuffix(base, ".cast") + ".want"); err == nil {
				out = append(out, path)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// score replays one recording and compares what it finds with its .want.
func score(castPath string, raw bool) result {
	stem := strings.TrimSuffix(strings.TrimSuffix(castPath, ".gz"), ".cast")
	r := result{name: filepath.Base(stem)}
	r.config, _, _ = strings.Cut(r.name, "-")
	m, err := wantfile.ReadMeta(stem + ".json")
	switch {
	case err == nil:
		if m.Config != "" {
			r.config = m.Config
		}
	case !errors.Is(err, os.ErrNotExist):
		r.err = err
		return r
	}
	want, err := wantfile.Read(stem + ".want")
	if err != nil {
		r.err = err
		return r
	}
	for _, w := range want {
		r.want = append(r.want, w.String())
	}
	data, err := readCast(castPath)
	if err != nil {
		r.err = err
		return r
	}
	kind, err := supervisor.RecordingKind(castPath)
	if err != nil {
		r.err = err
		return r
	}
	var found []parser.Event
	err = supervisor.ExtractRecording(bytes.NewReader(data), supervisor.ExtractOptions{Kind: kind}, func(ev parser.Event) {
		found = append(found, ev)
	})
	var nUnsure int
	r.got, nUnsure = wantfile.WithoutUnsure(r.want, found, m.Unsure)
	r.unsure += nUnsure
	if err != nil {
		r.err = fmt.Errorf("%s: %w", castPath, err)
		return r
	}
	var commands []string
	for _, g := range r.got {
		if strings.HasPrefix(g, wantfile.ErrorPrefix) {
			r.errors++
		} else {
			commands = append(commands, g)
		}
	}
	r.found = commonInOrder(r.want, commands)
	if raw {
		var before []string
		for _, w := range want {
			if !w.AfterResize {
				before = append(before, w.String())
			}
		}
		if r.err = scoreRaw(&r, data, kind, before, m.Unsure); r.err != nil {
			r.err = fmt.Errorf("%s: %w", castPath, r.err)
		}
	}
	return r
}

// scoreRaw replays a recording's output up to its first resize with
// neither timing nor resizes (supervisor.Extract at the recording's size)
// and says whether that gives exactly the commands expected before it.
func scoreRaw(r *result, data []byte, kind string, before []string, unsure []wantfile.Command) error {
	rec, err := asciicast.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	var out []byte
	for {
		ev, err := rec.Next()
		if errors.Is(err, io.EOF) || ev.Code == asciicast.Resize {
			break
		}
		if err != nil {
			return err
		}
		if ev.Code == asciicast.Output {
			out = append(out, ev.Data...)
		}
	}
	var found []parser.Event
	opts := supervisor.ExtractOptions{Cols: rec.Header().Width, Rows: rec.Header().Height, Kind: kind}
	err = supervisor.Extract(bytes.NewReader(out), opts, func(ev parser.Event) {
		found = append(found, ev)
	})
	got, _ := wantfile.WithoutUnsure(before, found, unsure)
	r.rawDone = true
	r.rawExact = err == nil && strings.Join(got, "\n") == strings.Join(before, "\n")
	return err
}

// readCast returns a recording's text, uncompressed when it is gzipped.
func readCast(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// commonInOrder is the length of the longest common subsequence of want
// and got: the expected commands found, in order.
func commonInOrder(want, got []string) int {
	prev := make([]int, len(got)+1)
	cur := make([]int, len(got)+1)
	for i := range want {
		for j := range got {
			switch {
			case want[i] == got[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(got)]
}

// tally adds up results.
type tally struct {
	recordings, exact, want, found, extra, errors, unsure, failed int
	raw, rawExact                                                 int
}

func (t *tally) add(r result) {
	t.recordings++
	if r.err != nil {
		t.failed++
		return
	}
	if r.exact() {
		t.exact++
	}
	t.want += len(r.want)
	t.found += r.found
	t.extra += r.extra()
	t.errors += r.errors
	t.unsure += r.unsure
	if r.rawDone {
		t.raw++
		if r.rawExact {
			t.rawExact++
		}
	}
}

func report(w io.Writer, results []result, verbose bool) {
	by := map[string]*tally{}
	var total tally
	for _, r := range results {
		if by[r.config] == nil {
			by[r.config] = &tally{}
		}
		by[r.config].add(r)
		total.add(r)
	}
	if verbose {
		for _, r := range results {
			switch {
			case r.err != nil:
				fmt.Fprintf(w, "== %s: %v\n", r.name, r.err)
			case !r.exact():
				fmt.Fprintf(w, "== %s (%s): %d of %d found, %d extra, %d errors\n", r.name, r.config, r.found, len(r.want), r.extra(), r.errors)
				diff(w, r.want, r.got)
			}
		}
		fmt.Fprintln(w)
	}
	configs := make([]string, 0, len(by))
	for c := range by {
		configs = append(configs, c)
	}
	sort.Strings(configs)
	fmt.Fprintf(w, "%-14s %16s %20s %7s %7s %7s\n", "config", "recordings exact", "commands found", "extra", "errors", "unsure")
	line := func(name string, t tally) {
		fmt.Fprintf(w, "%-14s %6d/%-4d %5s %8d/%-5d %5s %7d %7d %7d", name, t.exact, t.recordings, pct(t.exact, t.recordings), t.found, t.want, pct(t.found, t.want), t.extra, t.errors, t.unsure)
		if t.raw > 0 {
			fmt.Fprintf(w, "   raw exact %d/%d", t.rawExact, t.raw)
		}
		if t.failed > 0 {
			fmt.Fprintf(w, "  (%d unreadable)", t.failed)
		}
		fmt.Fprintln(w)
	}
	for _, c := range configs {
		line(c, *by[c])
	}
	line("total", total)
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", n*100/of)
}

// diff prints want and got aligned on their common commands: "-" expected
// and not found, "+" found and not expected.
func diff(w io.Writer, want, got []string) {
	// The table of commonInOrder, kept whole to walk back through.
	n, m := len(want), len(got)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			i++
			j++
		case j < m && (i == n || t[i][j+1] >= t[i+1][j]):
			fmt.Fprintf(w, "  + %s\n", got[j])
			j++
		default:
			fmt.Fprintf(w, "  - %s\n", want[i])
			i++
		}
	}
}
