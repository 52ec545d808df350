// Package documents is the documents product's API: uploads, the pipeline's results,
// passwords, corrections and custom document types (templates).
package documents

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
)

// Deps are what the documents API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal starts pipelines and corrections; nil answers 503 where it is needed.
	Temporal client.Client
	Logger   *slog.Logger
	// Now is the clock.
	Now func() time.Time
	// Blobs keeps uploaded files; nil means a local directory at config documents.blob_dir.
	Blobs blobs.Store
}

// Handler serves the documents product's endpoints.
type Handler struct {
	Deps
	// blobsErr says why Blobs is nil (the blob directory cannot be made): uploads answer 503.
	blobsErr error
	// box seals passwords (the platform's box, config secrets.key); nil: a password answers 503.
	box       *secrets.Box
	passwords *Passwords
}

// New builds the documents API: the blob store from config when d has none, and the
// platform's secrets box from config secrets.key.
func New(d Deps) *Handler {
	h := &Handler{Deps: d}
	if h.Blobs == nil {
		if l, err := blobs.FromConfig(context.Background(), d.Config); err == nil {
			h.Blobs = l
		} else {
			h.blobsErr = err
		}
	}
	h.box, _ = secrets.FromConfig(d.Config.Secrets.Key) // config.Validate has refused a malformed key
	h.passwords = &Passwords{Store: d.Store, Box: h.box, Temporal: d.Temporal, Logger: d.Logger}
	return h
}

// Routes are the documents product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	return api.ForProduct(auth.ProductDocuments, []api.Route{
		{Method: "POST", Path: "/api/documents/upload", Scope: "documents:write", Bucket: api.BucketUpload, Body: api.BodyMultipart, MaxBody: h.Config.Documents.MaxUploadBytes + uploadOverhead, Idempotent: true, Summary: "upload a document (PDF, PNG, JPEG or TIFF) for extraction", Handler: h.uploadDocument},
		{Method: "GET", Path: "/api/documents", Scope: "documents:view", Summary: "list documents, newest first", Handler: h.listDocuments},
		{Method: "GET", Path: "/api/documents/:id", Scope: "documents:view", Summary: "get a document with its latest extraction", Handler: h.getDocument},
		{Method: "GET", Path: "/api/documents/:id/extractions", Scope: "documents:view", Summary: "list a document's extractions, newest first", Handler: h.listExtractions},
		{Method: "POST", Path: "/api/documents/:id/password", Scope: "documents:write", Body: api.BodyJSON, Summary: "give the password of an encrypted PDF waiting in password_required", Handler: h.submitPassword},
		{Method: "POST", Path: "/api/documents/:id/corrections", Scope: "extractions:write", Body: api.BodyJSON, Idempotent: true, Summary: "correct fields of the latest extraction (key bound to a user)", Handler: h.correctDocument},
		{Method: "POST", Path: "/api/templates", Scope: "templates:write", Body: api.BodyJSON, Idempotent: true, Summary: "define a custom document type", Handler: h.createTemplate},
		{Method: "GET", Path: "/api/templates", Scope: "templates:view", Summary: "list custom document types", Handler: h.listTemplates},
		{Method: "GET", Path: "/api/templates/:id", Scope: "templates:view", Summary: "get a custom document type", Handler: h.getTemplate},
	})
}

// boxAvailable answers 503 when there is no secrets box to seal a password with.
func (h *Handler) boxAvailable(c *gin.Context) bool {
	if h.box == nil {
		api.Logger(c).Error("document passwords unavailable", "error", ErrNoSecretsBox)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return false
	}
	return true
}
