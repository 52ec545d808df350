package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ratelimit"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// clock is a controllable clock.
type clock struct{ t atomic.Int64 }

func newClock(t time.Time) *clock { c := &clock{}; c.t.Store(t.UnixNano()); return c }
func (c *clock) Now() time.Time   { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) Add(d time.Duration) {
	c.t.Add(int64(d))
}

// eachStore runs fn against the memory store and the database store on every backend.
func eachStore(t *testing.T, fn func(t *testing.T, newStore func() ratelimit.Store)) {
	t.Run("memory", func(t *testing.T) {
		m := ratelimit.NewMemory()
		fn(t, func() ratelimit.Store { return m })
	})
	for _, b := range storetest.Backends(t) {
		t.Run("database/"+b.Name, func(t *testing.T) {
			s := storetest.Open(t, b)
			fn(t, func() ratelimit.Store { return ratelimit.NewDatabase(s, nil) })
		})
	}
}

func TestLimiter(t *testing.T) {
	eachStore(t, func(t *testing.T, newStore func() ratelimit.Store) {
		ctx := context.Background()
		clk := newClock(time.Date(2026, 6, 1, 10, 0, 15, 0, time.UTC))
		l := ratelimit.New(newStore(), clk.Now)
		rule := ratelimit.Rule{Limit: 3, Window: time.Minute}
		reset := time.Date(2026, 6, 1, 10, 1, 0, 0, time.UTC)
		for i := 1; i <= 3; i++ {
			d, err := l.Allow(ctx, "read:key_a", rule)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Allowed || d.Limit != 3 || d.Remaining != 3-i || !d.Reset.Equal(reset) {
				t.Fatalf("request %d: %+v", i, d)
			}
		}
		clk.Add(20 * time.Second) // 10:00:35
		d, _ := l.Allow(ctx, "read:key_a", rule)
		if d.Allowed || d.Remaining != 0 || d.RetryAfterSeconds() != 25 {
			t.Fatalf("4th request: %+v (retry %ds)", d, d.RetryAfterSeconds())
		}
		// Other keys and other buckets have their own counters.
		if d, _ := l.Allow(ctx, "read:key_b", rule); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("other key: %+v", d)
		}
		if d, _ := l.Allow(ctx, "write:key_a", rule); !d.Allowed {
			t.Fatalf("other bucket: %+v", d)
		}
		// The window resets.
		clk.Add(25 * time.Second) // 10:01:00
		if d, _ := l.Allow(ctx, "read:key_a", rule); !d.Allowed || d.Remaining != 2 || !d.Reset.Equal(reset.Add(time.Minute)) {
			t.Fatalf("after reset: %+v", d)
		}
		// A 10-minute window (upload) is aligned and counted on its own.
		up := ratelimit.Rule{Limit: 60, Window: 10 * time.Minute}
		d, _ = l.Allow(ctx, "upload:key_a", up)
		if !d.Allowed || d.Remaining != 59 || !d.Reset.Equal(time.Date(2026, 6, 1, 10, 10, 0, 0, time.UTC)) {
			t.Fatalf("upload window: %+v", d)
		}
	})
}

func TestLimiterConcurrentExactlyLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, newStore func() ratelimit.Store) {
		clk := newClock(time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
		l := ratelimit.New(newStore(), clk.Now)
		rule := ratelimit.Rule{Limit: 10, Window: time.Minute}
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 30; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := l.Allow(context.Background(), "write:key_c", rule)
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
			}()
		}
		wg.Wait()
		if allowed.Load() != 10 {
			t.Fatalf("%d of 30 concurrent requests allowed, want exactly 10", allowed.Load())
		}
	})
}

// TestInstancesShareDatabaseCounter opens the same database twice, as two API processes would.
func TestInstancesShareDatabaseCounter(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			first := storetest.Open(t, b)
			second, err := store.Open(context.Background(), b.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = second.Close() })
			clk := newClock(time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
			a := ratelimit.New(ratelimit.NewDatabase(first, nil), clk.Now)
			c := ratelimit.New(ratelimit.NewDatabase(second, nil), clk.Now)
			rule := ratelimit.Rule{Limit: 4, Window: time.Minute}
			for i, l := range []*ratelimit.Limiter{a, c, a, c} {
				d, err := l.Allow(context.Background(), "read:key_s", rule)
				if err != nil || !d.Allowed || d.Remaining != 3-i {
					t.Fatalf("request %d: %+v, %v", i, d, err)
				}
			}
			if d, _ := c.Allow(context.Background(), "read:key_s", rule); d.Allowed {
				t.Fatal("the second instance allowed a 5th request: counters are not shared")
			}
		})
	}
}

func TestInvalidRule(t *testing.T) {
	l := ratelimit.New(ratelimit.NewMemory(), nil)
	for _, r := range []ratelimit.Rule{{Limit: 0, Window: time.Minute}, {Limit: 1, Window: time.Millisecond}} {
		if _, err := l.Allow(context.Background(), "k", r); err == nil {
			t.Errorf("rule %+v accepted", r)
		}
	}
}

// TestTwoProcessesHoldTheLimit: two API processes' limiters on one database, many concurrent
// requests of one key through both. The limit is never exceeded (every allowed request was
// counted in the database first) and is reached within 10 % (a process holds at most a
// twentieth of it unspent); the database sees one write per leased slice, not per request.
// Also at the fraud evaluators' per-organisation 20,000 a minute.
func TestTwoProcessesHoldTheLimit(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			first := storetest.Open(t, b)
			second, err := store.Open(context.Background(), b.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = second.Close() })
			clk := newClock(time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
			procs := []*ratelimit.Limiter{
				ratelimit.New(ratelimit.NewDatabase(first, nil), clk.Now),
				ratelimit.New(ratelimit.NewDatabase(second, nil), clk.Now),
			}
			for _, limit := range []int{600, 20000} {
				key := fmt.Sprintf("evaluate:org_%d", limit)
				rule := ratelimit.Rule{Limit: limit, Window: time.Minute}
				var allowed atomic.Int64
				var wg sync.WaitGroup
				for g := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range limit * 3 / 2 / 8 {
							d, err := procs[g%2].Allow(context.Background(), key, rule)
							if err != nil {
								t.Error(err)
								return
							}
							if d.Allowed {
								allowed.Add(1)
							}
						}
					}()
				}
				wg.Wait()
				if got := allowed.Load(); got > int64(limit) || got < int64(limit)*9/10 {
					t.Errorf("limit %d: %d allowed of %d, want within 10 %% below the limit", limit, got, limit*3/2)
				}
				var counted int64
				if err := first.DB.Model(&store.RateLimitCounter{}).Where("bucket_key = ?", key).Select("hits").Scan(&counted).Error; err != nil {
					t.Fatal(err)
				}
				if leased := int64(limit / 20); counted < int64(limit) || counted > int64(limit)+2*leased {
					t.Errorf("limit %d: the database counted %d, want the limit plus at most one slice per process", limit, counted)
				}
			}
		})
	}
}
