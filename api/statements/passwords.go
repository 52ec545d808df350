package statements

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	stmtwf "github.com/svcplatform/svc/workflows/statements"
)

// passwordRequest is the body of POST /api/analyses/:id/password.
type passwordRequest struct {
	Password *string `json:"password"`
}

// submitPassword answers POST /api/analyses/{id}/password: only an analysis waiting in
// password_required takes one (409 otherwise). The password is sealed (bound to the
// analysis) in the same conditional write that moves it to processing, so of two
// concurrent calls one goes through; then the waiting pipeline is told (the
// analysis-password Update) and tries it before the answer: 202 with the analysis,
// password_required again when it was wrong. The password never enters Temporal.
func (h *Handler) submitPassword(c *gin.Context) {
	var req passwordRequest
	if !api.BindJSON(c, &req) {
		return
	}
	switch {
	case req.Password == nil || *req.Password == "":
		api.ValidationFailed(c, api.FieldErrors{"password": {"is required"}})
		return
	case len(*req.Password) > MaxPassword:
		api.ValidationFailed(c, api.FieldErrors{"password": {"must be at most 1024 bytes"}})
		return
	}
	a, ok := h.loadAnalysis(c)
	if !ok {
		return
	}
	if a.Status != string(stmt.StatusPasswordRequired) {
		api.StateConflict(c, a.Status, string(stmt.StatusProcessing))
		return
	}
	if !h.boxAvailable(c) || !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	err := h.tryPassword(c.Request.Context(), a, api.PrincipalOf(c).UserID, *req.Password)
	var se *store.StateError
	if errors.As(err, &se) {
		api.StateConflict(c, se.Status, string(stmt.StatusProcessing))
		return
	}
	if status, msg, ok := workflows.UpdateErrorStatus(err); ok {
		api.Fail(c, status, msg)
		return
	}
	if err != nil {
		api.Logger(c).Error("analysis password", "analysisId", a.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	cur, err := h.Store.Statements.GetAnalysis(c.Request.Context(), a.OrgID, a.ID)
	if !api.Loaded(c, err) {
		return
	}
	api.Accepted(c, newAnalysisDetailView(cur))
}

// tryPassword claims the retry with the sealed password and sends the Update; when the
// pipeline did not take it (refused, or the run has ended) the claim is released.
func (h *Handler) tryPassword(ctx context.Context, a *store.Analysis, actor, password string) error {
	sealed, err := h.box.Seal([]byte(password), store.AnalysisPasswordContext(a.ID))
	if err != nil {
		return err
	}
	if err := h.Store.Statements.ClaimPasswordRetry(ctx, a.OrgID, a.ID, sealed, h.Now()); err != nil {
		return err
	}
	// The call outlives a caller that hangs up: the claim is undone or the pipeline told.
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), api.TemporalCallTimeout)
	defer cancel()
	upd, err := h.Temporal.UpdateWorkflow(tctx, client.UpdateWorkflowOptions{
		WorkflowID: a.ID, UpdateName: stmtwf.UpdateAnalysisPassword, UpdateID: api.RandomID("pwd_"),
		WaitForStage: client.WorkflowUpdateStageCompleted, Args: []any{stmtwf.PasswordRetry{ActorUserID: actor}},
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
		return err // whether the pipeline got it is unknown: the analysis stays as the pipeline leaves it
	}
	if rerr := h.Store.Statements.ReleasePasswordRetry(tctx, a.OrgID, a.ID, sealed, h.Now()); rerr != nil {
		h.Logger.Error("release analysis password retry", "analysisId", a.ID, "error", rerr)
	}
	if refused {
		return err
	}
	cur, lerr := h.Store.Statements.GetAnalysis(tctx, a.OrgID, a.ID)
	if lerr != nil {
		return lerr
	}
	return &store.StateError{Status: cur.Status}
}
