package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"swarm/bus"
)

// A body too long to type whose file cannot be written (here messages/ is
// not a directory; a full or read-only disk does the same) waits, with
// the messages after it, and goes once the file can be written: it is not
// failed, and the person is told why it waits.
func TestALongBodyWhoseFileCannotBeWrittenWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("cat", "listen", map[string]string{"LOG": h.path("cat.log")}))
	h.running("cat")
	blocker := filepath.Join(h.dir, ".swarm", "messages")
	if err := os.WriteFile(blocker, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := h.send(bus.Message{To: "cat", Body: strings.Repeat("long ", 2000)})
	after := h.send(bus.Message{To: "cat", Body: "after the long one"})
	h.waitFor("the person told why it waits", func() bool {
		return hasNotice(h, "cat", "message #"+bus.ShortID(long.ID)+" from human waits, and those after it: it is too long to type and message file:")
	})
	if st := h.deliveryStates("cat"); st[bus.DeliveryFailed] != 0 || len(readLines(h.path("cat.log"))) != 0 {
		t.Fatalf("while its file cannot be written: deliveries %v, cat read %q", st, readLines(h.path("cat.log")))
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	h.waitFor("both read, in order", func() bool { return len(readLines(h.path("cat.log"))) == 2 })
	lines := readLines(h.path("cat.log"))
	if !strings.Contains(lines[0], "#"+bus.ShortID(long.ID)) || !strings.Contains(lines[0], "too long to type: read ") ||
		!strings.Contains(lines[1], "#"+bus.ShortID(after.ID)) {
		t.Errorf("cat read %q", lines)
	}
	// The notice is an event: it reaches the harness on its own path, and
	// may come after the lines reached cat.
	h.waitFor("the person told it went", func() bool { return hasNotice(h, "cat", "which waited for its file, goes now") })
}

// A long body whose blob is refused for now (blobs/ replaced by a link
// out of the bus directory, with the blob behind it) waits as one whose
// file cannot be written: it is not failed, nor called a corrupt bus, and
// goes once blobs/ is swarm's directory again.
func TestALongBodyWhoseBlobIsBehindALinkWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("cat", "listen", map[string]string{"LOG": h.path("cat.log")}))
	h.running("cat")
	if err := h.sup.StopAgent("cat"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("cat stopped", func() bool { in, _ := h.sup.Agent("cat"); return in.State != StateRunning })
	long := h.send(bus.Message{To: "cat", Body: strings.Repeat("long ", 2000)})
	blobs := filepath.Join(h.dir, ".swarm", "blobs")
	elsewhere := filepath.Join(t.TempDir(), "blobs")
	if err := os.Rename(blobs, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, blobs); err != nil {
		t.Fatal(err)
	}
	if err := h.sup.Restart("cat"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the person told why it waits", func() bool {
		return hasNotice(h, "cat", "message #"+bus.ShortID(long.ID)+" from human waits, and those after it: it is too long to type and its body cannot be read now: blob ")
	})
	if st := h.deliveryStates("cat"); st[bus.DeliveryFailed] != 0 || len(readLines(h.path("cat.log"))) != 0 {
		t.Fatalf("while blobs/ is a link: deliveries %v, cat read %q", st, readLines(h.path("cat.log")))
	}
	if hasNotice(h, "cat", "corrupt") {
		t.Error("the person was told the bus is corrupt")
	}
	// blobs/ comes back in one step, the link and the directory swapped:
	// removing the link first would leave a moment with no blobs/ at all,
	// and a retry then finds the blob missing (a corrupt bus: failed).
	if err := unix.Renameat2(unix.AT_FDCWD, elsewhere, unix.AT_FDCWD, blobs, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	h.waitFor("read once blobs/ is back", func() bool { return len(readLines(h.path("cat.log"))) == 1 })
	if line := readLines(h.path("cat.log"))[0]; !strings.Contains(line, "#"+bus.ShortID(long.ID)) || !strings.Contains(line, "too long to type: read ") {
		t.Errorf("cat read %q", line)
	}
}
