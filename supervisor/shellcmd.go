package supervisor

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"swarm/textsafe"
)

// Reading a command as written in swarm.toml: the simple commands of a
// shell command line, and whether the command starts an interactive shell
// — a program that runs whatever is typed into it, so that swarm must
// never type a message into it as text (profiles.go, kind "shell").

// simpleCommands splits a shell command line into its simple commands'
// words, quotes removed: at ; & | ( ) and line ends outside quotes,
// redirections and their targets left out, comments too. It reads what
// a person writes in a config, not every corner of the shell's grammar.
func simpleCommands(line string) [][]string {
	var (
		cmds     [][]string
		words    []string
		word     strings.Builder
		inWord   bool
		skipNext bool // the word after a redirection is its target
	)
	endWord := func() {
		if inWord {
			if !skipNext {
				words = append(words, word.String())
			}
			skipNext = false
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			if rs[i] != '\n' {
				word.WriteRune(rs[i])
				inWord = true
			}
		case r == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				word.WriteRune(rs[i])
			}
		case r == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]) {
					i++
				}
				word.WriteRune(rs[i])
			}
		case r == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			endCommand()
		case strings.ContainsRune(";&|()\n", r):
			endCommand()
		case r == '<' || r == '>':
			if isDigits(word.String()) { // 2>file: the descriptor is no word
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < len(rs) && strings.ContainsRune("<>&|", rs[i+1]) {
				i++
			}
			skipNext = true
		case unicode.IsSpace(r):
			endWord()
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	endCommand()
	return cmds
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// shellKeywords start a shell's own constructs rather than a command.
var shellKeywords = []string{"while", "until", "for", "if", "case", "select", "function", "{", "!", "[["}

// skipWrappers returns the words of a simple command from its program on:
// past variable assignments and the wrappers that run the rest as a
// command (env and its options, exec, command, npx, nohup, time).
func skipWrappers(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "env", w == "exec", w == "npx", w == "command", w == "nohup", w == "time",
			strings.HasPrefix(w, "-"),
			strings.Contains(w, "=") && !strings.Contains(w, "/"):
			words = words[1:]
		default:
			return words
		}
	}
	return nil
}

// startsShell says whether argv starts an interactive shell: a shell
// with no script to run, run directly or as one of the simple commands
// of a shell command line (`cd sub && bash`).
func startsShell(argv []string) bool {
	if !commandLine(argv) {
		return shellInvocation(argv)
	}
	return slices.ContainsFunc(simpleCommands(argv[2]), shellInvocation)
}

// shellFamily is what a shell's command line options mean.
type shellFamily struct {
	// script options make the shell run a script given on the command
	// line (-c) rather than read commands typed in.
	script []string
	// value options take the next word as their value.
	value []string
	// clusters: short options may be written together (-lc).
	clusters bool
}

