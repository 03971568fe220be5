// Package serverbin finds the server binary, swarm-server (cmd/swarm-server),
// beside swarm's own, and tells whether it is of the very same build.
//
// swarm-server runs a swarm as `swarm up --server` and `up --headless` do,
// but links none of the command line, the UI, the MCP server or the
// cluster's NATS: what a process maps of its binary is most of its memory
// at rest (issue 34). swarm starts it instead of serving in its own process
// only when both binaries came out of one build of one commit: the server
// and the swarm its agents call (swarm send, swarm mcp, the hooks) must
// speak the same protocol and read the same bus. Anything else — no such
// file (`go run .`, a build of swarm alone), another commit, a tree with
// changes, other flags — and swarm serves in its own process, as it can
// always do.
package serverbin

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
)

// Name is the server binary's file name, beside swarm's.
const Name = "swarm-server"

// ErrNone is Find's error when there is no server binary beside exe.
var ErrNone = errors.New("no " + Name + " beside swarm")

// Find returns the path of the server binary beside exe (swarm's own
// binary, whose build self describes) if it is of the same build; else
// an error that says why not (ErrNone when there is none).
func Find(self *debug.BuildInfo, exe string) (string, error) {
	path := filepath.Join(filepath.Dir(exe), Name)
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return "", ErrNone
	}
	other, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if err := Server(self, other); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return path, nil
}

// Server returns nil when other, a binary's build, is the server binary of
// self's build: the main package cmd/swarm-server of self's module (not
// swarm itself, or another program of the module, under that name, which
// `up --headless` would exec with flags it does not take), built with it
// (SameBuild). Else it says why not.
func Server(self, other *debug.BuildInfo) error {
	if self == nil || other == nil {
		return errors.New("no build information")
	}
	if want := self.Main.Path + "/cmd/" + Name; other.Path != want {
		return fmt.Errorf("the program %s, not %s", other.Path, want)
	}
	if err := SameBuild(self, other); err != nil {
		return fmt.Errorf("of another build: %w", err)
	}
	return nil
}

// SameBuild returns nil when a and b were built together from one clean
// commit of one module: the same main module and version, the same Go,
// the same build settings (flags, environment, VCS revision and time),
// neither with uncommitted changes, and every module both link at the same
// version. Else it says what differs.
func SameBuild(a, b *debug.BuildInfo) error {
	if a == nil || b == nil {
		return errors.New("no build information")
	}
	// A revision tells two builds apart only when the tree was that
	// revision: without one, or with changes, two builds may differ in
	// anything.
	for _, info := range []*debug.BuildInfo{a, b} {
		if setting(info, "vcs.revision") == "" || setting(info, "vcs.time") == "" {
			return errors.New("no VCS revision stamped (built outside a repository, or with -buildvcs=false)")
		}
		if setting(info, "vcs.modified") != "false" {
			return errors.New("built from a tree with uncommitted changes (vcs.modified)")
		}
	}
	if a.Main.Path != b.Main.Path {
		return fmt.Errorf("main module %s, not %s", b.Main.Path, a.Main.Path)
	}
	if a.Main.Version != b.Main.Version || a.Main.Sum != b.Main.Sum {
		return fmt.Errorf("version %s, not %s", b.Main.Version, a.Main.Version)
	}
	if a.GoVersion != b.GoVersion {
		return fmt.Errorf("built by %s, not %s", b.GoVersion, a.GoVersion)
	}
	keys := map[string]bool{}
	for _, s := range slices.Concat(a.Settings, b.Settings) {
		keys[s.Key] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if va, vb := setting(a, k), setting(b, k); va != vb {
			return fmt.Errorf("build setting %s is %q, not %q", k, vb, va)
		}
	}
	deps := map[string]*debug.Module{}
	for _, m := range a.Deps {
		deps[m.Path] = m
	}
	for _, m := range b.Deps {
		if o, ok := deps[m.Path]; ok && !sameModule(o, m) {
			return fmt.Errorf("module %s at %s, not %s", m.Path, version(m), version(o))
		}
	}
	return nil
}

// setting is the value of info's build setting key ("" when unset).
func setting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

func sameModule(a, b *debug.Module) bool {
	if a.Path != b.Path || a.Version != b.Version || a.Sum != b.Sum {
		return false
	}
	if a.Replace == nil || b.Replace == nil {
		return a.Replace == b.Replace
	}
	return sameModule(a.Replace, b.Replace)
}

// version names m's version, and its replacement's.
func version(m *debug.Module) string {
	if m.Replace != nil {
		return m.Version + " => " + m.Replace.Path + " " + m.Replace.Version
	}
	return m.Version
}
