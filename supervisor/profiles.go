package supervisor

import (
	"path/filepath"
	"slices"
	"time"
)

// Profile is what swarm knows about a kind of program it types messages
// into: how to submit one so that the program takes it, how to tell that
// it did, and whether the program takes messages at all. An agent's
// profile is the one its config names with kind, else the one whose
// Commands has the agent's program, else DefaultProfile.
type Profile struct {
	// Kind names the profile in swarm.toml (kind = "claude").
	Kind string
	// Commands are the program names that choose the profile when the
	// config names no kind.
	Commands []string
	// Composer: the program edits its input in a box at the bottom of its
	// screen (where the cursor is) and keeps a transcript above it, as
	// agent CLIs do. A message counts as taken once it has left the box;
	// Enter that arrives too soon after the text may only add a line to
	// it. Otherwise a message counts as taken once the line it was typed
	// on is entered (the cursor leaves it).
	Composer bool
	// SubmitDelay is how long after the message shows in the program's
	// input Enter is pressed, as a person would: several CLIs take an
	// Enter that comes with or right after a paste as a new line.
	SubmitDelay time.Duration
	// Patience is how long the program may take to show a message typed in,
	// and to take it after Enter: an agent CLI that is starting or busy
	// redrawing takes seconds. Options.Patience, when set, is used instead.
	Patience time.Duration
	// NoMessages: the program takes no messages by default (an editor, a
	// pager, a monitor, a shell): keystrokes would drive it, not talk to
	// it.
	NoMessages bool
	// Shell: the program runs what is typed into it as commands. It takes
	// no messages by default; one told to (messages = true) gets each as
	// lines it runs nothing of (shelltext.go).
	Shell bool
	// Kit wires swarm's MCP server and hooks into the program (kits.go);
	// nil for programs that have neither.
	Kit func(kitInput) kit
}

// DefaultProfile is for a program swarm knows nothing about: one that
// reads lines, or keys as a shell's line editor does.
var DefaultProfile = Profile{SubmitDelay: 100 * time.Millisecond, Patience: cliPatience}

// composerDelay is the pause before Enter for the agent CLIs, from when
// the message shows in their input box. Codex 0.169 and Gemini CLI 0.61
// took an Enter 50 ms after typed or pasted text as a submission and one
// in the same write as a new line; the margin is for a busy machine.
const composerDelay = 150 * time.Millisecond

// cliPatience is the Patience of the agent CLIs, and of other programs: a
// screen lags its program on a busy machine.
const cliPatience = 10 * time.Second

// Profiles are the programs swarm knows.
var Profiles = []Profile{
	{Kind: "claude", Commands: []string{"claude"}, Composer: true, SubmitDelay: composerDelay, Patience: cliPatience, Kit: claudeKit},
	{Kind: "codex", Commands: []string{"codex"}, Composer: true, SubmitDelay: composerDelay, Patience: cliPatience, Kit: codexKit},
	{Kind: "gemini", Commands: []string{"gemini"}, Composer: true, SubmitDelay: composerDelay, Patience: cliPatience, Kit: geminiKit},
	{Kind: "opencode", Commands: []string{"opencode"}, Composer: true, SubmitDelay: composerDelay, Patience: cliPatience, Kit: opencodeKit},
	{Kind: "crush", Commands: []string{"crush"}, Composer: true, SubmitDelay: composerDelay, Patience: cliPatience},
	{Kind: "aider", Commands: []string{"aider"}, SubmitDelay: composerDelay, Patience: cliPatience},
	{Kind: "editor", Commands: []string{"vim", "vi", "nvim", "nano", "emacs", "hx", "helix", "micro", "kak", "ed"}, NoMessages: true},
	{Kind: "viewer", Commands: []string{"less", "more", "most", "man", "htop", "top", "btop", "atop", "watch", "tail", "tig", "lazygit", "k9s"}, NoMessages: true},
	// A shell is chosen by its command only when it runs no script
	// (shellInvocation); Commands name the programs that can be one.
	{Kind: "shell", Commands: shellPrograms, NoMessages: true, Shell: true, SubmitDelay: 100 * time.Millisecond, Patience: cliPatience},
}

// shellPrograms are the interactive shells (and ssh, a shell elsewhere).
var shellPrograms = []string{"sh", "bash", "zsh", "fish", "dash", "ash", "ksh", "ksh93", "mksh", "oksh", "loksh", "pdksh",
	"yash", "posh", "busybox", "csh", "tcsh", "nu", "pwsh", "powershell", "elvish", "xonsh", "ion", "osh", "ysh", "rc", "es", "ssh"}

// CLI reports whether the profile is an agent CLI's, whose kind alone
// names the command to run.
func (p Profile) CLI() bool { return p.Composer || p.Kind == "aider" }

// ProfileByKind returns the profile named kind.
func ProfileByKind(kind string) (Profile, bool) {
	for _, p := range Profiles {
		if p.Kind == kind {
			return p, true
		}
	}
	return Profile{}, false
}

// profileKinds lists the kinds, for messages.
func profileKinds() []string {
	out := make([]string, len(Profiles))
	for i, p := range Profiles {
		out[i] = p.Kind
	}
	return out
}

// profileFor returns the profile of a command line: a shell's when it
// starts an interactive shell (shellInvocation), else the one whose
// Commands has its program, else DefaultProfile.
func profileFor(argv []string) Profile {
	shell, _ := ProfileByKind("shell")
	if startsShell(argv) {
		return shell
	}
	prog := programOf(argv)
	for _, p := range Profiles {
		if !p.Shell && slices.Contains(p.Commands, prog) {
			return p
		}
	}
	return DefaultProfile
}

// programOf returns the base name of the program a command line runs: the
// first word of its first simple command past wrappers (`env`, `exec`,
// `npx`, `command`, `nohup`, `time`), options and variable assignments;
// "sh" for a shell command line that starts with a shell's own construct
// (`while read l; do …; done`), which the shell runs.
func programOf(argv []string) string {
	cmds := [][]string{argv}
	if commandLine(argv) {
		cmds = simpleCommands(argv[2])
	}
	if len(cmds) == 0 {
		return ""
	}
	words := skipWrappers(cmds[0])
	if len(words) == 0 {
		return ""
	}
	if commandLine(argv) && slices.Contains(shellKeywords, words[0]) {
		return "sh"
	}
	return filepath.Base(words[0])
}

// Program is the program the agent's command runs, as written: the first
// word past wrappers and assignments, or in a longer shell command line
// the CLI its kind names.
func (a AgentConfig) Program() string {
	var words []string
	if commandLine(a.Argv) {
		for _, c := range simpleCommands(a.Argv[2]) {
			words = append(words, c...)
		}
	} else {
		words = a.Argv
	}
	if p, ok := ProfileByKind(a.Kind); ok {
		for _, w := range words {
			if slices.Contains(p.Commands, filepath.Base(w)) {
				return w
			}
		}
	}
	prog := programOf(a.Argv)
	for _, w := range words {
		if filepath.Base(w) == prog {
			return w
		}
	}
	return prog
}
