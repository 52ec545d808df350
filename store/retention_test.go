package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
)

// TestRetentionPrunesInBatches: each prune deletes at most its batch of what is older than the
// window and in a final state, and keeps everything else: recent rows, deliveries still
// pending, and the events those deliveries refer to.
func TestRetentionPrunesInBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		old, recent := now.Add(-100*24*time.Hour), now.Add(-time.Hour)
		before := now.Add(-90 * 24 * time.Hour)
		mk := func(i int, at time.Time, status webhook.DeliveryStatus) {
			t.Helper()
			ev := &store.Event{ID: fmt.Sprintf("evt_%03d", i), OrgID: org, Name: "workflow.execution.completed", OccurredAt: at, Body: []byte("{}"), CreatedAt: at}
			d := &store.Delivery{ID: fmt.Sprintf("dlv_%03d", i), OrgID: org, SubscriptionID: "whk_1", EventID: ev.ID, EventName: ev.Name,
				Status: status, Attempts: 1, CreatedAt: at, UpdatedAt: at}
			a := &store.DeliveryAttempt{DeliveryID: d.ID, Attempt: 1, OrgID: org, AttemptedAt: at, StatusCode: 200}
			for _, row := range []any{ev, d, a} {
				if err := s.DB.Create(row).Error; err != nil {
					t.Fatal(err)
				}
			}
		}
		for i := range 5 {
			mk(i, old, webhook.StatusDelivered)
		}
		mk(5, old, webhook.StatusDropped)
		mk(6, old, webhook.StatusPending) // still on its ladder: kept with its event
		mk(7, recent, webhook.StatusDelivered)

		var total int64
		for range 10 {
			n, err := s.Webhooks.PruneDeliveriesBefore(ctx, before, 4)
			if err != nil || n > 4 {
				t.Fatalf("PruneDeliveriesBefore = %d, %v; want at most the batch of 4", n, err)
			}
			total += n
			if n < 4 {
				break
			}
		}
		if total != 6 {
			t.Errorf("pruned %d deliveries, want the 6 final ones older than the window", total)
		}
		if n, err := s.Webhooks.PruneEvents(ctx, before, 100); err != nil || n != 6 {
			t.Errorf("PruneEvents = %d, %v; want 6 (not the pending delivery's, not the recent one)", n, err)
		}
		count := func(table string) (n int64) {
			if err := s.DB.Table(table).Where("org_id = ?", org).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		if e, d, a := count("events"), count("deliveries"), count("delivery_attempts"); e != 2 || d != 2 || a != 2 {
			t.Errorf("left: %d events, %d deliveries, %d attempts; want 2 of each", e, d, a)
		}

		// Idempotency records and rate-limit counters go once their windows have ended.
		for i := range 3 {
			rec := &store.IdempotencyRecord{ID: fmt.Sprintf("idm_%d", i), OrgID: org, Environment: "sandbox", Endpoint: "POST /api/x",
				ExternalID: fmt.Sprint(i), RequestHash: "h", State: "done", CreatedAt: old, ExpiresAt: now.Add(time.Duration(i-2) * time.Hour)}
			if err := s.DB.Create(rec).Error; err != nil {
				t.Fatal(err)
			}
			if _, err := s.RateLimits.Hit(ctx, fmt.Sprintf("default:key%d", i), now.Unix()-120, now.Unix()+int64(i-2)*60); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.Idempotency.PruneExpired(ctx, now, 1); err != nil || n != 1 {
			t.Errorf("PruneExpired batch = %d, %v; want 1", n, err)
		}
		if n, err := s.Idempotency.PruneExpired(ctx, now, 100); err != nil || n != 1 {
			t.Errorf("PruneExpired rest = %d, %v; want 1 (one record is still in its window)", n, err)
		}
		if n, err := s.RateLimits.PruneExpiredCounters(ctx, now, 100); err != nil || n != 2 {
			t.Errorf("PruneExpiredCounters = %d, %v; want 2", n, err)
		}
		if n, err := s.RateLimits.PruneExpiredCounters(ctx, now, 100); err != nil || n != 0 {
			t.Errorf("PruneExpiredCounters again = %d, %v; want 0", n, err)
		}
	})
}
