package parser

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the parser's output")

// TestTranscripts feeds testdata/NAME.txt (committed lines, as the spawner
// delivers them from agent CLIs' screens) and compares the events, one JSON
// line each, with testdata/NAME.golden.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			p := New(Options{})
			emit := func(evs []Event) {
				for _, e := range evs {
					b, err := e.MarshalJSON()
					if err != nil {
						t.Fatal(err)
					}
					got.Write(b)
					got.WriteByte('\n')
				}
			}
			for i, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
				emit(p.Feed(int64(i+1), line))
			}
			emit(p.Flush())
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./parser/ -run TestTranscripts -update to create it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("events differ from %s:\ngot:\n%s\nwant:\n%s", golden, got.String(), want)
			}
		})
	}
}
