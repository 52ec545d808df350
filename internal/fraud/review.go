package fraud

import (
	"encoding/json"

	"github.com/svcplatform/svc/internal/statemachine"
)

// ReviewStatus is where a decision stands with its human review.
type ReviewStatus string

// The review states of a decision.
const (
	// ReviewNotRequired is an approve or decline decision: nobody reviews it.
	ReviewNotRequired ReviewStatus = "not_required"
	// ReviewPending is a review or block_and_review decision waiting for a person.
	ReviewPending  ReviewStatus = "pending"
	ReviewApproved ReviewStatus = "approved"
	ReviewDeclined ReviewStatus = "declined"
)

// Reviews is the one transition table of decision reviews (POST /api/decisions/{id}/review).
var Reviews = statemachine.New("decision review", ReviewPending,
	[]ReviewStatus{ReviewPending, ReviewApproved, ReviewDeclined, ReviewNotRequired},
	statemachine.Move[ReviewStatus]{From: ReviewPending, To: ReviewApproved, By: "POST /api/decisions/{id}/review approve"},
	statemachine.Move[ReviewStatus]{From: ReviewPending, To: ReviewDeclined, By: "POST /api/decisions/{id}/review decline"},
)

// InitialReview is the review state of a new decision with this outcome.
func InitialReview(o Outcome) ReviewStatus {
	if o.RaisesAlert() {
		return ReviewPending
	}
	return ReviewNotRequired
}

// ReviewRequest is the body of POST /api/decisions/{id}/review.
type ReviewRequest struct {
	// To is the state the review moves the decision to.
	To   ReviewStatus
	Note string
}

// ParseReview reads {decision: approve | decline, note?}.
func ParseReview(raw []byte) (*ReviewRequest, error) {
	p := parser{}
	top := p.object(raw, "")
	if top == nil {
		return nil, p.err.orNil()
	}
	req := &ReviewRequest{}
	for key, val := range top {
		switch key {
		case "decision":
			var s string
			_ = json.Unmarshal(val, &s)
			switch s {
			case "approve":
				req.To = ReviewApproved
			case "decline":
				req.To = ReviewDeclined
			default:
				p.err.add(key, "must be approve or decline")
			}
		case "note":
			req.Note = p.text(val, key, 2000)
		default:
			p.err.add(key, "unknown field")
		}
	}
	if _, ok := top["decision"]; !ok {
		p.err.add("decision", "is required")
	}
	if err := p.err.orNil(); err != nil {
		return nil, err
	}
	return req, nil
}
