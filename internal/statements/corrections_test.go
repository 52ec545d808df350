package statements

import "testing"

func TestCorrectedMakesANewVersion(t *testing.T) {
	// Row 1's amount was misread (10.01 instead of 10.00): the statement does not reconcile.
	st := stmt(10000, 9000, day(2024, 1, 1), day(2024, 1, 31),
		row(day(2024, 1, 2), -1001, 9000, 1), row(day(2024, 1, 3), 0, 9000, 1))
	files := []*FileResult{{File: 0, Kind: KindCSV, MeanConfidence: 1, Statements: []*Statement{st}}}
	r := Analyze(files, nil, nil)
	if r.Status != StatusRequiresReview || r.Reconciliation.OK {
		t.Fatalf("before: %s %+v", r.Status, r.Reconciliation)
	}
	amount, cat := Amount(-1000), "fees"
	n, fe := r.Corrected([]Correction{{Statement: 0, Index: 0, Amount: &amount}, {Statement: 0, Index: 1, Category: &cat}}, nil)
	if fe != nil {
		t.Fatal(fe)
	}
	if n.Status != StatusCompleted || !n.Reconciliation.OK || n.Statements[0].Transactions[0].Amount != -1000 {
		t.Fatalf("after: %s %v %+v", n.Status, n.Reasons, n.Reconciliation)
	}
	if n.Statements[0].Transactions[1].Category != "fees" {
		t.Fatalf("the corrected category was replaced: %q", n.Statements[0].Transactions[1].Category)
	}
	if r.Statements[0].Transactions[0].Amount != -1001 {
		t.Fatal("the correction changed the previous version")
	}
	bad := "2024-02-30"
	if _, fe := r.Corrected([]Correction{{Statement: 0, Index: 7, Amount: &amount}, {Statement: 0, Index: 0, Date: &bad}, {Statement: 3}}, nil); fe["corrections[0].index"] == nil || fe["corrections[1].date"] == nil || fe["corrections[2].statement"] == nil {
		t.Fatalf("field errors: %v", fe)
	}
}
