package statements

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Correction is an analyst's fix of one parsed transaction: the fields that are set
// replace the parsed ones. Statement and Index name the transaction.
type Correction struct {
	Statement   int     `json:"statement"`
	Index       int     `json:"index"`
	Date        *string `json:"date,omitempty"` // YYYY-MM-DD
	Description *string `json:"description,omitempty"`
	Amount      *Amount `json:"amount,omitempty"`
	Balance     *Amount `json:"balance,omitempty"`
	Category    *string `json:"category,omitempty"`
}

// maxDescription bounds a corrected description.
const maxDescription = 500

// ApplyCorrections returns copies of the statements with the corrections applied, or the
// field errors (keyed "corrections[i].field") when a correction names no transaction or
// holds a bad value. The originals are not changed: a correction makes a new version.
func ApplyCorrections(sts []*Statement, cs []Correction) ([]*Statement, map[string][]string) {
	fe := map[string][]string{}
	add := func(i int, field, msg string) {
		k := fmt.Sprintf("corrections[%d].%s", i, field)
		fe[k] = append(fe[k], msg)
	}
	out := make([]*Statement, len(sts))
	for i, st := range sts {
		c := *st
		c.Transactions = slices.Clone(st.Transactions)
		out[i] = &c
	}
	if len(cs) == 0 {
		add(0, "index", "at least one correction is required")
	}
	for i, c := range cs {
		if c.Statement < 0 || c.Statement >= len(out) {
			add(i, "statement", fmt.Sprintf("must be between 0 and %d", len(out)-1))
			continue
		}
		txs := out[c.Statement].Transactions
		if c.Index < 0 || c.Index >= len(txs) {
			add(i, "index", fmt.Sprintf("must be between 0 and %d", len(txs)-1))
			continue
		}
		tx := &txs[c.Index]
		if c.Date != nil {
			d, err := time.Parse(time.DateOnly, *c.Date)
			if err != nil {
				add(i, "date", "must be a date YYYY-MM-DD")
			} else {
				tx.Date = d
			}
		}
		if c.Description != nil {
			if d := strings.TrimSpace(*c.Description); d == "" || len(d) > maxDescription {
				add(i, "description", fmt.Sprintf("must be 1 to %d bytes", maxDescription))
			} else {
				tx.Description = d
			}
		}
		if c.Amount != nil {
			tx.Amount, tx.AmountUnread, tx.AmountFromBalance = *c.Amount, false, false
		}
		if c.Balance != nil {
			tx.Balance, tx.BalanceInferred = amt(*c.Balance), false
		}
		if c.Category != nil {
			tx.Category = *c.Category
		}
		if c.Date == nil && c.Description == nil && c.Amount == nil && c.Balance == nil && c.Category == nil {
			add(i, "index", "a correction must change at least one field")
		}
		tx.Confidence = 1
	}
	if len(fe) > 0 {
		return nil, fe
	}
	return out, nil
}

// Corrected returns a new version of a result with the corrections applied: the
// reconciliation, the insights and the statement-level signals are recomputed; the
// signals about the files themselves (metadata, fonts) are kept.
func (r *Result) Corrected(cs []Correction, rules []CategoryRule) (*Result, map[string][]string) {
	sts, fe := ApplyCorrections(r.Statements, cs)
	if fe != nil {
		return nil, fe
	}
	n := &Result{Files: r.Files, Statements: sts, Reasons: []string{}}
	fileOf := make([]int, 0, len(sts))
	for _, f := range r.Files {
		for range f.Statements {
			fileOf = append(fileOf, f.File)
		}
	}
	n.Reconciliation = Reconcile(sts)
	// Rules categorise again, except the transactions whose category a correction set.
	fixed := map[[2]int]bool{}
	for _, c := range cs {
		if c.Category != nil {
			fixed[[2]int{c.Statement, c.Index}] = true
		}
	}
	for si, st := range sts {
		for ti := range st.Transactions {
			if !fixed[[2]int{si, ti}] {
				st.Transactions[ti].Category = ""
			}
		}
	}
	n.Insights = ComputeInsights(sts, rules)
	var fileSignals []Signal
	for _, s := range r.Signals.Signals {
		switch s.Kind {
		case SignalReconciliation, SignalDuplicate:
		default:
			fileSignals = append(fileSignals, s)
		}
	}
	n.Signals = TamperSignals(nil, sts, fileOf, n.Reconciliation)
	n.Signals.Signals = append(fileSignals, n.Signals.Signals...)
	n.Signals.Risk = riskOf(n.Signals.Signals)
	n.decide()
	return n, nil
}
