package chaos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svcplatform/svc/deploy/cluster"
	"github.com/svcplatform/svc/store"
)

// RateLimitCheck is what the cross-process rate-limit check saw: Sent requests of one key in
// one window, spread over every API, against a limit of Limit.
type RateLimitCheck struct {
	Limit, Sent, Allowed, Limited int
	Other                         []string
}

// Held reports whether the APIs together allowed the limit within 10 % (SPEC 8: a key's limit
// holds however many API processes share it) and answered nothing but 200 and 429.
func (r RateLimitCheck) Held() bool {
	slack := r.Limit / 10
	return len(r.Other) == 0 && r.Allowed >= r.Limit-slack && r.Allowed <= r.Limit+slack
}

func (r RateLimitCheck) String() string {
	return fmt.Sprintf("rate limit across the APIs: %d requests of one key in one window, limit %d: %d allowed, %d limited, %d other",
		r.Sent, r.Limit, r.Allowed, r.Limited, len(r.Other))
}

const (
	rlLimit  = 60
	rlWindow = 20 * time.Second
	rlSent   = 150
)

// checkRateLimit gives a fresh organisation a read limit of rlLimit per rlWindow, waits for
// the start of a window (windows are aligned to the Unix epoch) and sends rlSent reads with
// its key, alternating over every API, four at a time. It runs when the kills are over, so that
// every answer is a limiter's decision; a window the burst outlasted is tried again.
func checkRateLimit(ctx context.Context, c *cluster.Cluster, st *store.Store) (RateLimitCheck, error) {
	creds, err := c.Bootstrap(ctx, "--org", "Rate limit check")
	if err != nil {
		return RateLimitCheck{}, err
	}
	err = st.RateLimits.SetOverride(ctx, store.RateLimitOverride{
		OrgID: creds.OrgID, Bucket: "read", MaxRequests: rlLimit, WindowSeconds: int(rlWindow / time.Second),
	})
	if err != nil {
		return RateLimitCheck{}, err
	}
	for _, base := range c.APIURLs {
		if err := cluster.WaitHTTP(ctx, base+"/readyz", time.Minute); err != nil {
			return RateLimitCheck{}, fmt.Errorf("%s not ready: %w", base, err)
		}
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	for try := 0; ; try++ {
		start := time.Now().Truncate(rlWindow).Add(rlWindow)
		select {
		case <-ctx.Done():
			return RateLimitCheck{}, ctx.Err()
		case <-time.After(time.Until(start) + 100*time.Millisecond):
		}
		r := burst(hc, c.APIURLs, creds.APIKey)
		if time.Now().Before(start.Add(rlWindow)) || try == 2 {
			return r, nil
		}
	}
}

func burst(hc *http.Client, bases []string, key string) RateLimitCheck {
	r := RateLimitCheck{Limit: rlLimit, Sent: rlSent}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < rlSent; i = next.Add(1) - 1 {
				base := bases[int(i)%len(bases)]
				req, _ := http.NewRequest(http.MethodGet, base+"/api/executions?limit=1", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := hc.Do(req)
				mu.Lock()
				switch {
				case err != nil:
					r.Other = append(r.Other, err.Error())
				case res.StatusCode == http.StatusOK:
					r.Allowed++
				case res.StatusCode == http.StatusTooManyRequests:
					r.Limited++
				default:
					r.Other = append(r.Other, fmt.Sprintf("%s → %d", base, res.StatusCode))
				}
				mu.Unlock()
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	return r
}
