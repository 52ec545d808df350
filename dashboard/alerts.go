package dashboard

import (
	"net/http"

	domain "github.com/svcplatform/svc/internal/cases"
)

type alertsData struct {
	Rows       []any
	Statuses   []string
	Sources    []string
	NextCursor string
	Priorities []string
}

// alerts is the organisation's alert feed (screening hits, fraud decisions), newest first, a
// page at a time (the API's cursor), filtered by status and source; open alerts can be
// picked to open a case with them.
func (d *Dashboard) alerts(q *request) {
	in := q.r.URL.Query()
	query := listQuery(in, "status", "source", "q", "cursor", "caseId")
	a, ok := q.get("/api/alerts", query)
	if !ok {
		return
	}
	q.render(http.StatusOK, "alerts", view{Title: "Alerts", Section: "alerts", Data: alertsData{
		Rows: a.Rows(), Statuses: domain.Alerts.Names(), Sources: []string{string(domain.SourceScreening), string(domain.SourceFraud)},
		NextCursor: str(a.Body["nextCursor"]), Priorities: domain.Priorities(),
	}})
}
