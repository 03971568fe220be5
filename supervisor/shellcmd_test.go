package supervisor

import (
	"slices"
	"strings"
	"testing"

	"swarm/textsafe"
)

func line(s string) []string { return []string{"/bin/sh", "-c", s} }

func TestShellsAreKnownByTheirCommand(t *testing.T) {
	for _, c := range []struct {
		argv  []string
		shell bool
		style textsafe.ShellStyle
	}{
		{line("bash"), true, textsafe.HashComment},
		{[]string{"bash"}, true, textsafe.HashComment},
		{[]string{"/usr/bin/zsh", "-l"}, true, textsafe.NullCommand},
		{line("exec zsh --login"), true, textsafe.NullCommand},
		{line("env FOO=1 bash -i"), true, textsafe.HashComment},
		{line("cd sub && fish"), true, textsafe.HashComment},
		{line("bash --rcfile my.rc"), true, textsafe.HashComment},
		{line("bash -o vi"), true, textsafe.HashComment},
		{line("sh -s arg1 arg2"), true, textsafe.HashComment},
		{line("tcsh"), true, textsafe.NullCommand},
		{line("nu --config c.nu"), true, textsafe.HashComment},
		{line("nu -e 'ls'"), true, textsafe.HashComment},
		{line("fish -C 'set x 1'"), true, textsafe.HashComment},
		{line("pwsh -NoLogo"), true, textsafe.HashComment},
		{line("pwsh -NoExit -Command Get-Date"), true, textsafe.HashComment},
		{line("busybox sh"), true, textsafe.HashComment},
		{line("ssh -p 2222 dev@box"), true, textsafe.NullCommand},
		{line("ssh -tt box"), true, textsafe.NullCommand},
		{line("bash 2>err.log"), true, textsafe.HashComment},

		{line("bash script.sh"), false, 0},
		{line("bash -c 'echo hi'"), false, 0},
		{line("bash -lc make"), false, 0},
		{line("zsh -ic 'x'"), false, 0},
		{[]string{"sh", "-c", "while read l; do echo $l; done"}, false, 0},
		{line("while read l; do echo $l; done"), false, 0},
		{line("fish --command 'ls'"), false, 0},
		{line("nu -c 'ls'"), false, 0},
		{line("nu script.nu"), false, 0},
		{line("pwsh -c Get-Date"), false, 0},
		{line("pwsh -File x.ps1"), false, 0},
		{line("pwsh x.ps1"), false, 0},
		{line("ssh box uptime"), false, 0},
		{line("ssh -N -L 8080:localhost:80 box"), false, 0},
		{line("busybox ls"), false, 0},
		{line("python3 -m bash"), false, 0},
		{line("echo 'bash'"), false, 0},
		{line("claude --shell bash"), false, 0},
	} {
		if got := startsShell(c.argv); got != c.shell {
			t.Errorf("%q: startsShell = %v, want %v", c.argv, got, c.shell)
		}
		p := AgentConfig{Argv: c.argv}.Profile()
		if p.Shell != c.shell || c.shell && (p.Kind != "shell" || !p.NoMessages) {
			t.Errorf("%q: profile %q (shell %v)", c.argv, p.Kind, p.Shell)
		}
		if c.shell {
			if got := shellStyle(c.argv); got != c.style {
				t.Errorf("%q: style %v, want %v", c.argv, got, c.style)
			}
		}
	}
}

func TestSimpleCommandsOfACommandLine(t *testing.T) {
	for line, want := range map[string][][]string{
		`cd "my dir" && exec bash -l`:         {{"cd", "my dir"}, {"exec", "bash", "-l"}},
		`a 'x;y' | b "q\"r" ; c\ d # e; f`:    {{"a", "x;y"}, {"b", `q"r`}, {"c d"}},
		`prog 2>err.log >out <in arg`:         {{"prog", "arg"}},
		"(sub) & bg\nnext":                    {{"sub"}, {"bg"}, {"next"}},
		`while read l; do echo "$l"; done`:    {{"while", "read", "l"}, {"do", "echo", "$l"}, {"done"}},
		`FOO=1 env -i BAR=2 claude --x=y`:     {{"FOO=1", "env", "-i", "BAR=2", "claude", "--x=y"}},
		`claude --append-system-prompt "a b"`: {{"claude", "--append-system-prompt", "a b"}},
	} {
		got := simpleCommands(line)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("simpleCommands(%q) = %q, want %q", line, got, want)
		}
	}
}

// A shell loop's program is the shell that runs it, for doctor.
func TestProgramOfAShellLoopIsTheShell(t *testing.T) {
	for cmd, want := range map[string]string{
		"while read l; do echo $l; done":   "sh",
		"for i in 1 2; do x; done":         "sh",
		"FOO=1 nohup claude --x":           "claude",
		"npx -y codex":                     "codex",
		`"/opt/my tools/claude" --model x`: "/opt/my tools/claude",
	} {
		a := AgentConfig{Argv: line(cmd)}
		if got := a.Program(); got != want {
			t.Errorf("%q: Program() = %q, want %q", cmd, got, want)
		}
		if strings.Contains(want, "/") && programOf(a.Argv) != "claude" {
			t.Errorf("%q: programOf = %q", cmd, programOf(a.Argv))
		}
	}
}
