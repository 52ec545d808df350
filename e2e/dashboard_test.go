package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/svcplatform/svc/internal/documents/fixtures"
	stmtfix "github.com/svcplatform/svc/internal/statements/fixtures"
	"github.com/svcplatform/svc/store"
)

// The dashboard in a real browser: Debian's Chromium, headless, driven by chromedp against the
// dev stack. Screenshots of every page go to e2e/artifacts/dashboard (gitignored).

// chromiumPath finds the browser; without one the test fails under CI and is skipped elsewhere.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: `make deps` installs it (dashboard/APT_PACKAGES)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); CI fails here instead")
	return ""
}

// tab is one headless browser tab with the status of its last page.
type tab struct {
	t      *testing.T
	ctx    context.Context
	base   string
	dir    string
	shots  int
	status int64
}

func newTab(t *testing.T, base string) *tab {
	path := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 8*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	dir := filepath.Join("artifacts", "dashboard")
	_ = os.RemoveAll(dir) // this run's screenshots only
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &tab{t: t, ctx: ctx, base: base, dir: dir}
	// The first action starts the browser, bound to the context it runs in: the tab's own.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventResponseReceived); ok && e.Type == network.ResourceTypeDocument {
			b.status = e.Response.Status
		}
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	// Each step has its own deadline, so that a page that never comes is shown.
	ctx, cancel := context.WithTimeout(b.ctx, 45*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		html, _ := chromedp.Run(b.ctx, chromedp.OuterHTML(chromedp.CSS("body")))
		b.t.Fatalf("browser: %v\npage:\n%.3000s", err, html)
	}
}

// open loads a dashboard path and waits for the page named page.
func (b *tab) open(path, page string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base+path), b.waitPage(page))
}

func (b *tab) waitPage(page string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(`body[data-page="` + page + `"]`))
}

// submit clicks sel and waits for the page named page.
func (b *tab) submit(sel, page string) {
	b.t.Helper()
	// The answer may be a page of the same name (a form that answers with its own page, a
	// refusal): mark this one as left, so that the wait is for the new one.
	b.run(chromedp.Evaluate[chromedp.Void](`document.body.dataset.page = "left"`), chromedp.Click(chromedp.CSS(sel)), b.waitPage(page))
}

func (b *tab) html() string {
	b.t.Helper()
	return get(b, chromedp.OuterHTML(chromedp.CSS("html")))
}

func (b *tab) text(sel string) string {
	b.t.Helper()
	return get(b, chromedp.Text(chromedp.CSS(sel)))
}

// get runs an action that answers a value.
func get[T any](b *tab, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %v", err)
	}
	return v
}

