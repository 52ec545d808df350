package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteFileLocker serialises SQLite migrators, in one process or several: each holds an
// exclusive transaction on a small lock database next to the data file while it migrates. The
// lock cannot be taken on the data file itself (the migrator writes there), and the operating
// system releases it when a migrator dies, so a crash never leaves a stale lock behind.
type sqliteFileLocker struct {
	path string
	db   *sql.DB
	conn *sql.Conn
}

// Lock waits, polling, until this migrator holds the lock or ctx ends (or the wait passes
// migrationLockTimeout seconds).
func (l *sqliteFileLocker) Lock(ctx context.Context, _ *sql.DB) error {
	db, err := sql.Open("sqlite", "file:"+l.path+"?_pragma=busy_timeout(0)")
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		_ = db.Close()
		return fmt.Errorf("migration lock: %w", err)
	}
	deadline := time.Now().Add(migrationLockTimeout * time.Second)
	for {
		_, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
		if err == nil {
			l.db, l.conn = db, conn
			return nil
		}
		if !isSQLiteBusy(err) || time.Now().After(deadline) {
			_ = conn.Close()
			_ = db.Close()
			return fmt.Errorf("migration lock %s: %w", l.path, err)
		}
		select {
		case <-ctx.Done():
			_ = conn.Close()
			_ = db.Close()
			return fmt.Errorf("migration lock %s: %w", l.path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Unlock ends the exclusive transaction and closes the lock database.
func (l *sqliteFileLocker) Unlock(ctx context.Context, _ *sql.DB) error {
	if l.conn == nil {
		return errors.New("migration lock: not held")
	}
	_, err := l.conn.ExecContext(ctx, "ROLLBACK")
	err = errors.Join(err, l.conn.Close(), l.db.Close())
	l.db, l.conn = nil, nil
	if err != nil {
		return fmt.Errorf("migration unlock: %w", err)
	}
	return nil
}

// isSQLiteBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY).
func isSQLiteBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
