package screening

import "github.com/svcplatform/svc/internal/statemachine"

// Decision is where a hit's review stands: unresolved until a reviewer resolves it as a
// false positive or a true match, once.
type Decision string

// The states of a hit's review.
const (
	Unresolved    Decision = "unresolved"
	FalsePositive Decision = "false_positive"
	TrueMatch     Decision = "true_match"
)

// Valid reports whether d is a decision a reviewer can take.
func (d Decision) Valid() bool { return d == FalsePositive || d == TrueMatch }

// HitReviews is the hit review's transition table: a decision is final (a changed list
// record raises a new hit instead of reopening the old one).
var HitReviews = statemachine.New("screening hit", Unresolved, []Decision{Unresolved, FalsePositive, TrueMatch},
	statemachine.Move[Decision]{From: Unresolved, To: FalsePositive, By: "POST /api/screenings/{id}/hits/{hitId}/resolve"},
	statemachine.Move[Decision]{From: Unresolved, To: TrueMatch, By: "POST /api/screenings/{id}/hits/{hitId}/resolve"},
)

// Suppression remembers that a hit on an entity was a false positive for one customer. It
// holds while the entity's record is unchanged: a changed record (new alias, new birth
// date) deserves a fresh look, so the stored hash must equal the current one.
type Suppression struct {
	CustomerID string `json:"customerId"`
	ListID     string `json:"listId"`
	EntityID   string `json:"entityId"`
	EntityHash string `json:"entityHash"`
}

// SuppressionKey identifies a suppression regardless of the entity's version.
func SuppressionKey(customerID, listID, entityID string) string {
	return customerID + "\x00" + listID + "\x00" + entityID
}

// Suppressions is the set of a customer's remembered false positives, by SuppressionKey.
type Suppressions map[string]Suppression

// Filter splits hits into those still to review and those suppressed by a remembered
// false positive on the same, unchanged entity record.
func (s Suppressions) Filter(customerID string, hits []Hit) (keep, suppressed []Hit) {
	for _, h := range hits {
		sup, ok := s[SuppressionKey(customerID, h.ListID, h.EntityID)]
		if ok && h.Entity != nil && sup.EntityHash == EntityHash(h.Entity) {
			suppressed = append(suppressed, h)
			continue
		}
		keep = append(keep, h)
	}
	return keep, suppressed
}

// Screening statuses: clear, or a potential match while a hit is left to review.
const (
	StatusClear          = "clear"
	StatusPotentialMatch = "potential_match"
)

// What ran a screening.
const (
	TriggerAPI        = "api"
	TriggerMonitoring = "monitoring"
)
