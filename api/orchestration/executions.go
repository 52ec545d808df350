package orchestration

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/internal/ids"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// Executions (orchestration product, SPEC 3.1): the API stores an execution as pending and starts its
// Execution workflow (workflow id = execution id); the workflow's activities keep the row in
// step, so lists, filters and details read the store only. Cancelling signals the reason and
// actor, then cancels the Temporal workflow.

// MaxInputsBytes caps the JSON of an execution's inputs: they travel in the workflow's
// input, and Temporal warns about payloads over 256 KiB.
const MaxInputsBytes = 256 << 10

// executionStatuses are the states of SPEC 3.1, the accepted values of the status filter.
var executionStatuses = orch.Executions.Names()

// executionView is an execution as lists show it.
type executionView struct {
	ID              string  `json:"id"`
	WorkflowID      string  `json:"workflowId"`
	WorkflowSlug    string  `json:"workflowSlug"`
	WorkflowVersion int     `json:"workflowVersion"`
	Status          string  `json:"status"`
	ExternalID      *string `json:"externalId"`
	StartedBy       *string `json:"startedBy"`
	FailedStepID    *string `json:"failedStepId"`
	ErrorMessage    *string `json:"errorMessage"`
	CancelReason    *string `json:"cancelReason"`
	CancelledBy     *string `json:"cancelledBy"`
	CreatedAt       string  `json:"createdAt"`
	StartedAt       *string `json:"startedAt"`
	CompletedAt     *string `json:"completedAt"`
	UpdatedAt       string  `json:"updatedAt"`
}

// executionDetailView is one execution with its inputs, output, steps, approvals and a link
// to its run in the Temporal UI.
type executionDetailView struct {
	executionView
	Inputs      map[string]any `json:"inputs"`
	Output      any            `json:"output"`
	Steps       []stepView     `json:"steps"`
	Approvals   []approvalView `json:"approvals"`
	TemporalURL *string        `json:"temporalUrl"`
}

// stepView is one node run of an execution.
type stepView struct {
	ID          string  `json:"id"`
	NodeID      string  `json:"nodeId"`
	Kind        string  `json:"kind"`
	Status      string  `json:"status"`
	Attempts    int     `json:"attempts"`
	Output      any     `json:"output"`
	Error       *string `json:"error"`
	StartedAt   string  `json:"startedAt"`
	CompletedAt *string `json:"completedAt"`
}

func newExecutionView(e *store.Execution) executionView {
	return executionView{
		ID: e.ID, WorkflowID: e.WorkflowID, WorkflowSlug: e.WorkflowSlug, WorkflowVersion: e.WorkflowVersion, Status: string(e.Status),
		ExternalID: api.Nullable(e.ExternalID), StartedBy: api.Nullable(e.StartedBy), FailedStepID: api.Nullable(e.FailedStepID),
		ErrorMessage: api.Nullable(e.ErrorMessage), CancelReason: api.Nullable(e.CancelReason), CancelledBy: api.Nullable(e.CancelledBy),
		CreatedAt: api.Timestamp(e.CreatedAt), StartedAt: api.TimestampPtr(e.StartedAt), CompletedAt: api.TimestampPtr(e.CompletedAt),
		UpdatedAt: api.Timestamp(e.UpdatedAt),
	}
}

func newStepView(st *store.Step) stepView {
	return stepView{ID: st.ID, NodeID: st.NodeID, Kind: st.Kind, Status: string(st.Status), Attempts: st.Attempts, Output: st.Output,
		Error: api.Nullable(st.Error), StartedAt: api.Timestamp(st.StartedAt), CompletedAt: api.TimestampPtr(st.CompletedAt)}
}

// temporalURL links to the execution's run in the Temporal UI (config temporal.ui_url): the
// run itself once it is known, the search for its workflow id before.
func (h *Handler) temporalURL(e *store.Execution) *string {
	base := h.Config.TemporalUIURL()
	if base == "" {
		return nil
	}
	ns := base + "/namespaces/" + url.PathEscape(h.Config.Temporal.Namespace) + "/workflows"
	link := ns + "?query=" + url.QueryEscape(`WorkflowId="`+e.ID+`"`)
	if e.RunID != "" {
		link = ns + "/" + url.PathEscape(e.ID) + "/" + url.PathEscape(e.RunID) + "/history"
	}
	return &link
}

// startExecutionRequest is the body of POST /api/workflows/:id/executions.
type startExecutionRequest struct {
	Inputs json.RawMessage `json:"inputs"`
	// ExternalID makes the start idempotent (middleware) and is kept on the execution.
	ExternalID string `json:"externalId"`
	// Version is the workflow version to run; the latest when absent.
	Version *int `json:"version"`
}

