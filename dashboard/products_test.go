package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
	"github.com/svcplatform/svc/store"
)

// The product pages: screenings, fraud decisions and rule sets, statement analyses and
// identity verifications. Each page reads, and each form writes, through the API.

// mustStatus fails unless p answered status, its body holds every want and it is well formed
// (labels, CSRF tokens, nothing inline).
func mustStatus(t *testing.T, what string, p page, status int, want ...string) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("%s: %d, want %d\n%.3000s", what, p.Status, status, p.Body)
	}
	mustContain(t, what, p, want...)
	wellFormed(t, p)
}

// post submits form with the CSRF token of the page at from.
func post(t *testing.T, b *browser, from, path string, form url.Values) page {
	t.Helper()
	form.Set("csrf", csrfOf(t, b.do("GET", from, nil)))
	return b.do("POST", path, form)
}

// apiData is the data of a successful API call.
func apiData(t *testing.T, r *apitest.Response) map[string]any {
	t.Helper()
	if r.Status/100 != 2 {
		t.Fatalf("API: %d %s", r.Status, r.Body)
	}
	return r.Data()
}

// adaKey is a key bound to Ada, the signed-in user (what she does outside the dashboard).
func adaKey(t *testing.T, h *apitest.Harness) string {
	t.Helper()
	u, err := h.Store.Users.ByEmail(context.Background(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"write"}, ActAsUserID: u.ID})
	return key
}

// notFoundElsewhere checks that the other organisation's pages answer the not-found page.
func notFoundElsewhere(t *testing.T, b *browser, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if got := b.do("GET", p, nil); got.Status != http.StatusNotFound || !strings.Contains(got.Body, "Not found") {
			t.Errorf("GET %s (another organisation's): %d", p, got.Status)
		}
	}
}

