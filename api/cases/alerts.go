package cases

import (
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/store"
)

// alertView is an alert as the API shows it.
type alertView struct {
	ID          string         `json:"id"`
	Source      string         `json:"source"`
	SourceRef   string         `json:"sourceRef"`
	Subject     *string        `json:"subject"`
	CustomerID  *string        `json:"customerId"`
	Score       float64        `json:"score"`
	Summary     *string        `json:"summary"`
	ReasonCodes []string       `json:"reasonCodes"`
	Details     map[string]any `json:"details"`
	Status      string         `json:"status"`
	CaseID      *string        `json:"caseId"`
	CreatedAt   string         `json:"createdAt"`
}

func newAlertView(a *store.Alert) alertView {
	v := alertView{ID: a.ID, Source: a.Source, SourceRef: a.SourceRef, Subject: api.Nullable(a.Subject), CustomerID: api.Nullable(a.CustomerID),
		Score: a.Score, Summary: api.Nullable(a.Summary), ReasonCodes: api.NonNil(a.ReasonCodes), Details: a.Details, Status: a.Status,
		CaseID: api.Nullable(a.CaseID), CreatedAt: api.Timestamp(a.CreatedAt)}
	if v.Details == nil {
		v.Details = map[string]any{}
	}
	return v
}

// listAlerts is the organisation's alert feed, newest first (cursor). Filters: status, q
// (summary), from/to, customerId, source, caseId.
func (h *Handler) listAlerts(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Cursor: true, Statuses: domain.Alerts.Names(), Extra: []string{"source", "caseId"},
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterCustomerID}})
	if !ok {
		return
	}
	source := strings.TrimSpace(c.Query("source"))
	if source != "" && source != string(domain.SourceScreening) && source != string(domain.SourceFraud) {
		api.ValidationFailed(c, api.FieldErrors{"source": {"must be screening or fraud"}})
		return
	}
	rows, next, err := h.Store.Cases.ListAlerts(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor,
		store.AlertQuery{Filter: q.Filter, Source: source, CaseID: strings.TrimSpace(c.Query("caseId"))})
	if api.Loaded(c, err) {
		api.CursorRows(c, rows, next, newAlertView, nil)
	}
}
