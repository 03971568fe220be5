package bus

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// A statement is parsed by SQLite every time it is prepared, and
// database/sql prepares one for every call that runs SQL text: delivering a
// message spent a third of its CPU time parsing the same few statements.
// So the bus keeps each statement it runs prepared, once per connection,
// for the SQL text it runs. Lists go in as one JSON array argument
// (json_each), never as a text that grows with the list, so the texts are
// few; the cache is bounded all the same.

// maxCachedStmts bounds a cache; past it, statements are prepared per call
// as before. The bus runs a few dozen distinct statements.
const maxCachedStmts = 256

// stmtCache keeps statements prepared by prepare, by their SQL text.
//
// A statement of the read pool is prepared on a connection of the pool,
// so it is never prepared by a read transaction (which holds one of the
// pool's connections: with every connection held by a transaction that
// waits for another to prepare on, the bus would hang) nor while mu is
// held (a transaction waiting on mu holds its connection). A transaction
// runs a text the cache does not have as it is and leaves it pending;
// the next read prepares what is pending before it takes a connection.
type stmtCache struct {
	prepare func(ctx context.Context, query string) (*sql.Stmt, error)
	mu      sync.Mutex
	stmts   map[string]*sql.Stmt
	pending map[string]bool // texts run in a transaction, to prepare
}

// get returns the statement prepared for query, or nil when the caller is
// to run the text as it is: it is not to be cached, or the caller is a
// transaction (inTx) and it is not prepared yet.
func (c *stmtCache) get(ctx context.Context, query string, inTx bool) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.stmts[query]
	full := len(c.stmts)+len(c.pending) >= maxCachedStmts
	if !ok && inTx && !full {
		if c.pending == nil {
			c.pending = map[string]bool{}
		}
		c.pending[query] = true
	}
	c.mu.Unlock()
	if ok || inTx || full {
		return st
	}
	return c.prepareOne(ctx, query)
}

// preparePending prepares the texts transactions left pending. It is
// called where no connection of the pool is held.
func (c *stmtCache) preparePending(ctx context.Context) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	queries := make([]string, 0, len(c.pending))
	for q := range c.pending {
		queries = append(queries, q)
	}
	c.pending = nil
	c.mu.Unlock()
	for _, q := range queries {
		c.prepareOne(ctx, q)
	}
}

// prepareOne prepares query, without holding mu, and keeps it (or the
// statement another caller kept meanwhile); nil if it cannot be prepared
// (the caller's run of the text reports the error).
func (c *stmtCache) prepareOne(ctx context.Context, query string) *sql.Stmt {
	st, err := c.prepare(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.stmts[query]; ok {
		_ = st.Close()
		return kept
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st
}

// close closes the cached statements.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

// cachedQuerier runs SQL text through a stmtCache: on the writer's pinned
// connection (tx nil, q the connection), or inside a read transaction (the
// cache's statements are prepared on the read pool; tx binds them to the
// transaction's connection, where database/sql keeps them prepared).
type cachedQuerier struct {
	q     querier
	tx    *sql.Tx
	cache *stmtCache
}

func (c cachedQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	st := c.cache.get(ctx, query, c.tx != nil)
	if st != nil && c.tx != nil {
		st = c.tx.StmtContext(ctx, st)
	}
	return st
}

func (c cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.q.QueryContext(ctx, query, args...)
}

func (c cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.q.QueryRowContext(ctx, query, args...)
}

func (c cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.q.ExecContext(ctx, query, args...)
}
