// Package cases holds the cases product's workflows: one Case workflow per case holding its
// lifecycle (the four-eyes checks are its Update validators; its due date is a durable
// timer), the Gather workflow the gathering Schedule runs, and the SARSubmission of a filing.
package cases

import (
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/workflows"
)

// Registered names (running executions depend on them).
const (
	CaseName          = "Case"
	GatherName        = "CaseGather"
	SARSubmissionName = "SARSubmission"
	// UpdateAct is the Case workflow's Update: one action on the case.
	UpdateAct = "act"
	// GatherScheduleID is the gathering Schedule.
	GatherScheduleID = "svc-cases-gather"
)

// Activity names.
const (
	ActivityCaseStarted   = "CaseStarted"
	ActivityApplyChange   = "CaseApplyChange"
	ActivityRecordOverdue = "CaseRecordOverdue"
	ActivityGather        = "CaseGatherAlerts"
	ActivityRenderSAR     = "SARRender"
	ActivityDeliverSAR    = "SARDeliver"
	ActivityRecordAnswer  = "SARRecordAnswer"
)

// ProposerCannotApprove is the four-eyes refusal of a closure approved or rejected by the
// user who proposed it (422, as approvals answer).
const ProposerCannotApprove = "four-eyes violation: proposer cannot approve"

// OnlyApproversDecide is the refusal of a closure decided by a role that is not an approver (403).
const OnlyApproversDecide = "only a reviewer or an admin may decide a closure"

// CaseInput starts a case's workflow, from the stored case; continue-as-new carries the
// workflow's state in it.
type CaseInput struct {
	OrgID, CaseID, Title, CustomerID, Priority, CreatedBy string
	AlertIDs                                              []string
	State                                                 domain.State
	AssigneeID                                            string
	ProposedBy, ProposedOutcome, ProposedRationale        string
	DueAt                                                 time.Time
	// Announced is set once case.created was published; OverdueFor is the due date already
	// reported overdue.
	Announced  bool
	OverdueFor time.Time
}

// ActRequest is one action on a case, by the effective user (ActorUserID, "" for a key bound
// to nobody) with their role and key.
type ActRequest struct {
	Action                        domain.Action
	ActorUserID, ActorRole, KeyID string
	AssigneeID                    string
	Title, Priority               string
	DueAt                         *time.Time
	Outcome, Rationale, Reason    string
}

// ActResult is the case's state after the action.
type ActResult struct {
	Status     domain.State
	AssigneeID string
}

// CaseStartOptions start a case's workflow: workflow id = case id, found by OrgId. A case's
// run never ends on its own; should an operator end it, the next action on the case starts a
// new run from the stored case (the store, not the run, is the record of a case's state).
func CaseStartOptions(in CaseInput) client.StartWorkflowOptions {
	o := workflows.ProductStart(in.CaseID, workflows.QueueCases, "case "+in.CaseID, in.OrgID, "cases", "")
	o.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	return o
}

// GatherInput is what the gathering Schedule runs with (config cases.*).
type GatherInput struct {
	Window, DueIn time.Duration
	// Limit bounds the alerts one activity gathers; the workflow repeats while pages are full.
	Limit int
}

// GatherResult counts what a gathering did.
type GatherResult struct {
	Gathered, Opened, Started int
}

// SARInput starts a filing's submission.
type SARInput struct {
	OrgID, FilingID, CaseID, FiledByID, SubmittedByID string
	// Attempts bounds the delivery's tries (config cases.delivery_attempts).
	Attempts int
}

// SARStartOptions start a filing's submission: workflow id = filing id.
func SARStartOptions(in SARInput) client.StartWorkflowOptions {
	return workflows.ProductStart(in.FilingID, workflows.QueueCases, "SAR submission "+in.FilingID, in.OrgID, "sar-filings", "")
}

// DeliveryResult is the regulator's answer to a delivery.
type DeliveryResult struct {
	Status    domain.SARStatus
	Reference string
	Reason    string
	Attempt   int
}

// AnswerInput records the regulator's answer.
type AnswerInput struct {
	OrgID, FilingID string
	Result          DeliveryResult
	At              time.Time
	Event           workflows.PublishEventInput
}

// OverdueInput records a case's missed due date.
type OverdueInput struct {
	OrgID, CaseID string
	DueAt, At     time.Time
}
