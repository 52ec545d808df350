package store

import (
	"context"
	"reflect"

	"gorm.io/gorm"
)

// WriteTx runs fn in a write transaction of a hot path, in this process's write queue (inTurn),
// on prepared statements on SQLite (stmtPool).
func (s *handle) WriteTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.inTurn(ctx, func() error {
		db := s.DB.WithContext(ctx)
		if s.stmts != nil {
			db = s.stmts.on(db)
		}
		err := db.Transaction(fn)
		if err == nil && s.checkpoints != nil {
			s.checkpoints.committed()
		}
		return err
	})
}

// inTurn runs a write on SQLite after this process's earlier writes queued here. SQLite has one
// writer (transactions here begin IMMEDIATE); a connection that meets the lock waits in
// SQLite's busy handler, which sleeps in steps of up to 100 ms and misses the moment the lock
// is free. A block profile of bench/fraudevaluate showed decisions and their audit entries
// sleeping there hundreds of milliseconds while the lock was idle; queued in Go, the next
// writer starts as soon as the last ends. Other processes on the same file still meet the
// busy handler. On PostgreSQL (row locks) it runs fn at once.
func (s *handle) inTurn(ctx context.Context, fn func() error) error {
	if s.Dialect != "sqlite" || s.writer == nil {
		return fn()
	}
	select {
	case s.writer <- struct{}{}:
		defer func() { <-s.writer }()
	case <-ctx.Done():
		return ctx.Err()
	}
	return fn()
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
	pointers := reflect.TypeFor[T]().Kind() == reflect.Pointer
	for i := range rows {
		var row any = &rows[i]
		if pointers {
			row = rows[i]
		}
		if err := tx.Create(row).Error; err != nil {
			return err
		}
	}
	return nil
}