// shot saves a screenshot of the whole page, and checks its text against WCAG AA contrast:
// every page state the test photographs is checked.
func (b *tab) shot(name string) {
	b.t.Helper()
	if low := get(b, chromedp.Evaluate[[]string](lowContrastJS)); len(low) != 0 {
		b.t.Errorf("text below WCAG AA contrast (4.5:1) on %s: %v", name, low)
	}
	if bad := get(b, chromedp.Evaluate[[]string](structureJS)); len(bad) != 0 {
		b.t.Errorf("page %s lacks what assistive technology needs: %v", name, bad)
	}
	png := get(b, chromedp.FullScreenshot(100))
	b.shots++
	if err := os.WriteFile(filepath.Join(b.dir, fmt.Sprintf("%02d-%s.png", b.shots, name)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func (b *tab) signIn(email, password string) {
	b.t.Helper()
	b.open("/dashboard/login", "login")
	b.run(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SendKeys(chromedp.CSS("#password"), password))
	b.submit(`form[action="/dashboard/login"] button[type=submit]`, "approvals")
}

func (b *tab) signOut() {
	b.t.Helper()
	b.submit(`form[action="/dashboard/logout"] button`, "login")
}

func TestDashboardInABrowser(t *testing.T) {
	const password = "correct horse battery staple"
	// The alert the cases step raises waits on the alerts page for a person to pick it: the
	// gathering Schedule (every 15 s by default, aligned to the epoch) runs only at midnight.
	s := boot(t, t.TempDir(), bootOptions{secrets: []string{password, stmtfix.Password}, env: []string{"SVC_CASES_GATHER_EVERY=24h"}})
	admin := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	b := newTab(t, s.BaseURL)

	// People: the dev admin (who starts the runs below through the dev key bound to them) gets
	// a password; a reviewer decides approvals assigned to role:reviewer.
	if r := admin.do("PATCH", "/api/users/"+s.Credentials.UserID, map[string]any{"password": password}); r.Status != 200 {
		t.Fatalf("admin password = %d %s", r.Status, r.Raw)
	}
	if r := admin.do("POST", "/api/users", map[string]any{"email": "rita@example.com", "name": "Rita Reviewer", "role": "reviewer", "password": password}); r.Status != 201 {
		t.Fatalf("reviewer = %d %s", r.Status, r.Raw)
	}
	for slug, assignTo := range map[string]string{"dash-gate": "role:reviewer", "dash-self": "role:admin"} {
		if r := admin.do("POST", "/api/workflows", map[string]any{"slug": slug, "name": slug, "definition": approvalDefinition(assignTo)}); r.Status != 201 {
			t.Fatalf("workflow %s = %d %s", slug, r.Status, r.Raw)
		}
	}
	gateRun, gateApproval := startWaitingRun(t, admin, "dash-gate")
	selfRun, selfApproval := startWaitingRun(t, admin, "dash-self")
	roleRun, _ := startWaitingRun(t, admin, "dash-gate")
	products := prepareProducts(t, admin)

	t.Run("sign in", func(t *testing.T) {
		b.t = t
		b.run(chromedp.Navigate(b.base+"/dashboard/executions"), b.waitPage("login"))
		b.shot("sign-in")
		b.run(chromedp.SetValue(chromedp.CSS("#email"), "rita@example.com"), chromedp.SendKeys(chromedp.CSS("#password"), "wrong"))
		b.submit(`form[action="/dashboard/login"] button[type=submit]`, "login")
		if got := b.text(".refusal"); !strings.Contains(got, "email or password is wrong") || b.status != 401 {
			t.Fatalf("wrong password: %d %q", b.status, got)
		}
		// With the keyboard alone: Tab moves from the email to the password field, which shows
		// the dashboard's focus outline; Enter signs in.
		b.run(chromedp.Evaluate[chromedp.Void](`document.getElementById("email").value = ""`), chromedp.Focus(chromedp.CSS("#email")), chromedp.KeyEvent("rita@example.com"), chromedp.KeyEvent("\t"))
		if id := get(b, chromedp.Evaluate[string](`document.activeElement.id`)); id != "password" {
			t.Fatalf("Tab from the email field focused %q", id)
		}
		if c := get(b, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineColor`)); c != "rgb(217, 122, 0)" {
			t.Fatalf("the focused field's outline is %q, not the dashboard's focus colour", c)
		}
		b.shot("sign-in-keyboard-focus")
		b.run(chromedp.KeyEvent(password), chromedp.Evaluate[chromedp.Void](`document.body.dataset.page = "left"`), chromedp.KeyEvent("\r"),
			b.waitPage("executions")) // back where they were sent from
		b.shot("executions")
	})

	t.Run("approve an execution and see it succeed", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/approvals", "approvals")
		b.shot("approvals-inbox")
		// With the keyboard alone: type the comment, Tab to Approve (focus outline shown), Enter.
		b.run(chromedp.Focus(chromedp.CSS("#comment-"+gateApproval)), chromedp.KeyEvent("checked the score"), chromedp.KeyEvent("\t"))
		if id := get(b, chromedp.Evaluate[string](`document.activeElement.id`)); id != "approve-"+gateApproval {
			t.Fatalf("Tab from the comment focused %q, not its Approve button", id)
		}
		if c := get(b, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineColor`)); c != "rgb(217, 122, 0)" {
			t.Fatalf("the focused Approve button's outline is %q, not the dashboard's focus colour", c)
		}
		b.shot("approvals-keyboard-focus")
		b.run(chromedp.Evaluate[chromedp.Void](`document.body.dataset.page = "left"`), chromedp.KeyEvent("\r"), b.waitPage("execution"))
		if got := b.text(".notice"); !strings.Contains(got, "Approved") {
			t.Fatalf("notice = %q", got)
		}
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(b.text("main > p"), "succeeded") {
			if time.Now().After(deadline) {
				t.Fatalf("execution %s did not succeed: %s", gateRun, b.text("main"))
			}
			time.Sleep(300 * time.Millisecond)
			b.open("/dashboard/executions/"+gateRun, "execution")
		}
		if !strings.Contains(b.html(), "Open this run in the Temporal UI") {
			t.Error("no Temporal UI link on the execution page")
		}
		b.shot("execution-succeeded")
		if got := str(execution(admin, gateRun)["status"]); got != "succeeded" {
			t.Errorf("API status = %s", got)
		}
		b.signOut()
	})

	t.Run("the starter is refused by four-eyes, a wrong role by role", func(t *testing.T) {
		b.t = t
		b.signIn("admin@svc.local", password)
		b.open("/dashboard/executions/"+selfRun, "execution")
		b.submit("#reject-"+selfApproval, "execution")
		if got := b.text(".refusal"); !strings.Contains(got, "four-eyes") || !strings.Contains(got, "another person") || b.status != 422 {
			t.Fatalf("four-eyes refusal: %d %q", b.status, got)
		}
		b.shot("four-eyes-refusal")
		if got := str(execution(admin, selfRun)["approvals"].([]any)[0].(map[string]any)["status"]); got != "pending" {
			t.Errorf("approval after a refused reject = %s", got)
		}
		roleApproval := str(execution(admin, roleRun)["approvals"].([]any)[0].(map[string]any)["id"])
		b.open("/dashboard/executions/"+roleRun, "execution")
		b.submit("#approve-"+roleApproval, "execution")
		if got := b.text(".refusal"); !strings.Contains(got, "reviewer role") || b.status != 403 {
			t.Fatalf("role refusal: %d %q", b.status, got)
		}
		b.shot("role-refusal")
	})

	t.Run("create a key and see its value exactly once", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/keys", "keys")
		b.run(chromedp.SendKeys(chromedp.CSS("#k-name"), "browser key"), chromedp.Click(chromedp.CSS("#scope-read")))
		b.submit(`form[action="/dashboard/keys"] button[type=submit]`, "key_created")
		secret := strings.TrimSpace(b.text("#secret"))
		if !strings.HasPrefix(secret, "svc_sk_") || strings.Count(b.html(), secret) != 1 {
			t.Fatalf("secret %q on the creation page", secret)
		}
		b.shot("key-created")
		b.open("/dashboard/keys", "keys")
		if page := b.html(); strings.Contains(page, secret) || !strings.Contains(page, "browser key") {
			t.Fatal("the key list shows the value again, or not the key")
		}
		b.shot("keys")
		if r := (client{t: t, base: s.BaseURL, key: secret}).do("GET", "/identity/api/auth/me", nil); r.Status != 200 {
			t.Errorf("the new key = %d", r.Status)
		}
	})

	t.Run("correct a document field", func(t *testing.T) {
		b.t = t
		id := str(uploadFile(admin, "npwp-bad.pdf", fixtures.NPWPBadCheckDigitPDF(t), nil).data(t)["id"])
		d := document(t, admin, id, 3*time.Minute, "extracted", "requires_review", "failed")
		if d["status"] != "requires_review" {
			t.Fatalf("document = %v", d)
		}
		b.open("/dashboard/documents", "documents")
		b.shot("documents-review-queue")
		b.submit(`a[href="/dashboard/documents/`+id+`"]`, "document")
		b.shot("document")
		want := fixtures.DefaultNPWP().ExpectedFields()["npwp_number"]
		b.run(chromedp.SetValue(chromedp.CSS("#field-npwp_number"), want))
		b.submit(`form[action$="/corrections"] button[type=submit]`, "document")
		if got := b.text(".notice"); !strings.Contains(got, "correction was saved") {
			t.Fatalf("notice = %q", got)
		}
		b.shot("document-corrected")
		x := admin.do("GET", "/api/documents/"+id, nil).data(t)["latestExtraction"].(map[string]any)
		if x["fields"].(map[string]any)["npwp_number"] != want || x["actorUserId"] != s.Credentials.UserID {
			t.Errorf("latest extraction after the correction = %v", x)
		}
	})

	t.Run("a case: opened from an alert, closed by two people; a SAR filing submitted by a second", func(t *testing.T) {
		b.t = t
		alert, _, err := s.App.Store.Alerts.Raise(context.Background(), &store.Alert{OrgID: s.Credentials.OrgID, Source: "screening", SourceRef: "scr_dashboard",
			Subject: "Ivan Petrov", Score: 0.93, Summary: "OFAC SDN: Ivan Petrov, 0.93", ReasonCodes: []string{"R_NAME"}})
		if err != nil {
			t.Fatal(err)
		}
		b.open("/dashboard/alerts", "alerts")
		b.shot("alerts")
		b.run(chromedp.Click(chromedp.CSS("#pick-"+alert.ID)), chromedp.SendKeys(chromedp.CSS("#p-title"), "Possible sanctions match"))
		b.submit(`form[action="/dashboard/cases"] button[type=submit]`, "case")
		if got := b.text(".notice"); !strings.Contains(got, "The case was opened") || !strings.Contains(b.html(), "OFAC SDN: Ivan Petrov") {
			t.Fatalf("opened case: %q", got)
		}
		caseID := strings.TrimPrefix(strings.TrimSpace(b.text(".crumbs")), "Cases › ")
		b.submit(`form[action$="/assign"] button[type=submit]`, "case")
		b.run(chromedp.SetValue(chromedp.CSS("#outcome"), "false_positive"), chromedp.SendKeys(chromedp.CSS("#rationale"), "Different birth date and nationality."))
		b.submit("#propose-close", "case")
		if got := b.text(".notice"); !strings.Contains(got, "Another person") {
			t.Fatalf("proposal notice = %q", got)
		}
		b.shot("case-closure-proposed")

		// The proposer cannot approve their own proposal: refused in plain words, still pending.
		b.submit("#approve-close", "case")
		if got := b.text(".refusal"); !strings.Contains(got, "You proposed this closure") || !strings.Contains(got, "four-eyes") || b.status != 422 {
			t.Fatalf("four-eyes refusal: %d %q", b.status, got)
		}
		b.shot("case-four-eyes-refusal")
		if got := str(admin.do("GET", "/api/cases/"+caseID, nil).data(t)["status"]); got != "pending_close" {
			t.Fatalf("case after the refused approval = %s", got)
		}

		// The proposer drafts a SAR filing from the case, and cannot submit it either.
		b.run(chromedp.Click(chromedp.CSS("details.card summary")),
			chromedp.SetValue(chromedp.CSS("#sar-from"), "2026-01-01"), chromedp.SetValue(chromedp.CSS("#sar-to"), "2026-01-31"),
			chromedp.SendKeys(chromedp.CSS("#sar-amount"), "9900"), chromedp.SendKeys(chromedp.CSS("#sar-narrative"), "Structured cash deposits."))
		b.submit("#draft-sar", "sar_filing")
		filingPath := strings.TrimPrefix(strings.SplitN(get(b, chromedp.Location()), "?", 2)[0], b.base)
		b.shot("sar-drafted")
		b.submit("#submit-sar", "sar_filing")
		if got := b.text(".refusal"); !strings.Contains(got, "You drafted this filing") || b.status != 422 {
			t.Fatalf("SAR four-eyes refusal: %d %q", b.status, got)
		}
		b.shot("sar-four-eyes-refusal")

		// A second person, a reviewer, approves the closure and submits the filing.
		b.signOut()
		b.signIn("rita@example.com", password)
		b.open("/dashboard/cases/"+caseID, "case")
		b.submit("#approve-close", "case")
		if got := b.text(".notice"); !strings.Contains(got, "the case is closed") {
			t.Fatalf("approval notice = %q (%s)", got, b.text("main"))
		}
		b.shot("case-closed")
		c := admin.do("GET", "/api/cases/"+caseID, nil).data(t)
		if c["status"] != "closed" || c["outcome"] != "false_positive" || c["closedBy"] == s.Credentials.UserID {
			t.Errorf("case after the reviewer's approval = %v", c)
		}
		b.open(filingPath, "sar_filing")
		b.submit("#submit-sar", "sar_filing")
		if got := b.text(".notice"); !strings.Contains(got, "submitted") {
			t.Fatalf("submit notice = %q", got)
		}
		b.shot("sar-submitted")
		b.open("/dashboard/sar-filings", "sar_filings")
		b.shot("sar-filings")
		b.open("/dashboard/cases", "cases")
		b.shot("cases")
		b.signOut()
		b.signIn("admin@svc.local", password)
	})

	productPages(t, b, admin, s.Credentials.UserID, products)

	t.Run("another organisation's page is not found", func(t *testing.T) {
		b.t = t
		res, err := s.App.Store.Orgs.Bootstrap(context.Background(), store.BootstrapInput{OrgName: "elsewhere", DefaultUser: true,
			Environment: s.App.Config.Environment, Scopes: []string{"write", "webhooks:manage"}})
		if err != nil {
			t.Fatal(err)
		}
		other := client{t: t, base: s.BaseURL, key: res.Secret}
		hook := other.do("POST", "/api/webhooks", map[string]any{"url": "http://127.0.0.1:9/dashboard-hook", "events": []string{"*"}})
		if hook.Status != 201 {
			t.Fatalf("other webhook = %d %s", hook.Status, hook.Raw)
		}
		b.open("/dashboard/webhooks/"+str(hook.data(t)["id"]), "notfound")
		if b.status != 404 || strings.Contains(b.html(), "dashboard-hook") {
			t.Fatalf("another organisation's webhook: %d", b.status)
		}
		b.shot("not-found")
	})

	t.Run("sign out, and the back button shows nothing private", func(t *testing.T) {
		b.t = t
		b.open("/dashboard/users", "users")
		if !strings.Contains(b.html(), "rita@example.com") {
			t.Fatal("users page without the reviewer")
		}
		b.signOut()
		b.shot("signed-out")
		b.run(chromedp.NavigateBack(), b.waitPage("login"))
		page := b.html()
		if strings.Contains(page, "rita@example.com") || strings.Contains(page, "Sign out") || !strings.Contains(page, "Sign in to svc") {
			t.Fatalf("after sign-out, back shows:\n%.2000s", page)
		}
		b.shot("back-after-sign-out")
		res, err := http.Get(s.BaseURL + "/dashboard/login")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control = %q", res.Header.Get("Cache-Control"))
		}
	})
}

