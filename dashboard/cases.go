package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	domain "github.com/svcplatform/svc/internal/cases"
)

// people are the organisation's users, read through the API: the assignee choices and the
// names shown for the user ids of cases, timelines and filings.
type people struct {
	Rows  []any
	names map[string]string
}

// Name is the user id's name, or the id itself when it is nobody the visitor can see.
func (p people) Name(id any) string {
	s := str(id)
	if s == "" {
		return "—"
	}
	if n := p.names[s]; n != "" {
		return n
	}
	return s
}

// people reads the users (100 at most, the API's limit); a refusal leaves the names as ids
// rather than ending the page.
func (q *request) people() people {
	p := people{names: map[string]string{}}
	a := q.call(http.MethodGet, "/api/users", url.Values{"limit": {"100"}}, nil)
	if !a.OK() {
		return p
	}
	p.Rows = a.Rows()
	for _, r := range p.Rows {
		u, _ := r.(map[string]any)
		if n := str(u["name"]); n != "" {
			p.names[str(u["id"])] = n
		} else {
			p.names[str(u["id"])] = str(u["email"])
		}
	}
	return p
}

type casesData struct {
	Rows       []any
	Statuses   []string
	People     people
	Pager      pager
	Priorities []string
	Form       url.Values
}

// pager places a list the API pages by number (cases, SAR filings).
type pager struct {
	Page, Pages int
	// Label names the list for assistive technology.
	Label string
	// Prev and Next link the neighbouring pages with the filters kept, "" when there is none.
	Prev, Next string
}

// pagerOf reads an offset list's page and meta.pages; path is the list's page.
func pagerOf(a answer, path, label string, query url.Values) pager {
	p := pager{Page: number(a.Body["page"]), Label: label}
	if meta, _ := a.Body["meta"].(map[string]any); meta != nil {
		p.Pages = number(meta["pages"])
	}
	link := func(page int) string {
		c := url.Values{}
		for k, v := range query {
			c[k] = v
		}
		c.Set("page", strconv.Itoa(page))
		c.Del("done")
		return path + "?" + c.Encode()
	}
	if p.Page > 1 {
		p.Prev = link(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = link(p.Page + 1)
	}
	return p
}

// cases lists the organisation's cases, newest first, filtered by status and assignee, with
// the form that opens a case by hand.
func (d *Dashboard) cases(q *request) {
	q.showCases(http.StatusOK, "", nil)
}

func (q *request) showCases(status int, refusal string, refused *answer) {
	in := q.r.URL.Query()
	query := listQuery(in, "status", "assigneeId", "q", "page")
	a, ok := q.get("/api/cases", query)
	if !ok {
		return
	}
	v := view{Title: "Cases", Section: "cases", Refusal: refusal, Data: casesData{Rows: a.Rows(), Statuses: domain.Lifecycle.Names(),
		People: q.people(), Pager: pagerOf(a, Prefix+"/cases", "Pages of cases", in), Priorities: domain.Priorities(), Form: q.r.PostForm}}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "cases", v)
}

// listQuery is the API query of a list page: 50 rows, and the page's filters named by keys.
func listQuery(in url.Values, keys ...string) url.Values {
	query := url.Values{"limit": {"50"}}
	for _, k := range keys {
		if v := in.Get(k); v != "" {
			query.Set(k, v)
		}
	}
	return query
}

