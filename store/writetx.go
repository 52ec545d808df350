package store

import (
	"context"
	"database/sql"
	"fmt"

	"gorm.io/gorm"
)

// WriteTx runs fn in a write transaction of a hot path. On SQLite it runs on the writer
// connection (openSQLiteOnce), on statements prepared once (stmtPool), and wakes the
// checkpointer after its commit.
func (s *handle) WriteTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	db := s.DB.WithContext(ctx)
	if s.stmts != nil {
		db = s.stmts.on(db)
	}
	err := db.Transaction(fn)
	if err == nil && s.checkpoints != nil {
		s.checkpoints.committed()
	}
	return err
}

// writeTxOnConn is WriteTx that also hands fn, on PostgreSQL, the connection its transaction
// runs on, so fn can send several statements in one round trip (pgx's pipelines, through
// conn.Raw); conn is nil on SQLite.
func (s *handle) writeTxOnConn(ctx context.Context, fn func(tx *gorm.DB, conn *sql.Conn) error) error {
	if s.Dialect == "sqlite" {
		return s.WriteTx(ctx, func(tx *gorm.DB) error { return fn(tx, nil) })
	}
	return s.DB.WithContext(ctx).Connection(func(c *gorm.DB) error {
		conn, ok := c.Statement.ConnPool.(*sql.Conn)
		if !ok {
			return fmt.Errorf("store: a connection of its own is %T", c.Statement.ConnPool)
		}
		return c.Transaction(func(tx *gorm.DB) error { return fn(tx, conn) })
	})
}

// insertRows inserts rows in a write transaction: in one statement on PostgreSQL (one round
// trip), one statement per row on SQLite. There a statement writing several rows inside a
// transaction journals every page it changes, so that it can be undone alone; in a profile of
// bench/fraudevaluate that journal was a quarter of the decisions' write transaction. A
// one-row statement needs none, and a failed one fails the whole transaction anyway.
func insertRows[T any](tx *gorm.DB, rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	if tx.Name() != "sqlite" || len(rows) == 1 {
		return tx.Create(rows).Error
	}
	for i := range rows {
		if err := tx.Create(&rows[i]).Error; err != nil {
			return err
		}
	}
	return nil
}
