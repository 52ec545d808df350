package store

import (
	"context"

	"gorm.io/gorm"
)

// WriteTx runs fn in a write transaction of a hot path. On SQLite, which has one writer and
// whose transactions here begin IMMEDIATE, the transactions of this process wait their turn in
// a Go queue before BEGIN: a connection blocked in SQLite's busy handler sleeps in steps of up
// to 100 ms and misses the moment the lock is free (a profile of bench/fraudevaluate: decisions
// waiting hundreds of milliseconds on an idle lock). Other processes on the same file still
// meet the busy handler. On PostgreSQL it is Tx.
func (s *handle) WriteTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	if s.Dialect == "sqlite" && s.writer != nil {
		select {
		case s.writer <- struct{}{}:
			defer func() { <-s.writer }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.Tx(ctx, fn)
}
