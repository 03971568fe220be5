package spawner

import (
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/s2"
)

// packedRing keeps records of a stream — byte strings of any length,
// each written once, the oldest dropped first — packed end to end in
// blocks. The scrollback's rows and the lines a replay is matched against
// are such streams: a busy pane adds thousands of records a second and
// reads them rarely (a pane scrolled back, a search, a replay). Kept as a
// Go string and a slice each, a row of ~75 characters took about 170
// bytes and was scanned by every garbage collection; packed, it takes its
// length and its bytes, and a block full of them is compressed (s2, about
// 3× on coloured log lines, 5× on an agent CLI's transcript, at several
// hundred MB/s) and holds no pointer.
//
// Records are read by index, oldest first; reading consecutive records
// decompresses each block once (the ring keeps the last block it
// decompressed, and where its last record read was).
type packedRing struct {
	blocks []*packedBlock // oldest first; the last one is open unless sealed
	skip   int            // records at the start of blocks[0] already dropped
	n      int            // records kept

	// What the last read left: the raw bytes of block cur (its own
	// bytes when it is the open block), and record idx of it found at
	// byte off.
	cur      *packedBlock
	raw      []byte
	idx, off int
	// decoded is where sealed blocks are decompressed to be read; it is
	// let go when the ring is next written, since most rings are read
	// rarely.
	decoded []byte
}

// packedBlock is a run of records, each its length (uvarint) and its
// bytes. An open block takes more records; a sealed one is s2-compressed
// unless that saved nothing.
type packedBlock struct {
	data       []byte
	count      int
	sealed     bool
	compressed bool
}

// packedBlockSize is the raw size at which a block is sealed: large
// enough to compress well, small enough to decompress for a row or two.
const packedBlockSize = 16 << 10

// blockBufs are the buffers of open blocks and of compression, shared by
// every ring: a block is open, and compressed, only for a moment of its
// life.
var blockBufs = sync.Pool{New: func() any { return new([]byte) }}

func getBuf(size int) []byte {
	b := *blockBufs.Get().(*[]byte)
	if cap(b) < size {
		b = make([]byte, 0, size)
	}
	return b[:0]
}

func putBuf(b []byte) {
	if cap(b) <= 2*packedBlockSize { // not the buffer of one huge record
		blockBufs.Put(&b)
	}
}

func (r *packedRing) len() int { return r.n }

// push adds a record.
func (r *packedRing) push(rec []byte) {
	b := r.open()
	b.data = binary.AppendUvarint(b.data, uint64(len(rec)))
	b.data = append(b.data, rec...)
	r.pushed(b)
}

// pushString adds a record.
func (r *packedRing) pushString(rec string) {
	b := r.open()
	b.data = binary.AppendUvarint(b.data, uint64(len(rec)))
	b.data = append(b.data, rec...)
	r.pushed(b)
}

// pushed notes a record appended to the open block b.
func (r *packedRing) pushed(b *packedBlock) {
	b.count++
	r.n++
	r.decoded = nil
	if r.cur == b {
		r.raw = b.data // the records read so far are where they were
	}
	if len(b.data) >= packedBlockSize {
		r.seal(b)
	}
}

// open returns the block records are added to.
func (r *packedRing) open() *packedBlock {
	if k := len(r.blocks); k > 0 && !r.blocks[k-1].sealed {
		b := r.blocks[k-1]
		if cap(b.data) < packedBlockSize { // idle let its room go
			if r.cur == b {
				r.cur = nil
			}
			b.data = append(getBuf(packedBlockSize+packedBlockSize/4), b.data...)
		}
		return b
	}
	b := &packedBlock{data: getBuf(packedBlockSize + packedBlockSize/4)}
	r.blocks = append(r.blocks, b)
	return b
}

