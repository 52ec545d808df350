package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// openRaw opens the backend's database without migrating it.
func openRaw(t *testing.T, b storetest.Backend) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), b.URL)
	if err != nil {
		t.Fatalf("open %s: %v", b, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// eachRawBackend runs fn on every backend with an empty, unmigrated database.
func eachRawBackend(t *testing.T, fn func(t *testing.T, b storetest.Backend, s *store.Store)) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, b, openRaw(t, b)) })
	}
}

// wantLatest asserts that the database is at the newest migration the binary carries.
func wantLatest(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	latest, err := s.LatestSchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != latest || latest < 1 {
		t.Fatalf("schema version %d, want the latest migration %d", got, latest)
	}
}

// appliedVersions lists the versions recorded as applied, duplicates included.
func appliedVersions(t *testing.T, s *store.Store) []int64 {
	t.Helper()
	var out []int64
	if err := s.DB.Raw("SELECT version_id FROM goose_db_version WHERE version_id > 0 AND is_applied ORDER BY version_id").
		Scan(&out).Error; err != nil {
		t.Fatal(err)
	}
	return out
}

// wantUnloggedCounters asserts PostgreSQL's rate-limit counters skip the WAL (kept from the
// release before versioned migrations).
func wantUnloggedCounters(t *testing.T, s *store.Store) {
	t.Helper()
	if s.Dialect != "postgres" {
		return
	}
	var p string
	if err := s.DB.Raw("SELECT relpersistence FROM pg_class WHERE oid = to_regclass('rate_limit_counters')").Scan(&p).Error; err != nil {
		t.Fatal(err)
	}
	if p != "u" {
		t.Fatalf("rate_limit_counters relpersistence = %q, want u (UNLOGGED)", p)
	}
}

