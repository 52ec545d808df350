package store_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// schemaOf describes every table but goose's as sorted lines: one per column (name, type,
// nullability, default; order ignored, since a later migration appends columns) and one per
// index (name, uniqueness, columns), the primary key included.
func schemaOf(t *testing.T, s *store.Store) []string {
	t.Helper()
	var out []string
	type col struct {
		Tbl, Name, Typ string
		NotNull        bool
		Dflt           *string
	}
	type idx struct{ Tbl, Name, Def string }
	var cols []col
	var idxs []idx
	if s.Dialect == "postgres" {
		if err := s.DB.Raw(`SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS typ,
			a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS dflt
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
			AND c.relname <> 'goose_db_version'`).Scan(&cols).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB.Raw(`SELECT tablename AS tbl, indexname AS name,
			replace(indexdef, current_schema() || '.', '') AS def FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename <> 'goose_db_version'`).Scan(&idxs).Error; err != nil {
			t.Fatal(err)
		}
	} else {
		var tables []string
		if err := s.DB.Raw(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
			AND name <> 'goose_db_version'`).Scan(&tables).Error; err != nil {
			t.Fatal(err)
		}
		for _, tbl := range tables {
			var info []struct {
				Name    string
				Type    string
				NotNull bool
				Dflt    *string `gorm:"column:dflt_value"`
				PK      int     `gorm:"column:pk"`
			}
			if err := s.DB.Raw("SELECT name, type, \"notnull\" AS not_null, dflt_value, pk FROM pragma_table_info(?)", tbl).Scan(&info).Error; err != nil {
				t.Fatal(err)
			}
			var pk []string
			for _, c := range info {
				cols = append(cols, col{Tbl: tbl, Name: c.Name, Typ: strings.ToLower(c.Type), NotNull: c.NotNull, Dflt: c.Dflt})
				if c.PK > 0 {
					pk = append(pk, fmt.Sprintf("%d:%s", c.PK, c.Name))
				}
			}
			sort.Strings(pk)
			idxs = append(idxs, idx{Tbl: tbl, Name: "primary key", Def: strings.Join(pk, ",")})
			var list []struct {
				Name   string
				Unique bool
				Origin string
			}
			if err := s.DB.Raw(`SELECT name, "unique", origin FROM pragma_index_list(?)`, tbl).Scan(&list).Error; err != nil {
				t.Fatal(err)
			}
			for _, l := range list {
				if l.Origin == "pk" {
					continue // the primary key's own index, described above
				}
				var names []string
				if err := s.DB.Raw("SELECT name FROM pragma_index_info(?) ORDER BY seqno", l.Name).Scan(&names).Error; err != nil {
					t.Fatal(err)
				}
				idxs = append(idxs, idx{Tbl: tbl, Name: l.Name, Def: fmt.Sprintf("unique=%v (%s)", l.Unique, strings.Join(names, ","))})
			}
		}
	}
	for _, c := range cols {
		d := "<none>"
		if c.Dflt != nil {
			d = *c.Dflt
		}
		out = append(out, fmt.Sprintf("%s column %s %s notnull=%v default=%s", c.Tbl, c.Name, c.Typ, c.NotNull, d))
	}
	for _, i := range idxs {
		out = append(out, fmt.Sprintf("%s index %s %s", i.Tbl, i.Name, i.Def))
	}
	sort.Strings(out)
	return out
}

// ddlRecorder keeps the schema-changing statements GORM runs.
type ddlRecorder struct{ stmts *[]string }

var ddl = regexp.MustCompile(`(?i)^\s*(CREATE|ALTER|DROP)\s`)

func (r ddlRecorder) LogMode(logger.LogLevel) logger.Interface { return r }
func (r ddlRecorder) Info(context.Context, string, ...any)     {}
func (r ddlRecorder) Warn(context.Context, string, ...any)     {}
func (r ddlRecorder) Error(context.Context, string, ...any)    {}
func (r ddlRecorder) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	if sql, _ := fc(); ddl.MatchString(sql) {
		*r.stmts = append(*r.stmts, sql)
	}
}

// TestModelsMatchMigratedSchema is the drift test: the migrated schema is exactly the one GORM
// builds from the models (columns, types, nullability, defaults, indexes), and GORM finds nothing
// to change in it. A model changed without a migration, or a migration without its model change,
// fails here.
func TestModelsMatchMigratedSchema(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			migrated := storetest.Open(t, b)
			fromModels := openRaw(t, storetest.Another(t, b))
			if err := fromModels.DB.AutoMigrate(store.AllModels()...); err != nil {
				t.Fatal(err)
			}
			got, want := schemaOf(t, migrated), schemaOf(t, fromModels)
			if len(want) < 100 {
				t.Fatalf("the models' schema has %d lines, too few to be real", len(want))
			}
			gotSet := map[string]bool{}
			for _, l := range got {
				gotSet[l] = true
			}
			wantSet := map[string]bool{}
			for _, l := range want {
				wantSet[l] = true
				if !gotSet[l] {
					t.Errorf("the models have, the migrations lack: %s", l)
				}
			}
			for _, l := range got {
				if !wantSet[l] {
					t.Errorf("the migrations have, the models lack: %s", l)
				}
			}

			// GORM's own comparison, model by model: AutoMigrate on the migrated database is a no-op.
			var stmts []string
			db := migrated.DB.Session(&gorm.Session{Logger: ddlRecorder{&stmts}})
			for _, m := range store.AllModels() {
				if err := db.AutoMigrate(m); err != nil {
					t.Fatal(err)
				}
				for _, st := range stmts {
					t.Errorf("%T: GORM would change the migrated schema: %s", m, st)
				}
				stmts = stmts[:0]
			}
		})
	}
}
