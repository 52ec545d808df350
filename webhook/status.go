package webhook

import "github.com/svcplatform/svc/internal/statemachine"

// DeliveryStatus is the state of one delivery (SPEC 2.4, 3.3).
type DeliveryStatus string

// Delivery statuses: pending until the first answer, failed between attempts,
// then delivered (a 2xx) or dropped (attempts exhausted, or a 410 Gone).
const (
	// StatusPending: no attempt has been answered yet.
	StatusPending DeliveryStatus = "pending"
	// StatusDelivered: a receiver answered 2xx; no further attempt.
	StatusDelivered DeliveryStatus = "delivered"
	// StatusFailed: the last attempt failed and another is scheduled.
	StatusFailed DeliveryStatus = "failed"
	// StatusDropped: no further attempt will be made.
	StatusDropped DeliveryStatus = "dropped"
)

// Final reports whether no further attempt follows this status.
func (s DeliveryStatus) Final() bool { return Deliveries.Terminal(s) }

// Deliveries is a delivery's transition table: the store records an attempt or a drop only
// along it, so a late or retried write never reopens a delivered or dropped one. A redelivery
// is a new delivery.
var Deliveries = statemachine.New("webhook delivery", StatusPending,
	[]DeliveryStatus{StatusPending, StatusFailed, StatusDelivered, StatusDropped},
	statemachine.Move[DeliveryStatus]{From: StatusPending, To: StatusDelivered, By: "2xx"},
	statemachine.Move[DeliveryStatus]{From: StatusPending, To: StatusFailed, By: "attempt failed, another scheduled"},
	statemachine.Move[DeliveryStatus]{From: StatusPending, To: StatusDropped, By: "410 Gone, or subscription deleted"},
	statemachine.Move[DeliveryStatus]{From: StatusFailed, To: StatusFailed, By: "attempt failed, another scheduled"},
	statemachine.Move[DeliveryStatus]{From: StatusFailed, To: StatusDelivered, By: "2xx"},
	statemachine.Move[DeliveryStatus]{From: StatusFailed, To: StatusDropped, By: "attempts exhausted, or 410 Gone"},
)
