package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommonInOrder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, got []string
		n         int
	}{
		{nil, nil, 0},
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}, 3},
		{[]string{"a", "b", "c"}, []string{"a", "x", "c"}, 2},
		{[]string{"a", "a"}, []string{"a"}, 1},
		{[]string{"a", "b"}, []string{"b", "a"}, 1},
		{[]string{"a"}, []string{"x", "y", "a", "z"}, 1},
	} {
		if n := commonInOrder(c.want, c.got); n != c.n {
			t.Errorf("commonInOrder(%q, %q) = %d, want %d", c.want, c.got, n, c.n)
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	diff(&b, []string{"a", "b", "c"}, []string{"a", "x", "c", "d"})
	want := "  + x\n  - b\n  + d\n"
	if b.String() != want {
		t.Fatalf("got:\n%swant:\n%s", b.String(), want)
	}
}

// TestScore scores a real recording against .want files that are right,
// miss a command and expect one more than was printed.
func TestScore(t *testing.T) {
	t.Parallel()
	const src = "../../testdata/cli/opencode-80x24"
	cast, err := os.ReadFile(src + ".cast")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(src + ".want")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(want)), "\n")
	dir := t.TempDir()
	write := func(name, want, meta string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name+".cast"), cast, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".want"), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if meta != "" {
			if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(meta), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("right", string(want), `{"config": "opencode", "kind": "opencode"}`)
	// The first command left out of the .want: found but not expected.
	write("short", strings.Join(lines[1:], ""), `{"config": "opencode", "kind": "opencode"}`)
	// The same, listed as unsure: neither expected nor extra.
	write("unsure", strings.Join(lines[1:], ""), `{"config": "opencode", "kind": "opencode", "unsure": [`+strings.TrimSpace(lines[0])+`]}`)
	// Expected, and listed as unsure too (the CLI showed it whole once and
	// in part once): the one found is the expected one.
	write("both", string(want), `{"config": "opencode", "kind": "opencode", "unsure": [`+strings.TrimSpace(lines[0])+`]}`)
	// A command that was never printed: expected and not found.
	write("opencode-more", string(want)+`{"kind":"relay","to":"bob","type":"message","body":"never printed"}`+"\n", "")

	files, err := recordings(dir)
	if err != nil || len(files) != 5 {
		t.Fatalf("recordings: %v %v", files, err)
	}
	byName := map[string]result{}
	for _, f := range files {
		r := score(f, true)
		if r.err != nil {
			t.Fatal(r.err)
		}
		byName[r.name] = r
	}
	n := len(lines)
	check := func(name string, exact bool, found, wantN, extra, unsure int) {
		t.Helper()
		r := byName[name]
		if r.exact() != exact || r.found != found || len(r.want) != wantN || r.extra() != extra || r.unsure != unsure {
			t.Errorf("%s: exact %v found %d of %d extra %d unsure %d; want %v %d of %d, %d, %d",
				name, r.exact(), r.found, len(r.want), r.extra(), r.unsure, exact, found, wantN, extra, unsure)
		}
	}
	if !byName["right"].rawExact {
		t.Errorf("right: not exact raw up to the first resize")
	}
	check("right", true, n, n, 0, 0)
	check("short", false, n-1, n-1, 1, 0)
	check("unsure", true, n-1, n-1, 0, 1)
	check("both", true, n, n, 0, 0)
	check("opencode-more", false, n, n+1, 0, 0)
	if byName["opencode-more"].config != "opencode" {
		t.Errorf("config from the name: %q", byName["opencode-more"].config)
	}

	var out bytes.Buffer
	report(&out, []result{byName["right"], byName["short"]}, false)
	if !strings.Contains(out.String(), "total") || !strings.Contains(out.String(), "1/2") {
		t.Errorf("report:\n%s", out.String())
	}
}
