package fraud_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestEvaluateLimitAcrossTwoProcesses: two API instances on one database (two `svc api`
// processes) serve the evaluators from the organisation's raised evaluate bucket, which both
// announce, and refuse at that limit together: the decisions allowed through both never exceed
// it. The limiter itself is checked at 20,000 a minute across two processes in
// internal/ratelimit (TestTwoProcessesHoldTheLimit); here it is the route's bucket and override.
func TestEvaluateLimitAcrossTwoProcesses(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			clk := apitest.NewClock(time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
			first := apitest.New(t, apitest.Options{Backend: &b, Clock: clk})
			st, err := store.Open(context.Background(), b.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			second := apitest.New(t, apitest.Options{Store: st, Clock: clk})
			override := func(limit int) {
				if err := first.Store.RateLimits.SetOverride(context.Background(), store.RateLimitOverride{
					OrgID: first.Org.ID, Bucket: api.BucketEvaluate, MaxRequests: limit, WindowSeconds: 60}); err != nil {
					t.Fatal(err)
				}
			}
			override(20000)
			key := first.Key("fraud:write")
			for _, h := range []*apitest.Harness{first, second} {
				res := h.Do("POST", "/api/transactions/evaluate", key, tx("t0", "1"))
				if res.Status != 200 || res.Header.Get(api.HeaderRateLimit) != "20000" {
					t.Fatalf("evaluate: %d, limit %q", res.Status, res.Header.Get(api.HeaderRateLimit))
				}
			}

			// A limit small enough to reach: a fresh organisation's key, so no cached override.
			ten := first.NewTenant("limited")
			if err := first.Store.RateLimits.SetOverride(context.Background(), store.RateLimitOverride{
				OrgID: ten.Org.ID, Bucket: api.BucketEvaluate, MaxRequests: 30, WindowSeconds: 60}); err != nil {
				t.Fatal(err)
			}
			allowed := 0
			for i := range 60 {
				h := []*apitest.Harness{first, second}[i%2]
				res := h.Do("POST", "/api/transactions/evaluate", ten.Key, tx(fmt.Sprint("t", i), "1"))
				switch res.Status {
				case 200:
					allowed++
				case 429:
				default:
					t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
				}
			}
			if allowed > 30 || allowed < 27 {
				t.Errorf("%d decisions allowed through two processes, want at most the limit of 30 and within 10 %% of it", allowed)
			}
			var stored int64
			if err := first.Store.DB.Model(&store.FraudDecision{}).Where("org_id = ?", ten.Org.ID).Count(&stored).Error; err != nil {
				t.Fatal(err)
			}
			if stored != int64(allowed) {
				t.Errorf("%d decisions stored, %d allowed", stored, allowed)
			}
		})
	}
}
