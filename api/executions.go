package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/ids"
	"github.com/svcplatform/svc/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
)

// Executions (issue 5, SPEC 3.1): the API stores an execution as pending and starts its
// Execution workflow (workflow id = execution id); the workflow's activities keep the row in
// step, so lists, filters and details read the store only. Cancelling signals the reason and
// actor, then cancels the Temporal workflow.

// MaxInputsBytes caps the JSON of an execution's inputs: they travel in the workflow's
// input, and Temporal warns about payloads over 256 KiB.
const MaxInputsBytes = 256 << 10

// temporalCallTimeout bounds one call to Temporal from a request.
const temporalCallTimeout = 15 * time.Second

// executionStatuses are the states of SPEC 3.1, the accepted values of the status filter.
var executionStatuses = []string{orchestration.ExecutionPending, orchestration.ExecutionRunning,
	orchestration.ExecutionSucceeded, orchestration.ExecutionFailed, orchestration.ExecutionCancelled}

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
		ID: e.ID, WorkflowID: e.WorkflowID, WorkflowSlug: e.WorkflowSlug, WorkflowVersion: e.WorkflowVersion, Status: e.Status,
		ExternalID: nullable(e.ExternalID), StartedBy: nullable(e.StartedBy), FailedStepID: nullable(e.FailedStepID),
		ErrorMessage: nullable(e.ErrorMessage), CancelReason: nullable(e.CancelReason), CancelledBy: nullable(e.CancelledBy),
		CreatedAt: Timestamp(e.CreatedAt), StartedAt: timestampPtr(e.StartedAt), CompletedAt: timestampPtr(e.CompletedAt),
		UpdatedAt: Timestamp(e.UpdatedAt),
	}
}

func newStepView(st *store.Step) stepView {
	return stepView{ID: st.ID, NodeID: st.NodeID, Kind: st.Kind, Status: st.Status, Attempts: st.Attempts, Output: st.Output,
		Error: nullable(st.Error), StartedAt: Timestamp(st.StartedAt), CompletedAt: timestampPtr(st.CompletedAt)}
}

// temporalURL links to the execution's run in the Temporal UI (config temporal.ui_url): the
// run itself once it is known, the search for its workflow id before.
func (s *Server) temporalURL(e *store.Execution) *string {
	base := s.Config.TemporalUIURL()
	if base == "" {
		return nil
	}
	ns := base + "/namespaces/" + url.PathEscape(s.Config.Temporal.Namespace) + "/workflows"
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
func (s *Server) startExecution(c *gin.Context) {
	var req startExecutionRequest
	if !BindJSON(c, &req) {
		return
	}
	if len(req.Inputs) > MaxInputsBytes {
		Fail(c, http.StatusRequestEntityTooLarge, ErrTooLarge)
		return
	}
	fe := FieldErrors{}
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
		ValidationFailed(c, fe)
		return
	}
	w, ok := s.loadWorkflow(c)
	if !ok {
		return
	}
	version := w.LatestVersion
	if req.Version != nil {
		version = *req.Version
		if _, err := s.Store.GetWorkflowVersion(c.Request.Context(), w.OrgID, w.ID, version); errors.Is(err, store.ErrNotFound) {
			ValidationFailed(c, FieldErrors{"version": {"is not a version of this workflow"}})
			return
		} else if err != nil {
			Internal(c, err)
			return
		}
	}
	if !s.temporalAvailable(c) {
		return
	}
	p := PrincipalOf(c)
	in := workflows.ExecutionInput{
		ExecutionID: ids.New(ids.Execution), OrgID: p.OrgID, WorkflowID: w.ID, WorkflowSlug: w.Slug, WorkflowVersion: version,
		ExternalID: req.ExternalID, StartedBy: p.UserID, Inputs: inputs,
	}
	row := &store.Execution{ID: in.ExecutionID, OrgID: in.OrgID, WorkflowID: in.WorkflowID, WorkflowSlug: in.WorkflowSlug,
		WorkflowVersion: version, Inputs: inputs, ExternalID: in.ExternalID, StartedBy: in.StartedBy}
	if err := s.Store.CreateExecution(c.Request.Context(), row); err != nil {
		Internal(c, err)
		return
	}
	ctx, cancel := temporalContext(c)
	defer cancel()
	if _, err := s.Temporal.ExecuteWorkflow(ctx, workflows.ExecutionStartOptions(in), workflows.ExecutionWorkflowName, in); err != nil {
		// Not started: forget the row (if the start did go through after all, the run's first
		// activity stores it again).
		if derr := s.Store.DeletePendingExecution(context.WithoutCancel(c.Request.Context()), row.OrgID, row.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		Logger(c).Error("start execution workflow", "executionId", row.ID, "error", err)
		Fail(c, http.StatusServiceUnavailable, ErrUnavailable)
		return
	}
	Accepted(c, gin.H{"id": row.ID})
}

// temporalAvailable answers 503 when the API has no Temporal client.
func (s *Server) temporalAvailable(c *gin.Context) bool {
	if s.Temporal == nil {
		Logger(c).Error("no Temporal client configured")
		Fail(c, http.StatusServiceUnavailable, ErrUnavailable)
		return false
	}
	return true
}

// temporalContext is the context of a call to Temporal made for a request: it outlives a
// client that hangs up (a start or an update is not left half-done) but not temporalCallTimeout.
func temporalContext(c *gin.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(c.Request.Context()), temporalCallTimeout)
}

