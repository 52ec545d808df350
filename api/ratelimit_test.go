package api_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/ratelimit"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// rateLimitStores runs fn with each counter store: memory, and the database on every backend.
func rateLimitStores(t *testing.T, fn func(t *testing.T, o apitest.Options)) {
	t.Run("memory", func(t *testing.T) { fn(t, apitest.Options{RateLimits: ratelimit.NewMemory()}) })
	for _, b := range storetest.Backends(t) {
		b := b
		t.Run("database/"+b.Name, func(t *testing.T) { fn(t, apitest.Options{Backend: &b}) })
	}
}

func setLimit(t *testing.T, h *apitest.Harness, orgID, bucket string, limit, windowSeconds int) {
	t.Helper()
	if err := h.Store.RateLimits.SetOverride(context.Background(), store.RateLimitOverride{
		OrgID: orgID, Bucket: bucket, MaxRequests: limit, WindowSeconds: windowSeconds}); err != nil {
		t.Fatal(err)
	}
}

func TestRateLimits(t *testing.T) {
	rateLimitStores(t, func(t *testing.T, o apitest.Options) {
		o.Clock = apitest.NewClock(time.Date(2026, 6, 1, 10, 0, 10, 0, time.UTC))
		h := apitest.New(t, o)
		reset := strconv.FormatInt(time.Date(2026, 6, 1, 10, 1, 0, 0, time.UTC).Unix(), 10)
		key := h.Key("users:view", "api:manage")

		// Headers on every authenticated response, whatever its status: 200, 400, 403, 404.
		for i, c := range []struct {
			method, path string
			status       int
		}{
			{"GET", "/identity/api/auth/me", 200},
			{"GET", "/api/users?page=0", 400},
			{"GET", "/api/pings/zzz", 403},
			{"GET", "/api/users/usr_00000000000000000000000000", 404},
		} {
			res := h.Do(c.method, c.path, key, nil)
			wantStatus(t, res, c.status)
			if res.Header.Get(api.HeaderRateLimit) != "600" || res.Header.Get(api.HeaderRateRemaining) != strconv.Itoa(599-i) ||
				res.Header.Get(api.HeaderRateReset) != reset || res.Header.Get(api.HeaderRetryAfter) != "" {
				t.Fatalf("%s %s headers: %v", c.method, c.path, res.Header)
			}
		}
		// Writes count in their own bucket.
		res := h.Do("POST", "/api/api-keys", key, map[string]any{})
		if res.Header.Get(api.HeaderRateLimit) != "120" || res.Header.Get(api.HeaderRateRemaining) != "119" {
			t.Fatalf("write bucket headers: %v", res.Header)
		}

		// 429 at the limit (an organisation override makes it small), then reset after the window.
		setLimit(t, h, h.Org.ID, api.BucketRead, 3, 60)
		h.Clock.Advance(time.Minute) // new window; the override cache has expired too
		limited := h.Key("read")
		for i := 0; i < 3; i++ {
			wantStatus(t, h.Do("GET", "/identity/api/auth/me", limited, nil), 200)
		}
		h.Clock.Advance(20 * time.Second) // 10:01:30
		res = h.Do("GET", "/identity/api/auth/me", limited, nil)
		wantStatus(t, res, 429)
		if res.Error() != api.MsgRateLimited || res.JSON["bucket"] != "read" || res.JSON["limit"].(float64) != 3 ||
			res.Header.Get(api.HeaderRetryAfter) != "30" || res.Header.Get(api.HeaderRateRemaining) != "0" {
			t.Fatalf("429: %v %s", res.Header, res.Body)
		}
		// Per key: another key of the same organisation is not limited by the first one's use.
		wantStatus(t, h.Do("GET", "/identity/api/auth/me", h.Key("read"), nil), 200)
		h.Clock.Advance(30 * time.Second) // 10:02:00, a new window
		res = h.Do("GET", "/identity/api/auth/me", limited, nil)
		wantStatus(t, res, 200)
		if res.Header.Get(api.HeaderRateRemaining) != "2" {
			t.Fatalf("after reset: %v", res.Header)
		}
	})
}

// TestRateLimitDefaults checks the bucket table against SPEC 8.1.
func TestRateLimitDefaults(t *testing.T) {
	d := api.DefaultRateLimits()
	want := map[string]ratelimit.Rule{
		"read": {Limit: 600, Window: time.Minute}, "write": {Limit: 120, Window: time.Minute}, "login": {Limit: 5, Window: time.Minute},
		"screening": {Limit: 60, Window: time.Minute}, "upload": {Limit: 60, Window: 10 * time.Minute},
	}
	for b, r := range want {
		if d[b] != r {
			t.Errorf("bucket %s = %+v, want %+v", b, d[b], r)
		}
	}
	if e := d["evaluate"]; e.Limit < 600 || e.Limit > 1000 || e.Window != time.Minute {
		t.Errorf("evaluate = %+v", e)
	}
}

// TestRateLimitSharedAcrossInstances runs two API instances on one database (as two `svc api`
// processes would): they share one counter.
func TestRateLimitSharedAcrossInstances(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		b := b
		t.Run(b.Name, func(t *testing.T) {
			clk := apitest.NewClock(time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
			first := apitest.New(t, apitest.Options{Backend: &b, Clock: clk})
			second, err := store.Open(context.Background(), b.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = second.Close() })
			other := apitest.New(t, apitest.Options{Store: second, Clock: clk})
			setLimit(t, first, first.Org.ID, api.BucketRead, 4, 60)
			key := first.Key("read")
			for i, h := range []*apitest.Harness{first, other, first, other} {
				res := h.Do("GET", "/identity/api/auth/me", key, nil)
				wantStatus(t, res, 200)
				if res.Header.Get(api.HeaderRateRemaining) != strconv.Itoa(3-i) {
					t.Fatalf("request %d: remaining %s", i, res.Header.Get(api.HeaderRateRemaining))
				}
			}
			wantStatus(t, other.Do("GET", "/identity/api/auth/me", key, nil), 429)
			wantStatus(t, first.Do("GET", "/identity/api/auth/me", key, nil), 429)
		})
	}
}
