package cases

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"go.temporal.io/sdk/client"

	caseacts "github.com/svcplatform/svc/activities/cases"
	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// update sends one action to the case's workflow as its act Update, with the caller as actor,
// starting the workflow from the stored case if it does not run (update-with-start), so an
// action never depends on an earlier start having succeeded. A refusal of the validator is
// answered with its status (409, 403, 422, 400); it returns false when it answered.
func (h *Handler) update(c *gin.Context, row *store.Case, req casewf.ActRequest) (casewf.ActResult, bool) {
	p := api.PrincipalOf(c)
	req.ActorUserID, req.ActorRole, req.KeyID = p.UserID, p.UserRole, p.APIKeyID
	api.AuditResource(c, row.ID)
	if !api.TemporalAvailable(c, h.Temporal) {
		return casewf.ActResult{}, false
	}
	alerts, err := h.Store.Cases.CaseAlertIDs(c.Request.Context(), row.OrgID, row.ID)
	if err != nil {
		api.Internal(c, err)
		return casewf.ActResult{}, false
	}
	in := caseacts.CaseInputOf(row, alerts)
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	start := h.Temporal.NewWithStartWorkflowOperation(casewf.CaseStartOptions(in), casewf.CaseName, in)
	upd, err := h.Temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName: casewf.UpdateAct, UpdateID: string(req.Action) + ":" + api.RequestID(c),
			WaitForStage: client.WorkflowUpdateStageCompleted, Args: []any{req},
		},
	})
	var res casewf.ActResult
	if err == nil {
		err = upd.Get(ctx, &res)
	}
	if status, msg, ok := workflows.UpdateErrorStatus(err); ok {
		api.Fail(c, status, msg)
		return res, false
	} else if err != nil {
		api.Logger(c).Error("case update", "caseId", row.ID, "action", req.Action, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return res, false
	}
	return res, true
}