// idle gives back the room of the open block, for a stream that paused:
// the block is opened with room for a whole one (20 KB from blockBufs),
// and a pane that printed a few lines and went quiet held it, in each of
// its two rings (its scrollback, its replay's lines), for as long as it
// stayed quiet: 2 MB over 100 idle shells. Its records are copied into
// storage of their size; the next push takes room again (open).
func (r *packedRing) idle() {
	k := len(r.blocks)
	if k == 0 || r.blocks[k-1].sealed {
		return
	}
	b := r.blocks[k-1]
	if cap(b.data) < packedBlockSize {
		return
	}
	if r.cur == b {
		r.cur = nil
	}
	old := b.data
	b.data = append(make([]byte, 0, len(old)), old...)
	putBuf(old)
}

// seal compresses a full block into a buffer of its own size.
func (r *packedRing) seal(b *packedBlock) {
	if r.cur == b {
		r.cur = nil
	}
	b.sealed = true
	raw := b.data
	enc := s2.Encode(getBuf(s2.MaxEncodedLen(len(raw)))[:s2.MaxEncodedLen(len(raw))], raw)
	if len(enc) < len(raw)*7/8 {
		b.data, b.compressed = append([]byte(nil), enc...), true
	} else {
		b.data = append([]byte(nil), raw...)
	}
	putBuf(enc)
	putBuf(raw)
}

// dropOldest forgets the oldest record.
func (r *packedRing) dropOldest() {
	r.skip++
	r.n--
	if first := r.blocks[0]; r.skip >= first.count {
		if r.cur == first {
			r.cur = nil
		}
		r.blocks[0] = nil
		r.blocks = r.blocks[1:]
		r.skip = 0
	}
}

// clear forgets every record.
func (r *packedRing) clear() {
	for _, b := range r.blocks {
		if !b.sealed {
			putBuf(b.data)
		}
	}
	r.blocks, r.skip, r.n, r.cur, r.decoded = nil, 0, 0, nil, nil
}

// at returns record i (0 the oldest), valid until the ring is next
// changed or read.
func (r *packedRing) at(i int) []byte {
	i += r.skip
	k := 0
	for ; k < len(r.blocks) && i >= r.blocks[k].count; k++ {
		i -= r.blocks[k].count
	}
	b := r.blocks[k]
	if r.cur != b || r.idx > i {
		r.load(b)
	}
	for ; r.idx < i; r.idx++ {
		n, w := binary.Uvarint(r.raw[r.off:])
		r.off += w + int(n)
	}
	n, w := binary.Uvarint(r.raw[r.off:])
	return r.raw[r.off+w : r.off+w+int(n)]
}

// load makes b the block reads start from, at its first record.
func (r *packedRing) load(b *packedBlock) {
	r.cur, r.idx, r.off = b, 0, 0
	if !b.compressed {
		r.raw = b.data
		return
	}
	n, err := s2.DecodedLen(b.data)
	if err == nil {
		if cap(r.decoded) < n {
			r.decoded = make([]byte, n)
		}
		r.raw, err = s2.Decode(r.decoded[:n], b.data)
	}
	if err != nil { // the ring wrote it: not reached
		panic("spawner: a packed block does not decompress: " + err.Error())
	}
}

// truncate removes the newest n records.
func (r *packedRing) truncate(n int) {
	n = min(n, r.n)
	r.cur = nil
	for n > 0 {
		last := r.blocks[len(r.blocks)-1]
		kept := last.count
		if len(r.blocks) == 1 {
			kept -= r.skip
		}
		if n >= kept {
			if !last.sealed {
				putBuf(last.data)
			}
			r.blocks = r.blocks[:len(r.blocks)-1]
			r.n -= kept
			n -= kept
			if len(r.blocks) == 0 {
				r.skip = 0
			}
			continue
		}
		// Reopen the block and cut it after its first count-n records.
		r.load(last)
		raw := append([]byte(nil), r.raw...)
		off := 0
		for range last.count - n {
			l, w := binary.Uvarint(raw[off:])
			off += w + int(l)
		}
		last.data, last.count, last.sealed, last.compressed = raw[:off], last.count-n, false, false
		r.cur = nil
		r.n -= n
		n = 0
	}
}

// bytes is what the ring holds in memory, for tests and benchmarks.
func (r *packedRing) bytes() int {
	n := cap(r.decoded)
	for _, b := range r.blocks {
		n += cap(b.data)
	}
	return n
}