// number is a JSON number as an int (0 otherwise).
func number(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// createCase opens a case by hand through the API, with the alerts named (ids separated by
// spaces or commas, or the alerts page's checkboxes).
func (d *Dashboard) createCase(q *request) {
	_ = q.r.ParseForm()
	var alertIDs []string
	for _, v := range q.r.PostForm["alertIds"] {
		alertIDs = append(alertIDs, splitList(v)...)
	}
	body := map[string]any{"title": q.form("title"), "priority": q.form("priority"), "alertIds": alertIDs}
	if v := q.form("customerId"); v != "" {
		body["customerId"] = v
	}
	if v := q.form("dueAt"); v != "" {
		body["dueAt"] = rfc3339(v)
	}
	a := q.call(http.MethodPost, "/api/cases", nil, body)
	switch {
	case a.OK():
		q.redirect(Prefix + "/cases/" + url.PathEscape(str(a.Data()["id"])) + "?done=case-opened")
	case a.Status == http.StatusUnauthorized:
		q.refused(a)
	default:
		q.showCases(a.Status, caseWords(a, q.role()), &a)
	}
}

// splitList splits a form value of ids separated by spaces, commas or new lines.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// rfc3339 turns a datetime-local value (YYYY-MM-DDTHH:MM, read as UTC, which the form says)
// or a date into the RFC 3339 time the API takes; anything else goes as it is, for the API to
// refuse in its words.
func rfc3339(v string) string {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return v
}

type caseData struct {
	Case   map[string]any
	People people
	// Customer is the case's customer as the customers API answers it (nil without one, or
	// when the visitor cannot read it).
	Customer map[string]any
	Filings  []any
	// Can names the actions the case's state allows (the lifecycle's own table); the
	// workflow decides again, with the four-eyes and role rules, when one is sent.
	Can        map[string]bool
	Outcomes   []string
	Priorities []string
	Form       url.Values
	// SARDraft are the values of the draft-a-SAR form: a refused draft's own (then SAROpen),
	// else the case's customer as its subject and EUR.
	SARDraft map[string]string
	SAROpen  bool
}

// caseActions are the actions with a form of their own on the case page.
var caseActions = []domain.Action{domain.ActionAssign, domain.ActionEscalate, domain.ActionProposeClose,
	domain.ActionApproveClose, domain.ActionRejectClose, domain.ActionReopen}

// allowed are the actions a case in state may take, by the lifecycle's transition table.
func allowed(state string) map[string]bool {
	from := domain.State(state)
	out := map[string]bool{}
	for _, a := range caseActions {
		to, moves := domain.Target(a, from)
		out[string(a)] = moves && (to != from || a == domain.ActionAssign) && (to == from || domain.Lifecycle.Can(from, to))
	}
	return out
}

// caseDetail is one case: its customer, alerts, evidence, timeline, the machine-written
// summary, its SAR filings, and the forms of every action its state allows.
func (d *Dashboard) caseDetail(q *request) {
	q.showCase(http.StatusOK, "", nil)
}

func (q *request) showCase(status int, refusal string, refused *answer) {
	id := q.r.PathValue("id")
	a, ok := q.get("/api/cases/"+url.PathEscape(id), nil)
	if !ok {
		return
	}
	c := a.Data()
	data := caseData{Case: c, People: q.people(), Can: allowed(str(c["status"])), Outcomes: domain.Outcomes(),
		Priorities: domain.Priorities(), Form: q.r.PostForm,
		SARDraft: map[string]string{"subjects": str(c["customerId"]), "currency": "EUR"}}
	if _, ok := q.r.PostForm["caseId"]; ok {
		data.SARDraft, data.SAROpen = formValues(q.r.PostForm), true
	}
	if cus := str(c["customerId"]); cus != "" {
		if r := q.call(http.MethodGet, "/api/customers/"+url.PathEscape(cus), nil, nil); r.OK() {
			data.Customer = r.Data()
		}
	}
	if r := q.call(http.MethodGet, "/api/sar-filings", url.Values{"caseId": {id}, "limit": {"20"}}, nil); r.OK() {
		data.Filings = r.Rows()
	}
	v := view{Title: "Case " + str(c["title"]), Section: "cases", Refusal: refusal, Data: data}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "case", v)
}

// caseAction sends one of the case's actions through the API: the case workflow's act
// Update, whose validator holds the lifecycle, the four-eyes rule (the proposer of a closure
// cannot decide it) and the approver roles. A refusal is shown on the case page in plain words.
func (d *Dashboard) caseAction(q *request) {
	action := domain.Action(q.r.PathValue("action"))
	var body map[string]any
	switch action {
	case domain.ActionAssign:
		body = map[string]any{"assigneeId": q.form("assigneeId")}
	case domain.ActionEscalate:
		body = map[string]any{"reason": q.form("escalateReason")}
	case domain.ActionProposeClose:
		body = map[string]any{"outcome": q.form("outcome"), "rationale": q.form("rationale")}
	case domain.ActionApproveClose, domain.ActionRejectClose:
		body = map[string]any{"comment": q.form("decisionComment")}
	case domain.ActionReopen:
		body = map[string]any{"reason": q.form("reopenReason")}
	default:
		q.notFound()
		return
	}
	q.caseAnswer(q.call(http.MethodPost, q.caseAPI()+"/"+string(action), nil, body), string(action))
}

// commentCase adds the visitor's comment to the case's timeline.
func (d *Dashboard) commentCase(q *request) {
	q.caseAnswer(q.call(http.MethodPost, q.caseAPI()+"/comments", nil, map[string]any{"body": q.form("body")}), "comment")
}

// changeCase changes the case's title, priority or due date, or links evidence, through the
// API's PATCH; only the fields the visitor changed are sent.
func (d *Dashboard) changeCase(q *request) {
	body := map[string]any{}
	for _, k := range []string{"title", "priority"} {
		if v := q.form(k); v != "" && v != q.form("was."+k) {
			body[k] = v
		}
	}
	if v := q.form("dueAt"); v != "" && v != q.form("was.dueAt") {
		body["dueAt"] = rfc3339(v)
	}
	if ref := q.form("evidenceId"); ref != "" {
		body["evidence"] = []map[string]string{{"id": ref, "note": q.form("evidenceNote")}}
	}
	if len(body) == 0 {
		q.showCase(http.StatusBadRequest, "Change a field or name a record to link before saving.", nil)
		return
	}
	q.caseAnswer(q.call(http.MethodPatch, q.caseAPI(), nil, body), "case-changed")
}

// caseAPI is the API path of the page's case.
func (q *request) caseAPI() string { return "/api/cases/" + url.PathEscape(q.r.PathValue("id")) }

func (q *request) caseAnswer(a answer, done string) {
	q.actedIn(a, Prefix+"/cases/"+url.PathEscape(q.r.PathValue("id"))+"?done="+done, caseWords, q.showCase)
}
