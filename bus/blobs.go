package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// blobPrefix starts every payload reference.
const blobPrefix = "sha256:"

// writeBlob stores data under blobs/<sha256> and returns its reference.
// The file is written to a temporary name, synced and renamed, so a blob
// that exists is always complete; writing the same content again is free.
func (b *Bus) writeBlob(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:])
	ref := blobPrefix + name
	dir := filepath.Join(b.dir, blobsDir)
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Size() == int64(len(data)) {
		return ref, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write blob: %w", err)
	}
	f, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return "", fmt.Errorf("write blob: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write blob %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable; best effort where unsupported
		d.Close()
	}
	return ref, nil
}

// readBlob returns the content of ref and checks it against its hash.
func (b *Bus) readBlob(ref string) ([]byte, error) {
	name, ok := strings.CutPrefix(ref, blobPrefix)
	if !ok || len(name) != sha256.Size*2 || strings.ContainsAny(name, `/\.`) {
		return nil, fmt.Errorf("bad payload reference %q", ref)
	}
	path := filepath.Join(b.dir, blobsDir, name)
	// The file itself, never what a link planted there points to.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("blob %s is a symbolic link, not swarm's file: %w", name[:12], ErrCorrupt)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("blob %s is missing from %s: %w", name[:12], filepath.Join(b.dir, blobsDir), ErrCorrupt)
		}
		return nil, fmt.Errorf("read blob: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("blob %s is not a regular file: %w", name[:12], ErrCorrupt)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read blob: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != name {
		return nil, fmt.Errorf("blob %s does not hold what it was written with (its hash differs): %w", name[:12], ErrCorrupt)
	}
	return data, nil
}
