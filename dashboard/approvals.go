package dashboard

import (
	"net/http"
	"net/url"
)

type approvalsData struct {
	Rows []any
	// Mine is the assignee the inbox shows ("role:<the visitor's role>"); "" shows every pending approval.
	Mine, AssignTo string
}

// approvals is the inbox: pending approvals for the visitor's role (or all of them), each with
// its context data and the approve and reject forms.
func (d *Dashboard) approvals(q *request) {
	q.showApprovals(http.StatusOK, "")
}

func (q *request) showApprovals(status int, refusal string) {
	mine := "role:" + q.user.Role
	assignTo := mine
	if q.r.URL.Query().Get("all") != "" {
		assignTo = ""
	}
	query := url.Values{"status": {"pending"}, "limit": {"50"}}
	if assignTo != "" {
		query.Set("assignTo", assignTo)
	}
	a, ok := q.get("/api/approvals", query)
	if !ok {
		return
	}
	q.render(status, "approvals", view{Title: "Approvals", Section: "approvals", Refusal: refusal,
		Data: approvalsData{Rows: a.Rows(), Mine: mine, AssignTo: assignTo}})
}

// resolveApproval approves or rejects through the API, i.e. the run's resolve-approval Update
// and its validator (role, four-eyes, already decided); a refusal is shown in plain words on
// the page the form was on.
func (d *Dashboard) resolveApproval(q *request) {
	decision := q.r.PathValue("decision")
	if decision != "approve" && decision != "reject" {
		q.notFound()
		return
	}
	a := q.call(http.MethodPost, "/api/approvals/"+url.PathEscape(q.r.PathValue("id"))+"/"+decision, nil,
		map[string]string{"comment": q.form("comment")})
	if a.OK() {
		done := map[string]string{"approve": "approved", "reject": "rejected"}[decision]
		q.redirect(Prefix + "/executions/" + url.PathEscape(str(a.Data()["executionId"])) + "?done=" + done)
		return
	}
	switch a.Status {
	case http.StatusUnauthorized, http.StatusNotFound:
		q.refused(a)
	default:
		if exec := q.form("from"); exec != "" {
			q.showExecution(exec, a.Status, plainWords(a, q.role()))
			return
		}
		q.showApprovals(a.Status, plainWords(a, q.role()))
	}
}

// str is v as a string ("" unless it is one).
func str(v any) string {
	s, _ := v.(string)
	return s
}
