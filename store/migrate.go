package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// migrationFiles holds the versioned SQL migrations, one folder per engine with the same versions
// in both (CONTRIBUTING.md, "Add a migration").
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// MigrationRange is the block of migration versions one product numbers its migrations from, so
// that products adding migrations at the same time never pick the same number.
type MigrationRange struct {
	Owner    string
	From, To int64
}

// MigrationRanges reserves version blocks per product; a migration's version lies in its owner's.
var MigrationRanges = []MigrationRange{
	{"platform", 1, 999},
	{"screening", 1000, 1999},
	{"cases", 2000, 2999},
	{"fraud", 3000, 3999},
	{"statements", 4000, 4999},
	{"identity", 5000, 5999},
	{"automation", 6000, 6999},
	{"dashboard", 7000, 7999},
	{"cluster", 8000, 8999},
}

// migrationLockTimeout bounds the wait for another migrator, in seconds polled once a second.
const migrationLockTimeout = 600

// migrateUp applies every pending migration under a lock that serialises migrators of the same
// database: a PostgreSQL advisory lock, or on SQLite an exclusive transaction on a lock file.
func (s *Store) migrateUp(ctx context.Context) error {
	p, err := s.migrationProvider(ctx)
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// SchemaVersion is the highest migration version applied to the database (0 when none is).
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	p, err := s.migrationProvider(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return v, nil
}

// PendingMigrations lists the versions this binary carries that the database has not applied.
func (s *Store) PendingMigrations(ctx context.Context) ([]int64, error) {
	p, err := s.migrationProvider(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: pending migrations: %w", err)
	}
	status, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: pending migrations: %w", err)
	}
	var out []int64
	for _, m := range status {
		if m.State == goose.StatePending {
			out = append(out, m.Source.Version)
		}
	}
	return out, nil
}

// RequireMigrated fails, naming the fix, when the database lacks migrations this binary needs:
// svc api and svc worker check it at start instead of failing later on a missing column.
func (s *Store) RequireMigrated(ctx context.Context) error {
	pending, err := s.PendingMigrations(ctx)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("store: the %s database lacks migrations %v that this binary needs: run `svc migrate` first", s.Dialect, pending)
	}
	return nil
}

// LatestSchemaVersion is the highest migration version this binary carries.
func (s *Store) LatestSchemaVersion(ctx context.Context) (int64, error) {
	p, err := s.migrationProvider(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: latest schema version: %w", err)
	}
	src := p.ListSources()
	return src[len(src)-1].Version, nil
}

// migrationProvider builds the goose provider of the store's engine (never Close it: that closes
// the store's pool). Migrations apply out of order: products number theirs in their own ranges
// and land in any order.
func (s *Store) migrationProvider(ctx context.Context) (*goose.Provider, error) {
	db, err := s.DB.DB()
	if err != nil {
		return nil, err
	}
	files, err := fs.Sub(migrationFiles, "migrations/"+s.Dialect)
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{
		goose.WithAllowOutofOrder(true),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(slog.New(slog.DiscardHandler)),
	}
	var dialect goose.Dialect
	switch s.Dialect {
	case "postgres":
		dialect = goose.DialectPostgres
	case "sqlite":
		dialect = goose.DialectSQLite3
	default:
		return nil, fmt.Errorf("unsupported dialect %q", s.Dialect)
	}
	session, locker, err := s.migrationLock(ctx, db)
	if err != nil {
		return nil, err
	}
	if session != nil {
		opts = append(opts, goose.WithSessionLocker(session))
	}
	if locker != nil {
		opts = append(opts, goose.WithLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db, files, opts...)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// migrationLock is the lock that serialises the migrators of the store's database: on PostgreSQL
// an advisory lock held by goose's session locker, on SQLite a lock file (none in memory).
func (s *Store) migrationLock(ctx context.Context, db *sql.DB) (lock.SessionLocker, lock.Locker, error) {
	if s.Dialect == "postgres" {
		id, err := postgresLockID(ctx, db)
		if err != nil {
			return nil, nil, err
		}
		l, err := lock.NewPostgresSessionLocker(lock.WithLockID(id), lock.WithLockTimeout(1, migrationLockTimeout))
		return l, nil, err
	}
	path, err := sqliteMainFile(ctx, db)
	if err != nil || path == "" { // an in-memory database has no other migrator to wait for
		return nil, nil, err
	}
	return nil, &sqliteFileLocker{path: path + "-migrate.lock"}, nil
}

// postgresLockID names the advisory lock of this database and schema, so that migrators of one
// schema wait for each other and those of other schemas (tests, other deployments) do not.
func postgresLockID(ctx context.Context, db *sql.DB) (int64, error) {
	var name string
	if err := db.QueryRowContext(ctx, "SELECT current_database() || '.' || current_schema()").Scan(&name); err != nil {
		return 0, fmt.Errorf("current schema: %w", err)
	}
	return advisoryKey("svc-migrate:" + name), nil
}

// sqliteMainFile is the path of the SQLite database file, "" for an in-memory database.
func sqliteMainFile(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA database_list")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var name, file string
		if err := rows.Scan(&seq, &name, &file); err != nil {
			return "", err
		}
		if name == "main" {
			return file, rows.Err()
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return "", errors.New("sqlite has no main database")
}
