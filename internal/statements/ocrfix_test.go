package statements

import "testing"

func TestInferAmountsRepairsOnlyMisreadings(t *testing.T) {
	mk := func(amounts ...Amount) *Statement {
		st := &Statement{Source: SourceOCR, Opening: amt(10000)}
		bal := Amount(10000)
		for i, a := range amounts {
			bal += a
			st.Transactions = append(st.Transactions, Transaction{Index: i, Amount: a, Balance: amt(bal)})
		}
		st.Closing = amt(bal)
		return st
	}
	// A lost minus sign and a misread digit are repaired from the balances around them.
	// (Two neighbours misread cannot confirm each other, so they are apart here.)
	st := mk(-1000, 500, -2513, 300)
	st.Transactions[0].Amount = 1000
	st.Transactions[2].Amount = -2543
	inferAmounts(st)
	if st.Transactions[0].Amount != -1000 || !st.Transactions[0].AmountFromBalance || st.Transactions[2].Amount != -2513 {
		t.Fatalf("not repaired: %+v", st.Transactions)
	}
	// A missing row is not hidden by changing its neighbour: the difference is no misreading.
	st = mk(-958, 1170, 500)
	st.Transactions = append(st.Transactions[:0:0], st.Transactions[1:]...)
	inferAmounts(st)
	if st.Transactions[0].Amount != 1170 || st.Transactions[0].AmountFromBalance {
		t.Fatalf("a missing row was papered over: %+v", st.Transactions[0])
	}
	// An unreadable amount is taken from the balances; an unreadable balance from the amount.
	st = mk(-700, 300)
	st.Transactions[0].Amount, st.Transactions[0].AmountUnread = 0, true
	st.Transactions[1].Balance = nil
	inferAmounts(st)
	if st.Transactions[0].Amount != -700 || st.Transactions[1].Balance == nil || *st.Transactions[1].Balance != 9600 || !st.Transactions[1].BalanceInferred {
		t.Fatalf("not inferred: %+v", st.Transactions)
	}
}
