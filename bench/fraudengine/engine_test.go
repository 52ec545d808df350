// Package fraudengine measures the anti-fraud rule engine alone (no HTTP, no database): one
// evaluation of a 20-rule version reading 6 velocity features, on one goroutine (one core),
// beside the same 20 rules written as plain Go functions in the same run, and their ratio.
//
//	go test ./bench/fraudengine/ -run '^$' -bench . -benchtime 3s
package fraudengine

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/fraud"
)

// benchRule is one rule as expr-lang source and as the Go function it means.
type benchRule struct {
	expr string
	gof  func(e *fraud.Env) bool
}

func ptr(i int) *int { return &i }

// The 20 rules read the 6 features below, the transaction, the device, the customer, a value
// list and the attributes: a plausible card-payment rule set.
var rules = []benchRule{
	{"transaction.amount > 5000", func(e *fraud.Env) bool { return e.Transaction.Amount > 5000 }},
	{"transaction.amount > 1000 && customer.ageDays < 7", func(e *fraud.Env) bool { return e.Transaction.Amount > 1000 && e.Customer.AgeDays < 7 }},
	{"velocity.customer.count_1h > 10", func(e *fraud.Env) bool { return e.Velocity["customer"]["count_1h"] > 10 }},
	{"velocity.customer.count_1h > 5 && transaction.amount > 200", func(e *fraud.Env) bool {
		return e.Velocity["customer"]["count_1h"] > 5 && e.Transaction.Amount > 200
	}},
	{"velocity.customer.sum_24h + transaction.amount > 10000", func(e *fraud.Env) bool {
		return e.Velocity["customer"]["sum_24h"]+e.Transaction.Amount > 10000
	}},
	{"velocity.device.distinct_customer_24h >= 3", func(e *fraud.Env) bool { return e.Velocity["device"]["distinct_customer_24h"] >= 3 }},
	{"velocity.ip.count_5m > 20", func(e *fraud.Env) bool { return e.Velocity["ip"]["count_5m"] > 20 }},
	{"velocity.account.sum_7d > 50000", func(e *fraud.Env) bool { return e.Velocity["account"]["sum_7d"] > 50000 }},
	{"velocity.counterparty.distinct_customer_30d > 25", func(e *fraud.Env) bool {
		return e.Velocity["counterparty"]["distinct_customer_30d"] > 25
	}},
	{"transaction.country in lists.high_risk_countries", func(e *fraud.Env) bool { return e.Lists["high_risk_countries"][e.Transaction.Country] }},
	{"device.known && device.country != transaction.country", func(e *fraud.Env) bool {
		return e.Device.Known && e.Device.Country != e.Transaction.Country
	}},
	{"!device.known && transaction.amount > 300", func(e *fraud.Env) bool { return !e.Device.Known && e.Transaction.Amount > 300 }},
	{"transaction.channel == 'web' && transaction.type == 'card_payment' && transaction.amount > 2500", func(e *fraud.Env) bool {
		return e.Transaction.Channel == "web" && e.Transaction.Type == "card_payment" && e.Transaction.Amount > 2500
	}},
	{"customer.isNew && velocity.customer.count_1h > 2", func(e *fraud.Env) bool {
		return e.Customer.IsNew && e.Velocity["customer"]["count_1h"] > 2
	}},
	{"transaction.amount / (velocity.customer.count_1h + 1) > 800", func(e *fraud.Env) bool {
		return e.Transaction.Amount/(e.Velocity["customer"]["count_1h"]+1) > 800
	}},
	{"attributes.mcc in ['7995', '4829', '6051']", func(e *fraud.Env) bool {
		return slices.Contains([]any{"7995", "4829", "6051"}, e.Attributes["mcc"])
	}},
	{"transaction.occurredAt.Hour() < 5 && transaction.amount > 500", func(e *fraud.Env) bool {
		return e.Transaction.OccurredAt.Hour() < 5 && e.Transaction.Amount > 500
	}},
	{"transaction.counterparty startsWith 'CRYPTO'", func(e *fraud.Env) bool {
		return len(e.Transaction.Counterparty) >= 6 && e.Transaction.Counterparty[:6] == "CRYPTO"
	}},
	{"velocity.ip.count_5m > 3 && velocity.device.distinct_customer_24h > 1", func(e *fraud.Env) bool {
		return e.Velocity["ip"]["count_5m"] > 3 && e.Velocity["device"]["distinct_customer_24h"] > 1
	}},
	{"transaction.amount >= 9000 && transaction.amount < 10000", func(e *fraud.Env) bool {
		return e.Transaction.Amount >= 9000 && e.Transaction.Amount < 10000
	}},
}

