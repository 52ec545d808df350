package orchestration

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/workflows"
)

// approval is one human_approval of a run.
type approval struct {
	id, stepID, nodeID, assignTo string
	status                       orch.ApprovalStatus
	decidedBy, comment           string
	decidedAt                    time.Time
	timedOut                     bool
	// stored is set once the store holds the pending approval, recorded once it holds the decision.
	stored, recorded bool
}

// awaitApproval records a pending approval and waits until it is resolved by the
// resolve-approval Update or by its timeout.
func (r *execRun) awaitApproval(ctx workflow.Context, st *step, a orch.AwaitApproval) (approvalOutput, error) {
	if err := r.recordRunning(ctx, st); err != nil {
		return approvalOutput{}, err
	}
	now := workflow.Now(ctx).UTC()
	ap := &approval{
		id: r.childID(ids.Approval, now, st.node.ID), stepID: st.id, nodeID: st.node.ID,
		assignTo: a.AssignTo, status: orch.ApprovalPending,
	}
	rec := ApprovalRecord{
		ApprovalID: ap.id, StepID: st.id, OrgID: r.in.OrgID, ExecutionID: r.in.ExecutionID, NodeID: st.node.ID,
		ActionLabel: a.ActionLabel, AssignTo: a.AssignTo, Data: a.Data, StartedBy: r.in.StartedBy, CreatedAt: now,
		Event: r.event(ctx, events.WorkflowHumanApprovalPending, ap.id, map[string]any{
			"executionId": r.in.ExecutionID, "workflowSlug": r.in.WorkflowSlug, "stepId": st.id,
			"actionLabel": a.ActionLabel, "assignTo": a.AssignTo, "data": a.Data,
		}),
	}
	waiting := fmt.Sprintf("Waiting for approval %s (step %s, node **%s**) by `%s`: %s", ap.id, st.id, st.node.Label(), a.AssignTo, a.ActionLabel)
	if a.Timeout > 0 {
		expires := now.Add(a.Timeout)
		rec.ExpiresAt = &expires
		waiting += "; rejected automatically at " + expires.Format(time.RFC3339)
	}
	// The approval can be resolved as soon as the API can find it in the store, which may be
	// before this workflow sees RecordApproval complete; the handler waits for ap.stored.
	r.pending, r.approvals[ap.id], r.byStep[st.id] = ap, ap, ap
	if err := r.bookkeeping(ctx, "approval "+st.node.ID+" pending", ActivityRecordApproval, rec).Get(ctx, nil); err != nil {
		return approvalOutput{}, err
	}
	ap.stored = true
	workflow.SetCurrentDetails(ctx, waiting)

	decided := func() bool { return ap.status != orch.ApprovalPending }
	if a.Timeout > 0 {
		ok, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{
			Timeout: a.Timeout, TimerOptions: workflow.TimerOptions{Summary: "approval " + st.node.ID + " timeout"},
		}, decided)
		if err != nil {
			return approvalOutput{}, err
		}
		if !ok {
			ap.status, ap.timedOut, ap.decidedAt = orch.ApprovalRejected, true, workflow.Now(ctx).UTC()
			if err := r.bookkeeping(ctx, "approval "+st.node.ID+" timed out", ActivityResolveApproval, ap.decision(r.in.OrgID)).Get(ctx, nil); err != nil {
				return approvalOutput{}, err
			}
			ap.recorded = true
		}
	} else if err := workflow.Await(ctx, decided); err != nil {
		return approvalOutput{}, err
	}
	// A person's decision is recorded by the Update handler before it answers the caller.
	if err := workflow.Await(ctx, func() bool { return ap.recorded }); err != nil {
		return approvalOutput{}, err
	}
	r.pending = nil
	out := approvalOutput{Decision: orch.DecisionApprove, ActorUserID: ap.decidedBy, Comment: ap.comment, TimedOut: ap.timedOut}
	if ap.status == orch.ApprovalRejected {
		out.Decision = orch.DecisionReject
	}
	return out, nil
}

// rejectionMessage is the error of an approval step rejected without a reject route.
func rejectionMessage(d approvalOutput, a orch.AwaitApproval) string {
	switch {
	case d.TimedOut:
		return fmt.Sprintf("approval timed out after %s", a.Timeout)
	case d.Comment != "":
		return fmt.Sprintf("approval rejected by %s: %s", d.ActorUserID, d.Comment)
	}
	return "approval rejected by " + d.ActorUserID
}

// find returns the approval a request names, or nil.
func (r *execRun) find(req ResolveApprovalRequest) *approval {
	byID, byStep := r.approvals[req.ApprovalID], r.byStep[req.StepID]
	switch {
	case req.ApprovalID != "" && req.StepID != "":
		if byID != byStep {
			return nil
		}
		return byID
	case req.ApprovalID != "":
		return byID
	}
	return byStep
}

// validateResolve is the resolve-approval validator: it refuses, before anything enters
// history, an unknown decision or approval, an approval already decided (409 state
// conflict), an actor without the assigned role or user (403) and the user who started the
// execution (422 four-eyes).
func (r *execRun) validateResolve(_ workflow.Context, req ResolveApprovalRequest) error {
	to := orch.DecisionState(req.Decision)
	if to == "" {
		return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, fmt.Sprintf(`decision must be "approve" or "reject", got %q`, req.Decision))
	}
	ap := r.find(req)
	if ap == nil {
		return workflows.RejectUpdate(workflows.ErrTypeNotFound, "approval not found")
	}
	if ap.status != orch.ApprovalPending {
		return workflows.StateConflictError(string(ap.status), string(to))
	}
	if req.ActorUserID == "" {
		return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, "actorUserId is required")
	}
	if why := orch.MayResolve(ap.assignTo, req.ActorUserID, req.ActorRoles); why != "" {
		return workflows.RejectUpdate(workflows.ErrTypeForbidden, why)
	}
	if req.ActorUserID == r.in.StartedBy {
		return workflows.RejectUpdate(workflows.ErrTypeFourEyes, workflows.FourEyesMessage)
	}
	return nil
}

// resolve is the resolve-approval handler: it decides the approval, records the decision
// and answers the resolved approval. The waiting node resumes once it is recorded.
func (r *execRun) resolve(ctx workflow.Context, req ResolveApprovalRequest) (ApprovalResult, error) {
	ap := r.find(req)
	ap.status = orch.DecisionState(req.Decision)
	ap.decidedBy, ap.comment, ap.decidedAt = req.ActorUserID, req.Comment, workflow.Now(ctx).UTC()
	if err := workflow.Await(ctx, func() bool { return ap.stored }); err != nil {
		return ApprovalResult{}, err
	}
	if err := r.bookkeeping(ctx, "approval "+ap.nodeID+" "+string(ap.status), ActivityResolveApproval, ap.decision(r.in.OrgID)).Get(ctx, nil); err != nil {
		return ApprovalResult{}, err
	}
	ap.recorded = true
	return ApprovalResult{
		ApprovalID: ap.id, StepID: ap.stepID, ExecutionID: r.in.ExecutionID, NodeID: ap.nodeID, Status: ap.status,
		DecidedBy: ap.decidedBy, Comment: ap.comment, DecidedAt: ap.decidedAt,
	}, nil
}

// decision is the ResolveApproval input for the approval's current state.
func (ap *approval) decision(orgID string) ApprovalDecision {
	return ApprovalDecision{
		ApprovalID: ap.id, OrgID: orgID, Status: ap.status, DecidedBy: ap.decidedBy, Comment: ap.comment,
		DecidedAt: ap.decidedAt, TimedOut: ap.timedOut,
	}
}
