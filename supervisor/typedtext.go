package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"swarm/bus"
	"swarm/spawner"
	"swarm/textsafe"
)

// What is typed for a message into programs that act on each line they
// read, and how a body too long to type is named.
//
//   - A shell (profile Shell, by kind or by its command) that takes
//     messages gets each as one line it runs nothing of
//     (textsafe.ShellComment): its lines joined with ⏎ after `#` (or
//     `: '…'` for zsh and csh), every character that is syntax to a shell
//     replaced, and its header at the end: `# body ⏎ more -- [relay #id
//     from bob]`.
//   - Any other program reading lines (a terminal in canonical mode: a
//     `while read` loop, a REPL without line editing) gets a message as
//     one line, its lines joined with ⏎: it would take each line of a
//     paste as input of its own, and run it if it runs what it reads.
//     Only a program reading keys (raw mode) that asked for bracketed
//     paste gets a multi-line message as one paste (canPaste).
//   - A body too long to type is written to .swarm/messages/<id>.txt and
//     named by its path relative to the agent's directory (longBodyRef),
//     never the absolute one: the project's directory may be named with a
//     line feed, which typed would be Enter.

// canPaste says whether a multi-line message may go to proc as one
// bracketed paste: the program asked for bracketed paste and reads keys,
// not lines.
func canPaste(proc *spawner.Process) bool {
	if !proc.Screen().BracketedPaste() {
		return false
	}
	lineMode, err := proc.LineMode()
	return err == nil && !lineMode
}

// renderShell is what is typed into a shell for m: one line, its header
// last (a shell's line editor may wrap or scroll a long line, and the
// cursor's row, where swarm looks for the message's id, is its end).
func (a *agent) renderShell(m bus.Message) (string, error) {
	style, ascii := shellStyle(a.cfg.Argv), !utf8Locale(a.cfg.Env, os.Environ())
	lines := strings.Split(textsafe.Body(m.Body), "\n")
	for i := range lines {
		lines[i] = escapeBodyLine(lines[i], false)
	}
	signed := func(text string) string {
		return textsafe.ShellComment(style, text+" -- "+strings.TrimSpace(header(m)), ascii)
	}
	if text := signed(strings.Join(lines, "\n")); len(text) <= maxTyped {
		return text, nil
	}
	ref, err := a.longBodyRef(m)
	if err != nil {
		return "", err
	}
	return signed(ref), nil
}

// longBodyRef writes m's body to its file and returns what is typed
// instead of it: "N bytes, too long to type: read PATH", PATH relative to
// the agent's directory (shell-quoted if it must be).
func (a *agent) longBodyRef(m bus.Message) (string, error) {
	path, err := a.s.writeMessageFile(m)
	if err != nil {
		return "", err
	}
	dir := a.workDir()
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("message file: %w", err)
		}
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return "", fmt.Errorf("message file: %w", err)
	}
	if !textsafe.Safe(rel) || strings.ContainsRune(rel, '\n') {
		return "", errUntypablePath
	}
	return fmt.Sprintf("%d bytes, too long to type: read %s", len(m.Body), shellQuote(rel)), nil
}

// errUntypablePath: the path of a message file, seen from the agent,
// holds a character that cannot be typed.
var errUntypablePath = errors.New("its body is too long to type and the path of its file, seen from the agent's directory, holds a line feed or a control character; rename the directory")

// utf8Locale says whether a program with the environment env (over base)
// reads UTF-8: LC_ALL, else LC_CTYPE, else LANG names a UTF-8 locale.
func utf8Locale(env map[string]string, base []string) bool {
	get := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		for _, kv := range base {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := get(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}
