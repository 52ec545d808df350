// Package ratelimit counts requests per key in fixed windows and decides whether one more is
// allowed (SPEC 8). The counters live behind one interface, Store, with two implementations:
// Database (shared by every API process through the application database: a process leases a
// slice of a window's budget with one atomic upsert and spends it locally, lease.go) and Memory
// (one process only: svc dev and tests).
package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Store counts requests.
type Store interface {
	// Hit counts one request for key in the fixed window that starts at start and lasts window,
	// and returns the window's count including this request.
	Hit(ctx context.Context, key string, start time.Time, window time.Duration) (int64, error)
}

// Rule is a limit: at most Limit requests per Window.
type Rule struct {
	Limit  int
	Window time.Duration
}

// Decision is the outcome of one request against a rule, with what the response headers say.
type Decision struct {
	Allowed   bool
	Limit     int
	Remaining int
	// Reset is the end of the current window (X-RateLimit-Reset, Unix seconds).
	Reset time.Time
	// RetryAfter is how long to wait when not allowed (Retry-After, whole seconds rounded up).
	RetryAfter time.Duration
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1.
func (d Decision) RetryAfterSeconds() int64 {
	s := int64((d.RetryAfter + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// Leaser is a Store shared by several processes that can count n requests at once: a
// process leases a slice of a window's budget and spends it locally (lease.go), so that the
// shared store sees one write per slice rather than one per request.
type Leaser interface {
	// Lease adds n to key's count in the window and returns the count including them.
	Lease(ctx context.Context, key string, start time.Time, window time.Duration, n int64) (int64, error)
}

// Limiter applies rules to keys using a Store and a clock.
type Limiter struct {
	store  Store
	now    func() time.Time
	leases *leases // nil unless the store is a Leaser
}

// New makes a Limiter; now is the clock (nil means time.Now), which tests control.
func New(store Store, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	l := &Limiter{store: store, now: now}
	if ls, ok := store.(Leaser); ok {
		l.leases = newLeases(ls)
	}
	return l
}

// Allow counts one request for key under rule and decides. Windows are aligned to the Unix epoch
// in whole seconds, so every process computes the same window for the same moment.
func (l *Limiter) Allow(ctx context.Context, key string, rule Rule) (Decision, error) {
	if rule.Limit < 1 || rule.Window < time.Second {
		return Decision{}, fmt.Errorf("ratelimit: invalid rule %+v", rule)
	}
	now := l.now()
	secs := int64(rule.Window / time.Second)
	start := time.Unix(now.Unix()-floorMod(now.Unix(), secs), 0).UTC()
	window := time.Duration(secs) * time.Second
	if l.leases != nil {
		d, err := l.leases.allow(ctx, key, rule, start, window, now)
		if err != nil {
			return Decision{}, fmt.Errorf("ratelimit: %w", err)
		}
		return d, nil
	}
	n, err := l.store.Hit(ctx, key, start, window)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: %w", err)
	}
	d := Decision{Limit: rule.Limit, Reset: start.Add(window), Allowed: n <= int64(rule.Limit)}
	if rem := int64(rule.Limit) - n; rem > 0 {
		d.Remaining = int(rem)
	}
	if !d.Allowed {
		d.RetryAfter = d.Reset.Sub(now)
	}
	return d, nil
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
