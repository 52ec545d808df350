package screening

// Decision is a reviewer's resolution of a hit.
type Decision string

// The decisions a reviewer can take on a hit.
const (
	FalsePositive Decision = "false_positive"
	TrueMatch     Decision = "true_match"
)

// Valid reports whether d is a known decision.
func (d Decision) Valid() bool { return d == FalsePositive || d == TrueMatch }

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
