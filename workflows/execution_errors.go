package workflows

import (
	"errors"
	"fmt"
	"net/http"

	"go.temporal.io/sdk/temporal"
)

// Application error types of the Execution workflow and its activities. The resolve-approval
// Update's validator answers with the first five; UpdateErrorStatus maps them to HTTP.
const (
	// ErrTypeNotFound: the approval is not one of this execution's (404).
	ErrTypeNotFound = "NotFound"
	// ErrTypeStateConflict: the approval is already decided (409); details hold a StateConflict.
	ErrTypeStateConflict = "StateConflict"
	// ErrTypeForbidden: the actor does not hold the role (or is not the user) named by assignTo (403).
	ErrTypeForbidden = "Forbidden"
	// ErrTypeFourEyes: the actor started the execution (422).
	ErrTypeFourEyes = "FourEyesViolation"
	// ErrTypeInvalidArgument: the request is malformed, e.g. an unknown decision (400).
	ErrTypeInvalidArgument = "InvalidArgument"

	// ErrTypeExecutionFailed is the error an execution that failed ends with.
	ErrTypeExecutionFailed = "ExecutionFailed"
	// ErrTypeDefinitionNotFound: LoadDefinition found no such workflow version (not retried).
	ErrTypeDefinitionNotFound = "DefinitionNotFound"
	// ErrTypeHTTPStatus: an http node got a status worth retrying (408, 425, 429, 5xx).
	ErrTypeHTTPStatus = "HTTPStatus"
	// ErrTypeHTTPStatusFinal: an http node got a status not worth retrying (3xx, other 4xx).
	ErrTypeHTTPStatusFinal = "HTTPStatusFinal"
	// ErrTypeHTTPTransport: an http node's request did not get an answer (retried).
	ErrTypeHTTPTransport = "HTTPTransport"
	// ErrTypeHTTPInvalid: an http node's request cannot be made or its answer not used (not retried).
	ErrTypeHTTPInvalid = "HTTPInvalid"
)

// FourEyesMessage is the SPEC 7.3 message of a self-approval.
const FourEyesMessage = "four-eyes violation: drafter cannot submit"

// StateConflict is the detail of an ErrTypeStateConflict error: the rejected move.
type StateConflict struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// stateConflictError is the validator's answer to resolving a decided approval.
func stateConflictError(from, to string) error {
	return temporal.NewApplicationErrorWithOptions(
		fmt.Sprintf("state conflict: cannot transition %s → %s", from, to), ErrTypeStateConflict,
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{StateConflict{From: from, To: to}}})
}

func rejectUpdate(errType, msg string) error {
	return temporal.NewApplicationErrorWithOptions(msg, errType, temporal.ApplicationErrorOptions{NonRetryable: true})
}

// UpdateErrorStatus maps an error of the resolve-approval Update to the HTTP status the
// API answers with, and its message; ok is false for other errors (a 500, or a run that
// has ended, which the API answers from the stored approval).
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
