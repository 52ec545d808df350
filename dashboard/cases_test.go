package dashboard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api/apitest"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// caseTemporal stands in for Temporal under the cases API: it records each act Update the
// API sends to a case's workflow and answers it with the test's refusal or success. The
// workflow's own rules (lifecycle, four-eyes, roles) are tested with the workflow and in the
// browser test against the real one; here the dashboard's side is: which form sends which
// action as whom, and how each answer reads.
type caseTemporal struct {
	client.Client
	mu      sync.Mutex
	acts    []casewf.ActRequest
	refusal error
}

// ExecuteWorkflow refuses every start (a case's, a SAR submission's): the API leaves them to
// the gathering Schedule and answers all the same.
func (c *caseTemporal) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, errors.New("no workflow starts in this test")
}

func (c *caseTemporal) NewWithStartWorkflowOperation(client.StartWorkflowOptions, any, ...any) client.WithStartWorkflowOperation {
	return nil
}

func (c *caseTemporal) UpdateWithStartWorkflow(_ context.Context, o client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acts = append(c.acts, o.UpdateOptions.Args[0].(casewf.ActRequest))
	return caseUpdate{err: c.refusal}, nil
}

// refuse makes the next Updates fail with err (nil: succeed).
func (c *caseTemporal) refuse(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refusal = err
}

// sent are the Updates sent so far.
func (c *caseTemporal) sent() []casewf.ActRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]casewf.ActRequest(nil), c.acts...)
}

type caseUpdate struct{ err error }

func (caseUpdate) WorkflowID() string { return "" }
func (caseUpdate) RunID() string      { return "" }
func (caseUpdate) UpdateID() string   { return "" }
func (u caseUpdate) Get(_ context.Context, v any) error {
	if u.err != nil {
		return u.err
	}
	*(v.(*casewf.ActResult)) = casewf.ActResult{}
	return nil
}

// casesWorld is the harness with the cases product: Ada (admin, the start user), Rita
// (reviewer) and Ana (analyst) with passwords; a customer, two alerts and a case holding one.
type casesWorld struct {
	h          *apitest.Harness
	temporal   *caseTemporal
	ada        string // the start user, signed in by signIn
	rita, ana  string
	customerID string
	caseID     string
	alerts     []string
}

const casesPassword = "correct horse battery"

func casesStart(t *testing.T) (*casesWorld, *browser) {
	tc := &caseTemporal{}
	h, b := startWith(t, apitest.Options{Temporal: tc})
	h.NoRateLimits(h.Org.ID)
	w := &casesWorld{h: h, temporal: tc}
	for _, u := range []struct {
		email, name, role string
		id                *string
	}{{"rita@example.com", "Rita Reviewer", "reviewer", &w.rita}, {"ana@example.com", "Ana Analyst", "analyst", &w.ana}} {
		res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": u.email, "name": u.name, "role": u.role, "password": casesPassword})
		if res.Status != http.StatusCreated {
			t.Fatalf("create %s: %d %s", u.email, res.Status, res.Body)
		}
		*u.id = res.Data()["id"].(string)
	}
	for _, u := range h.Do("GET", "/api/users", h.AdminKey, nil).JSON["data"].([]any) {
		if u := u.(map[string]any); u["email"] == "ada@example.com" {
			w.ada = u["id"].(string)
		}
	}
	ctx := context.Background()
	cus := &store.Customer{ID: ids.New(ids.Customer), OrgID: h.Org.ID, Type: "individual", FullName: "Ivan Petrov", Country: "DE", Status: "active"}
	if err := h.Store.Customers.Create(ctx, cus); err != nil {
		t.Fatal(err)
	}
	w.customerID = cus.ID
	for i, src := range []string{"screening", "fraud"} {
		a, _, err := h.Store.Alerts.Raise(ctx, &store.Alert{OrgID: h.Org.ID, Source: src, SourceRef: fmt.Sprintf("scr_%d", i), Subject: "Ivan Petrov",
			CustomerID: cus.ID, Score: 0.93, Summary: fmt.Sprintf("OFAC SDN: Ivan Petrov %d", i), ReasonCodes: []string{"R_NAME"}})
		if err != nil {
			t.Fatal(err)
		}
		w.alerts = append(w.alerts, a.ID)
	}
	c, err := h.Store.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: h.Org.ID, Title: "Possible sanctions match", CustomerID: cus.ID,
		Priority: "high", CreatedBy: h.Admin.ID, DueAt: time.Now().Add(72 * time.Hour), AlertIDs: w.alerts[:1]})
	if err != nil {
		t.Fatal(err)
	}
	w.caseID = c.ID
	if err := h.Store.Cases.SetCaseSummary(ctx, h.Org.ID, c.ID, "One strong name match against OFAC SDN.", "automation"); err != nil {
		t.Fatal(err)
	}
	return w, b
}

