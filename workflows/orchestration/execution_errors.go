package orchestration

// Application error types of the Execution workflow and its activities (the resolve-approval
// Update's validator answers with the shared ones of package workflows).
const (
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
