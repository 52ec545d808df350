package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	temporalclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/store"
)

// regulator is a loopback SAR receiver: it answers 503 to the first try of each filing (so the
// delivery's retry is exercised), then acknowledges, or rejects a narrative that says "reject".
type regulator struct {
	*httptest.Server
	mu       sync.Mutex
	tries    map[string]int
	received map[string]map[string]any
	pdfs     map[string][]byte
}

func newRegulator(t *testing.T) *regulator {
	g := &regulator{tries: map[string]int{}, received: map[string]map[string]any{}, pdfs: map[string][]byte{}}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Filing map[string]any `json:"filing"`
			PDF    string         `json:"pdf"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		id := r.Header.Get("Idempotency-Key")
		g.mu.Lock()
		defer g.mu.Unlock()
		g.tries[id]++
		if g.tries[id] == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		pdf, _ := base64.StdEncoding.DecodeString(body.PDF)
		g.received[id], g.pdfs[id] = body.Filing, pdf
		if n, _ := body.Filing["narrative"].(string); bytes.Contains([]byte(n), []byte("reject")) {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"reason":"narrative incomplete"}`))
			return
		}
		_, _ = fmt.Fprintf(w, `{"reference":"FIU-%s"}`, id)
	}))
	t.Cleanup(g.Close)
	return g
}

// session logs a user in and returns a client that sends the session cookie and CSRF token.
type session struct {
	t      *testing.T
	base   string
	cookie []*http.Cookie
	csrf   string
}

func login(t *testing.T, base, email, password string) session {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"email": email, "password": password})
	res, err := http.Post(base+"/api/auth/login", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct {
		Data struct {
			CSRFToken string `json:"csrfToken"`
		} `json:"data"`
	}
	_ = json.NewDecoder(res.Body).Decode(&env)
	if res.StatusCode != 200 || env.Data.CSRFToken == "" {
		t.Fatalf("login = %d", res.StatusCode)
	}
	return session{t: t, base: base, cookie: res.Cookies(), csrf: env.Data.CSRFToken}
}

func (s session) do(method, path string, body any) response {
	s.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", s.csrf)
	for _, ck := range s.cookie {
		req.AddCookie(ck)
	}
	return client{t: s.t, base: s.base}.send(req)
}

// wantFail fails unless r is status with the exact error message.
func wantFail(t *testing.T, what string, r response, status int, msg string) {
	t.Helper()
	if r.Status != status || (msg != "" && str(r.Body["error"]) != msg) {
		t.Errorf("%s = %d %s, want %d %q", what, r.Status, r.Raw, status, msg)
	}
}