// startWaitingRun starts workflow with the client's key and waits for its pending approval.
func startWaitingRun(t *testing.T, c client, workflow string) (run, approval string) {
	t.Helper()
	run = start(c, workflow, map[string]any{})
	eventually(t, time.Minute, "the approval of "+run, func() bool {
		aps, _ := execution(c, run)["approvals"].([]any)
		if len(aps) == 1 {
			approval = str(aps[0].(map[string]any)["id"])
		}
		return approval != ""
	})
	return run, approval
}

// lowContrastJS lists the page's visible text whose colour against its background is below
// WCAG AA (4.5:1): each element with text of its own, against the first opaque background
// behind it.
const lowContrastJS = `(() => {
  const lum = c => { const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const opaque = c => { const m = c.match(/[\d.]+/g); return m && (m.length < 4 || +m[3] === 1); };
  const bg = el => { for (; el; el = el.parentElement) { const c = getComputedStyle(el).backgroundColor; if (opaque(c)) return c; } return "rgb(255, 255, 255)"; };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.offsetParent) continue;
    const a = lum(getComputedStyle(el).color), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) out.push(el.tagName.toLowerCase() + "." + el.className + " " + ratio.toFixed(2) + ": " + el.textContent.trim().slice(0, 30));
  }
  return out;
})()`

