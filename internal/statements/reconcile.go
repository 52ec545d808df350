package statements

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Check is one reconciliation check's outcome. When it fails, Row (the transaction index)
// and Page name the first place where it breaks, with the expected and actual amounts.
type Check struct {
	Name     string  `json:"name"`
	OK       bool    `json:"ok"`
	Skipped  bool    `json:"skipped,omitempty"`
	Row      *int    `json:"row,omitempty"`
	Page     int     `json:"page,omitempty"`
	Expected *Amount `json:"expected,omitempty"`
	Actual   *Amount `json:"actual,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// StatementReconciliation is the reconciliation of one statement.
type StatementReconciliation struct {
	Statement int     `json:"statement"`
	Credits   Amount  `json:"credits"`
	Debits    Amount  `json:"debits"`
	Totals    Check   `json:"totals"`
	Running   Check   `json:"runningBalances"`
	OK        bool    `json:"ok"`
	Failures  []Check `json:"failures,omitempty"`
}

// Reconciliation is the reconciliation of every statement of an analysis.
type Reconciliation struct {
	Statements []StatementReconciliation `json:"statements"`
	// Continuity checks consecutive statements: closing = next opening, no missing days.
	Continuity []Check `json:"continuity"`
	OK         bool    `json:"ok"`
}

// Reconcile checks every statement (opening + credits − debits = closing to the cent, and
// each printed running balance row by row) and the continuity of consecutive statements
// (ordered by period). All arithmetic is in integer minor units.
func Reconcile(sts []*Statement) *Reconciliation {
	r := &Reconciliation{OK: true, Continuity: []Check{}}
	for i, st := range sts {
		sr := reconcileOne(st)
		sr.Statement = i
		r.Statements = append(r.Statements, sr)
		r.OK = r.OK && sr.OK
	}
	order := make([]int, 0, len(sts))
	for i := range sts {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return startOf(sts[a]).Compare(startOf(sts[b])) })
	for k := 1; k < len(order); k++ {
		prev, next := sts[order[k-1]], sts[order[k]]
		c := continuity(prev, next)
		r.Continuity = append(r.Continuity, c)
		r.OK = r.OK && (c.OK || c.Skipped)
	}
	return r
}

func reconcileOne(st *Statement) StatementReconciliation {
	sr := StatementReconciliation{Credits: st.Credits(), Debits: st.Debits(), OK: true}
	sr.Totals = Check{Name: "totals", OK: true}
	switch {
	case st.Opening == nil || st.Closing == nil:
		sr.Totals.Skipped = true
		sr.Totals.Message = "the statement does not print both an opening and a closing balance"
	default:
		want := *st.Closing
		got := *st.Opening + sr.Credits - sr.Debits
		if got != want {
			sr.Totals.OK = false
			sr.Totals.Expected, sr.Totals.Actual = amt(want), amt(got)
			sr.Totals.Message = fmt.Sprintf("opening %s + credits %s − debits %s = %s, but the closing balance is %s",
				*st.Opening, sr.Credits, sr.Debits, got, want)
			// The first row after which the printed balances stop agreeing locates the break.
			if row, page := firstRunningBreak(st); row != nil {
				sr.Totals.Row, sr.Totals.Page = row, page
			}
		}
	}
	sr.Running = runningCheck(st)
	for _, c := range []Check{sr.Totals, sr.Running} {
		if !c.OK && !c.Skipped {
			sr.OK = false
			sr.Failures = append(sr.Failures, c)
		}
	}
	return sr
}

// runningCheck recomputes the balance row by row from the opening balance (or the first
// printed balance) and compares it with each printed one.
func runningCheck(st *Statement) Check {
	c := Check{Name: "runningBalances", OK: true}
	row, page := firstRunningBreak(st)
	if row == nil {
		if !hasBalances(st) {
			c.Skipped = true
			c.Message = "the statement prints no running balance"
		}
		return c
	}
	tx := st.Transactions[*row]
	exp := expectedBalance(st, *row)
	c.OK, c.Row, c.Page = false, row, page
	c.Expected, c.Actual = amt(exp), amt(*tx.Balance)
	c.Message = fmt.Sprintf("row %d (%s, %q): the printed balance is %s, the computed balance %s",
		*row+1, tx.Date.Format(time.DateOnly), tx.Description, *tx.Balance, exp)
	return c
}

func hasBalances(st *Statement) bool {
	for _, tx := range st.Transactions {
		if tx.Balance != nil {
			return true
		}
	}
	return false
}

// expectedBalance is the balance after row i computed from the last printed balance (or
// the opening balance) before it.
func expectedBalance(st *Statement, i int) Amount {
	var bal Amount
	start := 0
	switch {
	case st.Opening != nil:
		bal = *st.Opening
	case len(st.Transactions) > 0 && st.Transactions[0].Balance != nil:
		bal = *st.Transactions[0].Balance - st.Transactions[0].Amount
	}
	for j := i - 1; j >= 0; j-- {
		if st.Transactions[j].Balance != nil {
			bal, start = *st.Transactions[j].Balance, j+1
			break
		}
	}
	for j := start; j <= i; j++ {
		bal += st.Transactions[j].Amount
	}
	return bal
}

// firstRunningBreak returns the first row whose printed balance differs from the computed one.
func firstRunningBreak(st *Statement) (*int, int) {
	for i, tx := range st.Transactions {
		if tx.Balance == nil {
			continue
		}
		if expectedBalance(st, i) != *tx.Balance {
			return &i, tx.Page
		}
	}
	return nil, 0
}

func startOf(st *Statement) time.Time {
	if st.PeriodStart != nil {
		return *st.PeriodStart
	}
	if len(st.Transactions) > 0 {
		return st.Transactions[0].Date
	}
	return time.Time{}
}

// continuity checks that next follows prev: the same account and currency, prev's closing
// balance is next's opening, and next's period starts the day after prev's ends.
func continuity(prev, next *Statement) Check {
	c := Check{Name: "continuity", OK: true}
	if a, b := accountKey(prev.Account), accountKey(next.Account); a != "" && b != "" && a != b {
		c.OK = false
		c.Message = fmt.Sprintf("the statements are of different accounts (%s, then %s): an analysis is of one account", prev.Account, next.Account)
		return c
	}
	if prev.Currency != "" && next.Currency != "" && prev.Currency != next.Currency {
		c.OK = false
		c.Message = fmt.Sprintf("the statements are in different currencies (%s, then %s): an analysis is of one account", prev.Currency, next.Currency)
		return c
	}
	if prev.Closing == nil || next.Opening == nil {
		c.Skipped = true
		c.Message = "a balance needed to check continuity is missing"
		return c
	}
	if *prev.Closing != *next.Opening {
		c.OK = false
		c.Expected, c.Actual = amt(*prev.Closing), amt(*next.Opening)
		c.Message = fmt.Sprintf("the closing balance %s is not the next statement's opening balance %s", *prev.Closing, *next.Opening)
		return c
	}
	if prev.PeriodEnd != nil && next.PeriodStart != nil {
		if want := prev.PeriodEnd.AddDate(0, 0, 1); !next.PeriodStart.Equal(want) {
			c.OK = false
			c.Message = fmt.Sprintf("the next statement starts on %s; %s was expected (missing or overlapping days)",
				next.PeriodStart.Format(time.DateOnly), want.Format(time.DateOnly))
		}
	}
	return c
}

// accountKey is an account number as printed, without spaces, dashes and dots, in upper case,
// so that "DE89 3704 0044" and "DE8937040044" are one account.
func accountKey(s string) string {
	return strings.ToUpper(strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '.' || r == '\u00a0' {
			return -1
		}
		return r
	}, s))
}
