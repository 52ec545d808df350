// The velocity rows: keyed by entity id (migration 03004) and pruned after
// retention.fraud_velocity.

package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestVelocityHistorySurvivesEntityIDs: counters and last-seen values written before migration
// 03004, keyed by organisation, dimension and entity, still count after it re-keys them by
// entity id. Decisions made after the upgrade see exactly their organisation's history (another
// organisation's entities have the same names and a history of their own), as the in-memory
// counters of the same events count it.
func TestVelocityHistorySurvivesEntityIDs(t *testing.T) {
	eachRawBackend(t, func(t *testing.T, _ storetest.Backend, s *store.Store) {
		ctx := context.Background()
		if err := store.MigrateTo(ctx, s, 3003); err != nil {
			t.Fatal(err)
		}
		live, mem := allFeaturesVersion(t), fraud.NewMemoryVelocity()
		rng := rand.New(rand.NewPCG(11, 12))
		at := time.Now().UTC().Add(-20 * 24 * time.Hour).Truncate(time.Millisecond)
		for i := range 40 {
			at = at.Add(time.Duration(rng.Int64N(int64(12 * time.Hour))))
			ours := fraud.ObserveEvent(&randomTransfer(t, rng, i, at, [4]int{2, 3, 3, 4}).Event, "")
			mem.Record(ours)
			writeOldVelocity(t, s, "org_ours", ours)
			theirs := fraud.ObserveEvent(&randomTransfer(t, rng, i, at, [4]int{2, 3, 3, 4}).Event, "")
			writeOldVelocity(t, s, "org_theirs", theirs)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		decide := func(from, to int, which string) {
			t.Helper()
			for i := from; i < to; i++ {
				at = at.Add(time.Duration(rng.Int64N(int64(time.Hour))))
				req := randomTransfer(t, rng, i, at, [4]int{2, 3, 3, 4})
				d, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: "org_ours", Request: req, Live: live, Persist: true})
				if err != nil {
					t.Fatal(err)
				}
				sameAsMemory(t, mem, req, d, live, fmt.Sprintf("event %d, %s", i, which))
			}
		}
		decide(40, 60, "after the upgrade")
		// Down and up again: the rows keep their counts both ways.
		if err := store.MigrateTo(ctx, s, 3003); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		decide(60, 70, "after a downgrade and an upgrade")
	})
}

// writeOldVelocity adds o to the velocity tables as they were before migration 03004, in plain
// SQL, so that the fixture does not move with the code.
func writeOldVelocity(t *testing.T, s *store.Store, orgID string, o fraud.Observation) {
	t.Helper()
	for _, k := range o.Counters() {
		if err := s.DB.Exec(`INSERT INTO fraud_velocity_counters (org_id, dimension, entity, bucket_size, bucket_start, currency, events, amount_minor)
			VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (org_id, dimension, entity, bucket_size, bucket_start, currency) DO UPDATE SET
			events = fraud_velocity_counters.events + 1, amount_minor = fraud_velocity_counters.amount_minor + excluded.amount_minor`,
			orgID, string(k.Dimension), k.Entity, k.Bucket.Size, k.Bucket.Start, k.Currency, o.AmountMinor).Error; err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range o.Seen() {
		if err := s.DB.Exec(`INSERT INTO fraud_velocity_seen (org_id, dimension, entity, attribute, value, last_seen) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, dimension, entity, attribute, value) DO UPDATE SET last_seen = excluded.last_seen
			WHERE excluded.last_seen > fraud_velocity_seen.last_seen`,
			orgID, string(k.Dimension), k.Entity, k.Attribute, k.Value, o.At.Unix()).Error; err != nil {
			t.Fatal(err)
		}
	}
}

// TestLookupGivesNoEntityAnID: a lookup of entities nobody has counted gives them ids only in
// its transaction, which rolls back; SQLite would give the next new entity the same id. Had the
// process kept the lookup's ids, the customer looked up and the next new customer would share
// counters.
func TestLookupGivesNoEntityAnID(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, live := context.Background(), newOrg(t, s), allFeaturesVersion(t)
		evaluate := func(customer string, persist bool) *store.FraudDecided {
			t.Helper()
			body := `{"transaction": {"id": "t-` + customer + `", "amount": 10, "currency": "EUR", "type": "card_payment", "customerId": "` + customer + `"}}`
			d, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, body), Live: live, Persist: persist})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		if got := evaluate("looked_up", false).Features["customer"]["count_1h"]; got != 1 {
			t.Fatalf("the lookup counts %v events, want its own", got)
		}
		for want := 1.0; want <= 2; want++ {
			if got := evaluate("next", true).Features["customer"]["count_1h"]; got != want {
				t.Fatalf("the next new customer's decision %v counts %v events", want, got)
			}
		}
		if got := evaluate("looked_up", true).Features["customer"]["count_1h"]; got != 1 {
			t.Fatalf("the customer looked up counts %v events at its first decision, want 1", got)
		}
	})
}

