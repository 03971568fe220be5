package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// command is one git command line. Every git this package runs is built
// here and run by run: configuration overrides (-c key=value) go before
// the subcommand, where git reads them, and the arguments after it; a
// call site says only what its command is.
type command struct {
	config []string // key=value pairs, each passed as -c key=value
	args   []string // the subcommand, its options and operands
}

// git starts a command line: the subcommand and its first arguments.
func git(sub string, args ...string) *command {
	return &command{args: append([]string{sub}, args...)}
}

// arg adds arguments.
func (c *command) arg(args ...string) *command {
	c.args = append(c.args, args...)
	return c
}

// argIfElse adds yes when cond holds, else no.
func (c *command) argIfElse(cond bool, yes, no string) *command {
	if cond {
		return c.arg(yes)
	}
	return c.arg(no)
}

// withConfig sets configuration for this command only (key=value pairs),
// e.g. the fallback identity of a commit (see identity).
func (c *command) withConfig(kv ...string) *command {
	c.config = append(c.config, kv...)
	return c
}

// argv is the command line after "git".
func (c *command) argv() []string {
	argv := make([]string, 0, 2*len(c.config)+len(c.args))
	for _, kv := range c.config {
		argv = append(argv, "-c", kv)
	}
	return append(argv, c.args...)
}

// run runs the command in dir and returns its stdout; a failure is a
// *GitError. git gets its own process group so that ending ctx also ends
// the hooks it started; it is asked to stop with SIGTERM first, which lets
// it remove its lock files, and killed if it has not after a grace period.
func (c *command) run(ctx context.Context, dir string) (string, error) {
	args := c.argv()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return stdout.String(), &GitError{Args: args, Dir: dir, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}

// repoEnv are variables that would make git act on another repository,
// index or object store than the one in the command's directory; they are
// set, for example, in hooks and in programs git starts.
var repoEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_NAMESPACE": true,
	"GIT_PREFIX": true, "GIT_IMPLICIT_WORK_TREE": true, "GIT_GRAFT_FILE": true, "GIT_SHALLOW_FILE": true,
	"GIT_NO_REPLACE_OBJECTS": true, "GIT_REPLACE_REF_BASE": true, "GIT_QUARANTINE_PATH": true,
}

func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !repoEnv[k] {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0", // never ask for credentials
		"GIT_EDITOR=true",       // never open an editor
		"GIT_MERGE_AUTOEDIT=no",
		"GIT_OPTIONAL_LOCKS=0", // status must not take index.lock from an agent or the user
	)
}

// GitError is a git command that failed. Its message is one line naming the
// command and git's reason, e.g.
// `git worktree add --quiet /p swarm/t1: '/p' already exists`.
type GitError struct {
	Args   []string // arguments after "git"
	Dir    string   // where it ran
	Stderr string   // everything git wrote to stderr
	Err    error    // the exit status, or the context's error if it ended
}

// Error returns `git <args>: <reason>` on one line.
func (e *GitError) Error() string {
	return commandLine(e.Args) + ": " + e.reason()
}

// Unwrap returns the exit error or the context's error.
func (e *GitError) Unwrap() error { return e.Err }

// reason is the line of stderr that says what went wrong: git often starts
// with hints or banners ("Author identity unknown") and ends with the
// fatal/error line that matters.
func (e *GitError) reason() string {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return e.Err.Error()
	}
	var first string
	for _, line := range strings.Split(e.Stderr, "\n") {
		line = strings.TrimSpace(line)
		for _, p := range []string{"fatal: ", "error: "} {
			if strings.HasPrefix(line, p) {
				return strings.TrimPrefix(line, p)
			}
		}
		if first == "" && line != "" && !strings.HasPrefix(line, "hint:") {
			first = line
		}
	}
	if first != "" {
		return first
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return "failed"
}

// commandLine renders a git command for a message: configuration overrides
// (-c k=v) are left out, a commit message (-m) is cut to the start of its
// first line and arguments that need it are quoted, so the result stays one
// readable line.
func commandLine(args []string) string {
	var b strings.Builder
	b.WriteString("git")
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" && i+1 < len(args) {
			i++
			continue
		}
		a := args[i]
		if i > 0 && args[i-1] == "-m" {
			first, _, cut := strings.Cut(a, "\n")
			if r := []rune(first); len(r) > 40 {
				first, cut = string(r[:40]), true
			}
			if cut {
				a = first + "…"
			}
		}
		if a == "" || strings.IndexFunc(a, needsQuote) >= 0 {
			a = strconv.Quote(a)
		}
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	case strings.ContainsRune("-_./:=@%^+,{}~…", r):
		return false
	}
	return true
}

// cleanupContext bounds the git commands that undo a failed step; they run
// even when the caller's context has ended.
func cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func nulList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
