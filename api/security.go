package api

import (
	"net/netip"
	"sync"
	"time"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ratelimit"
)

// security is the per-process state of the common request handling: the rate limiter and its
// per-organisation overrides, the key and capability caches, trusted proxies and periodic upkeep.
type security struct {
	limiter   *ratelimit.Limiter
	defaults  map[string]ratelimit.Rule
	overrides *ttlCache[map[string]ratelimit.Rule]
	keys      *ttlCache[keyEntry]
	orgs      *ttlCache[auth.Capabilities]
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
		overrides: newTTLCache[map[string]ratelimit.Rule](overrideTTL),
		keys:      newTTLCache[keyEntry](d.Config.Auth.KeyCacheTTL),
		orgs:      newTTLCache[auth.Capabilities](d.Config.Auth.KeyCacheTTL),
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
