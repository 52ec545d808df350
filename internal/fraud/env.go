package fraud

import "time"

// Env is what rules read. It holds only data, so a rule's result is a pure function of it:
// the same Env gives the same decision in the fast path, a shadow run and a backtest.
type Env struct {
	// Transaction is the evaluated transaction or event; Event is the same value, for rule sets
	// that apply to events and read better as event.type.
	Transaction EventView    `expr:"transaction"`
	Event       EventView    `expr:"event"`
	Customer    CustomerView `expr:"customer"`
	Device      DeviceView   `expr:"device"`
	// Velocity holds the features the rule set reads: velocity.customer.count_1h.
	Velocity map[string]map[string]float64 `expr:"velocity"`
	// Lists are the organisation's value lists: transaction.country in lists.high_risk_countries.
	Lists map[string]map[string]bool `expr:"lists"`
	// Attributes are the request's free attributes.
	Attributes map[string]any `expr:"attributes"`
	// Now is the evaluated event's time (the now() builtin is disabled).
	Now time.Time `expr:"now"`
}

// EventView is a transaction or event as rules see it; amounts are in major units.
type EventView struct {
	ID           string    `expr:"id"`
	Kind         string    `expr:"kind"`
	Type         string    `expr:"type"`
	Amount       float64   `expr:"amount"`
	Currency     string    `expr:"currency"`
	OccurredAt   time.Time `expr:"occurredAt"`
	CustomerID   string    `expr:"customerId"`
	AccountID    string    `expr:"accountId"`
	Counterparty string    `expr:"counterparty"`
	Channel      string    `expr:"channel"`
	Country      string    `expr:"country"`
	IP           string    `expr:"ip"`
}

// CustomerView is what is known of the customer from earlier evaluations.
type CustomerView struct {
	ID string `expr:"id"`
	// FirstSeenAt is the customer's first evaluated event (this one for a new customer).
	FirstSeenAt time.Time `expr:"firstSeenAt"`
	// AgeDays is the time since FirstSeenAt, in days.
	AgeDays float64 `expr:"ageDays"`
	// IsNew is true when this is the customer's first evaluated event.
	IsNew bool `expr:"isNew"`
}

// DeviceView is the device session named by the request, if any.
type DeviceView struct {
	// Known is false when the request named no device session.
	Known       bool           `expr:"known"`
	SessionID   string         `expr:"sessionId"`
	ID          string         `expr:"id"`
	FirstSeenAt time.Time      `expr:"firstSeenAt"`
	AgeHours    float64        `expr:"ageHours"`
	IP          string         `expr:"ip"`
	Country     string         `expr:"country"`
	Signals     map[string]any `expr:"signals"`
}

// View turns a parsed event into what rules see.
func (e *Event) View() EventView {
	v := EventView{
		ID: e.ID, Kind: string(e.Kind), Type: e.Type, OccurredAt: e.OccurredAt,
		CustomerID: e.CustomerID, AccountID: e.AccountID, Counterparty: e.Counterparty,
		Channel: e.Channel, Country: e.Country, IP: e.IP,
	}
	if e.HasAmount {
		v.Amount, v.Currency = e.Amount.Major(), e.Amount.Currency
	}
	return v
}

// NewEnv builds the Env of an evaluation from its parts; velocity and lists may be nil.
func NewEnv(req *EvaluateRequest, customer CustomerView, device DeviceView, velocity map[string]map[string]float64, lists map[string]map[string]bool) Env {
	v := req.Event.View()
	attrs := req.Attributes
	if attrs == nil {
		attrs = map[string]any{}
	}
	return Env{
		Transaction: v, Event: v, Customer: customer, Device: device,
		Velocity: velocity, Lists: lists, Attributes: attrs, Now: req.Event.OccurredAt,
	}
}
