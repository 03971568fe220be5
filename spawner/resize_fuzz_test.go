package spawner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// FuzzResizeMidStream: a program printing lines, resized at any moment —
// between two lines, in the middle of one, in the middle of a colour
// sequence or of a character — to any size, and later back: the lines
// found are those of a screen never resized, each once and in the same
// order. A line printed before a resize is found once, and so are the
// line the resize came in the middle of and the lines after it.
//
// The property is about output whose meaning does not depend on the
// size: lines of text and colours, each ended by a line feed (plainLines
// makes any input into that). A program that moves the cursor, goes back
// to the start of its row or erases draws for the size it knows: after a
// resize and until it redraws for the new size, its moves land elsewhere
// (a carriage return goes to the start of the row, at a new width the
// middle of the line), and no one reading the screen could say which
// line it meant. FuzzReflow and FuzzShrinkAndGrow cover such output,
// resized once it is drawn.
//
// A resize may come in the middle of a character, but not between the
// characters of one cluster (a letter and its combining mark, the emoji a
// joiner joins): the screen shows what was printed before it resizes, and
// what is printed after that is a cluster of its own — a mark joins the
// character before the cursor, as after a screen read (vt patch 17), but
// the emoji after a joiner is a character of its own, which a new width
// may lay out elsewhere. A carriage return and its line
// feed are one cluster too: between them the cursor is at the start of
// its row, which at the new width is the middle of the line, and the line
// feed goes down from there, as on tmux.
func FuzzResizeMidStream(f *testing.F) {
	for _, tc := range lineCases {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2), uint16(len(tc.in)/4), uint8(3), uint8(7))
	}
	for _, out := range recordedText(f) {
		f.Add(out, uint16(len(out)/3), uint16(len(out)/3), uint8(2), uint8(11))
	}
	f.Add([]byte("@relay:bob a body longer than the screen is wide\n$ \x1b[32mgreen 你好世界\x1b[m\nmore\n"), uint16(20), uint16(30), uint8(1), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, at, after uint16, rows, cols uint8) {
		in := plainLines(data)
		opts := ScreenOptions{Rows: 6, Cols: 20, Scrollback: 100}
		k1 := clusterStart(in, int(at)%(len(in)+1))
		k2 := max(k1, clusterStart(in, k1+int(after)%(len(in)-k1+1)))

		plain := NewScreen(opts)
		defer plain.Close()
		var want []string
		_, _ = plain.Write([]byte(in))
		want = appendTexts(want, plain.TakeLines())
		want = appendTexts(want, plain.Flush())

		s := NewScreen(opts)
		defer s.Close()
		var got []string
		write := func(p string) {
			_, _ = s.Write([]byte(p))
			got = appendTexts(got, s.TakeLines())
		}
		write(in[:k1])
		s.Resize(int(rows%12)+1, int(cols%60)+2) // a wide character needs 2 columns
		got = appendTexts(got, s.TakeLines())
		write(in[k1:k2])
		s.Resize(opts.Rows, opts.Cols)
		got = appendTexts(got, s.TakeLines())
		write(in[k2:])
		got = appendTexts(got, s.Flush())
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q resized at %d and back at %d: lines differ from a screen never resized (-want +got):\n%s", in, k1, k2, diff)
		}
	})
}

// clusterStart returns k, or the start of the grapheme cluster of s that
// k falls in after the cluster's first character (between two of its
// characters).
func clusterStart(s string, k int) int {
	for at := 0; at < k; {
		cl, _ := ansi.FirstGraphemeCluster(s[at:], ansi.GraphemeWidth)
		if len(cl) == 0 {
			break
		}
		_, first := utf8.DecodeRuneInString(cl)
		if k >= at+first && k < at+len(cl) {
			return at
		}
		at += len(cl)
	}
	return k
}

// appendTexts appends the text of each line that has some, trailing
// blanks trimmed: where a line wraps at another width may leave blanks at
// its end or not, and a blank line is no command.
func appendTexts(dst []string, ls []Line) []string {
	for _, l := range ls {
		if t := strings.TrimRight(l.Text, " "); t != "" {
			dst = append(dst, t)
		}
	}
	return dst
}

// plainLines makes data into lines of text: printable characters and
// colours (SGR) kept, a cursor moved along its row (as Claude Code writes
// the spaces between words) written as spaces, a line feed ending a
// line ("\r\n"), every other control character and escape sequence
// dropped.
func plainLines(data []byte) string {
	var b strings.Builder
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			b.WriteString("\r\n")
			i++
		case c == 0x1b && i+1 < len(data) && data[i+1] == '[':
			j := i + 2
			for j < len(data) && data[j] >= 0x20 && data[j] < 0x40 { // parameters, intermediates
				j++
			}
			if j < len(data) {
				switch seq := data[i : j+1]; {
				case data[j] == 'm' && plainParams(seq[2:j-i]):
					b.Write(seq)
				case data[j] == 'C' && plainParams(seq[2:j-i]):
					n, _ := strconv.Atoi(string(seq[2 : j-i]))
					b.WriteString(strings.Repeat(" ", min(max(n, 1), 200)))
				case data[j] == 'G': // to a column: between words
					b.WriteByte(' ')
				}
			}
			i = j + 1
		case c == 0x1b && i+1 < len(data) && data[i+1] == ']': // up to BEL or ST
			j := i + 2
			for j < len(data) && data[j] != 0x07 && !(data[j] == 0x1b && j+1 < len(data) && data[j+1] == '\\') {
				j++
			}
			i = j + 1
			if j < len(data) && data[j] == 0x1b {
				i++
			}
		case c == 0x1b:
			i += 2
		case c < 0x20 || c == 0x7f:
			i++
		default:
			r, n := utf8.DecodeRune(data[i:])
			if r != utf8.RuneError && (r < 0x80 || r > 0x9f) { // C1 controls are controls
				b.WriteRune(r)
			}
			i += n
		}
	}
	return b.String()
}

// plainParams reports whether p is numeric parameters only.
func plainParams(p []byte) bool {
	for _, c := range p {
		if (c < '0' || c > '9') && c != ';' {
			return false
		}
	}
	return true
}

// recordedText returns, as seeds, some of the output of a recording of
// each of a few real CLIs in testdata/cli, from a little before its first
// relay line: plainLines keeps their text and colours.
func recordedText(f *testing.F) [][]byte {
	var out [][]byte
	for _, cli := range []string{"claude-inline", "codex-inline", "gemini", "opencode"} {
		paths, _ := filepath.Glob("../testdata/cli/" + cli + "-*.cast")
		if len(paths) == 0 {
			continue
		}
		file, err := os.Open(paths[0])
		if err != nil {
			f.Fatal(err)
		}
		var text []byte
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		sc.Scan() // the header
		for sc.Scan() {
			var ev []any
			if json.Unmarshal(sc.Bytes(), &ev) != nil || len(ev) != 3 || ev[1] != "o" {
				continue
			}
			if s, ok := ev[2].(string); ok {
				text = append(text, s...)
			}
		}
		file.Close()
		plain := plainLines(text)
		at := max(strings.Index(plain, "relay"), 0)
		from := max(at-300, 0)
		out = append(out, []byte(plain[from:min(from+1200, len(plain))]))
	}
	return out
}
