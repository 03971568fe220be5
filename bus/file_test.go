package bus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Processes that open a fresh directory at once all get the same, whole
// bus: none meets another's file half made (which an empty file's error
// would have it remove).
func TestProcessesRacingOnAFreshDirectoryEachOpenTheBus(t *testing.T) {
	t.Parallel()
	const rounds, racers = 8, 6
	for round := range rounds {
		dir := filepath.Join(t.TempDir(), ".swarm")
		var cmds []*exec.Cmd
		var gates []io.WriteCloser
		outs := make([]strings.Builder, racers)
		for i := range racers {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "BUS_HELPER=open", "BUS_DIR="+dir, fmt.Sprintf("BUS_NAME=r%d", i))
			cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
			gate, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, gates = append(cmds, cmd), append(gates, gate)
		}
		for _, g := range gates { // each waits for its stdin to close: all go at once
			g.Close()
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("round %d, process %d: %v: %s", round, i, err, outs[i].String())
			}
		}
		b, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		agents, err := b.Agents(context.Background())
		b.Close()
		if err != nil || len(agents) != racers {
			t.Fatalf("round %d: %d agents registered (%v), want %d: the racers opened different buses", round, len(agents), err, racers)
		}
		leftovers, _ := filepath.Glob(filepath.Join(dir, "bus.db.new-*"))
		if len(leftovers) > 0 {
			t.Errorf("round %d: creation left %v", round, leftovers)
		}
	}
}

// A 0-byte bus.db that another process holds open is not to be removed:
// the error says who holds it and to try again. One nobody holds may be.
func TestAnEmptyBusFileIsOnlyCalledRemovableWhenNobodyHasItOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "bus.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sh", "-c", "exec 3<bus.db; echo open; exec sleep 60")
	holder.Dir = dir
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	end := func() { once.Do(func() { _ = holder.Process.Kill(); _ = holder.Wait() }) }
	defer end()
	if _, err := out.Read(make([]byte, 5)); err != nil { // "open": it holds the file
		t.Fatal(err)
	}
	_, err = Open(Options{Dir: dir})
	if !errors.Is(err, ErrCorrupt) || strings.Contains(err.Error(), "remove") ||
		!strings.Contains(err.Error(), fmt.Sprintf("process %d has it open", holder.Process.Pid)) {
		t.Errorf("held open: %v", err)
	}
	end()
	if _, err = Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "remove it and swarm makes a new one") {
		t.Errorf("held by nobody: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file was touched: %v", err)
	}
}

// A bus.db replaced or removed under an open Bus is noticed before the
// next write goes to the file nobody else reads any more, and by a
// subscribed Bus's watcher without any write.
func TestABusFileReplacedOrRemovedIsNoticed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, why string
		change    func(t *testing.T, dir string)
		write     bool
	}{
		{"replaced, then a write", "was replaced by another file", replaceBusFile, true},
		{"replaced, noticed by the watcher", "was replaced by another file", replaceBusFile, false},
		{"its directory removed, then a write", "its directory", removeBusDir, true},
		{"its directory removed, noticed by the watcher", "its directory", removeBusDir, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), ".swarm")
			b, err := Open(Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			register(t, b, "bob")
			_, unsub := b.Subscribe()
			defer unsub()
			tc.change(t, dir)
			if tc.write {
				_, err := b.Publish(context.Background(), Message{From: "human", To: "bob", Body: "after"})
				if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), tc.why) {
					t.Fatalf("a write after the change: %v, want ErrLost saying %q", err, tc.why)
				}
			}
			recv(t, b.Lost(), "the bus lost")
			if err := b.Err(); !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("Err() = %v, want one saying %q", err, tc.why)
			}
			if err := b.SetAgentState(context.Background(), "bob", AgentStatus{State: AgentStopped}); !errors.Is(err, ErrLost) {
				t.Errorf("a later write: %v, want ErrLost", err)
			}
		})
	}
}

func replaceBusFile(t *testing.T, dir string) {
	path := filepath.Join(dir, "bus.db")
	if err := os.Rename(path, path+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("not a bus ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func removeBusDir(t *testing.T, dir string) {
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}
