package store

import (
	"context"
	"database/sql"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"gorm.io/gorm"
)

// stmtPool is a gorm connection pool whose transactions run each statement on a handle SQLite
// parsed once per connection: database/sql keeps a prepared statement's handle on every
// connection that ran it. A CPU profile of bench/fraudevaluate had a quarter of each decision
// in SQLite's parser. (gorm's own PrepareStmt prepares inside the transaction, on a statement
// that dies with it, so it parses again in every transaction.)
//
// A statement met for the first time runs unprepared and is prepared in the background, outside
// the transaction: preparing takes a connection, and a transaction waiting for a second one of a
// small pool could wait for writers that wait for it. PostgreSQL needs none of this: pgx keeps
// its own prepared statements per connection.
type stmtPool struct {
	db    *sql.DB
	stmts *lru.Cache[string, *sql.Stmt]
	// preparing holds the statements being prepared, so that concurrent first uses start one.
	preparing sync.Map
}

// stmtPoolSize bounds the statements kept: the hot paths' shapes (a batch insert has one per size).
const stmtPoolSize = 1024

func newStmtPool(db *sql.DB) *stmtPool {
	// Closing an evicted statement waits for the transactions running it (database/sql).
	c, _ := lru.NewWithEvict(stmtPoolSize, func(_ string, st *sql.Stmt) { _ = st.Close() })
	return &stmtPool{db: db, stmts: c}
}

// on returns db running its transactions on p.
func (p *stmtPool) on(db *gorm.DB) *gorm.DB {
	db = db.Session(&gorm.Session{Context: db.Statement.Context}) // a Statement of its own
	db.Statement.ConnPool = p
	return db
}

// stmt returns the prepared statement of query, or nil when it is not prepared yet (and starts
// preparing it).
func (p *stmtPool) stmt(query string) *sql.Stmt {
	if st, ok := p.stmts.Get(query); ok {
		return st
	}
	if _, busy := p.preparing.LoadOrStore(query, struct{}{}); busy {
		return nil
	}
	go func() {
		defer p.preparing.Delete(query)
		if p.stmts.Contains(query) {
			return
		}
		st, err := p.db.PrepareContext(context.Background(), query)
		if err != nil {
			return // it runs unprepared, and its error shows there
		}
		if prev, ok, _ := p.stmts.PeekOrAdd(query, st); ok && prev != st {
			_ = st.Close()
		}
	}()
	return nil
}

func (p *stmtPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.db.PrepareContext(ctx, query)
}

func (p *stmtPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.db.ExecContext(ctx, query, args...)
}

func (p *stmtPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.db.QueryContext(ctx, query, args...)
}

func (p *stmtPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.db.QueryRowContext(ctx, query, args...)
}

// BeginTx starts a transaction whose statements run prepared.
func (p *stmtPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	tx, err := p.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &stmtTx{pool: p, tx: tx}, nil
}

// stmtTx is a transaction of a stmtPool.
type stmtTx struct {
	pool *stmtPool
	tx   *sql.Tx
	// bound holds the pool's statements bound to this transaction: a decision runs the same
	// one-row upsert some forty times.
	bound map[*sql.Stmt]*sql.Stmt
}

// prepared returns query's statement bound to the transaction, or nil when it is not prepared yet.
func (t *stmtTx) prepared(ctx context.Context, query string) *sql.Stmt {
	st := t.pool.stmt(query)
	if st == nil {
		return nil
	}
	if b, ok := t.bound[st]; ok {
		return b
	}
	if t.bound == nil {
		t.bound = map[*sql.Stmt]*sql.Stmt{}
	}
	b := t.tx.StmtContext(ctx, st)
	t.bound[st] = b
	return b
}

func (t *stmtTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, query)
}

func (t *stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.prepared(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t *stmtTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.prepared(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t *stmtTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t *stmtTx) Commit() error   { return t.tx.Commit() }
func (t *stmtTx) Rollback() error { return t.tx.Rollback() }

// hotReads returns db for a hot path's reads outside a transaction. On SQLite their statements
// are prepared once and kept (gorm's statement cache, which every session of the store shares);
// otherwise SQLite parses a read's SQL on every call, which in a CPU profile of
// bench/fraudevaluate was most of reading a decision's rule set and value lists. pgx keeps
// PostgreSQL's statements prepared already.
func hotReads(db *gorm.DB) *gorm.DB {
	if db.Name() != "sqlite" {
		return db
	}
	return db.Session(&gorm.Session{PrepareStmt: true})
}
