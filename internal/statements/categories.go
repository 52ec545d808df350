package statements

import (
	"strconv"
	"strings"
)

// CategoryRule assigns Category to transactions whose description contains any of
// Contains as whole words (case and accents ignored: "tfl" does not match "netflix"), optionally only for credits or only for debits.
// Rules are data: the defaults below, and an organisation's own rules checked first.
type CategoryRule struct {
	Category string   `json:"category"`
	Contains []string `json:"contains"`
	// Direction is "credit", "debit" or "" (both).
	Direction string `json:"direction,omitempty"`
}

// Category names used by the defaults and by the insights.
const (
	CategoryPayroll = "payroll"
	CategoryNSF     = "nsf_fee"
	CategoryNone    = "uncategorised"
)

// DefaultCategoryRules are the built-in rules.
func DefaultCategoryRules() []CategoryRule {
	return []CategoryRule{
		{Category: CategoryNSF, Contains: []string{"nsf", "insufficient funds", "returned item", "unpaid item", "rejet", "ruecklastschrift"}},
		{Category: CategoryPayroll, Direction: "credit", Contains: []string{"payroll", "salary", "salaire", "gehalt", "lohn", "wages", "direct dep"}},
		{Category: "rent", Contains: []string{"rent", "miete", "loyer"}},
		{Category: "utilities", Contains: []string{"electric", "energy", "water", "gas", "strom", "edf", "internet", "telecom", "mobile"}},
		{Category: "groceries", Contains: []string{"grocery", "market", "supermarket", "carrefour", "rewe", "aldi", "lidl", "tesco", "migros", "coop"}},
		{Category: "transport", Contains: []string{"uber", "taxi", "fuel", "petrol", "shell", "sncf", "db bahn", "sbb", "tfl"}},
		{Category: "subscriptions", Contains: []string{"netflix", "spotify", "gym", "subscription", "abonnement"}},
		{Category: "insurance", Contains: []string{"insurance", "versicherung", "assurance"}},
		{Category: "transfers", Contains: []string{"transfer", "ueberweisung", "virement", "dauerauftrag"}},
		{Category: "cash", Contains: []string{"atm", "cash", "bargeld", "retrait"}},
		{Category: "fees", Contains: []string{"fee", "charge", "gebuehr", "frais", "overdraft"}},
	}
}

// Categorise sets the Category of each transaction that has none (an analyst's
// correction stays) from the first matching rule.
func Categorise(txs []Transaction, rules []CategoryRule) {
	for i := range txs {
		if txs[i].Category == "" {
			txs[i].Category = categoryOf(txs[i], rules)
		}
	}
}

func categoryOf(tx Transaction, rules []CategoryRule) string {
	d := fold(tx.Description)
	for _, r := range rules {
		if (r.Direction == "credit" && tx.Amount <= 0) || (r.Direction == "debit" && tx.Amount >= 0) {
			continue
		}
		for _, c := range r.Contains {
			if containsWord(d, fold(c)) {
				return r.Category
			}
		}
	}
	return CategoryNone
}

// containsWord reports whether w occurs in s between word boundaries.
func containsWord(s, w string) bool {
	if w == "" {
		return false
	}
	for off := 0; off <= len(s)-len(w); {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		before := i == 0 || !isWordByte(s[i-1])
		after := i+len(w) == len(s) || !isWordByte(s[i+len(w)])
		if before && after {
			return true
		}
		off = i + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// ValidateCategoryRules checks an organisation's rules and returns the field errors (keyed
// "rules[i].field"; nil when they are usable): a category of 1 to 64 characters, 1 to 50
// phrases of 1 to 100 characters each, and a direction of credit, debit or none.
func ValidateCategoryRules(rules []CategoryRule) map[string][]string {
	fe := map[string][]string{}
	add := func(i int, field, msg string) {
		k := "rules[" + strconv.Itoa(i) + "]." + field
		fe[k] = append(fe[k], msg)
	}
	for i, r := range rules {
		if c := strings.TrimSpace(r.Category); c == "" || len(c) > 64 {
			add(i, "category", "must be 1 to 64 characters")
		}
		if len(r.Contains) == 0 || len(r.Contains) > 50 {
			add(i, "contains", "must hold 1 to 50 phrases")
		}
		for _, c := range r.Contains {
			if c = strings.TrimSpace(c); c == "" || len(c) > 100 {
				add(i, "contains", "every phrase must be 1 to 100 characters")
				break
			}
		}
		switch r.Direction {
		case "", "credit", "debit":
		default:
			add(i, "direction", "must be credit, debit or absent")
		}
	}
	if len(fe) == 0 {
		return nil
	}
	return fe
}
