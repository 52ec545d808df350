package statements

import (
	"strings"
	"testing"
)

func stmt(open, closing Amount, start, end Date, rows ...Transaction) *Statement {
	for i := range rows {
		rows[i].Index = i
	}
	return &Statement{Opening: &open, Closing: &closing, PeriodStart: &start, PeriodEnd: &end, Transactions: rows}
}

func row(d Date, a Amount, bal Amount, page int) Transaction {
	return Transaction{Date: d, Amount: a, Balance: &bal, Page: page, Description: "x"}
}

func TestReconcileNamesFirstBrokenRow(t *testing.T) {
	jan1, jan31 := day(2024, 1, 1), day(2024, 1, 31)
	good := stmt(10000, 10550, jan1, jan31,
		row(day(2024, 1, 2), -450, 9550, 1), row(day(2024, 1, 5), 1000, 10550, 1))
	r := Reconcile([]*Statement{good})
	if !r.OK || !r.Statements[0].Totals.OK || !r.Statements[0].Running.OK || r.Statements[0].Credits != 1000 || r.Statements[0].Debits != 450 {
		t.Fatalf("a consistent statement: %+v", r.Statements[0])
	}
	// Row 2 (index 1) printed an amount one cent off: the totals and the running balances break there.
	bad := stmt(10000, 10550, jan1, jan31,
		row(day(2024, 1, 2), -450, 9550, 1), row(day(2024, 1, 5), 1001, 10550, 2), row(day(2024, 1, 6), 0, 10550, 2))
	r = Reconcile([]*Statement{bad})
	sr := r.Statements[0]
	if r.OK || sr.Totals.OK || *sr.Totals.Expected != 10550 || *sr.Totals.Actual != 10551 {
		t.Fatalf("totals: %+v", sr.Totals)
	}
	if sr.Running.OK || *sr.Running.Row != 1 || sr.Running.Page != 2 || *sr.Running.Expected != 10551 || *sr.Running.Actual != 10550 {
		t.Fatalf("running: %+v", sr.Running)
	}
}

func TestContinuity(t *testing.T) {
	jan := stmt(0, 100, day(2024, 1, 1), day(2024, 1, 31), row(day(2024, 1, 3), 100, 100, 1))
	feb := stmt(100, 50, day(2024, 2, 1), day(2024, 2, 29), row(day(2024, 2, 3), -50, 50, 1))
	if r := Reconcile([]*Statement{feb, jan}); !r.OK || len(r.Continuity) != 1 || !r.Continuity[0].OK {
		t.Fatalf("consecutive statements (given out of order): %+v", r.Continuity)
	}
	gap := stmt(100, 50, day(2024, 2, 3), day(2024, 2, 29), row(day(2024, 2, 3), -50, 50, 1))
	if r := Reconcile([]*Statement{jan, gap}); r.OK || r.Continuity[0].OK {
		t.Fatalf("missing days 1–2 February: %+v", r.Continuity)
	}
	// Statements of two accounts, or in two currencies, are not one account's months, even when
	// their balances happen to chain; the same account printed with spaces is one account.
	jan.Account, jan.Currency = "DE89 3704 0044 0532 0130 00", "EUR"
	other := stmt(100, 50, day(2024, 2, 1), day(2024, 2, 29), row(day(2024, 2, 3), -50, 50, 1))
	other.Account, other.Currency = "DE44 5001 0517 5407 3249 31", "EUR"
	if r := Reconcile([]*Statement{jan, other}); r.OK || r.Continuity[0].OK || !strings.Contains(r.Continuity[0].Message, "different accounts") {
		t.Fatalf("two accounts: %+v", r.Continuity)
	}
	other.Account, other.Currency = "DE8937040044-05320130-00", "USD"
	if r := Reconcile([]*Statement{jan, other}); r.OK || !strings.Contains(r.Continuity[0].Message, "different currencies") {
		t.Fatalf("two currencies: %+v", r.Continuity)
	}
	other.Currency = "EUR"
	if r := Reconcile([]*Statement{jan, other}); !r.OK {
		t.Fatalf("one account printed two ways: %+v", r.Continuity)
	}
	jump := stmt(120, 70, day(2024, 2, 1), day(2024, 2, 29), row(day(2024, 2, 3), -50, 70, 1))
	if r := Reconcile([]*Statement{jan, jump}); r.OK || *r.Continuity[0].Expected != 100 || *r.Continuity[0].Actual != 120 {
		t.Fatalf("closing ≠ next opening: %+v", r.Continuity)
	}
}