// listExecutions pages through the organisation's executions, newest first. Filters: status,
// from/to (created), externalId, q (id, workflow slug, externalId), workflowId (id or slug);
// summary=true adds the count of each status over every filter but status.
func (s *Server) listExecutions(c *gin.Context) {
	q, ok := ParseList(c, ListSpec{MaxLimit: 100, Cursor: true, Statuses: executionStatuses, Extra: []string{"workflowId"},
		Filters: []string{FilterQ, FilterStatus, FilterFrom, FilterTo, FilterExternalID, FilterSummary}})
	if !ok {
		return
	}
	org := PrincipalOf(c).OrgID
	eq := store.ExecutionQuery{Filter: q.Filter, Workflow: strings.TrimSpace(c.Query("workflowId"))}
	rows, next, err := s.Store.ListExecutions(c.Request.Context(), org, q.Cursor, eq)
	if !Loaded(c, err) {
		return
	}
	var summary map[string]int64
	if q.Filter.Summary {
		if summary, err = s.Store.CountExecutions(c.Request.Context(), org, eq); err != nil {
			Internal(c, err)
			return
		}
		for _, st := range executionStatuses { // every status shows, 0 included
			if _, ok := summary[st]; !ok {
				summary[st] = 0
			}
		}
	}
	CursorRows(c, rows, next, newExecutionView, summary)
}

// loadExecution loads the path's execution of the caller's organisation, answering 404 when
// there is none.
func (s *Server) loadExecution(c *gin.Context) (*store.Execution, bool) {
	e, err := s.Store.GetExecution(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c))
	return e, Loaded(c, err)
}

// getExecution answers one execution with its steps and approvals.
func (s *Server) getExecution(c *gin.Context) {
	e, ok := s.loadExecution(c)
	if !ok {
		return
	}
	steps, err := s.Store.ExecutionSteps(c.Request.Context(), e.OrgID, e.ID)
	if err != nil {
		Internal(c, err)
		return
	}
	approvals, err := s.Store.ExecutionApprovals(c.Request.Context(), e.OrgID, e.ID)
	if err != nil {
		Internal(c, err)
		return
	}
	v := executionDetailView{executionView: newExecutionView(e), Inputs: e.Inputs, Output: e.Output,
		Steps: Views(steps, newStepView), Approvals: Views(approvals, newApprovalView), TemporalURL: s.temporalURL(e)}
	if v.Inputs == nil {
		v.Inputs = map[string]any{}
	}
	OK(c, v)
}

// cancelRequest is the body of POST /api/executions/:id/cancel.
type cancelRequest struct {
	Reason string `json:"reason"`
}

// cancelExecution asks a pending or running execution to stop: it signals the reason and the
// effective user, then cancels the workflow, which records the cancellation and emits
// workflow.execution.cancelled (202; poll the execution). An ended execution is 409.
func (s *Server) cancelExecution(c *gin.Context) {
	var req cancelRequest
	if !BindJSON(c, &req) {
		return
	}
	if len(req.Reason) > 1000 {
		ValidationFailed(c, FieldErrors{"reason": {"must be at most 1000 characters"}})
		return
	}
	e, ok := s.loadExecution(c)
	if !ok {
		return
	}
	if orchestration.Terminal(e.Status) {
		StateConflict(c, e.Status, orchestration.ExecutionCancelled)
		return
	}
	if !s.temporalAvailable(c) {
		return
	}
	ctx, cancel := temporalContext(c)
	defer cancel()
	signal := workflows.CancelRequest{Reason: req.Reason, ActorUserID: PrincipalOf(c).UserID}
	err := s.Temporal.SignalWorkflow(ctx, e.ID, "", workflows.SignalCancelRequest, signal)
	if err == nil {
		err = s.Temporal.CancelWorkflow(ctx, e.ID, "")
	}
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		// The run ended in between: its row says how.
		if e, ok = s.loadExecution(c); ok {
			StateConflict(c, e.Status, orchestration.ExecutionCancelled)
		}
		return
	}
	if err != nil {
		Logger(c).Error("cancel execution", "executionId", e.ID, "error", err)
		Fail(c, http.StatusServiceUnavailable, ErrUnavailable)
		return
	}
	Accepted(c, newExecutionView(e))
}
