package textsafe

import "strings"

// Text typed into an interactive shell is read as commands. A message
// that is typed into one (an agent whose program is a shell, set to take
// messages) must therefore arrive as lines the shell runs nothing of,
// whatever the message holds: ShellLines is the one rule for that.
//
// The text becomes one line (a line feed in it would be Enter: its lines
// are joined with " ⏎ ", as Line shows them), in the shell's form of "not
// a command":
//
//   - HashComment, ` # text`: a comment, in sh, bash, dash, ksh, mksh,
//     yash, busybox, fish, nu, PowerShell, elvish and xonsh, whose
//     interactive modes read comments;
//   - NullCommand, ` : 'text'`: the null command with one quoted
//     argument, in zsh and csh/tcsh, whose interactive modes take `#` for
//     a command (zsh unless interactive_comments is set; csh always):
//     there `# text; touch x` runs `touch x`.
//
// The leading blank keeps the line out of the history of a shell told to
// ignore such lines (bash's HISTCONTROL=ignorespace, zsh's
// HIST_IGNORE_SPACE, fish always).
//
// A shell may also be in the middle of a command when the line arrives —
// inside a quote, a here-document, `$(`, `${` or a line continuation
// that a person left open — where a comment is not one. So the characters
// with which text could end such a construct, expand something or start
// a command are never typed: ; & | < > ( ) { } $ ` ' " \ ! each become
// their full-width form (； ＆ ｜ ＜ ＞ （ ） ｛ ｝ ＄ ｀ ＇ ＂ ＼ ！), which no
// shell reads as syntax (PowerShell takes the curly quotes ‘ ’ “ ” for
// quotes, so those are not used). The line can then neither end in a
// continuation nor close what was left open, and a shell that takes it
// for a command (zsh or csh reading NullCommand's `:` or a stray `#`) is
// given words it cannot expand into anything.
//
// A shell whose locale is not UTF-8 reads a byte above 127 as a key with
// Meta held (tcsh runs editor commands for them, readline may too), so
// for such a shell (ascii) every character outside ASCII is typed as `?`,
// the characters above as `_` and the lines are joined with " / ".

// ShellStyle is how a shell is told that a line is not a command.
type ShellStyle int

const (
	// HashComment: ` # text`.
	HashComment ShellStyle = iota
	// NullCommand: ` : 'text'`.
	NullCommand
)

// shellSyntax maps each character a shell may act on in a line to what is
// typed instead in a UTF-8 locale.
var shellSyntax = map[rune]rune{
	';': '；', '&': '＆', '|': '｜', '<': '＜', '>': '＞', '(': '（', ')': '）',
	'{': '｛', '}': '｝', '$': '＄', '`': '｀', '\'': '＇', '"': '＂', '\\': '＼', '!': '！',
}

// ShellComment returns text (made safe by Body) as one line that a shell
// of the given style runs nothing of. ascii says the shell's locale is
// not UTF-8.
func ShellComment(style ShellStyle, text string, ascii bool) string {
	var b strings.Builder
	b.Grow(len(text) + 8)
	if style == NullCommand {
		b.WriteString(" : '")
	} else {
		b.WriteString(" # ")
	}
	sep := ""
	for _, l := range strings.Split(Body(text), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		b.WriteString(sep)
		sep = " ⏎ "
		if ascii {
			sep = " / "
		}
		for _, r := range l {
			switch wide, special := shellSyntax[r]; {
			case special && ascii:
				b.WriteByte('_')
			case special:
				b.WriteRune(wide)
			case r > 0x7e && ascii:
				b.WriteByte('?')
			default:
				b.WriteRune(r)
			}
		}
	}
	if style == NullCommand {
		b.WriteByte('\'')
	}
	return b.String()
}
