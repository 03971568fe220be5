// Package textsafe makes text that agents wrote safe to type into another
// agent's terminal and to print on a person's: nothing an agent writes may
// reach a terminal as a control sequence, and nothing may make a line read
// otherwise than it is.
//
// Per character: line feeds are kept in bodies (Body) and shown as ⏎ on
// one line (Line); a carriage return, alone or before a line feed, is a
// line feed; a tab is a space (a tab completes commands in shells and
// agent CLIs); the other C0 controls, ESC, DEL and the C1 controls are
// removed; so are the bidirectional embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069) and the marks U+200E, U+200F and U+061C,
// which make text display in another order than it is read, and the
// invisible U+200B, U+2060 and U+FEFF, which hide characters inside words.
// Zero-width joiners and non-joiners are kept: emoji and several scripts
// need them. Bytes that are not UTF-8 become U+FFFD.
package textsafe

import (
	"io"
	"strings"
	"unicode/utf8"
)

// removed reports whether r is dropped from text.
func removed(r rune) bool {
	switch {
	case r < 0x20 && r != '\n' && r != '\t' && r != '\r':
		return true
	case r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0x200b, r == 0x2060, r == 0xfeff:
		return true
	}
	return false
}

// Safe reports whether s needs no change to be Body.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == '\t' || r == '\r' || r == utf8.RuneError && w == 1 || removed(r) {
			return false
		}
		i += w
	}
	return true
}

// Body returns s safe to type or print, line feeds kept.
func Body(s string) string {
	if Safe(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\r':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte(' ')
		case removed(r):
		default:
			b.WriteRune(r) // an invalid byte arrives as U+FFFD
		}
	}
	return b.String()
}

// Words returns s safe to print on one line as its words: Body, every run
// of white space (line feeds too) one space.
func Words(s string) string {
	return strings.Join(strings.Fields(Body(s)), " ")
}

// Line returns s safe to print on one line: Body, line feeds shown as ⏎.
func Line(s string) string {
	s = Body(s)
	if strings.IndexByte(s, '\n') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\n", "⏎")
}

// JSON returns JSON text with every character Body would remove written
// as a \u escape: encoding/json escapes C0 controls but leaves DEL, C1
// controls and the bidirectional ones as they are, which a terminal
// showing the JSON would act on. Such characters occur only inside
// strings, where the escape means the same.
func JSON(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if removed(r) {
			clean = false
			break
		}
		i += w
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if removed(r) {
			out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		} else {
			out = append(out, b[i:i+w]...)
		}
		i += w
	}
	return out
}

const hex = "0123456789abcdef"

// JSONWriter returns a writer that writes JSON text to w through JSON: for
// a json.Encoder, which writes each value whole.
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
