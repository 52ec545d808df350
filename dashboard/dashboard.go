// Package dashboard is the people's side of svc (SPEC 5.1): server-rendered pages under
// /dashboard, behind the session login, that work without JavaScript.
//
// Every page reads, and every form writes, through the API's own route table, called in
// process (apiCall) with the visitor's session cookie: the same handlers, validation, scopes,
// capabilities, Temporal Updates (resolve-approval's four-eyes and role checks), idempotency
// and audit log as a request made with a key. No rule lives here twice; the dashboard only
// turns forms into JSON and answers into pages, refusals in plain words.
//
// Adding a page is one template (templates/<name>.html) and one handler with its row in
// pages() (CONTRIBUTING.md, "Add a dashboard page").
package dashboard

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/store"
)

// Prefix is where the dashboard is served.
const Prefix = "/dashboard"

// Deps are what the dashboard needs.
type Deps struct {
	// API is the API server's root handler: every read and write goes through it.
	API http.Handler
	// Store resolves the session cookie to its user (as the API's session check does).
	Store  *store.Store
	Config *config.Config
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Dev marks svc dev (plain HTTP on loopback): only there are the cookies not Secure.
	Dev bool
}

// Dashboard serves the pages.
type Dashboard struct {
	Deps
	mux   *http.ServeMux
	views *templates

	// The uploads' store, opened on the first page image.
	blobsOnce sync.Once
	blobStore blobs.Store
	blobsErr  error
}

// page is one row of the dashboard's route table.
type page struct {
	// pattern is an http.ServeMux pattern under Prefix: "GET /executions/{id}".
	pattern string
	// public pages need no session (sign in).
	public bool
	handle func(*request)
}

// pages is the dashboard's one route table.
func (d *Dashboard) pages() []page {
	return []page{
		{pattern: "GET /{$}", handle: d.home},
		{pattern: "GET /login", public: true, handle: d.loginPage},
		{pattern: "POST /login", public: true, handle: d.login},
		{pattern: "POST /logout", handle: d.logout},

		{pattern: "GET /approvals", handle: d.approvals},
		{pattern: "POST /approvals/{id}/{decision}", handle: d.resolveApproval},

		{pattern: "GET /executions", handle: d.executions},
		{pattern: "GET /executions/{id}", handle: d.execution},

		{pattern: "GET /keys", handle: d.keys},
		{pattern: "POST /keys", handle: d.createKey},
		{pattern: "POST /keys/{id}/rotate", handle: d.rotateKey},
		{pattern: "POST /keys/{id}/revoke", handle: d.revokeKey},

		{pattern: "GET /users", handle: d.users},
		{pattern: "POST /users", handle: d.createUser},
		{pattern: "POST /users/{id}", handle: d.updateUser},

		{pattern: "GET /audit", handle: d.audit},

		{pattern: "GET /documents", handle: d.documents},
		{pattern: "GET /documents/{id}", handle: d.document},
		{pattern: "GET /documents/{id}/page", handle: d.documentPage},
		{pattern: "POST /documents/{id}/corrections", handle: d.correctDocument},
		{pattern: "POST /documents/{id}/password", handle: d.documentPassword},

		{pattern: "GET /webhooks", handle: d.webhooks},
		{pattern: "POST /webhooks", handle: d.createWebhook},
		{pattern: "GET /webhooks/{id}", handle: d.webhook},
		{pattern: "POST /webhooks/{id}/test", handle: d.testWebhook},
		{pattern: "GET /webhooks/{id}/deliveries/{deliveryId}", handle: d.delivery},
		{pattern: "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver", handle: d.redeliver},

		{pattern: "GET /cases", handle: d.cases},
		{pattern: "POST /cases", handle: d.createCase},
		{pattern: "GET /cases/{id}", handle: d.caseDetail},
		{pattern: "POST /cases/{id}", handle: d.changeCase},
		{pattern: "POST /cases/{id}/comments", handle: d.commentCase},
		{pattern: "POST /cases/{id}/{action}", handle: d.caseAction},
		{pattern: "GET /alerts", handle: d.alerts},

		{pattern: "GET /sar-filings", handle: d.sarFilings},
		{pattern: "POST /sar-filings", handle: d.draftSAR},
		{pattern: "GET /sar-filings/{id}", handle: d.sarFiling},
		{pattern: "POST /sar-filings/{id}", handle: d.editSAR},
		{pattern: "POST /sar-filings/{id}/submit", handle: d.submitSAR},

		{pattern: "GET /screenings", handle: d.screenings},
		{pattern: "GET /screenings/{id}", handle: d.screening},
		{pattern: "POST /screenings/{id}/hits/{hitId}/resolve", handle: d.resolveHit},

		{pattern: "GET /decisions", handle: d.decisions},
		{pattern: "GET /decisions/{id}", handle: d.decision},
		{pattern: "POST /decisions/{id}/review", handle: d.reviewDecision},
		{pattern: "GET /rulesets", handle: d.ruleSets},
		{pattern: "GET /rulesets/{id}/versions/{version}", handle: d.ruleSetVersion},
		{pattern: "POST /rulesets/{id}/versions/{version}/{action}", handle: d.transitionVersion},

		{pattern: "GET /analyses", handle: d.analyses},
		{pattern: "GET /analyses/{id}", handle: d.analysis},
		{pattern: "GET /analyses/{id}/transactions", handle: d.analysisTransactions},
		{pattern: "POST /analyses/{id}/password", handle: d.analysisPassword},

		{pattern: "GET /verifications", handle: d.verifications},
		{pattern: "GET /verifications/{id}", handle: d.verification},
		{pattern: "POST /verifications/{id}/review", handle: d.reviewVerification},
		{pattern: "GET /attempts/{id}/images/{side}", handle: d.attemptImage},
	}
}

// New builds the dashboard.
func New(d Deps) *Dashboard {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	db := &Dashboard{Deps: d, mux: http.NewServeMux(), views: mustParseTemplates()}
	for _, p := range db.pages() {
		method, path, _ := cutPattern(p.pattern)
		db.mux.Handle(method+" "+Prefix+path, db.serve(p))
	}
	db.mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix, staticFiles()))
	db.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		q := &request{d: db, w: w, r: r}
		db.authenticate(q, func() { q.notFound() })
	})
	return db
}

// ServeHTTP answers a request under Prefix.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	if r.URL.Path == Prefix {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	d.mux.ServeHTTP(w, r)
}

// serve runs p's handler for a request, behind the session login unless p is public.
func (d *Dashboard) serve(p page) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := &request{d: d, w: w, r: r}
		if p.public {
			p.handle(q)
			return
		}
		d.authenticate(q, func() {
			if r.Method == http.MethodPost && !q.csrfOK() {
				q.fail(http.StatusForbidden, "This form has expired. Reload the page and try again.")
				return
			}
			p.handle(q)
		})
	})
}

// cutPattern splits "GET /x" into its method and path.
func cutPattern(p string) (method, path string, ok bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == ' ' {
			return p[:i], p[i+1:], true
		}
	}
	return "", p, false
}
