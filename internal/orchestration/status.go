package orchestration

// Execution states (SPEC 3.1): pending → running → succeeded | failed | cancelled; the moves
// are the table Executions (states.go).
const (
	ExecutionPending   = "pending"
	ExecutionRunning   = "running"
	ExecutionSucceeded = "succeeded"
	ExecutionFailed    = "failed"
	ExecutionCancelled = "cancelled"
)

// Step states: running → succeeded | failed | cancelled. Nodes evaluated in workflow code
// (transform, condition) are recorded once, already finished.
const (
	StepRunning   = "running"
	StepSucceeded = "succeeded"
	StepFailed    = "failed"
	StepCancelled = "cancelled"
)

// Approval states: pending → approved | rejected (by a person, or by a timeout) | cancelled
// (the execution was cancelled while it waited).
const (
	ApprovalPending   = "pending"
	ApprovalApproved  = "approved"
	ApprovalRejected  = "rejected"
	ApprovalCancelled = "cancelled"
)

// DecisionState is the approval state a decision leads to ("" for an unknown decision).
func DecisionState(decision string) string {
	switch decision {
	case DecisionApprove:
		return ApprovalApproved
	case DecisionReject:
		return ApprovalRejected
	}
	return ""
}
