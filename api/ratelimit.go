package api

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/ratelimit"
	"github.com/svcplatform/svc/store"
)

// Rate-limit response headers (SPEC 8.2).
const (
	HeaderRateLimit     = "X-RateLimit-Limit"
	HeaderRateRemaining = "X-RateLimit-Remaining"
	HeaderRateReset     = "X-RateLimit-Reset"
	HeaderRetryAfter    = "Retry-After"
)

// DefaultRateLimits is the limit of each bucket (SPEC 8.1). Organisations can have their own in
// the database (store.SetRateLimitOverride), by arrangement.
func DefaultRateLimits() map[string]ratelimit.Rule {
	return map[string]ratelimit.Rule{
		BucketRead:          {Limit: 600, Window: time.Minute},
		BucketWrite:         {Limit: 120, Window: time.Minute},
		BucketLogin:         {Limit: 5, Window: time.Minute}, // per client IP
		BucketEvaluate:      {Limit: 1000, Window: time.Minute},
		BucketScreening:     {Limit: 60, Window: time.Minute},
		BucketUpload:        {Limit: 60, Window: 10 * time.Minute},
		BucketDeviceSession: {Limit: 120, Window: time.Minute},
	}
}

// RateLimitsOf is each bucket's rule for an organisation with overrides: its own where it has a
// valid one, the default elsewhere.
func RateLimitsOf(overrides []store.RateLimitOverride) map[string]ratelimit.Rule {
	rules := DefaultRateLimits()
	for _, o := range overrides {
		if o.MaxRequests > 0 && o.WindowSeconds > 0 {
			rules[o.Bucket] = ratelimit.Rule{Limit: o.MaxRequests, Window: time.Duration(o.WindowSeconds) * time.Second}
		}
	}
	return rules
}

// overrideTTL is how long a process reuses an organisation's overrides; a change applies within it.
const overrideTTL = 30 * time.Second

// ruleFor is the rule of bucket for the organisation: its override, or the default.
func (s *Server) ruleFor(c *gin.Context, orgID, bucket string) ratelimit.Rule {
	def, ok := s.sec.defaults[bucket]
	if !ok {
		def = s.sec.defaults[BucketWrite]
	}
	if orgID == "" {
		return def
	}
	now := s.Now()
	rules, ok := s.sec.overrides.get(orgID, now)
	if !ok {
		rows, err := s.Store.RateLimits.Overrides(c.Request.Context(), orgID)
		if err != nil {
			Logger(c).Warn("load rate-limit overrides", "orgId", orgID, "error", err)
			return def
		}
		rules = RateLimitsOf(rows)
		s.sec.overrides.put(orgID, rules, now)
	}
	if r, ok := rules[bucket]; ok {
		return r
	}
	return def
}

// rateLimit limits an authenticated route per principal (key, or session user) and bucket. It
// runs right after authentication, so every authenticated response, 403 included, carries the
// headers.
func (s *Server) rateLimit(r Route) gin.HandlerFunc {
	bucket := r.bucket()
	return func(c *gin.Context) {
		p := PrincipalOf(c)
		s.limit(c, bucket, bucket+":"+p.RateKey(), s.ruleFor(c, p.OrgID, bucket))
	}
}

// rateLimitByIP limits a public route (login) per client IP.
func (s *Server) rateLimitByIP(r Route) gin.HandlerFunc {
	bucket := r.bucket()
	return func(c *gin.Context) {
		s.limit(c, bucket, bucket+":ip:"+s.clientIP(c), s.ruleFor(c, "", bucket))
	}
}

func (s *Server) limit(c *gin.Context, bucket, key string, rule ratelimit.Rule) {
	d, err := s.sec.limiter.Allow(c.Request.Context(), key, rule)
	if err != nil {
		Logger(c).Error("rate limit", "bucket", bucket, "error", err)
		Fail(c, http.StatusServiceUnavailable, MsgUnavailable)
		return
	}
	h := c.Writer.Header()
	h.Set(HeaderRateLimit, strconv.Itoa(d.Limit))
	h.Set(HeaderRateRemaining, strconv.Itoa(d.Remaining))
	h.Set(HeaderRateReset, strconv.FormatInt(d.Reset.Unix(), 10))
	if !d.Allowed {
		h.Set(HeaderRetryAfter, strconv.FormatInt(d.RetryAfterSeconds(), 10))
		RateLimited(c, bucket, d.Limit)
		return
	}
	c.Next()
}

// clientIP is the client's address: the connection's peer, unless that peer is a proxy named in
// http.trusted_proxies, in which case X-Forwarded-For is read from the right, skipping trusted
// proxies, and the first untrusted address is the client. Nothing else (X-Real-IP, Forwarded)
// is believed, and with no trusted proxies (the default) no header is.
func (s *Server) clientIP(c *gin.Context) string {
	host, _, err := net.SplitHostPort(c.Request.RemoteAddr)
	if err != nil {
		host = c.Request.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	if !s.trustedProxy(peer) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(c.Request.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: believe nothing further left
		}
		client = ip.Unmap()
		if !s.trustedProxy(client) {
			break
		}
	}
	return client.String()
}

func (s *Server) trustedProxy(ip netip.Addr) bool {
	for _, p := range s.sec.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
