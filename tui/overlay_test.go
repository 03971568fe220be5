package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// cells splits a plain line into terminal cells: a wide rune fills its
// first cell and leaves "" in the second.
func cells(line string) []string {
	var out []string
	for line != "" {
		c, w := ansi.FirstGraphemeCluster(line, ansi.GraphemeWidth)
		line = line[len(c):]
		if w == 0 {
			if len(out) > 0 {
				out[len(out)-1] += c
			}
			continue
		}
		out = append(out, c)
		for range w - 1 {
			out = append(out, "")
		}
	}
	return out
}

// wideScreen is an agent screen of wide runes, styled, starting on odd
// and even cells, so that some cross any column.
func wideScreen(n int) []string {
	var rows []string
	for i := range n {
		rows = append(rows, strings.Repeat(" ", i%2)+"\x1b[1;35m日本語\x1b[0mテキスト\x1b[4m文字列テキスト\x1b[0m日本語テキスト文字列テキスト")
	}
	return rows
}

// TestDialogCoversExactlyItsCells: a dialog replaces the cells under it
// and nothing else; a wide rune cut by its edge leaves a blank cell, and
// every row keeps the window's width.
func TestDialogCoversExactlyItsCells(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {120, 33}} {
		for _, open := range [][]string{{"q"}, {"R"}, {"s"}, {"n"}} {
			t.Run(fmt.Sprintf("%dx%d %s", size[0], size[1], open[0]), func(t *testing.T) {
				sw := scenario(t)
				for _, n := range []string{"alice", "bob", "carol"} {
					sw.setScreen(n, wideScreen(24)...)
				}
				h := newHarness(t, sw, size[0], size[1], Options{})
				before := strings.Split(h.screen(), "\n")
				h.keys(open...)
				if h.m.Mode() != ModeDialog {
					t.Fatalf("%s opened no dialog", open)
				}
				dl, x, y := h.m.dialogPlacement()
				after := strings.Split(h.screen(), "\n")
				if len(after) != size[1] {
					t.Fatalf("%d rows, want %d", len(after), size[1])
				}
				for r := range after {
					got, base := cells(after[r]), cells(before[r])
					if len(got) != size[0] {
						t.Fatalf("row %d is %d cells wide, want %d:\n%s", r, len(got), size[0], strings.Join(after, "\n"))
					}
					if r >= size[1]-2 {
						continue // the status and help lines say DIALOG
					}
					var top []string
					if r >= y && r < y+len(dl) {
						top = cells(ansi.Strip(dl[r-y]))
					}
					for c := range got {
						want := base[c]
						inside := top != nil && c >= x && c < x+len(top)
						switch {
						case inside:
							want = top[c-x]
						case top != nil && c == x-1 && base[c] != "" && ansi.StringWidth(base[c]) == 2:
							want = " " // a wide rune cut by the left edge
						case top != nil && c == x+len(top) && base[c] == "":
							want = " " // the second half of one cut by the right edge
						}
						if got[c] != want {
							t.Fatalf("row %d cell %d is %q, want %q (dialog at x %d..%d)\nbefore: %s\nafter:  %s",
								r, c, got[c], want, x, x+len(top)-1, before[r], after[r])
						}
					}
				}
			})
		}
	}
}

// TestSpliceKeepsStylesAndEndsLinks: the cells right of an overlay keep
// their colour; the overlay itself is neither coloured nor linked by what
// it covers.
func TestSpliceKeepsStylesAndEndsLinks(t *testing.T) {
	b := "\x1b]8;;https://example.com\x1b\\\x1b[31mabcdef\x1b[0m\x1b]8;;\x1b\\gh"
	got := splice(b, "XY", 2)
	if s := ansi.Strip(got); s != "abXYefgh" {
		t.Fatalf("splice = %q, want abXYefgh", s)
	}
	i := strings.Index(got, "XY")
	if !strings.HasSuffix(got[:i], resetStyle) {
		t.Fatalf("the overlay does not start from a reset style and link: %q", got)
	}
	right := got[strings.LastIndex(got, resetStyle)+len(resetStyle):]
	if !strings.Contains(right, "\x1b[31m") || strings.Index(right, "\x1b[31m") > strings.Index(right, "ef") {
		t.Fatalf("the cells right of the overlay lost their colour: %q", right)
	}
	// Past the end of b and over a wide rune's halves.
	if s := ansi.Strip(splice("ab", "XY", 4)); s != "ab  XY" {
		t.Fatalf("splice past the end = %q", s)
	}
	if s := ansi.Strip(splice("日本語", "XY", 1)); s != " XY 語" {
		t.Fatalf("splice into wide runes = %q, want \" XY 語\"", s)
	}
}
