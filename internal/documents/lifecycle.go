package documents

import "github.com/svcplatform/svc/internal/statemachine"

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

// Lifecycle is the document's transition table: the pipeline's moves, then an analyst's
// corrections. The store's conditional writes move a row only along it.
var Lifecycle = statemachine.New("document", StatusUploaded,
	[]Status{StatusUploaded, StatusProcessing, StatusPasswordRequired, StatusExtracted, StatusRequiresReview, StatusFailed},
	statemachine.Move[Status]{From: StatusUploaded, To: StatusProcessing, By: "the pipeline accepts it"},
	statemachine.Move[Status]{From: StatusUploaded, To: StatusFailed, By: "run ended before it began"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusPasswordRequired, By: "encrypted PDF, no or a wrong password"},
	statemachine.Move[Status]{From: StatusPasswordRequired, To: StatusProcessing, By: "password given"},
	statemachine.Move[Status]{From: StatusPasswordRequired, To: StatusFailed, By: "password timeout, or run terminated"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusExtracted, By: "confident extraction"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusRequiresReview, By: "below the threshold, or flagged"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusFailed, By: "a stage failed"},
	statemachine.Move[Status]{From: StatusExtracted, To: StatusExtracted, By: "correction"},
	statemachine.Move[Status]{From: StatusExtracted, To: StatusRequiresReview, By: "correction"},
	statemachine.Move[Status]{From: StatusRequiresReview, To: StatusExtracted, By: "correction"},
	statemachine.Move[Status]{From: StatusRequiresReview, To: StatusRequiresReview, By: "correction"},
)
