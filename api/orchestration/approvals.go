package orchestration

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// Human approvals (orchestration product, ARCHITECTURE 2 and 3): a run waiting at a human_approval node
// has a pending approval (apr_ id; its step's stp_ id names it too). Approving or rejecting
// sends the resolve-approval Update to the run; the Update's validator refuses a decided
// approval (409), a resolver without the assigned role or user (403) and the user who started
// the execution (422 four-eyes) before anything enters the run's history.

// approvalStatuses are the states of an approval, the accepted values of the status filter.
var approvalStatuses = orch.Approvals.Names()

// maxApprovalComment is the longest comment a resolver may leave (the store column's size).
const maxApprovalComment = 2000

// approvalView is an approval as the API shows it.
type approvalView struct {
	ID          string         `json:"id"`
	ExecutionID string         `json:"executionId"`
	StepID      string         `json:"stepId"`
	NodeID      string         `json:"nodeId"`
	ActionLabel string         `json:"actionLabel"`
	AssignTo    string         `json:"assignTo"`
	Data        map[string]any `json:"data"`
	Status      string         `json:"status"`
	StartedBy   *string        `json:"startedBy"`
	DecidedBy   *string        `json:"decidedBy"`
	Comment     *string        `json:"comment"`
	TimedOut    bool           `json:"timedOut"`
	ExpiresAt   *string        `json:"expiresAt"`
	DecidedAt   *string        `json:"decidedAt"`
	CreatedAt   string         `json:"createdAt"`
}

func newApprovalView(a *store.Approval) approvalView {
	v := approvalView{
		ID: a.ID, ExecutionID: a.ExecutionID, StepID: a.StepID, NodeID: a.NodeID, ActionLabel: a.ActionLabel, AssignTo: a.AssignTo,
		Data: a.Data, Status: string(a.Status), StartedBy: api.Nullable(a.StartedBy), DecidedBy: api.Nullable(a.DecidedBy), Comment: api.Nullable(a.Comment),
		TimedOut: a.TimedOut, ExpiresAt: api.TimestampPtr(a.ExpiresAt), DecidedAt: api.TimestampPtr(a.DecidedAt), CreatedAt: api.Timestamp(a.CreatedAt),
	}
	if v.Data == nil {
		v.Data = map[string]any{}
	}
	return v
}

// listApprovals pages through the organisation's approvals, newest first. Filters: status,
// from/to (created), q (action label), assignTo (as the node names it, e.g. role:reviewer),
// executionId.
func (h *Handler) listApprovals(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Statuses: approvalStatuses, Extra: []string{"assignTo", "executionId"},
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	aq := store.ApprovalQuery{Filter: q.Filter, AssignTo: strings.TrimSpace(c.Query("assignTo")), ExecutionID: strings.TrimSpace(c.Query("executionId"))}
	rows, total, err := h.Store.Orchestration.ListApprovals(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, aq)
	if api.Loaded(c, err) {
		api.ListRows(c, rows, total, q, newApprovalView, nil)
	}
}

// loadApproval loads the path's approval (apr_ or stp_ id) of the caller's organisation,
// answering 404 when there is none.
func (h *Handler) loadApproval(c *gin.Context) (*store.Approval, bool) {
	a, err := h.Store.Orchestration.GetApproval(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return a, api.Loaded(c, err)
}

// getApproval answers one approval.
func (h *Handler) getApproval(c *gin.Context) {
	if a, ok := h.loadApproval(c); ok {
		api.OK(c, newApprovalView(a))
	}
}

// resolveApprovalRequest is the body of approve and reject.
type resolveApprovalRequest struct {
	Comment string `json:"comment"`
}

// resolveApproval answers POST /api/approvals/:id/approve or /reject: the effective user
// (a key bound to a user, or a session) decides the approval through the run's
// resolve-approval Update and gets the resolved approval. The UpdateID is approval, actor and
// decision, so a retried call is answered by the same update; the audit log records the
// approval id with the user and key.
func (h *Handler) resolveApproval(decision string) gin.HandlerFunc {
	return func(c *gin.Context) {
		var req resolveApprovalRequest
		if !api.BindJSON(c, &req) {
			return
		}
		if len(req.Comment) > maxApprovalComment {
			api.ValidationFailed(c, api.FieldErrors{"comment": {"must be at most 2000 characters"}})
			return
		}
		a, ok := h.loadApproval(c)
		if !ok {
			return
		}
		p, ok := api.RequireUser(c)
		if !ok {
			return
		}
		api.AuditResource(c, a.ID)
		if !api.TemporalAvailable(c, h.Temporal) {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), catchUpTimeout)
		defer cancel()
		err := h.sendResolve(ctx, a, orchwf.ResolveApprovalRequest{
			ApprovalID: a.ID, Decision: decision, ActorUserID: p.UserID, ActorRoles: []string{p.UserRole}, Comment: req.Comment,
		})
		var gone *serviceerror.NotFound
		if status, msg, ok := workflows.UpdateErrorStatus(err); ok {
			api.Fail(c, status, msg)
			return
		} else if err != nil && !errors.As(err, &gone) {
			api.Logger(c).Error("resolve approval", "approvalId", a.ID, "error", err)
			api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
			return
		}
		// The stored approval holds the decision (the Update records it before it answers).
		if a, ok = h.loadApproval(c); !ok {
			return
		}
		to := orch.DecisionState(decision)
		if gone != nil && (a.Status != to || a.DecidedBy != p.UserID) {
			// The run has ended: only this very decision, retried, is answered as done.
			api.StateConflict(c, string(a.Status), string(to))
			return
		}
		api.OK(c, newApprovalView(a))
	}
}

// catchUpWaits are the pauses before sending a decision again that the run did not know yet.
// They add up to about 28 s: a lost workflow task is given to another worker after its timeout
// (10 s), or after the sticky queue's 5 s and then the task's own.
var catchUpWaits = []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}

// catchUpTimeout bounds a decision's call to Temporal with its waits for the run to catch up.
const catchUpTimeout = 45 * time.Second

// sendResolve sends the resolve-approval Update of stored approval a and waits for its answer.
// The run writes a pending approval with a local activity inside the workflow task that also
// registers it: when that task is lost (its worker killed), the row is already readable while
// the run, replaying on another worker, has not registered the approval again, and its
// validator answers not found. The approval is stored as pending, so the run will know it: the
// Update is sent again, over about 28 seconds, before not found is answered.
func (h *Handler) sendResolve(ctx context.Context, a *store.Approval, req orchwf.ResolveApprovalRequest) error {
	for try := 0; ; try++ {
		upd, err := h.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID:   a.ExecutionID,
			UpdateName:   orchwf.UpdateResolveApproval,
			UpdateID:     a.ID + ":" + req.ActorUserID + ":" + req.Decision,
			WaitForStage: client.WorkflowUpdateStageCompleted,
			Args:         []any{req},
		})
		if err == nil {
			err = upd.Get(ctx, nil)
		}
		status, _, ok := workflows.UpdateErrorStatus(err)
		if !ok || status != http.StatusNotFound || a.Status != orch.ApprovalPending || try == len(catchUpWaits) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(catchUpWaits[try]):
		}
	}
}
