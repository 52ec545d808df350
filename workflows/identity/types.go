// Package identity holds the identity-verification workflows (verification, retention).
package identity

import (
	"time"

	"go.temporal.io/sdk/client"

	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/workflows"
)

// Names of the identity workflows, their signal, Update and activities (methods of
// activities/identity.Activities, registered under their method names).
const (
	// VerificationName is the registered name of the Verification workflow.
	VerificationName = "IdentityVerification"
	// WorkflowSlug is the WorkflowSlug search attribute of identity runs.
	WorkflowSlug = "identity-verification"
	// SignalAttempt tells a verification that the API stored an attempt for it.
	SignalAttempt = "identity-attempt"
	// UpdateReview carries a reviewer's decision on a verification in review.
	UpdateReview = "identity-review"

	ActivityReadDocument = "ReadIdentityDocument"
	ActivityEvaluate     = "EvaluateIdentityAttempt"
	ActivityExpire       = "ExpireIdentityVerification"
	ActivityReview       = "ReviewIdentityVerification"
)

// VerificationInput starts a verification's workflow (its id is the verification's idv_ id).
// It holds ids and times only: the claimed data stays in the store.
type VerificationInput struct {
	OrgID          string
	VerificationID string
	CustomerID     string
	Reference      string
	ExternalID     string
	ExpiresAt      time.Time
	// MaxAttempts is the policy's cap (a reviewer cannot ask for a resubmission past it).
	MaxAttempts int
}

// StartOptions are the options of a verification's idempotent start.
func StartOptions(in VerificationInput) client.StartWorkflowOptions {
	return workflows.ProductStart(in.VerificationID, workflows.QueueIdentity, "Identity verification "+in.VerificationID,
		in.OrgID, WorkflowSlug, in.ExternalID)
}

// AttemptSignal is the SignalAttempt payload: the attempt the API stored (and moved the
// verification to processing for).
type AttemptSignal struct {
	AttemptID string
	Number    int
}

// AttemptRef names one attempt of a verification.
type AttemptRef struct {
	OrgID          string
	VerificationID string
	AttemptID      string
	Number         int
}

// ReadResult is what reading an attempt's document left in the history: no personal data
// (the extracted fields are stored with the attempt).
type ReadResult struct {
	Readable bool
	Type     string
}

// EvaluateInput asks the activity to run the checks on a read attempt and decide.
type EvaluateInput struct {
	Ref AttemptRef
	// ReadFailed is set when the document could not be read at all (the engine's programs
	// failed past their retries): the attempt fails and the person is asked for a new one.
	ReadFailed bool
	// Now is the workflow time of the attempt (age and expiry are judged on its date).
	Now time.Time
}

// EvaluateResult is the decision of an attempt and the verification's state after it.
type EvaluateResult struct {
	AttemptStatus idv.AttemptStatus
	Outcome       idv.Outcome
	Checks        []idv.CheckResult
	// Applied is false when the verification had left processing (it was not moved).
	Applied bool
}

// ExpireInput asks the activity to expire a verification still waiting for input.
type ExpireInput struct {
	OrgID          string
	VerificationID string
	Now            time.Time
}

// ReviewRequest is the UpdateReview payload: the decision of a reviewer bound to a user.
type ReviewRequest struct {
	Decision    idv.ReviewDecision
	ActorUserID string
	APIKeyID    string
	Comment     string
}

// ReviewInput asks the activity to record a reviewer's decision.
type ReviewInput struct {
	OrgID          string
	VerificationID string
	Request        ReviewRequest
	Now            time.Time
}

// ReviewResult is the answer of UpdateReview: the verification's new state.
type ReviewResult struct {
	Status idv.Status `json:"status"`
}

// Retention names: the workflow the retention Schedule starts, and its activity.
const (
	// RetentionName is the registered name of the Retention workflow.
	RetentionName = "IdentityRetention"
	// RetentionScheduleID is the Temporal Schedule that runs it (config identity.purge_every).
	RetentionScheduleID = "identity-retention"
	// ActivityPurge is the registered name of the purge activity.
	ActivityPurge = "PurgeIdentityData"
	// PurgeBatch is how many attempts one purge activity handles.
	PurgeBatch = 200
)

// RetentionInput is the Retention workflow's input: how long personal data is kept.
type RetentionInput struct {
	Retention time.Duration
}

// PurgeInput asks the activity to delete the personal data of at most Limit attempts that
// completed before Before.
type PurgeInput struct {
	Before time.Time
	Limit  int
}

// PurgeResult counts what a purge deleted.
type PurgeResult struct {
	Attempts int
	Images   int
}
