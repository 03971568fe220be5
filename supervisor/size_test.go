package supervisor

import (
	"path/filepath"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/parser"
)

func TestSizesOutOfBoundsAreRefused(t *testing.T) {
	b, err := bus.Open(bus.Options{Dir: filepath.Join(t.TempDir(), ".swarm")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := New(Options{Config: &Config{}, Bus: b, Rows: 24, Cols: 65535}); err == nil {
		t.Error("a swarm of 65535-column agents was made")
	}
	// A recording, or swarm parse --cols, cannot ask for a screen that
	// takes the machine's memory.
	rec := "{\"version\":2,\"width\":80,\"height\":24}\n[0.1,\"o\",\"hi\\r\\n\"]\n[0.2,\"r\",\"65535x65535\"]\n"
	err = ExtractRecording(strings.NewReader(rec), ExtractOptions{}, func(parser.Event) {})
	if err == nil || !strings.Contains(err.Error(), "a terminal of 65535×65535") {
		t.Errorf("a recording resized to 65535×65535: %v", err)
	}
	err = Extract(strings.NewReader("hi\r\n"), ExtractOptions{Rows: 24, Cols: 5000}, func(parser.Event) {})
	if err == nil || !strings.Contains(err.Error(), "a terminal of 5000×24") {
		t.Errorf("output played at 5000 columns: %v", err)
	}
}
