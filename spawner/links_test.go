package spawner

import (
	"strings"
	"testing"
)

// A program's hyperlinks reach the person's terminal only when they are
// plainly web, file or mail addresses of printable ASCII with plain
// parameters; the text of any other is shown without its link.
func TestOnlyPlainHyperlinksAreShown(t *testing.T) {
	link := func(params, url, text string) string {
		return "\x1b]8;" + params + ";" + url + "\x1b\\" + text + "\x1b]8;;\x1b\\\r\n"
	}
	shown := []struct{ params, url string }{
		{"", "https://example.com/a?b=c&d=%20"},
		{"id=x1", "file:///home/u/project/main.go"},
		{"", "mailto:someone@example.com"},
		{"", "HTTP://EXAMPLE.COM/"},
	}
	dropped := []struct{ params, url string }{
		{"", "javascript:alert(1)"},
		{"", "ssh://example.com"},
		{"", "https://example.com/a b"},              // a blank
		{"", "https://example.com/\u00e9"},           // not ASCII
		{"", "https://example.com/\x7f"},             // DEL
		{"x;y", "https://example.com/"},              // a parameter that would end the parameters
		{"", "https://" + strings.Repeat("a", 2100)}, // too long
		{"", "no-scheme"},
	}
	var out strings.Builder
	for i, l := range append(shown, dropped...) {
		out.WriteString(link(l.params, l.url, "text"+string(rune('A'+i))))
	}
	s := NewScreen(ScreenOptions{Rows: 20, Cols: 200, Scrollback: 100})
	defer s.Close()
	if _, err := s.Write([]byte(out.String())); err != nil {
		t.Fatal(err)
	}
	got := s.Render(0)
	for _, l := range shown {
		if !strings.Contains(got, "\x1b]8;"+l.params+";"+l.url) {
			t.Errorf("the link to %q is not shown:\n%q", l.url, got)
		}
	}
	for i, l := range dropped {
		if strings.Contains(got, "\x1b]8;"+l.params+";"+l.url[:min(len(l.url), 40)]) {
			t.Errorf("the link to %.60q is shown:\n%q", l.url, got)
		}
		if text := "text" + string(rune('A'+len(shown)+i)); !strings.Contains(got, text) {
			t.Errorf("the text of the link to %.60q is gone", l.url)
		}
	}
	if closed, all := strings.Count(got, "\x1b]8;;\a"), strings.Count(got, "\x1b]8;"); all != 2*closed || closed != len(shown) {
		t.Errorf("%d links opened, %d closed, want %d:\n%q", all-closed, closed, len(shown), got)
	}
}
