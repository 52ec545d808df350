package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

const (
	ctxAuditResource = "svc.auditResource"
	ctxAuditAction   = "svc.auditAction"
	ctxAuditInTx     = "svc.auditInTx"
	ctxCapture       = "svc.capture"
	ctxReplayed      = "svc.replayed"
)

// AuditResource names the resource a write acted on, for the audit log. Handlers need it only
// when the resource id is neither the path's :id nor data.id of the response.
func AuditResource(c *gin.Context, id string) { c.Set(ctxAuditResource, id) }

// AuditInTransaction hands the handler the audit entry of its write, to commit in the write's
// own transaction (with the resource's id filled in there): the action and its audit record are
// then kept together or not at all, and the fast path pays no transaction of its own for it.
// The middleware no longer writes the entry; the handler must answer 200 once it committed.
func AuditInTransaction(c *gin.Context) *store.AuditLog {
	p := PrincipalOf(c)
	action := c.GetString(ctxAuditAction)
	if p == nil || action == "" {
		return nil
	}
	c.Set(ctxAuditInTx, true)
	return &store.AuditLog{OrgID: p.OrgID, Environment: p.Environment, UserID: p.UserID, APIKeyID: p.APIKeyID,
		SessionID: p.SessionID, CallerServiceSlug: p.CallerServiceSlug, Action: action, RequestID: RequestID(c),
		Status: http.StatusOK}
}

// captureWriter keeps a copy of what a handler writes (for the audit log and idempotent replays).
type captureWriter struct {
	gin.ResponseWriter
	buf      bytes.Buffer
	overflow bool
}

// maxCapture caps the copy; a larger response is neither replayed nor searched for an id.
const maxCapture = 1 << 20

func (w *captureWriter) Write(b []byte) (int, error) {
	if !w.overflow {
		if w.buf.Len()+len(b) > maxCapture {
			w.overflow = true
			w.buf = bytes.Buffer{}
		} else {
			w.buf.Write(b)
		}
	}
	return w.ResponseWriter.Write(b)
}

// body is the copy, or nil when the response was too large to keep.
func (w *captureWriter) body() []byte {
	if w.overflow {
		return nil
	}
	return w.buf.Bytes()
}

func (w *captureWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// capture installs (once) a copy of the response body and returns it.
func capture(c *gin.Context) *captureWriter {
	if w, ok := c.Get(ctxCapture); ok {
		return w.(*captureWriter)
	}
	w := &captureWriter{ResponseWriter: c.Writer}
	c.Writer = w
	c.Set(ctxCapture, w)
	return w
}

// auditWrites records every successful write (2xx) of route r: organisation, effective user, key
// or session, calling service, action ("POST /api/api-keys/:id/rotate"), resource id, request id
// and time. Replays of an idempotent request changed nothing and are not recorded. A failure to
// record is logged; the write has already happened.
func (s *Server) auditWrites(r Route) gin.HandlerFunc {
	action := r.Method + " " + r.Path
	return func(c *gin.Context) {
		w := capture(c)
		c.Set(ctxAuditAction, action)
		c.Next()
		status := c.Writer.Status()
		p := PrincipalOf(c)
		if status < 200 || status > 299 || p == nil || c.GetBool(ctxReplayed) || c.GetBool(ctxAuditInTx) {
			return
		}
		resource := c.GetString(ctxAuditResource)
		if resource == "" {
			resource = c.Param("id")
		}
		if resource == "" {
			resource = responseID(w.body())
		}
		if len(resource) > 100 { // the column's size; ids are far shorter
			resource = resource[:100]
		}
		now := s.Now().UTC()
		entry := &store.AuditLog{
			ID: ids.NewAt(ids.Audit, now), OrgID: p.OrgID, Environment: p.Environment,
			UserID: p.UserID, APIKeyID: p.APIKeyID, SessionID: p.SessionID, CallerServiceSlug: p.CallerServiceSlug,
			Action: action, ResourceID: resource, RequestID: RequestID(c), Status: status, CreatedAt: now,
		}
		if err := s.Store.Audit.Write(context.WithoutCancel(c.Request.Context()), entry); err != nil {
			Logger(c).Error("audit log write failed", "action", action, "resourceId", resource, "error", err)
		}
	}
}

// responseID finds data.id, or the id of the one object inside data ({data: {webhook: {id}}}).
func responseID(body []byte) string {
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	var id string
	if raw, ok := env.Data["id"]; ok && json.Unmarshal(raw, &id) == nil {
		return id
	}
	for _, raw := range env.Data {
		var inner struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &inner) == nil && inner.ID != "" {
			return inner.ID
		}
	}
	return ""
}
