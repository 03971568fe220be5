package bus

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// Subscribe returns a channel that receives a value after the bus changes,
// and a function that ends the subscription. The channel has capacity 1 and
// wake-ups coalesce: one receive may stand for many writes, so a consumer
// re-reads what it needs (Pending, Messages after its last seq) on each
// wake-up. Writes through this Bus wake at once; writes by other
// connections or processes are noticed by polling PRAGMA data_version on a
// dedicated connection: within Options.PollInterval while the bus is busy,
// within twice that once it has been quiet for idleAfter (an idle swarm
// should cost next to nothing). The poller starts with the first
// subscription and stops on Close.
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
	t := time.NewTimer(b.opts.PollInterval)
	defer t.Stop()
	lastChange := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(lastChange) < idleAfter {
			t.Reset(b.opts.PollInterval)
		} else {
			t.Reset(2 * b.opts.PollInterval)
		}
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
