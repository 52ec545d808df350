package fraudhistory

import (
	"fmt"
	"testing"
	"time"
)

// merchantCustomers are the distinct customers of the big merchant in BenchmarkLookupMerchant.
const merchantCustomers = 5000

// BenchmarkLookupMerchant measures how a decision's read grows with the distinct values its
// windows hold: the benchmark's rule set (which reads velocity.counterparty.distinct_customer_30d)
// looked up for a payment to a merchant that met 50 customers in the last 30 days and for one
// that met 5,000, alternately in the same run. A distinct count reads every value last seen in
// its window, so the ratio grows with the merchant's customers (docs/performance.md, "Fifth
// pass", has what a bounded read measured and cost).
//
//	go test ./bench/fraudhistory/ -run '^$' -bench Merchant
func BenchmarkLookupMerchant(b *testing.B) {
	now := time.Now().UTC().Truncate(time.Second)
	eachBackend(b, now, func(b *testing.B, decide evaluateFunc) {
		evaluate := func(merchant string, customer int, at time.Time, persist bool) {
			decide(fmt.Sprintf(`{"transaction": {"id": "%s-%d-%d", "amount": 12.50, "currency": "EUR", "type": "card_payment",
				"customerId": "cus_%d", "counterparty": %q, "country": "DE", "occurredAt": %q}}`,
				merchant, customer, at.Unix(), customer, merchant, at.Format(time.RFC3339)), persist)
		}
		// The customers' payments spread over 30 days, the newest a minute ago.
		span := 30*24*time.Hour - time.Hour
		for c := range merchantCustomers {
			at := now.Add(-time.Minute - span/merchantCustomers*time.Duration(merchantCustomers-1-c))
			evaluate("BIG", c, at, true)
			if c%(merchantCustomers/50) == 0 {
				evaluate("SMALL", c, at, true)
			}
		}
		b.ResetTimer()
		var small, big time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			evaluate("SMALL", 1, now, false)
			t1 := time.Now()
			evaluate("BIG", 1, now, false)
			small, big = small+t1.Sub(t0), big+time.Since(t1)
		}
		b.ReportMetric(float64(small.Microseconds())/float64(b.N), "µs/lookup-50")
		b.ReportMetric(float64(big.Microseconds())/float64(b.N), "µs/lookup-5000")
		b.ReportMetric(float64(big)/float64(small), "5000/50")
	})
}
