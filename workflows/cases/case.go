package cases

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/workflows"
)

// Change is one applied action as the store records it (activities/cases.ApplyChange).
type Change struct {
	OrgID, CaseID, Key           string
	Action                       domain.Action
	To                           domain.State
	ActorID, KeyID, AssigneeID   string
	Title, Priority              string
	DueAt                        *time.Time
	Outcome, Rationale, Proposer string
	Comment                      string
	At                           time.Time
}

// caseRun is a running case: its state as the workflow holds it.
type caseRun struct {
	in CaseInput
	// version counts applied changes, so the due-date loop wakes up on each.
	version int
}

// Case is the workflow of one case: it publishes case.created, holds the lifecycle (the act
// Update, validated before anything enters history), and waits for the due date on a durable
// timer: a case still open when it passes raises case.overdue and escalates. It never ends on
// its own (a closed case may be reopened); it continues as new when its history grows.
func Case(ctx workflow.Context, in CaseInput) error {
	r := &caseRun{in: in}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateAct, r.act, workflow.UpdateHandlerOptions{Validator: r.validate}); err != nil {
		return err
	}
	if !r.in.Announced {
		if err := workflow.ExecuteActivity(storeCtx(ctx), ActivityCaseStarted, r.in.OrgID, r.in.CaseID).Get(ctx, nil); err != nil {
			return err
		}
		if _, err := workflows.PublishEvent(ctx, r.in.OrgID, events.CaseCreated, "created", map[string]any{
			"caseId": r.in.CaseID, "title": r.in.Title, "customerId": workflows.OrNull(r.in.CustomerID), "priority": r.in.Priority,
			"alertIds": nonNil(r.in.AlertIDs), "createdBy": workflows.OrNull(r.in.CreatedBy),
		}); err != nil {
			return err
		}
		r.in.Announced = true
	}
	for {
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("Case %s is **%s**, assignee `%s`, due %s", r.in.CaseID, r.in.State, r.in.AssigneeID, r.in.DueAt.Format(time.RFC3339)))
		seen := r.version
		changed := func() bool { return r.version != seen }
		if r.watching() {
			wait := r.in.DueAt.Sub(workflow.Now(ctx))
			ok, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: max(wait, time.Millisecond),
				TimerOptions: workflow.TimerOptions{Summary: "case due " + r.in.DueAt.Format(time.RFC3339)}}, changed)
			if err != nil {
				return err
			}
			if !ok {
				if err := r.overdue(ctx); err != nil {
					return err
				}
			}
		} else if err := workflow.Await(ctx, func() bool { return changed() || workflow.GetInfo(ctx).GetContinueAsNewSuggested() }); err != nil {
			return err
		}
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return err
			}
			return workflow.NewContinueAsNewError(ctx, Case, r.in)
		}
	}
}

// watching reports whether the due date is still to be watched: set, not reported yet, and
// the case not closed.
func (r *caseRun) watching() bool {
	return !r.in.DueAt.IsZero() && !r.in.DueAt.Equal(r.in.OverdueFor) && r.in.State != domain.StateClosed
}

// overdue reports the missed due date and escalates the case when it may be escalated.
func (r *caseRun) overdue(ctx workflow.Context) error {
	due := r.in.DueAt
	r.in.OverdueFor = due
	key := "overdue:" + due.UTC().Format(time.RFC3339)
	if err := workflow.ExecuteActivity(storeCtx(ctx), ActivityRecordOverdue, OverdueInput{OrgID: r.in.OrgID, CaseID: r.in.CaseID,
		DueAt: due, At: workflow.Now(ctx).UTC()}).Get(ctx, nil); err != nil {
		return err
	}
	if _, err := workflows.PublishEvent(ctx, r.in.OrgID, events.CaseOverdue, key, map[string]any{
		"caseId": r.in.CaseID, "dueAt": due.UTC().Format(time.RFC3339), "status": string(r.in.State),
	}); err != nil {
		return err
	}
	if !domain.Lifecycle.Can(r.in.State, domain.StateEscalated) {
		return nil
	}
	r.in.State = domain.StateEscalated
	r.version++
	if err := workflow.ExecuteActivity(storeCtx(ctx), ActivityApplyChange, Change{OrgID: r.in.OrgID, CaseID: r.in.CaseID, Key: key + ":escalate",
		Action: domain.ActionEscalate, To: domain.StateEscalated, Comment: "overdue", At: workflow.Now(ctx).UTC()}).Get(ctx, nil); err != nil {
		return err
	}
	_, err := workflows.PublishEvent(ctx, r.in.OrgID, events.CaseEscalated, key+":escalate", map[string]any{
		"caseId": r.in.CaseID, "escalatedBy": nil, "reason": "overdue",
	})
	return err
}

// naturalTarget is the state an action leads to, for the 409 of an action the state refuses.
func naturalTarget(a domain.Action, from domain.State) domain.State {
	if a == domain.ActionAssign {
		return domain.StateInvestigating
	}
	to, _ := domain.Target(a, from)
	return to
}