func TestDashboardScreeningsResolveAHit(t *testing.T) {
	h, b := start(t)
	list := apiData(t, h.Do("POST", "/api/screening-lists", h.AdminKey, map[string]any{"name": "watch list", "entries": []map[string]any{
		{"id": "e1", "type": "person", "name": "Sergei Ivanovich Petrov", "birthDates": []string{"1970-03-04"}, "countries": []string{"RU"}},
	}}))
	s := apiData(t, h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Petrov Sergey", "birthDate": "1970", "lists": []string{list["id"].(string)}}))
	id := s["id"].(string)
	hit := s["hits"].([]any)[0].(map[string]any)
	hitID := hit["id"].(string)
	// A page holds 50: the first screening is on the second one.
	h.NoRateLimits(h.Org.ID)
	for i := range 50 {
		h.Clock.Advance(time.Second)
		apiData(t, h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": fmt.Sprintf("Jane Doe %d", i)}))
	}
	signIn(t, b, "correct horse battery")

	first := b.do("GET", "/dashboard/screenings", nil)
	mustStatus(t, "list", first, 200, "Jane Doe 49", "Next page")
	next := regexp.MustCompile(`href="(/dashboard/screenings\?cursor=[^"]+)"`).FindStringSubmatch(first.Body)
	if next == nil || strings.Contains(first.Body, "Petrov Sergey") {
		t.Fatalf("first page of 51 screenings: next %v, Petrov %v\n%s", next, strings.Contains(first.Body, "Petrov Sergey"), first.Body[strings.Index(first.Body, "<main"):])
	}
	mustStatus(t, "second page", b.do("GET", html.UnescapeString(next[1]), nil), 200, `href="/dashboard/screenings/`+id+`"`, "Petrov Sergey", "potential_match")
	if f := b.do("GET", "/dashboard/screenings?status=potential_match", nil); !strings.Contains(f.Body, "Petrov Sergey") || strings.Contains(f.Body, "Jane Doe") {
		t.Errorf("potential matches: %d\n%.3000s", f.Status, f.Body)
	}
	mustStatus(t, "list by name", b.do("GET", "/dashboard/screenings?q=Nobody", nil), 200, "No screenings match.")
	detail := b.do("GET", "/dashboard/screenings/"+id, nil)
	mustStatus(t, "detail", detail, 200, "Sergei Ivanovich Petrov", "Why it scored", "Birth date", "year", "Country", "Entity type",
		`action="/dashboard/screenings/`+id+`/hits/`+hitID+`/resolve"`, `<label for="fp-`+hitID+`">`)

	resolve := "/dashboard/screenings/" + id + "/hits/" + hitID + "/resolve"
	forged := b.do("POST", resolve, url.Values{"csrf": {"forged"}, "decision": {"false_positive"}})
	mustStatus(t, "resolve without the form's token", forged, http.StatusForbidden, "This form has expired")
	bad := post(t, b, "/dashboard/screenings/"+id, resolve, url.Values{"decision": {"maybe"}})
	mustStatus(t, "resolve with a bad decision", bad, http.StatusBadRequest, "Some fields need fixing", "must be false_positive or true_match")
	if d := apiData(t, h.Do("GET", "/api/screenings/"+id, h.AdminKey, nil))["hits"].([]any)[0].(map[string]any)["decision"]; d != "unresolved" {
		t.Fatalf("after refused forms the hit is %v", d)
	}

	done := post(t, b, "/dashboard/screenings/"+id, resolve, url.Values{"decision": {"false_positive"}, "comment": {"other person, passport seen"}})
	if done.Status != http.StatusSeeOther || done.Header.Get("Location") != "/dashboard/screenings/"+id+"?done=resolved" {
		t.Fatalf("resolve: %d %q\n%.2000s", done.Status, done.Header.Get("Location"), done.Body)
	}
	got := apiData(t, h.Do("GET", "/api/screenings/"+id, h.AdminKey, nil))["hits"].([]any)[0].(map[string]any)
	if got["decision"] != "false_positive" || got["comment"] != "other person, passport seen" || got["resolvedBy"] == h.Admin.ID || got["resolvedBy"] == nil {
		t.Fatalf("hit after the dashboard's resolve: %v", got)
	}
	mustStatus(t, "after", b.do("GET", done.Header.Get("Location"), nil), 200, "The hit was resolved.", "Resolved as <strong>false_positive</strong> by Ada at", "other person, passport seen")
	again := post(t, b, "/dashboard/screenings/"+id, resolve, url.Values{"decision": {"true_match"}})
	mustStatus(t, "resolve twice", again, http.StatusConflict, "This has already changed")

	other := h.NewTenant("Other Org")
	olist := apiData(t, h.Do("POST", "/api/screening-lists", other.Key, map[string]any{"name": "l", "entries": []map[string]any{{"id": "x", "type": "person", "name": "Jane Roe"}}}))
	os := apiData(t, h.Do("POST", "/api/screenings", other.Key, map[string]any{"fullName": "Jane Roe", "lists": []string{olist["id"].(string)}}))
	notFoundElsewhere(t, b, "/dashboard/screenings/"+os["id"].(string))
	ohit := os["hits"].([]any)[0].(map[string]any)["id"].(string)
	mustStatus(t, "resolve another organisation's hit", post(t, b, "/dashboard/screenings", "/dashboard/screenings/"+os["id"].(string)+"/hits/"+ohit+"/resolve",
		url.Values{"decision": {"true_match"}}), http.StatusNotFound, "Not found")
}

const fraudRules = `{"rules": [
	{"name": "repeat payer", "expression": "velocity.customer.count_1h >= 3", "scoreModifier": 40, "reasonCode": "VELOCITY",
	 "explanation": "{{ velocity.customer.count_1h }} payments in an hour"}
], "thresholds": {"review": 40, "decline": 100}}`

func TestDashboardFraudRuleSetsAndReview(t *testing.T) {
	h, b := start(t)
	h.NoRateLimits(h.Org.ID)
	rs := apiData(t, h.Do("POST", "/api/rulesets", h.AdminKey, map[string]any{"name": "Cards", "appliesTo": "transaction"}))
	id := rs["id"].(string)
	apiData(t, h.Do("POST", "/api/rulesets/"+id+"/versions", h.AdminKey, fraudRules))
	signIn(t, b, "correct horse battery")

	mustStatus(t, "rule sets", b.do("GET", "/dashboard/rulesets", nil), 200, "Cards", `href="/dashboard/rulesets/`+id+`/versions/1"`)
	v1 := "/dashboard/rulesets/" + id + "/versions/1"
	mustStatus(t, "draft", b.do("GET", v1, nil), 200, "velocity.customer.count_1h &gt;= 3", "VELOCITY", `id="version-submit"`)
	if p := b.do("GET", v1, nil); strings.Contains(p.Body, `id="version-approve"`) {
		t.Error("a draft offers approval")
	}
	// The admin drafted version 1; Ada submits, approves and publishes it.
	for _, step := range []string{"submit", "approve", "publish"} {
		r := post(t, b, v1, v1+"/"+step, url.Values{})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != v1+"?done=version-"+step {
			t.Fatalf("%s: %d %q\n%.2000s", step, r.Status, r.Header.Get("Location"), r.Body)
		}
	}
	if v := apiData(t, h.Do("GET", "/api/rulesets/"+id+"/versions/1", h.AdminKey, nil)); v["status"] != "published" || v["publishedBy"] == h.Admin.ID {
		t.Fatalf("version 1 after the dashboard: %v", v)
	}
	mustStatus(t, "published", b.do("GET", v1+"?done=version-publish", nil), 200, "The version was published",
		`<th scope="row">Approved or rejected by</th><td>Ada</td>`, `<th scope="row">Published by</th><td>Ada</td>`)
	mustStatus(t, "unknown action", post(t, b, v1, v1+"/retire", url.Values{}), http.StatusNotFound, "Not found")
	mustStatus(t, "without the form's token", b.do("POST", v1+"/publish", url.Values{"csrf": {"forged"}}), http.StatusForbidden)

	// Ada drafts version 2 herself: the four-eyes rule refuses her approval, in plain words.
	ada := adaKey(t, h)
	apiData(t, h.Do("POST", "/api/rulesets/"+id+"/versions", ada, fraudRules))
	apiData(t, h.Do("POST", "/api/rulesets/"+id+"/versions/2/submit", ada, nil))
	v2 := "/dashboard/rulesets/" + id + "/versions/2"
	mustStatus(t, "self-approval", post(t, b, v2, v2+"/approve", url.Values{}), http.StatusUnprocessableEntity,
		"You drafted this version, so you cannot approve or reject it yourself", `id="version-approve"`)
	if v := apiData(t, h.Do("GET", "/api/rulesets/"+id+"/versions/2", h.AdminKey, nil)); v["status"] != "pending_approval" {
		t.Fatalf("version 2 after a refused approval: %v", v)
	}

	// The third payment in an hour is held for review.
	var dec map[string]any
	for _, tx := range []string{"t1", "t2", "t3"} {
		dec = apiData(t, h.Do("POST", "/api/transactions/evaluate", h.AdminKey,
			`{"transaction": {"id": "`+tx+`", "amount": 20, "currency": "EUR", "type": "card_payment", "customerId": "cus_1"}}`))
	}
	did := dec["id"].(string)
	mustStatus(t, "decisions", b.do("GET", "/dashboard/decisions", nil), 200, `href="/dashboard/decisions/`+did+`"`, "VELOCITY", "pending")
	mustStatus(t, "decisions filtered", b.do("GET", "/dashboard/decisions?status=decline", nil), 200, "No decisions match.")
	detail := "/dashboard/decisions/" + did
	mustStatus(t, "decision", b.do("GET", detail, nil), 200, "repeat payer", "3 payments in an hour", "<code>VELOCITY</code>",
		"velocity.customer.count_1h", "count_1h", `<label for="review-note">`, `action="/dashboard/decisions/`+did+`/review"`)
	mustStatus(t, "review without the form's token", b.do("POST", detail+"/review", url.Values{"decision": {"decline"}}), http.StatusForbidden)
	mustStatus(t, "review with a bad decision", post(t, b, detail, detail+"/review", url.Values{"decision": {"maybe"}}), http.StatusBadRequest,
		"must be approve or decline")
	r := post(t, b, detail, detail+"/review", url.Values{"decision": {"decline"}, "note": {"card reported stolen"}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != detail+"?done=reviewed" {
		t.Fatalf("review: %d %q\n%.2000s", r.Status, r.Header.Get("Location"), r.Body)
	}
	if d := apiData(t, h.Do("GET", "/api/decisions/"+did, h.AdminKey, nil)); d["reviewStatus"] != "declined" {
		t.Fatalf("decision after the review: %v", d)
	}
	if p := b.do("GET", detail, nil); strings.Contains(p.Body, `id="review-approve"`) || !strings.Contains(p.Body, "declined") {
		t.Errorf("a reviewed decision still offers the review form")
	}
	mustStatus(t, "review twice", post(t, b, "/dashboard/decisions", detail+"/review", url.Values{"decision": {"approve"}}), http.StatusConflict, "This has already changed")

	other := h.NewTenant("Other Org")
	h.NoRateLimits(other.Org.ID)
	ors := apiData(t, h.Do("POST", "/api/rulesets", other.Key, map[string]any{"name": "Theirs", "appliesTo": "transaction"}))
	apiData(t, h.Do("POST", "/api/rulesets/"+ors["id"].(string)+"/versions", other.Key, fraudRules))
	odec := apiData(t, h.Do("POST", "/api/transactions/evaluate", other.Key, `{"transaction": {"id": "o1", "amount": 5, "currency": "EUR", "type": "p", "customerId": "c"}}`))
	notFoundElsewhere(t, b, "/dashboard/decisions/"+odec["id"].(string), "/dashboard/rulesets/"+ors["id"].(string)+"/versions/1")
	mustStatus(t, "submit another organisation's version", post(t, b, "/dashboard/rulesets", "/dashboard/rulesets/"+ors["id"].(string)+"/versions/1/submit", url.Values{}),
		http.StatusNotFound, "Not found")
}

// decidedAnalysis stores an analysis of a generated CSV statement as the pipeline decides it
// (the pipeline itself runs in e2e).
func decidedAnalysis(t *testing.T, h *apitest.Harness, orgID string) string {
	t.Helper()
	ctx := context.Background()
	st, err := stmt.ParseCSV(fixtures.CSV(fixtures.Series(5, fixtures.Template("thames-uk"), 1, 12)[0], false), "GBP")
	if err != nil {
		t.Fatal(err)
	}
	a := newAnalysis(t, h, orgID)
	res := stmt.Analyze([]*stmt.FileResult{{Kind: stmt.KindCSV, MeanConfidence: 1, Statements: []*stmt.Statement{st}}}, nil, nil)
	if _, err := h.Store.Statements.DecideAnalysis(ctx, orgID, a, res, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	return a
}

// newAnalysis stores an analysis of orgID being processed.
func newAnalysis(t *testing.T, h *apitest.Harness, orgID string) string {
	t.Helper()
	a := &store.Analysis{ID: ids.New(ids.Analysis), OrgID: orgID, Files: []store.AnalysisFile{{Filename: "march.csv", Kind: "csv", Size: 1, SHA256: "00", BlobKey: "k"}}}
	if err := h.Store.Statements.CreateAnalysis(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := h.Store.Statements.UpdateAnalysis(context.Background(), orgID, a.ID, store.AnalysisUpdate{Status: stmt.StatusProcessing}, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func TestDashboardStatementAnalyses(t *testing.T) {
	h, b := start(t)
	id := decidedAnalysis(t, h, h.Org.ID)
	locked := newAnalysis(t, h, h.Org.ID)
	if err := h.Store.Statements.UpdateAnalysis(context.Background(), h.Org.ID, locked, store.AnalysisUpdate{Status: stmt.StatusPasswordRequired}, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	signIn(t, b, "correct horse battery")

	mustStatus(t, "analyses", b.do("GET", "/dashboard/analyses", nil), 200, `href="/dashboard/analyses/`+id+`"`, `href="/dashboard/analyses/`+locked+`"`, "march.csv")
	mustStatus(t, "analyses filtered", b.do("GET", "/dashboard/analyses?status=password_required", nil), 200, locked)
	an := apiData(t, h.Do("GET", "/api/analyses/"+id, h.AdminKey, nil))
	st := an["statements"].([]any)[0].(map[string]any)
	detail := b.do("GET", "/dashboard/analyses/"+id, nil)
	mustStatus(t, "analysis", detail, 200, "Reconciliation", "Tamper signals", "Insights", "Months", "Categories",
		money(st["closingBalance"]), `href="/dashboard/analyses/`+id+`/transactions"`)
	if strings.Contains(detail.Body, `action="/dashboard/analyses/`+id+`/password"`) {
		t.Error("a decided analysis offers the password form")
	}

	rows := h.Do("GET", "/api/analyses/"+id+"/transactions?limit=50", h.AdminKey, nil).JSON["rows"].([]any)
	first := rows[0].(map[string]any)
	txPage := b.do("GET", "/dashboard/analyses/"+id+"/transactions", nil)
	mustStatus(t, "transactions", txPage, 200, first["description"].(string), money(first["amount"]), ">"+first["date"].(string)[:10]+"<")
	debits := b.do("GET", "/dashboard/analyses/"+id+"/transactions?direction=debit", nil)
	mustStatus(t, "debits", debits, 200)
	for _, r := range rows {
		m := r.(map[string]any)
		if m["amount"].(float64) > 0 && strings.Contains(debits.Body, ">"+m["description"].(string)+"<") {
			t.Errorf("the debits page shows the credit %v", m["description"])
			break
		}
	}
	mustStatus(t, "bad filter", b.do("GET", "/dashboard/analyses/"+id+"/transactions?direction=sideways", nil), http.StatusBadRequest, "Some fields need fixing")

	// The password form: shown while a PDF waits; a decided analysis refuses a password.
	lockedPage := "/dashboard/analyses/" + locked
	mustStatus(t, "locked", b.do("GET", lockedPage, nil), 200, `<label for="analysis-password">`, `action="/dashboard/analyses/`+locked+`/password"`)
	mustStatus(t, "password without the form's token", b.do("POST", lockedPage+"/password", url.Values{"password": {"x"}}), http.StatusForbidden)
	mustStatus(t, "empty password", post(t, b, lockedPage, lockedPage+"/password", url.Values{"password": {""}}), http.StatusBadRequest, "is required")
	mustStatus(t, "password for a decided analysis", post(t, b, lockedPage, "/dashboard/analyses/"+id+"/password", url.Values{"password": {"x"}}),
		http.StatusConflict, "This has already changed")

	other := h.NewTenant("Other Org")
	theirs := decidedAnalysis(t, h, other.Org.ID)
	notFoundElsewhere(t, b, "/dashboard/analyses/"+theirs, "/dashboard/analyses/"+theirs+"/transactions")
	mustStatus(t, "password for another organisation's analysis", post(t, b, lockedPage, "/dashboard/analyses/"+theirs+"/password", url.Values{"password": {"x"}}),
		http.StatusNotFound, "Not found")
}

// money is the dashboard's rendering of an amount in minor units.
func money(v any) string { return stmt.Amount(int64(v.(float64))).String() }

// pngPhoto stands for an attempt's photo: a PNG's signature is what the API sniffs.
var pngPhoto = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)

// reviewVerification stores a verification of orgID whose one attempt (its front pngPhoto)
// sent it to review; it returns the verification's id and the attempt's.
func reviewVerification(t *testing.T, h *apitest.Harness, orgID string) (string, string) {
	t.Helper()
	ctx := context.Background()
	v := &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: orgID, Reference: "loan-42",
		Claimed: identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"},
		Policy:  identity.Policy{DocumentTypes: []string{"ktp"}}, ExpiresAt: time.Now().Add(time.Hour)}
	if err := h.Store.Identity.CreateVerification(ctx, v); err != nil {
		t.Fatal(err)
	}
	bl, err := blobs.NewLocal(h.Config.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	front, err := blobs.Put(ctx, bl, bytes.NewReader(pngPhoto), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	a := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: orgID, VerificationID: v.ID, FrontKey: front.Key}
	if err := h.Store.Identity.SubmitAttempt(ctx, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	score := 0.81
	checks := []identity.CheckResult{
		{Type: identity.CheckDocument, Status: identity.Passed},
		{Type: identity.CheckName, Status: identity.Failed, Reasons: []string{"name_partial_match"}, Score: &score},
	}
	if _, err := h.Store.Identity.CompleteAttempt(ctx, orgID, a.ID, identity.AttemptCompleted, checks,
		identity.Outcome{Status: identity.StatusReview, Reasons: []string{"name_partial_match"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	return v.ID, a.ID
}

func TestDashboardIdentityVerifications(t *testing.T) {
	h, b := start(t)
	id, attempt := reviewVerification(t, h, h.Org.ID)
	signIn(t, b, "correct horse battery")

	mustStatus(t, "in review", b.do("GET", "/dashboard/verifications?status=review", nil), 200, `href="/dashboard/verifications/`+id+`"`, "Siti Rahayu", "loan-42")
	// 51 verifications: a page holds 50, the next page (offset) the last one.
	for range 50 {
		if err := h.Store.Identity.CreateVerification(context.Background(), &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: h.Org.ID,
			Claimed: identity.Claimed{FullName: "Budi Santoso", BirthDate: "1985-03-12"}, Policy: identity.Policy{DocumentTypes: []string{"ktp"}}, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	first := b.do("GET", "/dashboard/verifications", nil)
	mustStatus(t, "verifications", first, 200, `href="/dashboard/verifications?page=2"`)
	second := b.do("GET", "/dashboard/verifications?page=2", nil)
	mustStatus(t, "verifications, page 2", second, 200)
	if n := strings.Count(first.Body, `href="/dashboard/verifications/idv_`); n != 50 {
		t.Errorf("first page: %d verifications", n)
	}
	if n := strings.Count(second.Body, `href="/dashboard/verifications/idv_`); n != 1 || strings.Contains(second.Body, "Next page") {
		t.Errorf("second page: %d verifications, next page %v", n, strings.Contains(second.Body, "Next page"))
	}
	mustStatus(t, "verified", b.do("GET", "/dashboard/verifications?status=verified", nil), 200, "No verifications match.")
	page := "/dashboard/verifications/" + id
	mustStatus(t, "verification", b.do("GET", page, nil), 200, "Attempt 1", "<code>name_partial_match</code>", "81%", "document",
		`<label for="decision-approve">`, `<label for="review-comment">`, `action="/dashboard/verifications/`+id+`/review"`)

	// The photo is read through the API, which records the read with the visitor's session.
	mustContain(t, "verification", b.do("GET", page, nil), `href="/dashboard/attempts/`+attempt+`/images/front"`)
	if img := b.do("GET", "/dashboard/attempts/"+attempt+"/images/front", nil); img.Status != 200 || img.Body != string(pngPhoto) ||
		img.Header.Get("Content-Type") != "image/png" || img.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("front image: %d %q", img.Status, img.Header)
	}
	if back := b.do("GET", "/dashboard/attempts/"+attempt+"/images/back", nil); back.Status != http.StatusNotFound {
		t.Errorf("missing back: %d", back.Status)
	}
	reads := 0
	for _, r := range h.Do("GET", "/api/audit-logs?limit=200", h.AdminKey, nil).JSON["rows"].([]any) {
		if e := r.(map[string]any); e["action"] == "GET /api/identity/attempts/:id/images/:side" && e["resourceId"] == attempt && e["sessionId"] != nil {
			reads++
		}
	}
	if reads != 1 {
		t.Errorf("audit entries of the dashboard's image read: %d, want 1", reads)
	}

	mustStatus(t, "review without the form's token", b.do("POST", page+"/review", url.Values{"decision": {"approve"}}), http.StatusForbidden)
	mustStatus(t, "review with a bad decision", post(t, b, page, page+"/review", url.Values{"decision": {"maybe"}}), http.StatusBadRequest,
		"must be approve, reject or request_resubmission")
	// The decision is the verification workflow's Update: without Temporal (this harness) the
	// API answers 503, shown in plain words, and nothing is decided.
	mustStatus(t, "review without Temporal", post(t, b, page, page+"/review", url.Values{"decision": {"approve"}}), http.StatusServiceUnavailable,
		"The service is unavailable right now", `id="review-submit"`)
	if v := apiData(t, h.Do("GET", "/api/identity/verifications/"+id, h.AdminKey, nil)); v["status"] != "review" {
		t.Fatalf("verification after a refused review: %v", v["status"])
	}

	other := h.NewTenant("Other Org")
	theirs, theirAttempt := reviewVerification(t, h, other.Org.ID)
	notFoundElsewhere(t, b, "/dashboard/verifications/"+theirs, "/dashboard/attempts/"+theirAttempt+"/images/front")
	mustStatus(t, "review another organisation's verification", post(t, b, page, "/dashboard/verifications/"+theirs+"/review", url.Values{"decision": {"approve"}}),
		http.StatusNotFound, "Not found")
}

// TestDashboardNavigationFollowsProducts: the navigation shows a product's pages only to an
// organisation that uses it, and a product page of another product says so in plain words.
func TestDashboardNavigationFollowsProducts(t *testing.T) {
	h, b := start(t)
	signIn(t, b, "correct horse battery")
	if home := b.do("GET", "/dashboard/", nil); home.Header.Get("Location") != "/dashboard/approvals" {
		t.Errorf("home with every product: %d %q", home.Status, home.Header.Get("Location"))
	}
	all := b.do("GET", "/dashboard/keys", nil)
	for _, entry := range []string{`href="/dashboard/screenings"`, `href="/dashboard/decisions"`, `href="/dashboard/analyses"`, `href="/dashboard/verifications"`,
		`href="/dashboard/documents"`, `href="/dashboard/executions"`, `href="/dashboard/cases"`, `href="/dashboard/keys"`} {
		if !strings.Contains(all.Body, entry) {
			t.Errorf("every product: no %s in the navigation", entry)
		}
	}
	apiData(t, h.Do("PUT", "/api/organization/capabilities", h.AdminKey, map[string]any{"capabilities": []string{"screening"}}))
	some := b.do("GET", "/dashboard/keys", nil)
	if !strings.Contains(some.Body, `href="/dashboard/screenings"`) || !strings.Contains(some.Body, `href="/dashboard/keys" aria-current="page"`) {
		t.Error("screening only: no Screenings, or API keys not current, in the navigation")
	}
	for _, entry := range []string{`href="/dashboard/decisions"`, `href="/dashboard/analyses"`, `href="/dashboard/verifications"`, `href="/dashboard/documents"`,
		`href="/dashboard/cases"`, `href="/dashboard/approvals"`, `href="/dashboard/webhooks"`} {
		if strings.Contains(some.Body, entry) {
			t.Errorf("screening only: %s in the navigation", entry)
		}
	}
	mustStatus(t, "fraud without the product", b.do("GET", "/dashboard/decisions", nil), http.StatusForbidden, "Your organisation does not use this product.")
	// Home is the first section the organisation has: approvals with every product, here screenings.
	if home := b.do("GET", "/dashboard/", nil); home.Status != http.StatusSeeOther || home.Header.Get("Location") != "/dashboard/screenings" {
		t.Errorf("home with screening only: %d %q", home.Status, home.Header.Get("Location"))
	}
}
