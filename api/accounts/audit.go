package accounts

import (
	"github.com/gin-gonic/gin"
	"github.com/svcplatform/svc/api"
)

// auditLogView is one audit record as the API shows it.
type auditLogView struct {
	ID                string  `json:"id"`
	Action            string  `json:"action"`
	ResourceID        *string `json:"resourceId"`
	UserID            *string `json:"userId"`
	APIKeyID          *string `json:"apiKeyId"`
	SessionID         *string `json:"sessionId"`
	CallerServiceSlug *string `json:"callerServiceSlug"`
	RequestID         string  `json:"requestId"`
	Status            int     `json:"status"`
	Environment       string  `json:"environment"`
	CreatedAt         string  `json:"createdAt"`
}

// listAuditLogs answers the organisation's audit log, newest first, cursor-paginated.
func (h *Handler) listAuditLogs(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 200, Cursor: true, Filters: []string{api.FilterQ, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	rows, next, err := h.Store.Audit.List(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	out := make([]auditLogView, 0, len(rows))
	for _, a := range rows {
		out = append(out, auditLogView{
			ID: a.ID, Action: a.Action, ResourceID: api.Nullable(a.ResourceID), UserID: api.Nullable(a.UserID),
			APIKeyID: api.Nullable(a.APIKeyID), SessionID: api.Nullable(a.SessionID), CallerServiceSlug: api.Nullable(a.CallerServiceSlug),
			RequestID: a.RequestID, Status: a.Status, Environment: a.Environment, CreatedAt: api.Timestamp(a.CreatedAt),
		})
	}
	api.CursorList(c, out, api.NextCursor(next), nil)
}
