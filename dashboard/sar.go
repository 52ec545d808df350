package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	domain "github.com/svcplatform/svc/internal/cases"
)

type sarFilingsData struct {
	Rows     []any
	Statuses []string
	People   people
	Pager    pager
}

// sarFilings lists the organisation's SAR filings, newest first, filtered by status.
func (d *Dashboard) sarFilings(q *request) {
	in := q.r.URL.Query()
	query := listQuery(in, "status", "caseId", "q", "page")
	a, ok := q.get("/api/sar-filings", query)
	if !ok {
		return
	}
	q.render(http.StatusOK, "sar_filings", view{Title: "SAR filings", Section: "sar-filings", Data: sarFilingsData{
		Rows: a.Rows(), Statuses: domain.SARFilings.Names(), People: q.people(), Pager: pagerOf(a, Prefix+"/sar-filings", "Pages of SAR filings", in)}})
}

type sarFilingData struct {
	Filing map[string]any
	People people
	// Draft is true while the filing may change and be submitted.
	Draft bool
	// Values fill the edit form (a refused edit's own values, else the filing's); Was are the
	// filing's, so that an edit sends only what changed.
	Values, Was map[string]string
}

// sarFiling is one filing: its fields, who drafted and who submitted it, the regulator's
// answer; while a draft, the edit form and the submit form.
func (d *Dashboard) sarFiling(q *request) {
	q.showSAR(http.StatusOK, "", nil)
}

func (q *request) showSAR(status int, refusal string, refused *answer) {
	a, ok := q.get(q.sarAPI(), nil)
	if !ok {
		return
	}
	f := a.Data()
	was := sarValues(f)
	values := was
	if _, ok := q.r.PostForm["narrative"]; ok {
		values = formValues(q.r.PostForm)
	}
	v := view{Title: "SAR filing " + str(f["id"]), Section: "sar-filings", Refusal: refusal, Data: sarFilingData{
		Filing: f, People: q.people(), Draft: str(f["status"]) == string(domain.SARDraft), Values: values, Was: was}}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "sar_filing", v)
}

// sarValues are a filing's fields as the form shows them.
func sarValues(f map[string]any) map[string]string {
	var subjects []string
	for _, s := range anyList(f["subjects"]) {
		subjects = append(subjects, str(s))
	}
	out := map[string]string{"subjects": strings.Join(subjects, " ")}
	for _, k := range []string{"activityFrom", "activityTo", "currency", "narrative"} {
		out[k] = str(f[k])
	}
	if n, ok := f["amount"].(float64); ok {
		out["amount"] = strconv.FormatFloat(n, 'f', -1, 64)
	}
	return out
}

// anyList is v as a JSON array (nil otherwise).
func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// sarAPI is the API path of the page's filing.
func (q *request) sarAPI() string { return "/api/sar-filings/" + url.PathEscape(q.r.PathValue("id")) }

// sarFields are the filing's fields of a draft or edit form, as the API takes them; only
// the fields given (or, when changes is set, changed from their was.* value) are sent.
func (q *request) sarFields(changes bool) map[string]any {
	body := map[string]any{}
	changed := func(k string) bool {
		v := q.form(k)
		return !changes || v != q.form("was."+k)
	}
	if changed("subjects") {
		body["subjects"] = append([]string{}, splitList(q.form("subjects"))...)
	}
	for _, k := range []string{"activityFrom", "activityTo", "currency", "narrative"} {
		if v := q.form(k); (v != "" || changes) && changed(k) {
			body[k] = v
		}
	}
	if v := q.form("amount"); v != "" && changed("amount") {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			body["amount"] = n
		} else {
			body["amount"] = v // the API refuses it as a field error, in its words
		}
	}
	return body
}

// draftSAR drafts a filing from a case through the API: the visitor is its drafter, so
// someone else must submit it. A refusal is shown on the case's page, beside the form.
func (d *Dashboard) draftSAR(q *request) {
	body := q.sarFields(false)
	caseID := q.form("caseId")
	body["caseId"] = caseID
	if len(body["subjects"].([]string)) == 0 {
		delete(body, "subjects") // the case's customer, by the API's default
	}
	a := q.call(http.MethodPost, "/api/sar-filings", nil, body)
	q.actedIn(a, Prefix+"/sar-filings/"+url.PathEscape(str(a.Data()["id"]))+"?done=sar-drafted", sarWords,
		func(status int, refusal string, refused *answer) {
			q.r.SetPathValue("id", caseID) // the form stands on the case's page
			q.showCase(status, refusal, refused)
		})
}

// editSAR changes a draft through the API's PATCH (a submitted filing is immutable: 409).
func (d *Dashboard) editSAR(q *request) {
	body := q.sarFields(true)
	if len(body) == 0 {
		q.showSAR(http.StatusBadRequest, "Change a field before saving the draft.", nil)
		return
	}
	q.sarAnswer(q.call(http.MethodPatch, q.sarAPI(), nil, body), "sar-saved")
}

// submitSAR submits a draft through the API, which refuses the drafter (four-eyes).
func (d *Dashboard) submitSAR(q *request) {
	q.sarAnswer(q.call(http.MethodPost, q.sarAPI()+"/submit", nil, map[string]any{}), "sar-submitted")
}

func (q *request) sarAnswer(a answer, done string) {
	q.actedIn(a, Prefix+"/sar-filings/"+url.PathEscape(q.r.PathValue("id"))+"?done="+done, sarWords, q.showSAR)
}
