// Package gittest holds the git fixtures of swarm's tests: git isolated
// from the machine's configuration, a small repository, commits.
package gittest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Isolate isolates git from the machine's configuration: a global config
// of the test's own (with an identity unless noIdentity) and no system one.
func Isolate(t *testing.T, noIdentity ...bool) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	text := "[init]\n\tdefaultBranch = main\n[user]\n\tname = Swarm Tester\n\temail = tester@example.com\n"
	if len(noIdentity) > 0 && noIdentity[0] {
		// useConfigOnly: git must not guess an identity from the host.
		text = "[init]\n\tdefaultBranch = main\n[user]\n\tuseConfigOnly = true\n"
	}
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// Git runs git for the test itself, with a fixture identity of its own.
func Git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := GitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// GitErr is Git returning its error.
func GitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com",
		"GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return string(out), err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// NewRepo makes a repository on main with a.txt and b.txt committed.
func NewRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	WriteFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	WriteFile(t, filepath.Join(dir, "b.txt"), "bee\n")
	Git(t, dir, "add", "a.txt", "b.txt")
	Git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// WriteFile writes path, making its directory.
func WriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadFile reads path.
func ReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// CommitFile writes a file in a worktree, commits it and returns the commit.
func CommitFile(t *testing.T, dir, name, content, msg string) string {
	t.Helper()
	WriteFile(t, filepath.Join(dir, name), content)
	Git(t, dir, "add", name)
	Git(t, dir, "commit", "-q", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}
