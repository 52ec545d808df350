package webhook

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
func (s DeliveryStatus) Final() bool { return s == StatusDelivered || s == StatusDropped }
