package documents

// The other states of a document in the pipeline (SPEC 3.2 names extracted, requires_review
// and the events of password_required and failed). A document is uploaded when it is stored,
// processing while the pipeline runs, password_required while it waits for the password of
// an encrypted PDF, and ends extracted, requires_review or failed. A correction moves
// requires_review (or extracted) to extracted.
const (
	StatusUploaded         Status = "uploaded"
	StatusProcessing       Status = "processing"
	StatusPasswordRequired Status = "password_required"
	StatusFailed           Status = "failed"
)

// Statuses lists every document status, in pipeline order.
func Statuses() []Status {
	return []Status{StatusUploaded, StatusProcessing, StatusPasswordRequired, StatusExtracted, StatusRequiresReview, StatusFailed}
}

// Correctable reports whether an analyst may correct a document in status s: once the
// pipeline has produced an extraction.
func (s Status) Correctable() bool { return s == StatusExtracted || s == StatusRequiresReview }
