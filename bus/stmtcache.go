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
type stmtCache struct {
	prepare func(ctx context.Context, query string) (*sql.Stmt, error)
	mu      sync.Mutex
	stmts   map[string]*sql.Stmt
}

// get returns the statement prepared for query, or nil when it is not to
// be cached (the caller runs the text as it is).
func (c *stmtCache) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil
	}
	st, err := c.prepare(ctx, query)
	if err != nil {
		return nil // the caller's run of the text reports the error
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
	st := c.cache.get(ctx, query)
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
