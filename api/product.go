package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/ids"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/auth"
)

// Product is one product's part of the API (api/<product>): its routes, each with Product set.
// The platform's own endpoints (api/accounts) are one too, with Product left empty.
type Product interface {
	Routes() []Route
}

// TemporalCallTimeout bounds one call to Temporal made for a request.
const TemporalCallTimeout = 15 * time.Second

// TemporalAvailable answers 503 and returns false when the API has no Temporal client.
func TemporalAvailable(c *gin.Context, t client.Client) bool {
	if t == nil {
		Logger(c).Error("no Temporal client configured")
		Fail(c, http.StatusServiceUnavailable, MsgUnavailable)
		return false
	}
	return true
}

// TemporalContext is the context of a call to Temporal made for a request: it outlives a
// client that hangs up (a start or an update is not left half-done) but not TemporalCallTimeout.
func TemporalContext(c *gin.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(c.Request.Context()), TemporalCallTimeout)
}

// Idempotent finishes idempotency (SPEC 4.7) for a handler that streams a multipart body: with
// the externalId form field and a hash of the parts, it runs next unless the same externalId
// was seen on this endpoint, and then replays that answer or refuses a different request (422).
func Idempotent(c *gin.Context, externalID, hash string, next func()) {
	if f, ok := c.Get(ctxIdempotent); ok {
		f.(func(extID, hash string, next func()))(externalID, hash, next)
		return
	}
	next()
}

// NewID is the id of the resource a POST creates: for a POST with an externalId, the same id
// on every try of it (the idempotency record's, rebranded), so that a retry that takes over
// from a try whose process died finds what that try began (a row, a workflow run under the
// same id) instead of creating a second one; otherwise a fresh id. One resource per prefix
// and request.
func NewID(c *gin.Context, p ids.Prefix) string {
	if id := c.GetString(ctxIdempotencyID); id != "" {
		return ids.Rebrand(p, id)
	}
	return ids.New(p)
}

// ForgetKeys drops the serving API's cached key and organisation lookups: a handler that
// changes a key, a user, a role or an organisation's capabilities calls it so that the change
// applies to the next request.
func ForgetKeys(c *gin.Context) {
	if f, ok := c.Get(ctxForgetKeys); ok {
		f.(func())()
	}
}

// SetPrincipal makes p the request's principal (login and logout, for the audit log).
func SetPrincipal(c *gin.Context, p *auth.Principal) { c.Set(ctxPrincipal, p) }

// Nullable shows an empty string as JSON null.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TimestampPtr is Timestamp of t, or nil (JSON null) when t is nil.
func TimestampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Timestamp(*t)
	return &s
}

// Quote shows a user-supplied value in a message, shortened.
func Quote(v string) string {
	if len(v) > 60 {
		v = v[:60] + "…"
	}
	return `"` + strings.ToValidUTF8(v, "?") + `"`
}
