package supervisor

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"swarm/parser"
)

// kindsByNumber are the kinds the fuzz targets play output as: a number
// picks one.
var kindsByNumber = []string{"", "claude", "codex", "gemini", "opencode"}

// recordingSeeds returns the start of each CLI recording's output (up to
// its first resize; at most limit bytes) with its kind's number: what the
// fuzz targets start from.
func recordingSeeds(f *testing.F, limit int) (seeds [][]byte, kinds []uint8) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join(cliDir, "*.cast"))
	for _, file := range files {
		data, err := readRecording(file)
		if err != nil {
			f.Fatal(err)
		}
		raw, _, _ := rawBeforeResize(f, data)
		kind, err := RecordingKind(file)
		if err != nil {
			f.Fatal(err)
		}
		k := 0
		for i, name := range kindsByNumber {
			if name == kind {
				k = i
			}
		}
		seeds = append(seeds, raw[:min(len(raw), limit)])
		kinds = append(kinds, uint8(k))
	}
	return seeds, kinds
}

// FuzzExtractCutAnywhere: the commands found in output do not depend on
// where the stream is cut into reads, whatever the kind of program it is
// read as (its input box, its echoes, where it wraps). Seeded with the
// CLI recordings.
func FuzzExtractCutAnywhere(f *testing.F) {
	seeds, kinds := recordingSeeds(f, 6<<10)
	for i, raw := range seeds {
		f.Add(raw, uint16(len(raw)/3), uint16(len(raw)*2/3), kinds[i])
	}
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint16, kind uint8) {
		opts := ExtractOptions{Rows: 24, Cols: 80, Kind: kindsByNumber[int(kind)%len(kindsByNumber)],
			Parser: parser.Options{MaxBlock: 4096}}
		whole := extractAll(t, data, nil, opts)
		a, b := int(cut1)%(len(data)+1), int(cut2)%(len(data)+1)
		cuts := []int{min(a, b), max(a, b)}
		if split := extractAll(t, data, cuts, opts); split != whole {
			t.Fatalf("kind %q, cut at %v:\ngot:\n%s\nwant:\n%s", opts.Kind, cuts, split, whole)
		}
	})
}

// FuzzExtractResizeOnce: a line printed before a resize is found once,
// and one printed after it too, whatever the sizes and wherever the resize
// falls: the commands found in plain lines (a program printing them one
// after the other, as a CLI's shell command does) are those printed, with
// and without the resize. The lines come from the fuzzer's text: every
// third is a relay command.
func FuzzExtractResizeOnce(f *testing.F) {
	seeds, _ := recordingSeeds(f, 600)
	for i, raw := range seeds {
		f.Add(raw, uint16(i*37), uint8(24), uint8(80), uint8(30), uint8(100))
	}
	f.Add([]byte("short\nlonger line of text that wraps at forty columns or so\nend"), uint16(20), uint8(10), uint8(40), uint8(6), uint8(20))
	f.Fuzz(func(t *testing.T, text []byte, at uint16, rows, cols, rows2, cols2 uint8) {
		var out bytes.Buffer
		var want []string
		for i, line := range strings.Split(plainText(text), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if i%3 == 0 {
				line = "@relay:bob " + line
				want = append(want, line[len("@relay:bob "):])
			} else {
				line = "text: " + line // never a command, fence or block
			}
			out.WriteString(line + "\r\n")
		}
		data := out.Bytes()
		r, c := int(rows%40)+2, int(cols%120)+10
		r2, c2 := int(rows2%40)+2, int(cols2%120)+10
		k := int(at) % (len(data) + 1)
		got := playResized(t, data, r, c, k, r2, c2)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%d×%d, resized to %d×%d after %d bytes:\ngot:\n%s\nwant:\n%s", c, r, c2, r2, k,
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// plainText is s as printable text and line feeds: the lines a program
// prints, as a reader sees them. A format character other than the joiner
// of an emoji sequence (a soft hyphen, a zero-width space, a mark of
// direction) shows as nothing on a terminal, this screen's too: no reader
// can tell it was printed, nor read it in a command's body.
func plainText(s []byte) string {
	var b strings.Builder
	for _, r := range string(s) {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0xfffd:
		case unicode.Is(unicode.Cf, r) && r != '\u200d':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// playResized plays data on a rows×cols screen, resized to rows2×cols2
// once the first at bytes are written, and returns the bodies of the
// relay commands found.
func playResized(t *testing.T, data []byte, rows, cols, at, rows2, cols2 int) []string {
	t.Helper()
	var got []string
	x := newExtractor(ExtractOptions{Rows: rows, Cols: cols}, func(ev parser.Event) {
		if ev.Command != nil {
			got = append(got, ev.Command.Body)
		}
	}, nil, untimedFrames)
	defer x.s.Close()
	x.write(data[:at])
	x.s.Resize(rows2, cols2)
	x.feed(x.s.TakeLines())
	x.write(data[at:])
	x.end()
	return got
}
