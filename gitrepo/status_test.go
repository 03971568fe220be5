package gitrepo

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDirty(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newTestRepo(t)
	r := openTestRepo(t, dir)
	if files, err := r.Dirty(ctx); err != nil || len(files) != 0 {
		t.Fatalf("clean repo: Dirty = %q, %v", files, err)
	}
	// Untracked files and .swarm/ (even without the exclude line) do not count.
	writeFile(t, filepath.Join(dir, "untracked.txt"), "u")
	writeFile(t, filepath.Join(dir, ".swarm", "bus.db"), "db")
	if files, err := r.Dirty(ctx); err != nil || len(files) != 0 {
		t.Fatalf("untracked only: Dirty = %q, %v", files, err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n")
	writeFile(t, filepath.Join(dir, "staged.txt"), "s")
	tgit(t, dir, "add", "staged.txt")
	tgit(t, dir, "mv", "b.txt", "renamed.txt")
	files, err := r.Dirty(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if want := []string{"a.txt", "renamed.txt", "staged.txt"}; !cmp.Equal(files, want) {
		t.Errorf("Dirty = %q, want %q", files, want)
	}
}
