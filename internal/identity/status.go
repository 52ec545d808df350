package identity

import "github.com/svcplatform/svc/internal/statemachine"

// Status is a verification's state.
type Status string

// The verification states (Stripe Identity's session states, Veriff's resubmission).
const (
	StatusRequiresInput         Status = "requires_input"
	StatusProcessing            Status = "processing"
	StatusVerified              Status = "verified"
	StatusRejected              Status = "rejected"
	StatusReview                Status = "review"
	StatusResubmissionRequested Status = "resubmission_requested"
	StatusExpired               Status = "expired"
)

// Table is the one transition table of a verification. resubmission_requested waits for
// input like requires_input; only the states that wait for input expire.
var Table = statemachine.New("identity verification", StatusRequiresInput,
	[]Status{StatusRequiresInput, StatusProcessing, StatusVerified, StatusRejected, StatusReview, StatusResubmissionRequested, StatusExpired},
	statemachine.Move[Status]{From: StatusRequiresInput, To: StatusProcessing, By: "attempt submitted"},
	statemachine.Move[Status]{From: StatusResubmissionRequested, To: StatusProcessing, By: "attempt submitted"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusVerified, By: "all required checks passed"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusRejected, By: "hard failure, no attempts left"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusResubmissionRequested, By: "hard failure, attempts left"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusReview, By: "doubtful"},
	statemachine.Move[Status]{From: StatusReview, To: StatusVerified, By: "reviewer approves"},
	statemachine.Move[Status]{From: StatusReview, To: StatusRejected, By: "reviewer rejects"},
	statemachine.Move[Status]{From: StatusReview, To: StatusResubmissionRequested, By: "reviewer asks for a new document"},
	statemachine.Move[Status]{From: StatusRequiresInput, To: StatusExpired, By: "time to complete elapsed"},
	statemachine.Move[Status]{From: StatusResubmissionRequested, To: StatusExpired, By: "time to complete elapsed"},
)

// AwaitsInput reports whether a verification in s accepts a new attempt.
func (s Status) AwaitsInput() bool {
	return s == StatusRequiresInput || s == StatusResubmissionRequested
}

// Terminal reports whether nothing moves a verification out of s.
func (s Status) Terminal() bool { return Table.Terminal(s) }
