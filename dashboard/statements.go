package dashboard

import (
	"net/http"
	"net/url"

	stmt "github.com/svcplatform/svc/internal/statements"
)

// analyses lists the bank statement analyses, newest first, a page at a time (the API's
// cursor), filtered by status.
func (d *Dashboard) analyses(q *request) {
	a, ok := q.get("/api/analyses", q.listQuery("status", "cursor"))
	if !ok {
		return
	}
	var statuses []string
	for _, s := range stmt.Statuses() {
		statuses = append(statuses, string(s))
	}
	q.render(http.StatusOK, "analyses", view{Title: "Statement analyses", Section: "analyses", Data: q.newListData(a, Prefix+"/analyses", statuses, "")})
}

// analysis is one analysis: its files, statements, reconciliation, insights and tamper
// signals, and the password form while an encrypted PDF waits for one.
func (d *Dashboard) analysis(q *request) {
	q.showAnalysis(http.StatusOK, "", nil)
}

func (q *request) showAnalysis(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/analyses/"+url.PathEscape(q.r.PathValue("id")), nil)
	if !ok {
		return
	}
	q.render(status, "analysis", withRefusal(view{Title: "Analysis " + str(a.Data()["id"]), Section: "analyses", Data: a.Data()}, refusal, refused))
}

type transactionsData struct {
	Analysis map[string]any
	List     listData
}

// analysisTransactions pages through an analysis's transactions in statement order, filtered
// by statement, direction, category and description.
func (d *Dashboard) analysisTransactions(q *request) {
	id := url.PathEscape(q.r.PathValue("id"))
	an, ok := q.get("/api/analyses/"+id, nil)
	if !ok {
		return
	}
	tx, ok := q.get("/api/analyses/"+id+"/transactions", q.listQuery("statement", "direction", "category", "q", "cursor"))
	if !ok {
		return
	}
	q.render(http.StatusOK, "analysis_transactions", view{Title: "Transactions of " + str(an.Data()["id"]), Section: "analyses",
		Data: transactionsData{Analysis: an.Data(), List: q.newListData(tx, Prefix+"/analyses/"+id+"/transactions", nil, "Description")}})
}

// analysisPassword gives the password of an encrypted PDF through the API, which tries it
// before answering: a wrong one leaves the analysis waiting in password_required.
func (d *Dashboard) analysisPassword(q *request) {
	a := q.call(http.MethodPost, "/api/analyses/"+url.PathEscape(q.r.PathValue("id"))+"/password", nil,
		map[string]any{"password": q.r.PostFormValue("password")})
	if a.OK() && str(a.Data()["status"]) == string(stmt.StatusPasswordRequired) {
		q.showAnalysis(http.StatusOK, "That password did not open the PDF. Check it and try again.", nil)
		return
	}
	q.acted(a, Prefix+"/analyses/"+url.PathEscape(q.r.PathValue("id"))+"?done=analysis-password", q.showAnalysis)
}

// money shows an amount of the statements API (integer minor units) as stmt.Amount does:
// "-1234.56"; anything else as a dash.
func money(v any) string {
	f, ok := v.(float64)
	if !ok {
		return "—"
	}
	return stmt.Amount(int64(f)).String()
}
