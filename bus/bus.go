package bus

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Options configures Open.
type Options struct {
	// Dir is the bus directory (usually .swarm). It is created with mode
	// 0700 if missing; the database inside is created with mode 0600.
	Dir string
	// BusyTimeout is how long a write waits for another process's write
	// transaction to finish. Default 5 s.
	BusyTimeout time.Duration
	// PollInterval is the shortest time between two checks of a subscribed
	// Bus for writes made by other connections or processes; where the file
	// system gives no change notices, how often it checks (twice that once
	// the bus has been quiet for a while). Default 25 ms.
	PollInterval time.Duration
	// ReadConns is the size of the read connection pool. Default 4.
	ReadConns int
}

// Bus is an open bus database. Create it with Open and release it with Close.
type Bus struct {
	dir  string
	path string
	opts Options
	w    *sql.DB // the writer pool: one connection, pinned as wc
	r    *sql.DB // read pool
	st   statements

	// wmu serialises this Bus's writes on wc. Transactions are begun by
	// hand (BEGIN IMMEDIATE) rather than with database/sql's Tx, which
	// starts a goroutine per transaction and per query: measurable when a
	// publish takes 100 µs.
	wmu sync.Mutex
	wc  *sql.Conn

	// Statements kept prepared for the SQL text they run (stmtcache.go):
	// on wc, and on the read pool.
	wcache, rcache stmtCache

	mu       sync.Mutex
	closed   bool
	subs     map[chan struct{}]struct{}
	pollStop context.CancelFunc
	pollDone chan struct{}

	// The file this Bus opened (its device and inode), and, once bus.db
	// is found removed or replaced, why: see Lost.
	file     fileID
	lostOnce sync.Once
	lost     chan struct{}
}

// File and directory names inside the bus directory.
const (
	dbName   = "bus.db"
	blobsDir = "blobs"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations returns the schema migrations in order; the schema version of
// a database is the number of migrations applied to it.
func migrations() []string {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		panic(err) // the pattern is a constant
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			panic(err) // embedded at build time
		}
		out[i] = string(b)
	}
	return out
}

// schemaVersion is the schema version this build writes.
var schemaVersion = len(migrations())

