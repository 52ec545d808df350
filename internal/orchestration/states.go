package orchestration

import "github.com/svcplatform/svc/internal/statemachine"

// Executions is the execution's transition table (SPEC 3.1): the store's conditional writes
// move a row only from a state the table allows, and the cancel endpoint's 409 comes from it.
var Executions = statemachine.New("execution", ExecutionPending,
	[]ExecutionStatus{ExecutionPending, ExecutionRunning, ExecutionSucceeded, ExecutionFailed, ExecutionCancelled},
	statemachine.Move[ExecutionStatus]{From: ExecutionPending, To: ExecutionRunning, By: "its run starts"},
	statemachine.Move[ExecutionStatus]{From: ExecutionPending, To: ExecutionFailed, By: "run ended before its first step"},
	statemachine.Move[ExecutionStatus]{From: ExecutionPending, To: ExecutionCancelled, By: "cancel"},
	statemachine.Move[ExecutionStatus]{From: ExecutionRunning, To: ExecutionSucceeded, By: "last node done"},
	statemachine.Move[ExecutionStatus]{From: ExecutionRunning, To: ExecutionFailed, By: "a node failed, or the run was terminated"},
	statemachine.Move[ExecutionStatus]{From: ExecutionRunning, To: ExecutionCancelled, By: "cancel"},
)

// Steps is a step's transition table. A retried http node stays running with one more
// attempt; nodes evaluated in workflow code (transform, condition) are stored already finished.
var Steps = statemachine.New("step", StepRunning,
	[]StepStatus{StepRunning, StepSucceeded, StepFailed, StepCancelled},
	statemachine.Move[StepStatus]{From: StepRunning, To: StepRunning, By: "another attempt"},
	statemachine.Move[StepStatus]{From: StepRunning, To: StepSucceeded, By: "node done"},
	statemachine.Move[StepStatus]{From: StepRunning, To: StepFailed, By: "node failed"},
	statemachine.Move[StepStatus]{From: StepRunning, To: StepCancelled, By: "execution cancelled"},
)

// Approvals is a human approval's transition table (SPEC 3.1, 5.5): decided once.
var Approvals = statemachine.New("approval", ApprovalPending,
	[]ApprovalStatus{ApprovalPending, ApprovalApproved, ApprovalRejected, ApprovalCancelled},
	statemachine.Move[ApprovalStatus]{From: ApprovalPending, To: ApprovalApproved, By: "approve"},
	statemachine.Move[ApprovalStatus]{From: ApprovalPending, To: ApprovalRejected, By: "reject, or its timeout"},
	statemachine.Move[ApprovalStatus]{From: ApprovalPending, To: ApprovalCancelled, By: "execution cancelled"},
)
