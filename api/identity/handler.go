// Package identity is the identity verification product's API: verifications (idv_), their
// attempts (att_, a document photo checked against the claimed data by a durable workflow),
// the reviewers' decisions and the attempts feed.
package identity

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/store"
)

// Deps are what the identity API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal starts and signals the verifications' workflows; nil answers 503 where needed.
	Temporal client.Client
	Logger   *slog.Logger
	// Now is the clock.
	Now func() time.Time
	// Blobs keeps the uploaded images; nil means a local directory at config documents.blob_dir.
	Blobs blobs.Store
}

// Handler serves the identity product's endpoints.
type Handler struct {
	Deps
	blobsErr error
}

// New builds the identity API.
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
	return h
}

// attemptOverhead is what an attempt's body may hold beyond its two images: the part headers.
const attemptOverhead = 64 << 10

// Routes are the identity product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	maxBody := 2*h.Config.Documents.MaxUploadBytes + attemptOverhead
	return api.ForProduct(auth.ProductIdentity, []api.Route{
		{Method: "POST", Path: "/api/identity/verifications", Scope: "verifications:write", Body: api.BodyJSON, Idempotent: true, Summary: "start an identity verification", Handler: h.createVerification},
		{Method: "GET", Path: "/api/identity/verifications", Scope: "verifications:view", Summary: "list identity verifications, newest first", Handler: h.listVerifications},
		{Method: "GET", Path: "/api/identity/verifications/:id", Scope: "verifications:view", Summary: "get a verification with its attempts and their checks", Handler: h.getVerification},
		{Method: "POST", Path: "/api/identity/verifications/:id/attempts", Scope: "verifications:write", Bucket: api.BucketUpload, Body: api.BodyMultipart, MaxBody: maxBody, Summary: "submit a document photo (front, optional back) for checking", Handler: h.submitAttempt},
		{Method: "POST", Path: "/api/identity/verifications/:id/review", Scope: "verification-reviews:write", Body: api.BodyJSON, Summary: "decide a verification in review (key bound to a user)", Handler: h.reviewVerification},
		{Method: "GET", Path: "/api/identity/attempts", Scope: "verifications:view", Summary: "the feed of attempts, newest first (cursor)", Handler: h.listAttempts},
		{Method: "GET", Path: "/api/identity/attempts/:id/images/:side", Scope: "verifications:view", AuditReads: true, Summary: "an attempt's front or back image (every read is audit-logged)", Handler: h.getImage},
	})
}
