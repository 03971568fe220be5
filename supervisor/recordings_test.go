package supervisor

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"swarm/asciicast"
	"swarm/internal/wantfile"
	"swarm/parser"
)

// cliDir holds real agent CLIs' sessions, recorded offline (see its
// README.md): NAME.cast with the commands they printed in NAME.want and
// the kind of CLI in NAME.json.
const cliDir = "../testdata/cli"

// eachRecording runs fn as a parallel subtest for each recording in
// cliDir (NAME.cast, or NAME.cast.gz), with its name and its content.
func eachRecording(t *testing.T, fn func(t *testing.T, name string, data []byte)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cliDir, "*.cast*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s: %v", cliDir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".gz"), ".cast")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := readRecording(file)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, name, data)
		})
	}
}

// readRecording reads a recording, NAME.cast or NAME.cast.gz.
func readRecording(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return data, err
	}
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(z)
}

// writeKnown rewrites each recording's NAME.known from today's extraction
// (scripts/record-cli/goldens.py --known runs it after a rule changes).
var writeKnown = flag.Bool("known", false, "rewrite testdata/cli/NAME.known from today's extraction")

// TestCLIRecordings replays each real CLI session and compares the relay
// commands with what the CLI printed: played with its timing and resizes,
// and, up to its first resize, as raw output with neither (as `swarm
// parse` reads a `script` capture) unless a file was printed again by then.
//
// A golden the rules do not pass yet has a NAME.known: exactly how today's
// extraction differs from its .want (knownDiff's lines). The test fails
// when the differences are not exactly those: a golden got worse, or a rule
// fixed one (then its line goes, by regenerating the file).
func TestCLIRecordings(t *testing.T) {
	t.Parallel()
	eachRecording(t, func(t *testing.T, name string, data []byte) {
		want, err := wantfile.Read(filepath.Join(cliDir, name+".want"))
		if err != nil {
			t.Fatal(err)
		}
		kind, err := RecordingKind(filepath.Join(cliDir, name+".cast"))
		if err != nil || kind == "" {
			t.Fatalf("the recording's kind: %q, %v (its NAME.json says which CLI it is)", kind, err)
		}
		// A command a reader may or may not have read (NAME.json's
		// unsure ones) is neither expected nor, found, an extra: as
		// scripts/corpus-score counts.
		meta, err := wantfile.ReadMeta(filepath.Join(cliDir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var all, before []string
		for _, w := range want {
			all = append(all, w.String())
			if !w.AfterResize {
				before = append(before, w.String())
			}
		}
		var evs []parser.Event
		if err := ExtractRecording(bytes.NewReader(data), ExtractOptions{Kind: kind}, func(ev parser.Event) { evs = append(evs, ev) }); err != nil {
			t.Fatal(err)
		}
		got, _ := wantfile.WithoutUnsure(all, evs, meta.Unsure)
		diff := knownDiff("timed", all, got)

		// A file printed again after others: only the output's timing
		// tells it from the CLI drawing its transcript again (a replay
		// lasts until output pauses), so it is not played raw.
		if !printedAgain(before) {
			raw, cols, rows := rawBeforeResize(t, data)
			evs = evs[:0]
			if err := Extract(bytes.NewReader(raw), ExtractOptions{Cols: cols, Rows: rows, Kind: kind}, func(ev parser.Event) { evs = append(evs, ev) }); err != nil {
				t.Fatal(err)
			}
			got, _ := wantfile.WithoutUnsure(before, evs, meta.Unsure)
			diff = append(diff, knownDiff("raw", before, got)...)
		}

		path := filepath.Join(cliDir, name+".known")
		if *writeKnown {
			if err := saveKnown(path, name, diff); err != nil {
				t.Fatal(err)
			}
			return
		}
		known, err := loadKnown(path)
		if err != nil {
			t.Fatal(err)
		}
		worse, fixed := multisetMinus(diff, known), multisetMinus(known, diff)
		if len(worse) > 0 {
			t.Errorf("today's extraction differs from %s.want in ways %s.known does not list (a golden got worse):\n%s",
				name, name, strings.Join(worse, "\n"))
		}
		if len(fixed) > 0 {
			t.Errorf("%s.known lists differences that are gone (a rule fixed them): regenerate it with scripts/record-cli/goldens.py --known, which removes:\n%s",
				name, strings.Join(fixed, "\n"))
		}
	})
}

// knownDiff lists how got differs from want, one line each, prefixed with
// mode: "missing W", "extra G", or "changed W -> G" where a run of
// commands not in both (aligned by their longest common subsequence)
// pairs a wanted one with one found in its place.
func knownDiff(mode string, want, got []string) []string {
	lcs := wantfile.CommonLengths(want, got)
	var out, missing, extra []string
	flush := func() {
		n := min(len(missing), len(extra))
		for k := range n {
			out = append(out, mode+" changed "+missing[k]+" -> "+extra[k])
		}
		for _, m := range missing[n:] {
			out = append(out, mode+" missing "+m)
		}
		for _, e := range extra[n:] {
			out = append(out, mode+" extra "+e)
		}
		missing, extra = missing[:0], extra[:0]
	}
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case i < len(want) && j < len(got) && want[i] == got[j]:
			flush()
			i, j = i+1, j+1
		case j == len(got) || (i < len(want) && lcs[i+1][j] >= lcs[i][j+1]):
			missing = append(missing, want[i])
			i++
		default:
			extra = append(extra, got[j])
			j++
		}
	}
	flush()
	return out
}

