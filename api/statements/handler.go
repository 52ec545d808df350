// Package statements is the bank statement analysis product's API: uploads of one
// account's statements (ana_), the analyses with their statements, reconciliation,
// insights and tamper signals, the transactions, passwords, corrections, and the
// organisation's statement templates and category rules.
package statements

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
)

// Deps are what the statements API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal starts pipelines and corrections; nil answers 503 where it is needed.
	Temporal client.Client
	Logger   *slog.Logger
	// Now is the clock.
	Now func() time.Time
	// Blobs keeps uploaded files; nil opens the store the configuration names.
	Blobs blobs.Store
}

// Handler serves the statements product's endpoints.
type Handler struct {
	Deps
	// blobsErr says why Blobs is nil: uploads answer 503.
	blobsErr error
	// box seals passwords (config secrets.key); nil: a password answers 503.
	box *secrets.Box
}

// New builds the statements API: the blob store from config when d has none, and the
// platform's secrets box from config secrets.key.
func New(d Deps) *Handler {
	h := &Handler{Deps: d}
	if h.Now == nil {
		h.Now = time.Now
	}
	if h.Blobs == nil {
		if l, err := blobs.FromConfig(context.Background(), d.Config); err == nil {
			h.Blobs = l
		} else {
			h.blobsErr = err
		}
	}
	h.box, _ = secrets.FromConfig(d.Config.Secrets.Key) // config.Validate has refused a malformed key
	return h
}

// Routes are the statements product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	return api.ForProduct(auth.ProductStatements, []api.Route{
		{Method: "POST", Path: "/api/analyses/upload", Scope: "analyses:write", Bucket: api.BucketUpload, Body: api.BodyMultipart, MaxBody: h.Config.Documents.MaxUploadBytes + uploadOverhead, Idempotent: true, Summary: "upload one account's bank statements (PDF, CSV, OFX/QFX, CAMT.053) for analysis", Handler: h.uploadAnalysis},
		{Method: "GET", Path: "/api/analyses", Scope: "analyses:view", Summary: "list analyses, newest first", Handler: h.listAnalyses},
		{Method: "GET", Path: "/api/analyses/:id", Scope: "analyses:view", Summary: "get an analysis: statements, reconciliation, insights, tamper signals", Handler: h.getAnalysis},
		{Method: "GET", Path: "/api/analyses/:id/transactions", Scope: "analyses:view", Summary: "list an analysis's transactions", Handler: h.listTransactions},
		{Method: "POST", Path: "/api/analyses/:id/password", Scope: "analyses:write", Body: api.BodyJSON, Summary: "give the password of an encrypted PDF waiting in password_required", Handler: h.submitPassword},
		{Method: "POST", Path: "/api/analyses/:id/corrections", Scope: "analyses:write", Body: api.BodyJSON, Idempotent: true, Summary: "correct transactions: a new version of the analysis (key bound to a user)", Handler: h.correctAnalysis},
		{Method: "POST", Path: "/api/statement-templates", Scope: "statement-templates:write", Body: api.BodyJSON, Idempotent: true, Summary: "define a bank statement template of the organisation", Handler: h.createTemplate},
		{Method: "GET", Path: "/api/statement-templates", Scope: "statement-templates:view", Summary: "list the organisation's statement templates", Handler: h.listTemplates},
		{Method: "GET", Path: "/api/statement-templates/:id", Scope: "statement-templates:view", Summary: "get a statement template", Handler: h.getTemplate},
		{Method: "DELETE", Path: "/api/statement-templates/:id", Scope: "statement-templates:write", Summary: "delete a statement template", Handler: h.deleteTemplate},
		{Method: "GET", Path: "/api/statement-category-rules", Scope: "statement-templates:view", Summary: "the organisation's transaction category rules and the defaults", Handler: h.getCategoryRules},
		{Method: "PUT", Path: "/api/statement-category-rules", Scope: "statement-templates:write", Body: api.BodyJSON, Summary: "replace the organisation's transaction category rules", Handler: h.putCategoryRules},
	})
}

// boxAvailable answers 503 when there is no secrets box to seal a password with.
func (h *Handler) boxAvailable(c *gin.Context) bool {
	if h.box == nil {
		api.Logger(c).Error("analysis passwords unavailable: config secrets.key is not set")
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return false
	}
	return true
}
