package wantfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"swarm/parser"
)

// found parses lines as swarm's extraction commits them.
func found(lines ...string) []parser.Event {
	p := parser.New(parser.Options{})
	var evs []parser.Event
	for i, l := range lines {
		evs = append(evs, p.Feed(int64(i+1), l)...)
	}
	return evs
}

// TestWithoutUnsure: a command found where the screen showed one a reader
// may not have read is counted apart, once per unsure command; an
// expected one stays expected even when it starts as an unsure one does;
// anything else found is left for the caller to count as extra. Blanks a
// CLI added to what it printed do not hide an unsure command.
func TestWithoutUnsure(t *testing.T) {
	want := []string{Command{Kind: "relay", To: "bob", Type: "message", Body: "hello there"}.String()}
	unsure := []Command{
		{Kind: "relay", To: "alice", Body: "shown only for a moment while the output scrolled"},
		{Kind: "relay", To: "bob", Body: "hello there and more of it"},
		{Kind: "relay", To: "dave", Body: "かな测试 as it was printed"},
	}
	evs := found(
		"@relay:alice shown only for a moment while the",
		"@relay:bob hello there",
		"@relay:alice shown only for a moment while the output scrolled",
		"@relay:carol never printed",
		"@relay:dave か な 测 试  as it was printed, drawn with a blank after each wide character",
	)
	got, n := WithoutUnsure(want, evs, unsure)
	wantGot := []string{
		want[0],
		`relay alice message "shown only for a moment while the output scrolled"`,
		`relay carol message "never printed"`,
	}
	if n != 2 || !slices.Equal(got, wantGot) {
		t.Errorf("got %q, %d unsure; want %q, 2", got, n, wantGot)
	}
}

// TestRead: NAME.want and NAME.json as the generator writes them.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "x.want")
	if err := os.WriteFile(want, []byte(`{"kind": "relay", "to": "bob", "type": "message", "body": "hi", "topic": "t1"}`+"\n\n"+
		`{"kind": "thinking", "to": "*", "type": "message", "body": "a\nb", "after_resize": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, err := Read(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[0].String() != `relay bob message "hi" topic=t1` || !cmds[1].AfterResize || cmds[0].AfterResize {
		t.Errorf("Read: %+v", cmds)
	}
	if err := os.WriteFile(want, []byte("{\"kind\": \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(want); err == nil {
		t.Error("Read of a broken line: no error")
	}
	meta := filepath.Join(dir, "x.json")
	if err := os.WriteFile(meta, []byte(`{"config": "codex-inline", "kind": "codex", "unsure": [{"kind": "relay", "to": "bob", "body": "cut", "shown": "between captures"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMeta(meta)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config != "codex-inline" || m.Kind != "codex" || len(m.Unsure) != 1 || m.Unsure[0].Body != "cut" {
		t.Errorf("ReadMeta: %+v", m)
	}
}
