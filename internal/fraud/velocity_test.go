package fraud

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestMemoryVelocityMatchesBruteForce records random events in time order and checks every
// count, sum and distinct feature, read after each event, against a direct count of the events.
func TestMemoryVelocityMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mem := NewMemoryVelocity()
	var history []Observation
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pick := func(prefix string, n int) string {
		if rng.IntN(5) == 0 {
			return ""
		}
		return prefix + string(rune('a'+rng.IntN(n)))
	}
	features := AllFeatures()
	for i := 0; i < 400; i++ {
		// Gaps from a second to two days, so every window sees events come and go.
		at = at.Add(time.Duration(rng.Int64N(int64(48*time.Hour)))/time.Duration(1+rng.IntN(200)) + time.Second)
		cur := []string{"EUR", "USD", "JPY"}[rng.IntN(3)]
		o := Observation{At: at, Currency: cur, AmountMinor: rng.Int64N(100_000), Country: []string{"", "DE", "FR"}[rng.IntN(3)], Entities: map[Dimension]string{}}
		for d, v := range map[Dimension]string{DimCustomer: "c" + string(rune('a'+rng.IntN(3))), DimAccount: pick("a", 4), DimDevice: pick("d", 5), DimIP: pick("i", 6), DimCounterparty: pick("p", 3)} {
			if v != "" {
				o.Entities[d] = v
			}
		}
		mem.Record(o)
		history = append(history, o)
		got := mem.Read(o, features)
		for _, f := range features {
			want := bruteForce(history, o, f)
			if g := got[string(f.Dimension)][f.Name()]; math.Abs(g-want) > 1e-9 {
				t.Fatalf("event %d: velocity.%s = %v, want %v", i, f.Path(), g, want)
			}
		}
	}
}

func bruteForce(history []Observation, now Observation, f Feature) float64 {
	e, ok := now.Entities[f.Dimension]
	if !ok {
		return 0
	}
	// The window is (t-W, t] in whole seconds: the documented resolution.
	from, to := now.At.Unix()-int64(f.Window.Length/time.Second), now.At.Unix()
	var count, sum int64
	distinct := map[string]bool{}
	for _, h := range history {
		if s := h.At.Unix(); h.Entities[f.Dimension] != e || s <= from || s > to {
			continue
		}
		count++
		if h.Currency == now.Currency {
			sum += h.AmountMinor
		}
		if v := h.Attribute(f.Of); v != "" {
			distinct[v] = true
		}
	}
	switch f.Metric {
	case MetricCount:
		return float64(count)
	case MetricSum:
		return MinorToMajor(sum, now.Currency)
	}
	return float64(len(distinct))
}

func TestParseFeature(t *testing.T) {
	for _, name := range []string{"count_5m", "sum_30d", "distinct_ip_24h", "distinct_country_7d"} {
		f, err := ParseFeature("customer", name)
		if err != nil || f.Name() != name {
			t.Errorf("ParseFeature(customer, %s) = %+v, %v", name, f, err)
		}
	}
	for _, c := range [][2]string{{"merchant", "count_1h"}, {"customer", "count_2h"}, {"customer", "avg_1h"}, {"customer", "distinct_customer_1h"}, {"customer", "count"}} {
		if _, err := ParseFeature(c[0], c[1]); err == nil {
			t.Errorf("ParseFeature(%s, %s) accepted", c[0], c[1])
		}
	}
}
