package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	docfix "github.com/svcplatform/svc/internal/documents/fixtures"
	it "github.com/svcplatform/svc/internal/identity/identitytest"
	stmtfix "github.com/svcplatform/svc/internal/statements/fixtures"
)

// The product pages of the dashboard in the browser: screenings, fraud decisions and rule
// sets, statement analyses, identity verifications; each list and detail page is visited and
// shot, and each product's action is taken once.

// productData are the product records the browser steps visit, made through the API.
type productData struct {
	screening, hit           string
	ruleSet, decision        string
	analysis, lockedAnalysis string
	verification             string
}

// prepareProducts makes them with the admin's key (bound to the admin user): a screening with
// a hit, a rule set with a published version and a second one the admin drafted and submitted,
// a decision held for review, a statement analysis and one waiting for its PDF's password (the pipelines run
// meanwhile), and a verification an attempt sends to review.
func prepareProducts(t *testing.T, admin client) productData {
	t.Helper()
	var p productData
	list := admin.do("POST", "/api/screening-lists", map[string]any{"name": "watch list", "entries": []map[string]any{
		{"id": "e1", "type": "person", "name": "Sergei Ivanovich Petrov", "birthDates": []string{"1970-03-04"}, "countries": []string{"RU"}},
	}})
	sc := admin.do("POST", "/api/screenings", map[string]any{"fullName": "Petrov Sergey", "birthDate": "1970", "lists": []string{str(list.data(t)["id"])}})
	if sc.Status != 201 || sc.data(t)["status"] != "potential_match" {
		t.Fatalf("screening = %d %s", sc.Status, sc.Raw)
	}
	p.screening, p.hit = str(sc.data(t)["id"]), str(sc.data(t)["hits"].([]any)[0].(map[string]any)["id"])

	rs := admin.do("POST", "/api/rulesets", map[string]any{"name": "Cards", "appliesTo": "transaction"})
	p.ruleSet = str(rs.data(t)["id"])
	rules := `{"rules": [{"name": "repeat payer", "expression": "velocity.customer.count_1h >= 3", "scoreModifier": 40, "reasonCode": "VELOCITY",
		"explanation": "{{ velocity.customer.count_1h }} payments in an hour"}], "thresholds": {"review": 40, "decline": 100}}`
	// Version 1 decides (a second admin approved it); version 2 waits for someone who did not
	// draft it.
	second := client{t: t, base: admin.base, key: newPerson(admin, "admin", "write").key}
	for _, step := range []struct {
		by         client
		path, body string
	}{{admin, "/versions", rules}, {admin, "/versions/1/submit", ""}, {second, "/versions/1/approve", ""}, {admin, "/versions/1/publish", ""},
		{admin, "/versions", rules}, {admin, "/versions/2/submit", ""}} {
		var body any
		if step.body != "" {
			body = json.RawMessage(step.body)
		}
		if r := step.by.do("POST", "/api/rulesets/"+p.ruleSet+step.path, body); r.Status/100 != 2 {
			t.Fatalf("rule set %s = %d %s", step.path, r.Status, r.Raw)
		}
	}
	for i := 1; i <= 3; i++ {
		r := admin.do("POST", "/api/transactions/evaluate", json.RawMessage(fmt.Sprintf(`{"transaction": {"id": "t%d", "amount": 20, "currency": "EUR", "type": "card_payment", "customerId": "cus_dash"}}`, i)))
		if r.Status != 200 {
			t.Fatalf("evaluate = %d %s", r.Status, r.Raw)
		}
		p.decision = str(r.data(t)["id"])
	}
	if r := admin.do("GET", "/api/decisions/"+p.decision, nil); r.data(t)["reviewStatus"] != "pending" {
		t.Fatalf("the third payment's decision = %s", r.Raw)
	}

	series := stmtfix.Series(11, stmtfix.Template("rheinbank-de"), 1, 30)
	text, err := stmtfix.TextPDF(series[0])
	if err != nil {
		t.Fatal(err)
	}
	locked, err := docfix.Encrypt(context.Background(), text, stmtfix.Password, "owner-"+stmtfix.Password)
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string][]byte{"march.pdf": text, "locked.pdf": locked} {
		r := uploadStatements(admin, map[string][]byte{name: file}, []string{name}, map[string]string{"externalRef": "loan-42"})
		if r.Status != 202 {
			t.Fatalf("upload %s = %d %s", name, r.Status, r.Raw)
		}
		if name == "locked.pdf" {
			p.lockedAnalysis = str(r.data(t)["id"])
		} else {
			p.analysis = str(r.data(t)["id"])
		}
	}

	p.verification = newVerification(admin, map[string]any{"fullName": "Santoso, Büdi", "birthDate": "1985-03-12", "documentNumber": "C4821937"},
		map[string]any{"documentTypes": []string{"passport", "ktp"}, "minimumAge": 18, "maxAttempts": 2})
	forged := it.TextPDF(t, it.PassportLayout(t, it.Passport(), it.PrintedName("BUDI HARTONO")))
	if r := submitImages(admin, p.verification, forged, nil); r.Status != 202 {
		t.Fatalf("attempt = %d %s", r.Status, r.Raw)
	}
	return p
}

