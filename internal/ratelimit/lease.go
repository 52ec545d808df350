package ratelimit

import (
	"context"
	"sync"
	"time"
)

// leaseShare is the part of a window's limit one lease takes: one process holds at most this
// much of the budget unspent, so with P processes a key is refused no earlier than at
// (1 - (P-1)/leaseShare) of its limit, and never allowed beyond it (every allowed request was
// counted in the shared store before it was allowed).
const leaseShare = 20

// leases are this process's slices of windows' budgets, spent locally.
type leases struct {
	store Leaser
	mu    sync.Mutex
	m     map[leaseKey]*lease
	swept time.Time
}

type leaseKey struct {
	key   string
	start int64
}

type lease struct {
	// granted is what this process leased in the window, used what it allowed of it.
	granted, used int64
	// counted is the shared count after this process's last lease; exhausted means it
	// reached the limit, so the window has nothing left to lease.
	counted   int64
	exhausted bool
	end       time.Time
	// leasing is closed when this process's lease in flight for the window returns: one at a
	// time, so that a process never holds more than one slice unspent.
	leasing chan struct{}
}

func newLeases(s Leaser) *leases { return &leases{store: s, m: map[leaseKey]*lease{}} }

// allow spends one request of the key's lease, leasing a new slice when it is used up.
func (ls *leases) allow(ctx context.Context, key string, rule Rule, start time.Time, window time.Duration, now time.Time) (Decision, error) {
	k := leaseKey{key, start.Unix()}
	limit := int64(rule.Limit)
	d := Decision{Limit: rule.Limit, Reset: start.Add(window)}
	for {
		ls.mu.Lock()
		ls.sweep(now)
		le := ls.m[k]
		if le == nil {
			le = &lease{end: start.Add(window)}
			ls.m[k] = le
		}
		if le.used < le.granted {
			le.used++
			d.Allowed = true
			d.Remaining = int(max(0, limit-le.counted) + le.granted - le.used)
			ls.mu.Unlock()
			return d, nil
		}
		if le.exhausted {
			ls.mu.Unlock()
			d.RetryAfter = d.Reset.Sub(now)
			return d, nil
		}
		if wait := le.leasing; wait != nil {
			ls.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return Decision{}, ctx.Err()
			}
			continue
		}
		le.leasing = make(chan struct{})
		ls.mu.Unlock()
		size := max(1, limit/leaseShare)
		n, err := ls.store.Lease(ctx, key, start, window, size)
		ls.mu.Lock()
		if err == nil {
			// Of the slice, only what fits under the limit is this process's to spend.
			le.granted += max(0, size-max(0, n-limit))
			le.counted = max(le.counted, n)
			le.exhausted = n >= limit
		}
		close(le.leasing)
		le.leasing = nil
		ls.mu.Unlock()
		if err != nil {
			return Decision{}, err
		}
	}
}

// sweep forgets ended windows, at most once a second; the caller holds ls.mu.
func (ls *leases) sweep(now time.Time) {
	if now.Sub(ls.swept) < time.Second {
		return
	}
	ls.swept = now
	for k, le := range ls.m {
		if !now.Before(le.end) {
			delete(ls.m, k)
		}
	}
}
