package serverbin

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// No swarm-server beside swarm (go run, a build of swarm alone), or a file
// of that name that cannot run: ErrNone, and swarm serves itself. The
// builds of both that are or are not the same: TestServerBinary, in the
// module's root, which makes them.
func TestFindWithoutAServerBinary(t *testing.T) {
	self, _ := debug.ReadBuildInfo()
	dir := t.TempDir()
	exe := filepath.Join(dir, "swarm")
	if got, err := Find(self, exe); got != "" || !errors.Is(err, ErrNone) {
		t.Errorf("nothing beside swarm: %q, %v; want ErrNone", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, Name), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(self, exe); got != "" || !errors.Is(err, ErrNone) {
		t.Errorf("a swarm-server that cannot run: %q, %v; want ErrNone", got, err)
	}
}

// A build without a revision (go test's, go run's, -buildvcs=false) is of
// no known build, not even beside itself: its sources may have been
// anything.
func TestAnUnstampedBuildIsNotTheSameAsItself(t *testing.T) {
	self, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	err := SameBuild(self, self)
	if err == nil || !strings.Contains(err.Error(), "no VCS revision") {
		t.Errorf("SameBuild of an unstamped build with itself: %v; want no VCS revision", err)
	}
}

// Only the module's cmd/swarm-server is its server binary: swarm itself,
// or another program of the same build, copied or linked under that name,
// is not (up --headless would exec it with flags it does not take).
func TestOnlyTheServerProgramIsTheServer(t *testing.T) {
	build := func(path string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26", Path: path, Main: debug.Module{Path: "swarm", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "t"}, {Key: "vcs.modified", Value: "false"}}}
	}
	self := build("swarm")
	if err := Server(self, build("swarm/cmd/swarm-server")); err != nil {
		t.Errorf("swarm-server of the same build refused: %v", err)
	}
	for _, other := range []string{"swarm", "swarm/scripts/corpus-score"} {
		if err := Server(self, build(other)); err == nil || !strings.Contains(err.Error(), other) {
			t.Errorf("the program %s named swarm-server: %v, want refused, naming it", other, err)
		}
	}
}
