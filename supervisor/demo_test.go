package supervisor

import (
	"os"
	"testing"
)

// The usual demo directory is kept for swarm log; a demo started while
// another runs there, or while a swarm holds it, gets a fresh directory
// removed afterwards, and never empties the first one's.
func TestDemoDirIsKeptUnlessAnotherDemoHoldsIt(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, done, kept, err := DemoDir()
	if err != nil {
		t.Fatal(err)
	}
	if !kept {
		t.Fatalf("the usual demo directory %s would be removed; it is kept for swarm log", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil { // as the demo's bus does
		t.Fatal(err)
	}
	mark := dir + "/bus.db"
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	other, otherDone, otherKept, err := DemoDir()
	if err != nil {
		t.Fatal(err)
	}
	if other == dir || otherKept {
		t.Fatalf("with %s claimed by a demo, got %s (kept %v); want a fresh directory removed afterwards", dir, other, otherKept)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the second demo emptied the first one's directory: %v", err)
	}
	otherDone()
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the demo: %v", other, err)
	}
	done()

	// A swarm running in the usual directory (not a demo's claim) keeps it
	// too.
	held, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	third, thirdDone, thirdKept, err := DemoDir()
	if err != nil {
		t.Fatal(err)
	}
	defer thirdDone()
	if third == dir || thirdKept {
		t.Fatalf("with a swarm in %s, got %s (kept %v)", dir, third, thirdKept)
	}
}
