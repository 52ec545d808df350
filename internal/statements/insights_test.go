package statements

import (
	"testing"
	"time"
)

func timeMonth(m int) time.Month { return time.Month(m) }

func TestInsights(t *testing.T) {
	var txs []Transaction
	add := func(d Date, desc string, a Amount) {
		txs = append(txs, Transaction{Date: d, Description: desc, Amount: a, Currency: "USD"})
	}
	for m := 1; m <= 3; m++ {
		add(day(2024, timeMonth(m), 1), "RENT OAKWOOD APTS REF 1234", -150000)
		add(day(2024, timeMonth(m), 25), "PAYROLL ACME CORP PPD", 400000)
		add(day(2024, timeMonth(m), 15), "NETFLIX.COM 8812", -1599)
	}
	add(day(2024, 1, 10), "GROCERY MARKET", -20000)
	add(day(2024, 1, 11), "NSF FEE RETURNED ITEM", -3500)
	add(day(2024, 1, 12), "COFFEE HOUSE", -500000) // a large debit that overdraws
	st := &Statement{Opening: amt(100000), Currency: "USD", PeriodStart: ptr(day(2024, 1, 1)), PeriodEnd: ptr(day(2024, 3, 31)), Transactions: txs}
	orgRules := []CategoryRule{{Category: "coffee", Contains: []string{"coffee"}}}
	in := ComputeInsights([]*Statement{st}, orgRules)

	if len(in.Months) != 3 || in.Months[0].Month != "2024-01" || in.Months[0].Inflow != 400000 || in.Months[0].Outflow != 150000+1599+20000+3500+500000 {
		t.Errorf("months: %+v", in.Months)
	}
	if len(in.Income) != 1 || !in.Income[0].Payroll || in.Income[0].Frequency != "monthly" || in.Income[0].Average != 400000 ||
		!in.Income[0].NextExpected.Equal(day(2024, 4, 25)) {
		t.Errorf("income: %+v", in.Income)
	}
	names := map[string]Stream{}
	for _, s := range in.Recurring {
		names[s.Name] = s
	}
	if len(in.Recurring) != 2 || names["rent oakwood apts"].Average != 150000 || names["netflix com"].Frequency != "monthly" ||
		!names["netflix com"].NextExpected.Equal(day(2024, 4, 15)) {
		t.Errorf("recurring: %+v", in.Recurring)
	}
	if in.NSFCount != 1 {
		t.Errorf("nsf: %d", in.NSFCount)
	}
	// 1000.00 − 1500.00 on 1 Jan overdraws; payroll on the 25th fixes it; the coffee on 12 Jan keeps it below.
	if in.OverdraftCount < 1 || in.DaysOverdrawn == 0 {
		t.Errorf("overdraft: %d times, %d days", in.OverdraftCount, in.DaysOverdrawn)
	}
	if in.AverageDailyBalance == nil {
		t.Error("no average daily balance")
	}
	if in.Largest[0].Amount != -500000 || len(in.Largest) != largestN {
		t.Errorf("largest: %+v", in.Largest)
	}
	cats := map[string]CategoryTotal{}
	for _, c := range in.Categories {
		cats[c.Category] = c
	}
	// The organisation's rule wins over the defaults; Netflix falls to the default "subscriptions".
	if cats["coffee"].Outflow != 500000 || cats["rent"].Outflow != 450000 || cats[CategoryPayroll].Inflow != 1200000 || cats["subscriptions"].Count != 3 {
		t.Errorf("categories: %+v", in.Categories)
	}
}

// TestAverageDailyBalance: a balance of 100.00 for 10 days then 200.00 for 10 days averages 150.00.
func TestAverageDailyBalance(t *testing.T) {
	st := &Statement{Opening: amt(10000), PeriodStart: ptr(day(2024, 1, 1)), PeriodEnd: ptr(day(2024, 1, 20)),
		Transactions: []Transaction{{Date: day(2024, 1, 11), Amount: 10000, Description: "DEPOSIT"}}}
	in := ComputeInsights([]*Statement{st}, nil)
	if in.AverageDailyBalance == nil || *in.AverageDailyBalance != 15000 {
		t.Fatalf("average daily balance %v, want 150.00", in.AverageDailyBalance)
	}
}

func ptr[T any](v T) *T { return &v }
