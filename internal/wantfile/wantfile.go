// Package wantfile reads what a recording of a real agent CLI is expected
// to yield — NAME.want, the commands a reader saw on its screen, and
// NAME.json's "unsure" ones, both written by scripts/record-cli/generate.py
// (testdata/cli/README.md) — and sets the commands swarm found against
// them. TestCLIRecordings (testdata/cli's goldens) and
// scripts/corpus-score (the generated corpus) score with it alike.
package wantfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"

	"swarm/parser"
)

// Command is one expected (or unsure) command, compared as a whole by its
// String.
type Command struct {
	Kind  string `json:"kind"`
	To    string `json:"to"`
	Type  string `json:"type"`
	Body  string `json:"body"`
	Topic string `json:"topic,omitempty"`
	// AfterResize marks a command first shown after the recording's
	// first resize (not compared by String).
	AfterResize bool `json:"after_resize,omitempty"`
}

func (c Command) String() string {
	s := fmt.Sprintf("%s %s %s %q", c.Kind, c.To, c.Type, c.Body)
	if c.Topic != "" {
		s += " topic=" + c.Topic
	}
	return s
}

// Meta is the part of NAME.json read here.
type Meta struct {
	Config string `json:"config"`
	Kind   string `json:"kind"`
	// Unsure lists commands a reader may or may not have read: shown only
	// in part, changed, only later, or only for a moment (between two of
	// the generator's captures). They are not expected, and a command
	// found in their place is not counted as extra (WithoutUnsure).
	Unsure []Command `json:"unsure"`
}

// ReadMeta reads NAME.json.
func ReadMeta(path string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Read reads NAME.want: one JSON object a line.
func Read(path string) ([]Command, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Command
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c Command
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// ErrorPrefix starts the description of a parse error (Describe).
const ErrorPrefix = "error: "

// Describe renders a found event as a Command's String, or a parse error
// as ErrorPrefix and the error.
func Describe(ev parser.Event) string {
	if ev.Err != nil {
		return ErrorPrefix + ev.Err.Error()
	}
	c := ev.Command
	return Command{Kind: c.Kind.String(), To: c.To, Type: c.Type, Body: c.Body, Topic: c.Topic}.String()
}

// WithoutUnsure describes the events found, less the commands that stand
// for an unsure one, and counts those. A found command that is one of the
// expected ones, in order (in a longest common subsequence with want), is
// that one even when it also starts as an unsure one does (the same
// recipient, the same first words): only a command not expected there
// may stand for an unsure one.
func WithoutUnsure(want []string, found []parser.Event, unsure []Command) (got []string, nUnsure int) {
	described := make([]string, len(found))
	for i, ev := range found {
		described[i] = Describe(ev)
	}
	expected := inOrder(want, described)
	left := append([]Command(nil), unsure...)
	for i, ev := range found {
		if !expected[i] && ev.Command != nil {
			if j := matchUnsure(left, ev.Command); j >= 0 {
				left = append(left[:j], left[j+1:]...)
				nUnsure++
				continue
			}
		}
		got = append(got, described[i])
	}
	return got, nUnsure
}

// CommonLengths returns n, where n[i][j] is the length of the longest
// common subsequence of want[i:] and got[j:]: walking it from n[0][0]
// aligns the two lists (a command found in its place, missing, or extra).
func CommonLengths(want, got []string) [][]int {
	n := make([][]int, len(want)+1)
	for i := range n {
		n[i] = make([]int, len(got)+1)
	}
	for i := len(want) - 1; i >= 0; i-- {
		for j := len(got) - 1; j >= 0; j-- {
			if want[i] == got[j] {
				n[i][j] = n[i+1][j+1] + 1
			} else {
				n[i][j] = max(n[i+1][j], n[i][j+1])
			}
		}
	}
	return n
}

// inOrder marks the entries of got in one longest common subsequence of
// want and got.
func inOrder(want, got []string) []bool {
	n := CommonLengths(want, got)
	marked := make([]bool, len(got))
	for i, j := 0, 0; i < len(want) && j < len(got); {
		switch {
		case want[i] == got[j]:
			marked[j] = true
			i++
			j++
		case n[i+1][j] >= n[i][j+1]:
			i++
		default:
			j++
		}
	}
	return marked
}

// matchUnsure returns the index of the unsure command c stands for (same
// kind and recipient, and a body that starts as the printed one does: the
// screen may have shown it cut or changed), or -1. Blanks are not
// compared: an unsure command is listed as printed, and a CLI may draw it
// with blanks added (Gemini CLI puts one after each wide character, "か な"
// for "かな", as its expected commands are written).
func matchUnsure(unsure []Command, c *parser.Command) int {
	found := withoutBlanks(c.Body)
	for i, u := range unsure {
		if u.Kind != c.Kind.String() || u.To != c.To {
			continue
		}
		printed := withoutBlanks(u.Body)
		n := min(16, len(printed), len(found))
		if n > 0 && printed[:n] == found[:n] {
			return i
		}
	}
	return -1
}

func withoutBlanks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