const knownHeader = `# How today's extraction differs from %s.want, one difference a line
# ("timed": played with its timing and resizes; "raw": its output up to the
# first resize). TestCLIRecordings fails when the differences are not
# exactly these. Written by scripts/record-cli/goldens.py --known; never
# edit it by hand.
`

// loadKnown reads a NAME.known's lines (none when there is no file).
func loadKnown(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, nil
}

// saveKnown writes diff to path, or removes path when there is none.
func saveKnown(path, name string, diff []string) error {
	if len(diff) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(path, []byte(fmt.Sprintf(knownHeader, name)+strings.Join(diff, "\n")+"\n"), 0o644)
}

// multisetMinus returns the lines of a not matched one for one in b.
func multisetMinus(a, b []string) []string {
	left := map[string]int{}
	for _, s := range b {
		left[s]++
	}
	var out []string
	for _, s := range a {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// printedAgain reports whether a command comes again after others.
func printedAgain(cmds []string) bool {
	for i, c := range cmds {
		for j := i + 2; j < len(cmds); j++ {
			if cmds[j] == c && cmds[j-1] != c {
				return true
			}
		}
	}
	return false
}

// rawBeforeResize returns a recording's output up to its first resize, and
// its size.
func rawBeforeResize(t testing.TB, data []byte) ([]byte, int, int) {
	t.Helper()
	rec, err := asciicast.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	for {
		ev, err := rec.Next()
		if errors.Is(err, io.EOF) || ev.Code == asciicast.Resize {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Code == asciicast.Output {
			raw = append(raw, ev.Data...)
		}
	}
	return raw, rec.Header().Width, rec.Header().Height
}

// TestKnownDiff: the differences a .known lists, aligned as a reader would
// pair them.
func TestKnownDiff(t *testing.T) {
	got := knownDiff("timed", []string{"a", "b", "c", "d"}, []string{"a", "x", "c", "e", "f"})
	want := []string{"timed changed b -> x", "timed changed d -> e", "timed extra f"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := knownDiff("raw", []string{"a", "b"}, []string{"b"}); strings.Join(got, "|") != "raw missing a" {
		t.Errorf("a command lost: %q", got)
	}
	if got := knownDiff("raw", []string{"a"}, []string{"a"}); len(got) != 0 {
		t.Errorf("the same: %q", got)
	}
	if got := multisetMinus([]string{"x", "x", "y"}, []string{"x"}); strings.Join(got, "|") != "x|y" {
		t.Errorf("multisetMinus: %q", got)
	}
}

// TestALongRowAlikeUnderEveryOutputDoesNotAnchorARelayout: a long row the
// last frame showed may stand alone in the alignment chosen again while a
// program lays its view out anew after a resize — but only a row whose text
// no other row of the document has. opencode-s97100016 shows one
// "Click to expand" hint under each collapsed output; with the hint's words
// changed (any row reading the same under every output, not opencode's hint
// only), the hint taken for another output's made the rows above it new and
// relay bob t413 went out twice. The golden's commands must come out the same.
func TestALongRowAlikeUnderEveryOutputDoesNotAnchorARelayout(t *testing.T) {
	t.Parallel()
	const name = "opencode-s97100016-194x41"
	data, err := readRecording(filepath.Join(cliDir, name+".cast.gz"))
	if err != nil {
		t.Fatal(err)
	}
	alike := bytes.ReplaceAll(data, []byte("Click to expand"), []byte("Click to EXPAND"))
	if bytes.Equal(alike, data) {
		t.Fatal("the recording shows no \"Click to expand\" hint")
	}
	want, err := wantfile.Read(filepath.Join(cliDir, name+".want"))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := wantfile.ReadMeta(filepath.Join(cliDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, w := range want {
		all = append(all, w.String())
	}
	var evs []parser.Event
	if err := ExtractRecording(bytes.NewReader(alike), ExtractOptions{Kind: "opencode"}, func(ev parser.Event) { evs = append(evs, ev) }); err != nil {
		t.Fatal(err)
	}
	got, _ := wantfile.WithoutUnsure(all, evs, meta.Unsure)
	if diff := knownDiff("timed", all, got); len(diff) > 0 {
		t.Errorf("with the hint's words changed, the commands differ from %s.want:\n%s", name, strings.Join(diff, "\n"))
	}
}
