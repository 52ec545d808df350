package fraud

import "time"

// Snapshot is the data a decision was made on, stored with it: the evidence of the decision,
// and what a backtest replays a candidate version against. Value lists are not in it; a replay
// reads the organisation's current ones.
type Snapshot struct {
	Event      EventView      `json:"event"`
	Customer   CustomerView   `json:"customer"`
	Device     DeviceView     `json:"device"`
	Velocity   Features       `json:"velocity"`
	Attributes map[string]any `json:"attributes"`
	Now        time.Time      `json:"now"`
}

// Snapshot returns the stored form of env.
func (e *Env) Snapshot() Snapshot {
	return Snapshot{Event: e.Transaction, Customer: e.Customer, Device: e.Device, Velocity: e.Velocity, Attributes: e.Attributes, Now: e.Now}
}

// Env rebuilds the evaluation data with the given value lists. Features the snapshot lacks
// (a candidate may read ones the live version did not) read as 0; Missing lists them.
func (s Snapshot) Env(lists map[string]map[string]bool) Env {
	attrs := s.Attributes
	if attrs == nil {
		attrs = map[string]any{}
	}
	return Env{Transaction: s.Event, Event: s.Event, Customer: s.Customer, Device: s.Device, Velocity: s.Velocity, Lists: lists, Attributes: attrs, Now: s.Now}
}

// Missing lists the features of rs that the snapshot does not hold.
func (s Snapshot) Missing(rs *RuleSet) []Feature {
	var out []Feature
	for _, f := range rs.features {
		if _, ok := s.Velocity[string(f.Dimension)][f.Name()]; !ok {
			out = append(out, f)
		}
	}
	return out
}
