package statements

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/workflows"
	stmtwf "github.com/svcplatform/svc/workflows/statements"
)

// maxCorrections bounds the corrections of one request.
const maxCorrections = 500

// correctionRequest is the body of POST /api/analyses/:id/corrections.
type correctionRequest struct {
	Corrections []stmt.Correction `json:"corrections"`
	// ExternalID makes the correction idempotent (middleware).
	ExternalID string `json:"externalId"`
}

// correctAnalysis records an analyst's corrections of transactions (date, description,
// amount, balance, category) as a new version: reconciled, analysed and decided again, with
// analysis.corrected naming the actor, through an AnalysisCorrection workflow. It needs a
// user (a key bound to one, or a session: 422 api_key_not_bound_to_user otherwise), a
// decided analysis (409 otherwise) and corrections naming its transactions (400 otherwise).
// 201 with the analysis at its new version.
func (h *Handler) correctAnalysis(c *gin.Context) {
	var req correctionRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if len(req.Corrections) > maxCorrections {
		api.ValidationFailed(c, api.FieldErrors{"corrections": {"must hold at most 500 corrections"}})
		return
	}
	a, ok := h.loadAnalysis(c)
	if !ok {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	if !stmt.Status(a.Status).Correctable() || a.Result == nil {
		api.StateConflict(c, a.Status, string(stmt.StatusCompleted))
		return
	}
	if _, fe := stmt.ApplyCorrections(a.Result.Statements, req.Corrections); fe != nil {
		api.ValidationFailed(c, fe)
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	in := stmtwf.CorrectionInput{OrgID: a.OrgID, AnalysisID: a.ID, PreviousVersion: a.Version, ActorUserID: p.UserID,
		Corrections: req.Corrections, CorrectedAt: h.Now().UTC()}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	run, err := h.Temporal.ExecuteWorkflow(ctx, stmtwf.CorrectionStartOptions(in), stmtwf.AnalysisCorrectionName, in)
	if workflows.AlreadyStarted(err) {
		// Another correction of this version ran: this one is based on an outdated version.
		api.StateConflict(c, a.Status, a.Status)
		return
	}
	if err == nil {
		err = run.Get(ctx, nil)
	}
	if status, msg, ok := workflows.UpdateErrorStatus(err); ok {
		api.Fail(c, status, msg)
		return
	} else if err != nil {
		api.Logger(c).Error("analysis correction", "analysisId", a.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	cur, err := h.Store.Statements.GetAnalysis(c.Request.Context(), a.OrgID, a.ID)
	if !api.Loaded(c, err) {
		return
	}
	api.Created(c, newAnalysisDetailView(cur))
}
