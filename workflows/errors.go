package workflows

import (
	"errors"
	"fmt"
	"net/http"

	"go.temporal.io/sdk/temporal"
)

// Application error types with which an Update validator or a workflow refuses a request;
// UpdateErrorStatus maps them to HTTP (every product's Updates use them).
const (
	// ErrTypeNotFound: the thing named is not this run's (404).
	ErrTypeNotFound = "NotFound"
	// ErrTypeStateConflict: the record is not in a state that allows the move (409); details
	// hold a StateConflict.
	ErrTypeStateConflict = "StateConflict"
	// ErrTypeForbidden: the actor does not hold the role (or is not the user) required (403).
	ErrTypeForbidden = "Forbidden"
	// ErrTypeFourEyes: the actor started what they are asked to approve (422).
	ErrTypeFourEyes = "FourEyesViolation"
	// ErrTypeInvalidArgument: the request is malformed, e.g. an unknown decision (400).
	ErrTypeInvalidArgument = "InvalidArgument"
)

// FourEyesMessage is the SPEC 7.3 message of a self-approval.
const FourEyesMessage = "four-eyes violation: drafter cannot submit"

// StateConflict is the detail of an ErrTypeStateConflict error: the rejected move.
type StateConflict struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// StateConflictError is the non-retryable error of a move from state from to state to that
// the state machine forbids (SPEC 3.5; the API answers 409).
func StateConflictError(from, to string) error {
	return temporal.NewApplicationErrorWithOptions(
		fmt.Sprintf("state conflict: cannot transition %s → %s", from, to), ErrTypeStateConflict,
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{StateConflict{From: from, To: to}}})
}

// RejectUpdate is the non-retryable error of errType with which a validator refuses an Update.
func RejectUpdate(errType, msg string) error {
	return temporal.NewApplicationErrorWithOptions(msg, errType, temporal.ApplicationErrorOptions{NonRetryable: true})
}

// UpdateErrorStatus maps an error of an Update (or of a run refused the same way) to the HTTP
// status the API answers with, and its message; ok is false for other errors (a 500, or a
// run that has ended, which the API answers from the stored record).
func UpdateErrorStatus(err error) (status int, msg string, ok bool) {
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) {
		return 0, "", false
	}
	switch ae.Type() {
	case ErrTypeNotFound:
		return http.StatusNotFound, ae.Message(), true
	case ErrTypeStateConflict:
		return http.StatusConflict, ae.Message(), true
	case ErrTypeForbidden:
		return http.StatusForbidden, ae.Message(), true
	case ErrTypeFourEyes:
		return http.StatusUnprocessableEntity, ae.Message(), true
	case ErrTypeInvalidArgument:
		return http.StatusBadRequest, ae.Message(), true
	}
	return 0, "", false
}
