package fraudengine

import (
	"fmt"
	"slices"

	"github.com/svcplatform/svc/internal/fraud"
)

// ListName is the value list the rules read.
const ListName = "high_risk_countries"

// Rule is one benchmark rule as expr-lang source and as the Go function it means.
type Rule struct {
	Expr string
	Go   func(e *fraud.Env) bool
}

// Rules are 20 rules reading the 6 features below, the transaction, the device, the customer, a value
// list and the attributes: a plausible card-payment rule set.
var Rules = []Rule{
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

// Thresholds turn the rules' score into an outcome.
func Thresholds() fraud.Thresholds {
	review, block, decline := 40, 70, 100
	return fraud.Thresholds{Review: &review, BlockAndReview: &block, Decline: &decline}
}

// Specs are Rules as the rule specs of a version (the same in the engine and the HTTP benchmark).
func Specs() []fraud.RuleSpec {
	out := make([]fraud.RuleSpec, len(Rules))
	for i, r := range Rules {
		out[i] = fraud.RuleSpec{Name: fmt.Sprintf("rule %d", i), Expression: r.Expr, ScoreModifier: 15,
			ReasonCode: fmt.Sprintf("R%02d", i), Explanation: "amount {{ transaction.amount }}"}
	}
	return out
}
