package orchestration

import (
	"encoding/json"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"

	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/workflows"
)

// Names of the Execution workflow, its messages and its activities (methods of
// activities/orchestration.Activities, registered under their method names).
const (
	// ExecutionWorkflowName is the registered name of the Execution workflow.
	ExecutionWorkflowName = "Execution"
	// UpdateResolveApproval is the Update that approves or rejects a pending approval.
	UpdateResolveApproval = "resolve-approval"
	// SignalCancelRequest carries the reason and actor of a cancellation; the API sends
	// it just before it cancels the workflow (client.CancelWorkflow).
	SignalCancelRequest = "cancel-request"

	ActivityMarkRunning     = "MarkRunning"
	ActivityLoadDefinition  = "LoadDefinition"
	ActivityRecordStep      = "RecordStep"
	ActivityRunHTTPNode     = "RunHTTPNode"
	ActivityRecordApproval  = "RecordApproval"
	ActivityResolveApproval = "ResolveApproval"
	ActivityFinishExecution = "FinishExecution"
)

// ExecutionInput starts one execution: ids and the version to run, not the definition,
// which the LoadDefinition activity reads from the store (inputs by reference; Temporal
// refuses payloads over 2 MB).
type ExecutionInput struct {
	ExecutionID     string         `json:"executionId"`
	OrgID           string         `json:"orgId"`
	WorkflowID      string         `json:"workflowId"`
	WorkflowSlug    string         `json:"workflowSlug"`
	WorkflowVersion int            `json:"workflowVersion"`
	ExternalID      string         `json:"externalId,omitempty"`
	StartedBy       string         `json:"startedBy,omitempty"`
	Inputs          map[string]any `json:"inputs"`
}

// ExecutionResult is what a succeeded execution returns.
type ExecutionResult struct {
	Status orch.ExecutionStatus `json:"status"`
	Output any                  `json:"output"`
}

// ExecutionStartOptions are the options the API starts an execution with: workflow id =
// execution id (a retried start returns the same run), the orchestration queue and the
// search attributes OrgId, WorkflowSlug and ExternalId.
func ExecutionStartOptions(in ExecutionInput) client.StartWorkflowOptions {
	summary := in.WorkflowSlug + " v" + strconv.Itoa(in.WorkflowVersion)
	return workflows.ProductStart(in.ExecutionID, workflows.QueueOrchestration, summary, in.OrgID, in.WorkflowSlug, in.ExternalID)
}

// MarkRunningInput moves an execution to running and publishes workflow.execution.started.
type MarkRunningInput struct {
	Execution ExecutionInput
	StartedAt time.Time
	Event     workflows.PublishEventInput
}

// LoadDefinitionInput names the definition version an execution runs.
type LoadDefinitionInput struct {
	OrgID      string
	WorkflowID string
	Version    int
}

// StepRecord is the state of one step (stp_ id), written by RecordStep; a finished step
// carries its workflow.step.completed or workflow.step.failed event.
type StepRecord struct {
	StepID      string
	OrgID       string
	ExecutionID string
	NodeID      string
	Kind        string
	Status      orch.StepStatus
	Attempts    int
	Output      any
	Error       string
	StartedAt   time.Time
	CompletedAt *time.Time
	Event       *workflows.PublishEventInput
}

// HTTPResult is what RunHTTPNode returns: the response and the attempt that got it.
type HTTPResult struct {
	Response orch.HTTPResponse
	Attempt  int
}

// HTTPFailure is the detail of RunHTTPNode's errors: the attempt that failed and the
// response status, if one came.
type HTTPFailure struct {
	Attempt int
	Status  int
}

// ApprovalRecord is a new pending approval (apr_ id) with its
// workflow.human_approval_pending event.
type ApprovalRecord struct {
	ApprovalID  string
	StepID      string
	OrgID       string
	ExecutionID string
	NodeID      string
	ActionLabel string
	AssignTo    string
	Data        map[string]any
	StartedBy   string
	CreatedAt   time.Time
	ExpiresAt   *time.Time
	Event       workflows.PublishEventInput
}

// ApprovalDecision records how a pending approval ended.
type ApprovalDecision struct {
	ApprovalID string
	OrgID      string
	Status     orch.ApprovalStatus
	DecidedBy  string
	Comment    string
	DecidedAt  time.Time
	TimedOut   bool
}

// FinishInput moves an execution to its terminal state and publishes its terminal event.
type FinishInput struct {
	ExecutionID  string
	OrgID        string
	Status       orch.ExecutionStatus
	Output       any
	FailedStepID string
	ErrorMessage string
	Reason       string
	ActorUserID  string
	CompletedAt  time.Time
	Event        workflows.PublishEventInput
}

// ResolveApprovalRequest is the argument of the resolve-approval Update. The API sends it
// with UpdateID = approval id + ":" + actor + ":" + decision, so a retried call is one
// update, while another reviewer's call is validated (and refused as already decided).
type ResolveApprovalRequest struct {
	// ApprovalID (apr_) or StepID (stp_) names the approval; one is enough.
	ApprovalID  string   `json:"approvalId,omitempty"`
	StepID      string   `json:"stepId,omitempty"`
	Decision    string   `json:"decision"`
	ActorUserID string   `json:"actorUserId"`
	ActorRoles  []string `json:"actorRoles"`
	Comment     string   `json:"comment,omitempty"`
}

// ApprovalResult is the resolved approval the Update returns.
type ApprovalResult struct {
	ApprovalID  string              `json:"approvalId"`
	StepID      string              `json:"stepId"`
	ExecutionID string              `json:"executionId"`
	NodeID      string              `json:"nodeId"`
	Status      orch.ApprovalStatus `json:"status"`
	DecidedBy   string              `json:"decidedBy,omitempty"`
	Comment     string              `json:"comment,omitempty"`
	DecidedAt   time.Time           `json:"decidedAt"`
}

// CancelRequest is the payload of the cancel-request signal.
type CancelRequest struct {
	Reason      string `json:"reason,omitempty"`
	ActorUserID string `json:"actorUserId,omitempty"`
}

// approvalOutput is a human_approval step's output.
type approvalOutput struct {
	Decision    string `json:"decision"`
	ActorUserID string `json:"actorUserId,omitempty"`
	Comment     string `json:"comment,omitempty"`
	TimedOut    bool   `json:"timedOut"`
}

// jsonValue turns a typed value into plain JSON values, as expressions see step outputs.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}
