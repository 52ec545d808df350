package statements

import "github.com/svcplatform/svc/internal/statemachine"

// The working states of an analysis (the outcomes are in analyze.go): uploaded when its
// files are stored, processing while the pipeline runs.
const (
	StatusUploaded   Status = "uploaded"
	StatusProcessing Status = "processing"
)

// Statuses lists every analysis status, in pipeline order.
func Statuses() []Status {
	return []Status{StatusUploaded, StatusProcessing, StatusPasswordRequired, StatusCompleted, StatusRequiresReview, StatusFailed}
}

// Correctable reports whether an analyst may correct the transactions of an analysis in
// status s: once the pipeline has decided it.
func (s Status) Correctable() bool { return s == StatusCompleted || s == StatusRequiresReview }

// Lifecycle is the analysis's transition table: the pipeline's moves, then an analyst's
// corrections (a new version, decided again). The store's conditional writes move a row
// only along it.
var Lifecycle = statemachine.New("analysis", StatusUploaded, Statuses(),
	statemachine.Move[Status]{From: StatusUploaded, To: StatusProcessing, By: "the pipeline accepts it"},
	statemachine.Move[Status]{From: StatusUploaded, To: StatusFailed, By: "run ended before it began"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusPasswordRequired, By: "encrypted PDF, no or a wrong password"},
	statemachine.Move[Status]{From: StatusPasswordRequired, To: StatusProcessing, By: "password given"},
	statemachine.Move[Status]{From: StatusPasswordRequired, To: StatusFailed, By: "password timeout, or run terminated"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusCompleted, By: "reconciled, low risk"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusRequiresReview, By: "reconciliation failed, tamper risk or low OCR confidence"},
	statemachine.Move[Status]{From: StatusProcessing, To: StatusFailed, By: "a stage failed"},
	statemachine.Move[Status]{From: StatusCompleted, To: StatusCompleted, By: "correction"},
	statemachine.Move[Status]{From: StatusCompleted, To: StatusRequiresReview, By: "correction"},
	statemachine.Move[Status]{From: StatusRequiresReview, To: StatusCompleted, By: "correction"},
	statemachine.Move[Status]{From: StatusRequiresReview, To: StatusRequiresReview, By: "correction"},
)
