package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// listRow is a table for exercising the list helpers the way a product list uses them.
type listRow struct {
	ID         string `gorm:"primaryKey;size:40"`
	OrgID      string `gorm:"size:40;not null"`
	Name       string
	Status     string
	CustomerID string
	ExternalID string
	CreatedAt  time.Time
}

func (listRow) TableName() string { return "test_list_rows" }

func rowKey(r *listRow) store.Cursor { return store.Cursor{Time: r.CreatedAt, ID: r.ID} }

func seedRows(t *testing.T, s *store.Store, org string, n int, at func(i int) time.Time) []listRow {
	t.Helper()
	if err := s.DB.AutoMigrate(&listRow{}); err != nil {
		t.Fatal(err)
	}
	var rows []listRow
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("row_%03d", i)
		if org != "org_a" {
			id = org + "_" + id
		}
		r := listRow{ID: id, OrgID: org, Name: fmt.Sprintf("Item %d", i),
			Status: []string{"pending", "running", "failed"}[i%3], CustomerID: fmt.Sprintf("cus_%d", i%2),
			ExternalID: fmt.Sprintf("ext-%d", i), CreatedAt: at(i)}
		if err := s.DB.Create(&r).Error; err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestListCursorSharedTimestampsAndConcurrentInserts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		base := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
		// 25 rows in 5 groups that share a timestamp exactly.
		seedRows(t, s, "org_a", 25, func(i int) time.Time { return base.Add(time.Duration(i/5) * time.Second) })
		seedRows(t, s, "org_b", 3, func(int) time.Time { return base })
		seen := map[string]bool{}
		var order []string
		page := store.CursorPage{Limit: 4}
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("pagination does not end")
			}
			rows, next, err := store.ListCursor(ctx, s.DB, page, rowKey, store.ForOrg("org_a"))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if seen[r.ID] {
					t.Fatalf("row %s repeated", r.ID)
				}
				seen[r.ID] = true
				order = append(order, r.ID)
			}
			if pages == 1 {
				// Rows inserted while the client pages are newer than its cursor: never seen, never shifting.
				if err := s.DB.Create(&listRow{ID: "row_new", OrgID: "org_a", CreatedAt: base.Add(time.Hour)}).Error; err != nil {
					t.Fatal(err)
				}
				if err := s.DB.Create(&listRow{ID: "row_000a", OrgID: "org_a", CreatedAt: base.Add(4 * time.Second)}).Error; err != nil {
					t.Fatal(err)
				}
			}
			if next == nil {
				if len(rows) > page.Limit {
					t.Fatal("page larger than limit")
				}
				break
			}
			// The cursor survives the round trip through its string form.
			c, err := store.ParseCursor(next.String())
			if err != nil {
				t.Fatal(err)
			}
			page.After = &c
		}
		if len(seen) != 25 {
			t.Fatalf("saw %d rows, want the 25 that existed when paging began", len(seen))
		}
		// Newest first by (time, id): groups share a time, so within a group ids descend too.
		for i, id := range order {
			if want := fmt.Sprintf("row_%03d", 24-i); id != want {
				t.Fatalf("position %d = %s, want %s (order %v)", i, id, want, order)
			}
		}
	})
}

func TestListOffsetAndFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		day := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
		seedRows(t, s, "org_a", 30, func(i int) time.Time { return day.Add(time.Duration(i) * 2 * time.Hour) })
		seedRows(t, s, "org_b", 5, func(i int) time.Time { return day })
		list := func(f store.Filter, page store.Offset) ([]listRow, int64) {
			rows, total, err := store.ListOffset[listRow](ctx, s.DB, page, "created_at DESC, id DESC", store.ForOrg("org_a"),
				f.Scope(store.FilterColumns{Text: []string{"name", "external_id"}, Status: "status", CustomerID: "customer_id", ExternalID: "external_id"}))
			if err != nil {
				t.Fatal(err)
			}
			return rows, total
		}
		rows, total := list(store.Filter{}, store.Offset{Page: 2, Limit: 20})
		if total != 30 || len(rows) != 10 || rows[0].ID != "row_009" {
			t.Fatalf("page 2 = %d rows (first %v), total %d", len(rows), rows, total)
		}
		if rows, total := list(store.Filter{}, store.Offset{Page: 4, Limit: 10}); total != 30 || len(rows) != 0 {
			t.Fatalf("past the end = %d rows, total %d", len(rows), total)
		}
		if rows, total := list(store.Filter{}, store.Offset{Page: 3, Limit: 10}); total != 30 || len(rows) != 10 {
			t.Fatalf("last full page = %d rows, total %d", len(rows), total)
		}
		if _, total := list(store.Filter{Status: []string{"failed", "running"}}, store.Offset{Page: 1, Limit: 100}); total != 20 {
			t.Fatalf("status filter total = %d, want 20", total)
		}
		if rows, _ := list(store.Filter{Q: "ITEM 2"}, store.Offset{Page: 1, Limit: 100}); len(rows) != 11 { // 2, 20..29
			t.Fatalf("q filter = %d rows, want 11", len(rows))
		}
		if rows, _ := list(store.Filter{Q: "%"}, store.Offset{Page: 1, Limit: 100}); len(rows) != 0 {
			t.Fatalf("q is matched literally, a %% matched %d rows", len(rows))
		}
		if _, total := list(store.Filter{CustomerID: "cus_1"}, store.Offset{Page: 1, Limit: 100}); total != 15 {
			t.Fatalf("customerId filter total = %d", total)
		}
		if rows, _ := list(store.Filter{ExternalID: "ext-7"}, store.Offset{Page: 1, Limit: 100}); len(rows) != 1 || rows[0].ID != "row_007" {
			t.Fatalf("externalId filter = %v", rows)
		}
		// from/to inclusive: rows at exactly from and exactly to are in.
		from, to := day.Add(4*time.Hour), day.Add(10*time.Hour)
		if _, total := list(store.Filter{From: &from, To: &to}, store.Offset{Page: 1, Limit: 100}); total != 4 { // rows 2,3,4,5
			t.Fatalf("from/to total = %d, want 4", total)
		}
		// A date-only to= covers its whole day: 2026-01-10 has rows 0..11.
		next := day.AddDate(0, 0, 1)
		if _, total := list(store.Filter{To: &next, ToExclusive: true}, store.Offset{Page: 1, Limit: 100}); total != 12 {
			t.Fatalf("to=date total = %d, want 12", total)
		}
		counts, err := store.CountBy[listRow](ctx, s.DB, "status", store.ForOrg("org_a"))
		if err != nil || counts["pending"] != 10 || counts["failed"] != 10 || len(counts) != 3 {
			t.Fatalf("CountBy = %v, %v", counts, err)
		}
	})
}

func TestParseCursorRejects(t *testing.T) {
	for _, bad := range []string{"", "2026-01-01T00:00:00Z", "~id", "yesterday~id", "2026-01-01T00:00:00Z~"} {
		if _, err := store.ParseCursor(bad); err == nil {
			t.Errorf("ParseCursor(%q) accepted", bad)
		}
	}
}
