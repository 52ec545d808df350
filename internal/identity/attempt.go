package identity

import (
	"context"

	"github.com/svcplatform/svc/internal/statemachine"
)

// AttemptStatus is an attempt's state.
type AttemptStatus string

// The attempt states: processing while the document is read and checked, completed with an
// outcome, failed when the document could not be processed at all (the engine's programs
// failing past their retries; the verification then asks for a new attempt).
const (
	AttemptProcessing AttemptStatus = "processing"
	AttemptCompleted  AttemptStatus = "completed"
	AttemptFailed     AttemptStatus = "failed"
)

// AttemptTable is the one transition table of an attempt.
var AttemptTable = statemachine.New("identity attempt", AttemptProcessing,
	[]AttemptStatus{AttemptProcessing, AttemptCompleted, AttemptFailed},
	statemachine.Move[AttemptStatus]{From: AttemptProcessing, To: AttemptCompleted, By: "checks decided"},
	statemachine.Move[AttemptStatus]{From: AttemptProcessing, To: AttemptFailed, By: "document could not be processed"},
)

// ScreeningRequest asks to screen the person of one attempt.
type ScreeningRequest struct {
	OrgID          string
	VerificationID string
	// AttemptNumber and VerificationID key the screening, so that a retried attempt does not
	// screen twice.
	AttemptNumber int
	FullName      string
	// BirthDate is YYYY-MM-DD; it qualifies the screening's score.
	BirthDate  string
	CustomerID string
}

// Screener screens a person against sanctions and PEP lists on behalf of an organisation:
// the seam to the screening product, called with a service principal key (SPEC 5.6,
// callerServiceSlug identity). A deployment without the screening product has none; a
// policy that requires screening then sends its verifications to review with
// screening_unavailable.
type Screener interface {
	Screen(ctx context.Context, r ScreeningRequest) (ScreeningOutcome, error)
}