func TestMigrateEmptyDatabase(t *testing.T) {
	eachRawBackend(t, func(t *testing.T, _ storetest.Backend, s *store.Store) {
		ctx := context.Background()
		if v, err := s.SchemaVersion(ctx); err != nil || v != 0 {
			t.Fatalf("empty database: version %d, %v; want 0", v, err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		wantLatest(t, s)
		wantUnloggedCounters(t, s)
		for _, m := range store.AllModels() {
			if !s.DB.Migrator().HasTable(m) {
				t.Errorf("no table for %T", m)
			}
		}
		before := appliedVersions(t, s)
		if err := s.Migrate(ctx); err != nil { // nothing pending: a no-op
			t.Fatal(err)
		}
		if after := appliedVersions(t, s); !reflect.DeepEqual(before, after) {
			t.Fatalf("second Migrate changed the applied versions: %v → %v", before, after)
		}
	})
}

// releaseSchema creates the tables exactly as the last release without versioned migrations did
// (its AutoMigrate's statements, recorded in testdata/release).
func releaseSchema(t *testing.T, s *store.Store) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "release", s.Dialect+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(string(b), ";\n") {
		var lines []string
		for _, l := range strings.Split(stmt, "\n") {
			if !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		if stmt = strings.TrimSpace(strings.Join(lines, "\n")); stmt == "" {
			continue
		}
		if err := s.DB.Exec(stmt).Error; err != nil {
			t.Fatalf("release schema: %v\n%s", err, stmt)
		}
	}
}

// releaseRows are rows the release wrote, in several products' tables, in plain SQL so that the
// fixture does not move when the models do.
var releaseRows = []string{
	`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'Acme', '2026-01-02 03:04:05')`,
	`INSERT INTO users (id, org_id, email, name, role, password_hash, disabled, created_at, updated_at)
	 VALUES ('usr_a', 'org_a', 'ops@acme.test', 'Ops', 'admin', 'h', false, '2026-01-02 03:04:05', '2026-01-02 03:04:05')`,
	`INSERT INTO api_keys (id, org_id, name, environment, hash, last4, scopes, act_as_user_id, created_at, updated_at)
	 VALUES ('key_a', 'org_a', 'ci', 'live', 'abc123', 'WXYZ', '["read"]', 'usr_a', '2026-01-02 03:04:05', '2026-01-02 03:04:05')`,
	`INSERT INTO workflows (id, org_id, slug, name, latest_version, created_at, updated_at)
	 VALUES ('wkf_a', 'org_a', 'onboarding', 'Onboarding', 1, '2026-01-02 03:04:05', '2026-01-02 03:04:05')`,
	`INSERT INTO workflow_versions (workflow_id, version, org_id, definition, created_at)
	 VALUES ('wkf_a', 1, 'org_a', '{"nodes":[]}', '2026-01-02 03:04:05')`,
	`INSERT INTO executions (id, org_id, workflow_id, workflow_slug, workflow_version, status, inputs, created_at)
	 VALUES ('exe_a', 'org_a', 'wkf_a', 'onboarding', 1, 'running', '{"x":1}', '2026-01-02 03:04:05')`,
	`INSERT INTO documents (id, org_id, status, filename, format, size, sha256, blob_key, confidence_score, created_at)
	 VALUES ('doc_a', 'org_a', 'processed', 'a.pdf', 'pdf', 1234, 'ff00', 'blobs/doc_a', 0.875, '2026-01-02 03:04:05')`,
	`INSERT INTO webhook_subscriptions (id, org_id, url, events, active, secret_sealed, created_at, updated_at)
	 VALUES ('whk_a', 'org_a', 'https://hooks.acme.test/svc', '["document.processed"]', true, 'sealed', '2026-01-02 03:04:05', '2026-01-02 03:04:05')`,
	`INSERT INTO rate_limit_counters (bucket_key, window_start, hits, expires_at) VALUES ('read:key_a', 1767322980, 7, 1767323100)`,
	`INSERT INTO rate_limit_overrides (org_id, bucket, max_requests, window_seconds, updated_at)
	 VALUES ('org_a', 'read', 5000, 60, '2026-01-02 03:04:05')`,
}

// snapshot reads every row of every table but goose's, as text, in a stable order.
// snapshot reads every row of every table as column=value text. label makes each snapshot's
// statements distinct, so PostgreSQL does not reuse a plan cached before a migration added columns.
func snapshot(t *testing.T, s *store.Store, label string) map[string][]map[string]string {
	t.Helper()
	db, err := s.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	if err := s.DB.Raw(strings.Replace(countTables(s.Dialect), "count(*)", tableNameColumn(s.Dialect), 1)).Scan(&tables).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]string{}
	for _, table := range tables {
		rows, err := db.Query("SELECT * FROM " + table + " ORDER BY 1, 2 /* " + label + " */")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			row := map[string]string{}
			for i, c := range cols {
				row[c] = textOf(vals[i])
			}
			out[table] = append(out[table], row)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func textOf(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	default:
		return fmt.Sprint(x)
	}
}

func TestMigrateUpgradesReleaseDatabase(t *testing.T) {
	eachRawBackend(t, func(t *testing.T, _ storetest.Backend, s *store.Store) {
		ctx := context.Background()
		releaseSchema(t, s)
		for _, q := range releaseRows {
			if err := s.DB.Exec(q).Error; err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
		}
		before := snapshot(t, s, "before")
		if n := len(before); n < 8 {
			t.Fatalf("fixture wrote rows in %d tables, want at least 8", n)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		wantLatest(t, s)
		wantUnloggedCounters(t, s)
		// Every row keeps every value it had; columns that later migrations add may appear.
		after := snapshot(t, s, "after")
		for table, rows := range before {
			if len(after[table]) != len(rows) {
				t.Fatalf("%s: %d rows before the upgrade, %d after", table, len(rows), len(after[table]))
			}
			for i, row := range rows {
				for col, v := range row {
					if got, ok := after[table][i][col]; !ok || got != v {
						t.Errorf("%s row %d: %s was %q, is %q after the upgrade", table, i, col, v, got)
					}
				}
			}
		}
		// The application reads them through its models.
		var k store.APIKey
		if err := s.DB.Where("hash = ?", "abc123").Take(&k).Error; err != nil || k.OrgID != "org_a" || len(k.Scopes) != 1 {
			t.Fatalf("key after upgrade = %+v, %v", k, err)
		}
	})
}

func TestMigrateConcurrently(t *testing.T) {
	const migrators = 6
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			stores := make([]*store.Store, migrators)
			for i := range stores { // one pool each, as separate processes would have
				stores[i] = openRaw(t, b)
			}
			start := make(chan struct{})
			errs := make([]error, migrators)
			var wg sync.WaitGroup
			for i, s := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs[i] = s.Migrate(context.Background())
				}()
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("migrator %d: %v", i, err)
				}
			}
			wantLatest(t, stores[0])
			latest, _ := stores[0].LatestSchemaVersion(context.Background())
			applied := appliedVersions(t, stores[0])
			seen := map[int64]bool{}
			for _, v := range applied {
				if seen[v] {
					t.Fatalf("version %d applied twice: %v", v, applied)
				}
				seen[v] = true
			}
			if !seen[latest] || !seen[1] {
				t.Fatalf("applied versions %v", applied)
			}
		})
	}
}