// caseEvent waits for the event name whose data key equals value.
func (s *eventSink) caseEvent(t *testing.T, name, key, value string) orchEvent {
	t.Helper()
	var found orchEvent
	eventually(t, 30*time.Second, name+" of "+value, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ev := range s.events {
			if ev.Event == name && ev.Data[key] == value {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// TestCasesEndToEnd drives the cases product on the real stack: alerts raised into the one
// intake are gathered into their customer's case by the Schedule; the four-eyes matrix of
// closing a case and submitting a SAR (unbound key, self-approval through a session cookie
// and a bound key of the same user, a user without the role, a second submit); a restart
// while a closure waits for approval; a due date that passes; the SAR delivered to a
// loopback regulator with a retry, its PDF, and the acknowledgement and the rejection.
func TestCasesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	reg := newRegulator(t)
	opts := bootOptions{env: []string{"SVC_WEBHOOKS_SCHEDULE=0s,1s,1s,1s,1s,1s", "SVC_CASES_GATHER_EVERY=1s",
		"SVC_CASES_REGULATOR_URL=" + reg.URL + "/sar", "SVC_CASES_REGULATOR_ALLOW_CIDRS=127.0.0.0/8", "SVC_CASES_DELIVERY_ATTEMPTS=4"},
		secrets: []string{"analyst password 1"}}
	s := boot(t, dir, opts)
	admin := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	as := func(key string) client { return client{t: t, base: s.BaseURL, key: key} }
	sink := newEventSink(t)
	sink.subscribe(admin, "case.created", "case.assigned", "case.escalated", "case.overdue", "case.closed",
		"sar.submitted", "sar.acknowledged", "sar.rejected")

	// The analyst proposes and drafts, with a bound key and through a dashboard session.
	analystEmail := fmt.Sprintf("analyst%d@example.com", time.Now().UnixNano())
	u := admin.do("POST", "/api/users", map[string]any{"email": analystEmail, "name": "analyst", "role": "analyst", "password": "analyst password 1"})
	if u.Status != 201 {
		t.Fatalf("POST /api/users = %d %s", u.Status, u.Raw)
	}
	analystID := str(u.data(t)["id"])
	k := admin.do("POST", "/api/api-keys", map[string]any{"name": "analyst key", "scopes": []string{"cases:write", "sar-filings:write"}, "actAsUserId": analystID})
	if k.Status != 201 {
		t.Fatalf("POST /api/api-keys = %d %s", k.Status, k.Raw)
	}
	analyst := as(str(k.data(t)["key"]))
	analystSession := login(t, s.BaseURL, analystEmail, "analyst password 1")
	reviewer := newPerson(admin, "reviewer", "cases:write", "sar-filings:write")
	viewer := newPerson(admin, "viewer", "read")
	unbound := admin.do("POST", "/api/api-keys", map[string]any{"name": "service", "scopes": []string{"cases:write", "sar-filings:write"}})
	service := as(str(unbound.data(t)["key"]))

	// Two alerts of one customer, raised as screening and fraud raise them, gather into one case.
	customer := fmt.Sprintf("cus_e2e%d", time.Now().UnixNano())
	ctx := context.Background()
	for i, src := range []string{"screening", "fraud"} {
		if _, _, err := s.App.Store.Alerts.Raise(ctx, &store.Alert{OrgID: s.Credentials.OrgID, Source: src, SourceRef: fmt.Sprintf("ref_%s_%d", customer, i),
			CustomerID: customer, Score: 0.95, Summary: src + " alert"}); err != nil {
			t.Fatal(err)
		}
	}
	var caseID string
	eventually(t, 30*time.Second, "the alerts gathered into one case", func() bool {
		r := admin.do("GET", "/api/alerts?customerId="+customer, nil)
		rows, _ := r.Body["rows"].([]any)
		if len(rows) != 2 {
			return false
		}
		a, b := rows[0].(map[string]any), rows[1].(map[string]any)
		caseID = str(a["caseId"])
		return a["status"] == "assigned" && a["caseId"] != nil && a["caseId"] == b["caseId"]
	})
	created := sink.caseEvent(t, "case.created", "caseId", caseID)
	if ids, _ := created.Data["alertIds"].([]any); len(ids) == 0 || created.Data["customerId"] != customer || created.Data["priority"] != "high" {
		t.Errorf("case.created = %v ", created.Data)
	}
	c := admin.do("GET", "/api/cases/"+caseID, nil).data(t)
	if alerts, _ := c["alerts"].([]any); len(alerts) != 2 || c["status"] != "open" {
		t.Fatalf("gathered case = %v", c)
	}
	if r := admin.do("GET", "/api/cases?customerId="+customer, nil); r.Body["total"] != float64(1) {
		t.Errorf("cases of the customer = %s", r.Raw)
	}

	// Investigation: moves outside the table are 409.
	wantFail(t, "approve an open case", as(reviewer.key).do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 409,
		"state conflict: cannot transition open → closed")
	if r := admin.do("POST", "/api/cases/"+caseID+"/assign", map[string]any{"assigneeId": analystID}); r.Status != 200 || r.data(t)["status"] != "investigating" {
		t.Fatalf("assign = %d %s", r.Status, r.Raw)
	}
	assigned := sink.caseEvent(t, "case.assigned", "caseId", caseID)
	if assigned.Data["assigneeId"] != analystID || assigned.Data["status"] != "investigating" {
		t.Errorf("case.assigned = %v", assigned.Data)
	}
	if r := analyst.do("POST", "/api/cases/"+caseID+"/comments", map[string]any{"body": "same address as a sanctioned entity"}); r.Status != 201 {
		t.Errorf("comment = %d %s", r.Status, r.Raw)
	}
	if r := analyst.do("PATCH", "/api/cases/"+caseID, map[string]any{"evidence": []any{map[string]any{"id": "scr_0000000000000000000000000a", "note": "the hit"}}}); r.Status != 200 {
		t.Errorf("link evidence = %d %s", r.Status, r.Raw)
	}

	// Four-eyes on closing.
	closeBody := map[string]any{"outcome": "confirmed_risk", "rationale": "structuring confirmed"}
	wantFail(t, "propose with an unbound key", service.do("POST", "/api/cases/"+caseID+"/propose-close", closeBody), 422, "api_key_not_bound_to_user")
	wantFail(t, "propose without an outcome", analyst.do("POST", "/api/cases/"+caseID+"/propose-close", map[string]any{"rationale": "x"}), 400, "")
	if r := analyst.do("POST", "/api/cases/"+caseID+"/propose-close", closeBody); r.Status != 200 || r.data(t)["status"] != "pending_close" || r.data(t)["proposedBy"] != analystID {
		t.Fatalf("propose = %d %s", r.Status, r.Raw)
	}
	wantFail(t, "the proposer approves through a session", analystSession.do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 422,
		"four-eyes violation: proposer cannot approve")
	wantFail(t, "the proposer approves with a bound key", analyst.do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 422,
		"four-eyes violation: proposer cannot approve")
	other := newPerson(admin, "analyst", "cases:write")
	wantFail(t, "an analyst who did not propose approves", as(other.key).do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 403,
		"only a reviewer or an admin may decide a closure")
	wantFail(t, "a viewer approves", as(viewer.key).do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 403, "")
	wantFail(t, "an unbound key approves", service.do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 422, "api_key_not_bound_to_user")

	// A restart while the closure waits for approval loses nothing.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s = boot(t, dir, opts)
	admin, reviewerC := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}, client{t: t, base: s.BaseURL, key: reviewer.key}
	analyst, service = client{t: t, base: s.BaseURL, key: analyst.key}, client{t: t, base: s.BaseURL, key: service.key}
	analystSession = login(t, s.BaseURL, analystEmail, "analyst password 1")
	if r := admin.do("GET", "/api/cases/"+caseID, nil); r.data(t)["status"] != "pending_close" {
		t.Fatalf("after restart = %s", r.Raw)
	}
	wantFail(t, "the proposer approves after the restart", analystSession.do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{}), 422,
		"four-eyes violation: proposer cannot approve")
	r := reviewerC.do("POST", "/api/cases/"+caseID+"/approve-close", map[string]any{"comment": "agreed"})
	if r.Status != 200 || r.data(t)["status"] != "closed" || r.data(t)["outcome"] != "confirmed_risk" || r.data(t)["closedBy"] != reviewer.userID {
		t.Fatalf("approve after restart = %d %s", r.Status, r.Raw)
	}
	closed := sink.caseEvent(t, "case.closed", "caseId", caseID)
	if closed.Data["proposedBy"] != analystID || closed.Data["approvedBy"] != reviewer.userID || closed.Data["outcome"] != "confirmed_risk" {
		t.Errorf("case.closed = %v", closed.Data)
	}
	for _, a := range admin.do("GET", "/api/cases/"+caseID, nil).data(t)["alerts"].([]any) {
		if a.(map[string]any)["status"] != "closed" {
			t.Errorf("alert of a closed case = %v", a)
		}
	}
	// The audit log has the approval with the effective user and the key.
	audit := admin.do("GET", "/api/audit-logs?q=approve-close", nil)
	found := false
	for _, row := range audit.Body["rows"].([]any) {
		e := row.(map[string]any)
		if e["action"] == "POST /api/cases/:id/approve-close" && e["resourceId"] == caseID && e["userId"] == reviewer.userID && e["apiKeyId"] == reviewer.keyID {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit record of the approval with user and key: %s", audit.Raw)
	}

	// Reopen, then a reopen of an investigation is a 409.
	if r := analyst.do("POST", "/api/cases/"+caseID+"/reopen", map[string]any{"reason": "new transfers"}); r.Status != 200 || r.data(t)["status"] != "investigating" {
		t.Fatalf("reopen = %d %s", r.Status, r.Raw)
	}
	wantFail(t, "reopen twice", analyst.do("POST", "/api/cases/"+caseID+"/reopen", map[string]any{}), 409, "state conflict: cannot transition investigating → investigating")
	// A rejected proposal returns the case to investigating.
	if r := analyst.do("POST", "/api/cases/"+caseID+"/propose-close", map[string]any{"outcome": "false_positive", "rationale": "explained"}); r.Status != 200 {
		t.Fatalf("second proposal = %d %s", r.Status, r.Raw)
	}
	if r := reviewerC.do("POST", "/api/cases/"+caseID+"/reject-close", map[string]any{"comment": "not explained"}); r.Status != 200 || r.data(t)["status"] != "investigating" {
		t.Fatalf("reject-close = %d %s", r.Status, r.Raw)
	}
	// A person escalates by hand; case.escalated names them and their reason.
	if r := analyst.do("POST", "/api/cases/"+caseID+"/escalate", map[string]any{"reason": "amounts keep growing"}); r.Status != 200 || r.data(t)["status"] != "escalated" {
		t.Fatalf("escalate = %d %s", r.Status, r.Raw)
	}
	byHand := sink.caseEvent(t, "case.escalated", "caseId", caseID)
	if byHand.Data["escalatedBy"] != analystID || byHand.Data["reason"] != "amounts keep growing" {
		t.Errorf("case.escalated by hand = %v", byHand.Data)
	}

	// SAR filings: drafted by the analyst, submitted by the reviewer.
	sarBody := map[string]any{"caseId": caseID, "activityFrom": "2026-10-01", "activityTo": "2026-10-31", "amount": 48250.5, "narrative": "Structured cash deposits."}
	wantFail(t, "draft with an unbound key", service.do("POST", "/api/sar-filings", sarBody), 422, "api_key_not_bound_to_user")
	d := analyst.do("POST", "/api/sar-filings", sarBody)
	if d.Status != 201 || d.data(t)["status"] != "draft" || d.data(t)["filedById"] != analystID {
		t.Fatalf("draft = %d %s", d.Status, d.Raw)
	}
	sarID := str(d.data(t)["id"])
	if subj, _ := d.data(t)["subjects"].([]any); len(subj) != 1 || subj[0] != customer {
		t.Errorf("subjects default to the case's customer: %v", d.data(t)["subjects"])
	}
	wantFail(t, "submit with an unbound key", service.do("POST", "/api/sar-filings/"+sarID+"/submit", map[string]any{}), 422, "api_key_not_bound_to_user")
	wantFail(t, "the drafter submits with a bound key", analyst.do("POST", "/api/sar-filings/"+sarID+"/submit", map[string]any{}), 422, "four-eyes violation: drafter cannot submit")
	wantFail(t, "the drafter submits through a session", analystSession.do("POST", "/api/sar-filings/"+sarID+"/submit", map[string]any{}), 422, "four-eyes violation: drafter cannot submit")
	wantFail(t, "a viewer submits", client{t: t, base: s.BaseURL, key: viewer.key}.do("POST", "/api/sar-filings/"+sarID+"/submit", map[string]any{}), 403, "")
	if r := reviewerC.do("POST", "/api/sar-filings/"+sarID+"/submit", map[string]any{}); r.Status != 202 || r.data(t)["status"] != "submitted" || r.data(t)["submittedById"] != reviewer.userID {
		t.Fatalf("submit = %d %s", r.Status, r.Raw)
	}
	wantFail(t, "a second submit", reviewerC.do("POST", "/api/sar-filings/"+sarID+"/submit", map[string]any{}), 409, "state conflict: cannot transition submitted → submitted")
	wantFail(t, "change a submitted filing", analyst.do("PATCH", "/api/sar-filings/"+sarID, map[string]any{"narrative": "x"}), 409, "")
	ack := sink.caseEvent(t, "sar.acknowledged", "filingId", sarID)
	if ack.Data["reference"] != "FIU-"+sarID || ack.Data["filedById"] != analystID || ack.Data["submittedById"] != reviewer.userID {
		t.Errorf("sar.acknowledged = %v", ack.Data)
	}
	sink.caseEvent(t, "sar.submitted", "filingId", sarID)
	f := admin.do("GET", "/api/sar-filings/"+sarID, nil).data(t)
	if f["status"] != "acknowledged" || f["attempts"] != float64(2) || f["pdfBytes"].(float64) < 500 {
		t.Errorf("acknowledged filing = %v", f)
	}
	reg.mu.Lock()
	got, pdf := reg.received[sarID], reg.pdfs[sarID]
	reg.mu.Unlock()
	if got["caseId"] != caseID || got["amount"] != 48250.5 || !bytes.HasPrefix(pdf, []byte("%PDF-1.4")) || !bytes.HasSuffix(pdf, []byte("%%EOF\n")) {
		t.Errorf("regulator received %v and a PDF of %d bytes", got, len(pdf))
	}
	if alerts, _ := got["alerts"].([]any); len(alerts) != 2 {
		t.Errorf("the filing carries the case's alerts: %v", got["alerts"])
	}

	// A rejection by the regulator is recorded.
	sarBody["narrative"] = "please reject this"
	rejID := str(analyst.do("POST", "/api/sar-filings", sarBody).data(t)["id"])
	if r := reviewerC.do("POST", "/api/sar-filings/"+rejID+"/submit", map[string]any{}); r.Status != 202 {
		t.Fatalf("submit = %d %s", r.Status, r.Raw)
	}
	rej := sink.caseEvent(t, "sar.rejected", "filingId", rejID)
	if rej.Data["reason"] != "narrative incomplete" {
		t.Errorf("sar.rejected = %v", rej.Data)
	}

	// A due date that passes raises case.overdue and escalates the case.
	due := time.Now().UTC().Add(3 * time.Second).Format(time.RFC3339)
	oc := analyst.do("POST", "/api/cases", map[string]any{"title": "wire to a new beneficiary", "dueAt": due, "priority": "low"})
	if oc.Status != 201 {
		t.Fatalf("POST /api/cases = %d %s", oc.Status, oc.Raw)
	}
	overdueID := str(oc.data(t)["id"])
	sink.caseEvent(t, "case.overdue", "caseId", overdueID)
	esc := sink.caseEvent(t, "case.escalated", "caseId", overdueID)
	if esc.Data["reason"] != "overdue" || esc.Data["escalatedBy"] != nil {
		t.Errorf("case.escalated = %v", esc.Data)
	}
	if st := admin.do("GET", "/api/cases/"+overdueID, nil).data(t)["status"]; st != "escalated" {
		t.Errorf("overdue case status = %v", st)
	}

	// Every refusal above was a validator's, so none left a trace: the case's history holds only
	// updates that were accepted and completed without failure (at least the seven actions that succeeded).
	wantOnlySucceededUpdates(t, s.App.Temporal, caseID, 7)

	recordCaseHistories(t, s.App.Temporal, map[string]string{"case_closed_reopened": caseID, "case_overdue": overdueID, "sar_acknowledged": sarID, "sar_rejected": rejID})
}

// recordCaseHistories writes the runs' histories to workflows/cases/testdata when
// SVC_RECORD_HISTORIES=1, for the replay test there.
func recordCaseHistories(t *testing.T, tc temporalclient.Client, runs map[string]string) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		return
	}
	for name, id := range runs {
		hist := &historypb.History{}
		it := tc.GetWorkflowHistory(context.Background(), id, "", false, 0)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			hist.Events = append(hist.Events, ev)
		}
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "workflows", "cases", "testdata", name+".json")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wantOnlySucceededUpdates checks that run id's history holds at least atLeast updates, each
// accepted and completed without failure: a refused Update (its validator said no) is not there.
func wantOnlySucceededUpdates(t *testing.T, tc temporalclient.Client, id string, atLeast int) {
	t.Helper()
	accepted, completed := 0, 0
	it := tc.GetWorkflowHistory(context.Background(), id, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			accepted++
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
			completed++
			if f := ev.GetWorkflowExecutionUpdateCompletedEventAttributes().GetOutcome().GetFailure(); f != nil {
				t.Errorf("an update of %s failed after acceptance (a refusal outside the validator): %s", id, f.GetMessage())
			}
		}
	}
	if accepted != completed || accepted < atLeast {
		t.Errorf("%s: %d updates accepted, %d completed; want equal and at least %d", id, accepted, completed, atLeast)
	}
}
