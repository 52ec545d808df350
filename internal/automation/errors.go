package automation

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotConfigured is the error of every model step when no provider is configured
// (ai.base_url and ai.model unset): a step fails rather than invent an answer.
var ErrNotConfigured = errors.New("ai not configured")

// RateLimitedError is a 429 from the provider. RetryAfter is the wait it asked for (zero
// when it named none); the caller retries no earlier.
type RateLimitedError struct {
	RetryAfter time.Duration
}

// Error reads "ai provider rate limited (retry after 3s)".
func (e *RateLimitedError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("ai provider rate limited (retry after %s)", e.RetryAfter)
	}
	return "ai provider rate limited"
}

// ProviderError is any other failed exchange: an error status, a transport error, a
// timeout or an unreadable reply.
type ProviderError struct {
	// Status is the HTTP status, 0 when none was received.
	Status int
	// Temporary says whether trying again may succeed (5xx, 408, timeouts, connection
	// errors); 4xx such as a wrong key or an unknown model are final.
	Temporary bool
	// Msg says what happened, without the API key or the prompt.
	Msg string
}

// Error reads e.g. "ai provider: status 500: overloaded".
func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("ai provider: status %d: %s", e.Status, e.Msg)
	}
	return "ai provider: " + e.Msg
}

// InvalidAnswerError is a model answer that is not JSON or breaks the step's schema, twice
// in a row: the second try already carried the first problem in the conversation.
type InvalidAnswerError struct {
	// Reason is the last problem found.
	Reason string
}

// Error reads "ai answer invalid after 2 attempts: ...".
func (e *InvalidAnswerError) Error() string {
	return fmt.Sprintf("ai answer invalid after %d attempts: %s", MaxAnswerAttempts, e.Reason)
}

// BudgetExceededError refuses a model step once the organisation used its daily tokens.
type BudgetExceededError struct {
	OrgID string
	// Day is the UTC day, as 2006-01-02.
	Day   string
	Used  int64
	Limit int64
}

// Error reads "ai daily token budget exceeded: 1200 of 1000 tokens used on 2026-11-23".
func (e *BudgetExceededError) Error() string {
	return fmt.Sprintf("ai daily token budget exceeded: %d of %d tokens used on %s", e.Used, e.Limit, e.Day)
}

// Final reports whether err cannot succeed when tried again as it is: not configured,
// an invalid answer, an exhausted budget or a final provider error.
func Final(err error) bool {
	var pe *ProviderError
	var ie *InvalidAnswerError
	var be *BudgetExceededError
	var in *InputError
	switch {
	case errors.Is(err, ErrNotConfigured), errors.As(err, &ie), errors.As(err, &be), errors.As(err, &in):
		return true
	case errors.As(err, &pe):
		return !pe.Temporary
	}
	return false
}

// InputError is a step whose material cannot be used (an unknown document, a document type
// without fields, no case source): final, like a wrong request.
type InputError struct {
	Msg string
}

// Error returns the message as it is.
func (e *InputError) Error() string { return e.Msg }
