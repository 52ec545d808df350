package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestIdempotencyRelet: of two retries taking over one pending record, exactly one wins, and
// the record keeps its id (what the first try created is found under it).
func TestIdempotencyRelet(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		then := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		rec := &store.IdempotencyRecord{ID: ids.New(ids.Idempotency), OrgID: "org_1", Environment: "live", Endpoint: "POST /api/x",
			ExternalID: "e-1", RequestHash: "h", CreatedAt: then, ExpiresAt: then.Add(24 * time.Hour)}
		if existing, err := s.Idempotency.Claim(ctx, rec); err != nil || existing != nil {
			t.Fatalf("Claim = %v, %v", existing, err)
		}
		a, b := *rec, *rec
		now := then.Add(3 * time.Minute)
		wonA, errA := s.Idempotency.Relet(ctx, &a, now)
		wonB, errB := s.Idempotency.Relet(ctx, &b, now.Add(time.Second))
		if errA != nil || errB != nil || !wonA || wonB {
			t.Fatalf("Relet = %t %v, then %t %v; want the first to win alone", wonA, errA, wonB, errB)
		}
		got, err := s.Idempotency.Get(ctx, rec.ID)
		if err != nil || got.State != store.IdempotencyPending || !got.CreatedAt.Equal(now) {
			t.Fatalf("record after the takeover = %+v, %v", got, err)
		}
		if err := s.Idempotency.Complete(ctx, rec.ID, 202, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		done := *got
		if won, err := s.Idempotency.Relet(ctx, &done, now.Add(time.Hour)); err != nil || won {
			t.Fatalf("Relet of a completed record = %t, %v; want refused", won, err)
		}
	})
}