// TestPruneVelocityKeepsEveryWindow: the prune deletes every counter bucket that ended by the
// cutoff and every value last seen before it, and nothing else, so that decisions from the
// cutoff plus the longest window on count exactly what the in-memory counters of the whole
// history count. The first such decision's windows start at the cutoff's very second, where
// the history has events one second either side.
func TestPruneVelocityKeepsEveryWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, live, mem := context.Background(), newOrg(t, s), allFeaturesVersion(t), fraud.NewMemoryVelocity()
		rng := rand.New(rand.NewPCG(13, 14))
		first := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
		cutoff := first.Add(-fraud.MaxWindow + time.Second) // first's windows start at cutoff
		n := 0
		evaluate := func(at time.Time, which string) {
			t.Helper()
			req := randomTransfer(t, rng, n, at, [4]int{1, 2, 2, 3})
			n++
			d, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: req, Live: live, Persist: true})
			if err != nil {
				t.Fatal(err)
			}
			sameAsMemory(t, mem, req, d, live, fmt.Sprintf("event %d %s", n, which))
		}
		at := cutoff.Add(-40 * 24 * time.Hour)
		for at.Before(cutoff.Add(-time.Second)) {
			evaluate(at, "before the cutoff")
			at = at.Add(time.Duration(rng.Int64N(int64(36 * time.Hour))))
		}
		for _, at := range []time.Time{cutoff.Add(-time.Second), cutoff, cutoff.Add(time.Second), cutoff.Add(3 * 24 * time.Hour)} {
			evaluate(at, "at the cutoff")
		}
		// rows counts the rows of model, older than the cutoff when old is set.
		rows := func(model any, old string) int64 {
			t.Helper()
			q := s.DB.Model(model)
			if old != "" {
				q = q.Where(old, cutoff.Unix())
			}
			var n int64
			if err := q.Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		counter, value := &store.FraudVelocityCounter{}, &store.FraudVelocitySeen{}
		old := func() (int64, int64) {
			return rows(counter, "bucket_start + bucket_size <= ?"), rows(value, "last_seen < ?")
		}
		rowsBefore := rows(counter, "") + rows(value, "")
		oldCounters, oldSeen := old()
		if oldCounters == 0 || oldSeen == 0 {
			t.Fatalf("the history left %d counter rows and %d values before the cutoff, want some of each", oldCounters, oldSeen)
		}
		// Batches of 4: a chunk of four entities, whose old rows take several calls.
		var deleted int64
		for calls := 0; ; calls++ {
			if calls > 1000 {
				t.Fatal("the prune never reported the end of its walk")
			}
			got, err := s.Fraud.PruneVelocity(ctx, cutoff, 4)
			if err != nil {
				t.Fatal(err)
			}
			deleted += got
			if got < 4 {
				break
			}
		}
		if c, v := old(); c != 0 || v != 0 || deleted != oldCounters+oldSeen {
			t.Fatalf("after the prune %d counter rows and %d values are older than the cutoff; it reported %d deleted of %d",
				c, v, deleted, oldCounters+oldSeen)
		}
		if rowsAfter := rows(counter, "") + rows(value, ""); rowsAfter != rowsBefore-oldCounters-oldSeen {
			t.Fatalf("%d velocity rows before, %d after, %d were old: the prune deleted newer ones", rowsBefore, rowsAfter, oldCounters+oldSeen)
		}
		for i := range 8 {
			evaluate(first.Add(time.Duration(i)*time.Second), "after the prune")
		}
		if got, err := s.Fraud.PruneVelocity(ctx, cutoff, 4); err != nil || got != 0 {
			t.Fatalf("a second prune deleted %d (%v), want nothing", got, err)
		}
	})
}
