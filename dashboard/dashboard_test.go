package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/dashboard"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
)

// browser is a cookie-keeping client that does not follow redirects, so the tests see them.
// It keeps Secure cookies over the harness's plain HTTP (the harness is not svc dev).
type browser struct {
	t       *testing.T
	base    string
	cookies map[string]*http.Cookie
}

type page struct {
	Status int
	Header http.Header
	Body   string
}

func (b *browser) do(method, path string, form url.Values) page {
	b.t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := cl.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return page{Status: res.StatusCode, Header: res.Header, Body: string(raw)}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no CSRF field in page:\n%.2000s", p.Body)
	}
	return m[1]
}

// start is the harness API with the dashboard mounted, as internal/app mounts it, and a user
// who can sign in.
func start(t *testing.T) (*apitest.Harness, *browser) {
	return startWith(t, apitest.Options{})
}

// startWith is start with the harness's options (a Temporal client, say).
func startWith(t *testing.T, o apitest.Options) (*apitest.Harness, *browser) {
	h := apitest.New(t, o)
	h.Server.Mount(dashboard.Prefix, dashboard.New(dashboard.Deps{API: h.Server.Handler(), Store: h.Store, Config: h.Config, Now: h.Clock.Now}))
	res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "ada@example.com", "name": "Ada", "role": "admin", "password": "correct horse battery"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create user: %d %s", res.Status, res.Body)
	}
	return h, &browser{t: t, base: h.URL, cookies: map[string]*http.Cookie{}}
}

func signIn(t *testing.T, b *browser, password string) page {
	t.Helper()
	login := b.do("GET", "/dashboard/login", nil)
	return b.do("POST", "/dashboard/login", url.Values{"csrf": {csrfOf(t, login)}, "email": {"ada@example.com"}, "password": {password}, "next": {"/dashboard/keys"}})
}

func TestDashboardSignInPagesAndSignOut(t *testing.T) {
	h, b := start(t)

	out := b.do("GET", "/dashboard/executions", nil)
	if out.Status != http.StatusSeeOther || out.Header.Get("Location") != "/dashboard/login?next=%2Fdashboard%2Fexecutions" {
		t.Fatalf("signed out: %d %q", out.Status, out.Header.Get("Location"))
	}
	login := b.do("GET", "/dashboard/login", nil)
	csp := login.Header.Get("Content-Security-Policy")
	if login.Status != 200 || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") ||
		login.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("login page: %d CSP %q cache %q", login.Status, csp, login.Header.Get("Cache-Control"))
	}
	// The sign-in form's token cookie is Secure like the session's (outside svc dev), HttpOnly and strict.
	if c := login.Header.Get("Set-Cookie"); !strings.Contains(c, "Secure") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
		t.Fatalf("sign-in CSRF cookie %q", c)
	}
	// The sign-in form's token is bound to the browser's cookie: a form without it is refused.
	forged := b.do("POST", "/dashboard/login", url.Values{"csrf": {"forged"}, "email": {"ada@example.com"}, "password": {"correct horse battery"}})
	if forged.Status != http.StatusForbidden {
		t.Fatalf("forged login: %d", forged.Status)
	}
	if wrong := signIn(t, b, "wrong password"); wrong.Status != http.StatusUnauthorized || !strings.Contains(wrong.Body, "The email or password is wrong.") {
		t.Fatalf("wrong password: %d", wrong.Status)
	}
	in := signIn(t, b, "correct horse battery")
	if in.Status != http.StatusSeeOther || in.Header.Get("Location") != "/dashboard/keys" {
		t.Fatalf("sign in: %d %q", in.Status, in.Header.Get("Location"))
	}
	sess := b.cookies[api.SessionCookie]
	if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || !sess.Secure {
		t.Fatalf("session cookie %+v", sess)
	}
	for _, path := range []string{"/dashboard/approvals", "/dashboard/approvals?all=1", "/dashboard/executions", "/dashboard/keys",
		"/dashboard/users", "/dashboard/audit", "/dashboard/documents", "/dashboard/documents?status=all", "/dashboard/webhooks"} {
		p := b.do("GET", path, nil)
		if p.Status != 200 || !strings.Contains(p.Body, "Sign out") || p.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d\n%.1500s", path, p.Status, p.Body)
		}
	}
	if nf := b.do("GET", "/dashboard/nothing-here", nil); nf.Status != 404 || !strings.Contains(nf.Body, "Not found") {
		t.Errorf("unknown page: %d", nf.Status)
	}

	// Sign out ends the session on the server: the old cookie no longer opens a page.
	keys := b.do("GET", "/dashboard/keys", nil)
	old := *b.cookies[api.SessionCookie]
	if out := b.do("POST", "/dashboard/logout", url.Values{"csrf": {csrfOf(t, keys)}}); out.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", out.Status)
	}
	b.cookies[api.SessionCookie] = &old
	if again := b.do("GET", "/dashboard/keys", nil); again.Status != http.StatusSeeOther || again.Header.Get("Location") != "/dashboard/login?expired=1" {
		t.Fatalf("old session after sign out: %d %q", again.Status, again.Header.Get("Location"))
	}
	_ = h
}

