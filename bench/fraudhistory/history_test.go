// Package fraudhistory measures how a decision's velocity read grows with the history of its
// entities: the benchmark's 20 rules and 6 features looked up (POST /api/lookup's store call:
// every feature computed, nothing kept) for a customer, account and IP active every 10 minutes
// for the last day, and for ones active every 10 minutes for 30 days, alternately in the same
// run. Each window is read as range searches of the buckets that tile it, so the ratio should
// stay near 1 however long the history (reading every bucket of the entity, it grew with it).
//
//	go test ./bench/fraudhistory/ -run '^$' -bench History
package fraudhistory

import (
	"fmt"
	"testing"
	"time"
)

// every is how often the entities of the history were active.
const every = 10 * time.Minute

func BenchmarkLookupHistory(b *testing.B) {
	now := time.Now().UTC().Truncate(time.Second)
	eachBackend(b, now, func(b *testing.B, decide evaluateFunc) {
		ips := map[string]string{"day": "10.0.0.1", "month": "10.0.0.30"}
		evaluate := func(who string, at time.Time, persist bool) {
			decide(fmt.Sprintf(`{"transaction": {"id": "%s-%d", "amount": 12.50, "currency": "EUR", "type": "card_payment",
				"customerId": "cus_%s", "accountId": "acc_%s", "ip": %q, "counterparty": "GROCER", "country": "DE",
				"occurredAt": %q}}`, who, at.Unix(), who, who, ips[who], at.Format(time.RFC3339)), persist)
		}
		for at := now.Add(-30 * 24 * time.Hour); at.Before(now); at = at.Add(every) {
			evaluate("month", at, true)
			if now.Sub(at) <= 24*time.Hour {
				evaluate("day", at, true)
			}
		}
		b.ResetTimer()
		var day, month time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			evaluate("day", now, false)
			t1 := time.Now()
			evaluate("month", now, false)
			day, month = day+t1.Sub(t0), month+time.Since(t1)
		}
		b.ReportMetric(float64(day.Microseconds())/float64(b.N), "µs/lookup-1d")
		b.ReportMetric(float64(month.Microseconds())/float64(b.N), "µs/lookup-30d")
		b.ReportMetric(float64(month)/float64(day), "30d/1d")
	})
}
