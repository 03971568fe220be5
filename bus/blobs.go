package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	if f, err := b.open(blobsDir + "/" + name); err == nil {
		fi, err := f.Stat()
		f.Close()
		if err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
			return ref, nil
		}
	}
	if _, err := b.WriteFile(blobsDir+"/"+name, data); err != nil {
		return "", fmt.Errorf("write blob %s: %w", name, err)
	}
	return ref, nil
}

// readBlob returns the content of ref and checks it against its hash.
func (b *Bus) readBlob(ref string) ([]byte, error) {
	name, ok := strings.CutPrefix(ref, blobPrefix)
	if !ok || len(name) != sha256.Size*2 || strings.ContainsAny(name, `/\.`) {
		return nil, fmt.Errorf("bad payload reference %q", ref)
	}
	// Never through a link planted there that leads out of the bus
	// directory (and the content must match its hash: read below).
	f, err := b.open(blobsDir + "/" + name)
	if err != nil {
		// Refused, not damaged: the body is read once the link is gone.
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("blob %s: %w", name[:12], errLinkBlob)
		}
		if errors.Is(err, errOutLink) {
			return nil, fmt.Errorf("blob %s: %w", name[:12], err)
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
