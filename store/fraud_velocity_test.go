package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/fraud"
)

// TestVelocityReadSeeksItsBuckets: SQLite reads every feature's counters as range searches of
// the primary key down to the bucket's start, never as a walk over all the entity's rows (an
// entity keeps a row for every second it was active, for 30 days), and distinct values as
// searches of the window index or of one value's key.
func TestVelocityReadSeeksItsBuckets(t *testing.T) {
	st, _ := openSQLiteFile(t)
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	o := fraud.Observation{At: time.Date(2026, 11, 25, 13, 7, 42, 0, time.UTC), Currency: "EUR", AmountMinor: 1000,
		Entities: map[fraud.Dimension]string{fraud.DimCustomer: "c1", fraud.DimAccount: "a1", fraud.DimDevice: "d1", fraud.DimIP: "10.0.0.1", fraud.DimCounterparty: "p1"}}
	keyed := keyedObservation{Observation: o, ids: map[fraud.Dimension]int64{fraud.DimCustomer: 1, fraud.DimAccount: 2, fraud.DimDevice: 3, fraud.DimIP: 4, fraud.DimCounterparty: 5}}
	q, args, asked := velocityQuery(keyed, fraud.AllFeatures(), 0)
	if len(asked) != len(fraud.AllFeatures()) {
		t.Fatalf("asked %d features, want %d", len(asked), len(fraud.AllFeatures()))
	}
	var plan []struct {
		ID, Parent, Notused int
		Detail              string
	}
	sqlDB, err := st.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sqlDB.Query("EXPLAIN QUERY PLAN "+q, args...) // $n: not through gorm, as readVelocity
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p struct {
			ID, Parent, Notused int
			Detail              string
		}
		if err := rows.Scan(&p.ID, &p.Parent, &p.Notused, &p.Detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	counters, seen := 0, 0
	for _, p := range plan {
		switch {
		case strings.Contains(p.Detail, "fraud_velocity_counters"):
			counters++
			if !strings.HasPrefix(p.Detail, "SEARCH") || !strings.Contains(p.Detail, "bucket_size=? AND bucket_start>? AND bucket_start<?") {
				t.Errorf("counters read as %q, want a search down to the bucket range", p.Detail)
			}
		case strings.Contains(p.Detail, "fraud_velocity_seen"):
			seen++
			// The window's values through the window index, or the observation's own value
			// through its key (ownPart).
			if !strings.HasPrefix(p.Detail, "SEARCH") || !strings.Contains(p.Detail, "last_seen>?") && !strings.Contains(p.Detail, "value=?)") {
				t.Errorf("distinct values read as %q, want a search of the window index or of one value's key", p.Detail)
			}
		}
	}
	if counters == 0 || seen == 0 {
		t.Fatalf("plan reads counters %d times and distinct values %d times: %+v", counters, seen, plan)
	}
}
