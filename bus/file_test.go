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
	"time"

	"golang.org/x/sys/unix"
)

// Processes that open a fresh directory at once all get the same, whole
// bus: none meets another's file half made (which an empty file's error
// would have it remove).
func TestProcessesRacingOnAFreshDirectoryEachOpenTheBus(t *testing.T) {
	t.Parallel()
	const rounds, racers = 5, 6
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

// blobs/ replaced by a link out of the bus directory takes no body there
// and gives none from there.
func TestADirectoryOfTheBusReplacedByALinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	b := openTest(t)
	register(t, b, "bob")
	kept := publish(t, b, Message{From: "human", To: "bob", Body: strings.Repeat("k", 5000)})
	elsewhere := t.TempDir()
	blobs := filepath.Join(b.Dir(), "blobs")
	if err := os.Rename(blobs, filepath.Join(elsewhere, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, blobs); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(elsewhere, "old", strings.TrimPrefix(kept.PayloadRef, "sha256:")), filepath.Join(elsewhere, strings.TrimPrefix(kept.PayloadRef, "sha256:"))); err != nil {
		t.Fatal(err)
	}
	_, err := b.Publish(context.Background(), Message{From: "human", To: "bob", Body: strings.Repeat("n", 5000)})
	if err == nil || !strings.Contains(err.Error(), "symbolic link out of the bus directory") {
		t.Errorf("a body through the link: %v", err)
	}
	if got, err := b.Message(context.Background(), kept.ID); err != nil || got.Body != "" || !strings.Contains(got.BodyErr, "symbolic link") || !got.BodyLater || strings.Contains(got.BodyErr, "corrupt") {
		t.Errorf("a body read through the link: %q, %q, %v", got.Body[:min(len(got.Body), 10)], got.BodyErr, err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 2 { // old/ and the blob moved there
		t.Errorf("files were written through the link: %v", ents)
	}
}

// WriteFile writes a file whole under the bus directory and refuses a
// link out of it on the way.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	b := openTest(t)
	path, err := b.WriteFile("messages/x.txt", []byte("body\n"))
	if err != nil || path != filepath.Join(b.Dir(), "messages", "x.txt") {
		t.Fatalf("WriteFile = %q, %v", path, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "body\n" {
		t.Errorf("the file holds %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	os.RemoveAll(filepath.Join(b.Dir(), "messages"))
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(b.Dir(), "messages")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteFile("messages/y.txt", []byte("body\n")); err == nil || !strings.Contains(err.Error(), "symbolic link out of the bus directory") {
		t.Errorf("through a link: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
}

// A file put in bus.db's place is never written to, however the bus goes
// on being read until it notices: a connection opened on it would take
// the bus's write-ahead log (found by name) for its own, and write it
// into that file when it closed last.
func TestAFileInBusDbsPlaceIsNeverWritten(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".swarm")
	b := openWithTwentyToBob(t, dir)
	replaceBusFile(t, dir)
	placed, err := os.ReadFile(filepath.Join(dir, "bus.db"))
	if err != nil {
		t.Fatal(err)
	}
	readInNewConnectionsAndClose(t, b)
	if now, err := os.ReadFile(filepath.Join(dir, "bus.db")); err != nil || string(now) != string(placed) {
		t.Fatalf("the file in bus.db's place was written to: %d bytes (was %d), %v", len(now), len(placed), err)
	}
}

// A file put in bus.db's place between a connection's check and its
// open (here an empty one, as a file being written is for a moment, which
// SQLite takes for an empty database and reads the bus's write-ahead log
// into) is never written either: the connection is not used, nor closed
// (its last close would copy the log into that file).
func TestAFileInBusDbsPlaceWhileAConnectionOpensIsNeverWritten(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		// Not a database: SQLite would find page 1 in the bus's log.
		{"junk", strings.Repeat("random bytes ", 500)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".swarm")
			b := openWithTwentyToBob(t, dir)
			path := filepath.Join(dir, "bus.db")
			beforeConnect = func() {
				beforeConnect = nil
				if err := os.Rename(path, path+".away"); err != nil {
					t.Error(err)
				}
				if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
					t.Error(err)
				}
			}
			t.Cleanup(func() { beforeConnect = nil })
			readInNewConnectionsAndClose(t, b)
			if now, err := os.ReadFile(path); err != nil || string(now) != tc.content {
				t.Fatalf("the file in bus.db's place was written to: %d bytes (%d put there), %v", len(now), len(tc.content), err)
			}
		})
	}
}

// On a full disk even reading the bus fails (SQLite's shared-memory file
// cannot be made): the error says the disk is full, where SQLite says
// only "disk I/O error". A small file system of its own is mounted for
// it, which takes root.
func TestABusOnAFullDiskSaysSo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system takes root")
	}
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	dir := filepath.Join(mnt, ".swarm")
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	register(t, b, "bob")
	publish(t, b, Message{From: "human", To: "bob", Body: "kept"})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	fill, err := os.Create(filepath.Join(mnt, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = fill.Write(make([]byte, 64<<10))
	}
	fill.Close()
	if !errors.Is(err, unix.ENOSPC) {
		t.Fatalf("filling the disk: %v", err)
	}
	if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "the disk is full") || errors.Is(err, ErrCorrupt) {
		t.Fatalf("open on a full disk: %v", err)
	}
	if err := os.Remove(filepath.Join(mnt, "fill")); err != nil {
		t.Fatal(err)
	}
	b, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("open once there is room: %v", err)
	}
	defer b.Close()
	if msgs, err := b.Messages(context.Background(), 0, 10); err != nil || len(msgs) != 1 || msgs[0].Body != "kept" {
		t.Errorf("the bus after: %v, %v", msgs, err)
	}
}

// openWithTwentyToBob opens a bus in dir with eight read connections and
// twenty messages from the human to bob.
// readInNewConnectionsAndClose reads the bus from more goroutines at once
// than its pool has connections open, so that new ones open, then closes it
// (the last connection's close is when SQLite writes its log into the file).
func readInNewConnectionsAndClose(t *testing.T, b *Bus) {
	t.Helper()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { _, _ = b.Inbox(context.Background(), "bob", 0) })
	}
	wg.Wait()
	if err := b.Close(); err != nil && !errors.Is(err, ErrLost) {
		t.Logf("close: %v", err)
	}
}

func openWithTwentyToBob(t *testing.T, dir string) *Bus {
	t.Helper()
	b, err := Open(Options{Dir: dir, ReadConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	register(t, b, "bob")
	for i := range 20 {
		if _, err := b.Publish(context.Background(), Message{From: "human", To: "bob", Body: fmt.Sprint("before ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// Writing the schema of a new bus into its own private file waits for no
// other process, so no deadline cuts it: on a loaded machine it can take
// longer than a wait for another's lock may (a swarm's first start under
// load failed with "context deadline exceeded" while making the file). A
// busy timeout below zero puts any lock deadline in the past, as a machine
// slower than every deadline would.
func TestANewBusIsMadeHoweverLongItsSchemaTakes(t *testing.T) {
	path := filepath.Join(t.TempDir(), dbName)
	if err := create(path, Options{BusyTimeout: -time.Minute, ReadConns: 1, PollInterval: time.Second}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if emptyBus(path) {
		t.Fatalf("%s: no schema written", path)
	}
}
