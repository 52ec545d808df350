package orchestration

// Execution states (SPEC 3.1): pending → running → succeeded | failed | cancelled; the moves
// are the table Executions (states.go).
const (
	ExecutionPending   ExecutionStatus = "pending"
	ExecutionRunning   ExecutionStatus = "running"
	ExecutionSucceeded ExecutionStatus = "succeeded"
	ExecutionFailed    ExecutionStatus = "failed"
	ExecutionCancelled ExecutionStatus = "cancelled"
)

// ExecutionStatus is an execution's state.
type ExecutionStatus string

// StepStatus is a step's state.
type StepStatus string

// ApprovalStatus is a human approval's state.
type ApprovalStatus string

// Step states: running → succeeded | failed | cancelled. Nodes evaluated in workflow code
// (transform, condition) are recorded once, already finished.
const (
	StepRunning   StepStatus = "running"
	StepSucceeded StepStatus = "succeeded"
	StepFailed    StepStatus = "failed"
	StepCancelled StepStatus = "cancelled"
)

// Approval states: pending → approved | rejected (by a person, or by a timeout) | cancelled
// (the execution was cancelled while it waited).
const (
	ApprovalPending   ApprovalStatus = "pending"
	ApprovalApproved  ApprovalStatus = "approved"
	ApprovalRejected  ApprovalStatus = "rejected"
	ApprovalCancelled ApprovalStatus = "cancelled"
)

// DecisionState is the approval state a decision leads to ("" for an unknown decision).
func DecisionState(decision string) ApprovalStatus {
	switch decision {
	case DecisionApprove:
		return ApprovalApproved
	case DecisionReject:
		return ApprovalRejected
	}
	return ""
}
