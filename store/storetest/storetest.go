// Package storetest opens real databases for tests: SQLite always, and PostgreSQL when
// SVC_TEST_POSTGRES_URL is set (each test gets its own schema, dropped afterwards).
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/svcplatform/svc/store"
)

// EnvPostgres names the variable holding the PostgreSQL URL for tests.
const EnvPostgres = "SVC_TEST_POSTGRES_URL"

// Backend is one database a test runs against.
type Backend struct {
	Name string
	// URL opens the same database again (another process or instance sharing it).
	URL string
}

// Backends lists the databases store tests run on. In CI (CI=true) PostgreSQL is required.
func Backends(t testing.TB) []Backend {
	t.Helper()
	out := []Backend{{Name: "sqlite", URL: "sqlite:" + filepath.Join(t.TempDir(), "svc.db")}}
	if u := PostgresURL(t); u != "" {
		out = append(out, Backend{Name: "postgres", URL: u})
	}
	return out
}

// Another returns a second empty database of b's engine, for tests that compare two.
func Another(t testing.TB, b Backend) Backend {
	t.Helper()
	if b.Name == "postgres" {
		return Backend{Name: b.Name, URL: PostgresURL(t)}
	}
	return Backend{Name: b.Name, URL: "sqlite:" + filepath.Join(t.TempDir(), "svc.db")}
}

// PostgresURL returns the URL of a fresh, migrated schema on the test PostgreSQL, or "" when
// none is configured outside CI.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s must be set in CI", EnvPostgres)
		}
		return ""
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := store.Open(context.Background(), base)
	if err != nil {
		t.Fatalf("postgres at %s unreachable: %v", EnvPostgres, err)
	}
	if err := admin.DB.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_ = admin.DB.Exec("DROP SCHEMA " + schema + " CASCADE").Error
		_ = admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgres, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open opens and migrates the backend's database, closed when the test ends.
func Open(t testing.TB, b Backend) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), b.URL)
	if err != nil {
		t.Fatalf("open %s: %v", b.Name, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate %s: %v", b.Name, err)
	}
	return s
}

// Each runs fn as a subtest on every backend with a fresh migrated store.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, Open(t, b)) })
	}
}

// String names a backend for messages, with any password in its URL masked.
func (b Backend) String() string {
	shown := b.URL
	if u, err := url.Parse(b.URL); err == nil {
		shown = u.Redacted()
	}
	return fmt.Sprintf("%s(%s)", b.Name, shown)
}
