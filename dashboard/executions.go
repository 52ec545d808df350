package dashboard

import (
	"net/http"
	"net/url"

	orch "github.com/svcplatform/svc/internal/orchestration"
)

type executionsData struct {
	Rows       []any
	Statuses   []string
	Summary    map[string]any
	NextCursor string
	Workflows  []any
}

// executions lists executions, newest first, filtered by status and workflow, a page at a
// time (the API's cursor).
func (d *Dashboard) executions(q *request) {
	in := q.r.URL.Query()
	query := url.Values{"limit": {"50"}, "summary": {"true"}}
	for _, k := range []string{"status", "workflowId", "cursor", "q"} {
		if v := in.Get(k); v != "" {
			query.Set(k, v)
		}
	}
	a, ok := q.get("/api/executions", query)
	if !ok {
		return
	}
	wf, ok := q.get("/api/workflows", url.Values{"limit": {"100"}})
	if !ok {
		return
	}
	summary, _ := a.Body["summary"].(map[string]any)
	q.render(http.StatusOK, "executions", view{Title: "Executions", Section: "executions", Data: executionsData{
		Rows: a.Rows(), Statuses: orch.Executions.Names(), Summary: summary, NextCursor: str(a.Body["nextCursor"]), Workflows: wf.Rows(),
	}})
}

// execution is one execution: steps, approvals (pending ones with their forms), inputs,
// output and the link into the Temporal UI.
func (d *Dashboard) execution(q *request) {
	q.showExecution(q.r.PathValue("id"), http.StatusOK, "")
}

func (q *request) showExecution(id string, status int, refusal string) {
	a, ok := q.get("/api/executions/"+url.PathEscape(id), nil)
	if !ok {
		return
	}
	q.render(status, "execution", view{Title: "Execution " + id, Section: "executions", Refusal: refusal, Data: a.Data()})
}
