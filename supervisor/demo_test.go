package supervisor

import (
	"os"
	"testing"
)

func TestDemoDirIsKeptUnlessAnotherDemoHoldsIt(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, cleanup, err := DemoDir()
	if err != nil {
		t.Fatal(err)
	}
	if cleanup != nil {
		t.Fatalf("the usual demo directory %s would be removed; it is kept for swarm log", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil { // as the demo's bus does
		t.Fatal(err)
	}
	held, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	other, cleanup, err := DemoDir()
	if err != nil {
		t.Fatal(err)
	}
	if other == dir || cleanup == nil {
		t.Fatalf("with %s held, got %s (cleanup %v); want a fresh directory removed afterwards", dir, other, cleanup != nil)
	}
	cleanup()
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("%s is still there after cleanup: %v", other, err)
	}
}