func TestMigrateWaitsForAnotherMigrator(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			holder, waiter := openRaw(t, b), openRaw(t, b)
			release, err := store.MigrationLock(ctx, holder)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- waiter.Migrate(ctx) }()
			select {
			case err := <-done:
				_ = release()
				t.Fatalf("Migrate returned (%v) while another migrator held the lock", err)
			case <-time.After(1500 * time.Millisecond):
			}
			var tables int64
			if err := holder.DB.Raw(countTables(holder.Dialect)).Scan(&tables).Error; err != nil {
				t.Fatal(err)
			}
			if tables != 0 {
				t.Fatalf("%d tables created while the lock was held", tables)
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("Migrate still waiting a minute after the lock was released")
			}
			wantLatest(t, waiter)
		})
	}
}

// tableNameColumn is the catalog column naming a table.
func tableNameColumn(dialect string) string {
	if dialect == "postgres" {
		return "tablename"
	}
	return "name"
}

// countTables counts the application's tables (goose's own version table excluded).
func countTables(dialect string) string {
	if dialect == "postgres" {
		return "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'goose_db_version'"
	}
	return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'"
}

// TestMigrationFilesFollowTheConvention: every migration exists for both engines under the same
// name, is numbered NNNNN_name.sql inside its owner's reserved range, and has an Up section.
func TestMigrationFilesFollowTheConvention(t *testing.T) {
	name := regexp.MustCompile(`^(\d{5})_[a-z0-9_]+\.sql$`)
	files := map[string][]string{}
	for _, engine := range []string{"sqlite", "postgres"} {
		entries, err := os.ReadDir(filepath.Join("migrations", engine))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files[engine] = append(files[engine], e.Name())
			m := name.FindStringSubmatch(e.Name())
			if m == nil {
				t.Errorf("%s/%s: want NNNNN_lowercase_name.sql", engine, e.Name())
				continue
			}
			v, _ := strconv.ParseInt(m[1], 10, 64)
			owner := ""
			for _, r := range store.MigrationRanges {
				if v >= r.From && v <= r.To {
					owner = r.Owner
				}
			}
			if owner == "" {
				t.Errorf("%s/%s: version %d is in no reserved range", engine, e.Name(), v)
			}
			body, err := os.ReadFile(filepath.Join("migrations", engine, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(body), "-- +goose Up") {
				t.Errorf("%s/%s: no -- +goose Up section", engine, e.Name())
			}
		}
	}
	if len(files["sqlite"]) == 0 || !reflect.DeepEqual(files["sqlite"], files["postgres"]) {
		t.Fatalf("the engines' migrations differ:\nsqlite   %v\npostgres %v", files["sqlite"], files["postgres"])
	}
}

func TestRequireMigrated(t *testing.T) {
	eachRawBackend(t, func(t *testing.T, _ storetest.Backend, s *store.Store) {
		ctx := context.Background()
		pending, err := s.PendingMigrations(ctx)
		if err != nil || len(pending) == 0 || pending[0] != 1 {
			t.Fatalf("empty database: pending %v, %v; want [1 …]", pending, err)
		}
		if err := s.RequireMigrated(ctx); err == nil || !strings.Contains(err.Error(), "svc migrate") {
			t.Fatalf("RequireMigrated on an empty database = %v, want an error naming svc migrate", err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if pending, err := s.PendingMigrations(ctx); err != nil || len(pending) != 0 {
			t.Fatalf("after Migrate: pending %v, %v", pending, err)
		}
		if err := s.RequireMigrated(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOpenNewSQLiteFileConcurrently opens one new database file from several connections at once,
// as several `svc migrate` processes do on a fresh data directory: every open succeeds, although
// SQLite answers SQLITE_BUSY to all but one while the file is switched to WAL.
func TestOpenNewSQLiteFileConcurrently(t *testing.T) {
	const opens = 8
	for round := range 20 {
		url := "sqlite:" + filepath.Join(t.TempDir(), fmt.Sprintf("svc-%d.db", round))
		errs := make([]error, opens)
		var wg sync.WaitGroup
		for i := range opens {
			wg.Go(func() {
				st, err := store.Open(context.Background(), url)
				if err == nil {
					err = st.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, open %d: %v", round, i, err)
			}
		}
	}
}