// structureJS lists what a screen reader or keyboard user would miss on the page (WCAG A): a
// language and a title, one h1, headings that skip no level, a name for every visible form
// control (a label, aria-label or aria-labelledby), button and link, an alt text for every
// image, and ids used once (labels point at them).
const structureJS = `(() => {
  const out = [];
  if (!document.documentElement.lang) out.push("html without lang");
  if (!document.title.trim()) out.push("no title");
  const h1 = document.querySelectorAll("h1").length;
  if (h1 !== 1) out.push(h1 + " h1 elements");
  let last = 0;
  for (const h of document.querySelectorAll("h1, h2, h3, h4, h5, h6")) {
    const level = +h.tagName[1];
    if (last && level > last + 1) out.push("heading " + h.tagName + " after h" + last + ": " + h.textContent.trim().slice(0, 30));
    last = level;
  }
  const named = el => (el.getAttribute("aria-label") || "").trim() || el.getAttribute("aria-labelledby") ||
    (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]')) || el.closest("label");
  for (const el of document.querySelectorAll("input, select, textarea")) {
    if (el.type === "hidden" || !el.offsetParent) continue;
    if (!named(el)) out.push(el.tagName.toLowerCase() + "#" + el.id + "[name=" + el.name + "] without a label");
  }
  for (const el of document.querySelectorAll("button, a[href]")) {
    if (el.offsetParent && !el.textContent.trim() && !named(el)) out.push(el.tagName.toLowerCase() + " without a name: " + el.outerHTML.slice(0, 60));
  }
  for (const img of document.querySelectorAll("img")) {
    if (!img.hasAttribute("alt")) out.push("img without alt: " + img.src.slice(-40));
  }
  const seen = {};
  for (const el of document.querySelectorAll("[id]")) {
    if (seen[el.id]) out.push("id used twice: " + el.id);
    seen[el.id] = true;
  }
  return out;
})()`
