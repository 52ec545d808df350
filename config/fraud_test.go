package config

import (
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/fraud"
)

// TestFraudRuleBudgetDefaultIsTheEngines keeps fraud.rule_budget's default equal to the engine's
// own default (backtests and tests evaluate without a configuration).
func TestFraudRuleBudgetDefaultIsTheEngines(t *testing.T) {
	k, ok := Lookup("fraud.rule_budget")
	if !ok {
		t.Fatal("fraud.rule_budget is not a key")
	}
	if got, _ := k.Default.(time.Duration); got != fraud.DefaultBudget {
		t.Fatalf("fraud.rule_budget defaults to %v, the engine to %v", k.Default, fraud.DefaultBudget)
	}
	cfg, err := Load(Options{Environ: []string{"SVC_FRAUD_RULE_BUDGET=40ms"}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Fraud.RuleBudget != 40*time.Millisecond {
		t.Fatalf("SVC_FRAUD_RULE_BUDGET=40ms gave %v", cfg.Fraud.RuleBudget)
	}
}
