package supervisor

import (
	"path/filepath"
	"strings"
	"testing"

	"swarm/bus"
	"swarm/parser"
)

func TestSizesAreBounded(t *testing.T) {
	for _, ok := range [][2]int{{1, 1}, {24, 80}, {MaxRows, MaxCols}} {
		if err := CheckSize(ok[0], ok[1]); err != nil {
			t.Errorf("%d rows × %d columns: %v", ok[0], ok[1], err)
		}
	}
	for _, bad := range [][2]int{{0, 80}, {24, -1}, {MaxRows + 1, 80}, {24, MaxCols + 1}, {65535, 65535}} {
		err := CheckSize(bad[0], bad[1])
		if err == nil || !strings.Contains(err.Error(), "1 to 1000 columns and 1 to 500 rows") {
			t.Errorf("%d rows × %d columns: %v", bad[0], bad[1], err)
		}
	}
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
