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

func compiled(b testing.TB) *fraud.RuleSet {
	spec := fraud.VersionSpec{Thresholds: Thresholds()}
	for i, r := range Specs() {
		r.ID, r.Version = fmt.Sprintf("rul_%02d", i), 1
		spec.Rules = append(spec.Rules, r)
	}
	rs, err := fraud.Compile(spec, []string{ListName})
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
		for _, r := range Rules {
			if r.Go(e) {
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
	for i, r := range Rules {
		if r.Go(e) {
			want = append(want, fmt.Sprintf("R%02d", i))
		}
	}
	if !slices.Equal(res.ReasonCodes, want) || len(res.Errors) != 0 {
		t.Errorf("engine hit %v (errors %v), plain Go %v", res.ReasonCodes, res.Errors, want)
	}
}
