package fraud

import "time"

// Kind says what was evaluated: a monetary transaction or another event (login, signup,
// payout, card change) named by its type.
type Kind string

// The kinds of evaluated subjects.
const (
	KindTransaction Kind = "transaction"
	KindEvent       Kind = "event"
)

// Event is a parsed transaction or event, the subject of a decision.
type Event struct {
	Kind Kind
	// ID is the caller's id of the transaction or event ("" for an event without one).
	ID   string
	Type string
	// Amount is set for transactions and for events that carry money (HasAmount).
	Amount     Amount
	HasAmount  bool
	OccurredAt time.Time
	CustomerID string
	AccountID  string
	// Counterparty names the other side: a beneficiary account, a merchant.
	Counterparty string
	Channel      string
	// Country is an ISO 3166-1 alpha-2 code.
	Country string
	// IP is the caller's address in canonical form.
	IP string
}

// EvaluateRequest is the body of POST /api/transactions/evaluate, /api/evaluate and /api/lookup.
type EvaluateRequest struct {
	Event Event
	// DeviceSessionID names a session registered with POST /api/device-session.
	DeviceSessionID string
	// Attributes are free data rules read as attributes.<key>.
	Attributes map[string]any
	// ExternalID makes retries safe (SPEC 4.7).
	ExternalID string
}

// DeviceSessionRequest is the body of POST /api/device-session.
type DeviceSessionRequest struct {
	DeviceID   string
	CustomerID string
	IP         string
	Country    string
	// Signals are what the device fingerprinting client collected, kept as given.
	Signals    map[string]any
	ExternalID string
}

// ValidSubject reports whether s can be what a rule set applies to: "transaction" or an event
// type (login, payout, card_change).
func ValidSubject(s string) bool {
	return s == string(KindTransaction) || (s != string(KindEvent) && typePattern.MatchString(s))
}
