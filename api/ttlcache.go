package api

import (
	"sync"
	"time"
)

// ttlCache keeps per-process copies of rows the request path reads on every call (keys,
// organisations, rate-limit overrides) for ttl; a ttl of 0 disables it. Changes made through
// this process clear it; changes made through another API process apply within ttl.
type ttlCache[V any] struct {
	ttl     time.Duration
	mu      sync.RWMutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	v  V
	at time.Time
}

// maxCached bounds each cache; when full it starts over.
const maxCached = 10_000

func newTTLCache[V any](ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, entries: map[string]ttlEntry[V]{}}
}

// get returns the value cached under k unless it is older than ttl (or from the future: a
// clock moved back).
func (tc *ttlCache[V]) get(k string, now time.Time) (V, bool) {
	var zero V
	if tc.ttl <= 0 {
		return zero, false
	}
	tc.mu.RLock()
	e, ok := tc.entries[k]
	tc.mu.RUnlock()
	if !ok || now.Sub(e.at) >= tc.ttl || now.Before(e.at) {
		return zero, false
	}
	return e.v, true
}

func (tc *ttlCache[V]) put(k string, v V, now time.Time) {
	if tc.ttl <= 0 {
		return
	}
	tc.mu.Lock()
	if len(tc.entries) >= maxCached {
		tc.entries = map[string]ttlEntry[V]{}
	}
	tc.entries[k] = ttlEntry[V]{v: v, at: now}
	tc.mu.Unlock()
}

// clear forgets every cached value.
func (tc *ttlCache[V]) clear() {
	tc.mu.Lock()
	tc.entries = map[string]ttlEntry[V]{}
	tc.mu.Unlock()
}