// as is a second browser signed in as email.
func (w *casesWorld) as(t *testing.T, email string) *browser {
	b := &browser{t: t, base: w.h.URL, cookies: map[string]*http.Cookie{}}
	signInAs(t, b, email)
	return b
}

func signInAs(t *testing.T, b *browser, email string) {
	t.Helper()
	login := b.do("GET", "/dashboard/login", nil)
	if in := b.do("POST", "/dashboard/login", url.Values{"csrf": {csrfOf(t, login)}, "email": {email}, "password": {casesPassword}}); in.Status != http.StatusSeeOther {
		t.Fatalf("sign in as %s: %d", email, in.Status)
	}
}

// setState puts the case in state as the workflow would have, proposed by proposer.
func (w *casesWorld) setState(t *testing.T, to domain.State, action domain.Action, proposer string) {
	t.Helper()
	err := w.h.Store.Cases.ApplyCaseChange(context.Background(), store.CaseChange{OrgID: w.h.Org.ID, CaseID: w.caseID, Key: string(action) + ":" + string(to) + time.Now().String(),
		Action: action, To: to, ActorID: proposer, Outcome: "false_positive", Rationale: "Different birth date.", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
}

func mustContain(t *testing.T, what string, p page, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(p.Body, s) {
			t.Errorf("%s: no %q in the page (%d):\n%.3000s", what, s, p.Status, p.Body)
		}
	}
}

func TestDashboardCasePages(t *testing.T) {
	w, b := casesStart(t)
	signIn(t, b, casesPassword)

	list := b.do("GET", "/dashboard/cases", nil)
	mustContain(t, "cases", list, `href="/dashboard/cases/`+w.caseID+`"`, "Possible sanctions match", "Open a case by hand", `name="csrf"`, `href="/dashboard/cases"`)
	// Filters: by status and by assignee reach the API's filters.
	if p := b.do("GET", "/dashboard/cases?status=closed", nil); p.Status != 200 || strings.Contains(p.Body, "Possible sanctions match") || !strings.Contains(p.Body, "No cases match") {
		t.Errorf("status filter: %d", p.Status)
	}
	if p := b.do("GET", "/dashboard/cases?assigneeId="+w.rita, nil); p.Status != 200 || strings.Contains(p.Body, "Possible sanctions match") {
		t.Errorf("assignee filter: %d", p.Status)
	}
	if p := b.do("GET", "/dashboard/cases?status=nonsense", nil); p.Status != http.StatusBadRequest {
		t.Errorf("bad status filter: %d", p.Status)
	}

	detail := b.do("GET", "/dashboard/cases/"+w.caseID, nil)
	mustContain(t, "case", detail, "Possible sanctions match", "Ivan Petrov", w.customerID, "OFAC SDN: Ivan Petrov 0", "R_NAME",
		"One strong name match against OFAC SDN.", "Written by a machine", "Opened", "Alert added", "Ada", "high",
		`action="/dashboard/cases/`+w.caseID+`/comments"`, `action="/dashboard/cases/`+w.caseID+`/assign"`,
		`action="/dashboard/cases/`+w.caseID+`/escalate"`, `action="/dashboard/sar-filings"`)
	// An open case cannot be proposed for closure, approved or reopened: no such forms.
	for _, a := range []string{"propose-close", "approve-close", "reopen"} {
		if strings.Contains(detail.Body, "/dashboard/cases/"+w.caseID+"/"+a) {
			t.Errorf("an open case shows the %s form", a)
		}
	}

	alerts := b.do("GET", "/dashboard/alerts", nil)
	mustContain(t, "alerts", alerts, "OFAC SDN: Ivan Petrov 0", "OFAC SDN: Ivan Petrov 1", `href="/dashboard/cases/`+w.caseID+`"`,
		`id="pick-`+w.alerts[1]+`"`, `for="pick-`+w.alerts[1]+`"`)
	if strings.Contains(alerts.Body, `id="pick-`+w.alerts[0]+`"`) {
		t.Error("an alert already in a case can be picked for a new one")
	}
	if p := b.do("GET", "/dashboard/alerts?source=fraud", nil); strings.Contains(p.Body, "Ivan Petrov 0") || !strings.Contains(p.Body, "Ivan Petrov 1") {
		t.Errorf("source filter: %d", p.Status)
	}

	for _, p := range []page{list, detail, alerts} {
		wellFormed(t, p)
	}
}

// wellFormed checks what every page promises: each control labelled, each form that posts
// carrying the CSRF token, nothing inline for the Content-Security-Policy to refuse.
func wellFormed(t *testing.T, p page) {
	t.Helper()
	for _, m := range regexpAll(`<(?:input|select|textarea) ([^>]*)>`, p.Body) {
		if strings.Contains(m, `type="hidden"`) {
			continue
		}
		id := regexpAll(`id="([^"]+)"`, m)
		if len(id) == 0 || !strings.Contains(p.Body, `for="`+id[0]+`"`) {
			t.Errorf("control without a label: <%s>", m)
		}
	}
	for _, f := range strings.Split(p.Body, "<form")[1:] {
		f, _, _ = strings.Cut(f, "</form>")
		if strings.Contains(f, `method="post"`) && !strings.Contains(f, `name="csrf"`) {
			t.Errorf("a form without the CSRF token: <form%.200s", f)
		}
	}
	if strings.Contains(p.Body, "style=") || strings.Contains(p.Body, "<script") || strings.Contains(p.Body, "<style") {
		t.Error("inline style or script")
	}
}

func TestDashboardAlertsPageByCursor(t *testing.T) {
	w, b := casesStart(t)
	for i := range 50 {
		if _, _, err := w.h.Store.Alerts.Raise(context.Background(), &store.Alert{OrgID: w.h.Org.ID, Source: "fraud", SourceRef: fmt.Sprintf("dec_%02d", i),
			Summary: fmt.Sprintf("review %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	signIn(t, b, casesPassword)
	first := b.do("GET", "/dashboard/alerts", nil)
	next := regexpAll(`href="/dashboard/alerts\?(cursor=[^"]+)"`, first.Body)
	if len(next) != 1 || strings.Count(first.Body, "<tr>") != 51 { // the header row and 50 alerts
		t.Fatalf("first page: next %v, rows %d", next, strings.Count(first.Body, "<tr>"))
	}
	second := b.do("GET", "/dashboard/alerts?"+strings.ReplaceAll(next[0], "&amp;", "&"), nil)
	if second.Status != 200 || strings.Count(second.Body, "<tr>") != 3 || strings.Contains(second.Body, "Older alerts") {
		t.Fatalf("second page: %d rows %d", second.Status, strings.Count(second.Body, "<tr>"))
	}
}

func TestDashboardOpenACaseByHand(t *testing.T) {
	w, b := casesStart(t)
	signIn(t, b, casesPassword)
	list := b.do("GET", "/dashboard/cases", nil)
	form := url.Values{"title": {"Cash deposits"}, "priority": {"critical"}, "customerId": {w.customerID}, "alertIds": {w.alerts[1]}, "dueAt": {"2030-01-31T17:00"}}
	if p := b.do("POST", "/dashboard/cases", form); p.Status != http.StatusForbidden {
		t.Fatalf("open without the CSRF token: %d", p.Status)
	}
	form.Set("csrf", csrfOf(t, list))
	bad := b.do("POST", "/dashboard/cases", url.Values{"csrf": form["csrf"], "title": {""}, "dueAt": {"soon"}})
	mustContain(t, "refused open", bad, "Some fields need fixing", "is required, at most 300 characters", "must be an RFC 3339 time")
	taken := b.do("POST", "/dashboard/cases", url.Values{"csrf": form["csrf"], "title": {"again"}, "alertIds": {w.alerts[0]}})
	if taken.Status != http.StatusConflict {
		t.Errorf("alert in a case: %d", taken.Status)
	}
	mustContain(t, "alert taken", taken, "One of these alerts is already in another case")

	opened := b.do("POST", "/dashboard/cases", form)
	loc := opened.Header.Get("Location")
	if opened.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/cases/cas_") || !strings.HasSuffix(loc, "?done=case-opened") {
		t.Fatalf("open: %d %q", opened.Status, loc)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(loc, "/dashboard/cases/"), "?done=case-opened")
	c := w.h.Do("GET", "/api/cases/"+id, w.h.AdminKey, nil).Data()
	if c["title"] != "Cash deposits" || c["priority"] != "critical" || c["customerId"] != w.customerID || c["dueAt"] != "2030-01-31T17:00:00.000Z" ||
		c["createdBy"] != w.ada || len(c["alerts"].([]any)) != 1 {
		t.Errorf("opened case = %v", c)
	}
	mustContain(t, "opened", b.do("GET", loc, nil), "The case was opened.", "Cash deposits", "OFAC SDN: Ivan Petrov 1")
}

func TestDashboardCaseActions(t *testing.T) {
	w, b := casesStart(t)
	signIn(t, b, casesPassword)
	path := "/dashboard/cases/" + w.caseID
	csrf := csrfOf(t, b.do("GET", path, nil))

	// Each form sends its action to the case's workflow as the signed-in user.
	for _, tc := range []struct {
		action string
		form   url.Values
		want   casewf.ActRequest
		notice string
	}{
		{"assign", url.Values{"assigneeId": {w.ana}}, casewf.ActRequest{Action: domain.ActionAssign, AssigneeID: w.ana}, "The case was assigned."},
		{"escalate", url.Values{"escalateReason": {"needs legal"}}, casewf.ActRequest{Action: domain.ActionEscalate, Reason: "needs legal"}, "The case was escalated."},
		{"propose-close", url.Values{"outcome": {"false_positive"}, "rationale": {"Different birth date."}},
			casewf.ActRequest{Action: domain.ActionProposeClose, Outcome: "false_positive", Rationale: "Different birth date."}, "Another person (a reviewer or an admin) must approve it."},
		{"approve-close", url.Values{"decisionComment": {"agreed"}}, casewf.ActRequest{Action: domain.ActionApproveClose, Reason: "agreed"}, "the case is closed"},
		{"reject-close", url.Values{"decisionComment": {"look again"}}, casewf.ActRequest{Action: domain.ActionRejectClose, Reason: "look again"}, "back under investigation"},
		{"reopen", url.Values{"reopenReason": {"new alert"}}, casewf.ActRequest{Action: domain.ActionReopen, Reason: "new alert"}, "The case was reopened."},
	} {
		before := len(w.temporal.sent())
		if p := b.do("POST", path+"/"+tc.action, tc.form); p.Status != http.StatusForbidden || len(w.temporal.sent()) != before {
			t.Errorf("%s without the CSRF token: %d, sent %d", tc.action, p.Status, len(w.temporal.sent())-before)
		}
		tc.form.Set("csrf", csrf)
		p := b.do("POST", path+"/"+tc.action, tc.form)
		if p.Status != http.StatusSeeOther || p.Header.Get("Location") != path+"?done="+tc.action {
			t.Errorf("%s: %d %q\n%.2000s", tc.action, p.Status, p.Header.Get("Location"), p.Body)
			continue
		}
		sent := w.temporal.sent()
		got := sent[len(sent)-1]
		tc.want.ActorUserID, tc.want.ActorRole = w.ada, "admin"
		got.KeyID = ""
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s sent %+v, want %+v", tc.action, got, tc.want)
		}
		mustContain(t, tc.action, b.do("GET", p.Header.Get("Location"), nil), tc.notice)
	}

	// The API's own checks come first: a proposal without its rationale is a field error,
	// shown beside the form of an investigated case.
	w.setState(t, domain.StateInvestigating, domain.ActionAssign, w.ada)
	before := len(w.temporal.sent())
	bad := b.do("POST", path+"/propose-close", url.Values{"csrf": {csrf}, "outcome": {"false_positive"}})
	if bad.Status != http.StatusBadRequest || len(w.temporal.sent()) != before {
		t.Errorf("proposal without rationale: %d", bad.Status)
	}
	mustContain(t, "proposal without rationale", bad, "Some fields need fixing", "is required, at most 4000 characters")
	if p := b.do("POST", path+"/delete", url.Values{"csrf": {csrf}}); p.Status != http.StatusNotFound {
		t.Errorf("unknown action: %d", p.Status)
	}

	// A comment and a change of details go through the API as well.
	if p := b.do("POST", path+"/comments", url.Values{"csrf": {csrf}, "body": {"Called the branch."}}); p.Status != http.StatusSeeOther {
		t.Fatalf("comment: %d", p.Status)
	}
	if p := b.do("POST", path, url.Values{"csrf": {csrf}, "title": {"Possible sanctions match"}, "was.title": {"Possible sanctions match"},
		"evidenceId": {"scr_0123456789"}, "evidenceNote": {"the screening"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("link evidence: %d %s", p.Status, p.Body)
	}
	mustContain(t, "after comment and evidence", b.do("GET", path, nil), "Called the branch.", "scr_0123456789", "the screening", "Evidence linked")
	before = len(w.temporal.sent())
	if p := b.do("POST", path, url.Values{"csrf": {csrf}, "priority": {"low"}, "was.priority": {"high"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("change priority: %d", p.Status)
	}
	if sent := w.temporal.sent(); len(sent) != before+1 || sent[before].Action != domain.ActionUpdate || sent[before].Priority != "low" || sent[before].Title != "" {
		t.Errorf("change priority sent %+v", sent[before:])
	}
	if p := b.do("POST", path, url.Values{"csrf": {csrf}, "priority": {"high"}, "was.priority": {"high"}}); p.Status != http.StatusBadRequest {
		t.Errorf("nothing changed: %d", p.Status)
	}
}

func TestDashboardCaseClosureRefusalsInPlainWords(t *testing.T) {
	w, b := casesStart(t)
	signIn(t, b, casesPassword)
	w.setState(t, domain.StatePendingClose, domain.ActionProposeClose, w.ada)
	path := "/dashboard/cases/" + w.caseID
	pending := b.do("GET", path, nil)
	mustContain(t, "pending close", pending, "Closure proposed by Ada", "Different birth date.", `id="approve-close"`, `id="reject-close"`)

	// The workflow's four-eyes refusal of the proposer, and its role refusal of an analyst.
	w.temporal.refuse(workflows.RejectUpdate(workflows.ErrTypeFourEyes, casewf.ProposerCannotApprove))
	own := b.do("POST", path+"/approve-close", url.Values{"csrf": {csrfOf(t, pending)}})
	if own.Status != http.StatusUnprocessableEntity {
		t.Errorf("proposer approves: %d", own.Status)
	}
	mustContain(t, "four-eyes", own, "You proposed this closure, so you cannot approve or reject it yourself: another person must decide it (four-eyes rule).",
		"Closure proposed by Ada")
	ana := w.as(t, "ana@example.com")
	w.temporal.refuse(workflows.RejectUpdate(workflows.ErrTypeForbidden, casewf.OnlyApproversDecide))
	role := ana.do("POST", path+"/reject-close", url.Values{"csrf": {csrfOf(t, ana.do("GET", path, nil))}})
	if role.Status != http.StatusForbidden {
		t.Errorf("analyst rejects: %d", role.Status)
	}
	mustContain(t, "role", role, "Only a reviewer or an admin may approve or reject a closure; your role is analyst")
	w.temporal.refuse(workflows.StateConflictError("closed", "closed"))
	late := ana.do("POST", path+"/approve-close", url.Values{"csrf": {csrfOf(t, ana.do("GET", path, nil))}})
	mustContain(t, "already closed", late, "This has already changed (closed → closed); reload to see where it is now.")

	// A second person's approval is sent as theirs.
	w.temporal.refuse(nil)
	rita := w.as(t, "rita@example.com")
	if p := rita.do("POST", path+"/approve-close", url.Values{"csrf": {csrfOf(t, rita.do("GET", path, nil))}}); p.Status != http.StatusSeeOther {
		t.Fatalf("reviewer approves: %d", p.Status)
	}
	if sent := w.temporal.sent(); sent[len(sent)-1].ActorUserID != w.rita || sent[len(sent)-1].ActorRole != "reviewer" {
		t.Errorf("approval sent as %+v", sent[len(sent)-1])
	}

	// A closed case offers reopening, not closing.
	w.setState(t, domain.StateClosed, domain.ActionApproveClose, w.rita)
	closed := b.do("GET", path, nil)
	mustContain(t, "closed", closed, "Closed: False positive", "/dashboard/cases/"+w.caseID+"/reopen")
	if strings.Contains(closed.Body, `id="approve-close"`) || strings.Contains(closed.Body, "/propose-close") {
		t.Error("a closed case shows closure forms")
	}
}

func TestDashboardSARFilings(t *testing.T) {
	w, b := casesStart(t)
	signIn(t, b, casesPassword)
	casePage := b.do("GET", "/dashboard/cases/"+w.caseID, nil)
	csrf := csrfOf(t, casePage)
	mustContain(t, "case page SAR form", casePage, `value="`+w.customerID+`"`, `value="EUR"`)
	draft := url.Values{"caseId": {w.caseID}, "subjects": {w.customerID}, "activityFrom": {"2026-01-01"}, "activityTo": {"2026-01-31"},
		"amount": {"9900.50"}, "currency": {"EUR"}, "narrative": {"Structured cash deposits."}}
	if p := b.do("POST", "/dashboard/sar-filings", draft); p.Status != http.StatusForbidden {
		t.Fatalf("draft without the CSRF token: %d", p.Status)
	}
	draft.Set("csrf", csrf)

	// A refused draft comes back on the case page with the values and the API's notes.
	bad := url.Values{}
	for k, v := range draft {
		bad[k] = v
	}
	bad.Set("activityTo", "2025-12-01")
	refused := b.do("POST", "/dashboard/sar-filings", bad)
	if refused.Status != http.StatusBadRequest {
		t.Errorf("bad draft: %d", refused.Status)
	}
	mustContain(t, "bad draft", refused, "must not be before activityFrom", "Structured cash deposits.", "<details class=\"card\" open>")

	made := b.do("POST", "/dashboard/sar-filings", draft)
	loc := made.Header.Get("Location")
	if made.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/sar-filings/sar_") {
		t.Fatalf("draft: %d %q", made.Status, loc)
	}
	path, _, _ := strings.Cut(loc, "?")
	id := strings.TrimPrefix(path, "/dashboard/sar-filings/")
	filing := b.do("GET", loc, nil)
	wellFormed(t, filing)
	mustContain(t, "filing", filing, "The SAR filing was drafted.", "Structured cash deposits.", "9900.5", "Ada", `id="submit-sar"`, `id="save-sar"`)

	// Editing sends only what changed.
	if p := b.do("POST", path, url.Values{"csrf": {csrf}, "narrative": {"Structured cash deposits, 12 branches."}, "was.narrative": {"Structured cash deposits."},
		"amount": {"9900.5"}, "was.amount": {"9900.5"}, "currency": {"EUR"}, "was.currency": {"EUR"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", p.Status, p.Body)
	}
	f := w.h.Do("GET", "/api/sar-filings/"+id, w.h.AdminKey, nil).Data()
	if f["narrative"] != "Structured cash deposits, 12 branches." || f["amount"] != 9900.5 || f["status"] != "draft" {
		t.Errorf("after edit: %v", f)
	}
	badEdit := b.do("POST", path, url.Values{"csrf": {csrf}, "currency": {"euro"}, "was.currency": {"EUR"}})
	if badEdit.Status != http.StatusBadRequest {
		t.Errorf("bad edit: %d", badEdit.Status)
	}
	mustContain(t, "bad edit", badEdit, "must be an ISO 4217 code such as EUR")

	// The drafter cannot submit (four-eyes): said in plain words, and the filing stays a draft.
	own := b.do("POST", path+"/submit", url.Values{"csrf": {csrf}})
	if own.Status != http.StatusUnprocessableEntity {
		t.Errorf("drafter submits: %d", own.Status)
	}
	mustContain(t, "drafter submits", own, "You drafted this filing, so you cannot submit it yourself: another person must submit it (four-eyes rule).")
	if w.h.Do("GET", "/api/sar-filings/"+id, w.h.AdminKey, nil).Data()["status"] != "draft" {
		t.Error("the drafter's refused submit changed the filing")
	}
	rita := w.as(t, "rita@example.com")
	sub := rita.do("POST", path+"/submit", url.Values{"csrf": {csrfOf(t, rita.do("GET", path, nil))}})
	if sub.Status != http.StatusSeeOther || sub.Header.Get("Location") != path+"?done=sar-submitted" {
		t.Fatalf("second person submits: %d %q", sub.Status, sub.Header.Get("Location"))
	}
	after := rita.do("GET", sub.Header.Get("Location"), nil)
	mustContain(t, "submitted", after, "The SAR filing was submitted", "Rita Reviewer", "Structured cash deposits, 12 branches.")
	if strings.Contains(after.Body, `id="save-sar"`) || strings.Contains(after.Body, `id="submit-sar"`) {
		t.Error("a submitted filing still has its edit or submit form")
	}
	late := rita.do("POST", path, url.Values{"csrf": {csrfOf(t, after)}, "narrative": {"late"}, "was.narrative": {"x"}})
	if late.Status != http.StatusConflict {
		t.Errorf("edit after submit: %d", late.Status)
	}
	mustContain(t, "edit after submit", late, "This filing is submitted and can no longer change")

	list := b.do("GET", "/dashboard/sar-filings", nil)
	wellFormed(t, list)
	mustContain(t, "filings", list, `href="/dashboard/sar-filings/`+id+`"`, "submitted", "Rita Reviewer")
	if p := b.do("GET", "/dashboard/sar-filings?status=draft", nil); strings.Contains(p.Body, id) {
		t.Error("status filter shows a submitted filing as draft")
	}
	mustContain(t, "case's filings", b.do("GET", "/dashboard/cases/"+w.caseID, nil), `href="/dashboard/sar-filings/`+id+`"`)
}

func TestDashboardCasesOfAnotherOrganisationAreNotFound(t *testing.T) {
	w, b := casesStart(t)
	other := w.h.NewTenant("Other Org")
	ctx := context.Background()
	theirs, err := w.h.Store.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: other.Org.ID, Title: "Their secret case", Priority: "low", DueAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	f := &store.SARFiling{ID: ids.New(ids.SARFiling), OrgID: other.Org.ID, CaseID: theirs.ID, ActivityFrom: "2026-01-01", ActivityTo: "2026-01-02",
		Amount: 1, Currency: "EUR", Narrative: "their narrative", FiledByID: other.User.ID}
	if err := w.h.Store.Cases.CreateSAR(ctx, f); err != nil {
		t.Fatal(err)
	}
	signIn(t, b, casesPassword)
	csrf := csrfOf(t, b.do("GET", "/dashboard/cases", nil))
	for _, r := range []struct {
		method, path string
		form         url.Values
	}{
		{"GET", "/dashboard/cases/" + theirs.ID, nil},
		{"POST", "/dashboard/cases/" + theirs.ID + "/assign", url.Values{"csrf": {csrf}, "assigneeId": {w.ada}}},
		{"POST", "/dashboard/cases/" + theirs.ID + "/comments", url.Values{"csrf": {csrf}, "body": {"hello"}}},
		{"POST", "/dashboard/cases/" + theirs.ID, url.Values{"csrf": {csrf}, "evidenceId": {"scr_1"}}},
		{"POST", "/dashboard/sar-filings", url.Values{"csrf": {csrf}, "caseId": {theirs.ID}, "activityFrom": {"2026-01-01"}, "activityTo": {"2026-01-02"},
			"amount": {"1"}, "currency": {"EUR"}, "narrative": {"x"}}},
		{"GET", "/dashboard/sar-filings/" + f.ID, nil},
		{"POST", "/dashboard/sar-filings/" + f.ID + "/submit", url.Values{"csrf": {csrf}}},
		{"POST", "/dashboard/sar-filings/" + f.ID, url.Values{"csrf": {csrf}, "narrative": {"mine now"}}},
	} {
		p := b.do(r.method, r.path, r.form)
		if p.Status != http.StatusNotFound || !strings.Contains(p.Body, "Not found") || strings.Contains(p.Body, "Their secret case") ||
			strings.Contains(p.Body, "their narrative") {
			t.Errorf("%s %s: %d", r.method, r.path, p.Status)
		}
	}
	if len(w.temporal.sent()) != 0 {
		t.Errorf("another organisation's case reached its workflow: %+v", w.temporal.sent())
	}
	if got, _ := w.h.Store.Cases.GetSAR(ctx, other.Org.ID, f.ID); got.Narrative != "their narrative" || got.Status != "draft" {
		t.Errorf("their filing changed: %+v", got)
	}
}

// regexpAll is the first group of every match of pattern in s.
func regexpAll(pattern, s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
