package documents

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// Errors of Passwords.Submit that leave the document as it was, or as the pipeline leaves it
// (the API answers 503).
var (
	// ErrNoSecretsBox: config secrets.key is not set, so a password cannot be sealed.
	ErrNoSecretsBox = errors.New("documents: no secrets box to seal the password (config secrets.key)")
	// ErrNoTemporal: there is no Temporal client to tell the pipeline.
	ErrNoTemporal = errors.New("documents: no Temporal client configured")
	// ErrPasswordUndelivered: whether the pipeline got the password is unknown.
	ErrPasswordUndelivered = errors.New("documents: the pipeline could not be told of the password")
)

// Passwords gives documents waiting in password_required their password: the documents
// product's logic behind POST /api/documents/:id/password, for every caller (the API, the
// dashboard).
type Passwords struct {
	Store *store.Store
	// Box seals the password (the platform's box, config secrets.key); nil: ErrNoSecretsBox.
	Box *secrets.Box
	// Temporal sends the pipeline the document-password Update; nil: ErrNoTemporal.
	Temporal client.Client
	// Logger is for the operator; nil means slog.Default.
	Logger *slog.Logger
}

func (p *Passwords) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.Default()
	}
	return p.Logger
}

// Submit stores password sealed (bound to the document) in the same conditional write that
// moves d from password_required to processing, so that of two concurrent calls one goes
// through and the other gets a *store.StateError (SPEC 3.5); then the pipeline tries it (the
// document-password Update) and Submit returns once it has. An Update the pipeline refuses
// returns its error (workflows.UpdateErrorStatus maps it); then, and when the pipeline has
// ended, the document waits again without this password. actorUserID is who gave it.
func (p *Passwords) Submit(ctx context.Context, d *store.Document, actorUserID, password string) error {
	if d.Status != string(docintel.StatusPasswordRequired) {
		return &store.StateError{Status: d.Status}
	}
	if p.Box == nil {
		return ErrNoSecretsBox
	}
	if p.Temporal == nil {
		return ErrNoTemporal
	}
	sealed, err := p.Box.Seal([]byte(password), store.DocumentPasswordContext(d.ID))
	if err != nil {
		return err
	}
	if err := p.Store.Documents.ClaimPasswordRetry(ctx, d.OrgID, d.ID, sealed); err != nil {
		return err
	}
	// The call outlives a caller that hangs up: the claim is undone or the pipeline told.
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), api.TemporalCallTimeout)
	defer cancel()
	upd, err := p.Temporal.UpdateWorkflow(tctx, client.UpdateWorkflowOptions{
		WorkflowID:   d.ID,
		UpdateName:   docwf.UpdateDocumentPassword,
		UpdateID:     api.RandomID("pwd_"),
		WaitForStage: client.WorkflowUpdateStageCompleted,
		Args:         []any{docwf.PasswordRetry{ActorUserID: actorUserID}},
	})
	if err == nil {
		err = upd.Get(tctx, nil)
	}
	if err == nil {
		return nil
	}
	var gone *serviceerror.NotFound
	_, _, refused := workflows.UpdateErrorStatus(err)
	if !refused && !errors.As(err, &gone) {
		// Whether the pipeline got it is unknown: the document stays as the pipeline leaves it.
		return fmt.Errorf("%w: %w", ErrPasswordUndelivered, err)
	}
	// The pipeline did not take it: the document waits again, without this password.
	if rerr := p.Store.Documents.ReleasePasswordRetry(tctx, d.OrgID, d.ID, sealed); rerr != nil {
		p.logger().Error("release password retry", "documentId", d.ID, "error", rerr)
	}
	if refused {
		return err
	}
	// The run has ended: the document is in whatever state it ended in.
	cur, lerr := p.Store.Documents.Get(tctx, d.OrgID, d.ID)
	if lerr != nil {
		return lerr
	}
	return &store.StateError{Status: cur.Status}
}
