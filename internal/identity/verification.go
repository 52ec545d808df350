package identity

import (
	"errors"
	"time"
)

// ErrNoAttemptsLeft is returned when an attempt or a resubmission would exceed the policy's
// maximum number of attempts.
var ErrNoAttemptsLeft = errors.New("no attempts left")

// Verification is the state a verification's moves depend on.
type Verification struct {
	Status Status
	Policy Policy
	// Attempts is how many attempts were submitted.
	Attempts int
	// ExpiresAt is when a verification still waiting for input expires.
	ExpiresAt time.Time
}

// New returns a verification created at now, waiting for its first attempt.
func New(p Policy, now time.Time) Verification {
	p = p.WithDefaults()
	return Verification{Status: Table.Initial(), Policy: p, ExpiresAt: now.Add(p.TimeToComplete())}
}

// AttemptsLeft is how many more attempts the policy allows.
func (v Verification) AttemptsLeft() int {
	return max(0, v.Policy.WithDefaults().MaxAttempts-v.Attempts)
}

// Submit moves the verification to processing for a new attempt and returns its number.
func (v *Verification) Submit() (int, error) {
	if err := Table.Check(v.Status, StatusProcessing); err != nil {
		return 0, err
	}
	if v.AttemptsLeft() == 0 {
		return 0, ErrNoAttemptsLeft
	}
	v.Attempts++
	v.Status = StatusProcessing
	return v.Attempts, nil
}

// Complete applies an attempt's outcome.
func (v *Verification) Complete(o Outcome) error {
	if err := Table.Check(v.Status, o.Status); err != nil {
		return err
	}
	v.Status = o.Status
	return nil
}

// Expire moves a verification still waiting for input to expired once its time is up.
func (v *Verification) Expire(now time.Time) error {
	if err := Table.Check(v.Status, StatusExpired); err != nil {
		return err
	}
	if now.Before(v.ExpiresAt) {
		return errors.New("verification has not reached its expiry time")
	}
	v.Status = StatusExpired
	return nil
}

// ReviewDecision is a reviewer's decision on a verification in review.
type ReviewDecision string

// The reviewer's decisions.
const (
	DecisionApprove             ReviewDecision = "approve"
	DecisionReject              ReviewDecision = "reject"
	DecisionRequestResubmission ReviewDecision = "request_resubmission"
)

// ReviewDecisions lists the valid decisions.
func ReviewDecisions() []ReviewDecision {
	return []ReviewDecision{DecisionApprove, DecisionReject, DecisionRequestResubmission}
}

// Target is the state a decision moves a verification to ("" for an unknown decision).
func (d ReviewDecision) Target() Status {
	switch d {
	case DecisionApprove:
		return StatusVerified
	case DecisionReject:
		return StatusRejected
	case DecisionRequestResubmission:
		return StatusResubmissionRequested
	}
	return ""
}

// Review applies a reviewer's decision; a resubmission needs an attempt left.
func (v *Verification) Review(d ReviewDecision) error {
	to := d.Target()
	if to == "" {
		return errors.New("unknown review decision " + string(d))
	}
	if err := Table.Check(v.Status, to); err != nil {
		return err
	}
	if to == StatusResubmissionRequested && v.AttemptsLeft() == 0 {
		return ErrNoAttemptsLeft
	}
	v.Status = to
	return nil
}
