package supervisor

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"swarm/asciicast"
	"swarm/parser"
)

// cliDir holds real agent CLIs' sessions, recorded offline (see its
// README.md): NAME.cast with the commands they printed in NAME.want and
// the kind of CLI in NAME.json.
const cliDir = "../testdata/cli"

// wantCommand is one line of a .want file.
type wantCommand struct {
	Kind        string `json:"kind"`
	To          string `json:"to"`
	Type        string `json:"type"`
	Body        string `json:"body"`
	Topic       string `json:"topic,omitempty"`
	AfterResize bool   `json:"after_resize,omitempty"`
}

func (w wantCommand) String() string {
	s := fmt.Sprintf("%s %s %s %q", w.Kind, w.To, w.Type, w.Body)
	if w.Topic != "" {
		s += " topic=" + w.Topic
	}
	return s
}

func readWant(t *testing.T, path string) []wantCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []wantCommand
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var w wantCommand
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, w)
	}
	return out
}

// describeEvents renders events as wantCommand strings (errors as such).
func describeEvents(evs []parser.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Err != nil {
			out = append(out, "error: "+ev.Err.Error())
			continue
		}
		c := ev.Command
		out = append(out, wantCommand{Kind: c.Kind.String(), To: c.To, Type: c.Type, Body: c.Body, Topic: c.Topic}.String())
	}
	return out
}

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

// TestCLIRecordings replays each real CLI session and compares the relay
// commands with what the CLI printed: played with its timing and resizes,
// and, up to its first resize, as raw output with neither (as `swarm
// parse` reads a `script` capture) unless a file was printed again by then.
func TestCLIRecordings(t *testing.T) {
	t.Parallel()
	eachRecording(t, func(t *testing.T, name string, data []byte) {
		want := readWant(t, filepath.Join(cliDir, name+".want"))
		kind, err := RecordingKind(filepath.Join(cliDir, name+".cast"))
		if err != nil || kind == "" {
			t.Fatalf("the recording's kind: %q, %v (its NAME.json says which CLI it is)", kind, err)
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
		if got := describeEvents(evs); strings.Join(got, "\n") != strings.Join(all, "\n") {
			t.Errorf("played with its timing:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
		}

		if printedAgain(before) {
			// A file printed again after others: only the output's
			// timing tells it from the CLI drawing its transcript again
			// (a replay lasts until output pauses).
			return
		}
		raw, cols, rows := rawBeforeResize(t, data)
		evs = evs[:0]
		if err := Extract(bytes.NewReader(raw), ExtractOptions{Cols: cols, Rows: rows, Kind: kind}, func(ev parser.Event) { evs = append(evs, ev) }); err != nil {
			t.Fatal(err)
		}
		if got := describeEvents(evs); strings.Join(got, "\n") != strings.Join(before, "\n") {
			t.Errorf("raw, up to the first resize:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(before, "\n"))
		}
	})
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