func compiled(b testing.TB) *fraud.RuleSet {
	spec := fraud.VersionSpec{Thresholds: fraud.Thresholds{Review: ptr(40), BlockAndReview: ptr(70), Decline: ptr(100)}}
	for i, r := range rules {
		spec.Rules = append(spec.Rules, fraud.RuleSpec{
			ID: fmt.Sprintf("rul_%02d", i), Version: 1, Name: fmt.Sprintf("rule %d", i), Expression: r.expr,
			ScoreModifier: 15, ReasonCode: fmt.Sprintf("R%02d", i), Explanation: "amount {{ transaction.amount }}",
		})
	}
	rs, err := fraud.Compile(spec, []string{"high_risk_countries"})
	if err != nil {
		b.Fatal(err)
	}
	if n := len(rs.Features()); n != 6 {
		b.Fatalf("the version reads %d features, want 6", n)
	}
	return rs
}

func env(b testing.TB) *fraud.Env {
	body := `{"transaction": {"id": "t1", "amount": 1250.75, "currency": "EUR", "type": "card_payment", "customerId": "cus_1",
		"accountId": "acc_1", "counterparty": "CRYPTO EXCHANGE", "channel": "web", "country": "DE", "ip": "10.0.0.1",
		"occurredAt": "2026-11-23T03:00:00Z"}, "attributes": {"mcc": "6051"}}`
	req, err := fraud.ParseEvaluate([]byte(body), fraud.KindTransaction, time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	e := fraud.NewEnv(req, fraud.CustomerView{ID: "cus_1", AgeDays: 3}, fraud.DeviceView{Known: true, Country: "FR"},
		fraud.Features{
			"customer": {"count_1h": 6, "sum_24h": 4000}, "device": {"distinct_customer_24h": 2},
			"ip": {"count_5m": 4}, "account": {"sum_7d": 12000}, "counterparty": {"distinct_customer_30d": 30},
		},
		map[string]map[string]bool{"high_risk_countries": {"DE": true, "NG": true}})
	return &e
}

// cpuTime is the CPU time this process has used so far: on a shared machine a single
// goroutine's wall time includes waiting for a core, its CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRuleEngine reports evaluations per wall second and per CPU second (one goroutine,
// so per core) for the expr-lang engine and for the same rules in plain Go, and the ratio.
func BenchmarkRuleEngine(b *testing.B) {
	rs, e := compiled(b), env(b)
	engine := measure(b, "engine", func() int { return len(rs.Evaluate(e, time.Second).Matched) })
	plain := measure(b, "plain-go", func() int {
		hits := 0
		for _, r := range rules {
			if r.gof(e) {
				hits++
			}
		}
		return hits
	})
	if engine > 0 && plain > 0 {
		b.Logf("20 rules, 6 velocity features, per CPU second: engine %.0f evals, plain Go %.0f evals, ratio %.3f", engine, plain, engine/plain)
	}
}

// measure runs eval (which returns its hits) as a sub-benchmark and returns its evaluations
// per CPU second.
func measure(b *testing.B, name string, eval func() int) (perCPUSecond float64) {
	b.Run(name, func(b *testing.B) {
		hits := 0
		cpu := cpuTime()
		for b.Loop() {
			hits += eval()
		}
		cpu = cpuTime() - cpu
		if hits == 0 {
			b.Fatal("no rule hit")
		}
		perCPUSecond = float64(b.N) / cpu.Seconds()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
		b.ReportMetric(perCPUSecond, "evals/cpu-s")
	})
	return perCPUSecond
}

// TestRulesAgree checks that the benchmark's two sides decide the same, so the ratio compares
// equal work.
func TestRulesAgree(t *testing.T) {
	rs, e := compiled(t), env(t)
	res := rs.Evaluate(e, time.Second)
	var want []string
	for i, r := range rules {
		if r.gof(e) {
			want = append(want, fmt.Sprintf("R%02d", i))
		}
	}
	if !slices.Equal(res.ReasonCodes, want) || len(res.Errors) != 0 {
		t.Errorf("engine hit %v (errors %v), plain Go %v", res.ReasonCodes, res.Errors, want)
	}
}
