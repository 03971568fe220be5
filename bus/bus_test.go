package bus

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestOpenCreatesPrivateDirAndFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".swarm")
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	register(t, b, "bob")
	publish(t, b, Message{From: "human", To: "bob", Body: "x"})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", b.Dir(), dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("%s mode = %v, want 0700", dir, got)
	}
	fi, err = os.Stat(filepath.Join(dir, "bus.db"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("bus.db mode = %v, want 0600", got)
	}
}

func TestOpenWALFilesArePrivate(t *testing.T) {
	b := openTest(t)
	register(t, b, "bob")
	publish(t, b, Message{From: "human", To: "bob", Body: "x"})
	for _, name := range []string{"bus.db-wal", "bus.db-shm"} {
		fi, err := os.Stat(filepath.Join(b.Dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("%s mode = %v, want 0600", name, got)
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	register(t, b, "bob")
	m := publish(t, b, Message{From: "human", To: "bob", Body: "persist"})
	b.Close()
	b2, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	got, err := b2.Message(context.Background(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Body != "persist" || got.Seq != m.Seq {
		t.Errorf("after reopen got %+v", got)
	}
}

func setSchemaVersion(t *testing.T, dir, v string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "bus.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, v); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	setSchemaVersion(t, dir, "99")
	_, err = Open(Options{Dir: dir})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
	msg := err.Error()
	for _, want := range []string{"bus.db", "schema version 99", "upgrade swarm"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
}

func TestOpenRejectsCorruptFile(t *testing.T) {
	for name, content := range map[string][]byte{
		"garbage":          []byte(strings.Repeat("this is not a database\n", 200)),
		"truncated header": []byte("SQLite format 3\x00\x10\x00\x02\x02"),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "bus.db"), content, 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := Open(Options{Dir: dir})
			if err == nil {
				b.Close()
				t.Fatal("Open succeeded on a corrupt file")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open = %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "bus.db")) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error should be one line naming the file: %q", err)
			}
		})
	}
}

func TestOpenMigratesEmptyDatabase(t *testing.T) {
	// A SQLite file with no swarm tables (schema version 0) is migrated.
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "bus.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE unrelated (x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var v string
	if err := b.r.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != strconv.Itoa(len(migrations())) || schemaVersion != len(migrations()) {
		t.Errorf("schema version = %s (schemaVersion %d), want %d", v, schemaVersion, len(migrations()))
	}
	register(t, b, "bob")
	publish(t, b, Message{From: "human", To: "bob", Body: "works"})
}

func TestCloseIsIdempotent(t *testing.T) {
	b, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(context.Background(), Message{From: "human", To: "human", Body: "x"}); err == nil {
		t.Error("Publish after Close succeeded")
	}
}

func TestOpenMigratesAVersionOneBus(t *testing.T) {
	// A bus written by a swarm of schema version 1, with an agent and a
	// message for it, opens with everything kept; the agent takes messages.
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "bus.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
		migrations()[0],
		`INSERT INTO meta VALUES ('schema_version', '1')`,
		`INSERT INTO agents (name, cmd, state, updated_ms) VALUES ('bob', 'sh', 'running', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := b.Agent(ctx, "bob")
	if err != nil || a.Cmd != "sh" || a.NoMessages {
		t.Fatalf("bob after the migration: %+v, %v", a, err)
	}
	if m := publish(t, b, Message{From: "human", To: "bob", Body: "hi"}); m.Deliveries[0].State != DeliveryQueued {
		t.Errorf("delivery to bob: %+v", m.Deliveries[0])
	}
}
