package screenmodel_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"swarm/asciicast"
	"swarm/screenmodel"
	"swarm/spawner"
)

// screensDir holds the recordings of real programs' screens (README there).
const screensDir = "../testdata/screens"

// recording is one recording's name read: KIND[-inline]-STATE-DETAIL-COLSxROWS[-tester].
type recording struct {
	path, name string
	kind       string // the model's kind
	state      screenmodel.State
	typed      bool   // a prompt (or shell mode) with text typed
	detail     string // what follows the state: a dialog's screen name
	lineMode   bool   // the program ran in line mode (not in the recording)
}

var stateOfName = map[string]screenmodel.State{
	"prompt": screenmodel.Prompt, "busy": screenmodel.Busy, "dialog": screenmodel.Dialog,
	"shell": screenmodel.ShellMode, "unknown": screenmodel.Unknown,
}

func recordings(t *testing.T) []recording {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(screensDir, "*.cast"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings in %s: %v", screensDir, err)
	}
	var out []recording
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".cast")
		parts := strings.Split(strings.TrimSuffix(name, "-tester"), "-")
		r := recording{path: p, name: name, kind: parts[0]}
		parts = parts[1 : len(parts)-1] // the size last
		if parts[0] == "inline" {
			parts = parts[1:]
		}
		st, ok := stateOfName[parts[0]]
		if !ok {
			t.Fatalf("%s: no state in its name", name)
		}
		r.state, r.detail = st, strings.Join(parts[1:], "-")
		r.typed = r.detail == "typed"
		// The terminal's mode is not recorded: a line reader, and a shell
		// running a command that does not read keys, ran in line mode.
		r.lineMode = r.kind == "reader" || r.kind == "shell" && st == screenmodel.Busy
		out = append(out, r)
	}
	return out
}

// lastFrame replays a recording through a screen as swarm's would see it
// and returns its last frame.
func lastFrame(t *testing.T, path string) (screenmodel.Frame, spawner.Snapshot) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := asciicast.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sc := spawner.NewScreen(spawner.ScreenOptions{Rows: rec.Header().Height, Cols: rec.Header().Width})
	defer sc.Close()
	for {
		ev, err := rec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Code {
		case asciicast.Output:
			if _, err := sc.Write([]byte(ev.Data)); err != nil {
				t.Fatal(err)
			}
		case asciicast.Resize:
			cols, rows, err := ev.Size()
			if err != nil {
				t.Fatal(err)
			}
			sc.Resize(rows, cols)
		}
	}
	snap := sc.Snapshot()
	return screenmodel.Frame{
		Rows: snap.Lines, CursorRow: snap.Cursor.Y, CursorCol: snap.Cursor.X,
		CursorVisible: snap.CursorVisible, AltScreen: snap.AltScreen,
	}, snap
}

// TestRecordedScreens classifies the last screen of each recording of a
// real program and checks it against the state its name says.
func TestRecordedScreens(t *testing.T) {
	t.Parallel()
	for _, r := range recordings(t) {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			f, snap := lastFrame(t, r.path)
			f.LineMode = r.lineMode
			got := screenmodel.For(r.kind).Read(f)
			show := func() string {
				return strings.Join(snap.Lines, "\n") + fmt.Sprintf("\n(cursor %d,%d, visible %v, alt %v)", snap.Cursor.X, snap.Cursor.Y, snap.CursorVisible, snap.AltScreen)
			}
			if got.State != r.state {
				t.Fatalf("read %v (%s: %q), want %v; the screen:\n%s", got.State, got.Screen, got.What, r.state, show())
			}
			if (r.state == screenmodel.Prompt || r.state == screenmodel.ShellMode) && got.Typed != r.typed {
				t.Errorf("typed = %v (input %q), want %v", got.Typed, got.Input, r.typed)
			}
			if r.typed && !strings.Contains(got.Input, "ls -la") && !strings.Contains(got.Input, "half typed by a person") {
				t.Errorf("input %q is not what was typed", got.Input)
			}
			switch r.state {
			case screenmodel.Dialog:
				if want := r.kind + "/" + r.detail; got.Screen != want {
					t.Errorf("screen %s, want %s", got.Screen, want)
				}
				if got.What == "" || got.TakesInput {
					t.Errorf("a dialog reads %+v", got)
				}
			case screenmodel.Busy:
				if got.TakesInput != screenmodel.For(r.kind).BusyTakesInput {
					t.Errorf("busy: takes input %v, the kind's queue %v", got.TakesInput, screenmodel.For(r.kind).BusyTakesInput)
				}
			case screenmodel.Prompt:
				if !got.TakesInput || got.What != "" {
					t.Errorf("a prompt reads %+v", got)
				}
			case screenmodel.ShellMode, screenmodel.Unknown:
				if got.TakesInput || got.What == "" {
					t.Errorf("%v reads %+v", r.state, got)
				}
			}
		})
	}
}

// TestEveryScreenRecorded: each known screen of each kind was learnt from
// a recording of it (aider's, which cannot run here, excepted and said so
// in its Seen).
func TestEveryScreenRecorded(t *testing.T) {
	t.Parallel()
	recs := recordings(t)
	for _, m := range screenmodel.Models {
		for _, s := range m.Screens {
			if strings.HasPrefix(s.Seen, "not recorded") {
				if m.Kind != "aider" {
					t.Errorf("%s/%s is not recorded", m.Kind, s.Name)
				}
				continue
			}
			found := false
			for _, r := range recs {
				if r.kind != m.Kind || r.state != s.State {
					continue
				}
				f, _ := lastFrame(t, r.path)
				f.LineMode = r.lineMode
				if m.Read(f).Screen == m.Kind+"/"+s.Name {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s/%s (%s, seen in %s): no recording shows it", m.Kind, s.Name, s.State, s.Seen)
			}
		}
	}
}
