// Package store is svc's application database: GORM models and queries, the same code on
// SQLite (the embedded default) and PostgreSQL (production).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
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

// Store is the application database: the connection and one repository per product or
// platform area, so that call sites read st.Documents.Get(ctx, orgID, id).
type Store struct {
	*handle

	// Orchestration holds workflow definitions, executions, steps, approvals and pings.
	Orchestration *Orchestration
	// Documents holds documents, extractions, templates and the review threshold.
	Documents *Documents
	// Screening holds sanctions lists with their versions, and screenings.
	Screening *Screening
	// Webhooks holds subscriptions, events, deliveries and their attempts.
	Webhooks *Webhooks
	// Orgs holds organisations and bootstraps them.
	Orgs *Orgs
	// Users holds the organisations' users.
	Users *Users
	// Keys holds API keys.
	Keys *Keys
	// ServiceKeys holds the service principal keys the platform issues to connected products (SPEC 5.6).
	ServiceKeys *ServiceKeys
	// Sessions holds dashboard sessions.
	Sessions *Sessions
	// Audit holds the audit log.
	Audit *Audit
	// Idempotency holds idempotency records of POSTs with an externalId.
	Idempotency *Idempotency
	// RateLimits holds rate-limit counters and per-organisation overrides.
	RateLimits *RateLimits
	// Identity holds identity verifications and their attempts.
	Identity *Identity
	// Statements holds bank statement analyses.
	Statements *Statements
	// Fraud holds rule sets, decisions with their evidence, velocity counters, device sessions,
	// alerts and backtests.
	Fraud *Fraud
	// Automation holds the AI token ledger, the model exchanges' audit records and automation runs.
	Automation *Automation
	// Customers holds the shared customer resource (screening, fraud, identity and cases refer to it).
	Customers *Customers
	// Alerts is the cases product's intake: screening and fraud raise alerts here.
	Alerts *Alerts
	// Cases holds cases, their timeline and evidence, the gathering of alerts, and SAR filings.
	Cases *Cases
}

// handle is what the Store and every repository share: the database connection.
type handle struct {
	// DB is the GORM handle; queries that touch organisation data must filter by org_id.
	DB *gorm.DB
	// Dialect is "sqlite" or "postgres".
	Dialect string
	// stmts keeps the statements of the hot paths' write transactions prepared (WriteTx; SQLite only).
	stmts *stmtPool
	// checkpoints copies the log of WriteTx's connection into the database (SQLite only).
	checkpoints *checkpointer
	// decisions and audits group this process's concurrent fraud decisions, and audit entries,
	// into shared transactions on SQLite (groupCommit).
	decisions *groupCommit[*decisionJob]
	audits    *groupCommit[*auditJob]
	// fraud keeps the fast path's unchanging reads (fraudCache).
	fraud *fraudCache
}

// Orchestration is the orchestration product's repository.
type Orchestration struct{ *handle }

// Documents is the documents product's repository.
type Documents struct{ *handle }

// Webhooks is the webhooks product's repository (subscriptions, events and deliveries).
type Webhooks struct{ *handle }

// Orgs is the repository of organisations.
type Orgs struct{ *handle }

// Users is the repository of users.
type Users struct{ *handle }

// Keys is the repository of API keys.
type Keys struct{ *handle }

// Sessions is the repository of dashboard sessions.
type Sessions struct{ *handle }

// Audit is the repository of the audit log.
type Audit struct{ *handle }

// Idempotency is the repository of idempotency records.
type Idempotency struct{ *handle }

// RateLimits is the repository of rate-limit counters and overrides.
type RateLimits struct{ *handle }

