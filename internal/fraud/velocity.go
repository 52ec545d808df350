package fraud

import (
	"sync"
	"time"
)

// Observation is what one evaluated event adds to the velocity counters.
type Observation struct {
	At time.Time
	// Currency and AmountMinor are the event's money ("" and 0 for an event without).
	Currency    string
	AmountMinor int64
	// Entities holds the value of each dimension the event has (customer id, device id, ...).
	Entities map[Dimension]string
	// Country is the event's country, counted as a distinct attribute.
	Country string
}

// ObserveEvent builds the observation of an event; deviceID is the device of its session ("" if none).
func ObserveEvent(e *Event, deviceID string) Observation {
	o := Observation{At: e.OccurredAt, Entities: map[Dimension]string{}, Country: e.Country}
	if e.HasAmount {
		o.Currency, o.AmountMinor = e.Amount.Currency, e.Amount.Minor
	}
	for d, v := range map[Dimension]string{
		DimCustomer: e.CustomerID, DimAccount: e.AccountID, DimDevice: deviceID,
		DimIP: e.IP, DimCounterparty: e.Counterparty,
	} {
		if v != "" {
			o.Entities[d] = v
		}
	}
	return o
}

// Attribute is the value of a distinct attribute in the observation ("" when it has none).
func (o Observation) Attribute(name string) string {
	if name == attrCountry {
		return o.Country
	}
	return o.Entities[Dimension(name)]
}

// CounterKey names one pre-aggregated counter row: the events of one entity, in one currency,
// in one time bucket.
type CounterKey struct {
	Dimension Dimension
	Entity    string
	Currency  string
	Bucket    Bucket
}

// Counters lists the counter rows an observation adds one event and its amount to.
func (o Observation) Counters() []CounterKey {
	buckets := BucketsAt(o.At)
	out := make([]CounterKey, 0, len(o.Entities)*len(buckets))
	for _, d := range Dimensions {
		e, ok := o.Entities[d]
		if !ok {
			continue
		}
		for _, b := range buckets {
			out = append(out, CounterKey{Dimension: d, Entity: e, Currency: o.Currency, Bucket: b})
		}
	}
	return out
}

// SeenKey names one distinct value of an attribute of an entity (the IPs of a customer).
// Its row keeps when the value was last seen; a distinct count over a window counts the values
// last seen in it. That is exact when events are recorded in time order, as on the fast path;
// a value seen only after the evaluated event still counts, which only matters when an older
// event is evaluated late.
type SeenKey struct {
	Dimension Dimension
	Entity    string
	Attribute string
	Value     string
}

// Seen lists the distinct-value rows an observation refreshes to its time.
func (o Observation) Seen() []SeenKey {
	var out []SeenKey
	for _, d := range Dimensions {
		e, ok := o.Entities[d]
		if !ok {
			continue
		}
		for _, attr := range distinctOf[d] {
			if v := o.Attribute(attr); v != "" {
				out = append(out, SeenKey{Dimension: d, Entity: e, Attribute: attr, Value: v})
			}
		}
	}
	return out
}

// Tally is the content of a counter row.
type Tally struct {
	Count int64
	// Sum is in minor units of the row's currency.
	Sum int64
}

// Features is the velocity map rules read: dimension → feature name → value.
type Features map[string]map[string]float64

// Set records one feature's value.
func (fs Features) Set(f Feature, v float64) {
	m := fs[string(f.Dimension)]
	if m == nil {
		m = map[string]float64{}
		fs[string(f.Dimension)] = m
	}
	m[f.Name()] = v
}

// MemoryVelocity keeps velocity counters in memory with the same buckets the store keeps in
// the database: for tests, and for measuring the engine without a database.
type MemoryVelocity struct {
	mu sync.Mutex
	// counters holds, per counter row without its currency, the tally of each currency.
	counters map[CounterKey]map[string]Tally
	// seen holds, per entity and attribute (a SeenKey without its value), when each value was last seen.
	seen map[SeenKey]map[string]int64
}

// NewMemoryVelocity returns empty counters.
func NewMemoryVelocity() *MemoryVelocity {
	return &MemoryVelocity{counters: map[CounterKey]map[string]Tally{}, seen: map[SeenKey]map[string]int64{}}
}

// Record adds an observation.
func (m *MemoryVelocity) Record(o Observation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range o.Counters() {
		cur := k.Currency
		k.Currency = ""
		if m.counters[k] == nil {
			m.counters[k] = map[string]Tally{}
		}
		t := m.counters[k][cur]
		t.Count++
		t.Sum += o.AmountMinor
		m.counters[k][cur] = t
	}
	at := o.At.Unix()
	for _, k := range o.Seen() {
		v := k.Value
		k.Value = ""
		if m.seen[k] == nil {
			m.seen[k] = map[string]int64{}
		}
		if prev, ok := m.seen[k][v]; !ok || at > prev {
			m.seen[k][v] = at
		}
	}
}

// Read computes features for the entities of o as of o.At: counts over every currency, sums
// in o's currency.
func (m *MemoryVelocity) Read(o Observation, features []Feature) Features {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := Features{}
	for _, f := range features {
		e, ok := o.Entities[f.Dimension]
		if !ok {
			out.Set(f, 0)
			continue
		}
		if f.Metric == MetricDistinct {
			from := WindowStart(o.At, f.Window.Length)
			n := 0
			for _, at := range m.seen[SeenKey{Dimension: f.Dimension, Entity: e, Attribute: f.Of}] {
				if at >= from {
					n++
				}
			}
			out.Set(f, float64(n))
			continue
		}
		var count, sum int64
		for _, span := range WindowSpans(o.At, f.Window.Length) {
			for start := span.From; start < span.To; start += span.Size {
				key := CounterKey{Dimension: f.Dimension, Entity: e, Bucket: Bucket{Size: span.Size, Start: start}}
				for cur, t := range m.counters[key] {
					count += t.Count
					if cur == o.Currency {
						sum += t.Sum
					}
				}
			}
		}
		if f.Metric == MetricCount {
			out.Set(f, float64(count))
		} else {
			out.Set(f, MinorToMajor(sum, o.Currency))
		}
	}
	return out
}
