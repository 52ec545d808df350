package api

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// HeaderRequestID carries the request id on every response (SPEC 7.1).
const HeaderRequestID = "x-service-request-id"

const (
	ctxRequestID = "svc.requestID"
	ctxLogger    = "svc.logger"
	// ctxBaseLogger holds the server's logger, from which Logger makes the request's on first use.
	ctxBaseLogger = "svc.baseLogger"
	ctxRawBody    = "svc.rawBody"
	ctxPrincipal  = "svc.principal"
	// ctxIdempotent holds the idempotency of a multipart route, for Idempotent.
	ctxIdempotent = "svc.idempotent"
	// ctxIdempotencyID holds the id of the idempotency record the request owns, for NewID.
	ctxIdempotencyID = "svc.idempotency_id"
	// ctxForgetKeys holds the key cache's clear, for ForgetKeys.
	ctxForgetKeys = "svc.forgetKeys"
	ctxRoute      = "svc.route"
)

func (s *Server) buildEngine() *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	_ = e.SetTrustedProxies(nil) // client IPs come only from config-named proxies (clientIP)
	e.Use(s.requestID, s.recoverPanics, s.accessLog)
	for _, r := range s.routes {
		r := r
		chain := append(s.routeMiddleware(r), r.Handler)
		e.Handle(r.Method, r.Path, chain...)
	}
	e.NoRoute(func(c *gin.Context) { NotFound(c) })
	e.NoMethod(func(c *gin.Context) { Fail(c, http.StatusMethodNotAllowed, MsgMethodNotAllowed) })
	return e
}

// routeMiddleware is the per-route chain, in order: route info, body checks, authentication, rate
// limit (per key; per client IP for public routes with a bucket, i.e. login), the organisation's
// capability for the route's product, scope check, audit
// of writes, idempotency (routes marked Idempotent), then the handler.
func (s *Server) routeMiddleware(r Route) []gin.HandlerFunc {
	chain := []gin.HandlerFunc{
		func(c *gin.Context) { c.Set(ctxRoute, r) },
		s.metricsFor(r),
		s.bodyCheck(r),
	}
	if !r.Public {
		chain = append(chain, s.authenticate, s.rateLimit(r))
		if r.Product != "" {
			chain = append(chain, s.requireCapability(r.Product))
		}
		chain = append(chain, s.requireScope(r.Scope))
	} else if r.Bucket != "" {
		chain = append(chain, s.rateLimitByIP(r))
	}
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.AuditReads {
		chain = append(chain, s.auditWrites(r))
	}
	if r.Idempotent {
		chain = append(chain, s.idempotency(r))
	}
	return chain
}

// requestID accepts a sane incoming request id or makes one, and sets it on the response.
func (s *Server) requestID(c *gin.Context) {
	id := c.GetHeader(HeaderRequestID)
	if !saneRequestID(id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = "req_" + hex.EncodeToString(b[:])
	}
	c.Set(ctxRequestID, id)
	c.Header(HeaderRequestID, id)
	// The request's logger (With formats its attribute at once) is made only when something logs.
	c.Set(ctxBaseLogger, s.Logger)
	c.Set(ctxForgetKeys, s.forgetCached)
	c.Next()
}

func saneRequestID(id string) bool {
	if len(id) < 8 || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// RequestID is the id of the current request.
func RequestID(c *gin.Context) string { return c.GetString(ctxRequestID) }

// Logger is the request's logger, carrying its request id.
func Logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(ctxLogger); ok {
		return l.(*slog.Logger)
	}
	base, ok := c.Get(ctxBaseLogger)
	if !ok {
		return slog.Default()
	}
	l := base.(*slog.Logger).With("requestId", RequestID(c))
	c.Set(ctxLogger, l)
	return l
}

// recoverPanics turns a panic into a 500 envelope, logged with the request id and stack.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			Logger(c).Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if !c.Writer.Written() {
				Fail(c, http.StatusInternalServerError, MsgInternal)
			} else {
				c.Abort()
			}
		}
	}()
	c.Next()
}

// accessLog writes one line per request. It logs the path without the query string.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	level := slog.LevelInfo
	if c.Writer.Status() >= 500 {
		level = slog.LevelError
	}
	if !s.Logger.Enabled(c.Request.Context(), level) {
		return // the line would be dropped: do not build it
	}
	attrs := []any{
		"method", c.Request.Method,
		"path", c.Request.URL.Path,
		"status", c.Writer.Status(),
		"durationMs", float64(time.Since(start).Microseconds()) / 1000,
		"bytes", c.Writer.Size(),
	}
	if p := PrincipalOf(c); p != nil {
		attrs = append(attrs, "orgId", p.OrgID)
		if p.APIKeyID != "" {
			attrs = append(attrs, "apiKeyId", p.APIKeyID)
		}
	}
	Logger(c).Log(c.Request.Context(), level, "request", attrs...)
}

// bodyCheck enforces the route's content type (415) and size cap (413).
func (s *Server) bodyCheck(r Route) gin.HandlerFunc {
	limit := r.MaxBody
	if limit == 0 {
		limit = s.Config.HTTP.MaxBodyBytes
	}
	return func(c *gin.Context) {
		if c.Request.ContentLength > limit {
			Fail(c, http.StatusRequestEntityTooLarge, MsgTooLarge)
			return
		}
		hasBody := c.Request.ContentLength > 0 || c.Request.TransferEncoding != nil
		ct, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
		switch r.Body {
		case BodyJSON:
			if hasBody && ct != "application/json" && !strings.HasSuffix(ct, "+json") {
				Fail(c, http.StatusUnsupportedMediaType, MsgUnsupportedMedia+": use application/json")
				return
			}
		case BodyMultipart:
			if ct != "multipart/form-data" {
				Fail(c, http.StatusUnsupportedMediaType, MsgUnsupportedMedia+": use multipart/form-data")
				return
			}
		}
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
		c.Next()
	}
}
