// Package store is svc's application database: GORM models and queries, the same code on
// SQLite (the embedded default) and PostgreSQL (production).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	// The pure-Go SQLite driver, registered as "sqlite" (the same one the embedded Temporal uses).
	_ "modernc.org/sqlite"
)

// ErrNotFound is returned when a record does not exist in the caller's organisation.
var ErrNotFound = errors.New("not found")

// Store is the application database.
type Store struct {
	// DB is the GORM handle; queries that touch organisation data must filter by org_id.
	DB *gorm.DB
	// Dialect is "sqlite" or "postgres".
	Dialect string
}

// Open connects to the database at url: a postgres:// URL, or sqlite:<path>.
func Open(ctx context.Context, url string) (*Store, error) {
	gcfg := &gorm.Config{
		Logger:                                   logger.Discard,
		NowFunc:                                  func() time.Time { return time.Now().UTC() },
		DisableForeignKeyConstraintWhenMigrating: true,
		TranslateError:                           false,
	}
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := gorm.Open(postgres.Open(url), gcfg)
		if err != nil {
			return nil, fmt.Errorf("store: open postgres: %w", err)
		}
		if sqlDB, err := db.DB(); err == nil {
			// Keep connections open between requests: Go's default of 2 idle connections makes a
			// busy API reopen connections all the time (measured: ~3x lower read throughput).
			sqlDB.SetMaxOpenConns(32)
			sqlDB.SetMaxIdleConns(32)
			sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		}
		s := &Store{DB: db, Dialect: "postgres"}
		if err := s.Ping(ctx); err != nil {
			return nil, err
		}
		return s, nil
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path != ":memory:" {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
		}
		dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		conn, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		// SQLite allows one writer; a small pool with immediate transactions avoids lock upgrades failing.
		conn.SetMaxOpenConns(4)
		db, err := gorm.Open(sqlite.Dialector{DriverName: "sqlite", Conn: conn}, gcfg)
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		s := &Store{DB: db, Dialect: "sqlite"}
		if err := s.Ping(ctx); err != nil {
			return nil, err
		}
		return s, nil
	default:
		return nil, fmt.Errorf("store: unsupported database url (want postgres:// or sqlite:<path>)")
	}
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	db, err := s.DB.DB()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Migrate creates or updates every table.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.DB.WithContext(ctx).AutoMigrate(AllModels()...); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return s.unlogRateLimitCounters(ctx)
}

// Close releases the connection pool.
func (s *Store) Close() error {
	db, err := s.DB.DB()
	if err != nil {
		return err
	}
	return db.Close()
}

// Tx runs fn in a transaction.
func (s *Store) Tx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.DB.WithContext(ctx).Transaction(fn)
}

// IsUniqueViolation reports whether err is a unique-constraint violation on either database.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "SQLSTATE 23505") || strings.Contains(msg, "duplicate key value")
}

// NotFound maps gorm's not-found error to ErrNotFound and passes others through.
func NotFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}

// takeInOrg loads the record of type T with id in the organisation: ErrNotFound when it is absent
// or belongs to another organisation (the two are indistinguishable by design).
func takeInOrg[T any](db *gorm.DB, orgID, id string) (*T, error) {
	var v T
	if err := db.Where("org_id = ? AND id = ?", orgID, id).Take(&v).Error; err != nil {
		return nil, NotFound(err)
	}
	return &v, nil
}
