package api

import (
	"net/netip"
	"sync"
	"time"

	"github.com/svcplatform/svc/ratelimit"
)

// security is the per-process state of the common request handling: the rate limiter and its
// per-organisation overrides, the key-lookup cache, trusted proxies and periodic upkeep.
type security struct {
	limiter   *ratelimit.Limiter
	defaults  map[string]ratelimit.Rule
	overrides *overrideCache
	keys      *keyCache
	trusted   []netip.Prefix

	mu                sync.Mutex
	idempotencyPurged time.Time
}

func newSecurity(d Deps) *security {
	counters := d.RateLimits
	if counters == nil {
		if d.Config.RateLimit.Store == "memory" {
			counters = ratelimit.NewMemory()
		} else {
			counters = ratelimit.NewDatabase(d.Store, d.Logger)
		}
	}
	sec := &security{
		limiter:   ratelimit.New(counters, d.Now),
		defaults:  DefaultRateLimits(),
		overrides: &overrideCache{ttl: overrideTTL, entries: map[string]overrideEntry{}},
		keys:      &keyCache{ttl: d.Config.Auth.KeyCacheTTL, entries: map[string]keyEntry{}},
	}
	for _, p := range d.Config.HTTP.TrustedProxies {
		if pfx, err := netip.ParsePrefix(p); err == nil { // config.Validate has refused bad ones
			sec.trusted = append(sec.trusted, pfx.Masked())
		}
	}
	return sec
}

// due reports, at most once per interval, that periodic upkeep should run now.
func (sec *security) due(last *time.Time, now time.Time, every time.Duration) bool {
	sec.mu.Lock()
	defer sec.mu.Unlock()
	if now.Sub(*last) < every && !now.Before(*last) {
		return false
	}
	*last = now
	return true
}