// Open opens (creating if needed) the bus in opts.Dir, migrating an older
// schema. A database written by a newer swarm fails with ErrSchemaTooNew and
// a file that is not a SQLite database with ErrCorrupt.
func Open(opts Options) (*Bus, error) {
	if opts.Dir == "" {
		return nil, errors.New("open bus: no directory given")
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 25 * time.Millisecond
	}
	if opts.ReadConns <= 0 {
		opts.ReadConns = 4
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	path := filepath.Join(opts.Dir, dbName)
	if err := create(path, opts); err != nil {
		return nil, err
	}
	if emptyBus(path) {
		return nil, emptyErr(path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.BusyTimeout+5*time.Second)
	defer cancel()
	b, err := openFile(ctx, path, opts, "WAL")
	if err != nil {
		return nil, err
	}
	b.dir = opts.Dir
	// The file SQLite opened is the one at path now: a swarm learns when
	// that changes (Lost).
	if b.file, err = fileIDOf(path); err != nil {
		b.Close()
		return nil, fmt.Errorf("open bus: %w", err)
	}
	return b, nil
}

// openFile opens the existing database file at path, in the journal mode
// given, and migrates it; ctx bounds the waits for the file's locks.
func openFile(ctx context.Context, path string, opts Options, journal string) (*Bus, error) {
	// SQLite would create a missing file (0644): it must exist, private.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	f.Close()

	b := &Bus{dir: filepath.Dir(path), path: path, opts: opts, subs: map[chan struct{}]struct{}{}, lost: make(chan struct{})}
	// The journal mode is set once, below: a connection's own setting of
	// it would write into an empty file put in bus.db's place while it
	// opens (sameFileConnector); the mode is the file's and stays.
	settings := []string{
		"PRAGMA busy_timeout = " + strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10),
		"PRAGMA synchronous = NORMAL",
		"PRAGMA foreign_keys = 1",
		"PRAGMA temp_store = MEMORY",
		"PRAGMA cache_size = -32768",
	}
	if b.w, err = b.openPool(path+"?_txlock=immediate", settings); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	b.w.SetMaxOpenConns(1)
	b.w.SetMaxIdleConns(1)
	if b.r, err = b.openPool(path, slices.Concat(settings, []string{"PRAGMA query_only = 1"})); err != nil {
		b.w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	b.r.SetMaxOpenConns(opts.ReadConns)
	b.r.SetMaxIdleConns(opts.ReadConns)

	if _, err := b.w.ExecContext(ctx, "PRAGMA journal_mode="+journal); err != nil {
		b.w.Close()
		b.r.Close()
		return nil, b.openErr(err)
	}
	if err := b.migrate(ctx); err != nil {
		b.w.Close()
		b.r.Close()
		return nil, err
	}
	if b.wc, err = b.w.Conn(ctx); err != nil {
		b.w.Close()
		b.r.Close()
		return nil, b.openErr(err)
	}
	b.wcache.prepare = b.wc.PrepareContext
	b.rcache.prepare = b.r.PrepareContext
	if err := b.prepareStatements(ctx); err != nil {
		b.st.close(b.wc)
		b.wc.Close()
		b.w.Close()
		b.r.Close()
		return nil, b.openErr(err)
	}
	return b, nil
}

// create makes the bus at path when there is none, atomically: the
// schema is written to a file of its own, which then takes the name
// bus.db only if no other process made one meanwhile. Two processes that
// start on a fresh directory at once (two swarm up, up and send) never
// see each other's file half made; each opens the one that won.
func create(path string, opts Options) error {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil // there is one (or Open says why it cannot be read)
	}
	f, err := os.CreateTemp(filepath.Dir(path), dbName+".new-*") // 0600
	if err != nil {
		return fmt.Errorf("create the bus: %w", err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	// Made in WAL mode, as it is used: a switch of journal mode, when the
	// racers open it, would need the file to themselves. The last
	// connection's close moves the log into the file and removes it.
	// The new file is this process's alone: no lock to wait for, so no
	// deadline — on a loaded machine, writing the schema can take longer
	// than any wait for another process's lock should.
	b, err := openFile(context.Background(), tmp, opts, "WAL")
	if err != nil {
		return err
	}
	if err := b.Close(); err != nil {
		return fmt.Errorf("create the bus: %w", err)
	}
	if fi, err := os.Stat(tmp + "-wal"); err == nil && fi.Size() > 0 {
		os.Remove(tmp + "-wal")
		os.Remove(tmp + "-shm")
		return fmt.Errorf("create the bus: its schema was left in a write-ahead log (%s)", tmp+"-wal")
	}
	os.Remove(tmp + "-wal")
	os.Remove(tmp + "-shm")
	err = os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process made it first: that one is the bus
	}
	if err != nil {
		// A file system without hard links: a rename that never replaces.
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("create the bus %s: %w", path, err)
	}
	return nil
}

// emptyErr explains a bus.db of 0 bytes. swarm never makes one (create),
// but an older swarm makes its file before its schema: while another
// process has the file open, it is no advice to remove it.
func emptyErr(path string) error {
	if pids := holders(path); len(pids) > 0 {
		return fmt.Errorf("open %s: %w: the file is empty (0 bytes) and process %d has it open (a swarm creating it?): try again in a moment",
			path, ErrCorrupt, pids[0])
	}
	return fmt.Errorf("open %s: %w: the file is empty (0 bytes), not a bus; no process has it open: remove it and swarm makes a new one",
		path, ErrCorrupt)
}

// holders returns the processes (of those this user may look into) that
// have the file at path open.
func holders(path string) []int {
	want, err := os.Stat(path)
	if err != nil {
		return nil
	}
	procs, _ := os.ReadDir("/proc")
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		for _, fd := range fds {
			if st, err := os.Stat(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && os.SameFile(st, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// migrate brings the schema up to schemaVersion in one transaction.
func (b *Bus) migrate(ctx context.Context) error {
	migs := migrations()
	// Most opens find the schema current: a read says so without the
	// write lock that processes opening the bus at once would queue for.
	// (On the writer's connection: the first connection to a new file
	// puts it in WAL mode, which another open one would hold up.)
	var current string
	switch err := b.w.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&current); {
	case err == nil && current == strconv.Itoa(len(migs)):
		return nil
	case IsCorrupt(err):
		return b.openErr(err)
	}
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return b.openErr(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`); err != nil {
		return b.openErr(err)
	}
	version := 0
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return b.openErr(err)
	default:
		if version, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("open %s: schema version %q is not a number: %w", b.path, v, ErrCorrupt)
		}
	}
	if version > len(migs) {
		return fmt.Errorf("open %s: %w: the file has schema version %d, this swarm knows up to %d; upgrade swarm",
			b.path, ErrSchemaTooNew, version, len(migs))
	}
	if version == len(migs) {
		return nil
	}
	for i := version; i < len(migs); i++ {
		if _, err := tx.ExecContext(ctx, migs[i]); err != nil {
			return fmt.Errorf("open %s: migrate to schema version %d: %w", b.path, i+1, b.openErr(err))
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema_version', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(len(migs))); err != nil {
		return b.openErr(err)
	}
	if err := tx.Commit(); err != nil {
		return b.openErr(err)
	}
	return nil
}

// openErr turns SQLite's "not a database" and "malformed" codes into
// ErrCorrupt with the file name, so the user learns which file is bad.
func (b *Bus) openErr(err error) error {
	if IsCorrupt(err) {
		return fmt.Errorf("open %s: %w (%v)", b.path, ErrCorrupt, err)
	}
	if diskFull(b.dir, err) {
		return fmt.Errorf("open %s: the disk is full: even reading the bus needs room beside it (its shared-memory file); free some space (%v)", b.path, err)
	}
	return fmt.Errorf("open %s: %w", b.path, err)
}

// diskFull says whether err, SQLite's, is a write that failed because
// the file system holding dir has no room left: SQLite says only "disk
// I/O error" when its shared-memory file cannot grow.
func diskFull(dir string, err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL:
	default:
		return false
	}
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Bavail == 0
}

// IsCorrupt reports whether err is SQLite finding the database file
// damaged or not a database at all.
func IsCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return true
	}
	return false
}

// openPool is sql.Open of dsn, whose connections are used only on the
// file this Bus opened, and are given their settings once that is known.
// SQLite finds a database's write-ahead log by its name: a connection
// opened on a file put in bus.db's place would read this bus's log as
// that file's, and the last to close would write the log into it (a
// swarm whose bus.db was replaced wrote a database over the replacement
// as it stopped).
func (b *Bus) openPool(dsn string, settings []string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(sameFileConnector{c, b, settings}), nil
}

// sameFileConnector opens connections while the bus's file is the same.
// The file can be replaced between the check and the open, so it is
// checked again once open: opening reads no more than the file's header,
// while the settings' first statement reads the schema, through the log.
type sameFileConnector struct {
	driver.Connector
	b        *Bus
	settings []string // statements run on each new connection
}

func (c sameFileConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.b.check(); err != nil {
		return nil, err
	}
	if beforeConnect != nil {
		beforeConnect()
	}
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.b.check(); err != nil {
		conn.Close()
		return nil, err
	}
	exec := conn.(driver.ExecerContext)
	for _, s := range c.settings {
		if _, err := exec.ExecContext(ctx, s, nil); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// beforeConnect, when a test sets it, runs between a connection's check
// and its open.
var beforeConnect func()

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

func fileIDOf(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), st.Ino}, nil
}

// check learns whether bus.db is still the file this Bus opened. SQLite
// goes on writing to the file it opened whatever happens to its name: a
// bus.db removed (with its directory, say) or replaced would take every
// later write with it, unseen by any other process. Once it has changed,
// the Bus is lost for good: every write fails with the reason (ErrLost),
// and Lost is closed. It costs a stat; every write makes it first.
func (b *Bus) check() error {
	if b.file == (fileID{}) {
		return nil // the file being made (create)
	}
	select {
	case <-b.lost:
		return b.Err()
	default:
	}
	if now, err := fileIDOf(b.path); err == nil && now == b.file || err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil // still the same file, or cannot tell (the writes say)
	}
	b.lostOnce.Do(func() { close(b.lost) })
	return b.Err()
}

// Lost is closed once bus.db has been found removed or replaced (Err
// says which): what this Bus holds is no longer the bus other processes
// read, and a swarm running on it stops. Writes find it; so does a
// subscribed Bus's watcher, when the file system reports the change or
// at its next safety check.
func (b *Bus) Lost() <-chan struct{} { return b.lost }

// Err returns why the Bus is lost (ErrLost), or nil. It describes what
// is at bus.db's place now: a removal and a replacement are often two
// steps (a rename, then a new file), of which check may have seen one.
func (b *Bus) Err() error {
	select {
	case <-b.lost:
	default:
		return nil
	}
	now, err := fileIDOf(b.path)
	switch {
	case err == nil:
		return fmt.Errorf("%w: %s was replaced by another file (inode %d, now %d)", ErrLost, b.path, b.file.ino, now.ino)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s was removed or replaced (%v)", ErrLost, b.path, err)
	}
	if _, err := os.Stat(b.dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: its directory %s was removed", ErrLost, b.dir)
	}
	return fmt.Errorf("%w: %s was removed", ErrLost, b.path)
}

// WriteFile writes data to the file name under the bus directory
// ("messages/ID.txt", slash-separated) whole: to a temporary file, synced,
// then renamed; private to the user, its directory made if needed. It
// returns the file's path. A symbolic link on the way that leads out of
// the bus directory is refused: a directory of the bus replaced by a
// link must not take swarm's files elsewhere.
func (b *Bus) WriteFile(name string, data []byte) (string, error) {
	root, err := os.OpenRoot(b.dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if err := root.MkdirAll(path.Dir(name), 0o700); err != nil {
		return "", linkErr(err, path.Dir(name))
	}
	tmp := fmt.Sprintf("%s.tmp%d", name, rand.Uint64())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", linkErr(err, path.Dir(name))
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", linkErr(err, name)
	}
	if d, err := root.Open(path.Dir(name)); err == nil {
		_ = d.Sync() // make the rename durable; best effort where unsupported
		d.Close()
	}
	return filepath.Join(b.dir, filepath.FromSlash(name)), nil
}

// open opens the file name under the bus directory for reading, as
// WriteFile writes it: never through a link out of the bus directory,
// and never a link itself (ELOOP): swarm's files are files.
func (b *Bus) open(name string) (*os.File, error) {
	root, err := os.OpenRoot(b.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	return f, linkErr(err, name)
}

// errOutLink is a symbolic link out of the bus directory, refused.
var errOutLink = errors.New("a symbolic link out of the bus directory is on its way: refused")

// errLinkBlob is a blob that is a symbolic link itself, refused: swarm
// writes files.
var errLinkBlob = errors.New("a symbolic link where swarm's file should be: refused")

// linkErr says in words that name (or a directory on its way) is a link
// out of the bus directory, when err is os.Root's refusal of one.
func linkErr(err error, name string) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%s: %w", name, errOutLink)
	}
	return err
}

// Dir returns the bus directory.
func (b *Bus) Dir() string { return b.dir }

// Close stops the change poller and closes the database. Subscription
// channels are not closed; they simply receive nothing more.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	stop, done := b.pollStop, b.pollDone
	b.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	err := errors.Join(b.st.close(b.wc), b.wcache.close(), b.rcache.close(), b.wc.Close(), b.r.Close(), b.w.Close())
	b.wc = nil
	return err
}

// write runs fn in one IMMEDIATE transaction on the writer connection and
// wakes subscribers if fn reports a change and the commit succeeds. The
// statements ignore cancellation of ctx once the transaction has begun:
// they are short, and a transaction is either committed or rolled back
// as a whole, never abandoned half-way.
func (b *Bus) write(ctx context.Context, fn func(ctx context.Context, tx querier) (changed bool, err error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.wc == nil {
		return ErrClosed
	}
	if err := b.check(); err != nil {
		return err
	}
	if _, err := b.st.begin.ExecContext(ctx); err != nil {
		return err
	}
	finished := false
	defer func() {
		if !finished { // fn failed or panicked: leave the connection outside any transaction
			b.st.rollback.ExecContext(ctx)
		}
	}()
	changed, err := fn(ctx, cachedQuerier{q: b.wc, cache: &b.wcache})
	if err != nil {
		return err
	}
	if _, err := b.st.commit.ExecContext(ctx); err != nil {
		return err // the deferred ROLLBACK ends the transaction if COMMIT did not
	}
	finished = true
	if changed {
		b.notify()
	}
	return nil
}

// exec runs one write statement on its own; SQLite makes it atomic. The
// caller wakes subscribers if it changed something they care about.
func (b *Bus) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx = context.WithoutCancel(ctx)
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.wc == nil {
		return nil, ErrClosed
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	return cachedQuerier{q: b.wc, cache: &b.wcache}.ExecContext(ctx, query, args...)
}

// read runs fn in one read transaction so that its queries see one snapshot.
func (b *Bus) read(ctx context.Context, fn func(tx readTx) error) error {
	b.rcache.preparePending(ctx)
	tx, err := b.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(readTx{Tx: tx, c: cachedQuerier{q: tx, tx: tx, cache: &b.rcache}})
}

// readTx is a read transaction whose SQL text runs through the read pool's
// statement cache.
type readTx struct {
	*sql.Tx
	c cachedQuerier
}

func (t readTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.c.QueryContext(ctx, query, args...)
}

func (t readTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.c.QueryRowContext(ctx, query, args...)
}

// rq runs a read of its own through the read pool's statement cache.
func (b *Bus) rq() cachedQuerier { return cachedQuerier{q: b.r, cache: &b.rcache} }

// ms converts t to the Unix milliseconds stored in the database.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS converts stored Unix milliseconds back to a local time; zero stays
// the zero time.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// emptyBus reports whether path is an existing file of 0 bytes with no
// write-ahead log holding its content: a bus emptied by accident, which
// must not silently become a new one.
func emptyBus(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 0 {
		return false
	}
	wal, err := os.Stat(path + "-wal")
	return err != nil || wal.Size() == 0
}

// IsTransient reports whether a write failed for a reason that passes:
// another process holds the database (busy, locked), or the disk is full
// or failed for now. The same write may succeed later, unchanged.
func IsTransient(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PROTOCOL:
		return true
	}
	return false
}

// NewID returns a new message id (a UUIDv7): a caller that may publish a
// message more than once gives it its id first, so the bus stores it once.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}