// productPages visits every product page signed in as the admin and takes each action once.
func productPages(t *testing.T, b *tab, admin client, adminID string, p productData) {
	t.Run("screenings: resolve a hit", func(t *testing.T) {
		b.t = t
		b.visit("/dashboard/screenings", "screenings", "/dashboard/screenings/"+p.screening, "screening", "Sergei Ivanovich Petrov", "Why it scored")
		b.run(chromedp.Click(chromedp.CSS("#fp-"+p.hit)), chromedp.SendKeys(chromedp.CSS("#comment-"+p.hit), "another person: passport seen"))
		b.submit("#resolve-"+p.hit, "screening")
		if got := b.text(".notice"); !strings.Contains(got, "hit was resolved") {
			t.Fatalf("notice = %q", got)
		}
		b.shot("screening-hit-resolved")
		h := admin.do("GET", "/api/screenings/"+p.screening, nil).data(t)["hits"].([]any)[0].(map[string]any)
		if h["decision"] != "false_positive" || h["resolvedBy"] != adminID || h["comment"] != "another person: passport seen" {
			t.Errorf("hit after the browser resolved it = %v", h)
		}
	})

	t.Run("fraud: review a decision, the drafter's approval refused", func(t *testing.T) {
		b.t = t
		b.visit("/dashboard/decisions", "decisions", "/dashboard/decisions/"+p.decision, "decision", "repeat payer", "VELOCITY", "count_1h")
		b.submit("#review-approve", "decision")
		if got := b.text(".notice"); !strings.Contains(got, "review was recorded") {
			t.Fatalf("notice = %q", got)
		}
		if got := admin.do("GET", "/api/decisions/"+p.decision, nil).data(t)["reviewStatus"]; got != "approved" {
			t.Errorf("review status = %v", got)
		}
		b.visit("/dashboard/rulesets", "rulesets", "/dashboard/rulesets/"+p.ruleSet+"/versions/2", "ruleset_version", "pending_approval", "velocity.customer.count_1h &gt;= 3")
		b.submit("#version-approve", "ruleset_version")
		if got := b.text(".refusal"); !strings.Contains(got, "You drafted this version") || b.status != 422 {
			t.Fatalf("four-eyes refusal: %d %q", b.status, got)
		}
		b.shot("fraud-version-four-eyes")
	})

	t.Run("statements: analyses, transactions and a PDF's password", func(t *testing.T) {
		b.t = t
		analysis(t, admin, p.analysis, 3*time.Minute, "completed", "requires_review", "failed")
		analysis(t, admin, p.lockedAnalysis, 3*time.Minute, "password_required", "failed")
		b.visit("/dashboard/analyses", "analyses", "/dashboard/analyses/"+p.analysis, "analysis", "Reconciliation", "balanced", "Insights", "Tamper signals")
		b.submit(`a[href="/dashboard/analyses/`+p.analysis+`/transactions"]`, "analysis_transactions")
		b.shot("analysis-transactions")
		b.open("/dashboard/analyses/"+p.lockedAnalysis, "analysis")
		b.shot("analysis-password-required")
		b.run(chromedp.SendKeys(chromedp.CSS("#analysis-password"), stmtfix.Password))
		b.submit(`form[action$="/password"] button[type=submit]`, "analysis")
		if got := b.text(".notice"); !strings.Contains(got, "password opened the PDF") {
			t.Fatalf("notice = %q (%q)", got, b.text("main"))
		}
		b.shot("analysis-password-given")
		if d := analysis(t, admin, p.lockedAnalysis, 3*time.Minute, "completed", "requires_review", "failed"); d["status"] != "completed" {
			t.Errorf("analysis after the password = %v", d["status"])
		}
	})

	t.Run("identity: a reviewer's decision", func(t *testing.T) {
		b.t = t
		if d := verificationIn(t, admin, p.verification, 3*time.Minute, "review", "verified", "rejected", "resubmission_requested"); d["status"] != "review" {
			t.Fatalf("verification = %v", d)
		}
		b.visit("/dashboard/verifications", "verifications", "/dashboard/verifications/"+p.verification, "verification", "mrz_visual_mismatch", "Your decision", "/images/front")
		b.run(chromedp.Click(chromedp.CSS("#decision-approve")), chromedp.SendKeys(chromedp.CSS("#review-comment"), "printed name is a typo"))
		b.submit("#review-submit", "verification")
		if got := b.text(".notice"); !strings.Contains(got, "decision was recorded") {
			t.Fatalf("notice = %q (%q)", got, b.text("main"))
		}
		b.shot("verification-decided")
		if d := admin.do("GET", "/api/identity/verifications/"+p.verification, nil).data(t); d["status"] != "verified" || d["reviewedBy"] != adminID {
			t.Errorf("verification after the browser's decision = %v", d)
		}
	})
}

// visit opens the list page at list and shoots it, follows its link to detail, checks that
// the detail page shows every want, and shoots it.
func (b *tab) visit(list, listPage, detail, detailPage string, want ...string) {
	b.t.Helper()
	b.open(list, listPage)
	b.shot(listPage)
	b.submit(`a[href="`+detail+`"]`, detailPage)
	page := b.html()
	for _, w := range want {
		if !strings.Contains(page, w) {
			b.t.Fatalf("%s without %q:\n%.3000s", detail, w, page)
		}
	}
	b.shot(detailPage)
}