// validate is the act Update's validator: it refuses, before anything enters history, a move
// the lifecycle forbids (409), a closure decided by someone not a reviewer or admin (403) or
// by its proposer (422 four-eyes), and malformed requests (400).
func (r *caseRun) validate(_ workflow.Context, req ActRequest) error {
	from := r.in.State
	to, moves := domain.Target(req.Action, from)
	switch req.Action {
	case domain.ActionAssign, domain.ActionEscalate, domain.ActionProposeClose, domain.ActionApproveClose, domain.ActionRejectClose, domain.ActionReopen:
	case domain.ActionUpdate:
		if from == domain.StateClosed {
			return workflows.StateConflictError(string(from), string(from))
		}
		return nil
	default:
		return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, fmt.Sprintf("unknown action %q", req.Action))
	}
	if !moves || (to == from && req.Action != domain.ActionAssign) || (to != from && !domain.Lifecycle.Can(from, to)) {
		return workflows.StateConflictError(string(from), string(naturalTarget(req.Action, from)))
	}
	switch req.Action {
	case domain.ActionAssign:
		if req.AssigneeID == "" {
			return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, "assigneeId is required")
		}
	case domain.ActionProposeClose:
		if req.ActorUserID == "" {
			return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, "actorUserId is required")
		}
		if !domain.ValidOutcome(req.Outcome) || req.Rationale == "" {
			return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, "an outcome and a rationale are required")
		}
	case domain.ActionApproveClose, domain.ActionRejectClose:
		if req.ActorUserID == "" {
			return workflows.RejectUpdate(workflows.ErrTypeInvalidArgument, "actorUserId is required")
		}
		// The proposer is refused as such whatever their role: the same person through a
		// session or a bound key is one user.
		if req.ActorUserID == r.in.ProposedBy {
			return workflows.RejectUpdate(workflows.ErrTypeFourEyes, ProposerCannotApprove)
		}
		if !domain.MayApprove(req.ActorRole) {
			return workflows.RejectUpdate(workflows.ErrTypeForbidden, OnlyApproversDecide)
		}
	}
	return nil
}

// act is the act Update's handler: it moves the workflow's state at once (so the next
// validator sees it), records the change in the store and publishes its event.
func (r *caseRun) act(ctx workflow.Context, req ActRequest) (ActResult, error) {
	to, _ := domain.Target(req.Action, r.in.State)
	key := workflow.GetCurrentUpdateInfo(ctx).ID
	ch := Change{OrgID: r.in.OrgID, CaseID: r.in.CaseID, Key: key, Action: req.Action, To: to, ActorID: req.ActorUserID, KeyID: req.KeyID,
		AssigneeID: req.AssigneeID, Title: req.Title, Priority: req.Priority, DueAt: req.DueAt, Outcome: req.Outcome,
		Rationale: req.Rationale, Comment: req.Reason, At: workflow.Now(ctx).UTC()}
	var ev string
	var data map[string]any
	switch req.Action {
	case domain.ActionAssign:
		r.in.AssigneeID = req.AssigneeID
		ev, data = events.CaseAssigned, map[string]any{"caseId": r.in.CaseID, "assigneeId": req.AssigneeID, "assignedBy": req.ActorUserID, "status": string(to)}
	case domain.ActionEscalate:
		ev, data = events.CaseEscalated, map[string]any{"caseId": r.in.CaseID, "escalatedBy": workflows.OrNull(req.ActorUserID), "reason": req.Reason}
	case domain.ActionProposeClose:
		r.in.ProposedBy, r.in.ProposedOutcome, r.in.ProposedRationale = req.ActorUserID, req.Outcome, req.Rationale
	case domain.ActionApproveClose:
		ch.Outcome, ch.Rationale, ch.Proposer = r.in.ProposedOutcome, r.in.ProposedRationale, r.in.ProposedBy
		ev, data = events.CaseClosed, map[string]any{"caseId": r.in.CaseID, "outcome": r.in.ProposedOutcome, "rationale": r.in.ProposedRationale,
			"proposedBy": r.in.ProposedBy, "approvedBy": req.ActorUserID}
		r.in.ProposedBy, r.in.ProposedOutcome, r.in.ProposedRationale = "", "", ""
	case domain.ActionRejectClose:
		ch.Proposer = r.in.ProposedBy
		r.in.ProposedBy, r.in.ProposedOutcome, r.in.ProposedRationale = "", "", ""
	case domain.ActionUpdate:
		if req.Title != "" {
			r.in.Title = req.Title
		}
		if req.Priority != "" {
			r.in.Priority = req.Priority
		}
		if req.DueAt != nil {
			r.in.DueAt = req.DueAt.UTC() // a new due date is watched again
		}
	}
	r.in.State = to
	r.version++
	if err := workflow.ExecuteActivity(storeCtx(ctx), ActivityApplyChange, ch).Get(ctx, nil); err != nil {
		return ActResult{}, err
	}
	if ev != "" {
		if _, err := workflows.PublishEvent(ctx, r.in.OrgID, ev, key, data); err != nil {
			return ActResult{}, err
		}
	}
	return ActResult{Status: r.in.State, AssigneeID: r.in.AssigneeID}, nil
}

// storeCtx runs a bookkeeping activity (a store write) on the cases queue, retried until it succeeds.
func storeCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: workflows.QueueCases, StartToCloseTimeout: time.Minute, RetryPolicy: workflows.BookkeepingRetry(),
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