// startExecution stores a pending execution of a workflow version and starts its workflow;
// 202 with data.id. The effective user is the one who started it (four-eyes).
func (h *Handler) startExecution(c *gin.Context) {
	var req startExecutionRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if len(req.Inputs) > MaxInputsBytes {
		api.Fail(c, http.StatusRequestEntityTooLarge, api.MsgTooLarge)
		return
	}
	fe := api.FieldErrors{}
	inputs := map[string]any{}
	if len(req.Inputs) > 0 && string(req.Inputs) != "null" {
		if err := json.Unmarshal(req.Inputs, &inputs); err != nil || inputs == nil {
			fe.Add("inputs", "must be an object")
		}
	}
	if req.Version != nil && *req.Version < 1 {
		fe.Add("version", "must be an integer from 1")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	w, ok := h.loadWorkflow(c)
	if !ok {
		return
	}
	version := w.LatestVersion
	if req.Version != nil {
		version = *req.Version
		if _, err := h.Store.Orchestration.GetWorkflowVersion(c.Request.Context(), w.OrgID, w.ID, version); errors.Is(err, store.ErrNotFound) {
			api.ValidationFailed(c, api.FieldErrors{"version": {"is not a version of this workflow"}})
			return
		} else if err != nil {
			api.Internal(c, err)
			return
		}
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	p := api.PrincipalOf(c)
	in := orchwf.ExecutionInput{
		ExecutionID: api.NewID(c, ids.Execution), OrgID: p.OrgID, WorkflowID: w.ID, WorkflowSlug: w.Slug, WorkflowVersion: version,
		ExternalID: req.ExternalID, StartedBy: p.UserID, Inputs: inputs,
	}
	row := &store.Execution{ID: in.ExecutionID, OrgID: in.OrgID, WorkflowID: in.WorkflowID, WorkflowSlug: in.WorkflowSlug,
		WorkflowVersion: version, Inputs: inputs, ExternalID: in.ExternalID, StartedBy: in.StartedBy}
	if err := h.Store.Orchestration.CreateExecution(c.Request.Context(), row); err != nil {
		api.Internal(c, err)
		return
	}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(ctx, orchwf.ExecutionStartOptions(in), orchwf.ExecutionWorkflowName, in); err != nil && !workflows.AlreadyStarted(err) {
		// Not started: forget the row (if the start did go through after all, the run's first
		// activity stores it again).
		if derr := h.Store.Orchestration.DeletePendingExecution(context.WithoutCancel(c.Request.Context()), row.OrgID, row.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		api.Logger(c).Error("start execution workflow", "executionId", row.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, gin.H{"id": row.ID})
}

// listExecutions pages through the organisation's executions, newest first. Filters: status,
// from/to (created), externalId, q (id, workflow slug, externalId), workflowId (id or slug);
// summary=true adds the count of each status over every filter but status.
func (h *Handler) listExecutions(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Cursor: true, Statuses: executionStatuses, Extra: []string{"workflowId"},
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterExternalID, api.FilterSummary}})
	if !ok {
		return
	}
	org := api.PrincipalOf(c).OrgID
	eq := store.ExecutionQuery{Filter: q.Filter, Workflow: strings.TrimSpace(c.Query("workflowId"))}
	rows, next, err := h.Store.Orchestration.ListExecutions(c.Request.Context(), org, q.Cursor, eq)
	if !api.Loaded(c, err) {
		return
	}
	var summary map[string]int64
	if q.Filter.Summary {
		if summary, err = h.Store.Orchestration.CountExecutions(c.Request.Context(), org, eq); err != nil {
			api.Internal(c, err)
			return
		}
		summary = api.SummaryOf(summary, executionStatuses)
	}
	api.CursorRows(c, rows, next, newExecutionView, summary)
}

// loadExecution loads the path's execution of the caller's organisation, answering 404 when
// there is none.
func (h *Handler) loadExecution(c *gin.Context) (*store.Execution, bool) {
	e, err := h.Store.Orchestration.GetExecution(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return e, api.Loaded(c, err)
}

// getExecution answers one execution with its steps and approvals.
func (h *Handler) getExecution(c *gin.Context) {
	e, ok := h.loadExecution(c)
	if !ok {
		return
	}
	steps, err := h.Store.Orchestration.ExecutionSteps(c.Request.Context(), e.OrgID, e.ID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	approvals, err := h.Store.Orchestration.ExecutionApprovals(c.Request.Context(), e.OrgID, e.ID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	v := executionDetailView{executionView: newExecutionView(e), Inputs: e.Inputs, Output: e.Output,
		Steps: api.Views(steps, newStepView), Approvals: api.Views(approvals, newApprovalView), TemporalURL: h.temporalURL(e)}
	if v.Inputs == nil {
		v.Inputs = map[string]any{}
	}
	api.OK(c, v)
}

// cancelRequest is the body of POST /api/executions/:id/cancel.
type cancelRequest struct {
	Reason string `json:"reason"`
}

// cancelExecution asks a pending or running execution to stop: it signals the reason and the
// effective user, then cancels the workflow, which records the cancellation and emits
// workflow.execution.cancelled (202; poll the execution). An ended execution is 409.
func (h *Handler) cancelExecution(c *gin.Context) {
	var req cancelRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if len(req.Reason) > 1000 {
		api.ValidationFailed(c, api.FieldErrors{"reason": {"must be at most 1000 characters"}})
		return
	}
	e, ok := h.loadExecution(c)
	if !ok {
		return
	}
	if !orch.Executions.Can(e.Status, orch.ExecutionCancelled) {
		api.StateConflict(c, string(e.Status), string(orch.ExecutionCancelled))
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	signal := orchwf.CancelRequest{Reason: req.Reason, ActorUserID: api.PrincipalOf(c).UserID}
	err := h.Temporal.SignalWorkflow(ctx, e.ID, "", orchwf.SignalCancelRequest, signal)
	if err == nil {
		err = h.Temporal.CancelWorkflow(ctx, e.ID, "")
	}
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		// The run ended in between: its row says how.
		if e, ok = h.loadExecution(c); ok {
			api.StateConflict(c, string(e.Status), string(orch.ExecutionCancelled))
		}
		return
	}
	if err != nil {
		api.Logger(c).Error("cancel execution", "executionId", e.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, newExecutionView(e))
}
