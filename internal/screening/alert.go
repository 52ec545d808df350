package screening

import (
	"context"
	"time"
)

// AlertStatus is where an alert stands; the cases product moves it on.
type AlertStatus string

// Alert statuses: open when raised, assigned once a case gathers it, closed with the case.
const (
	AlertOpen     AlertStatus = "open"
	AlertAssigned AlertStatus = "assigned"
	AlertClosed   AlertStatus = "closed"
)

// Alert is raised when monitoring finds a new, unresolved hit for a monitored customer
// (id prefix alr_). It is the screening side of the seam with the cases product: cases
// gathers open alerts into cases through AlertSource.
type Alert struct {
	ID          string      `json:"id"`
	OrgID       string      `json:"orgId"`
	CustomerID  string      `json:"customerId"`
	ScreeningID string      `json:"screeningId"`
	HitID       string      `json:"hitId"`
	ListID      string      `json:"listId"`
	EntityID    string      `json:"entityId"`
	EntityName  string      `json:"entityName"`
	Score       float64     `json:"score"`
	Reason      string      `json:"reason"` // list_update or customer_update
	Status      AlertStatus `json:"status"`
	CaseID      string      `json:"caseId,omitempty"`
	CreatedAt   time.Time   `json:"createdAt"`
}

// AlertSource is what the cases product needs from screening: the open alerts of an
// organisation, oldest first, and a way to mark them gathered into a case.
type AlertSource interface {
	// OpenAlerts lists up to limit open alerts of the organisation created after the cursor id.
	OpenAlerts(ctx context.Context, orgID, afterID string, limit int) ([]Alert, error)
	// AssignAlert marks an open alert as gathered into a case; assigning an alert that is
	// not open is a state conflict.
	AssignAlert(ctx context.Context, orgID, alertID, caseID string) error
}
