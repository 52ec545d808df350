package dashboard

import (
	"net/http"
	"net/url"
)

type auditData struct {
	Rows       []any
	NextCursor string
}

// audit is the organisation's audit log, newest first, a page at a time (the API's cursor).
func (d *Dashboard) audit(q *request) {
	query := url.Values{"limit": {"50"}}
	if c := q.r.URL.Query().Get("cursor"); c != "" {
		query.Set("cursor", c)
	}
	a, ok := q.get("/api/audit-logs", query)
	if !ok {
		return
	}
	q.render(http.StatusOK, "audit", view{Title: "Audit log", Section: "audit", Data: auditData{Rows: a.Rows(), NextCursor: str(a.Body["nextCursor"])}})
}