func TestDashboardKeyShownOnceAuditedAndCSRF(t *testing.T) {
	h, b := start(t)
	signIn(t, b, "correct horse battery")
	keys := b.do("GET", "/dashboard/keys", nil)
	form := url.Values{"name": {"ci"}, "scopes": {"read"}, "moreScopes": {"approvals:write"}, "actAsUserId": {h.Admin.ID}}
	if noToken := b.do("POST", "/dashboard/keys", form); noToken.Status != http.StatusForbidden {
		t.Fatalf("create without CSRF token: %d", noToken.Status)
	}
	form.Set("csrf", csrfOf(t, keys))
	created := b.do("POST", "/dashboard/keys", form)
	secret := regexp.MustCompile(`svc_sk_[A-Za-z0-9_]+`).FindString(created.Body)
	if created.Status != 200 || secret == "" || strings.Count(created.Body, secret) != 1 {
		t.Fatalf("created: %d %q\n%.2000s", created.Status, secret, created.Body)
	}
	if list := b.do("GET", "/dashboard/keys", nil); strings.Contains(list.Body, secret) || !strings.Contains(list.Body, "ci") {
		t.Fatalf("the key list shows the secret again, or not the key")
	}
	// The write is the API's: it works and it is in the audit log, made by the session.
	if me := h.Send(apitest.Request{Method: "GET", Path: "/identity/api/auth/me", Key: secret}); me.Status != 200 {
		t.Fatalf("new key: %d", me.Status)
	}
	logs := h.Do("GET", "/api/audit-logs", h.AdminKey, nil)
	rows, _ := logs.JSON["rows"].([]any)
	found := false
	for _, r := range rows {
		e := r.(map[string]any)
		if e["action"] == "POST /api/api-keys" && e["sessionId"] != nil {
			found = true
		}
	}
	if !found {
		t.Fatalf("no audit entry of the session's key creation: %s", logs.Body)
	}
	// A refusal is shown in plain words on the form, with the API's field errors.
	bad := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrfOf(t, keys)}, "name": {""}})
	if bad.Status != http.StatusBadRequest || !strings.Contains(bad.Body, "Some fields need fixing") {
		t.Fatalf("refused create: %d\n%.2000s", bad.Status, bad.Body)
	}
}

func TestDashboardOtherOrganisationIsNotFound(t *testing.T) {
	h, b := start(t)
	other := h.NewTenant("Other Org")
	key, err := secrets.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	box, err := secrets.FromConfig(key)
	if err != nil {
		t.Fatal(err)
	}
	hook, _, err := h.Store.Webhooks.Create(context.Background(), box, other.Org.ID, "https://example.com/hook", []string{"*"}, true)
	if err != nil {
		t.Fatal(err)
	}
	signIn(t, b, "correct horse battery")
	id := hook.ID
	for _, path := range []string{"/dashboard/webhooks/" + id, "/dashboard/executions/exe_0000000000000000000000", "/dashboard/documents/doc_000000000000000000000000"} {
		if p := b.do("GET", path, nil); p.Status != http.StatusNotFound || !strings.Contains(p.Body, "Not found") {
			t.Errorf("GET %s: %d", path, p.Status)
		}
	}
}

// TestDashboardDocumentWaitingForItsPassword: a PDF waiting in password_required shows the
// password form (the partial the analyses page shares), posting to its own document.
func TestDashboardDocumentWaitingForItsPassword(t *testing.T) {
	h, b := start(t)
	d := &store.Document{ID: ids.New(ids.Document), OrgID: h.Org.ID, Filename: "locked.pdf",
		Format: "pdf", Size: 10, SHA256: strings.Repeat("0", 64), BlobKey: "locked"}
	if err := h.Store.Documents.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	// The pipeline's inspect stage is what moves it there.
	if err := h.Store.DB.Model(d).Update("status", "password_required").Error; err != nil {
		t.Fatal(err)
	}
	signIn(t, b, "correct horse battery")
	p := b.do("GET", "/dashboard/documents/"+d.ID, nil)
	for _, want := range []string{`<h2 id="pw">This PDF is encrypted</h2>`, `<label for="doc-password">`, `action="/dashboard/documents/` + d.ID + `/password"`, `name="csrf"`} {
		if p.Status != http.StatusOK || !strings.Contains(p.Body, want) {
			t.Errorf("document page %d lacks %s", p.Status, want)
		}
	}
}