var (
	posixShell = shellFamily{script: []string{"-c"}, value: []string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file", "--emulate"}, clusters: true}
	fishShell  = shellFamily{script: []string{"-c", "--command"}, value: []string{"-C", "--init-command", "-d", "--debug", "-o", "--debug-output", "-f", "--features", "--profile", "--profile-startup"}, clusters: true}
	cshShell   = shellFamily{script: []string{"-c"}, clusters: true}
	nuShell    = shellFamily{script: []string{"-c", "--commands"}, value: []string{"--config", "--env-config", "--plugin-config", "-e", "--execute",
		"-I", "--include-path", "--log-level", "--log-target", "--log-include", "--log-exclude", "-m", "--table-mode", "--error-style", "--experimental-options"}}
	elvishShell = shellFamily{script: []string{"-c"}, value: []string{"-rc", "-sock", "-db", "-log"}}
	xonshShell  = shellFamily{script: []string{"-c"}, value: []string{"--rc", "-D", "--shell-type", "-st"}}
)

// shellFamilies gives each of shellPrograms its options, but for ssh,
// PowerShell and busybox, which are read apart.
var shellFamilies = map[string]shellFamily{
	"fish": fishShell, "csh": cshShell, "tcsh": cshShell, "nu": nuShell, "elvish": elvishShell, "xonsh": xonshShell,
}

// shellInvocation says whether words, a simple command, start an
// interactive shell: a shell program given no script (no -c, no script
// file; bash -s reads commands typed in, -i or not), or ssh given no
// remote command.
func shellInvocation(words []string) bool {
	words = skipWrappers(words)
	if len(words) == 0 {
		return false
	}
	prog, args := filepath.Base(words[0]), words[1:]
	switch {
	case !slices.Contains(shellPrograms, prog):
		return false
	case prog == "ssh":
		return sshWithoutCommand(args)
	case prog == "pwsh" || prog == "powershell":
		return pwshWithoutScript(args)
	case prog == "busybox":
		if len(args) == 0 || !slices.Contains([]string{"sh", "ash", "hush"}, args[0]) {
			return false
		}
		args = args[1:]
	}
	fam, ok := shellFamilies[prog]
	if !ok {
		fam = posixShell
	}
	stdin := false // -s: commands come from the terminal, words are arguments
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			return stdin || i+1 == len(args)
		case slices.Contains(fam.script, a):
			return false
		case slices.Contains(fam.value, a):
			i++
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			short := len(a) > 2 && a[1] != '-' && fam.clusters
			if short && strings.ContainsRune(a[1:], 'c') {
				return false
			}
			if a == "-s" || short && strings.ContainsRune(a[1:], 's') {
				stdin = true
			}
		default:
			return stdin // a script file, unless commands come from the terminal
		}
	}
	return true
}

// sshWithoutCommand says whether ssh's arguments log in to a shell: one
// destination, no remote command, and no -N or -W (no command at all).
func sshWithoutCommand(args []string) bool {
	const valueFlags = "BbcDEeFIiJLlmOoPpQRSWw"
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if operands == 0 && strings.HasPrefix(a, "-") && len(a) > 1 {
			if a == "--" {
				operands = len(args) - i - 1
				break
			}
			for j := 1; j < len(a); j++ {
				if a[j] == 'N' || a[j] == 'W' {
					return false
				}
				if strings.IndexByte(valueFlags, a[j]) >= 0 {
					if j == len(a)-1 {
						i++ // the value is the next word
					}
					break
				}
			}
			continue
		}
		operands++
	}
	return operands == 1
}

// pwshWithoutScript says whether PowerShell's arguments leave it reading
// commands typed in: no -Command, -File, -EncodedCommand or script file,
// or -NoExit with them. Its parameters are case-insensitive and may be
// shortened.
func pwshWithoutScript(args []string) bool {
	is := func(a string, names ...string) bool {
		a = strings.ToLower(strings.TrimLeft(a, "-/"))
		for _, n := range names {
			if a == n || len(a) >= 3 && strings.HasPrefix(n, a) {
				return true
			}
		}
		return false
	}
	script, noExit := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !strings.HasPrefix(a, "-"):
			script = true // a script file
			i = len(args)
		case is(a, "noexit", "noe"):
			noExit = true
		case is(a, "command", "c", "file", "f", "encodedcommand", "e", "ec", "enc"):
			script = true
			i = len(args) // the rest is the script's
		case is(a, "executionpolicy", "ex", "ep", "workingdirectory", "wd", "wo", "configurationname", "configurationfile",
			"custompipename", "inputformat", "inp", "if", "outputformat", "o", "of", "settingsfile", "windowstyle", "w"):
			i++
		}
	}
	return !script || noExit
}

// shellStyle is how the shell of argv is told that a line is no command
// (textsafe.ShellLines): zsh and csh take `#` for a command when
// interactive, and so may the shell at the other end of ssh.
func shellStyle(argv []string) textsafe.ShellStyle {
	cmds := [][]string{argv}
	if commandLine(argv) {
		cmds = simpleCommands(argv[2])
	}
	for _, c := range cmds {
		if shellInvocation(c) {
			switch filepath.Base(skipWrappers(c)[0]) {
			case "zsh", "csh", "tcsh", "ssh":
				return textsafe.NullCommand
			}
		}
	}
	return textsafe.HashComment
}
