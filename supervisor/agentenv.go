package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"swarm/textsafe"
)

// What an agent's process inherits from swarm, and how it finds swarm.
//
// An agent's terminal is swarm's emulator, not the terminal swarm was
// started from: the variables that describe that one (a tmux or screen
// session and pane, the terminal program, its size) are not passed on
// (terminalVar), so that no program thinks it runs inside tmux, talks to
// that terminal's control socket or takes its size. A config's env may
// still set them.
//
// swarm gives each agent itself as `.swarm/bin/swarm`, a link to the
// running binary whatever its name (swarmLink): its directory is last on
// the agent's PATH, SWARM_BIN names it, and the brief, the task messages
// and the kits' MCP and hook commands name it by its absolute path — a
// login shell (Codex's `!`) sets PATH anew, and a binary built as
// swarm-dev is not found as `swarm`.

// terminalVars are the variables of the terminal swarm runs in; with
// terminalPrefixes, those of a terminal program.
var terminalVars = []string{
	"TMUX", "TMUX_PANE", "STY", "WINDOW", "TERMCAP", "COLUMNS", "LINES", "COLORFGBG",
	"TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TERM_SESSION_ID", "LC_TERMINAL", "LC_TERMINAL_VERSION",
	"WT_SESSION", "WT_PROFILE_ID", "VTE_VERSION", "GNOME_TERMINAL_SCREEN", "GNOME_TERMINAL_SERVICE",
	"TERMINATOR_UUID", "TILIX_ID", "TERMINOLOGY", "TERMINAL_EMULATOR", "INSIDE_EMACS",
	"VSCODE_INJECTION", "VSCODE_SHELL_INTEGRATION",
}

var terminalPrefixes = []string{"ZELLIJ", "KITTY_", "WEZTERM_", "ALACRITTY_", "KONSOLE_", "GHOSTTY_", "ITERM_", "WARP_"}

// terminalVar says whether name describes the terminal swarm runs in.
func terminalVar(name string) bool {
	if slices.Contains(terminalVars, name) {
		return true
	}
	for _, p := range terminalPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// swarmLink is where a swarm on the bus in busDir gives its agents
// itself.
func swarmLink(busDir string) string { return filepath.Join(busDir, "bin", "swarm") }

// makeSwarmLink makes swarmLink(busDir) a link to exe, replacing one to
// another binary, and returns it.
func makeSwarmLink(busDir, exe string) (string, error) {
	link := swarmLink(busDir)
	if target, err := os.Readlink(link); err == nil && target == exe {
		return link, nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		return "", fmt.Errorf("swarm link: %w", err)
	}
	tmp := fmt.Sprintf("%s.%d", link, os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		return "", fmt.Errorf("swarm link: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("swarm link: %w", err)
	}
	return link, nil
}

// swarmPath is the swarm an agent runs: the link, or the binary itself
// when the link could not be made.
func (s *Supervisor) swarmPath() string {
	if s.link != "" {
		return s.link
	}
	return s.opts.Executable
}

// swarmCommand is how an agent is told to run swarm in a shell: the
// absolute path, quoted if it must be; "$SWARM_BIN" when the path holds
// something that cannot be typed (a line feed in a directory's name).
func (s *Supervisor) swarmCommand() string {
	p := s.swarmPath()
	if !textsafe.Safe(p) || strings.ContainsRune(p, '\n') {
		return `"$SWARM_BIN"`
	}
	return shellQuote(p)
}

// linkSwarm makes the supervisor's swarm link, or says why it could not
// (the agents then get the binary's own path).
func (s *Supervisor) linkSwarm() {
	exe, err := filepath.Abs(s.opts.Executable)
	if err == nil {
		s.link, err = makeSwarmLink(s.busDir(), exe)
	}
	if err != nil {
		s.log.Warn("agents get swarm's binary by its own path", "err", err)
	}
}
