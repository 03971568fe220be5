package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLargeBodyRoundTripsThroughBlob(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	body := strings.Repeat("0123456789abcdef", 1024) + "end" // 16 KiB + 3
	m := publish(t, b, Message{From: "alice", To: "bob", Body: body})
	sum := sha256.Sum256([]byte(body))
	name := hex.EncodeToString(sum[:])
	if m.PayloadRef != "sha256:"+name {
		t.Fatalf("PayloadRef = %q", m.PayloadRef)
	}
	path := filepath.Join(b.Dir(), "blobs", name)
	data, err := os.ReadFile(path)
	if err != nil || string(data) != body {
		t.Fatalf("blob file: %v", err)
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("blobs dir mode %v", fi.Mode().Perm())
	}
	var inline string
	if err := b.r.QueryRow(`SELECT body FROM messages WHERE id = ?`, m.ID).Scan(&inline); err != nil || inline != "" {
		t.Errorf("row body %d bytes, %v; want the body only in the blob", len(inline), err)
	}
	for name, read := range map[string]func() (Message, error){
		"Message": func() (Message, error) { return b.Message(ctx, m.ID) },
		"Pending": func() (Message, error) { p, err := b.Pending(ctx, "bob", 1); return p[0], err },
		"Inbox":   func() (Message, error) { p, err := b.Inbox(ctx, "bob", 1); return p[0], err },
		"Messages": func() (Message, error) {
			p, err := b.Messages(ctx, 0, 1)
			return p[0], err
		},
	} {
		got, err := read()
		if err != nil || got.Body != body {
			t.Errorf("%s: body of %d bytes, %v", name, len(got.Body), err)
		}
	}
	// The same body again reuses the blob; a 4 KiB body stays inline.
	publish(t, b, Message{From: "alice", To: "bob", Body: body})
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files in blobs/, want 1", len(entries))
	}
	small := publish(t, b, Message{From: "alice", To: "bob", Body: strings.Repeat("x", 4096)})
	if small.PayloadRef != "" {
		t.Errorf("4 KiB body went to a blob")
	}
}

func TestDamagedBlobIsReported(t *testing.T) {
	b := openTest(t)
	m := publish(t, b, Message{From: "alice", To: "human", Body: strings.Repeat("y", 5000)})
	path := filepath.Join(b.Dir(), "blobs", strings.TrimPrefix(m.PayloadRef, "sha256:"))
	if err := os.WriteFile(path, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := publish(t, b, Message{From: "alice", To: "human", Body: "unrelated"})
	// A damaged body costs that body only: the message is read, marked,
	// and so is every other one.
	check := func(what, want string) {
		t.Helper()
		got, err := b.Message(ctx, m.ID)
		if err != nil || got.Body != "" || !strings.Contains(got.BodyErr, want) || got.From != "alice" {
			t.Errorf("%s: %+v, %v", what, got, err)
		}
		all, err := b.Messages(ctx, 0, 10)
		if err != nil || len(all) != 2 || all[1].ID != other.ID || all[1].Body != "unrelated" {
			t.Errorf("%s: the log: %v, %v", what, all, err)
		}
	}
	check("tampered", "does not hold what it was written with")
	os.Remove(path)
	check("missing", "is missing from")
	if err := os.Symlink("/etc/passwd", path); err != nil {
		t.Fatal(err)
	}
	check("a link planted", "a symbolic link")
	os.Remove(path)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	check("a directory", "is not a regular file")
}