// newStore wires every repository to one connection.
func newStore(db *gorm.DB, dialect string) *Store {
	h := &handle{DB: db, Dialect: dialect, fraud: newFraudCache()}
	h.decisions = newGroupCommit(maxDecisionBatch, func(ctx context.Context, jobs []*decisionJob) error { return writeDecisions(ctx, h, jobs) })
	h.audits = newGroupCommit(maxAuditBatch, func(ctx context.Context, jobs []*auditJob) error { return writeAudits(ctx, h, jobs) })
	return &Store{
		handle:        h,
		Orchestration: &Orchestration{h}, Documents: &Documents{h}, Screening: &Screening{h}, Webhooks: &Webhooks{h},
		Orgs: &Orgs{h}, Users: &Users{h}, Keys: &Keys{h}, ServiceKeys: &ServiceKeys{h}, Sessions: &Sessions{h}, Audit: &Audit{h},
		Idempotency: &Idempotency{h}, RateLimits: &RateLimits{h}, Identity: &Identity{h},
		Statements: &Statements{h}, Fraud: &Fraud{h}, Automation: &Automation{h},
		Customers: &Customers{h},
		Alerts:    &Alerts{h}, Cases: &Cases{h},
	}
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
		s := newStore(db, "postgres")
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
		return openSQLite(ctx, path, gcfg)
	default:
		return nil, fmt.Errorf("store: unsupported database url (want postgres:// or sqlite:<path>)")
	}
}

// openSQLite opens the database file at path. Several processes opening one new file at once
// (svc migrate in each of them) can meet SQLITE_BUSY while one of them switches the file to WAL:
// SQLite answers that without calling the busy handler, so the open is retried here instead.
func openSQLite(ctx context.Context, path string, gcfg *gorm.Config) (*Store, error) {
	deadline := time.Now().Add(sqliteOpenTimeout)
	for {
		s, err := openSQLiteOnce(ctx, path, gcfg)
		if err == nil || !isSQLiteBusy(err) || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("store: open sqlite: %w", ctx.Err())
		case <-time.After(25*time.Millisecond + time.Duration(rand.Int64N(int64(50*time.Millisecond)))):
		}
	}
}

// sqliteOpenTimeout bounds openSQLite's retries, as busy_timeout bounds every other wait.
const sqliteOpenTimeout = 10 * time.Second

// openSQLiteOnce opens path. Each connection keeps 16 MiB of pages (SQLite's default is 2), as
// a batch of fraud decisions touches more than 2 MiB, and its temporary files (the statement
// journals of multi-row writes, sorts) in memory: in a profile of bench/fraudevaluate, before
// the fast path wrote a row per statement (insertRows), page spills and journals written to
// files were a quarter of the velocity writes.
func openSQLiteOnce(ctx context.Context, path string, gcfg *gorm.Config) (*Store, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-16384)&_pragma=temp_store(memory)&_txlock=immediate"
	conn, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	// SQLite allows one writer; a small pool with immediate transactions avoids lock upgrades failing.
	// Every connection of it stays open: the default of 2 idle connections made a busy API open
	// and close the other two all the time, each opening re-running the pragmas (a CPU profile of
	// bench/authn: 14 % of the process in opening connections).
	conn.SetMaxOpenConns(4)
	conn.SetMaxIdleConns(4)
	conn.SetConnMaxIdleTime(5 * time.Minute)
	db, err := gorm.Open(sqlite.Dialector{DriverName: "sqlite", Conn: conn}, gcfg)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	s := newStore(db, "sqlite")
	// The hot paths' write transactions (WriteTx) have a connection of their own:
	// - SQLite drops a connection's page cache whenever another connection has committed since
	//   it last read; on one connection, the pages a batch of decisions wrote are still cached
	//   for the next batch;
	// - they queue for it in Go, so the next starts as soon as the last ends. Met at SQLite's
	//   lock instead, they waited in its busy handler, which sleeps in steps of up to 100 ms (a
	//   block profile of bench/fraudevaluate: hundreds of milliseconds with the lock idle).
	// It leaves checkpoints to the checkpointer.
	writer, err := sql.Open("sqlite", dsn+"&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	s.stmts = newStmtPool(writer)
	checkpoints, err := sql.Open("sqlite", dsn)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	s.checkpoints = newCheckpointer(checkpoints)
	if err := s.Ping(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
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

// Migrate applies the pending versioned migrations (store/migrations), waiting for any other
// migrator of the same database to finish first.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.migrateUp(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// Close releases the connection pools.
func (s *Store) Close() error {
	db, err := s.DB.DB()
	if err != nil {
		return err
	}
	err = db.Close()
	if s.stmts != nil {
		err = errors.Join(err, s.stmts.db.Close())
	}
	if s.checkpoints != nil {
		err = errors.Join(err, s.checkpoints.close())
	}
	return err
}

// Tx runs fn in a transaction.
func (s *handle) Tx(ctx context.Context, fn func(tx *gorm.DB) error) error {
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
