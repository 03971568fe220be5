package bus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportedSeqs reads an export file and returns the seq of every line.
func exportedSeqs(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seqs []int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r, err := DecodeRecord(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", len(seqs)+1, err)
		}
		seqs = append(seqs, r.Seq)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return seqs
}

func checkContiguous(t *testing.T, seqs []int64, n int) {
	t.Helper()
	if len(seqs) != n {
		t.Fatalf("%d lines, want %d", len(seqs), n)
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("line %d has seq %d: duplicate or gap", i+1, s)
		}
	}
}

func TestExportAppendsNewMessages(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	path := filepath.Join(t.TempDir(), "log.jsonl")
	for i := range 5 {
		publish(t, b, Message{From: "alice", To: "bob", Body: fmt.Sprintf("m%d", i), Data: json.RawMessage(`{"n":1}`), Topic: "t"})
	}
	n, err := b.Export(ctx, path)
	if err != nil || n != 5 {
		t.Fatalf("first export: %d, %v", n, err)
	}
	if n, err := b.Export(ctx, path); err != nil || n != 0 {
		t.Fatalf("export with nothing new: %d, %v", n, err)
	}
	for i := 5; i < 8; i++ {
		publish(t, b, Message{From: "alice", To: "bob", Body: fmt.Sprintf("m%d", i)})
	}
	if n, err := b.Export(ctx, path); err != nil || n != 3 {
		t.Fatalf("second export: %d, %v", n, err)
	}
	checkContiguous(t, exportedSeqs(t, path), 8)
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("export file mode %v", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var obj map[string]any
	if err := json.Unmarshal(first, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "seq", "ts", "from", "to", "kind", "body", "state", "topic", "data", "deliveries"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("exported line lacks %q: %s", k, first)
		}
	}
}

func TestExportResumesAfterTornWrite(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	path := filepath.Join(t.TempDir(), "log.jsonl")
	for i := range 10 {
		publish(t, b, Message{From: "alice", To: "bob", Body: fmt.Sprintf("m%d\nsecond line", i)})
	}
	if _, err := b.Export(ctx, path); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(full), "\n")
	for cut := range []int{0, 1, 2} {
		t.Run(fmt.Sprint("torn after line ", 6+cut), func(t *testing.T) {
			// Simulate a crash part-way through writing line 7+cut: the
			// lines before it are complete, the last one is half there.
			keep := strings.Join(lines[:6+cut], "")
			torn := lines[6+cut][:len(lines[6+cut])/2]
			if err := os.WriteFile(path, []byte(keep+torn), 0o600); err != nil {
				t.Fatal(err)
			}
			n, err := b.Export(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if n != 10-(6+cut) {
				t.Errorf("resumed export wrote %d, want %d", n, 10-(6+cut))
			}
			checkContiguous(t, exportedSeqs(t, path), 10)
		})
	}
	t.Run("torn first line", func(t *testing.T) {
		os.WriteFile(path, []byte(`{"id":"x","se`), 0o600)
		if n, err := b.Export(ctx, path); err != nil || n != 10 {
			t.Fatalf("%d, %v", n, err)
		}
		checkContiguous(t, exportedSeqs(t, path), 10)
	})
}

func TestExportRefusesForeignFile(t *testing.T) {
	b := openTest(t)
	publish(t, b, Message{From: "alice", To: "human", Body: "x"})
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("my shopping list\n"), 0o600)
	_, err := b.Export(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "not a swarm export record") {
		t.Errorf("export into a foreign file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "my shopping list\n" {
		t.Errorf("foreign file changed: %q", data)
	}
}

func TestExportLongFileTail(t *testing.T) {
	// The last line is found by reading backwards in chunks; make the
	// file larger than one chunk and lines longer than one chunk too.
	b := openTest(t)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	publish(t, b, Message{From: "alice", To: "human", Body: strings.Repeat("a", 100<<10)})
	publish(t, b, Message{From: "alice", To: "human", Body: strings.Repeat("b", 100<<10)})
	if _, err := b.Export(ctx, path); err != nil {
		t.Fatal(err)
	}
	publish(t, b, Message{From: "alice", To: "human", Body: "c"})
	if n, err := b.Export(ctx, path); err != nil || n != 1 {
		t.Fatalf("%d, %v", n, err)
	}
	checkContiguous(t, exportedSeqs(t, path), 3)
}
