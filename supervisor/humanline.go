package supervisor

import (
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
)

// A person's line: what someone has typed into an agent since they last
// pressed Enter. Messages wait while there is one, so that a message never
// completes a half-typed command or prompt; they go once the line is empty
// again. The length is an estimate from the keys (characters in, Backspace
// out; Enter, Ctrl-C and Ctrl-U end the line): the program alone knows the
// line, and an estimate that errs long only delays a message until Enter.

// lineEdit is what some input does to the length of the person's line.
type lineEdit func(n int) int

// apply returns the length after the input; a nil edit changes nothing.
func (e lineEdit) apply(n int) int {
	if e == nil {
		return n
	}
	return e(n)
}

// lineAdd is input that adds k characters (a paste).
func lineAdd(k int) lineEdit { return func(n int) int { return n + k } }

// editOfBytes is what raw keystrokes do to the line.
func editOfBytes(b []byte) lineEdit {
	return func(n int) int {
		for i := 0; i < len(b); {
			c := b[i]
			switch {
			case c == '\r' || c == '\n' || c == 0x03 || c == 0x15: // Enter, Ctrl-C, Ctrl-U
				n = 0
			case c == 0x7f || c == 0x08: // Backspace
				n = max(n-1, 0)
			case c == 0x1b:
				i += escapeLen(b[i:])
				continue
			case c == '\t' || c >= 0x20:
				r, w := utf8.DecodeRune(b[i:])
				if r != utf8.RuneError || w == 1 {
					n++
				}
				i += w
				continue
			}
			i++
		}
		return n
	}
}

// escapeLen returns the length of the escape sequence at the start of b
// (cursor keys, function keys, Alt+key): it moves in the line or does
// something else, and adds nothing to it. A bracketed paste's markers are
// sequences too; what is pasted between them counts as typed.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return len(b)
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return len(b)
	case 'O':
		return min(3, len(b))
	}
	return 2
}

// editOfKey is what one key press does to the line.
func editOfKey(k uv.Key) lineEdit {
	switch {
	case k.Code == uv.KeyEnter || k.Code == uv.KeyKpEnter:
		return func(int) int { return 0 }
	case k.Mod&uv.ModCtrl != 0 && (k.Code == 'c' || k.Code == 'u'):
		return func(int) int { return 0 }
	case k.Code == uv.KeyBackspace:
		return func(n int) int { return max(n-1, 0) }
	case k.Text != "":
		return lineAdd(utf8.RuneCountInString(k.Text))
	}
	return nil
}
