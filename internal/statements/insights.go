package statements

import (
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Month is one calendar month's cash flow.
type Month struct {
	Month   string `json:"month"` // YYYY-MM
	Inflow  Amount `json:"inflow"`
	Outflow Amount `json:"outflow"` // positive
	Net     Amount `json:"net"`
	Count   int    `json:"count"`
}

// Stream is a series of similar transactions: an income stream or a recurring payment.
type Stream struct {
	Name      string `json:"name"`
	Category  string `json:"category"`
	Count     int    `json:"count"`
	Total     Amount `json:"total"`
	Average   Amount `json:"average"`
	Frequency string `json:"frequency"` // weekly, biweekly, monthly, quarterly, irregular
	// IntervalDays is the median number of days between occurrences.
	IntervalDays int    `json:"intervalDays"`
	First        Date   `json:"first"`
	Last         Date   `json:"last"`
	NextExpected *Date  `json:"nextExpected,omitempty"`
	Payroll      bool   `json:"payroll,omitempty"`
	Currency     string `json:"currency"`
}

// CategoryTotal is the money in and out of one category.
type CategoryTotal struct {
	Category string `json:"category"`
	Inflow   Amount `json:"inflow"`
	Outflow  Amount `json:"outflow"`
	Count    int    `json:"count"`
}

// Insights are the analytics of an analysis's transactions.
type Insights struct {
	Currency string   `json:"currency"`
	Months   []Month  `json:"months"`
	Income   []Stream `json:"incomeStreams"`
	// Recurring are recurring payments (debits).
	Recurring []Stream `json:"recurringPayments"`
	// OverdraftCount is how many times the balance went below zero; DaysOverdrawn how many
	// days ended below zero.
	OverdraftCount int `json:"overdraftCount"`
	DaysOverdrawn  int `json:"daysOverdrawn"`
	NSFCount       int `json:"nsfCount"`
	// AverageDailyBalance is the mean end-of-day balance over the statements' days (nil
	// when no balance is known).
	AverageDailyBalance *Amount         `json:"averageDailyBalance,omitempty"`
	Largest             []Transaction   `json:"largestTransactions"`
	Categories          []CategoryTotal `json:"categories"`
	TotalInflow         Amount          `json:"totalInflow"`
	TotalOutflow        Amount          `json:"totalOutflow"`
}

// largestN is how many of the largest transactions are listed.
const largestN = 5

// ComputeInsights categorises the statements' transactions with rules (an organisation's
// first, then DefaultCategoryRules) and computes the insights. Transactions are
// categorised in place.
func ComputeInsights(sts []*Statement, rules []CategoryRule) *Insights {
	rules = append(slices.Clone(rules), DefaultCategoryRules()...)
	in := &Insights{Months: []Month{}, Income: []Stream{}, Recurring: []Stream{}, Largest: []Transaction{}, Categories: []CategoryTotal{}}
	var all []Transaction
	for _, st := range sts {
		Categorise(st.Transactions, rules)
		all = append(all, st.Transactions...)
		if in.Currency == "" {
			in.Currency = st.Currency
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Date.Before(all[j].Date) })
	months := map[string]*Month{}
	cats := map[string]*CategoryTotal{}
	for _, tx := range all {
		k := tx.Date.Format("2006-01")
		m := months[k]
		if m == nil {
			m = &Month{Month: k}
			months[k] = m
		}
		c := cats[tx.Category]
		if c == nil {
			c = &CategoryTotal{Category: tx.Category}
			cats[tx.Category] = c
		}
		m.Count++
		c.Count++
		if tx.Amount >= 0 {
			m.Inflow += tx.Amount
			c.Inflow += tx.Amount
			in.TotalInflow += tx.Amount
		} else {
			m.Outflow -= tx.Amount
			c.Outflow -= tx.Amount
			in.TotalOutflow -= tx.Amount
		}
		m.Net += tx.Amount
		if tx.Category == CategoryNSF {
			in.NSFCount++
		}
	}
	for _, m := range months {
		in.Months = append(in.Months, *m)
	}
	sort.Slice(in.Months, func(i, j int) bool { return in.Months[i].Month < in.Months[j].Month })
	for _, c := range cats {
		in.Categories = append(in.Categories, *c)
	}
	sort.Slice(in.Categories, func(i, j int) bool { return in.Categories[i].Category < in.Categories[j].Category })
	largest := slices.Clone(all)
	sort.SliceStable(largest, func(i, j int) bool { return largest[i].Amount.Abs() > largest[j].Amount.Abs() })
	in.Largest = append(in.Largest, largest[:min(largestN, len(largest))]...)
	in.Income, in.Recurring = streams(all, true), streams(all, false)
	balances(sts, in)
	return in
}

// merchantKey normalises a description to group a series: letters only, the first three words.
func merchantKey(desc string) string {
	f := strings.FieldsFunc(fold(desc), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

// streams finds series of credits (income) or debits (recurring payments) with the same
// merchant key: at least three (two for payroll) at a regular interval.
func streams(all []Transaction, credits bool) []Stream {
	groups := map[string][]Transaction{}
	var keys []string
	for _, tx := range all {
		if (tx.Amount > 0) != credits || tx.Amount == 0 {
			continue
		}
		k := merchantKey(tx.Description)
		if k == "" {
			continue
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], tx)
	}
	out := []Stream{}
	for _, k := range keys {
		g := groups[k]
		payroll := credits && g[0].Category == CategoryPayroll
		minCount := 3
		if payroll {
			minCount = 2
		}
		if len(g) < minCount {
			continue
		}
		s := Stream{Name: k, Category: g[0].Category, Count: len(g), First: g[0].Date, Last: g[len(g)-1].Date, Payroll: payroll, Currency: g[0].Currency}
		var gaps []int
		for i, tx := range g {
			s.Total += tx.Amount.Abs()
			if i > 0 {
				gaps = append(gaps, int(tx.Date.Sub(g[i-1].Date).Hours()/24))
			}
		}
		s.Average = s.Total / Amount(len(g))
		slices.Sort(gaps)
		s.IntervalDays = gaps[len(gaps)/2]
		s.Frequency = frequency(s.IntervalDays)
		if s.Frequency == "irregular" && !payroll {
			continue
		}
		if !regular(gaps, s.IntervalDays) && !payroll {
			continue
		}
		next := s.Last.AddDate(0, 0, s.IntervalDays)
		if s.Frequency == "monthly" {
			next = s.Last.AddDate(0, 1, 0)
		}
		s.NextExpected = &next
		out = append(out, s)
	}
	return out
}

func frequency(days int) string {
	switch {
	case days >= 6 && days <= 8:
		return "weekly"
	case days >= 13 && days <= 16:
		return "biweekly"
	case days >= 26 && days <= 33:
		return "monthly"
	case days >= 85 && days <= 95:
		return "quarterly"
	}
	return "irregular"
}

// regular reports whether every gap is within a fifth (at least three days) of the median.
func regular(gaps []int, median int) bool {
	tol := max(3, median/5)
	for _, g := range gaps {
		if g < median-tol || g > median+tol {
			return false
		}
	}
	return true
}

// balances walks each statement day by day from its opening balance (or the balance before
// its first row) and fills the average daily balance and the overdraft counts.
func balances(sts []*Statement, in *Insights) {
	var sum, days int64
	for _, st := range sts {
		if len(st.Transactions) == 0 {
			continue
		}
		var bal Amount
		switch {
		case st.Opening != nil:
			bal = *st.Opening
		case st.Transactions[0].Balance != nil:
			bal = *st.Transactions[0].Balance - st.Transactions[0].Amount
		default:
			continue
		}
		txs := slices.Clone(st.Transactions)
		sort.SliceStable(txs, func(i, j int) bool { return txs[i].Date.Before(txs[j].Date) })
		start, end := txs[0].Date, txs[len(txs)-1].Date
		if st.PeriodStart != nil && st.PeriodStart.Before(start) {
			start = *st.PeriodStart
		}
		if st.PeriodEnd != nil && st.PeriodEnd.After(end) {
			end = *st.PeriodEnd
		}
		if end.Sub(start) > 3*366*24*time.Hour {
			end = start.AddDate(3, 0, 0) // a hostile period cannot make this loop long
		}
		i := 0
		for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
			for ; i < len(txs) && !txs[i].Date.After(d); i++ {
				before := bal
				bal += txs[i].Amount
				if before >= 0 && bal < 0 {
					in.OverdraftCount++
				}
			}
			if bal < 0 {
				in.DaysOverdrawn++
			}
			sum += int64(bal)
			days++
		}
	}
	if days > 0 {
		in.AverageDailyBalance = amt(Amount(sum / days))
	}
}
