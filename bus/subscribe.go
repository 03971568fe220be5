package bus

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Subscribe returns a channel that receives a value after the bus changes,
// and a function that ends the subscription. The channel has capacity 1 and
// wake-ups coalesce: one receive may stand for many writes, so a consumer
// re-reads what it needs (Pending, Messages after its last seq) on each
// wake-up. Writes through this Bus wake at once; writes by other
// connections or processes are noticed by a watcher: when the file system
// says bus.db or its write-ahead log changed (inotify, through fsnotify),
// it reads PRAGMA data_version on a dedicated connection, at most once per
// Options.PollInterval, and wakes the subscribers if it moved. An idle
// swarm does no work beyond a check every safetyCheck, for a notice that
// never came. Where the file system gives no notices the watcher polls,
// every PollInterval while the bus is busy and twice that once it has been
// quiet for idleAfter. The watcher starts with the first subscription and
// stops on Close.
func (b *Bus) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ch, func() {}
	}
	b.subs[ch] = struct{}{}
	if b.pollDone == nil {
		b.startPoller()
	}
	return ch, sync.OnceFunc(func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	})
}

// idleAfter is how long without a change makes the poller slow down.
const idleAfter = 2 * time.Second

// notify wakes every subscriber without blocking.
func (b *Bus) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// startPoller starts the data_version poller; b.mu is held. The baseline
// version is read before returning so that a write made right after
// Subscribe returns is not mistaken for the baseline.
func (b *Bus) startPoller() {
	ctx, cancel := context.WithCancel(context.Background())
	b.pollStop, b.pollDone = cancel, make(chan struct{})
	conn, version, err := b.pollConn(ctx)
	go b.poll(ctx, conn, version, err == nil)
}

// pollConn pins a read connection for data_version: the value only changes
// for commits made by other connections, so it must stay the same one.
func (b *Bus) pollConn(ctx context.Context) (*sql.Conn, int64, error) {
	conn, err := b.r.Conn(ctx)
	if err != nil {
		return nil, 0, err
	}
	var v int64
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		conn.Close()
		return nil, 0, err
	}
	return conn, v, nil
}

func (b *Bus) poll(ctx context.Context, conn *sql.Conn, last int64, ok bool) {
	defer close(b.pollDone)
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	changes, moved, stopWatch := b.watchFiles()
	defer stopWatch()
	lastChange, lastCheck := time.Now(), time.Time{}
	wait := func() time.Duration {
		switch {
		case changes != nil:
			return safetyCheck
		case time.Since(lastChange) < idleAfter:
			return b.opts.PollInterval
		}
		return 2 * b.opts.PollInterval
	}
	t := time.NewTimer(wait())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-moved:
			_ = b.check()
			continue
		case <-changes:
			// A busy writer changes the files many times a second: check
			// at most once per PollInterval, the rest at the end of it.
			if early := b.opts.PollInterval - time.Since(lastCheck); early > 0 {
				t.Reset(early)
				continue
			}
		case <-t.C:
		}
		t.Reset(wait())
		lastCheck = time.Now()
		_ = b.check() // a removal or replacement whose notice was lost
		if !ok {
			// The baseline could not be read; once a connection works,
			// wake everyone once since a change may have been missed.
			var err error
			if conn, last, err = b.pollConn(ctx); err != nil {
				continue
			}
			ok = true
			b.notify()
			continue
		}
		var v int64
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			continue
		}
		if v != last {
			last, lastChange = v, time.Now()
			b.notify()
		}
	}
}

// safetyCheck is how often the watcher reads data_version when the file
// system reports no change: a notice lost to an overflowing queue costs at
// most this much delay.
const safetyCheck = 5 * time.Second

// watchFiles returns a channel that receives when bus.db or its
// write-ahead log is written or replaced, one that receives when bus.db
// or the directory is removed or renamed (see check), and a function that
// stops the watch. The channels are nil when the file system gives no
// notices.
func (b *Bus) watchFiles() (changes, moved <-chan struct{}, stop func()) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, func() {}
	}
	if err := w.Add(b.dir); err != nil {
		w.Close()
		return nil, nil, func() {}
	}
	changed, gone := make(chan struct{}, 1), make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev, open := <-w.Events:
				if !open {
					return
				}
				name := filepath.Base(ev.Name)
				if (name == dbName || filepath.Clean(ev.Name) == filepath.Clean(b.dir)) && ev.Has(fsnotify.Remove|fsnotify.Rename|fsnotify.Create) {
					select {
					case gone <- struct{}{}:
					default:
					}
				}
				if (name == dbName || name == dbName+"-wal") && ev.Has(fsnotify.Write|fsnotify.Create) {
					select {
					case changed <- struct{}{}:
					default:
					}
				}
			case _, open := <-w.Errors:
				if !open {
					return
				}
				// The queue overflowed: something may have changed.
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	return changed, gone, func() {
		w.Close()
		<-done
	}
}
