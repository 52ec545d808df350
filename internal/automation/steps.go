package automation

// Application error types of the activities that run model steps: the workflows' retry
// policies read them (the workflow engine owns retries; the provider client makes one try).
const (
	// ErrTypeFinal: the step cannot succeed as it is (ai not configured, an answer that
	// broke its schema twice, the daily budget used up, a 4xx, unusable material). Not retried.
	ErrTypeFinal = "AIFinal"
	// ErrTypeRateLimited: a 429; the error's next retry delay is the provider's Retry-After.
	ErrTypeRateLimited = "AIRateLimited"
	// ErrTypeProvider: a temporary provider failure (5xx, timeout, connection). Retried.
	ErrTypeProvider = "AIProvider"
)

// MaxActivityAttempts is the activity attempts of a model step.
const MaxActivityAttempts = 4

// StepFailure is the detail of a model step activity's errors: the attempt that failed.
type StepFailure struct {
	Attempt int
}
