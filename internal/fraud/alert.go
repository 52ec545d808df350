package fraud

import (
	"context"
	"time"
)

// Alert is what a decision needing a person raises (outcomes review and block_and_review).
// The cases product gathers alerts into cases; until it exists they are kept as records.
type Alert struct {
	ID          string    `json:"id"`
	OrgID       string    `json:"orgId"`
	DecisionID  string    `json:"decisionId"`
	CustomerID  string    `json:"customerId"`
	Outcome     Outcome   `json:"outcome"`
	Score       int       `json:"score"`
	ReasonCodes []string  `json:"reasonCodes"`
	CreatedAt   time.Time `json:"createdAt"`
}

// AlertSink is the seam alerts leave the fraud product through. The store's implementation
// writes the alert in the decision's own database transaction, so a decision that needs a
// person never exists without its alert.
type AlertSink interface {
	RaiseAlert(ctx context.Context, a Alert) error
}
